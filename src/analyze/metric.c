// SPDX-License-Identifier: GPL-2.0
/* Sample sets, order statistics and log2 histograms. */
#include "metric.h"
#include "../util/grow.h"

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t env_exact_max = METRIC_EXACT_MAX;

static void read_exact_max(void)
{
	const char *e = getenv("IOTRAIL_METRIC_EXACT_MAX");
	char *end;
	unsigned long long x;

	if (!e || !*e)
		return;
	x = strtoull(e, &end, 10);
	if (!*end)
		env_exact_max = (size_t)x;
}

size_t metric_exact_max(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, read_exact_max);
	return env_exact_max;
}

void metric_init(struct metric *m, const char *scope, const char *name, const char *unit,
		 bool keep_time)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->scope, sizeof(m->scope), "%s", scope);
	snprintf(m->name, sizeof(m->name), "%s", name);
	m->unit = unit;
	m->keep_time = keep_time;
	m->exact_max = metric_exact_max();
}

/* the values in v (the rest are in v32 and the runs; none in buckets) */
static size_t nr_v(const struct metric *m)
{
	return m->sk ? 0 : m->n - m->n32 - m->n_runs;
}

/* ---- buckets (struct metric_sketch) --------------------------------------- */

static void hist_put(struct log2_hist *h, int k, uint64_t count)
{
	h->slot[k] += count;
	if (k > h->max_slot)
		h->max_slot = k;
}

static int log2_of(uint64_t x)
{
	return x ? 63 - __builtin_clzll(x) : 0;
}

static int sketch_add(struct metric_sketch *sk, uint64_t v)
{
	int k = log2_of(v);
	unsigned int o = 0, i = (unsigned int)v;

	if (k >= METRIC_SUB_BITS) {
		o = (unsigned int)k - METRIC_SUB_BITS + 1;
		i = (unsigned int)(v >> (k - METRIC_SUB_BITS)) & (METRIC_SUBS - 1);
	}
	if (!sk->oct[o] && !(sk->oct[o] = calloc(METRIC_SUBS, sizeof(uint64_t))))
		return -ENOMEM;
	sk->oct[o][i]++;
	if (v < sk->min)
		sk->min = v;
	if (v > sk->max)
		sk->max = v;
	hist_put(&sk->hist, k, 1);
	hist_put(&sk->hist_k, log2_of(v / 1000), 1);
	return 0;
}

static int sketch_add_cb(void *ctx, uint64_t v)
{
	return sketch_add(ctx, v);
}

/* the value a bucket stands for: its middle (a bucket of one: its value) */
static uint64_t bucket_value(unsigned int o, unsigned int i)
{
	if (!o)
		return i;
	return ((uint64_t)(METRIC_SUBS + i) << (o - 1)) + ((1ull << (o - 1)) - 1) / 2;
}

static void sketch_free(struct metric_sketch *sk)
{
	if (!sk)
		return;
	for (unsigned int o = 0; o < METRIC_OCTAVES; o++)
		free(sk->oct[o]);
	free(sk);
}

/* src's counts added to dst's. 0 or -ENOMEM (some octaves added). */
static int sketch_merge(struct metric_sketch *dst, const struct metric_sketch *src)
{
	for (unsigned int o = 0; o < METRIC_OCTAVES; o++) {
		if (!src->oct[o])
			continue;
		if (!dst->oct[o] &&
		    !(dst->oct[o] = calloc(METRIC_SUBS, sizeof(uint64_t))))
			return -ENOMEM;
		for (unsigned int i = 0; i < METRIC_SUBS; i++)
			dst->oct[o][i] += src->oct[o][i];
	}
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	for (int k = 0; k < LOG2_SLOTS; k++) {
		if (src->hist.slot[k])
			hist_put(&dst->hist, k, src->hist.slot[k]);
		if (src->hist_k.slot[k])
			hist_put(&dst->hist_k, k, src->hist_k.slot[k]);
	}
	return 0;
}

static int each_value(const struct metric *m, int (*fn)(void *ctx, uint64_t v),
		      void *ctx);

/* Every value m keeps as such let go (v, v32, the runs taken), and its
 * buckets too where `buckets`; its counts stay */
