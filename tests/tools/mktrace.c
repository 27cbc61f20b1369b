// SPDX-License-Identifier: GPL-2.0
/*
 * mktrace: writes a synthetic but well-formed trace through the real trace
 * writer, for benchmarks and tests that need a given size without a kernel:
 * N requests on one disk, each Q G I D on its submitting CPU and C on the
 * other, with a read syscall around every fourth, delivered in rounds the
 * way the recorder drains them.
 *
 * With --nvme the disk is nvme0n1 and every request has the NVMe driver
 * layer's events (docs/DRIVER.md) at known offsets: the command built 300 ns
 * after D on the submitting CPU's queue (id CPU + 1), its completion entry
 * 400 ns and the driver's end 100 ns before C.
 *
 * With --devs N the requests go to N disks in turn (loop0, loop1, ...),
 * as on a machine of many: each table by device then has N rows.
 *
 * With --zram the disk is zram0, bio-based (no request queue), as the
 * 16-CPU recordings of issue 18 are: each request is a bio queued 300 ns
 * into a pread64 on its CPU and completed there, about 2 us later, before
 * the call returns (4 records a request), 4 KB at a random place in 1 GB,
 * its bio's address one of 4096 of its CPU's.
 *
 * With --busy every CPU submits at once, as N threads on N CPUs do: a
 * request starts every 5 us / NR_CPUS, each CPU's every 5 us, so about
 * NR_CPUS / 2 are in flight and the CPUs' records interleave one by one
 * in time (without it, one request at a time: runs of a CPU's records).
 *
 * With --round MS the rounds are MS ms apart (20 by default): each CPU's
 * chunk holds that long of its records, as a recorder's drains of full
 * buffers do at full load (a 4 MB buffer of 16 CPUs' zram reads: ~40 ms).
 *
 * With --drop PCT each CPU loses PCT percent of each round's records, as a
 * buffer that fills before its drain does: the newest but two, which the
 * next drain finds written. They are not numbered (the kernel numbers only
 * what it writes), and a DROPS_AT chunk before the round's mark says how
 * many each CPU lost (and the DROPS chunk at the end, the totals), as the
 * recorder writes them; the count lost is printed.
 *
 * With --pack the records are written packed, as `record` writes them (the
 * same file `iotrail pack` makes of the unpacked one), so a trace larger
 * than memory needs no unpacked copy first.
 *
 * usage: mktrace [--nvme | --zram] [--devs N] [--busy] [--round MS] [--drop PCT]
 *                [--pack] OUT NR_REQUESTS [NR_CPUS]
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/writer.h"

#define ROUND_NS 20000000ull

struct cpu_buf {
	struct iot_rec *r;
	size_t n, cap;
	uint64_t seq;
};

static void put(struct cpu_buf *b, struct iot_rec r, uint32_t cpu)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 4096;
		b->r = realloc(b->r, b->cap * sizeof(*b->r));
		if (!b->r)
			exit(1);
	}
	r.seq = b->seq++;
	r.cpu = cpu;
	b->r[b->n++] = r;
}

/* A CPU's records of a round as one chunk, packed or whole */
static void put_chunk(struct trace_writer *w, bool pack, uint32_t c,
		      const struct cpu_buf *b)
{
	if (pack)
		trace_writer_packed(w, c, b->r, b->n, NULL, 0);
	else
		trace_writer_chunk(w, IOT_CHUNK_EVENTS, c, b->r, b->n * IOT_REC_SIZE,
				   NULL, 0);
}

/* --drop: pct percent of a round's records lost, unnumbered, as a full
 * buffer loses them: the newest but two, which the drain after finds
 * written once there is room (the round's last call's exit and the bio's
 * completion before it, here: an exit whose enter is lost). Returns how
 * many records at the end of b are carried into the next round. */
static size_t lose_newest(struct cpu_buf *b, uint32_t pct, uint64_t *lost)
{
	size_t k = b->n * pct / 100, carry = k && b->n >= k + 2 ? 2 : 0;
	uint64_t seq = b->n ? b->r[0].seq + (b->n - k - carry) : b->seq;

	if (!k)
		return 0;
	for (size_t j = 0; j < carry; j++) {
		b->r[b->n - k - carry + j] = b->r[b->n - carry + j];
		b->r[b->n - k - carry + j].seq = seq + j;
	}
	b->n -= k;
	b->seq = seq + carry;
	*lost += k;
	return carry;
}

