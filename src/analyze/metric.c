// SPDX-License-Identifier: GPL-2.0
/* Sample sets, order statistics and log2 histograms. */
#include "metric.h"
#include "../util/grow.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void metric_init(struct metric *m, const char *scope, const char *name, const char *unit,
		 bool keep_time)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->scope, sizeof(m->scope), "%s", scope);
	snprintf(m->name, sizeof(m->name), "%s", name);
	m->unit = unit;
	m->keep_time = keep_time;
}

int metric_add(struct metric *m, uint64_t t, uint64_t v)
{
	if (m->n == m->cap) {
		size_t cap = m->cap, cap_t = m->cap;

		if (GROW(m->v, m->n + 1, cap) ||
		    (m->keep_time && GROW(m->t, m->n + 1, cap_t)))
			return -ENOMEM;
		m->cap = cap;
	}
	if (m->keep_time)
		m->t[m->n] = t;
	m->v[m->n++] = v;
	m->sum += v;
	m->sorted = false;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

int sort_u64(uint64_t *v, size_t n)
{
	uint64_t *tmp, *src = v, *dst, or_all = 0, and_all = ~0ull;
	size_t count[65536];

	if (n < 2)
		return 0;
	if (n < 64) { /* insertion sort */
		for (size_t i = 1; i < n; i++) {
			uint64_t x = v[i];
			size_t k = i;

			while (k && v[k - 1] > x) {
				v[k] = v[k - 1];
				k--;
			}
			v[k] = x;
		}
		return 0;
	}
	if (n < 8192) { /* 16-bit radix passes clear 512 KB each: too much here */
		qsort(v, n, sizeof(*v), cmp_u64);
		return 0;
	}
	tmp = malloc(n * sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	dst = tmp;
	for (size_t i = 0; i < n; i++) {
		or_all |= v[i];
		and_all &= v[i];
	}
	for (int shift = 0; shift < 64; shift += 16) {
		uint64_t digit_mask = 0xffffull << shift;
		size_t sum = 0;

		/* every value has the same digit here: nothing to do */
		if ((or_all & digit_mask) == (and_all & digit_mask))
			continue;
		memset(count, 0, sizeof(count));
		for (size_t i = 0; i < n; i++)
			count[(src[i] >> shift) & 0xffff]++;
		for (size_t d = 0; d < 65536; d++) {
			size_t c = count[d];

			count[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			dst[count[(src[i] >> shift) & 0xffff]++] = src[i];
		uint64_t *x = src;

		src = dst;
		dst = x;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
	free(tmp);
	return 0;
}

static uint64_t pct(const uint64_t *v, size_t n, double p)
{
	/* nearest rank: the smallest value with at least p of the samples
	 * at or below it */
	size_t k = (size_t)((p * n) + 0.999999999);

	if (k < 1)
		k = 1;
	if (k > n)
		k = n;
	return v[k - 1];
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

void metric_hist(const struct metric *m, uint64_t divisor, struct log2_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->max_slot = -1;
	for (size_t i = 0; i < m->n; i++) {
		uint64_t x = m->v[i] / (divisor ? divisor : 1);
		int k = x ? 63 - __builtin_clzll(x) : 0;

		h->slot[k]++;
		if (k > h->max_slot)
			h->max_slot = k;
	}
	add_agg_buckets(m, divisor, h);
}

/* first index of sorted v[0..n) with v >= x */
static size_t lower_bound(const uint64_t *v, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* metric_hist() of sorted values, by 64 binary searches instead of a pass
 * (and a division) per value: slot k ends where v / divisor reaches
 * 2^(k+1), that is v >= 2^(k+1) * divisor. */
static void hist_sorted(const struct metric *m, const uint64_t *v, uint64_t divisor,
			struct log2_hist *h)
{
	size_t start = 0;

	memset(h, 0, sizeof(*h));
	h->max_slot = -1;
	for (int k = 0; k < LOG2_SLOTS && start < m->n; k++) {
		uint64_t bound;
		size_t end;

		if (k + 1 >= 64 || __builtin_mul_overflow(2ull << k, divisor, &bound))
			end = m->n;
		else
			end = lower_bound(v + start, m->n - start, bound) + start;
		h->slot[k] = end - start;
		if (end > start)
			h->max_slot = k;
		start = end;
	}
	add_agg_buckets(m, divisor, h);
}

int metric_finish(struct metric *m)
{
	uint64_t *c = NULL;
	const uint64_t *v = m->v;

	if (m->finished)
		return 0;
	m->finished = true;
	if (m->n && !m->sorted && m->keep_time) {
		/* keep the series order: statistics from a sorted copy */
		c = malloc(m->n * sizeof(*c));
		if (!c)
			return -ENOMEM;
		memcpy(c, m->v, m->n * sizeof(*c));
		if (sort_u64(c, m->n)) {
			free(c);
			return -ENOMEM;
		}
		v = c;
	} else if (m->n && !m->sorted) {
		if (sort_u64(m->v, m->n))
			return -ENOMEM;
		m->sorted = true;
	}
	memset(&m->st, 0, sizeof(m->st));
	if (!m->n && m->agg_n) {
		hist_stats(m, &m->st);
	} else if (m->n) {
		m->st.count = m->n;
		m->st.min = v[0];
		m->st.max = v[m->n - 1];
		m->st.avg = (double)m->sum / m->n;
		m->st.p50 = pct(v, m->n, 0.50);
		m->st.p90 = pct(v, m->n, 0.90);
		m->st.p99 = pct(v, m->n, 0.99);
		m->st.p999 = pct(v, m->n, 0.999);
	}
	hist_sorted(m, v, 1, &m->hist);
	hist_sorted(m, v, 1000, &m->hist_k);
	free(c);
	return 0;
}

void metric_release(struct metric *m)
{
	free(m->v);
	free(m->t);
	free(m->sv);
	memset(m, 0, sizeof(*m));
}