static void let_go_values(struct metric *m, bool buckets)
{
	runs_release(&m->r32);
	runs_release(&m->r64);
	free(m->v);
	free(m->v32);
	m->v = NULL;
	m->v32 = NULL;
	m->cap = m->cap32 = m->n32 = m->n_runs = 0;
	if (buckets) {
		sketch_free(m->sk);
		m->sk = NULL;
	}
}

/* m's values into buckets, and let go. 0 or -ENOMEM (m as it was). */
static int to_sketch(struct metric *m)
{
	struct metric_sketch *sk = calloc(1, sizeof(*sk));

	if (!sk)
		return -ENOMEM;
	sk->min = UINT64_MAX;
	sk->hist.max_slot = sk->hist_k.max_slot = -1;
	if (each_value(m, sketch_add_cb, sk)) {
		sketch_free(sk);
		return -ENOMEM;
	}
	let_go_values(m, false);
	m->sorted = false;
	m->sk = sk;
	return 0;
}

/* src's values (its buckets, or each value wherever it is) into dst's
 * buckets, made first where dst has none; the counts are the caller's
 * (add_counts) */
static int into_sketch(struct metric *dst, const struct metric *src)
{
	if (dst->keep_time || src->keep_time)
		return -EINVAL;
	if (!dst->sk && to_sketch(dst))
		return -ENOMEM;
	if (src->sk ? sketch_merge(dst->sk, src->sk)
		    : each_value(src, sketch_add_cb, dst->sk))
		return -ENOMEM;
	return 0;
}

/* Whether dst, given src's values, has more than it keeps as such */
static bool past_exact(const struct metric *dst, const struct metric *src)
{
	return !dst->keep_time && !src->keep_time &&
	       (dst->sk || src->sk || dst->n + src->n > dst->exact_max);
}

/* A percentile of the buckets: the middle of the one holding the nearest
 * rank (as pct() takes it of the values), within the exact min and max */
static uint64_t sketch_pct(const struct metric *m, double p)
{
	const struct metric_sketch *sk = m->sk;
	uint64_t rank = (uint64_t)((p * m->n) + 0.999999999), seen = 0;

	if (rank < 1)
		rank = 1;
	if (rank > m->n)
		rank = m->n;
	for (unsigned int o = 0; o < METRIC_OCTAVES; o++) {
		if (!sk->oct[o])
			continue;
		for (unsigned int i = 0; i < METRIC_SUBS; i++) {
			seen += sk->oct[o][i];
			if (seen >= rank) {
				uint64_t v = bucket_value(o, i);

				return v < sk->min ? sk->min : v > sk->max ? sk->max : v;
			}
		}
	}
	return sk->max;
}

/* The runs joined to v32 and v: every value in the arrays. 0 or -ENOMEM
 * (as they were). */
static int gather(struct metric *m)
{
	size_t n32 = m->n32, nv;

	if (!m->n_runs)
		return 0;
	if (JOIN(m->r32, m->v32, n32, m->cap32))
		return -ENOMEM;
	m->n_runs -= n32 - m->n32;
	m->n32 = n32;
	nv = nr_v(m);
	if (JOIN(m->r64, m->v, nv, m->cap))
		return -ENOMEM;
	m->n_runs = 0;
	return 0;
}

int metric_add_slow(struct metric *m, uint64_t t, uint64_t v)
{
	if (m->sk || (!m->keep_time && m->n >= m->exact_max)) {
		if ((!m->sk && to_sketch(m)) || sketch_add(m->sk, v))
			return -ENOMEM;
		m->n++;
		m->sum += v;
		return 0;
	}
	if (!m->keep_time && v <= UINT32_MAX) {
		if (GROW(m->v32, m->n32 + 1, m->cap32))
			return -ENOMEM;
		m->v32[m->n32++] = (uint32_t)v;
	} else {
		size_t nv = nr_v(m);

		if (nv == m->cap) {
			size_t cap = m->cap, cap_t = m->cap;

			if (GROW(m->v, nv + 1, cap) ||
			    (m->keep_time && GROW(m->t, nv + 1, cap_t)))
				return -ENOMEM;
			m->cap = cap;
		}
		if (m->keep_time)
			m->t[nv] = t;
		m->v[nv] = v;
	}
	m->n++;
	m->sum += v;
	m->sorted = false;
	return 0;
}

