// SPDX-License-Identifier: GPL-2.0
/* The analysis pipeline of report and overlay (pipeline.h). */
#include "pipeline.h"

#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "../join/parallel.h"
#include "../trace/ahead.h"
#include "../trace/syscalls.h"
#include "../util/clock.h"
#include "../util/grow.h"
#include "../util/parse.h"

/* a trace from an architecture iotrail does not know: no number matches */
static const uint32_t unknown_arch_nr[NR_SYSCALL_KINDS] = {
    UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX,
    UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX};

static const struct iot_dev_entry *dev_entry(void *ctx, uint32_t dev)
{
	return trace_reader_dev(&((struct pipeline *)ctx)->rd, dev);
}

static const char *dev_name(void *ctx, uint32_t dev)
{
	/* valid until the thread's next call: analyzers finish in threads of
	 * their own (fanout.c) */
	static __thread char buf[32];
	const struct iot_dev_entry *e = dev_entry(ctx, dev);

	if (e)
		return e->name;
	snprintf(buf, sizeof(buf), "%u:%u", dev >> 20, dev & 0xfffff);
	return buf;
}

static bool is_bio_based(void *ctx, uint32_t dev)
{
	const struct iot_dev_entry *e = dev_entry(ctx, dev);

	return e ? (e->flags & IOT_DEV_BIO_BASED) != 0 : true;
}

/* A filesystem's st_dev: traced (in the device table), and where its
 * partition starts. */
static bool fs_dev(void *ctx, uint32_t st_dev, uint64_t *part_start)
{
	const struct iot_dev_entry *e = dev_entry(ctx, st_dev);

	if (!e)
		return false;
	*part_start = e->start_sector;
	return true;
}

static const struct iot_task_entry *task_entry(void *ctx, uint32_t tid)
{
	return trace_reader_task(&((struct pipeline *)ctx)->rd, tid);
}

static const char *file_path(void *ctx, uint32_t dev, uint64_t ino)
{
	return trace_reader_file(&((struct pipeline *)ctx)->rd, dev, ino);
}

static const char *cgroup_path(void *ctx, uint32_t id)
{
	return trace_reader_cgroup(&((struct pipeline *)ctx)->rd, id);
}

const char *pipeline_comm(void *ctx, uint32_t tid)
{
	const struct iot_task_entry *t =
	    trace_reader_task(&((struct pipeline *)ctx)->rd, tid);

	return t && t->comm[0] ? t->comm : "?";
}

static void add_agg(void *ctx, const struct iot_agg_entry *e)
{
	analysis_add_agg(ctx, e);
}

static int pipeline_threads;

void pipeline_set_threads(int n)
{
	pipeline_threads = n;
}

/* --threads, or the CPUs */
static int threads_wanted(void)
{
	long n = pipeline_threads ? pipeline_threads : sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > 1024 ? 1024 : (int)n;
}

/* pipeline_open, the packed chunks checked at the open or not
 * (pipeline_run) */
