// SPDX-License-Identifier: GPL-2.0
/* Radix sort, nearest-rank percentiles, log2 histogram edges, merges,
 * buckets past exact_max. */
#include <stdlib.h>
#include <string.h>

#include "analyze/metric.h"
#include "helpers.h"

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static int cmp32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static void radix_matches_qsort(void **state)
{
	size_t sizes[] = {0, 1, 2, 63, 64, 1000, 100000};

	srand(2);
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		size_t n = sizes[s];
		uint64_t *a = malloc((n + 1) * 8), *b = malloc((n + 1) * 8);

		for (size_t i = 0; i < n; i++) {
			/* a mix of small latencies and huge values */
			a[i] = (i % 7) ? (uint64_t)rand() % 100000
				       : ((uint64_t)rand() << 33) ^ rand();
			b[i] = a[i];
		}
		assert_int_equal(sort_u64(a, n), 0);
		qsort(b, n, 8, cmp);
		assert_memory_equal(a, b, n * 8);
		free(a);
		free(b);
	}
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		size_t n = sizes[s];
		uint32_t *a = malloc((n + 1) * 4), *b = malloc((n + 1) * 4);

		for (size_t i = 0; i < n; i++) /* low digits alike, high ones not */
			a[i] = b[i] = (i % 3) ? (uint32_t)rand() % 1000
					      : (uint32_t)rand() << 16 | 5;
		assert_int_equal(sort_u32(a, n), 0);
		qsort(b, n, 4, cmp32);
		assert_memory_equal(a, b, n * 4);
		free(a);
		free(b);
	}
}

/* Sorted on threads (a million values or more in an array): the same values, the
 * same statistics and histograms as on one thread; with 3 threads the
 * slices are uneven, and the values below 2^32 (v32) and above (v) both
 * take passes (digits that differ in some value). */
static void threads_same_as_one(void **state)
{
	const size_t n = (3u << 20) + 12345;
	struct metric one, many;
	uint64_t seed = 9;

	metric_init(&one, "s", "m", "ns", false);
	metric_init(&many, "s", "m", "ns", false);
	one.exact_max = many.exact_max = SIZE_MAX; /* the values kept, to sort */
	for (size_t i = 0; i < n; i++) {
		uint64_t v;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		v = i % 2 ? seed >> 40 : seed >> 8; /* 24 bits; 56 bits */
		assert_int_equal(metric_add(&one, 0, v), 0);
		assert_int_equal(metric_add(&many, 0, v), 0);
	}
	/* each array large enough for threads (METRIC_THREADS_MIN) */
	assert_true(one.n32 > (1u << 20) && one.n - one.n32 > (1u << 20));
	assert_int_equal(metric_finish_threads(&one, 1), 0);
	assert_int_equal(metric_finish_threads(&many, 3), 0);
	assert_memory_equal(&one.st, &many.st, sizeof(one.st));
	assert_memory_equal(&one.hist, &many.hist, sizeof(one.hist));
	assert_memory_equal(&one.hist_k, &many.hist_k, sizeof(one.hist_k));
	assert_memory_equal(one.v32, many.v32, one.n32 * sizeof(*one.v32));
	assert_memory_equal(one.v, many.v, (one.n - one.n32) * sizeof(*one.v));
	for (size_t i = 1; i < many.n32; i++)
		assert_true(many.v32[i - 1] <= many.v32[i]);
	metric_release(&one);
	metric_release(&many);
}

static void percentiles(void **state)
{
	struct metric m;
	struct metric_stats s;

	metric_init(&m, "x", "q2c", "ns", false);
	for (uint64_t v = 1000; v >= 1; v--) /* 1..1000, reversed */
		assert_int_equal(metric_add(&m, 0, v), 0);
	metric_stats(&m, &s);
	assert_int_equal(s.count, 1000);
	assert_int_equal(s.min, 1);
	assert_int_equal(s.max, 1000);
	assert_int_equal(s.p50, 500);
	assert_int_equal(s.p90, 900);
	assert_int_equal(s.p99, 990);
	assert_int_equal(s.p999, 999);
	assert_true(s.avg > 500.49 && s.avg < 500.51);
	metric_release(&m);
}

