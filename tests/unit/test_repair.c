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
	repair_order(s, RE_COMPLETE);
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
		assert_int_equal(
		    repair_estimate(&s, RE_COMPLETE, (enum repair_method)m, est), 0);
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
	repair_estimate(&s, RE_COMPLETE, RM_EVIDENCE, est);
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
	assert_int_equal(repair_estimate(&s, RE_COMPLETE, RM_EVIDENCE, est), 0);
	for (int i = 200; i <= 202; i++)
		assert_int_equal(est[i], s.r[i].c_ns);
	s.r[200].missing = s.r[201].missing = s.r[202].missing = false;
	/* and in the evaluation, uniform and in bursts */
	for (int burst = 0; burst < 2; burst++) {
		assert_int_equal(
		    repair_evaluate(&s, RE_COMPLETE, 0.1, burst, 7, RM_EVIDENCE, &ev), 0);
		assert_int_equal(
		    repair_evaluate(&s, RE_COMPLETE, 0.1, burst, 7, RM_KNN, &knn), 0);
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
	assert_int_equal(repair_estimate(&s, RE_COMPLETE, RM_EVIDENCE, est), 10);
	assert_int_equal(repair_estimate(&s, RE_COMPLETE, RM_KNN, est), 10);
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
	assert_int_equal(repair_evaluate(&s, RE_COMPLETE, 0.2, false, 3, RM_ZERO, &a), 0);
	assert_int_equal(repair_evaluate(&s, RE_COMPLETE, 0.2, false, 3, RM_MEAN, &b), 0);
	assert_int_equal(repair_evaluate(&s, RE_COMPLETE, 0.2, false, 4, RM_MEAN, &c), 0);
	assert_int_equal(a.hidden, b.hidden);
	assert_true(a.hidden > 150 && a.hidden < 250);
	assert_float_equal(a.mae_ns, 3000, 1e-9); /* zero: D2C off */
	assert_float_equal(b.mae_ns, 0, 1e-9);
	for (size_t i = 0; i < s.n; i++)
		assert_false(s.r[i].missing);
	repair_set_release(&s);
}

/* n requests with every time: the syscall entered 5 us before the Q, the
 * G 1 us after it, the I 2 us after it, the D 2.5 us after it */
static void full_table(struct repair_set *s, size_t n)
{
	table(s, n, 10000, 3000);
	for (size_t i = 0; i < n; i++) {
		struct rreq *q = &s->r[i];

		q->q_ns = q->d_ns - 2500;
		q->enter_ns = q->q_ns - 5000;
		q->g_ns = q->q_ns + 1000;
		q->i_ns = q->q_ns + 2000;
		q->bio = 0x9000 + i;
	}
}

/* a lost issue and a lost queueing on a steady device: found exactly by
 * every method but zero, which puts a D at its I and a Q just before its G */
static void steady_issue_and_queue(void **state)
{
	struct repair_set s;
	uint64_t est[200];

	(void)state;
	full_table(&s, 200);
	s.r[100].miss_d = true;
	repair_order(&s, RE_ISSUE);
	for (int m = 0; m < NR_RM; m++) {
		assert_int_equal(
		    repair_estimate(&s, RE_ISSUE, (enum repair_method)m, est), 0);
		assert_int_equal(est[99], 0);
		assert_int_equal(est[100],
				 m == RM_ZERO ? s.r[100].i_ns + 1 : s.r[100].d_ns);
	}
	s.r[100].miss_d = false;
	s.r[100].miss_q = true;
	repair_order(&s, RE_QUEUE);
	for (int m = 0; m < NR_RM; m++) {
		assert_int_equal(
		    repair_estimate(&s, RE_QUEUE, (enum repair_method)m, est), 0);
		assert_int_equal(est[100],
				 m == RM_ZERO ? s.r[100].g_ns - 1 : s.r[100].q_ns);
	}
	repair_set_release(&s);
}

/* an issue lies after its I and after the completion before of the same
 * struct request, and before its C, whatever the neighbours say */
static void issue_bounds(void **state)
{
	struct repair_set s;
	uint64_t est[100];

	(void)state;
	full_table(&s, 100);
	s.r[50].miss_d = true;
	s.r[50].i_ns = s.r[50].q_ns + 100;
	s.r[50].prev_c_ns = s.r[50].c_ns - 10; /* the address freed just now */
	repair_order(&s, RE_ISSUE);
	repair_estimate(&s, RE_ISSUE, RM_EVIDENCE, est);
	assert_true(est[50] > s.r[50].prev_c_ns && est[50] < s.r[50].c_ns);
	repair_set_release(&s);
}

/* a queueing whose syscall entered long before (preempted between its
 * enter and the Q): on this device the enter is the better anchor (its
 * stage is steady, the Q to G one jitters), but here the G, nearest,
 * decides */
static void queue_after_preemption(void **state)
{
	struct repair_set s;
	uint64_t est[300];

	(void)state;
	full_table(&s, 300);
	for (size_t i = 0; i < s.n; i++) { /* every stage after the Q jitters */
		s.r[i].q_ns -= (i * 7 % 11) * 100;
		s.r[i].enter_ns = s.r[i].q_ns - 5000;
		s.r[i].g_ns = s.r[i].q_ns + 1000 + (i * 5 % 13) * 100;
		s.r[i].i_ns = s.r[i].g_ns + 1000 + (i * 3 % 7) * 100;
	}
	s.r[150].miss_q = true;
	s.r[150].enter_ns -= 200000;
	repair_order(&s, RE_QUEUE);
	repair_estimate(&s, RE_QUEUE, RM_EVIDENCE, est);
	assert_true(est[150] + 1000 > s.r[150].q_ns && est[150] < s.r[150].q_ns + 1000);
	/* its neighbour, not preempted, from its enter: exactly */
	s.r[150].miss_q = false;
	s.r[150].enter_ns += 200000;
	s.r[151].miss_q = true;
	repair_estimate(&s, RE_QUEUE, RM_EVIDENCE, est);
	assert_int_equal(est[151], s.r[151].q_ns);
	repair_set_release(&s);
}