static int open_input(struct pipeline *p, const char *input, struct analysis_env *env,
		      bool unchecked)
{
	char errbuf[512] = "", arch[32];
	const char *ahead = getenv("IOTRAIL_AHEAD_MAX_MB");
	unsigned int threads = (unsigned int)threads_wanted();
	uint64_t mb;
	int err;

	memset(p, 0, sizeof(*p));
	if (unchecked)
		err = trace_reader_open_unchecked(&p->rd, input, threads, errbuf,
						  sizeof(errbuf));
	else
		err = trace_reader_open_threads(&p->rd, input, threads, errbuf,
						sizeof(errbuf));
	if (err) {
		fprintf(stderr, "iotrail: %s\n", errbuf);
		return 1;
	}
	p->opened = true;
	/* IOTRAIL_AHEAD_MAX_MB (for benchmarks): what the chunks unpacked
	 * ahead of one reader may hold, in place of READER_AHEAD_MAX_BYTES */
	if (ahead && *ahead) {
		if (parse_count(ahead, &mb) || mb > UINT64_MAX >> 20) {
			fprintf(stderr,
				"iotrail: IOTRAIL_AHEAD_MAX_MB=%s: not a count of MB\n",
				ahead);
			return 1;
		}
		p->rd.ahead_max = mb << 20;
	}
	trace_reader_meta(&p->rd, "arch", arch, sizeof(arch));
	trace_reader_meta(&p->rd, "drivers", p->drivers, sizeof(p->drivers));
	env->drivers = p->drivers[0] ? p->drivers : "none (recorded before 1.7)";
	trace_reader_meta(&p->rd, "stack", p->stack, sizeof(p->stack));
	env->stack = p->stack;
	env->syscall_nr = syscall_numbers(arch[0] ? arch : "x86_64");
	if (!env->syscall_nr) {
		fprintf(stderr,
			"iotrail: %s: recorded on %s, whose system call numbers iotrail "
			"does not know; system calls are left out\n",
			input, arch);
		env->syscall_nr = unknown_arch_nr;
	}
	p->syscall_nr = env->syscall_nr;
	env->t0_ns = p->rd.hdr.start_mono_ns;
	/* a recording cut short ended within a switch period (5 s at most,
	 * as --switchrate allows) of its last drain */
	env->end_ns = p->rd.has_end	   ? p->rd.end.end_mono_ns
		      : p->rd.last_mark_ns ? p->rd.last_mark_ns + 5000000000ull
					   : 0;
	/* --time: after the recording's start */
	env->from_ns = env->time_from ? env->t0_ns + env->time_from : 0;
	env->to_ns = env->time_to ? env->t0_ns + env->time_to : 0;
	if (env->time_from && env->end_ns && env->from_ns >= env->end_ns) {
		fprintf(stderr,
			"iotrail: --time: %s is %.3f s long, %.3f s is past its end\n",
			input, (env->end_ns - env->t0_ns) / 1e9, env->time_from / 1e9);
		return 1;
	}
	env->ctx = p;
	env->dev_name = dev_name;
	env->is_bio_based = is_bio_based;
	env->fs_dev = fs_dev;
	env->dev_entry = dev_entry;
	env->task_entry = task_entry;
	env->cgroup_path = cgroup_path;
	env->file_path = file_path;
	return 0;
}

/*
 * The reader ahead of the join, in a thread of its own: it merges records
 * into copies, PF_BATCH at a time, into a ring of PF_DEPTH batches (copies:
 * a record of a packed chunk lives only until the merge passes it). The
 * join takes them in the order they were merged. The reader touches no
 * field the join's callbacks read (its tables are only read, and an EXEC
 * record's name is set by the joining thread).
 */
#define PF_BATCH 2048
#define PF_DEPTH 4

/* Whether the join itself runs on threads (join/parallel.h): with
 * --threads 4 or more (or IOTRAIL_SEGMENT=N, for the tests, which sets a
 * segment's records), and by default where there are 4 CPUs or more, on
 * JOIN_DEFAULT_THREADS at most. Read by one reader thread (before the
 * trace was read in segments, trace_reader_plan), on 16 CPUs (a 1 s
 * recording of 16 threads' zram reads, 18M events) one thread took
 * 2.4-2.9 s, the reader in its own thread 1.8-1.9 s, the join on 4
 * threads 1.3-1.4 s, on 8 1.5 s and on 16 1.5-1.6 s; with four analyzers
 * 8 threads did best. It holds more: 221 MB resident against 81 MB for
 * one thread on a 1.8 GB trace. A trace whose states seldom meet (pages
 * dirtied and not yet written back) costs about what the reader thread
 * alone does. */
#define JOIN_DEFAULT_THREADS 8
/* Read in segments (no thread reads every record), the join does better on
 * more: a 16-CPU recording at full load (82M events, 16 CPUs) took 12.1 s
 * on one thread, 3.8 s on 8 and 2.6 s on 16, holding 355, 624 and 936 MB
 * (then the segments shared whole unpacked chunks; now each unpacks its
 * stretch from the plan's states: 294 -> 171 MB at 16 threads on the zram
 * shape of 16 CPUs, 2 vCPUs).
 * By default it runs on up to JOIN_SEGMENT_THREADS then, each segment half
 * as long past 8 threads (JOIN_PAR_SEGMENT / 2), which holds less in the
 * slots and cost no more CPU (a mktrace --busy trace of 16 CPUs, 16
 * threads on 2 vCPUs: 315 MB against 382, workers 1.49 s CPU against
 * 1.48). */