static void percentiles_keep_series_order(void **state)
{
	struct metric m;
	struct metric_stats s;

	metric_init(&m, "x", "q2c", "ns", true);
	metric_add(&m, 10, 30);
	metric_add(&m, 20, 10);
	metric_add(&m, 30, 20);
	metric_stats(&m, &s);
	assert_int_equal(s.p50, 20);
	/* the series still pairs time 10 with 30 */
	assert_int_equal(m.t[0], 10);
	assert_int_equal(m.v[0], 30);
	metric_release(&m);
}

static void hist_edges(void **state)
{
	struct metric m;
	struct log2_hist h;
	const uint64_t v[] = {0, 1, 2, 3, 4, 7, 8, 1023, 1024};

	metric_init(&m, "x", "q2c", "ns", false);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		metric_add(&m, 0, v[i]);
	metric_hist(&m, 1, &h);
	assert_int_equal(h.slot[0], 2);	 /* 0 and 1: "0 -> 1" */
	assert_int_equal(h.slot[1], 2);	 /* 2, 3 */
	assert_int_equal(h.slot[2], 2);	 /* 4, 7 */
	assert_int_equal(h.slot[3], 1);	 /* 8 */
	assert_int_equal(h.slot[9], 1);	 /* 1023 */
	assert_int_equal(h.slot[10], 1); /* 1024 */
	assert_int_equal(h.max_slot, 10);
	metric_hist(&m, 1000, &h); /* in microseconds */
	assert_int_equal(h.slot[0], 9);
	assert_int_equal(h.max_slot, 0);
	metric_release(&m);
}

/* metric_finish()'s histograms (binary searches over the sorted values)
 * equal metric_hist()'s pass over every value, with and without kept
 * times, for values around every bucket edge of both divisors, and with
 * in-kernel buckets added */
static void finish_matches_hist(void **state)
{
	for (int keep = 0; keep < 2; keep++) {
		struct metric m, ref;
		struct log2_hist h1, hk;
		uint64_t buckets[64] = {0};
		uint64_t x = 88172645463325252ull;
		uint64_t vals[64 * 4 + 5001], *sorted;
		size_t nv = 0;

		for (int k = 0; k < 64; k++) {
			uint64_t e = 1ull << k;

			vals[nv++] = e - 1;
			vals[nv++] = e;
			vals[nv++] = e * 1000 - 1;
			vals[nv++] = e * 1000;
		}
		for (int i = 0; i < 5000; i++) { /* xorshift: values of every size */
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			vals[nv++] = x >> (x & 63);
		}
		vals[nv++] = UINT64_MAX;
		metric_init(&m, "s", "q2c", "ns", keep);
		for (size_t i = 0; i < nv; i++)
			metric_add(&m, i, vals[i]);
		buckets[3] = 5;
		buckets[40] = 2;
		metric_add_hist(&m, buckets, 100);
		/* the reference: the same values, hist by a pass */
		metric_init(&ref, "s", "q2c", "ns", false);
		assert_int_equal(metric_add_all(&ref, &m), 0);
		assert_int_equal(ref.n, nv);
		assert_int_equal(ref.agg_n, 7);
		metric_hist(&ref, 1, &h1);
		metric_hist(&ref, 1000, &hk);
		assert_int_equal(metric_finish(&m), 0);
		assert_int_equal(m.hist.max_slot, h1.max_slot);
		assert_int_equal(m.hist_k.max_slot, hk.max_slot);
		assert_memory_equal(m.hist.slot, h1.slot, sizeof(h1.slot));
		assert_memory_equal(m.hist_k.slot, hk.slot, sizeof(hk.slot));
		assert_int_equal(m.st.count, m.n);
		assert_int_equal(m.st.max, UINT64_MAX);
		if (keep) /* the series keeps its order */
			assert_int_equal(m.v[m.n - 1], UINT64_MAX);
		/* the order statistics, against a sort of every value */
		sorted = malloc(sizeof(vals));
		memcpy(sorted, vals, sizeof(vals));
		qsort(sorted, nv, 8, cmp);
		assert_int_equal(m.st.min, sorted[0]);
		assert_int_equal(m.st.p50, sorted[(nv + 1) / 2 - 1]);
		assert_int_equal(m.st.p99, sorted[(size_t)(0.99 * nv + 0.999999999) - 1]);
		assert_int_equal(m.st.p999,
				 sorted[(size_t)(0.999 * nv + 0.999999999) - 1]);
		free(sorted);
		metric_release(&m);
		metric_release(&ref);
	}
}

