// SPDX-License-Identifier: GPL-2.0
/*
 * blksplit: turns the output of ftrace's "blk" tracer with trace option "bin"
 * (read from trace_pipe) into blkparse's per-CPU input files.
 *
 * Each record in trace_pipe is a 16-byte ftrace header {int pid; int cpu;
 * u64 ts} followed by a struct blk_io_trace (48 bytes) and pdu_len bytes of
 * payload. We write the blk_io_trace records to BASE.blktrace.CPU, with a
 * per-CPU sequence number (ftrace leaves it 0). Every CPU below the highest
 * one seen gets a file, empty if it had no record, as blktrace writes them:
 * blkparse stops at the first CPU without a file.
 *
 * usage: blksplit RAW BASE     prints the number of records per CPU
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct blk_io_trace {
	uint32_t magic, sequence;
	uint64_t time, sector;
	uint32_t bytes, action, pid, device, cpu;
	uint16_t error, pdu_len;
};

#define MAX_CPUS 512

int main(int argc, char **argv)
{
	static FILE *out[MAX_CPUS];
	static uint32_t seq[MAX_CPUS];
	unsigned char hdr[16], pdu[65536];
	struct blk_io_trace t;
	uint64_t offset = 0;
	int ncpu = 0;
	FILE *in;

	if (argc != 3) {
		fprintf(stderr, "usage: blksplit RAW BASE\n");
		return 2;
	}
	in = fopen(argv[1], "rb");
	if (!in) {
		perror(argv[1]);
		return 1;
	}
	while (fread(hdr, sizeof(hdr), 1, in) == 1) {
		if (fread(&t, sizeof(t), 1, in) != 1) {
			fprintf(stderr, "blksplit: %s: offset %llu: truncated record\n",
				argv[1], (unsigned long long)offset);
			return 1;
		}
		if ((t.magic & 0xffffff00) != 0x65617400) {
			fprintf(stderr, "blksplit: %s: offset %llu: bad magic %#x\n",
				argv[1], (unsigned long long)offset, t.magic);
			return 1;
		}
		if (t.pdu_len && fread(pdu, t.pdu_len, 1, in) != 1)
			return 1;
		if (t.cpu >= MAX_CPUS)
			return 1;
		for (; ncpu <= (int)t.cpu; ncpu++) {
			char name[4096];

			snprintf(name, sizeof(name), "%s.blktrace.%d", argv[2], ncpu);
			out[ncpu] = fopen(name, "wb");
			if (!out[ncpu]) {
				perror(name);
				return 1;
			}
		}
		t.sequence = ++seq[t.cpu];
		fwrite(&t, sizeof(t), 1, out[t.cpu]);
		if (t.pdu_len)
			fwrite(pdu, t.pdu_len, 1, out[t.cpu]);
		offset += sizeof(hdr) + sizeof(t) + t.pdu_len;
	}
	for (int i = 0; i < ncpu; i++) {
		printf("cpu %d: %u records\n", i, seq[i]);
		fclose(out[i]);
	}
	return 0;
}