#define JOIN_SEGMENT_THREADS 16

static bool join_on_threads(uint64_t *seg)
{
	const char *e = getenv("IOTRAIL_SEGMENT");

	*seg = e && *e ? strtoull(e, NULL, 10) : 0;
	return threads_wanted() >= (*seg ? 3 : 4);
}

/* The threads of the join on threads: --threads, or the CPUs up to
 * JOIN_DEFAULT_THREADS */
static int join_threads(void)
{
	int n = threads_wanted();

	return !pipeline_threads && n > JOIN_DEFAULT_THREADS ? JOIN_DEFAULT_THREADS : n;
}

/* The threads for the analyzers' hooks: what is left once the reader and
 * the join have one each; 0: they run in the join's. By default not for
 * one analyzer: its hooks rarely cost more than the copy that hands them
 * on (latency alone: 1.09 -> 1.16 s on 2 vCPUs). With the join on
 * threads, not for one analyzer, and half of what is left. */
static int analysis_threads(size_t nr_analyzers)
{
	int n = threads_wanted();
	uint64_t seg;

	if (join_on_threads(&seg)) {
		n = join_threads();
		if (nr_analyzers < 2 || n < 4)
			return 0;
		return (n - 2) / 2;
	}
	if (!pipeline_threads && nr_analyzers < 2)
		return 0;
	return n > 2 ? n - 2 : 0;
}

/* The join's threads, when it runs on threads: those left once the reader
 * and the replay have one each and the analyzers theirs, at least one */
static unsigned int join_workers(int fan, uint64_t *seg)
{
	int n = join_threads() - 2 - fan;

	if (!join_on_threads(seg))
		return 0;
	return n >= 1 ? (unsigned int)n : 1;
}

