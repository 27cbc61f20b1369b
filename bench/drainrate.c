// SPDX-License-Identifier: GPL-2.0
/*
 * drainrate: how many records a second the drain writes into a trace file,
 * whole (EVENTS chunks, as `record` writes them) and packed (EVENTS_PACKED,
 * `record --pack`), by one thread and by THREADS threads that each take
 * their share of the CPUs (`record --threads`, src/record/drain.c): the
 * drain's half of the recorder, without the kernel. Each round takes the
 * next RUN records of every CPU of a trace (a drain's chunk), then one
 * ROUND; written to OUTDIR/drainrate.iot, fsync'd with the close, in REPS
 * alternating repetitions. Prints the median (min-max) M records/s and
 * bytes per record of each variant, and the ratios.
 *   drainrate TRACE OUTDIR [REPS] [RUN] [THREADS]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "trace/reader.h"
#include "trace/writer.h"

struct cpu_recs {
	struct iot_rec *r;
	size_t n, cap;
};

struct job {
	struct trace_writer *w;
	const struct cpu_recs *cpus;
	uint32_t nr_cpus, idx, nr_threads;
	size_t run, nr_rounds;
	int packed, err;
	pthread_barrier_t *go, *done;
	struct trace_pack_room room;
};

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

/* round k of this job's share of the CPUs */
static int write_round(struct job *j, size_t k)
{
	int err = 0;

	for (uint32_t c = j->idx; c < j->nr_cpus && !err; c += j->nr_threads) {
		const struct cpu_recs *cr = &j->cpus[c];
		size_t from = k * j->run, m;

		if (from >= cr->n)
			continue;
		m = cr->n - from < j->run ? cr->n - from : j->run;
		err = j->packed
			  ? trace_writer_packed_in(j->w, &j->room, c, cr->r + from, m,
						   NULL, 0)
			  : trace_writer_chunk(j->w, IOT_CHUNK_EVENTS, c, cr->r + from,
					       m * sizeof(*cr->r), NULL, 0);
	}
	return err;
}

static void *worker(void *arg)
{
	struct job *j = arg;

	for (size_t k = 0; k < j->nr_rounds; k++) {
		pthread_barrier_wait(j->go);
		if (!j->err)
			j->err = write_round(j, k);
		pthread_barrier_wait(j->done);
	}
	return NULL;
}

/* writes every round once with nr_threads threads; the seconds, or -1 */
static double write_all(const char *out, const struct iot_file_header *h,
			const struct cpu_recs *cpus, size_t run, size_t nr_rounds,
			uint32_t nr_threads, int packed, uint64_t *bytes)
{
	struct trace_writer w;
	struct job jobs[64];
	pthread_t th[64];
	pthread_barrier_t go, done;
	struct iot_round rd = {0};
	double t0 = now();
	int err = trace_writer_open(&w, out, h);

	if (err)
		return -1;
	pthread_barrier_init(&go, NULL, nr_threads);
	pthread_barrier_init(&done, NULL, nr_threads);
	for (uint32_t i = 0; i < nr_threads; i++) {
		jobs[i] = (struct job){.w = &w,
				       .cpus = cpus,
				       .nr_cpus = h->nr_cpus,
				       .idx = i,
				       .nr_threads = nr_threads,
				       .run = run,
				       .nr_rounds = nr_rounds,
				       .packed = packed,
				       .go = &go,
				       .done = &done};
		if (i && pthread_create(&th[i], NULL, worker, &jobs[i]))
			return -1;
	}
	for (size_t k = 0; k < nr_rounds; k++) {
		if (nr_threads > 1)
			pthread_barrier_wait(&go);
		if (!jobs[0].err)
			jobs[0].err = write_round(&jobs[0], k);
		if (nr_threads > 1)
			pthread_barrier_wait(&done);
		rd.mark_ns = k;
		if (!err)
			err = trace_writer_chunk(&w, IOT_CHUNK_ROUND, 0, &rd, sizeof(rd),
						 NULL, 0);
	}
	for (uint32_t i = 0; i < nr_threads; i++) {
		if (i)
			pthread_join(th[i], NULL);
		err = err ?: jobs[i].err;
		trace_pack_room_release(&jobs[i].room);
	}
	pthread_barrier_destroy(&go);
	pthread_barrier_destroy(&done);
	*bytes = w.offset;
	if (trace_writer_close(&w) || err)
		return -1;
	return now() - t0;
}

