// SPDX-License-Identifier: GPL-2.0
/* Lost-event repair: the request table, the methods, the evaluation
 * (repair.h, docs/REPAIR.md). */
#include "repair.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/grow.h"
#include "../util/u64map.h"

const char *const repair_method_names[NR_RM] = {"zero", "mean", "knn", "evidence"};

int repair_method_find(const char *name)
{
	for (int m = 0; m < NR_RM; m++)
		if (!strcmp(name, repair_method_names[m]))
			return m;
	return -1;
}

/* ---- the scan -----------------------------------------------------------------------
 */

struct qinfo {
	uint64_t q_ns;
	uint32_t tid;
};

struct sysc {
	uint32_t tid, nr;
	uint64_t enter_ns, exit_ns;
};

struct scan {
	struct repair_set *s;
	struct trace_reader *rd;
	struct u64map bio_q;	   /* bio -> index in q */
	struct u64map pending;	   /* struct request -> index in s->r, + 1 */
	struct u64map pending_bio; /* bio-based devices: bio -> index + 1 */
	struct u64map requeue;	   /* struct request -> 1: requeued since its D */
	struct u64map open;	   /* tid -> index in sys */
	struct qinfo *q;
	size_t nq, capq;
	struct sysc *sys;
	size_t nsys, capsys;
};

/* a request's issue (D), or on a bio-based device a bio's queueing (Q):
 * its start at the device, keyed in pending */
static int on_issue(struct scan *sc, const struct iot_rec *r, struct u64map *pending)
{
	struct repair_set *s = sc->s;
	uint32_t *p = u64map_get(pending, r->id), *qi;
	struct rreq *n;

	if (p) {
		struct rreq *old = &s->r[*p - 1];

		if (pending == &sc->pending && u64map_get(&sc->requeue, r->id)) {
			/* the same request again */
			u64map_del(&sc->requeue, r->id);
			old->d_ns = r->ts_ns;
			s->requeued++;
			return 0;
		}
		/* issued again: the completion of the one before was lost */
		old->missing = true;
		old->reuse_ns = r->ts_ns;
		s->lost++;
		u64map_del(pending, r->id);
	}
	if (GROW(s->r, s->n + 1, s->cap))
		return -ENOMEM;
	n = &s->r[s->n++];
	memset(n, 0, sizeof(*n));
	n->rq = r->id;
	n->d_ns = r->ts_ns;
	n->sector = r->sector;
	n->dev = r->dev;
	n->nr = r->nr;
	n->flags = r->flags;
	n->cpu = r->cpu;
	if (pending == &sc->pending_bio) { /* its own queueing */
		n->bio = true;
		n->q_ns = r->ts_ns;
		n->tid = r->tid;
	} else if (r->id2 && (qi = u64map_get(&sc->bio_q, r->id2))) {
		n->q_ns = sc->q[*qi].q_ns;
		n->tid = sc->q[*qi].tid;
	}
	return u64map_put(pending, r->id, (uint32_t)s->n);
}

static void on_complete(struct scan *sc, const struct iot_rec *r, struct u64map *pending)
{
	uint32_t *p = u64map_get(pending, r->id);
	struct rreq *q;

	if (!p) {
		sc->s->orphan_c++;
		return;
	}
	q = &sc->s->r[*p - 1];
	if (pending == &sc->pending && r->nr < (uint32_t)(r->id2 >> 32))
		return; /* part of it: the rest is still at the driver */
	q->c_ns = r->ts_ns;
	u64map_del(pending, r->id);
	u64map_del(&sc->requeue, r->id);
}

static bool bio_based(struct scan *sc, uint32_t dev)
{
	const struct iot_dev_entry *e = trace_reader_dev(sc->rd, dev);

	return e && (e->flags & IOT_DEV_BIO_BASED);
}