/* fn(ctx, value) for every value of m, wherever it is (v32, v, the runs
 * taken; none once in buckets), until fn returns non-zero: that, or 0.
 * Inlined with its fn. */
static inline __attribute__((always_inline)) int
each_value(const struct metric *m, int (*fn)(void *ctx, uint64_t v), void *ctx)
{
	size_t nv = nr_v(m);
	int err = 0;

	for (size_t k = 0; k < m->n32 && !err; k++)
		err = fn(ctx, m->v32[k]);
	for (size_t k = 0; k < nv && !err; k++)
		err = fn(ctx, m->v[k]);
	for (size_t r = 0; r < m->r32.nr && !err; r++)
		for (size_t k = 0; k < m->r32.r[r].n && !err; k++)
			err = fn(ctx, ((const uint32_t *)m->r32.r[r].p)[k]);
	for (size_t r = 0; r < m->r64.nr && !err; r++)
		for (size_t k = 0; k < m->r64.r[r].n && !err; k++)
			err = fn(ctx, ((const uint64_t *)m->r64.r[r].p)[k]);
	return err;
}

static int add_one(void *ctx, uint64_t v)
{
	return metric_add(ctx, 0, v);
}

/* what dst counts of src's values, besides the values themselves */
static void add_counts(struct metric *dst, const struct metric *src)
{
	dst->n += src->n;
	dst->sum += src->sum;
	if (src->n)
		dst->sorted = false;
	if (src->agg_n)
		metric_add_hist(dst, src->agg_b, src->agg_sum);
}

int metric_add_all(struct metric *dst, const struct metric *src)
{
	if (src->sk) {
		int err = into_sketch(dst, src);

		if (!err)
			add_counts(dst, src);
		return err;
	}
	if (each_value(src, add_one, dst))
		return -ENOMEM;
	if (src->agg_n)
		metric_add_hist(dst, src->agg_b, src->agg_sum);
	return 0;
}

int metric_append(struct metric *dst, const struct metric *src)
{
	size_t nv = nr_v(dst), snv = nr_v(src);

	if (dst->keep_time != src->keep_time)
		return -EINVAL; /* the values are not kept alike */
	if (past_exact(dst, src)) {
		int err = into_sketch(dst, src);

		if (!err)
			add_counts(dst, src);
		return err;
	}
	if (src->n_runs)
		return -EINVAL; /* a merge's parts take nothing themselves */
	if (src->n32) {
		if (GROW(dst->v32, dst->n32 + src->n32, dst->cap32))
			return -ENOMEM;
		memcpy(dst->v32 + dst->n32, src->v32, src->n32 * sizeof(*src->v32));
		dst->n32 += src->n32;
	}
	if (snv) {
		size_t cap = dst->cap, cap_t = dst->cap;

		if (GROW(dst->v, nv + snv, cap) ||
		    (dst->keep_time && GROW(dst->t, nv + snv, cap_t)))
			return -ENOMEM;
		dst->cap = cap;
		memcpy(dst->v + nv, src->v, snv * sizeof(*src->v));
		if (dst->keep_time)
			memcpy(dst->t + nv, src->t, snv * sizeof(*src->t));
	}
	add_counts(dst, src);
	return 0;
}

