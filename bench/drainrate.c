// SPDX-License-Identifier: GPL-2.0
/*
 * drainrate: how many records a second one core writes into a trace file,
 * whole (EVENTS chunks, as `record` writes them) and packed (EVENTS_PACKED,
 * `record --pack`): the drain's half of the recorder, without the kernel.
 * The records are a trace's, in per-CPU runs of RUN (a drain's chunk, one
 * ROUND after each CPU's), written to OUTDIR/drainrate.iot, fsync'd with
 * the close, in REPS alternating repetitions; prints the median (min-max)
 * M records/s and bytes per record of each, and packed/whole.
 *   drainrate TRACE OUTDIR [REPS] [RUN]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "trace/reader.h"
#include "trace/writer.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* writes every run once; returns the seconds, or -1 */
static double write_all(const char *out, const struct iot_file_header *h,
			const struct iot_rec *r, const size_t *cpu_of, size_t n,
			size_t run, int packed, uint64_t *bytes)
{
	struct trace_writer w;
	struct iot_round rd = {0};
	double t0 = now();
	int err = trace_writer_open(&w, out, h);

	for (size_t i = 0, k; !err && i < n; i += k) {
		/* a run of one CPU's records */
		for (k = 1; k < run && i + k < n && cpu_of[i + k] == cpu_of[i]; k++)
			;

		err =
		    packed
			? trace_writer_packed(&w, (uint32_t)cpu_of[i], r + i, k, NULL, 0)
			: trace_writer_chunk(&w, IOT_CHUNK_EVENTS, (uint32_t)cpu_of[i],
					     r + i, k * sizeof(*r), NULL, 0);
		rd.mark_ns = r[i].ts_ns;
		if (!err)
			err = trace_writer_chunk(&w, IOT_CHUNK_ROUND, 0, &rd, sizeof(rd),
						 NULL, 0);
	}
	*bytes = w.offset;
	if (trace_writer_close(&w) || err)
		return -1;
	return now() - t0;
}

int main(int argc, char **argv)
{
	int reps = argc > 3 ? atoi(argv[3]) : 5;
	size_t run = argc > 4 ? strtoul(argv[4], NULL, 10) : 4096, n = 0, cap = 1 << 20;
	struct iot_rec *r = malloc(cap * sizeof(*r)), *by;
	size_t *cpu_of = NULL;
	double t[2][64];
	uint64_t bytes[2] = {0};
	const struct iot_rec *rec;
	struct trace_reader tr;
	char err[256], out[4096];

	if (argc < 3 || reps < 1 || reps > 64 || !run || !r) {
		fprintf(stderr, "usage: drainrate TRACE OUTDIR [REPS] [RUN]\n");
		return 2;
	}
	if (trace_reader_open(&tr, argv[1], err, sizeof(err))) {
		fprintf(stderr, "drainrate: %s\n", err);
		return 2;
	}
	while (trace_reader_next(&tr, &rec) == 1) {
		if (n == cap && !(r = realloc(r, (cap *= 2) * sizeof(*r))))
			return 2;
		r[n++] = *rec;
	}
	/* each CPU's records together, in runs of RUN: as the drain takes them */
	by = malloc((n ?: 1) * sizeof(*by));
	cpu_of = malloc((n ?: 1) * sizeof(*cpu_of));
	if (!by || !cpu_of)
		return 2;
	{
		size_t o = 0;

		for (uint32_t c = 0; c < tr.hdr.nr_cpus; c++) {
			for (size_t i = 0; i < n; i++)
				if (r[i].cpu == c && r[i].type != IOT_EV_MARK) {
					cpu_of[o] = c;
					by[o++] = r[i];
				}
		}
		n = o;
	}
	snprintf(out, sizeof(out), "%s/drainrate.iot", argv[2]);
	for (int k = 0; k < reps; k++)
		for (int p = 0; p < 2; p++) {
			int packed = (k + p) % 2; /* alternating, each first in turn */

			t[packed][k] = write_all(out, &tr.hdr, by, cpu_of, n, run, packed,
						 &bytes[packed]);
			if (t[packed][k] < 0) {
				perror("drainrate: write");
				return 1;
			}
		}
	remove(out);
	printf("# %s: %zu records in runs of %zu per CPU, to %s, %d alternating "
	       "repetitions on one core\n",
	       argv[1], n, run, argv[2], reps);
	printf("%-8s %28s %16s\n", "", "M RECORDS/S median (min-max)", "BYTES/RECORD");
	{
		double med[2];

		for (int p = 0; p < 2; p++) {
			qsort(t[p], reps, sizeof(double), cmp_double);
			med[p] = t[p][reps / 2];
			printf("%-8s %12.1f (%.1f-%.1f) %16.1f\n", p ? "packed" : "whole",
			       n / med[p] / 1e6, n / t[p][reps - 1] / 1e6,
			       n / t[p][0] / 1e6, (double)bytes[p] / (n ?: 1));
		}
		printf("packed/whole time %.2fx, bytes %.2fx\n", med[1] / med[0],
		       (double)bytes[1] / (bytes[0] ?: 1));
	}
	trace_reader_release(&tr);
	free(r);
	free(by);
	free(cpu_of);
	return 0;
}