static int feed(struct scan *sc, const struct iot_rec *r)
{
	uint32_t *v;

	switch (r->type) {
	case IOT_EV_BIO_QUEUE:
		if (bio_based(sc, r->dev))
			return on_issue(sc, r, &sc->pending_bio);
		if (GROW(sc->q, sc->nq + 1, sc->capq))
			return -ENOMEM;
		sc->q[sc->nq] = (struct qinfo){r->ts_ns, r->tid};
		return u64map_put(&sc->bio_q, r->id, (uint32_t)sc->nq++);
	case IOT_EV_RQ_ISSUE:
		return on_issue(sc, r, &sc->pending);
	case IOT_EV_BIO_COMPLETE:
		on_complete(sc, r, &sc->pending_bio);
		return 0;
	case IOT_EV_RQ_REQUEUE:
		return u64map_get(&sc->pending, r->id)
			   ? u64map_put(&sc->requeue, r->id, 1)
			   : 0;
	case IOT_EV_RQ_COMPLETE:
		on_complete(sc, r, &sc->pending);
		return 0;
	case IOT_EV_SYS_ENTER:
		if (GROW(sc->sys, sc->nsys + 1, sc->capsys))
			return -ENOMEM;
		sc->sys[sc->nsys] =
		    (struct sysc){r->tid, (uint32_t)r->sector, r->ts_ns, 0};
		return u64map_put(&sc->open, r->tid, (uint32_t)sc->nsys++);
	case IOT_EV_SYS_EXIT:
		if ((v = u64map_get(&sc->open, r->tid))) {
			sc->sys[*v].exit_ns = r->ts_ns;
			u64map_del(&sc->open, r->tid);
		}
		return 0;
	default:
		return 0;
	}
}

static int cmp_sys(const void *a, const void *b)
{
	const struct sysc *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->enter_ns > y->enter_ns) - (x->enter_ns < y->enter_ns);
}

static int cmp_req(const void *a, const void *b)
{
	const struct rreq *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return (x->d_ns > y->d_ns) - (x->d_ns < y->d_ns);
}

/* the syscall of tid around t, or NULL */
static const struct sysc *sys_at(const struct sysc *sys, size_t n, uint32_t tid,
				 uint64_t t)
{
	size_t lo = 0, hi = n;

	while (lo < hi) { /* the first (tid, enter) after (tid, t) */
		size_t mid = (lo + hi) / 2;

		if (sys[mid].tid < tid || (sys[mid].tid == tid && sys[mid].enter_ns <= t))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || sys[lo - 1].tid != tid || !sys[lo - 1].exit_ns ||
	    sys[lo - 1].exit_ns < t)
		return NULL;
	return &sys[lo - 1];
}

/*
 * The exit of the syscall a request's first bio was queued in bounds its
 * completion only if that syscall waits for its I/O (pread, write with
 * O_DIRECT, fsync); io_submit and io_uring_enter return first. Which ones
 * wait is read from the trace: a syscall number whose complete requests
 * all completed before its exit (at least 10 of them, 99%).
 */