/* a bio-based device has no issue to hide; the evaluation of issues and
 * queueings leaves the table as it was */
static void evaluate_events(void **state)
{
	struct repair_set s;
	struct repair_eval a, b;

	(void)state;
	full_table(&s, 1000);
	assert_int_equal(repair_hideable(&s, RE_ISSUE), 1000);
	assert_int_equal(repair_evaluate(&s, RE_ISSUE, 0.1, true, 5, RM_ZERO, &a), 0);
	assert_int_equal(repair_evaluate(&s, RE_ISSUE, 0.1, true, 5, RM_EVIDENCE, &b), 0);
	assert_true(a.hidden > 50 && a.hidden == b.hidden && b.refused == 0);
	assert_float_equal(a.mae_ns, 499, 1e-9); /* zero: the D at I + 1 */
	assert_float_equal(b.mae_ns, 0, 1e-9);
	assert_int_equal(repair_evaluate(&s, RE_QUEUE, 0.2, false, 5, RM_KNN, &a), 0);
	assert_true(a.hidden > 100 && a.estimated == a.hidden);
	assert_float_equal(a.mae_ns, 0, 1e-9);
	for (size_t i = 0; i < s.n; i++) {
		assert_false(s.r[i].miss_d || s.r[i].miss_q || s.r[i].missing);
		s.r[i].bio_based = true;
	}
	assert_int_equal(repair_hideable(&s, RE_ISSUE), 0);
	assert_int_equal(repair_hideable(&s, RE_QUEUE), 1000);
	repair_set_release(&s);
}

/* n preads of one task, entered every 20 us, each 10 us long, its I/O
 * done 2 us before its exit */
static void sys_table(struct repair_set *s, size_t n)
{
	memset(s, 0, sizeof(*s));
	s->sys = calloc(n, sizeof(*s->sys));
	assert_non_null(s->sys);
	s->nsys = s->capsys = n;
	for (size_t i = 0; i < n; i++) {
		struct rsys *y = &s->sys[i];

		y->tid = 42;
		y->nr = 17;
		y->count = 4096;
		y->enter_ns = 1000000 + i * 20000;
		y->exit_ns = y->enter_ns + 10000;
		y->last_c_ns = y->exit_ns - 2000;
	}
	s->end_ns = s->sys[n - 1].exit_ns + 1000;
	repair_order(s, RE_EXIT);
}

/* a lost exit: found exactly but by zero (just after its I/O), and never
 * at or after the task's next enter */
static void lost_exit(void **state)
{
	struct repair_set s;
	uint64_t est[100];

	(void)state;
	sys_table(&s, 100);
	s.sys[50].missing = true;
	s.sys[50].next_ns = s.sys[51].enter_ns;
	for (int m = 0; m < NR_RM; m++) {
		assert_int_equal(repair_estimate(&s, RE_EXIT, (enum repair_method)m, est),
				 0);
		assert_int_equal(est[49], 0);
		assert_int_equal(est[50], m == RM_ZERO ? s.sys[50].last_c_ns + 1
						       : s.sys[50].exit_ns);
	}
	s.sys[50].next_ns = s.sys[50].enter_ns + 5000; /* entered again 5 us in */
	s.sys[50].last_c_ns = 0;
	repair_estimate(&s, RE_EXIT, RM_EVIDENCE, est);
	assert_int_equal(est[50], s.sys[50].next_ns - 1);
	repair_set_release(&s);
}

/* a number with no exit left: refused; the evaluation of exits hides
 * calls and puts them back */
static void exits_refused_and_evaluated(void **state)
{
	struct repair_set s;
	struct repair_eval e;
	uint64_t est[10];

	(void)state;
	sys_table(&s, 10);
	for (int i = 0; i < 10; i++)
		s.sys[i].missing = true;
	assert_int_equal(repair_estimate(&s, RE_EXIT, RM_EVIDENCE, est), 10);
	assert_int_equal(repair_estimate(&s, RE_EXIT, RM_ZERO, est), 0);
	repair_set_release(&s);
	sys_table(&s, 1000);
	assert_int_equal(repair_hideable(&s, RE_EXIT), 1000);
	assert_int_equal(repair_evaluate(&s, RE_EXIT, 0.1, false, 9, RM_EVIDENCE, &e), 0);
	assert_true(e.hidden > 50 && e.estimated == e.hidden);
	assert_float_equal(e.mae_ns, 0, 1e-9);
	assert_int_equal(repair_hideable(&s, RE_EXIT), 1000);
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
	    cmocka_unit_test(steady_issue_and_queue),
	    cmocka_unit_test(issue_bounds),
	    cmocka_unit_test(queue_after_preemption),
	    cmocka_unit_test(evaluate_events),
	    cmocka_unit_test(lost_exit),
	    cmocka_unit_test(exits_refused_and_evaluated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