/* metric_take: the values of parts, taken whole, as if added to one
 * metric (the whole's own among them, before, between and after); a
 * part is left empty; a metric holding taken runs is read by
 * metric_hist and metric_add_all as it is, and finished like the one;
 * kept times are copied, as metric_append does. */
static void take_same_as_one(void **state)
{
	uint64_t x = 88172645463325252ull;
	struct metric one, whole, part, sum;
	struct log2_hist h1, h2;
	uint64_t buckets[64] = {0};

	metric_init(&one, "s", "q2c", "ns", false);
	metric_init(&whole, "s", "q2c", "ns", false);
	buckets[7] = 3;
	for (int p = 0; p < 6; p++) {
		/* part 2 is empty; part 4 has in-kernel buckets only */
		int n = p == 2 || p == 4 ? 0 : 3000 + 500 * p;

		metric_init(&part, "s", "q2c", "ns", false);
		for (int i = 0; i < n; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			/* below and above 2^32: v32 and v */
			uint64_t v = i % 5 ? x >> 40 : x >> (x & 31);

			metric_add(&part, 0, v);
			metric_add(&one, 0, v);
		}
		if (p == 4) {
			metric_add_hist(&part, buckets, 700);
			metric_add_hist(&one, buckets, 700);
		}
		assert_int_equal(metric_take(&whole, &part), 0);
		assert_int_equal(part.n, 0);
		assert_int_equal(part.n32, 0);
		assert_null(part.v32);
		metric_release(&part);
		if (p == 1) { /* the whole's own values between parts */
			for (uint64_t v = 1; v < 1u << 20; v = v * 3 + 1) {
				metric_add(&whole, 0, v << 20);
				metric_add(&one, 0, v << 20);
			}
		}
	}
	assert_int_equal(whole.n, one.n);
	assert_int_equal(whole.sum, one.sum);
	assert_true(whole.n_runs > 0);
	/* read with the runs still apart */
	metric_hist(&whole, 1000, &h1);
	metric_hist(&one, 1000, &h2);
	assert_memory_equal(&h1, &h2, sizeof(h1));
	metric_init(&sum, "s", "all", "ns", false);
	assert_int_equal(metric_add_all(&sum, &whole), 0);
	assert_int_equal(sum.n, one.n);
	assert_int_equal(sum.sum, one.sum);
	assert_int_equal(metric_finish(&whole), 0);
	assert_int_equal(metric_finish(&one), 0);
	assert_int_equal(metric_finish(&sum), 0);
	assert_int_equal(whole.n_runs, 0);
	assert_memory_equal(&whole.st, &one.st, sizeof(one.st));
	assert_memory_equal(&whole.hist, &one.hist, sizeof(one.hist));
	assert_memory_equal(&whole.hist_k, &one.hist_k, sizeof(one.hist_k));
	assert_memory_equal(&sum.st.p99, &one.st.p99, sizeof(one.st.p99));
	metric_release(&whole);
	metric_release(&one);
	metric_release(&sum);

	/* kept times: copied, in order */
	metric_init(&whole, "s", "seek", "sectors", true);
	metric_init(&part, "s", "seek", "sectors", true);
	metric_add(&whole, 10, 1);
	metric_add(&part, 20, 2);
	metric_add(&part, 30, 3);
	assert_int_equal(metric_take(&whole, &part), 0);
	assert_int_equal(whole.n, 3);
	assert_int_equal(whole.t[2], 30);
	assert_int_equal(whole.v[1], 2);
	metric_release(&part);
	metric_release(&whole);
}

