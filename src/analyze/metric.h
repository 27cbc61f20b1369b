/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A metric: named samples (a value and, when a series is wanted, the time it
 * was taken), and what the views need of them: order statistics and a log2
 * histogram. Pure data; renderers format it.
 */
#ifndef IOTRAIL_ANALYZE_METRIC_H
#define IOTRAIL_ANALYZE_METRIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/grow.h"

struct metric_stats {
	uint64_t count, min, max, p50, p90, p99, p999;
	double avg;
	/* 0: the percentiles are values of the set; else the bound of their
	 * error relative to such a value (a metric kept in buckets) */
	double rel_err;
};

#define LOG2_SLOTS 64
struct log2_hist {
	uint64_t slot[LOG2_SLOTS]; /* slot k: values in [2^k, 2^(k+1)), 0 in slot 0 */
	int max_slot;		   /* highest non-empty slot, -1 if none */
};

/* Past its exact_max values (METRIC_EXACT_MAX, or IOTRAIL_METRIC_EXACT_MAX
 * in the environment), a metric without kept times counts its values in
 * log-linear buckets instead of keeping them: memory bounded by the range
 * of the values, not by their number (a trace's report in memory that
 * does not grow with the trace). Each power of two is cut in METRIC_SUBS
 * buckets: below 2^(METRIC_SUB_BITS + 1) each value has its own, and above,
 * a percentile (the middle of its bucket) is within METRIC_REL_ERR of the
 * value, 0.05%. Count, sum, average, minimum, maximum and both log2
 * histograms stay exact. Whether a metric is kept so depends only on how
 * many values it has in all, never on how a merge's parts shared them:
 * one thread or many, the same output. */
#define METRIC_EXACT_MAX (1u << 20)
#define METRIC_SUB_BITS	 10
#define METRIC_SUBS	 (1u << METRIC_SUB_BITS)
#define METRIC_OCTAVES	 (64 - METRIC_SUB_BITS + 1)
#define METRIC_REL_ERR	 (1.0 / (2u << METRIC_SUB_BITS))

struct metric_sketch {
	/* octave 0: values 0 .. METRIC_SUBS - 1, one a bucket; octave o > 0:
	 * [2^(o + SUB_BITS - 1), twice that) in buckets 2^(o - 1) wide;
	 * each allocated at its first value */
	uint64_t *oct[METRIC_OCTAVES];
	uint64_t min, max;
	struct log2_hist hist, hist_k; /* of the values, and of value / 1000 */
};

struct metric {
	char scope[48];	  /* what it is about: "loop0 read", "all" */
	char name[24];	  /* what it measures: "q2c", "read", "seek" */
	const char *unit; /* "ns" or "sectors" */
	/* The values: with keep_time, every one in v, in the order added, its
	 * time in t. Without, the statistics need only the set, so a value
	 * below 2^32 (4.3 s of ns) takes 4 bytes in v32 and the rest go to v:
	 * n - n32 of them. */
	uint64_t *v;
	uint64_t *t; /* CLOCK_MONOTONIC ns per value, or NULL */
	int64_t *sv; /* signed companion values for series, or NULL */
	uint32_t *v32;
	size_t n;   /* every value */
	size_t cap; /* of v (and t) */
	size_t n32, cap32;
	/* Without kept times: the values of the metrics metric_take took,
	 * their v32 and v arrays whole (a merge's parts: no copy then),
	 * n_runs of them, joined to v32 and v when the values are first
	 * needed (metric_finish, metric_hist). */
	struct runs r32, r64;
	size_t n_runs;
	bool keep_time;
	bool sorted;		  /* v and v32 sorted (t and sv then no longer paired) */
	size_t exact_max;	  /* values kept as such, at most */
	struct metric_sketch *sk; /* past exact_max: the buckets, and no values */
	uint64_t sum;
	/* from in-kernel aggregation (--aggregate): a log2 histogram instead of
	 * samples; its statistics are exact for count and average, and bucket
	 * bounds (within 2x) for min, max and percentiles */
	uint64_t agg_b[64];
	uint64_t agg_n, agg_sum;
	/* metric_finish(): what the views show */
	struct metric_stats st;
	struct log2_hist hist;	 /* of the values */
	struct log2_hist hist_k; /* of value / 1000 (ns as µs) */
	bool finished;
};

/* The values a metric keeps as such, at most (METRIC_EXACT_MAX, or
 * IOTRAIL_METRIC_EXACT_MAX, a test's way to see buckets on a small trace) */
size_t metric_exact_max(void);
void metric_init(struct metric *m, const char *scope, const char *name, const char *unit,
		 bool keep_time);
int metric_add_slow(struct metric *m, uint64_t t, uint64_t v);
/* Adds the value v taken at t (kept only with keep_time). 0 or -ENOMEM.
 * Inlined: a report adds five values a request. */
static inline int metric_add(struct metric *m, uint64_t t, uint64_t v)
{
	if (!m->keep_time && v <= UINT32_MAX && m->n32 < m->cap32) {
		m->v32[m->n32++] = (uint32_t)v;
		m->n++;
		m->sum += v;
		m->sorted = false;
		return 0;
	}
	return metric_add_slow(m, t, v);
}
/* Adds every value of src (not their times) and its in-kernel buckets to
 * dst, a metric without kept times. 0 or -ENOMEM. */
int metric_add_all(struct metric *dst, const struct metric *src);
/* Appends src's values (with their times, if kept: both metrics then keep
 * them), its sum and in-kernel buckets to dst, which then holds what it
 * would had src's adds been made to it, in order. src is not finished.
 * 0, -ENOMEM, or -EINVAL when one keeps times and the other not. */
int metric_append(struct metric *dst, const struct metric *src);
/* metric_append, but src's values are taken, not copied, where neither
 * keeps times: its arrays become dst's (joined at metric_finish, on the
 * thread that finishes it), and src is left without values, to be
 * released. 0, -ENOMEM (dst and src as they were), or -EINVAL. */
int metric_take(struct metric *dst, struct metric *src);
/* The values of a finished metric without kept times are let go: its
 * statistics and histograms stay. */
void metric_drop_values(struct metric *m);
/* The statistics and both histograms into st, hist and hist_k (sorting the
 * values, or a copy of them when their times are kept). 0 or -ENOMEM. */
int metric_finish(struct metric *m);
/* The same, its values sorted on up to `threads` threads when an array of
 * them holds METRIC_THREADS_MIN or more (fewer: the threads cost more) */
#define METRIC_THREADS_MIN (1u << 20)
int metric_finish_threads(struct metric *m, unsigned int threads);
/* metric_finish(), then its statistics into s (zero out of memory). */
void metric_stats(struct metric *m, struct metric_stats *s);
/* Histogram of value / divisor (1000 for microseconds), by a pass over the
 * values: what metric_finish computes faster from sorted values. */
void metric_hist(const struct metric *m, uint64_t divisor, struct log2_hist *h);
void metric_release(struct metric *m);
/* Adds an in-kernel log2 histogram (bucket k: [2^k, 2^(k+1)), 0..1 in 0). */
void metric_add_hist(struct metric *m, const uint64_t buckets[64], uint64_t sum);

/* Sorts n u64 values in place (LSD radix, 16-bit digits, skipping digits
 * that are equal in every value). 0 or -ENOMEM. */
int sort_u64(uint64_t *v, size_t n);
int sort_u32(uint32_t *v, size_t n);

#endif
