/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The result model of `iotrail report`: the devices with their counts and
 * btt stage metrics, and per analyzer (analyzer.h) the metrics and tables
 * it made. Built from the join's output; analysis_finish() computes every
 * statistic, so the renderers only read it (const) and format it.
 */
#ifndef IOTRAIL_ANALYZE_ANALYSIS_H
#define IOTRAIL_ANALYZE_ANALYSIS_H

#include <stdbool.h>
#include <stdint.h>

#include "../join/join.h"
#include "metric.h"
#include "../trace/syscalls.h"
#include "table.h"

enum stage { ST_Q2G, ST_G2I, ST_I2D, ST_D2C, ST_Q2C, NR_STAGES };
enum opgrp { OPG_READ, OPG_WRITE, NR_OPG };
extern const char *const stage_names[NR_STAGES];
extern const char *const opg_names[NR_OPG];

/* OPG_READ, OPG_WRITE, or -1 for flushes, discards, ... (counted apart, as
 * diskstats does) */
static inline int opg_of(uint32_t flags)
{
	switch (flags & IOT_OP_MASK) {
	case IOT_OP_READ:
		return OPG_READ;
	case IOT_OP_WRITE:
		return OPG_WRITE;
	default:
		return -1;
	}
}

struct dev_result {
	uint32_t dev;
	char name[32];
	bool bio_based; /* completes bios without requests: Q and C only */
	uint64_t requests[NR_OPG], sectors[NR_OPG];
	uint64_t flushes, discards, discard_sectors, errors;
	/* the latency analyzer's: per stage and read/write (Q2C per bio), and
	 * both together (read + write, for JSON and HTML) */
	struct metric stage[NR_STAGES][NR_OPG];
	struct metric stage_all[NR_STAGES];
	/* the flush machinery's flush requests (join_is_flush_rq): their time
	 * as /proc/diskstats counts it, from the kernel's start of the request
	 * to its completion; from its issue (D) for those whose start the
	 * trace lacks (recorded before trace format 1.3) */
	struct metric flush;
	uint64_t flush_from_issue;
};

struct analyzer;
struct frag_scan;

/* system call numbers below this have their kind in a table */
#define ANALYSIS_SYSCALL_NRS 1024

/* What one analyzer made: metrics (shown by the stats, hist and series
 * views) and tables, in the order the renderers print them. */
struct an_output {
	const struct analyzer *an;
	void *priv; /* its state: an->priv_size bytes */
	struct metric **metrics;
	size_t nr_metrics, cap_metrics;
	struct table **tables;
	size_t nr_tables, cap_tables;
};