/* xorshift values of every size from 0 to 2^40, with a run of small ones */
static uint64_t next_value(uint64_t *x, int i)
{
	*x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
	return i % 7 ? (*x >> 24) >> (*x & 31) : *x & 2047;
}

/* Past exact_max values, a metric's buckets: count, sum, min, max and
 * both histograms those of the values; each percentile within
 * METRIC_REL_ERR of the exact one (the nearest rank's value); values
 * below 2048 exact, and then said to be (rel_err 0). */
static void buckets_near_exact(void **state)
{
	for (int small = 0; small < 2; small++) {
		struct metric b, e;
		uint64_t x = 88172645463325252ull;
		const uint64_t *pb[4], *pe[4];

		metric_init(&b, "s", "q2c", "ns", false);
		metric_init(&e, "s", "q2c", "ns", false);
		b.exact_max = 1000;
		e.exact_max = SIZE_MAX;
		for (int i = 0; i < 30000; i++) {
			uint64_t v = next_value(&x, i);

			if (small)
				v &= 2047;
			assert_int_equal(metric_add(&b, 0, v), 0);
			assert_int_equal(metric_add(&e, 0, v), 0);
			if (i == 999)
				assert_null(b.sk); /* 1000 values: kept each */
			if (i == 1024) /* at the latest when the array is full */
				assert_non_null(b.sk);
		}
		/* and one past 2^32, in v where values are kept */
		metric_add(&b, 0, 5ull << 33);
		metric_add(&e, 0, 5ull << 33);
		assert_null(b.v32);
		assert_int_equal(metric_finish(&b), 0);
		assert_int_equal(metric_finish(&e), 0);
		assert_null(e.sk);
		assert_int_equal(b.st.count, e.st.count);
		assert_int_equal(b.sum, e.sum);
		assert_int_equal(b.st.min, e.st.min);
		assert_int_equal(b.st.max, e.st.max);
		assert_true(b.st.avg == e.st.avg);
		assert_memory_equal(&b.hist, &e.hist, sizeof(e.hist));
		assert_memory_equal(&b.hist_k, &e.hist_k, sizeof(e.hist_k));
		pb[0] = &b.st.p50, pb[1] = &b.st.p90, pb[2] = &b.st.p99,
		pb[3] = &b.st.p999;
		pe[0] = &e.st.p50, pe[1] = &e.st.p90, pe[2] = &e.st.p99,
		pe[3] = &e.st.p999;
		for (int k = 0; k < 4; k++) {
			double d = *pb[k] > *pe[k] ? (double)(*pb[k] - *pe[k])
						   : (double)(*pe[k] - *pb[k]);

			if (small && k < 3) /* p999 is the value past 2^32 */
				assert_int_equal(*pb[k], *pe[k]);
			assert_true(d <= *pe[k] * METRIC_REL_ERR);
		}
		assert_true(b.st.rel_err == METRIC_REL_ERR); /* 5 << 33 is large */
		assert_true(e.st.rel_err == 0);
		metric_release(&b);
		metric_release(&e);
	}
	{ /* the extremes, in buckets from the first value */
		static const uint64_t v[] = {0, 1, 2047, 2048, 1ull << 63, UINT64_MAX};
		struct metric m;

		metric_init(&m, "s", "q2c", "ns", false);
		m.exact_max = 0;
		for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
			assert_int_equal(metric_add(&m, 0, v[i]), 0);
		assert_non_null(m.sk);
		assert_int_equal(metric_finish(&m), 0);
		assert_int_equal(m.st.min, 0);
		assert_int_equal(m.st.max, UINT64_MAX);
		assert_int_equal(m.st.p50, 2047); /* rank 3 of 6, a bucket of one */
		assert_true(m.st.p90 >= (1ull << 63) - (1ull << 52)); /* rank 6 */
		assert_int_equal(m.hist.slot[63], 2);
		assert_int_equal(m.hist.slot[11], 1);
		assert_int_equal(m.hist.max_slot, 63);
		metric_release(&m);
	}
}