int main(int argc, char **argv)
{
	int reps = argc > 3 ? atoi(argv[3]) : 5;
	size_t run = argc > 4 ? strtoul(argv[4], NULL, 10) : 4096, n = 0, nr_rounds = 0;
	long threads = argc > 5 ? strtol(argv[5], NULL, 10) : 2;
	static const char *const name[4] = {"whole", "packed", "whole", "packed"};
	struct cpu_recs *cpus;
	double t[4][64];
	uint64_t bytes[4] = {0};
	const struct iot_rec *rec;
	struct trace_reader tr;
	char err[256], out[4096];
	int nv;

	if (argc < 3 || reps < 1 || reps > 64 || !run || threads < 1 || threads > 64) {
		fprintf(stderr, "usage: drainrate TRACE OUTDIR [REPS] [RUN] [THREADS]\n");
		return 2;
	}
	if (trace_reader_open(&tr, argv[1], err, sizeof(err))) {
		fprintf(stderr, "drainrate: %s\n", err);
		return 2;
	}
	/* each CPU's records, in order: as the drain takes them */
	cpus = calloc(tr.hdr.nr_cpus ?: 1, sizeof(*cpus));
	if (!cpus)
		return 2;
	while (trace_reader_next(&tr, &rec) == 1) {
		struct cpu_recs *cr;

		if (rec->type == IOT_EV_MARK || rec->cpu >= tr.hdr.nr_cpus)
			continue;
		cr = &cpus[rec->cpu];
		if (cr->n == cr->cap &&
		    !(cr->r = realloc(cr->r,
				      (cr->cap = cr->cap * 2 ?: 4096) * sizeof(*cr->r))))
			return 2;
		cr->r[cr->n++] = *rec;
		n++;
		if ((cr->n + run - 1) / run > nr_rounds)
			nr_rounds = (cr->n + run - 1) / run;
	}
	nv = threads > 1 ? 4 : 2; /* whole, packed; then with THREADS threads */
	snprintf(out, sizeof(out), "%s/drainrate.iot", argv[2]);
	for (int k = 0; k < reps; k++)
		for (int i = 0; i < nv; i++) {
			int v = (k + i) % nv; /* alternating, each first in turn */

			t[v][k] =
			    write_all(out, &tr.hdr, cpus, run, nr_rounds,
				      v < 2 ? 1 : (uint32_t)threads, v % 2, &bytes[v]);
			if (t[v][k] < 0) {
				perror("drainrate: write");
				return 1;
			}
		}
	remove(out);
	printf("# %s: %zu records of %u CPUs in runs of %zu per CPU, to %s, %d "
	       "alternating repetitions\n",
	       argv[1], n, tr.hdr.nr_cpus, run, argv[2], reps);
	printf("%-8s %8s %28s %16s\n", "", "THREADS", "M RECORDS/S median (min-max)",
	       "BYTES/RECORD");
	{
		double med[4];

		for (int v = 0; v < nv; v++) {
			qsort(t[v], reps, sizeof(double), cmp_double);
			med[v] = t[v][reps / 2];
			printf("%-8s %8ld %12.1f (%.1f-%.1f) %16.1f\n", name[v],
			       v < 2 ? 1 : threads, n / med[v] / 1e6,
			       n / t[v][reps - 1] / 1e6, n / t[v][0] / 1e6,
			       (double)bytes[v] / (n ?: 1));
		}
		printf("packed/whole time %.2fx, bytes %.2fx\n", med[1] / med[0],
		       (double)bytes[1] / (bytes[0] ?: 1));
		if (nv == 4)
			printf("%ld threads/1 time: whole %.2fx, packed %.2fx\n", threads,
			       med[2] / med[0], med[3] / med[1]);
	}
	trace_reader_release(&tr);
	for (uint32_t c = 0; c < tr.hdr.nr_cpus; c++)
		free(cpus[c].r);
	free(cpus);
	return 0;
}