/* The CPUs' drop counts at a round, as the recorder's DROPS_AT chunk */
static void drops_at(struct trace_writer *w, uint64_t from, uint64_t to, uint32_t ncpu,
		     const uint64_t *written, const uint64_t *lost)
{
	size_t len = sizeof(struct iot_drops_at) + ncpu * sizeof(struct iot_drop_entry);
	struct iot_drops_at *at = calloc(1, len);
	struct iot_drop_entry *e;

	if (!at)
		exit(1);
	e = (struct iot_drop_entry *)(at + 1);
	at->from_ns = from;
	at->to_ns = to;
	for (uint32_t c = 0; c < ncpu; c++)
		e[c] = (struct iot_drop_entry){
		    .cpu = c, .records = written[c], .drops_full = lost[c]};
	trace_writer_chunk(w, IOT_CHUNK_DROPS_AT, 0, at, len, NULL, 0);
	free(at);
}

static uint32_t cur_dev = 7u << 20; /* the disk of the request being made */

static struct iot_rec ev(uint16_t type, uint64_t ts, uint64_t id, uint64_t id2,
			 uint64_t sector, uint32_t nr, uint32_t tid)
{
	struct iot_rec r;

	memset(&r, 0, sizeof(r));
	r.type = type;
	r.ts_ns = ts;
	r.id = id;
	r.id2 = id2;
	r.sector = sector;
	r.nr = nr;
	r.dev = cur_dev;
	r.pid = r.tid = tid;
	r.flags = IOT_OP_READ | IOT_F_SYNC;
	return r;
}

/* pread64(3, ..., 4096, pos) by tid, and its return of 4096 */
static struct iot_rec pread_enter(uint64_t ts, uint64_t pos, uint32_t tid)
{
	struct iot_rec r = ev(IOT_EV_SYS_ENTER, ts, pos, 12, 17, 4096, tid);

	r.flags = 3;
	return r;
}

static struct iot_rec pread_exit(uint64_t ts, uint32_t tid)
{
	struct iot_rec r = ev(IOT_EV_SYS_EXIT, ts, 0, 0, 4096, 0, tid);

	r.flags = 17;
	return r;
}

