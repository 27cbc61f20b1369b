// SPDX-License-Identifier: GPL-2.0
/* iotrail repair's methods on request tables with known answers
 * (src/repair/). */
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "repair/repair.h"

/* n requests on one device, issued every gap_ns, each d2c_ns at the
 * device, reads of 8 sectors */
static void table(struct repair_set *s, size_t n, uint64_t gap_ns, uint64_t d2c_ns)
{
	memset(s, 0, sizeof(*s));
	s->r = calloc(n, sizeof(*s->r));
	assert_non_null(s->r);
	s->n = s->cap = n;
	for (size_t i = 0; i < n; i++) {
		s->r[i].rq = 0x1000 + i;
		s->r[i].dev = 7u << 20;
		s->r[i].nr = 8;
		s->r[i].d_ns = 1000000 + i * gap_ns;
		s->r[i].c_ns = s->r[i].d_ns + d2c_ns;
	}
}

/* a steady device: every method but zero finds the time exactly */
static void steady_device(void **state)
{
	struct repair_set s;
	uint64_t est[200];

	(void)state;
	table(&s, 200, 10000, 3000);
	s.r[100].missing = true;
	for (int m = 0; m < NR_RM; m++) {
		assert_int_equal(repair_estimate(&s, (enum repair_method)m, est), 0);
		assert_int_equal(est[99], 0); /* only the missing one */
		assert_int_equal(est[100], m == RM_ZERO ? s.r[100].d_ns : s.r[100].c_ns);
	}
	repair_set_release(&s);
}

/* the next issue of the same struct request bounds the completion */
static void reuse_bounds(void **state)
{
	struct repair_set s;
	uint64_t est[100];

	(void)state;
	table(&s, 100, 10000, 3000);
	s.r[50].missing = true;
	s.r[50].reuse_ns = s.r[50].d_ns + 1000; /* issued again 1 us later */
	repair_estimate(&s, RM_EVIDENCE, est);
	assert_int_equal(est[50], s.r[50].d_ns + 999);
	repair_set_release(&s);
}

/* a queue serving in issue order, backlogged: completions every 5 us
 * while requests arrive every 2 us. The k-NN average of neighbours' D2C
 * is wrong (D2C grows along the backlog); the replay of the queue is not */
static void backlogged_queue(void **state)
{
	struct repair_set s;
	uint64_t est[400], c = 0;
	struct repair_eval ev, knn;

	(void)state;
	table(&s, 400, 2000, 0);
	for (size_t i = 0; i < s.n; i++) {
		c = (s.r[i].d_ns > c ? s.r[i].d_ns : c) + 5000;
		s.r[i].c_ns = c;
	}
	s.r[200].missing = s.r[201].missing = s.r[202].missing = true;
	assert_int_equal(repair_estimate(&s, RM_EVIDENCE, est), 0);
	for (int i = 200; i <= 202; i++)
		assert_int_equal(est[i], s.r[i].c_ns);
	s.r[200].missing = s.r[201].missing = s.r[202].missing = false;
	/* and in the evaluation, uniform and in bursts */
	for (int burst = 0; burst < 2; burst++) {
		assert_int_equal(repair_evaluate(&s, 0.1, burst, 7, RM_EVIDENCE, &ev), 0);
		assert_int_equal(repair_evaluate(&s, 0.1, burst, 7, RM_KNN, &knn), 0);
		assert_true(ev.hidden > 0 && ev.hidden == knn.hidden);
		/* (the first and last requests have no completion on one
		 * side: those fall back to the neighbours' median) */
		assert_true(ev.mae_ns < knn.mae_ns / 4);
	}
	repair_set_release(&s);
}

/* nothing known on the device: refused, not invented */
static void nothing_known(void **state)
{
	struct repair_set s;
	uint64_t est[10];

	(void)state;
	table(&s, 10, 10000, 3000);
	for (int i = 0; i < 10; i++)
		s.r[i].missing = true;
	assert_int_equal(repair_estimate(&s, RM_EVIDENCE, est), 10);
	assert_int_equal(repair_estimate(&s, RM_KNN, est), 10);
	for (int i = 0; i < 10; i++)
		assert_int_equal(est[i], 0);
	repair_set_release(&s);
}

/* the seed decides which are hidden, the same for every method, and the
 * table comes back as it was */
static void evaluation_is_repeatable(void **state)
{
	struct repair_set s;
	struct repair_eval a, b, c;

	(void)state;
	table(&s, 1000, 10000, 3000);
	assert_int_equal(repair_evaluate(&s, 0.2, false, 3, RM_ZERO, &a), 0);
	assert_int_equal(repair_evaluate(&s, 0.2, false, 3, RM_MEAN, &b), 0);
	assert_int_equal(repair_evaluate(&s, 0.2, false, 4, RM_MEAN, &c), 0);
	assert_int_equal(a.hidden, b.hidden);
	assert_true(a.hidden > 150 && a.hidden < 250);
	assert_float_equal(a.mae_ns, 3000, 1e-9); /* zero: D2C off */
	assert_float_equal(b.mae_ns, 0, 1e-9);
	for (size_t i = 0; i < s.n; i++)
		assert_false(s.r[i].missing);
	repair_set_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(steady_device),
	    cmocka_unit_test(reuse_bounds),
	    cmocka_unit_test(backlogged_queue),
	    cmocka_unit_test(nothing_known),
	    cmocka_unit_test(evaluation_is_repeatable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