/* Facts about the trace the analyzers may use. */
struct analysis_env {
	uint64_t t0_ns;			/* recording start (series and windows origin) */
	uint64_t end_ns;		/* recording end, 0 if unknown */
	uint64_t window_ns;		/* --window; 0: about 50 windows */
	bool keep_time;			/* series view: remember sample times */
	bool keep_requests;		/* --requests: every request */
	bool stage_all;			/* fill dev_result.stage_all (JSON) */
	const uint32_t *syscall_nr;	/* numbers by kind (syscalls.h) for the
					   trace's architecture */
	const struct frag_scan *layout; /* --layout, or NULL */
	const char *overlay_file;	/* the overlay analyzer's file (-a overlay
					   --overlay-file, iotrail overlay) */
	const char *who_by;		/* -a who --by KEYS, NULL: task */
	const char *drivers;		/* the driver layers recorded (META) */
	bool measured_only;		/* leave out requests with estimated
					   times (--measured-only) */
	/* --time FROM,TO: only what ended in [from_ns, to_ns) is analysed
	 * (a request by its completion, a call by its exit, an event by its
	 * time); to_ns 0: no end (UINT64_MAX after analysis_init). time_from
	 * and time_to: as given, after t0_ns (0: the start, the end), made
	 * from_ns and to_ns where the trace is opened (pipeline.c) */
	uint64_t time_from, time_to, from_ns, to_ns;
	size_t top;	     /* --top N rows, 0: all */
	const char *stack;   /* META stack=: the loop devices and
				their backing files, or NULL */
	uint64_t flow_id;    /* flows: --id N (1-based), 0: none */
	size_t flow_slowest; /* flows: --slowest N, 0: 20, SIZE_MAX:
				all */
	/* flows: --where layer=LAYER[@DEV]: the flows with time in that
	   layer (at that device) on their critical path, ordered by it;
	   NULL: every flow, by its total */
	const char *flow_where;
	void *ctx;
	const char *(*dev_name)(void *ctx, uint32_t dev);
	bool (*is_bio_based)(void *ctx, uint32_t dev);
	/* whether st_dev is a traced block device, and its first sector */
	bool (*fs_dev)(void *ctx, uint32_t st_dev, uint64_t *part_start);
	/* the trace's device table entry of dev, or NULL */
	const struct iot_dev_entry *(*dev_entry)(void *ctx, uint32_t dev);
	/* the trace's task table entry of tid, or NULL */
	const struct iot_task_entry *(*task_entry)(void *ctx, uint32_t tid);
	/* the path of inode ino on dev (a filesystem or a disk) as the
	 * recorder found it (the FILES chunk), or NULL unknown */
	const char *(*file_path)(void *ctx, uint32_t dev, uint64_t ino);
	/* the path of a cgroup (low 32 bits of its id), or NULL unknown */
	const char *(*cgroup_path)(void *ctx, uint32_t id);
};

struct analysis;

/* The hooks of some of the chosen analyzers (analyzer.h), gathered at init:
 * the per-event dispatch is a loop over these only. */
struct an_hooks {
	struct {
		void (*fn)(struct analysis *a, void *priv, struct dev_result *d,
			   const struct join_request *r);
		void *priv;
	} * on_request;
	struct {
		void (*fn)(struct analysis *a, void *priv, struct dev_result *d,
			   const struct join_request *r, const struct join_bio *b);
		void *priv;
	} * on_bio;
	struct {
		void (*fn)(struct analysis *a, void *priv, const struct join_syscall *s);
		void *priv;
	} * on_syscall;
	size_t nr_on_request, nr_on_bio, nr_on_syscall;
	struct an_output **outs; /* for the rare hooks: a walk over these */
	size_t nr_outs;
};

struct fanout;

struct analysis {
	struct analysis_env env;
	struct an_output *out; /* the chosen analyzers, in registry order */
	size_t nr_out;
	struct an_hooks hooks; /* all of theirs */
	/* analysis_fanout_start(): the hooks run in threads of their own,
	 * from a log the joining thread writes (fanout.c); NULL: here */
	struct fanout *fan;
	unsigned int threads; /* finish in up to this many (fanout.c); 0, 1:
				 in the caller's */

	struct dev_result *devs;
	size_t nr_devs, cap_devs;
	int last_dev; /* lookup cache */

	struct join_request *reqs; /* --requests: every request, completion order */
	size_t nr_reqs, cap_reqs;

	uint64_t requests_total, bios_total, syscalls_total, commits_total;
	/* requests with a time `iotrail repair` estimated: seen, and left out
	 * by --measured-only */
	uint64_t requests_estimated, requests_excluded;
	/* system calls whose exit it estimated: seen, and left out */
	uint64_t syscalls_estimated, syscalls_excluded;
	int8_t syscall_kind[ANALYSIS_SYSCALL_NRS]; /* by number: kind or -1 */
	/* set in an analysis of a stretch of the outputs (a part,
	 * analysis_part_init): the analysis it will be merged into, whose
	 * state its analyzers' init may read (tables made once, not once a
	 * part); NULL otherwise. What a part's analyzers cannot tell alone
	 * they keep for their merge. */
	const struct analysis *whole;
	bool part_ended; /* analysis_part_end done */
	/* a metric finished shows percentiles of buckets, not of its values
	 * (metric.h: more than METRIC_EXACT_MAX of them) */
	bool bucketed;
	int err; /* first error (-ENOMEM, or an analyzer's) */
	char errmsg[256];
};