int metric_take(struct metric *dst, struct metric *src)
{
	size_t snv = nr_v(src), s32 = src->n32, cap = src->cap;

	if (past_exact(dst, src)) { /* into buckets, and src's let go */
		int err = metric_append(dst, src);

		if (err)
			return err;
		let_go_values(src, true);
		src->n = 0;
		src->sum = 0;
		return 0;
	}
	if (dst->keep_time || src->keep_time || src->n_runs)
		return metric_append(dst, src);
	/* room for both runs first: nothing is taken unless both are */
	if (GROW(dst->r32.r, dst->r32.nr + 1, dst->r32.cap) ||
	    GROW(dst->r64.r, dst->r64.nr + 1, dst->r64.cap) ||
	    TAKE(dst->r32, src->v32, s32, src->cap32) || TAKE(dst->r64, src->v, snv, cap))
		return -ENOMEM;
	src->cap = cap;
	dst->n_runs += src->n;
	add_counts(dst, src);
	/* its values are dst's now; its in-kernel buckets stay counted */
	src->n = src->n32 = 0;
	src->sum = 0;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* LSD radix sort of n values of type T, 16-bit digits, skipping digits that
 * are equal in every value; small sets by insertion sort and qsort */
#define RADIX_SORT(T, v, n, cmp)                                                         \
	do {                                                                             \
		T *tmp, *src = (v), *dst, or_all = 0, and_all = (T) ~(T)0;               \
		static_assert(sizeof(T) % 2 == 0, "16-bit digits");                      \
		size_t count[65536];                                                     \
                                                                                         \
		if ((n) < 2)                                                             \
			return 0;                                                        \
		if ((n) < 64) {                                                          \
			for (size_t i = 1; i < (n); i++) {                               \
				T x = (v)[i];                                            \
				size_t k = i;                                            \
                                                                                         \
				while (k && (v)[k - 1] > x) {                            \
					(v)[k] = (v)[k - 1];                             \
					k--;                                             \
				}                                                        \
				(v)[k] = x;                                              \
			}                                                                \
			return 0;                                                        \
		}                                                                        \
		if ((n) < 8192) { /* a 16-bit pass clears 512 KB: too much here */       \
			qsort((v), (n), sizeof(T), cmp);                                 \
			return 0;                                                        \
		}                                                                        \
		tmp = malloc((n) * sizeof(T));                                           \
		if (!tmp)                                                                \
			return -ENOMEM;                                                  \
		dst = tmp;                                                               \
		for (size_t i = 0; i < (n); i++) {                                       \
			or_all |= (v)[i];                                                \
			and_all &= (v)[i];                                               \
		}                                                                        \
		for (unsigned int shift = 0; shift < 8 * sizeof(T); shift += 16) {       \
			T digit_mask = (T)((T)0xffff << shift);                          \
			size_t sum = 0;                                                  \
                                                                                         \
			if ((or_all & digit_mask) == (and_all & digit_mask))             \
				continue; /* the same digit in every value */            \
			memset(count, 0, sizeof(count));                                 \
			for (size_t i = 0; i < (n); i++)                                 \
				count[(src[i] >> shift) & 0xffff]++;                     \
			for (size_t d = 0; d < 65536; d++) {                             \
				size_t c = count[d];                                     \
                                                                                         \
				count[d] = sum;                                          \
				sum += c;                                                \
			}                                                                \
			for (size_t i = 0; i < (n); i++)                                 \
				dst[count[(src[i] >> shift) & 0xffff]++] = src[i];       \
			T *x = src;                                                      \
                                                                                         \
			src = dst;                                                       \
			dst = x;                                                         \
		}                                                                        \
		if (src != (v))                                                          \
			memcpy((v), src, (n) * sizeof(T));                               \
		free(tmp);                                                               \
		return 0;                                                                \
	} while (0)

int sort_u64(uint64_t *v, size_t n)
{
	RADIX_SORT(uint64_t, v, n, cmp_u64);
}

int sort_u32(uint32_t *v, size_t n)
{
	RADIX_SORT(uint32_t, v, n, cmp_u32);
}

/* The same sort on up to `threads` threads: each digit's pass counts and
 * scatters a slice of the values per thread, each slice's values of a
 * digit placed after those of the slices before (stable, as one thread's
 * pass). A report's one large metric (16 threads of zram reads: 20M
 * values of Q2C, one device, one stage) was sorted on one thread while
 * the others waited. */
#define PSORT_THREADS 32

#define PAR_RADIX(T, NAME, SERIAL)                                                       \
	struct NAME##_job {                                                              \
		T *src, *dst;                                                            \
		size_t n, *cnt; /* its slice's counts, then places */                    \
		unsigned int nt, id, shift;                                              \
		bool scatter;                                                            \
	};                                                                               \
                                                                                         \
	static void *NAME##_run(void *arg)                                               \
	{                                                                                \
		struct NAME##_job *j = arg;                                              \
		size_t from = j->n * j->id / j->nt, to = j->n * (j->id + 1) / j->nt;     \
                                                                                         \
		if (!j->scatter) {                                                       \
			memset(j->cnt, 0, 65536 * sizeof(*j->cnt));                      \
			for (size_t i = from; i < to; i++)                               \
				j->cnt[(j->src[i] >> j->shift) & 0xffff]++;              \
			return NULL;                                                     \
		}                                                                        \
		for (size_t i = from; i < to; i++)                                       \
			j->dst[j->cnt[(j->src[i] >> j->shift) & 0xffff]++] = j->src[i];  \
		return NULL;                                                             \
	}                                                                                \
                                                                                         \
	/* each job on a thread of its own, or on this one where none is had */          \
	static void NAME##_all(struct NAME##_job *job, unsigned int nt)                  \
	{                                                                                \
		pthread_t th[PSORT_THREADS];                                             \
		bool on[PSORT_THREADS] = {false};                                        \
                                                                                         \
		for (unsigned int t = 1; t < nt; t++)                                    \
			on[t] = !pthread_create(&th[t], NULL, NAME##_run, &job[t]);      \
		NAME##_run(&job[0]);                                                     \
		for (unsigned int t = 1; t < nt; t++)                                    \
			if (on[t])                                                       \
				pthread_join(th[t], NULL);                               \
			else                                                             \
				NAME##_run(&job[t]);                                     \
	}                                                                                \
                                                                                         \
	static int NAME(T *v, size_t n, unsigned int threads)                            \
	{                                                                                \
		struct NAME##_job job[PSORT_THREADS];                                    \
		T *tmp, *src = v, *dst, or_all = 0, and_all = (T) ~(T)0;                 \
		size_t *cnt;                                                             \
                                                                                         \
		if (threads > PSORT_THREADS)                                             \
			threads = PSORT_THREADS;                                         \
		if (threads < 2 || n < METRIC_THREADS_MIN)                               \
			return SERIAL(v, n);                                             \
		tmp = malloc(n * sizeof(T));                                             \
		cnt = malloc((size_t)threads * 65536 * sizeof(*cnt));                    \
		if (!tmp || !cnt) {                                                      \
			free(tmp);                                                       \
			free(cnt);                                                       \
			return SERIAL(v, n);                                             \
		}                                                                        \
		dst = tmp;                                                               \
		for (size_t i = 0; i < n; i++) {                                         \
			or_all |= v[i];                                                  \
			and_all &= v[i];                                                 \
		}                                                                        \
		for (unsigned int shift = 0; shift < 8 * sizeof(T); shift += 16) {       \
			size_t at = 0;                                                   \
                                                                                         \
			if ((or_all & ((T)0xffff << shift)) ==                           \
			    (and_all & ((T)0xffff << shift)))                            \
				continue; /* the same digit in every value */            \
			for (unsigned int t = 0; t < threads; t++)                       \
				job[t] = (struct NAME##_job){.src = src,                 \
							     .dst = dst,                 \
							     .n = n,                     \
							     .cnt = cnt + t * 65536,     \
							     .nt = threads,              \
							     .id = t,                    \
							     .shift = shift};            \
			NAME##_all(job, threads);                                        \
			/* a digit's values: slice 0's, then slice 1's... */             \
			for (size_t d = 0; d < 65536; d++)                               \
				for (unsigned int t = 0; t < threads; t++) {             \
					size_t k = job[t].cnt[d];                        \
                                                                                         \
					job[t].cnt[d] = at;                              \
					at += k;                                         \
				}                                                        \
			for (unsigned int t = 0; t < threads; t++)                       \
				job[t].scatter = true;                                   \
			NAME##_all(job, threads);                                        \
			T *x = src;                                                      \
                                                                                         \
			src = dst;                                                       \
			dst = x;                                                         \
		}                                                                        \
		if (src != v)                                                            \
			memcpy(v, src, n * sizeof(T));                                   \
		free(tmp);                                                               \
		free(cnt);                                                               \
		return 0;                                                                \
	}

PAR_RADIX(uint64_t, psort_u64, sort_u64)
PAR_RADIX(uint32_t, psort_u32, sort_u32)

/* The sorted values of a finished metric: lo (below 2^32) then hi, which
 * are all at least 2^32 when lo is not empty. */
struct sorted_vals {
	const uint32_t *lo;
	size_t nlo;
	const uint64_t *hi;
	size_t n; /* nlo + hi's */
};

static uint64_t val_at(const struct sorted_vals *s, size_t k)
{
	return k < s->nlo ? s->lo[k] : s->hi[k - s->nlo];
}

static uint64_t pct(const struct sorted_vals *v, double p)
{
	/* nearest rank: the smallest value with at least p of the samples
	 * at or below it */
	size_t k = (size_t)((p * v->n) + 0.999999999);

	if (k < 1)
		k = 1;
	if (k > v->n)
		k = v->n;
	return val_at(v, k - 1);
}

void metric_add_hist(struct metric *m, const uint64_t buckets[64], uint64_t sum)
{
	for (int k = 0; k < 64; k++) {
		m->agg_b[k] += buckets[k];
		m->agg_n += buckets[k];
	}
	m->agg_sum += sum;
}

static uint64_t bucket_hi(int k)
{
	return k >= 63 ? UINT64_MAX : (2ull << k) - 1;
}

/* The upper bound of the bucket holding the nearest-rank p. */
static uint64_t hist_pct(const struct metric *m, double p)
{
	uint64_t rank = (uint64_t)(p * m->agg_n + 0.999999999), seen = 0;

	if (rank < 1)
		rank = 1;
	for (int k = 0; k < 64; k++) {
		seen += m->agg_b[k];
		if (seen >= rank)
			return bucket_hi(k);
	}
	return UINT64_MAX;
}

static void hist_stats(const struct metric *m, struct metric_stats *s)
{
	int lo = 0, hi = 63;

	while (lo < 63 && !m->agg_b[lo])
		lo++;
	while (hi > 0 && !m->agg_b[hi])
		hi--;
	s->count = m->agg_n;
	s->avg = (double)m->agg_sum / m->agg_n;
	s->min = lo ? 1ull << lo : 0;
	s->max = bucket_hi(hi);
	s->p50 = hist_pct(m, 0.50);
	s->p90 = hist_pct(m, 0.90);
	s->p99 = hist_pct(m, 0.99);
	s->p999 = hist_pct(m, 0.999);
}

void metric_stats(struct metric *m, struct metric_stats *s)
{
	if (metric_finish(m))
		memset(&m->st, 0, sizeof(m->st));
	*s = m->st;
}

/* in-kernel buckets into h, re-bucketed by their lower bound */
static void add_agg_buckets(const struct metric *m, uint64_t divisor, struct log2_hist *h)
{
	for (int b = 0; b < 64; b++) {
		uint64_t x = (b ? 1ull << b : 0) / (divisor ? divisor : 1);
		int k = x ? 63 - __builtin_clzll(x) : 0;

		if (!m->agg_b[b])
			continue;
		h->slot[k] += m->agg_b[b];
		if (k > h->max_slot)
			h->max_slot = k;
	}
}

struct hist_ctx {
	struct log2_hist *h;
	uint64_t divisor;
};

static int hist_add(void *ctx, uint64_t v)
{
	struct hist_ctx *c = ctx;
	uint64_t x = v / c->divisor;
	int k = x ? 63 - __builtin_clzll(x) : 0;

	c->h->slot[k]++;
	if (k > c->h->max_slot)
		c->h->max_slot = k;
	return 0;
}

void metric_hist(const struct metric *m, uint64_t divisor, struct log2_hist *h)
{
	struct hist_ctx c = {h, divisor ? divisor : 1};

	memset(h, 0, sizeof(*h));
	h->max_slot = -1;
	if (m->sk && c.divisor == 1) {
		*h = m->sk->hist;
	} else if (m->sk && c.divisor == 1000) {
		*h = m->sk->hist_k;
	} else if (m->sk) { /* by the buckets' values: near, not exact */
		for (unsigned int o = 0; o < METRIC_OCTAVES; o++)
			for (unsigned int i = 0; m->sk->oct[o] && i < METRIC_SUBS; i++)
				if (m->sk->oct[o][i])
					hist_put(h,
						 log2_of(bucket_value(o, i) / c.divisor),
						 m->sk->oct[o][i]);
	}
	each_value(m, hist_add, &c);
	add_agg_buckets(m, divisor, h);
}

/* first index of the sorted values with v >= x */
static size_t lower_bound(const struct sorted_vals *v, size_t from, uint64_t x)
{
	size_t lo = from, hi = v->n;

	if (x > UINT32_MAX && lo < v->nlo) /* every lo value is below x */
		lo = v->nlo;
	else if (x <= UINT32_MAX && v->nlo && hi > v->nlo) /* every hi one not */
		hi = v->nlo;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (val_at(v, mid) < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* metric_hist() of sorted values, by 64 binary searches instead of a pass
 * (and a division) per value: slot k ends where v / divisor reaches
 * 2^(k+1), that is v >= 2^(k+1) * divisor. */
static void hist_sorted(const struct metric *m, const struct sorted_vals *v,
			uint64_t divisor, struct log2_hist *h)
{
	size_t start = 0;

	memset(h, 0, sizeof(*h));
	h->max_slot = -1;
	for (int k = 0; k < LOG2_SLOTS && start < v->n; k++) {
		uint64_t bound;
		size_t end;

		if (k + 1 >= 64 || __builtin_mul_overflow(2ull << k, divisor, &bound))
			end = v->n;
		else
			end = lower_bound(v, start, bound);
		h->slot[k] = end - start;
		if (end > start)
			h->max_slot = k;
		start = end;
	}
	add_agg_buckets(m, divisor, h);
}

int metric_finish(struct metric *m)
{
	return metric_finish_threads(m, 1);
}

int metric_finish_threads(struct metric *m, unsigned int threads)
{
	uint64_t *c = NULL;
	size_t nv;
	struct sorted_vals v;

	if (m->finished)
		return 0;
	/* more than it keeps as such (the last adds, before its array was
	 * full): in buckets, as though each add had asked */
	if (!m->sk && !m->keep_time && m->n > m->exact_max && to_sketch(m))
		return -ENOMEM;
	if (m->sk) {
		memset(&m->st, 0, sizeof(m->st));
		m->finished = true;
		m->st.count = m->n;
		m->st.min = m->sk->min;
		m->st.max = m->sk->max;
		m->st.avg = (double)m->sum / m->n;
		m->st.p50 = sketch_pct(m, 0.50);
		m->st.p90 = sketch_pct(m, 0.90);
		m->st.p99 = sketch_pct(m, 0.99);
		m->st.p999 = sketch_pct(m, 0.999);
		/* buckets of one value each, below: exact */
		if (m->sk->max >= 2 * METRIC_SUBS)
			m->st.rel_err = METRIC_REL_ERR;
		m->hist = m->sk->hist;
		m->hist_k = m->sk->hist_k;
		add_agg_buckets(m, 1, &m->hist);
		add_agg_buckets(m, 1000, &m->hist_k);
		return 0;
	}
	if (gather(m))
		return -ENOMEM;
	nv = nr_v(m);
	v = (struct sorted_vals){m->v32, m->n32, m->v, m->n};
	m->finished = true;
	if (nv && !m->sorted && m->keep_time) {
		/* keep the series order: statistics from a sorted copy */
		c = malloc(nv * sizeof(*c));
		if (!c)
			return -ENOMEM;
		memcpy(c, m->v, nv * sizeof(*c));
		if (psort_u64(c, nv, threads)) {
			free(c);
			return -ENOMEM;
		}
		v.hi = c;
	} else if (m->n && !m->sorted) {
		if (psort_u64(m->v, nv, threads) || psort_u32(m->v32, m->n32, threads))
			return -ENOMEM;
		m->sorted = true;
	}
	memset(&m->st, 0, sizeof(m->st));
	if (!m->n && m->agg_n) {
		hist_stats(m, &m->st);
	} else if (m->n) {
		m->st.count = m->n;
		m->st.min = val_at(&v, 0);
		m->st.max = val_at(&v, m->n - 1);
		m->st.avg = (double)m->sum / m->n;
		m->st.p50 = pct(&v, 0.50);
		m->st.p90 = pct(&v, 0.90);
		m->st.p99 = pct(&v, 0.99);
		m->st.p999 = pct(&v, 0.999);
	}
	hist_sorted(m, &v, 1, &m->hist);
	hist_sorted(m, &v, 1000, &m->hist_k);
	free(c);
	return 0;
}

void metric_drop_values(struct metric *m)
{
	if (!m->finished || m->keep_time)
		return;
	let_go_values(m, true);
}

void metric_release(struct metric *m)
{
	runs_release(&m->r32);
	runs_release(&m->r64);
	free(m->v);
	free(m->t);
	free(m->sv);
	free(m->v32);
	sketch_free(m->sk);
	memset(m, 0, sizeof(*m));
}