#define NR_SYSNR 1024
static void link_syscalls(struct scan *sc)
{
	struct repair_set *s = sc->s;
	static uint32_t seen[NR_SYSNR], before[NR_SYSNR];

	memset(seen, 0, sizeof(seen));
	memset(before, 0, sizeof(before));
	if (sc->nsys)
		qsort(sc->sys, sc->nsys, sizeof(*sc->sys), cmp_sys);
	for (size_t i = 0; i < s->n; i++) {
		struct rreq *q = &s->r[i];
		const struct sysc *y;

		if (!q->tid || !q->q_ns ||
		    !(y = sys_at(sc->sys, sc->nsys, q->tid, q->q_ns)))
			continue;
		q->exit_ns = y->exit_ns;
		q->sys_nr = y->nr;
		if (q->c_ns && !q->missing && y->nr < NR_SYSNR) {
			seen[y->nr]++;
			before[y->nr] += q->c_ns <= y->exit_ns;
		}
	}
	for (size_t i = 0; i < s->n; i++) {
		struct rreq *q = &s->r[i];
		uint32_t k = q->sys_nr;

		if (q->exit_ns && (k >= NR_SYSNR || seen[k] < 10 ||
				   (double)before[k] < 0.99 * (double)seen[k]))
			q->exit_ns = 0;
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static uint64_t median(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* how long before the end an unfinished request counts as lost */
static uint64_t in_flight_window(const struct repair_set *s)
{
	uint64_t v[4096], med;
	size_t n = 0, stride = s->n / 4096 + 1;

	for (size_t i = 0; i < s->n && n < 4096; i += stride)
		if (s->r[i].c_ns >= s->r[i].d_ns && s->r[i].c_ns)
			v[n++] = s->r[i].c_ns - s->r[i].d_ns;
	if (!n)
		return 1000000000ull; /* nothing to go by: a second */
	med = median(v, n);
	return med * 100 > 10000000ull ? med * 100 : 10000000ull;
}

int repair_scan(struct trace_reader *rd, struct repair_set *s)
{
	struct scan sc = {.s = s, .rd = rd};
	const struct iot_rec *r;
	uint64_t last = 0, window;
	int err;

	memset(s, 0, sizeof(*s));
	if (u64map_init(&sc.bio_q, 1024) || u64map_init(&sc.pending, 1024) ||
	    u64map_init(&sc.pending_bio, 1024) || u64map_init(&sc.requeue, 64) ||
	    u64map_init(&sc.open, 256)) {
		err = -ENOMEM;
		goto out;
	}
	while ((err = trace_reader_next(rd, &r)) == 1) {
		if (r->flags & IOT_F_ESTIMATED)
			continue; /* an estimate is no evidence */
		last = r->ts_ns > last ? r->ts_ns : last;
		err = feed(&sc, r);
		if (err)
			goto out;
	}
	if (err < 0)
		goto out;
	s->end_ns = rd->has_end && rd->end.end_mono_ns ? rd->end.end_mono_ns : last;
	/* issued and never completed: in flight at the stop, unless issued
	 * long before it, a hundred times the usual D2C (10 ms at least) */
	window = in_flight_window(s);
	for (size_t i = 0; i < s->n; i++) {
		struct rreq *q = &s->r[i];

		if (q->c_ns || q->missing)
			continue;
		if (q->d_ns + window < s->end_ns) {
			q->missing = true;
			s->lost++;
		} else {
			s->in_flight++;
		}
	}
	link_syscalls(&sc);
	if (s->n)
		qsort(s->r, s->n, sizeof(*s->r), cmp_req);
	err = 0;
out:
	u64map_release(&sc.bio_q);
	u64map_release(&sc.pending);
	u64map_release(&sc.pending_bio);
	u64map_release(&sc.requeue);
	u64map_release(&sc.open);
	free(sc.q);
	free(sc.sys);
	return err;
}

void repair_set_release(struct repair_set *s)
{
	free(s->r);
	memset(s, 0, sizeof(*s));
}

/* ---- the methods --------------------------------------------------------------------
 */

#define K_KNN	   5 /* seed 003's neighbours */
#define K_EVIDENCE 8
#define MAX_WALK   4096 /* requests looked at on each side */

/* a request whose D2C is known */
static bool known(const struct rreq *q)
{
	return q->c_ns && !q->missing && q->c_ns >= q->d_ns;
}

typedef bool (*match_fn)(const struct rreq *cand, const struct rreq *q);

static bool any_op(const struct rreq *c, const struct rreq *q)
{
	return true;
}

static bool same_op(const struct rreq *c, const struct rreq *q)
{
	return (c->flags & IOT_OP_MASK) == (q->flags & IOT_OP_MASK);
}

static bool same_op_size(const struct rreq *c, const struct rreq *q)
{
	return same_op(c, q) && c->nr == q->nr;
}

static bool same_wait(const struct rreq *c, const struct rreq *q)
{
	return same_op(c, q) && c->exit_ns && c->sys_nr == q->sys_nr;
}

/*
 * Up to k known requests of q's device nearest q in issue time that match,
 * into out (indexes); how many. hide: the first that many known requests on
 * each side count as missing too (choose() tries a method on runs of
 * missing requests that way).
 */
static size_t nearest(const struct repair_set *s, size_t i, size_t k, match_fn match,
		      size_t hide, size_t *out)
{
	const struct rreq *q = &s->r[i];
	size_t n = 0, l = i, r = i + 1, walked = 0, hl = hide, hr = hide;
	bool lok = true, rok = true;

	while (n < k && walked < 2 * MAX_WALK) {
		const struct rreq *a = NULL, *b = NULL;

		lok = lok && l > 0 && s->r[l - 1].dev == q->dev;
		rok = rok && r < s->n && s->r[r].dev == q->dev;
		if (lok)
			a = &s->r[l - 1];
		if (rok)
			b = &s->r[r];
		if (!a && !b)
			break;
		walked++;
		/* the nearer side first */
		if (a && (!b || q->d_ns - a->d_ns <= b->d_ns - q->d_ns)) {
			l--;
			if (known(a) && (hl ? (hl--, false) : match(a, q)))
				out[n++] = l;
		} else {
			if (known(b) && (hr ? (hr--, false) : match(b, q)))
				out[n++] = r;
			r++;
		}
	}
	return n;
}

/* the (hide + 1)th known request on one side (dir -1 or +1), or NULL;
 * *between: the requests stepped over */
static const struct rreq *known_side(const struct repair_set *s, size_t i, int dir,
				     size_t hide, size_t *between)
{
	size_t j = i;

	*between = 0;
	for (size_t w = 0; w < MAX_WALK; w++) {
		if ((dir < 0 && !j) || (dir > 0 && j + 1 >= s->n))
			return NULL;
		j = dir < 0 ? j - 1 : j + 1;
		if (s->r[j].dev != s->r[i].dev)
			return NULL;
		if (known(&s->r[j]) && !hide--)
			return &s->r[j];
		(*between)++;
	}
	return NULL;
}

/* the mean D2C of each device and operation, over its known requests */
struct mean_tab {
	uint32_t dev;
	uint64_t sum[4], n[4];
};

static uint64_t est_mean(const struct repair_set *s, size_t i, const struct mean_tab *t,
			 size_t nt)
{
	const struct rreq *q = &s->r[i];
	uint32_t op = q->flags & 3;

	for (size_t k = 0; k < nt; k++)
		if (t[k].dev == q->dev && t[k].n[op])
			return q->d_ns + t[k].sum[op] / t[k].n[op];
	return 0;
}

/* seed 003's k-NN moving average: the mean D2C of the k nearest */
static uint64_t est_knn(const struct repair_set *s, size_t i, size_t hide)
{
	size_t idx[K_KNN], n = nearest(s, i, K_KNN, any_op, hide, idx);
	uint64_t sum = 0;

	if (!n)
		return 0;
	for (size_t k = 0; k < n; k++)
		sum += s->r[idx[k]].c_ns - s->r[idx[k]].d_ns;
	return s->r[i].d_ns + sum / n;
}

/*
 * The evidence method: several readings of what the trace holds about a
 * request, and for each device the one that best finds the completions it
 * did see. Each candidate estimates known requests as if they were missing,
 * alone and in runs (the walks start beside the request, so it never sees
 * itself; hide makes more of its neighbours missing too); the one with the
 * least mean error for runs as long as the missing request's wins,
 * separately for requests with a waiting syscall's exit and those without.
 */
enum cand {
	CAND_KNN,    /* the seed's: the mean D2C of the 5 nearest */
	CAND_MEDIAN, /* the median D2C of the 8 nearest of the same operation
			and size (or operation) */
	CAND_EXIT,   /* the syscall's exit minus its neighbours' median gap */
	CAND_BLEND,  /* the mean of MEDIAN and EXIT: two readings whose errors
			are not the same */
	CAND_ORDER,  /* between the known completions before and after, where
			the device completes in issue order */
	CAND_REPLAY, /* the device as a queue that serves in issue order */
	NR_CAND
};

static uint64_t cand_median(const struct repair_set *s, size_t i, size_t hide)
{
	size_t idx[K_EVIDENCE], n = nearest(s, i, K_EVIDENCE, same_op_size, hide, idx);
	uint64_t v[K_EVIDENCE];

	if (n < 3)
		n = nearest(s, i, K_EVIDENCE, same_op, hide, idx);
	if (!n)
		n = nearest(s, i, K_EVIDENCE, any_op, hide, idx);
	if (!n)
		return 0;
	for (size_t k = 0; k < n; k++)
		v[k] = s->r[idx[k]].c_ns - s->r[idx[k]].d_ns;
	return s->r[i].d_ns + median(v, n);
}

static uint64_t cand_exit(const struct repair_set *s, size_t i, size_t hide)
{
	const struct rreq *q = &s->r[i];
	size_t idx[K_EVIDENCE], n;
	uint64_t v[K_EVIDENCE], gap;

	if (!q->exit_ns || !(n = nearest(s, i, K_EVIDENCE, same_wait, hide, idx)))
		return 0;
	for (size_t k = 0; k < n; k++)
		v[k] = s->r[idx[k]].exit_ns - s->r[idx[k]].c_ns;
	gap = median(v, n);
	return q->exit_ns >= gap && q->exit_ns - gap >= q->d_ns ? q->exit_ns - gap
								: q->d_ns;
}

/* between the known completions around it: those between share the gap
 * evenly, in issue order */
static uint64_t cand_order(const struct repair_set *s, size_t i, size_t hide)
{
	const struct rreq *a, *b;
	size_t na, nb;

	a = known_side(s, i, -1, hide, &na);
	b = known_side(s, i, +1, hide, &nb);
	if (!a || !b || b->c_ns < a->c_ns)
		return 0;
	return a->c_ns + (b->c_ns - a->c_ns) * (na + 1) / (na + nb + 2);
}

/*
 * From the known completion before the run of missing requests, each
 * completes svc_ns after the later of its issue and the completion before
 * it; what that predicts for the known completion after the run is compared
 * with it, and the difference spread over the run.
 */
static uint64_t cand_replay(const struct repair_set *s, size_t i, size_t hide,
			    uint64_t svc_ns)
{
	const struct rreq *a, *b;
	size_t na, nb, ia, ib;
	uint64_t c, mine = 0;
	int64_t delta;

	a = known_side(s, i, -1, hide, &na);
	b = known_side(s, i, +1, hide, &nb);
	if (!a || !b || !svc_ns)
		return 0;
	ia = i - na - 1;
	ib = i + nb + 1;
	c = a->c_ns;
	for (size_t t = ia + 1; t < ib; t++) {
		c = (s->r[t].d_ns > c ? s->r[t].d_ns : c) + svc_ns;
		if (t == i)
			mine = c;
	}
	c = (b->d_ns > c ? b->d_ns : c) + svc_ns; /* what b would be */
	delta = (int64_t)(b->c_ns - c);
	return (uint64_t)((int64_t)mine + delta * (int64_t)(na + 1) / (int64_t)(ib - ia));
}

/* the device's service time in that queue: the median, over known
 * neighbours in issue order, of a completion's distance from the later of
 * its issue and the completion before it */
static uint64_t service_ns(const struct repair_set *s, size_t lo, size_t hi)
{
	uint64_t v[4096];
	size_t n = 0, stride = (hi - lo) / 4096 + 1;

	for (size_t j = lo + 1; j < hi && n < 4096; j += stride) {
		const struct rreq *p = &s->r[j - 1], *q = &s->r[j];

		if (known(p) && known(q) && q->c_ns >= p->c_ns)
			v[n++] = q->c_ns - (q->d_ns > p->c_ns ? q->d_ns : p->c_ns);
	}
	return n ? median(v, n) : 0;
}

/* within the bounds the kernel's own identities give */
static uint64_t bounded(const struct rreq *q, uint64_t est)
{
	if (q->exit_ns && est > q->exit_ns)
		est = q->exit_ns;
	if (q->reuse_ns && est >= q->reuse_ns)
		est = q->reuse_ns - 1;
	return est < q->d_ns ? q->d_ns : est;
}

static uint64_t cand_est(const struct repair_set *s, size_t i, enum cand c, size_t hide,
			 uint64_t svc_ns)
{
	uint64_t e, a, b;

	switch (c) {
	case CAND_KNN:
		e = est_knn(s, i, hide);
		break;
	case CAND_MEDIAN:
		e = cand_median(s, i, hide);
		break;
	case CAND_EXIT:
	case CAND_BLEND:
		a = cand_median(s, i, hide);
		b = cand_exit(s, i, hide);
		/* a call that returned long after its usual gap (preempted on
		 * its way out) says little: its neighbours' time says more */
		if (a && b > a && b - a > 4 * (a - s->r[i].d_ns) + 20000)
			b = a;
		e = c == CAND_EXIT ? b : a && b ? a / 2 + b / 2 : 0;
		break;
	case CAND_ORDER:
		e = cand_order(s, i, hide);
		break;
	default:
		e = cand_replay(s, i, hide, svc_ns);
		break;
	}
	return e ? bounded(&s->r[i], e) : 0;
}

#define CHOICE_SAMPLE 1000 /* known requests tried per device and class */
#define NR_RUNS	      3	   /* run lengths the candidates are tried at */
static const size_t run_hide[NR_RUNS] = {0, 3, 15}; /* runs of 1, 7, 31 */

/* what choose() found for a device: per class (has an exit or not) and
 * run length, the candidate with the least mean error */
struct choice {
	enum cand best[2][NR_RUNS];
	uint64_t svc_ns;
};

static int run_class(size_t run)
{
	return run <= 3 ? 0 : run <= 15 ? 1 : 2;
}

static void choose(const struct repair_set *s, size_t lo, size_t hi, struct choice *ch)
{
	double err[2][NR_RUNS][NR_CAND] = {{{0}}};
	uint64_t n[2][NR_RUNS][NR_CAND] = {{{0}}}, nk[2] = {0}, tried[2] = {0};
	size_t stride[2];

	ch->svc_ns = service_ns(s, lo, hi);
	for (size_t i = lo; i < hi; i++)
		if (known(&s->r[i]))
			nk[!!s->r[i].exit_ns]++;
	for (int k = 0; k < 2; k++)
		stride[k] = nk[k] > CHOICE_SAMPLE ? nk[k] / CHOICE_SAMPLE : 1;
	nk[0] = nk[1] = 0;
	for (size_t i = lo; i < hi; i++) {
		const struct rreq *q = &s->r[i];
		int k = !!q->exit_ns;

		if (!known(q) || nk[k]++ % stride[k])
			continue;
		tried[k]++;
		for (int g = 0; g < NR_RUNS; g++) {
			for (int c = 0; c < NR_CAND; c++) {
				uint64_t e =
				    cand_est(s, i, (enum cand)c, run_hide[g], ch->svc_ns);

				if (!e)
					continue;
				err[k][g][c] += e > q->c_ns ? (double)(e - q->c_ns)
							    : (double)(q->c_ns - e);
				n[k][g][c]++;
			}
		}
	}
	for (int k = 0; k < 2; k++) {
		for (int g = 0; g < NR_RUNS; g++) {
			double b = -1;

			ch->best[k][g] = CAND_MEDIAN;
			for (int c = 0; c < NR_CAND; c++) {
				/* one that could not answer for most is no choice */
				if (!n[k][g][c] || n[k][g][c] * 10 < tried[k] * 9)
					continue;
				if (b < 0 || err[k][g][c] / (double)n[k][g][c] < b) {
					b = err[k][g][c] / (double)n[k][g][c];
					ch->best[k][g] = (enum cand)c;
				}
			}
			/* the seed's method unless another is clearly better: a
			 * sample's few percent are noise on a jittery device */
			if (n[k][g][CAND_KNN] * 10 >= tried[k] * 9 &&
			    err[k][g][CAND_KNN] / (double)n[k][g][CAND_KNN] <= 1.05 * b)
				ch->best[k][g] = CAND_KNN;
		}
	}
}

static uint64_t est_evidence(const struct repair_set *s, size_t i,
			     const struct choice *ch)
{
	size_t na, nb, run;
	uint64_t e;

	/* the run of missing requests it is in */
	known_side(s, i, -1, 0, &na);
	known_side(s, i, +1, 0, &nb);
	run = na + nb + 1;
	e = cand_est(s, i, ch->best[!!s->r[i].exit_ns][run_class(run)], 0, ch->svc_ns);
	/* the choice could not answer here: the neighbours' median */
	return e ? e : cand_est(s, i, CAND_MEDIAN, 0, ch->svc_ns);
}

size_t repair_estimate(const struct repair_set *s, enum repair_method m, uint64_t *est)
{
	struct mean_tab *t = NULL;
	struct choice ch = {0};
	size_t nt = 0, cap = 0, refused = 0, dev_end = 0;

	if (m == RM_MEAN) {
		for (size_t i = 0; i < s->n; i++) {
			const struct rreq *q = &s->r[i];

			if (!known(q))
				continue;
			if (!nt || t[nt - 1].dev != q->dev) { /* sorted by device */
				if (GROW(t, nt + 1, cap))
					return s->n;
				memset(&t[nt], 0, sizeof(*t));
				t[nt++].dev = q->dev;
			}
			t[nt - 1].sum[q->flags & 3] += q->c_ns - q->d_ns;
			t[nt - 1].n[q->flags & 3]++;
		}
	}
	for (size_t i = 0; i < s->n; i++) {
		if (m == RM_EVIDENCE && i >= dev_end) { /* a device's first request */
			for (dev_end = i;
			     dev_end < s->n && s->r[dev_end].dev == s->r[i].dev;
			     dev_end++)
				;
			choose(s, i, dev_end, &ch);
		}
		est[i] = 0;
		if (!s->r[i].missing)
			continue;
		switch (m) {
		case RM_ZERO:
			est[i] = s->r[i].d_ns;
			break;
		case RM_MEAN:
			est[i] = est_mean(s, i, t, nt);
			break;
		case RM_KNN:
			est[i] = est_knn(s, i, 0);
			break;
		default:
			est[i] = est_evidence(s, i, &ch);
			break;
		}
		refused += !est[i];
	}
	free(t);
	return refused;
}

/* ---- the evaluation -----------------------------------------------------------------
 */

static uint64_t xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

#define BURST 16 /* requests in a row, as a full buffer loses them */

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int repair_evaluate(struct repair_set *s, double rate, bool burst, uint64_t seed,
		    enum repair_method m, struct repair_eval *out)
{
	uint64_t *est = malloc((s->n + 1) * sizeof(*est)), x = seed * 2654435761u + 1;
	double *err = malloc((s->n + 1) * sizeof(*err)), sum = 0;
	bool *hid = calloc(s->n + 1, sizeof(*hid));
	size_t ne = 0, left = 0;

	memset(out, 0, sizeof(*out));
	out->rate = rate;
	out->burst = burst;
	out->method = m;
	if (!est || !err || !hid) {
		free(est);
		free(err);
		free(hid);
		return -ENOMEM;
	}
	/* the same requests hidden for every method: the seed decides */
	for (size_t i = 0; i < s->n; i++) {
		double u = (double)(xorshift(&x) >> 11) / 9007199254740992.0;

		if (!known(&s->r[i]))
			continue;
		if (burst) {
			if (!left && u < rate / BURST)
				left = BURST;
			if (!left)
				continue;
			left--;
		} else if (u >= rate) {
			continue;
		}
		hid[i] = true;
		s->r[i].missing = true;
		out->hidden++;
	}
	repair_estimate(s, m, est);
	for (size_t i = 0; i < s->n; i++) {
		if (!hid[i])
			continue;
		s->r[i].missing = false;
		if (!est[i]) {
			out->refused++;
			continue;
		}
		err[ne] = est[i] > s->r[i].c_ns ? (double)(est[i] - s->r[i].c_ns)
						: (double)(s->r[i].c_ns - est[i]);
		sum += err[ne++];
	}
	out->estimated = ne;
	if (ne) {
		size_t k;

		qsort(err, ne, sizeof(*err), cmp_dbl);
		k = (size_t)(0.99 * (double)ne + 0.999999);
		out->mae_ns = sum / (double)ne;
		out->p99_ns = err[(k ? k : 1) - 1];
	}
	free(est);
	free(err);
	free(hid);
	return 0;
}