/* analyzers: a set of registry indexes (analyzer.h). 0 or -errno, with
 * the reason in a->errmsg. */
int analysis_init(struct analysis *a, uint64_t analyzers, const struct analysis_env *env);
/* The sink to hand to join_init(). */
struct join_sink analysis_sink(struct analysis *a);
/* One histogram of an AGG chunk (--aggregate recordings). */
void analysis_add_agg(struct analysis *a, const struct iot_agg_entry *e);
/* The hooks of analyzers in threads of their own: up to `threads` of them,
 * each running its share of the chosen analyzers over a log of the join's
 * output, in the join's order, so each analyzer sees what it would see
 * here (fanout.c). 0, or -errno with nothing changed (the hooks run here).
 * analysis_fanout_end() after the join's end, before anything else. */
int analysis_fanout_start(struct analysis *a, unsigned int threads);
/* The log's last entries through their analyzers, and the threads gone. */
void analysis_fanout_end(struct analysis *a);
/* The dispatch of one join output to the hooks h (the sink's, or a fan-out
 * thread's) */
void an_hooks_request(struct analysis *a, const struct an_hooks *h, struct dev_result *d,
		      const struct join_request *r);
void an_hooks_bio(struct analysis *a, const struct an_hooks *h, struct dev_result *d,
		  const struct join_request *r, const struct join_bio *b);
void an_hooks_syscall(struct analysis *a, const struct an_hooks *h,
		      const struct join_syscall *s);
void an_hooks_commit(struct analysis *a, const struct an_hooks *h,
		     const struct join_commit *c);
void an_hooks_uring(struct analysis *a, const struct an_hooks *h,
		    const struct join_uring *u);
void an_hooks_mark(struct analysis *a, const struct an_hooks *h,
		   const struct join_mark *m);
void an_hooks_unfinished(struct analysis *a, const struct an_hooks *h,
			 const struct join_request *r);
void an_hooks_fault(struct analysis *a, const struct an_hooks *h,
		    const struct join_fault *f);
void an_hooks_dirty(struct analysis *a, const struct an_hooks *h,
		    const struct join_dirty *d);
void an_hooks_floor(struct analysis *a, const struct an_hooks *h, uint64_t ns);
/* h gains the hooks of o's analyzer; 0 or -ENOMEM */
int an_hooks_add(struct an_hooks *h, struct an_output *o);
void an_hooks_release(struct an_hooks *h);
/* Whether every chosen analyzer has a merge hook (analyzer.h), so that
 * parts of the join's outputs can be analysed apart and merged. */
bool analysis_can_part(const struct analysis *a);
/* part: an empty analysis with a's analyzers and environment, for a
 * stretch of the outputs (on any thread: a is only read). 0 or -errno. */
int analysis_part_init(struct analysis *part, const struct analysis *a);
/* In an analyzer's init of a part: the private state of the same analyzer
 * in the whole analysis (set up, read-only while parts run), or NULL when
 * a is no part. */
const void *analysis_whole_priv(const struct analysis *a, const struct an_output *o);
/* part has all its outputs: its analyzers' part_end, on the caller's
 * thread (the worker that fed it, before the merge). Once; analysis_merge
 * calls it when nobody did. */
void analysis_part_end(struct analysis *part);
/* What part holds (the stretch after what a has seen) added to a, as if a
 * had seen it; part is then released. 0 or -ENOMEM (also in a->err). */
int analysis_merge(struct analysis *a, struct analysis *part);
/* After the last event: every analyzer's finish, every statistic. */
int analysis_finish(struct analysis *a);
void analysis_release(struct analysis *a);