struct prefetch {
	struct trace_reader *rd;
	struct iot_rec *recs; /* PF_DEPTH batches of PF_BATCH */
	uint32_t n[PF_DEPTH]; /* records in each batch */
	uint64_t made, taken; /* batches merged, and handed to the join */
	bool done;	      /* the reader reached the end (or err) */
	bool stop;	      /* the join wants no more */
	int err;	      /* trace_reader_next's error */
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

static void *prefetch_run(void *arg)
{
	struct prefetch *pf = arg;
	const struct iot_rec *recs[64];
	int err = 1;

	for (;;) {
		uint64_t k;
		uint32_t n = 0;
		struct iot_rec *b;

		bool stop;

		pthread_mutex_lock(&pf->mu);
		while (pf->made - pf->taken == PF_DEPTH && !pf->stop)
			pthread_cond_wait(&pf->cv, &pf->mu);
		k = pf->made % PF_DEPTH;
		stop = pf->stop;
		pthread_mutex_unlock(&pf->mu);
		if (stop)
			break;
		b = pf->recs + k * PF_BATCH;
		while (n < PF_BATCH) { /* err: 1 while records come */
			unsigned int want = PF_BATCH - n < 64 ? PF_BATCH - n : 64;
			int got = trace_reader_next_batch(pf->rd, recs, want);

			if (got <= 0) {
				err = got;
				break;
			}
			for (int i = 0; i < got; i++)
				b[n++] = *recs[i];
		}
		pthread_mutex_lock(&pf->mu);
		pf->n[k] = n;
		if (n)
			pf->made++;
		if (err != 1) {
			pf->done = true;
			pf->err = err;
		}
		pthread_cond_broadcast(&pf->cv);
		pthread_mutex_unlock(&pf->mu);
		if (err != 1)
			break;
	}
	return NULL;
}

/* One record into the join; 1 to stop (record said so), -1 out of memory. */
static inline __attribute__((always_inline)) int
feed_one(struct pipeline *p, const struct iot_rec *rec,
	 int (*record)(void *ctx, const struct iot_rec *r), void *ctx)
{
	if (rec->type == IOT_EV_EXEC)
		trace_reader_exec(&p->rd, rec);
	if (record && record(ctx, rec))
		return 1;
	return join_feed(&p->jn, rec) ? -1 : 0;
}

/* n records, as n feed_one calls would: a run of records at a time into
 * the join (join_feed_n), an EXEC record (its name kept first) beginning
 * the next run; record by record where a callback sees each. */
static int feed_many(struct pipeline *p, const struct iot_rec *const *recs, int n,
		     int (*record)(void *ctx, const struct iot_rec *r), void *ctx)
{
	int from = 0, err;

	if (record) {
		for (int k = 0; k < n; k++)
			if ((err = feed_one(p, recs[k], record, ctx)))
				return err;
		return 0;
	}
	for (int k = 0; k < n; k++)
		if (recs[k]->type == IOT_EV_EXEC) {
			if (join_feed_n(&p->jn, recs + from, (size_t)(k - from)))
				return -1;
			trace_reader_exec(&p->rd, recs[k]);
			from = k;
		}
	return join_feed_n(&p->jn, recs + from, (size_t)(n - from)) ? -1 : 0;
}

/* The records through the join with the reader in its own thread: as
 * feed_one returns, or the reader's error (< 0); -2 when the thread could
 * not be had (nothing read yet: the caller reads on its own). */
static int feed_prefetched(struct pipeline *p,
			   int (*record)(void *ctx, const struct iot_rec *r), void *ctx)
{
	struct prefetch pf = {.rd = &p->rd};
	pthread_t th;
	int ret = 0;

	pf.recs = malloc((size_t)PF_DEPTH * PF_BATCH * sizeof(*pf.recs));
	if (!pf.recs)
		return -2;
	pthread_mutex_init(&pf.mu, NULL);
	pthread_cond_init(&pf.cv, NULL);
	p->rd.gaps.shared = true; /* listed there as the join asks here */
	if (pthread_create(&th, NULL, prefetch_run, &pf)) {
		free(pf.recs);
		return -2;
	}
	for (;;) {
		uint64_t k;
		const struct iot_rec *b;

		pthread_mutex_lock(&pf.mu);
		while (pf.taken == pf.made && !pf.done)
			pthread_cond_wait(&pf.cv, &pf.mu);
		if (pf.taken == pf.made) { /* done, every batch taken */
			pthread_mutex_unlock(&pf.mu);
			ret = pf.err < 0 ? pf.err : 0;
			break;
		}
		k = pf.taken % PF_DEPTH;
		pthread_mutex_unlock(&pf.mu);
		b = pf.recs + k * PF_BATCH;
		for (uint32_t i = 0; i < pf.n[k] && !ret; i += 64) {
			const struct iot_rec *run[64];
			int m = pf.n[k] - i < 64 ? (int)(pf.n[k] - i) : 64;

			for (int q = 0; q < m; q++)
				run[q] = &b[i + q];
			ret = feed_many(p, run, m, record, ctx);
		}
		pthread_mutex_lock(&pf.mu);
		pf.taken++;
		if (ret)
			pf.stop = true;
		pthread_cond_broadcast(&pf.cv);
		pthread_mutex_unlock(&pf.mu);
		if (ret)
			break;
	}
	pthread_join(th, NULL);
	pthread_cond_destroy(&pf.cv);
	pthread_mutex_destroy(&pf.mu);
	free(pf.recs);
	return ret;
}

/* The reader's side of the segment-parallel join: records in order, the
 * EXEC names set as they come (the analyzers read names at finish only) */
static int64_t pull_records(void *ctx, struct iot_rec *buf, size_t max)
{
	struct pipeline *p = ctx;
	const struct iot_rec *rec;
	size_t n = 0;
	int err = 1;

	while (n < max && (err = trace_reader_next(&p->rd, &rec)) == 1) {
		if (rec->type == IOT_EV_EXEC)
			trace_reader_exec(&p->rd, rec);
		buf[n++] = *rec;
	}
	if (err < 0)
		p->pull_err = err;
	return n ? (int64_t)n : p->pull_err;
}

/* Reading in segments costs more CPU in all than one reader (the plan's
 * pass over every record, each segment's merge): on a 7.5M-event recording
 * (2 vCPUs) the workers took 1.13 s in all against 0.74 s beside a reader
 * thread of 0.35 s. With w workers beside one reader the join waits on
 * max(0.35, 0.74 / w); read in segments, on 1.13 / (w + 1) and the replay
 * (0.18): even at 3 workers, ahead from 4. */
#define SEGMENT_READ_MIN_WORKERS 4

/* Reading in segments (trace_reader_plan): each segment's EXEC records,
 * whose names are set as the segments are put in order */
struct seg_source {
	struct pipeline *p;
	struct reader_plan plan;
	struct exec_list {
		struct iot_rec *v;
		size_t n, cap;
	} * execs; /* per segment */
};

static int fill_segment(void *ctx, uint64_t k, struct iot_rec **recs, size_t *n,
			size_t *cap)
{
	struct seg_source *src = ctx;
	struct exec_list *ex = &src->execs[k];
	struct trace_reader cur;
	const struct iot_rec *rec;
	/* room for a segment's records and some: what varies is the round */
	int err = GROW(*recs, src->plan.seg_recs + src->plan.seg_recs / 8, *cap)
		      ? -ENOMEM
		      : trace_reader_segment(&src->p->rd, &src->plan, (size_t)k, &cur);

	while (!err && (err = trace_reader_next(&cur, &rec)) == 1) {
		err = 0;
		if (GROW(*recs, *n + 1, *cap) ||
		    (rec->type == IOT_EV_EXEC && GROW(ex->v, ex->n + 1, ex->cap))) {
			err = -ENOMEM;
			break;
		}
		if (rec->type == IOT_EV_EXEC)
			ex->v[ex->n++] = *rec;
		(*recs)[(*n)++] = *rec;
	}
	trace_reader_segment_done(&src->p->rd, &src->plan, (size_t)k, &cur);
	return err < 0 ? err : 0;
}

static void segment_in_order(void *ctx, uint64_t k)
{
	struct seg_source *src = ctx;
	struct exec_list *ex = &src->execs[k];

	for (size_t i = 0; i < ex->n; i++)
		trace_reader_exec(&src->p->rd, &ex->v[i]);
	free(ex->v);
	*ex = (struct exec_list){0};
}

/* The analyzers on segments (p->parts): each segment's outputs into an
 * analysis of their own on the worker that has them, merged into the
 * report's in order on the replay thread (join_par_config.part_sink) */
struct part_set {
	struct analysis *an;   /* the report's */
	struct analysis *part; /* join_par_slots() of them */
	bool *live;	       /* part[k] made, not yet merged */
};

static int part_sink(void *ctx, unsigned int slot, struct join_sink *out)
{
	struct part_set *ps = ctx;
	struct analysis *part = &ps->part[slot];

	if (!ps->live[slot]) {
		int err = analysis_part_init(part, ps->an);

		if (err) {
			analysis_release(part);
			return err;
		}
		ps->live[slot] = true;
	}
	*out = analysis_sink(part);
	return 0;
}

static void part_end(void *ctx, unsigned int slot)
{
	struct part_set *ps = ctx;

	analysis_part_end(&ps->part[slot]);
}

static void part_merge(void *ctx, unsigned int slot)
{
	struct part_set *ps = ctx;

	if (ps->live[slot]) /* its errors are then the report's (a->err) */
		analysis_merge(ps->an, &ps->part[slot]);
	ps->live[slot] = false;
}

/* The join on threads: 0, or < 0 after which the sink saw part */
static int join_parallel(struct pipeline *p, const struct join_sink *sink,
			 unsigned int workers, uint64_t seg)
{
	struct seg_source src = {.p = p};
	struct join_par_config cfg = {
	    .workers = workers,
	    .seg_recs = seg,
	    .sink = *sink,
	    .is_bio_based = is_bio_based,
	    .dev_ctx = p,
	    .syscall_nr = p->syscall_nr,
	    .bi_elided = p->jn.bi_elided,
	};
	struct join_par_result res = {0};
	struct part_set ps = {.an = &p->an};
	unsigned int nr_parts;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	/* by default, read in segments: the CPUs up to JOIN_SEGMENT_THREADS */
	unsigned int more = workers, look;
	uint64_t plan_ns;
	int err = 0, planned;
	char order[256] = "";

	if (!pipeline_threads && !seg && cpus > JOIN_DEFAULT_THREADS) {
		long n = (cpus < JOIN_SEGMENT_THREADS ? cpus : JOIN_SEGMENT_THREADS) - 2 -
			 p->fan_threads;

		if (n > (long)workers)
			more = (unsigned int)n;
	}
	/* the segments read on the workers where the trace allows it, the
	 * trace looked at on as many threads as CPUs at most (one that waits
	 * for a CPU holds back what the others may let go of a large trace) */
	look = more + 2;
	if (cpus > 0 && look > (unsigned long)cpus)
		look = (unsigned int)cpus;
	/* IOTRAIL_ONE_READER=1 (for benchmarks and tests): every record
	 * read by one thread, in order, as for a trace that cannot be cut;
	 * and so with fewer than SEGMENT_READ_MIN_WORKERS workers, but with
	 * IOTRAIL_SEGMENT (the tests' segments) */
	plan_ns = now_ns(CLOCK_MONOTONIC);
	planned =
	    (getenv("IOTRAIL_ONE_READER") && *getenv("IOTRAIL_ONE_READER") == '1') ||
		    (workers < SEGMENT_READ_MIN_WORKERS && !seg)
		? 0
		: trace_reader_plan(&p->rd,
				    seg				  ? seg
				    : more > JOIN_DEFAULT_THREADS ? JOIN_PAR_SEGMENT / 2
								  : JOIN_PAR_SEGMENT,
				    look, &src.plan);
	plan_ns = now_ns(CLOCK_MONOTONIC) - plan_ns;
	if (getenv("IOTRAIL_DEBUG") && (planned || src.plan.why[0])) {
		/* the plan looks at every chunk of the file before a segment is
		 * joined: what it held (a large trace's pages, mapped) */
		struct rusage ru;

		if (!getrusage(RUSAGE_SELF, &ru))
			fprintf(stderr, "iotrail: planned: peak resident %ld KB\n",
				ru.ru_maxrss);
	}
	/* for IOTRAIL_DEBUG: why the records were read in order (at the
	 * line's end: scripts read the figures before it) */
	if (!planned)
		snprintf(order, sizeof(order), "; read in order: %s",
			 src.plan.why[0]		? src.plan.why
			 : getenv("IOTRAIL_ONE_READER") ? "IOTRAIL_ONE_READER"
							: "too few workers");
	if (planned == 1 && !(src.execs = calloc(src.plan.nr_segs, sizeof(*src.execs)))) {
		reader_plan_release(&src.plan);
		planned = -ENOMEM;
	}
	if (planned < 0)
		return planned;
	/* the plan's gaps are all known; the reader's are listed as it reads
	 * in a thread of its own while the join asks */
	cfg.gaps = planned == 1 ? &src.plan.gap_at : &p->rd.gaps;
	p->rd.gaps.shared = planned != 1;
	if (planned == 1) {
		cfg.workers = workers = more;
		cfg.seg_recs = src.plan.seg_recs;
		cfg.nr_segs = src.plan.nr_segs;
		cfg.fill = fill_segment;
		cfg.in_order = segment_in_order;
		cfg.src_ctx = &src;
	}
	nr_parts = join_par_slots(workers);
	if (p->parts) {
		ps.part = calloc(nr_parts, sizeof(*ps.part));
		ps.live = calloc(nr_parts, sizeof(*ps.live));
		if (!ps.part || !ps.live)
			err = -ENOMEM;
		cfg.part_sink = part_sink;
		cfg.part_end = part_end;
		cfg.part_merge = part_merge;
		cfg.part_ctx = &ps;
	}
	err = err ? err : join_par_run(&cfg, pull_records, p, &res);
	for (unsigned int k = 0; p->parts && ps.live && k < nr_parts; k++)
		if (ps.live[k]) /* not merged: an error stopped the join */
			analysis_release(&ps.part[k]);
	free(ps.part);
	free(ps.live);
	if (planned == 1) {
		if (!err)
			trace_reader_plan_apply(&p->rd, &src.plan);
		for (size_t k = 0; k < src.plan.nr_segs; k++)
			free(src.execs[k].v);
		free(src.execs);
		reader_plan_release(&src.plan);
	}
	p->jn.st = res.st;
	if (getenv("IOTRAIL_DEBUG")) {
		/* the heap as the join left it: memory the threads freed but
		 * their arenas keep is resident and counts in the peak */
		struct mallinfo2 mi = mallinfo2();

		fprintf(stderr,
			"iotrail: heap after the join: %.1f MB in use, %.1f MB free in "
			"the arenas, %.1f MB mapped apart\n",
			mi.uordblks / 1048576.0, mi.fordblks / 1048576.0,
			mi.hblkhd / 1048576.0);
		fprintf(
		    stderr,
		    "iotrail: join on %u threads%s (planned in %.3f s): %llu segments, "
		    "%llu taken up where "
		    "the states met, %llu joined again whole, %llu records joined "
		    "twice; %llu analysed apart; CPU s: reading %.3f, replay %.3f, "
		    "workers %.3f (the busiest %.3f)%s\n",
		    workers, planned == 1 ? ", read in segments" : "", plan_ns / 1e9,
		    (unsigned long long)res.segments, (unsigned long long)res.stitched,
		    (unsigned long long)res.rejoined, (unsigned long long)res.overlap,
		    (unsigned long long)res.parts, res.cpu_read_ns / 1e9,
		    res.cpu_replay_ns / 1e9, res.cpu_workers_ns / 1e9,
		    res.cpu_worker_max_ns / 1e9, order);
	}
	return err;
}

int pipeline_open(struct pipeline *p, const char *input, struct analysis_env *env)
{
	return open_input(p, input, env, false);
}

/* pipeline_join's answer when a reader opened unchecked failed: open the
 * trace again, checked, and join it again (nothing was said) */
#define READ_AGAIN_CHECKED 4

int pipeline_join(struct pipeline *p, const char *input, const struct join_sink *sink,
		  int (*record)(void *ctx, const struct iot_rec *r), void *ctx)
{
	unsigned int workers;
	uint64_t seg;
	int err = -2;

	if (join_init(&p->jn, sink, is_bio_based, p)) {
		fprintf(stderr, "iotrail: out of memory\n");
		return 1;
	}
	p->jn.syscall_nr = p->syscall_nr;
	p->jn.bi_elided = p->rd.hdr.version_major == 1 && p->rd.hdr.version_minor >= 4;
	p->jn.gaps = &p->rd.gaps;
	p->joining = true;
	workers = join_workers(p->fan_threads, &seg);
	if (!record && workers) {
		err = join_parallel(p, sink, workers, seg);
		if (err == -EAGAIN) /* no thread to be had: nothing read yet */
			err = -2;
		else if (!err)
			return 0; /* join_end was the last segment's */
	}
	if (err == -2 && pipeline_threads != 1 && sysconf(_SC_NPROCESSORS_ONLN) > 1)
		err = feed_prefetched(p, record, ctx);
	if (err == -2) {
		const struct iot_rec *recs[64];

		while ((err = trace_reader_next_batch(&p->rd, recs, 64)) > 0)
			if ((err = feed_many(p, recs, err, record, ctx)))
				break;
	}
	if (err == 1)
		return 1;
	if (err < 0 && p->rd.unchecked)
		return READ_AGAIN_CHECKED; /* a damaged chunk, or memory */
	if (err < 0) {
		fprintf(stderr, "iotrail: %s: out of memory\n", input);
		return 1;
	}
	join_end(&p->jn);
	return 0;
}

/* Whether the join's floors (join_sink.floor) hold for the trace: not
 * for a --summary recording, whose requests all come as summaries at their
 * completion */
static bool floors_hold(const struct trace_reader *rd)
{
	char mode[32];

	trace_reader_meta(rd, "mode", mode, sizeof(mode));
	return !mode[0] || !strcmp(mode, "events");
}

/* pipeline_run, once */
static int run_once(struct pipeline *p, const char *input, uint64_t set,
		    struct analysis_env *env, bool unchecked)
{
	struct join_sink sink;
	uint64_t seg, fin_ns;
	int err;