int main(int argc, char **argv)
{
	struct iot_file_header h = {.magic = IOT_MAGIC};
	struct iot_dev_entry *devs, dev = {.dev = 7u << 20,
					   .disk_dev = 7u << 20,
					   .logical_block_size = 512,
					   .name = "loop0",
					   .scheduler = "mq-deadline"};
	struct trace_writer w;
	struct cpu_buf *cpu;
	uint64_t n, t = 1000000, round_ns = ROUND_NS, next_round, seed = 42;
	uint32_t ncpu, ndev = 1, drop = 0;
	uint64_t *written = NULL, *lost = NULL, prev_mark = 0;
	bool nvme = argc > 1 && !strcmp(argv[1], "--nvme"), busy = false;
	bool zram = argc > 1 && !strcmp(argv[1], "--zram"), pack = false;
	int err;

	if (nvme) {
		argv++;
		argc--;
		snprintf(dev.name, sizeof(dev.name), "nvme0n1");
		snprintf(dev.scheduler, sizeof(dev.scheduler), "none");
	}
	if (zram) {
		argv++;
		argc--;
		snprintf(dev.name, sizeof(dev.name), "zram0");
		snprintf(dev.scheduler, sizeof(dev.scheduler), "none");
		dev.flags |= IOT_DEV_BIO_BASED;
		dev.dev = dev.disk_dev = 252u << 20;
	}
	if (argc > 2 && !strcmp(argv[1], "--devs")) {
		ndev = (uint32_t)atoi(argv[2]);
		argv += 2;
		argc -= 2;
		if (ndev < 1 || ndev > 4096) {
			fprintf(stderr, "mktrace: --devs: 1 to 4096\n");
			return 2;
		}
	}
	if (argc > 1 && !strcmp(argv[1], "--busy")) {
		busy = true;
		argv++;
		argc--;
	}
	if (argc > 2 && !strcmp(argv[1], "--round")) {
		round_ns = strtoull(argv[2], NULL, 10) * 1000000ull;
		argv += 2;
		argc -= 2;
		if (!round_ns) {
			fprintf(stderr, "mktrace: --round: milliseconds, 1 or more\n");
			return 2;
		}
	}
	if (argc > 2 && !strcmp(argv[1], "--drop")) {
		drop = (uint32_t)atoi(argv[2]);
		argv += 2;
		argc -= 2;
		if (drop < 1 || drop > 99) {
			fprintf(stderr, "mktrace: --drop: a percentage, 1 to 99\n");
			return 2;
		}
	}
	if (argc > 1 && !strcmp(argv[1], "--pack")) {
		pack = true;
		argv++;
		argc--;
	}
	next_round = round_ns;
	if (argc < 3) {
		fprintf(stderr, "usage: mktrace [--nvme | --zram] [--devs N] [--busy] "
				"[--round MS] [--drop PCT] [--pack] OUT NR_REQUESTS "
				"[NR_CPUS]\n");
		return 2;
	}
	n = strtoull(argv[2], NULL, 10);
	ncpu = argc > 3 ? atoi(argv[3]) : 2;
	if (ncpu < 1 || ncpu > IOT_MAX_CPUS) {
		fprintf(stderr, "mktrace: NR_CPUS: 1 to %u\n", IOT_MAX_CPUS);
		return 2;
	}
	h.header_size = sizeof(h);
	h.version_major = IOT_VERSION_MAJOR;
	h.version_minor = pack ? IOT_VERSION_MINOR : IOT_VERSION_MINOR_UNPACKED;
	h.rec_size = IOT_REC_SIZE;
	h.nr_cpus = ncpu;
	h.clock_id = 1;
	err = trace_writer_open(&w, argv[1], &h);
	if (err) {
		fprintf(stderr, "mktrace: %s: %s\n", argv[1], strerror(-err));
		return 1;
	}
	cpu = calloc(ncpu, sizeof(*cpu));
	written = calloc(ncpu, sizeof(*written));
	lost = calloc(ncpu, sizeof(*lost));
	if (!cpu || !written || !lost)
		return 1;
	if (nvme)
		trace_writer_chunk(&w, IOT_CHUNK_META, 0,
				   "mode=events\ndrivers=nvme\n\n\n\n\n\n\n", 32, NULL,
				   0);
	else
		/* padded to 8 bytes, as the recorder pads it: the records
		 * after it stay aligned in the file (the reader maps them) */
		trace_writer_chunk(&w, IOT_CHUNK_META, 0, "mode=events\n\n\n\n\n", 16,
				   NULL, 0);
	for (uint64_t i = 0; i < n; i++) {
		uint32_t sc = i % ncpu, cc = (i + 1) % ncpu, tid = 1000 + sc;
		uint64_t bio = 0xffff000000000000ull | ((i % 64) << 8);
		uint64_t rq = 0xffff800000000000ull | ((i % 32) << 8);
		uint64_t sector = (i * 8) % (1ull << 30), c_ns;

		cur_dev = dev.dev | (uint32_t)(i % ndev);
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		if (zram) { /* a pread64: Q, C, return */
			/* random 4 KB over 1 GB; a bio from a slab of 4096 a
			 * CPU (one in flight on each) */
			sector = (seed >> 40) % (1u << 18) * 8;
			bio = 0xffff888100000000ull +
			      ((uint64_t)sc * 4096 + i / ncpu % 4096) * 256;
			put(&cpu[sc], pread_enter(t, sector * 512, tid), sc);
			put(&cpu[sc],
			    ev(IOT_EV_BIO_QUEUE, t + 300, bio, 0, sector, 8, tid), sc);
			c_ns = t + 2000 + (seed >> 54);
			put(&cpu[sc],
			    ev(IOT_EV_BIO_COMPLETE, c_ns, bio, 0, sector, 8, tid), sc);
			put(&cpu[sc], pread_exit(c_ns + 300, tid), sc);
			goto next;
		}
		if (i % 4 == 0)
			put(&cpu[sc], pread_enter(t, sector * 512, tid), sc);
		put(&cpu[sc], ev(IOT_EV_BIO_QUEUE, t + 100, bio, 0, sector, 8, tid), sc);
		put(&cpu[sc], ev(IOT_EV_GETRQ, t + 600, bio, 0, sector, 8, tid), sc);
		put(&cpu[sc], ev(IOT_EV_RQ_INSERT, t + 1100, rq, bio, sector, 8, tid),
		    sc);
		put(&cpu[sc], ev(IOT_EV_RQ_ISSUE, t + 1700, rq, bio, sector, 8, tid), sc);
		c_ns = t + (nvme ? 3000 : 1800) + (seed >> 52);
		if (nvme) {
			struct iot_rec d =
			    ev(IOT_EV_DRV_SUBMIT, t + 2000, rq, 0, sector, sc + 1, tid);

			put(&cpu[sc], d, sc);
			d.ts_ns = c_ns - 400;
			d.type = IOT_EV_DRV_CQE;
			d.id2 = i % 1024; /* the SQ head */
			d.pid = d.tid = 0;
			put(&cpu[cc], d, cc);
			d.ts_ns = c_ns - 100;
			d.type = IOT_EV_DRV_DONE;
			d.id2 = 0;
			put(&cpu[cc], d, cc);
		}
		put(&cpu[cc],
		    ev(IOT_EV_RQ_COMPLETE, c_ns, rq, (uint64_t)8 << 32, sector, 8, 0),
		    cc);
		if (i % 4 == 0)
			put(&cpu[sc], pread_exit(t + 2000 + (seed >> 52), tid), sc);
	next:
		t += busy ? 5000 / ncpu : 5000;
		if (t >= next_round) { /* drain like the recorder */
			struct iot_round rd = {.mark_ns = t};

			for (uint32_t c = 0; c < ncpu; c++) {
				size_t carry = lose_newest(&cpu[c], drop, &lost[c]);

				cpu[c].n -= carry;
				put_chunk(&w, pack, c, &cpu[c]);
				written[c] += cpu[c].n;
				memmove(cpu[c].r, cpu[c].r + cpu[c].n,
					carry * sizeof(*cpu[c].r));
				cpu[c].n = carry;
			}
			if (drop)
				drops_at(&w, prev_mark, t, ncpu, written, lost);
			prev_mark = t;
			trace_writer_chunk(&w, IOT_CHUNK_ROUND, 0, &rd, sizeof(rd), NULL,
					   0);
			next_round += round_ns;
		}
	}
	{
		struct iot_round rd = {.mark_ns = t + 10000};
		struct iot_end end = {.end_mono_ns = t + 20000,
				      .reason = IOT_STOP_COMMAND,
				      .command_status = 0};

		for (uint32_t c = 0; c < ncpu; c++) {
			put_chunk(&w, pack, c, &cpu[c]);
			written[c] += cpu[c].n;
		}
		trace_writer_chunk(&w, IOT_CHUNK_ROUND, 0, &rd, sizeof(rd), NULL, 0);
		if (drop) {
			struct iot_drop_entry *e = calloc(ncpu, sizeof(*e));

			if (!e)
				return 1;
			for (uint32_t c = 0; c < ncpu; c++)
				e[c] = (struct iot_drop_entry){.cpu = c,
							       .records = written[c],
							       .drops_full = lost[c]};
			trace_writer_chunk(&w, IOT_CHUNK_DROPS, 0, e, ncpu * sizeof(*e),
					   NULL, 0);
			free(e);
		}
		devs = calloc(ndev, sizeof(*devs));
		if (!devs)
			return 1;
		for (uint32_t d = 0; d < ndev; d++) {
			devs[d] = dev;
			devs[d].dev = devs[d].disk_dev = dev.dev | d;
			if (d)
				snprintf(devs[d].name, sizeof(devs[d].name),
					 nvme ? "nvme%un1" : "loop%u", d);
		}
		trace_writer_chunk(&w, IOT_CHUNK_DEVICES, 0, devs, ndev * sizeof(*devs),
				   NULL, 0);
		free(devs);
		trace_writer_chunk(&w, IOT_CHUNK_END, 0, &end, sizeof(end), NULL, 0);
	}
	for (uint32_t c = 0; c < ncpu; c++)
		free(cpu[c].r);
	free(cpu);
	if (drop) { /* for the tests: what the trace says it lost */
		uint64_t all = 0;

		for (uint32_t c = 0; c < ncpu; c++)
			all += lost[c];
		printf("mktrace: %llu records dropped\n", (unsigned long long)all);
	}
	free(written);
	free(lost);
	err = trace_writer_close(&w);
	if (err) {
		fprintf(stderr, "mktrace: %s: %s\n", argv[1], strerror(-err));
		return 1;
	}
	return 0;
}