/* ---- for analyzers ---- */
/* The device of dev (created on first use), or NULL out of memory. */
struct dev_result *analysis_dev_slow(struct analysis *a, uint32_t dev);
static inline struct dev_result *analysis_dev(struct analysis *a, uint32_t dev)
{
	if (a->last_dev >= 0 && a->devs[a->last_dev].dev == dev)
		return &a->devs[a->last_dev];
	return analysis_dev_slow(a, dev);
}
static inline void analysis_note_err(struct analysis *a, int err)
{
	int none = 0;

	/* the first: hooks may run in several threads (fanout.c) */
	if (__builtin_expect(err != 0, 0))
		__atomic_compare_exchange_n(&a->err, &none, err, false, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED);
}
/* Whether --time limits what is analysed (analysis_env from_ns, to_ns) */
static inline bool analysis_windowed(const struct analysis *a)
{
	return a->env.from_ns || a->env.to_ns != UINT64_MAX;
}
/* m finished: whether its percentiles come from buckets noted, for the
 * report to say so (analyzers finish on several threads: fanout.c) */
static inline void analysis_note_metric(struct analysis *a, const struct metric *m)
{
	if (m->st.rel_err > 0)
		__atomic_store_n(&a->bucketed, true, __ATOMIC_RELAXED);
}
/* The kind (enum syscall_kind) of system call number nr in the trace's
 * architecture, or -1: a table lookup. */
static inline int analysis_syscall_kind(const struct analysis *a, uint32_t nr)
{
	return nr < ANALYSIS_SYSCALL_NRS ? a->syscall_kind[nr] : -1;
}
static inline bool analysis_syscall_is_read(const struct analysis *a, uint32_t nr)
{
	return syscall_kind_is_read(analysis_syscall_kind(a, nr));
}
/* fn(a, ctx, k) for each k below n, on up to a->threads threads (this one
 * among them), each taking the next k; stops early once a->err is set. For
 * a finish whose parts are apart (latency's stages). */
void analysis_each(struct analysis *a, size_t n,
		   void (*fn)(struct analysis *a, void *ctx, size_t k), void *ctx);
/* Shown in the metric views; the metric's statistics are computed here. */
void an_output_metric(struct analysis *a, struct an_output *o, struct metric *m);
/* A new table of o (owned by it), or NULL out of memory. */
struct table *an_output_table(struct analysis *a, struct an_output *o, const char *name,
			      const struct column *cols, size_t nr_cols);

/* A metric per device, for analyzers that keep one; indexed like a->devs. */
struct dev_metrics {
	struct metric *m;
	size_t nr, cap;
};
struct metric *dev_metric_slow(struct analysis *a, struct dev_metrics *dm,
			       const struct dev_result *d, const char *name,
			       const char *unit, bool keep_time);
static inline struct metric *dev_metric(struct analysis *a, struct dev_metrics *dm,
					const struct dev_result *d, const char *name,
					const char *unit, bool keep_time)
{
	size_t idx = (size_t)(d - a->devs);

	return idx < dm->nr ? &dm->m[idx]
			    : dev_metric_slow(a, dm, d, name, unit, keep_time);
}
void dev_metrics_release(struct dev_metrics *dm);
/* a merge hook's (analyzer.h) for a struct dev_metrics: src's values of
 * each device taken by the same device's in dm (metric_take). 0 or
 * -ENOMEM. */
int dev_metrics_merge(struct analysis *a, struct dev_metrics *dm, struct dev_metrics *src,
		      const size_t *devmap);
/* finish and release of an analyzer whose state is one struct dev_metrics
 * (biotime, elvtime): every device's metric into o, in device order */
int dev_metrics_finish(struct analysis *a, struct an_output *o);
void dev_metrics_free(void *priv);
/* their merge (dev_metrics_merge) */
int dev_metrics_merge_hook(struct analysis *a, void *priv, const struct analysis *src,
			   void *src_priv, const size_t *devmap);

/* ---- for renderers ---- */
/* The name of a device of the result, "?" if it has none. */
const char *analysis_dev_name(const struct analysis *a, uint32_t dev);
/* The output of the analyzer named, if it ran. */
const struct an_output *analysis_output(const struct analysis *a, const char *name);

#endif