/* Bucketed or not by the number of values in all, whatever the parts:
 * parts taken (some past exact_max themselves, some not, an empty one),
 * the whole's own values between them, metric_append and metric_add_all
 * give what one metric given every value gives; a total at exact_max
 * stays exact. */
static void buckets_whatever_the_split(void **state)
{
	static const int sizes[] = {300, 0, 2500, 40, 1200, 900};

	for (int total_small = 0; total_small < 2; total_small++) {
		struct metric one, whole, part, app, all;
		uint64_t x = 2463534242ull;
		size_t max = total_small ? 4940 + 100 : 1000;

		metric_init(&one, "s", "q2c", "ns", false);
		metric_init(&whole, "s", "q2c", "ns", false);
		metric_init(&app, "s", "q2c", "ns", false);
		one.exact_max = whole.exact_max = app.exact_max = max;
		for (int p = 0; p < 6; p++) {
			metric_init(&part, "s", "q2c", "ns", false);
			part.exact_max = max;
			for (int i = 0; i < sizes[p]; i++) {
				uint64_t v = next_value(&x, i);

				metric_add(&part, 0, v);
				metric_add(&one, 0, v);
			}
			/* (its array full past exact_max: 1024 values) */
			assert_int_equal(sizes[p] > 1024 && !total_small,
					 part.sk != NULL);
			assert_int_equal(metric_append(&app, &part), 0);
			assert_int_equal(metric_take(&whole, &part), 0);
			assert_int_equal(part.n, 0);
			metric_release(&part);
			if (p == 3)
				for (int i = 0; i < 100; i++) {
					metric_add(&whole, 0, 3000 + i);
					metric_add(&app, 0, 3000 + i);
					metric_add(&one, 0, 3000 + i);
				}
		}
		metric_init(&all, "s", "q2c", "ns", false);
		all.exact_max = max;
		assert_int_equal(metric_add_all(&all, &whole), 0);
		assert_int_equal(metric_finish(&one), 0);
		assert_int_equal(metric_finish(&whole), 0);
		assert_int_equal(metric_finish(&app), 0);
		assert_int_equal(metric_finish(&all), 0);
		assert_int_equal(one.n, 5040);
		assert_int_equal(one.sk == NULL, total_small);
		assert_memory_equal(&whole.st, &one.st, sizeof(one.st));
		assert_memory_equal(&app.st, &one.st, sizeof(one.st));
		assert_memory_equal(&all.st, &one.st, sizeof(one.st));
		assert_memory_equal(&whole.hist_k, &one.hist_k, sizeof(one.hist_k));
		assert_memory_equal(&all.hist, &one.hist, sizeof(one.hist));
		metric_drop_values(&whole);
		assert_null(whole.sk);
		metric_release(&one);
		metric_release(&whole);
		metric_release(&app);
		metric_release(&all);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(radix_matches_qsort),
	    cmocka_unit_test(threads_same_as_one),
	    cmocka_unit_test(finish_matches_hist),
	    cmocka_unit_test(percentiles),
	    cmocka_unit_test(percentiles_keep_series_order),
	    cmocka_unit_test(hist_edges),
	    cmocka_unit_test(take_same_as_one),
	    cmocka_unit_test(buckets_near_exact),
	    cmocka_unit_test(buckets_whatever_the_split),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
