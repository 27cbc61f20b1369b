// SPDX-License-Identifier: GPL-2.0
/*
 * packsize: what compact records (src/trace/pack.h) would make of a trace.
 * Its records are grouped by the CPU that wrote them, in runs of at most
 * RUN (a drain's chunk), packed, unpacked and compared; prints the bytes
 * per record, plain and packed, and the time to pack and unpack on one
 * core. Exits 1 if a run does not come back the same.
 *   packsize TRACE [RUN]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "trace/pack.h"
#include "trace/reader.h"

struct run {
	struct iot_rec *r;
	size_t n;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct trace_reader tr;
	const struct iot_rec *rec;
	size_t run = argc > 2 ? strtoul(argv[2], NULL, 10) : 4096, nr_cpus = 1024;
	struct run *cpu = calloc(nr_cpus, sizeof(*cpu));
	struct iot_rec *back = malloc(run * sizeof(*back));
	uint8_t *buf = malloc(run * IOT_PACK_MAX);
	uint64_t records = 0, packed = 0;
	double t_pack = 0, t_unpack = 0;
	char err[256];

	if (argc < 2 || !run || !cpu || !back || !buf) {
		fprintf(stderr, "usage: packsize TRACE [RUN]\n");
		return 2;
	}
	if (trace_reader_open(&tr, argv[1], err, sizeof(err))) {
		fprintf(stderr, "packsize: %s\n", err);
		return 2;
	}
	for (size_t c = 0; c < nr_cpus; c++)
		if (!(cpu[c].r = malloc(run * sizeof(*cpu[c].r))))
			return 2;
	for (int more = 1; more;) {
		struct run *x = NULL;

		more = trace_reader_next(&tr, &rec) == 1;
		if (more) {
			x = &cpu[rec->cpu % nr_cpus];
			x->r[x->n++] = *rec;
		}
		for (size_t c = 0; c < nr_cpus; c++) {
			struct run *y = &cpu[c];
			size_t len;
			double t0, t1, t2;

			if (!y->n || (more && (y != x || y->n < run)))
				continue;
			t0 = now();
			len = iot_pack(y->r, y->n, buf);
			t1 = now();
			if (iot_unpack(buf, len, back, y->n, NULL) ||
			    memcmp(back, y->r, y->n * sizeof(*back))) {
				fprintf(stderr, "packsize: a run of CPU %zu differs\n",
					c);
				return 1;
			}
			t2 = now();
			t_pack += t1 - t0;
			t_unpack += t2 - t1;
			records += y->n;
			packed += len;
			y->n = 0;
		}
	}
	printf("%s: %llu records in runs of %zu per CPU: %u bytes each plain, %.1f "
	       "packed (%.0f%%); pack %.1f ns, unpack %.1f ns per record\n",
	       argv[1], (unsigned long long)records, run, IOT_REC_SIZE,
	       records ? (double)packed / records : 0,
	       records ? 100.0 * packed / records / IOT_REC_SIZE : 0,
	       records ? t_pack * 1e9 / records : 0,
	       records ? t_unpack * 1e9 / records : 0);
	trace_reader_release(&tr);
	return 0;
}