	err = open_input(p, input, env, unchecked);
	if (err)
		return err;
	p->analyzing = true;
	err = analysis_init(&p->an, set, env);
	if (err) {
		fprintf(stderr, "iotrail: %s\n",
			p->an.errmsg[0] ? p->an.errmsg : "out of memory");
		return err == -ENOMEM ? 1 : 2; /* else an option that does not fit */
	}
	/* the analyzers on the join's segments, where it runs on threads
	 * and each of them can merge; else in threads of their own where
	 * cores are left over from the reader's and the join's: the same
	 * output */
	p->parts = join_on_threads(&seg) && analysis_can_part(&p->an);
	if (!p->parts && analysis_threads(p->an.nr_out) > 0 &&
	    !analysis_fanout_start(&p->an, (unsigned int)analysis_threads(p->an.nr_out)))
		p->fan_threads = analysis_threads(p->an.nr_out);
	/* and their finish on every thread: the join is over by then */
	p->an.threads = (unsigned int)threads_wanted();
	sink = analysis_sink(&p->an);
	if (!floors_hold(&p->rd))
		sink.floor = NULL;
	err = pipeline_join(p, input, &sink, NULL, NULL);
	analysis_fanout_end(&p->an);
	if (err)
		return err;
	/* --aggregate recordings: the kernel's histograms */
	trace_reader_aggs(&p->rd, add_agg, &p->an);
	fin_ns = now_ns(CLOCK_MONOTONIC);
	if (analysis_finish(&p->an)) {
		fprintf(stderr, "iotrail: %s: %s\n", input,
			p->an.errmsg[0] ? p->an.errmsg : "out of memory");
		return 1;
	}
	if (getenv("IOTRAIL_DEBUG")) { /* the sorts: after the join, on a->threads */
		struct rusage ru;

		fprintf(stderr,
			"iotrail: the analyzers finished in %.3f s on up to %u threads\n",
			(now_ns(CLOCK_MONOTONIC) - fin_ns) / 1e9, p->an.threads);
		/* the kernel's share: on a virtual machine a page fault or a
		 * miss of the TLB costs more, and a trace mapped whole takes
		 * one fault a page */
		if (!getrusage(RUSAGE_SELF, &ru))
			fprintf(stderr,
				"iotrail: process so far: user %.3f s, system %.3f s, "
				"%ld page faults (%ld read from disk), %ld context "
				"switches (%ld waits), peak resident %ld KB\n",
				ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
				ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6,
				ru.ru_minflt + ru.ru_majflt, ru.ru_majflt,
				ru.ru_nvcsw + ru.ru_nivcsw, ru.ru_nvcsw, ru.ru_maxrss);
	}
	if (p->rd.warning[0])
		fprintf(stderr, "iotrail: warning: %s\n", p->rd.warning);
	return 0;
}

/* Nothing is shown before the join's end, so the packed chunks need not
 * be checked at the open (a second decode of each on one core: 0.2 of a
 * packed trace's report): the reader meets damage as it unpacks them,
 * and the trace is then read again, checked, which says where the damage
 * is and reads what comes before it.
 * IOTRAIL_CHECKED=1 (tests, benchmarks) checks them at the open. */
int pipeline_run(struct pipeline *p, const char *input, uint64_t set,
		 struct analysis_env *env)
{
	const char *checked = getenv("IOTRAIL_CHECKED");
	int err = run_once(p, input, set, env, !(checked && *checked == '1'));

	if (err != READ_AGAIN_CHECKED)
		return err;
	if (getenv("IOTRAIL_DEBUG"))
		fprintf(stderr,
			"iotrail: debug: %s: a packed chunk did not unpack as "
			"read (or memory ran out): read again, checked at the "
			"open\n",
			input);
	pipeline_release(p);
	return run_once(p, input, set, env, false);
}

void pipeline_release(struct pipeline *p)
{
	if (p->opened && p->rd.ahead && getenv("IOTRAIL_DEBUG"))
		fprintf(stderr,
			"iotrail: debug: %zu packed chunks unpacked ahead of the merge "
			"on %u threads\n",
			ahead_count(p->rd.ahead), ahead_workers(p->rd.ahead));
	if (p->joining)
		join_release(&p->jn);
	if (p->analyzing)
		analysis_release(&p->an);
	if (p->opened)
		trace_reader_release(&p->rd);
	memset(p, 0, sizeof(*p));
}
