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
const char *const repair_event_names[NR_RE] = {"complete", "issue", "queue", "exit"};

int repair_method_find(const char *name)
{
	for (int m = 0; m < NR_RM; m++)
		if (!strcmp(name, repair_method_names[m]))
			return m;
	return -1;
}

int repair_event_find(const char *name)
{
	for (int e = 0; e < NR_RE; e++)
		if (!strcmp(name, repair_event_names[e]))
			return e;
	return -1;
}

/* ---- the scan -----------------------------------------------------------------------
 */

/* a bio on its way to a request: its Q, its G, its request's I */
struct qinfo {
	uint64_t bio; /* its address */
	uint64_t q_ns, g_ns, i_ns;
	uint64_t sector;
	uint32_t tid, pid, nr, flags, dev;
	bool taken; /* a request's first bio, its D or C seen, or merged */
};

struct scan {
	struct repair_set *s;
	struct trace_reader *rd;
	struct u64map bio_q;	   /* bio -> index in q */
	struct u64map q_at;	   /* (dev, sector) -> index in q: a Q'd bio, for
				      a split of it */
	struct u64map g_at;	   /* (dev, sector) -> index in q: a G not yet
				      issued, for a C whose D and I were lost */
	struct u64map rq_bio;	   /* struct request -> index in q: from its I */
	struct u64map pending;	   /* struct request -> index in s->r, + 1 */
	struct u64map pending_bio; /* bio-based devices: bio -> index + 1 */
	struct u64map requeue;	   /* struct request -> 1: requeued since its D */
	struct u64map last_c;	   /* struct request -> its last completed index
				      in s->r, + 1 */
	struct u64map open;	   /* tid -> index in s->sys: its open call */
	struct qinfo *q;
	size_t nq, capq;
	uint64_t first_ns; /* the first record's time */
};

/* a bio allocated a request (G) without a Q lost its Q if the G came in a
 * system call that entered while recording (the Q comes between them, in
 * the same task), or this long after the recording began: one queued before
 * the start can wait a while (writeback throttling) */
#define Q_LOST_AFTER_NS 1000000000ull

static struct rreq *new_req(struct scan *sc, const struct iot_rec *r)
{
	struct repair_set *s = sc->s;
	struct rreq *n;

	if (GROW(s->r, s->n + 1, s->cap))
		return NULL;
	n = &s->r[s->n++];
	memset(n, 0, sizeof(*n));
	n->rq = r->id;
	n->sector = r->sector;
	n->dev = r->dev;
	n->nr = r->nr;
	n->flags = r->flags & ~IOT_F_ESTIMATED;
	n->cpu = r->cpu;
	return n;
}

/* what a request knows from its first bio (q: index in sc->q) */
static void from_bio(struct scan *sc, struct rreq *n, uint32_t qi)
{
	struct qinfo *b = &sc->q[qi];

	n->bio = b->bio;
	n->q_ns = b->q_ns;
	n->g_ns = b->g_ns;
	n->i_ns = b->i_ns;
	n->tid = b->tid;
	n->pid = b->pid;
	n->bio_nr = b->nr;
	b->taken = true;
	if (b->g_ns)
		u64map_del(&sc->g_at, u64map_dev_sector(b->dev, b->sector));
}

static void prev_completion(struct scan *sc, struct rreq *n)
{
	uint32_t *l = u64map_get(&sc->last_c, n->rq);

	if (l)
		n->prev_c_ns = sc->s->r[*l - 1].c_ns;
}

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
	if (!(n = new_req(sc, r)))
		return -ENOMEM;
	n->d_ns = r->ts_ns;
	if (pending == &sc->pending_bio) { /* its own queueing */
		n->bio_based = true;
		n->bio = r->id;
		n->q_ns = r->ts_ns;
		n->tid = r->tid;
		n->pid = r->pid;
		n->bio_nr = r->nr;
	} else {
		if (r->id2 && (qi = u64map_get(&sc->bio_q, r->id2)))
			from_bio(sc, n, *qi);
		u64map_del(&sc->rq_bio, r->id);
		prev_completion(sc, n);
	}
	return u64map_put(pending, r->id, (uint32_t)s->n);
}

/*
 * A completion of no issue seen: its D was lost if the request is known
 * otherwise, by its I (the struct request's address) or, without one, by a
 * bio that allocated a request at its sector and was never issued (sector
 * alone: by_sector). Else nothing says what it was.
 */
static int lost_issue(struct scan *sc, const struct iot_rec *r)
{
	uint32_t *qi = u64map_get(&sc->rq_bio, r->id), total = (uint32_t)(r->id2 >> 32);
	bool by_sector = false;
	struct rreq *n;

	if (!qi) {
		qi = u64map_get(&sc->g_at, u64map_dev_sector(r->dev, r->sector));
		by_sector = true;
	}
	if (!qi || sc->q[*qi].taken) {
		sc->s->orphan_c++;
		return 0;
	}
	if (!(n = new_req(sc, r)))
		return -ENOMEM;
	n->nr = total > r->nr ? total : r->nr;
	n->c_ns = r->ts_ns;
	n->miss_d = true;
	n->by_sector = by_sector;
	sc->s->lost_d++;
	from_bio(sc, n, *qi);
	u64map_del(&sc->rq_bio, r->id);
	prev_completion(sc, n);
	return u64map_put(&sc->last_c, r->id, (uint32_t)sc->s->n);
}

static int on_complete(struct scan *sc, const struct iot_rec *r, struct u64map *pending)
{
	uint32_t *p = u64map_get(pending, r->id);
	struct rreq *q;

	if (!p) {
		if (pending == &sc->pending && r->nr >= (uint32_t)(r->id2 >> 32))
			return lost_issue(sc, r);
		sc->s->orphan_c++;
		return 0;
	}
	q = &sc->s->r[*p - 1];
	if (pending == &sc->pending && r->nr < (uint32_t)(r->id2 >> 32))
		return 0; /* part of it: the rest is still at the driver */
	q->c_ns = r->ts_ns;
	if (pending == &sc->pending && u64map_put(&sc->last_c, r->id, *p))
		return -ENOMEM;
	u64map_del(pending, r->id);
	u64map_del(&sc->requeue, r->id);
	return 0;
}

static bool bio_based(struct scan *sc, uint32_t dev)
{
	const struct iot_dev_entry *e = trace_reader_dev(sc->rd, dev);

	return e && (e->flags & IOT_DEV_BIO_BASED);
}

static int new_bio(struct scan *sc, const struct iot_rec *r, uint64_t q_ns, uint32_t *out)
{
	if (GROW(sc->q, sc->nq + 1, sc->capq))
		return -ENOMEM;
	sc->q[sc->nq] = (struct qinfo){.bio = r->id,
				       .q_ns = q_ns,
				       .sector = r->sector,
				       .tid = r->tid,
				       .pid = r->pid,
				       .nr = r->nr,
				       .flags = r->flags & ~IOT_F_ESTIMATED,
				       .dev = r->dev};
	*out = (uint32_t)sc->nq++;
	return u64map_put(&sc->bio_q, r->id, *out);
}

static int feed(struct scan *sc, const struct iot_rec *r)
{
	uint32_t *v, b;
	int err;

	switch (r->type) {
	case IOT_EV_BIO_QUEUE:
		if (bio_based(sc, r->dev))
			return on_issue(sc, r, &sc->pending_bio);
		err = new_bio(sc, r, r->ts_ns, &b);
		return err ? err
			   : u64map_put(&sc->q_at, u64map_dev_sector(r->dev, r->sector),
					b);
	case IOT_EV_SPLIT:
		/* the front part, a new bio, was queued with the whole */
		v = u64map_get(&sc->q_at, u64map_dev_sector(r->dev, r->sector));
		if (!v)
			return 0;
		b = *v;
		sc->q[b].sector = r->id2;
		if (u64map_put(&sc->q_at, u64map_dev_sector(r->dev, r->id2), b))
			return -ENOMEM;
		err = new_bio(sc, r, sc->q[b].q_ns, &b);
		sc->q[b].tid = sc->q[*v].tid;
		sc->q[b].pid = sc->q[*v].pid;
		return err;
	case IOT_EV_GETRQ:
		v = u64map_get(&sc->bio_q, r->id);
		if (v && sc->q[*v].taken)
			v = NULL; /* an address used again */
		if (!v && (err = new_bio(sc, r, 0, &b)))
			return err;
		b = v ? *v : b;
		sc->q[b].g_ns = r->ts_ns;
		return u64map_put(&sc->g_at, u64map_dev_sector(r->dev, sc->q[b].sector),
				  b);
	case IOT_EV_BIO_BACKMERGE:
	case IOT_EV_BIO_FRONTMERGE: /* into a request: no G of its own */
		if ((v = u64map_get(&sc->bio_q, r->id)))
			sc->q[*v].taken = true;
		return 0;
	case IOT_EV_RQ_INSERT:
		v = r->id2 ? u64map_get(&sc->bio_q, r->id2) : NULL;
		if (!v || sc->q[*v].taken)
			return 0;
		if (!sc->q[*v].i_ns)
			sc->q[*v].i_ns = r->ts_ns;
		return u64map_put(&sc->rq_bio, r->id, *v);
	case IOT_EV_RQ_ISSUE:
		return on_issue(sc, r, &sc->pending);
	case IOT_EV_BIO_COMPLETE:
		return on_complete(sc, r, &sc->pending_bio);
	case IOT_EV_RQ_REQUEUE:
		return u64map_get(&sc->pending, r->id)
			   ? u64map_put(&sc->requeue, r->id, 1)
			   : 0;
	case IOT_EV_RQ_COMPLETE:
		return on_complete(sc, r, &sc->pending);
	case IOT_EV_SYS_ENTER: {
		struct repair_set *s = sc->s;

		if ((v = u64map_get(&sc->open, r->tid))) {
			/* entered again: the exit of the one before was lost */
			s->sys[*v].missing = true;
			s->sys[*v].next_ns = r->ts_ns;
			s->lost_exit++;
		}
		if (GROW(s->sys, s->nsys + 1, s->capsys))
			return -ENOMEM;
		s->sys[s->nsys] = (struct rsys){.enter_ns = r->ts_ns,
						.enter_seq = r->seq,
						.tid = r->tid,
						.pid = r->pid,
						.nr = (uint32_t)r->sector,
						.count = r->nr,
						.cpu = r->cpu};
		return u64map_put(&sc->open, r->tid, (uint32_t)s->nsys++);
	}
	case IOT_EV_SYS_EXIT:
		if ((v = u64map_get(&sc->open, r->tid))) {
			struct rsys *y = &sc->s->sys[*v];
			struct trace_gaps *g = &sc->rd->gaps;

			if (trace_gaps_any(g) &&
			    trace_gaps_lost_between(g, y->cpu, y->enter_seq, y->enter_ns,
						    r->cpu, r->seq, r->ts_ns)) {
				/* records of its CPU lost between (the join
				 * leaves it out): its exit most likely among
				 * them, before the record after them */
				uint64_t t = trace_gaps_next_ts(g, y->cpu, y->enter_seq);

				y->missing = true;
				y->next_ns = t < r->ts_ns ? t : r->ts_ns;
				sc->s->lost_exit++;
			} else {
				y->exit_ns = r->ts_ns;
			}
			u64map_del(&sc->open, r->tid);
		}
		return 0;
	default:
		return 0;
	}
}

static int cmp_sys(const void *a, const void *b)
{
	const struct rsys *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->enter_ns > y->enter_ns) - (x->enter_ns < y->enter_ns);
}

static int cmp_sys_nr(const void *a, const void *b)
{
	const struct rsys *x = a, *y = b;

	if (x->nr != y->nr)
		return x->nr < y->nr ? -1 : 1;
	if (x->enter_ns != y->enter_ns)
		return x->enter_ns < y->enter_ns ? -1 : 1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

static int cmp_req(const void *a, const void *b)
{
	const struct rreq *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->key_ns != y->key_ns)
		return x->key_ns < y->key_ns ? -1 : 1;
	/* the same key (a lost D's C ordered by issue): a stable order */
	return (x->rq > y->rq) - (x->rq < y->rq);
}

void repair_order(struct repair_set *s, enum repair_event e)
{
	for (size_t i = 0; i < s->n; i++) {
		struct rreq *q = &s->r[i];
		uint64_t first = q->d_ns ? q->d_ns : q->c_ns,
			 last = q->c_ns ? q->c_ns : q->d_ns;

		q->key_ns = e == RE_COMPLETE ? first : last;
	}
	if (s->n)
		qsort(s->r, s->n, sizeof(*s->r), cmp_req);
	if (s->nsys)
		qsort(s->sys, s->nsys, sizeof(*s->sys),
		      e == RE_EXIT ? cmp_sys_nr : cmp_sys);
}

/* the syscall of tid around t (a lost exit: before the task's next
 * enter), or NULL */
static struct rsys *sys_at(struct rsys *sys, size_t n, uint32_t tid, uint64_t t)
{
	size_t lo = 0, hi = n;
	uint64_t end;

	while (lo < hi) { /* the first (tid, enter) after (tid, t) */
		size_t mid = (lo + hi) / 2;

		if (sys[mid].tid < tid || (sys[mid].tid == tid && sys[mid].enter_ns <= t))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || sys[lo - 1].tid != tid)
		return NULL;
	end = sys[lo - 1].exit_ns ? sys[lo - 1].exit_ns : sys[lo - 1].next_ns;
	return end && end >= t ? &sys[lo - 1] : NULL;
}

/*
 * The exit of the syscall a request's first bio was queued in bounds its
 * completion only if that syscall waits for its I/O (pread, write with
 * O_DIRECT, fsync); io_submit and io_uring_enter return first. Which ones
 * wait is read from the trace: a syscall number whose complete requests
 * all completed before its exit (at least 10 of them, 99%).
 */
#define NR_SYSNR 1024
static int link_syscalls(struct scan *sc)
{
	struct repair_set *s = sc->s;
	static uint32_t seen[NR_SYSNR], before[NR_SYSNR];
	struct rsys **in = calloc(s->n + 1, sizeof(*in));

	if (!in)
		return -ENOMEM;
	memset(seen, 0, sizeof(seen));
	memset(before, 0, sizeof(before));
	if (s->nsys)
		qsort(s->sys, s->nsys, sizeof(*s->sys), cmp_sys);
	for (size_t i = 0; i < s->n; i++) {
		struct rreq *q = &s->r[i];
		struct rsys *y;

		/* the call open at the request's G (bio-based: at its C) is
		 * the anchor of a lost Q: found without the Q */
		uint64_t t = q->bio_based ? q->c_ns : q->g_ns;

		if (q->tid && t && (y = sys_at(s->sys, s->nsys, q->tid, t)))
			q->enter_ns = y->enter_ns;
		t = q->q_ns ? q->q_ns : q->g_ns;
		if (!q->tid || !t || !(y = sys_at(s->sys, s->nsys, q->tid, t)))
			continue;
		in[i] = y;
		q->exit_ns = y->exit_ns;
		q->sys_nr = y->nr;
		if (q->c_ns && q->d_ns && !q->missing && y->exit_ns && y->nr < NR_SYSNR) {
			seen[y->nr]++;
			before[y->nr] += q->c_ns <= y->exit_ns;
		}
	}
	for (size_t i = 0; i < s->n; i++) {
		struct rreq *q = &s->r[i];
		uint32_t k = q->sys_nr;
		bool waits = in[i] && k < NR_SYSNR && seen[k] >= 10 &&
			     (double)before[k] >= 0.99 * (double)seen[k];

		if (!waits) {
			q->exit_ns = 0;
			continue;
		}
		/* the call waited for this completion: its exit comes after */
		if (q->c_ns && !q->missing && q->c_ns > in[i]->last_c_ns &&
		    (!in[i]->exit_ns || q->c_ns <= in[i]->exit_ns))
			in[i]->last_c_ns = q->c_ns;
	}
	free(in);
	return 0;
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
		if (s->r[i].c_ns >= s->r[i].d_ns && s->r[i].c_ns && s->r[i].d_ns)
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
	if (u64map_init(&sc.bio_q, 1024) || u64map_init(&sc.q_at, 1024) ||
	    u64map_init(&sc.g_at, 256) || u64map_init(&sc.rq_bio, 256) ||
	    u64map_init(&sc.pending, 1024) || u64map_init(&sc.pending_bio, 1024) ||
	    u64map_init(&sc.requeue, 64) || u64map_init(&sc.last_c, 1024) ||
	    u64map_init(&sc.open, 256)) {
		err = -ENOMEM;
		goto out;
	}
	while ((err = trace_reader_next(rd, &r)) == 1) {
		if (iot_rec_estimated(r))
			continue; /* an estimate is no evidence */
		if (!sc.first_ns)
			sc.first_ns = r->ts_ns;
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
	err = link_syscalls(&sc);
	if (err)
		goto out;
	for (size_t i = 0; i < s->n; i++) {
		struct rreq *q = &s->r[i];

		if (!q->bio_based && q->g_ns && !q->q_ns &&
		    (q->enter_ns || q->g_ns >= sc.first_ns + Q_LOST_AFTER_NS)) {
			q->miss_q = true;
			s->lost_q++;
		}
	}
	repair_order(s, RE_COMPLETE);
	err = 0;
out:
	u64map_release(&sc.bio_q);
	u64map_release(&sc.q_at);
	u64map_release(&sc.g_at);
	u64map_release(&sc.rq_bio);
	u64map_release(&sc.pending);
	u64map_release(&sc.pending_bio);
	u64map_release(&sc.requeue);
	u64map_release(&sc.last_c);
	u64map_release(&sc.open);
	free(sc.q);
	return err;
}

void repair_set_release(struct repair_set *s)
{
	free(s->r);
	free(s->sys);
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
	return q->c_ns && q->d_ns && !q->missing && q->c_ns >= q->d_ns;
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

/* what a neighbour must have to be used: both times known (event mode,
 * below), or for completions a known D2C (cx NULL) */
struct want {
	int target, anchor; /* enum anchor */
};
static bool usable(const struct rreq *c, const struct want *w);

/*
 * Up to k requests of q's device nearest q in the table's order that are
 * usable and match, into out (indexes); how many. hide: the first that many
 * usable requests on each side count as missing too (choose() tries a
 * method on runs of missing requests that way).
 */
static size_t nearest_w(const struct repair_set *s, size_t i, size_t k, match_fn match,
			size_t hide, size_t *out, const struct want *w)
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
		if (a && (!b || q->key_ns - a->key_ns <= b->key_ns - q->key_ns)) {
			l--;
			if ((w ? usable(a, w) : known(a)) &&
			    (hl ? (hl--, false) : match(a, q)))
				out[n++] = l;
		} else {
			if ((w ? usable(b, w) : known(b)) &&
			    (hr ? (hr--, false) : match(b, q)))
				out[n++] = r;
			r++;
		}
	}
	return n;
}

static size_t nearest(const struct repair_set *s, size_t i, size_t k, match_fn match,
		      size_t hide, size_t *out)
{
	return nearest_w(s, i, k, match, hide, out, NULL);
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
	int64_t delta, share;

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
	/* the share in 128 bits (a crafted trace's times overflowed the
	 * product; the share is no more than delta), added as unsigned times
	 * are, wrapping */
	share = (int64_t)((__int128)delta * (__int128)(na + 1) / (__int128)(ib - ia));
	return mine + (uint64_t)share;
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

/*
 * Of the candidates in order (the first wins a tie), the one with the least
 * mean error err[c] / n[c] among those that answered for 90% of the tried
 * requests; def if none did. The seed's k-NN (knn) unless another is better
 * by more than 5%: a sample's few percent are noise on a jittery device.
 */
static int least_error(const double *err, const uint64_t *n, const int *order, size_t nc,
		       uint64_t tried, int knn, int def)
{
	double b = -1;
	int best = def;

	for (size_t k = 0; k < nc; k++) {
		int c = order[k];

		/* one that could not answer for most is no choice */
		if (!n[c] || n[c] * 10 < tried * 9)
			continue;
		if (b < 0 || err[c] / (double)n[c] < b) {
			b = err[c] / (double)n[c];
			best = c;
		}
	}
	if (n[knn] * 10 >= tried * 9 && err[knn] / (double)n[knn] <= 1.05 * b)
		best = knn;
	return best;
}

static void choose(const struct repair_set *s, size_t lo, size_t hi, struct choice *ch)
{
	static const int cands[NR_CAND] = {CAND_KNN,   CAND_MEDIAN, CAND_EXIT,
					   CAND_BLEND, CAND_ORDER,  CAND_REPLAY};
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
	for (int k = 0; k < 2; k++)
		for (int g = 0; g < NR_RUNS; g++)
			ch->best[k][g] =
			    (enum cand)least_error(err[k][g], n[k][g], cands, NR_CAND,
						   tried[k], CAND_KNN, CAND_MEDIAN);
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

static size_t estimate_complete(const struct repair_set *s, enum repair_method m,
				uint64_t *est)
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

/* ---- issues and queueings -----------------------------------------------------------
 *
 * A lost D or Q lies between times of the same request the trace still
 * holds: its bio's Q, G and I and the syscall's enter before it, its D and C
 * after it. Each of those is an anchor: the missing time is the anchor plus
 * the stage between them, read from the neighbours that have both.
 */

enum anchor { A_ENTER, A_Q, A_G, A_I, A_D, A_C, NR_A };

static uint64_t at(const struct rreq *q, int a)
{
	switch (a) {
	case A_ENTER:
		return q->enter_ns;
	case A_Q:
		return q->miss_q ? 0 : q->q_ns;
	case A_G:
		return q->g_ns;
	case A_I:
		return q->i_ns;
	case A_D: /* a bio-based device's D is its Q */
		return q->bio_based || q->miss_d ? 0 : q->d_ns;
	default:
		return q->missing ? 0 : q->c_ns;
	}
}

static bool usable(const struct rreq *c, const struct want *w)
{
	return at(c, w->target) && at(c, w->anchor);
}

static int target_of(enum repair_event e)
{
	return e == RE_ISSUE ? A_D : A_Q;
}

/* the anchors of e's time, the nearest first: before it, then after it */
static const int before_d[] = {A_I, A_G, A_Q}, after_d[] = {A_C};
static const int before_q[] = {A_ENTER}, after_q[] = {A_G, A_I, A_D, A_C};
#define NR_ANCHORS 5 /* the most of either event */

static size_t anchors(enum repair_event e, int *out)
{
	size_t n = 0;

	if (e == RE_ISSUE) {
		for (size_t k = 0; k < sizeof(before_d) / sizeof(*before_d); k++)
			out[n++] = before_d[k];
		for (size_t k = 0; k < sizeof(after_d) / sizeof(*after_d); k++)
			out[n++] = after_d[k];
	} else {
		for (size_t k = 0; k < sizeof(after_q) / sizeof(*after_q); k++)
			out[n++] = after_q[k];
		for (size_t k = 0; k < sizeof(before_q) / sizeof(*before_q); k++)
			out[n++] = before_q[k];
	}
	return n;
}

/* the anchor the reference methods use: the nearest one the request has
 * (for an issue the last time before it, for a queueing the first after),
 * or -1 */
static int first_anchor(const struct rreq *q, enum repair_event e)
{
	int a[NR_ANCHORS];
	size_t n = anchors(e, a);

	for (size_t k = 0; k < n; k++)
		if (at(q, a[k]))
			return a[k];
	return -1;
}

/* whether q can lose e at all: a bio-based device has no D */
static bool has_event(const struct rreq *q, enum repair_event e)
{
	return e == RE_QUEUE || !q->bio_based;
}

/* within what the kernel's order says: a D after its bio's Q, G, I and the
 * completion before of the same struct request, and before its C; a Q
 * after its syscall's enter and before everything else of its request.
 * Strictly, so that the estimate sorts where the event was. */
static uint64_t bounded_ev(const struct rreq *q, enum repair_event e, uint64_t est)
{
	uint64_t lo = 0, hi = UINT64_MAX;

	if (e == RE_ISSUE) {
		for (size_t k = 0; k < sizeof(before_d) / sizeof(*before_d); k++)
			lo = at(q, before_d[k]) + 1 > lo ? at(q, before_d[k]) + 1 : lo;
		lo = q->prev_c_ns + 1 > lo ? q->prev_c_ns + 1 : lo;
		if (at(q, A_C))
			hi = at(q, A_C) - 1;
	} else {
		lo = q->enter_ns;
		for (size_t k = 0; k < sizeof(after_q) / sizeof(*after_q); k++)
			if (at(q, after_q[k]) && at(q, after_q[k]) - 1 < hi)
				hi = at(q, after_q[k]) - 1;
	}
	if (est > hi)
		est = hi;
	return est < lo ? lo : est;
}

/* anchor plus a signed stage */
static uint64_t plus(uint64_t t, int64_t d)
{
	return d < 0 && (uint64_t)-d >= t ? 1 : (uint64_t)((int64_t)t + d);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* the anchor a's time plus the median stage from a over the 8 nearest of
 * the same operation and size (or operation, or any); 0 none */
static uint64_t ev_median(const struct repair_set *s, size_t i, enum repair_event e,
			  int a, size_t hide)
{
	struct want w = {target_of(e), a};
	size_t idx[K_EVIDENCE], n;
	int64_t v[K_EVIDENCE];

	if (!at(&s->r[i], a))
		return 0;
	n = nearest_w(s, i, K_EVIDENCE, same_op_size, hide, idx, &w);
	if (n < 3)
		n = nearest_w(s, i, K_EVIDENCE, same_op, hide, idx, &w);
	if (!n)
		n = nearest_w(s, i, K_EVIDENCE, any_op, hide, idx, &w);
	if (!n)
		return 0;
	for (size_t k = 0; k < n; k++)
		v[k] = (int64_t)(at(&s->r[idx[k]], w.target) - at(&s->r[idx[k]], a));
	qsort(v, n, sizeof(*v), cmp_i64);
	return plus(at(&s->r[i], a), n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2);
}

/* seed 003's k-NN moving average: the mean stage from the nearest anchor
 * over the 5 nearest that have it */
static uint64_t ev_knn(const struct repair_set *s, size_t i, enum repair_event e,
		       size_t hide)
{
	int a = first_anchor(&s->r[i], e);
	struct want w = {target_of(e), a};
	size_t idx[K_KNN], n;
	int64_t sum = 0;

	if (a < 0 || !(n = nearest_w(s, i, K_KNN, any_op, hide, idx, &w)))
		return 0;
	for (size_t k = 0; k < n; k++)
		sum += (int64_t)(at(&s->r[idx[k]], w.target) - at(&s->r[idx[k]], a));
	return plus(at(&s->r[i], a), sum / (int64_t)n);
}

/* the device's mean stage from each anchor, per operation */
struct ev_mean {
	int64_t sum[NR_A][4];
	uint64_t n[NR_A][4];
};

static void ev_mean_fill(const struct repair_set *s, size_t lo, size_t hi,
			 enum repair_event e, struct ev_mean *t)
{
	memset(t, 0, sizeof(*t));
	for (size_t i = lo; i < hi; i++) {
		const struct rreq *q = &s->r[i];
		uint64_t tt = at(q, target_of(e));

		for (int a = 0; a < NR_A && tt; a++) {
			if (a == target_of(e) || !at(q, a))
				continue;
			t->sum[a][q->flags & 3] += (int64_t)(tt - at(q, a));
			t->n[a][q->flags & 3]++;
		}
	}
}

static uint64_t ev_mean(const struct rreq *q, enum repair_event e,
			const struct ev_mean *t)
{
	int a = first_anchor(q, e), op = (int)(q->flags & 3);

	if (a < 0 || !t->n[a][op])
		return 0;
	return plus(at(q, a), t->sum[a][op] / (int64_t)t->n[a][op]);
}

/* the candidates of the evidence method: the k-NN, and the median stage
 * from each anchor */
#define EV_CAND_KNN NR_A

static uint64_t ev_cand(const struct repair_set *s, size_t i, enum repair_event e, int c,
			size_t hide)
{
	uint64_t v =
	    c == EV_CAND_KNN ? ev_knn(s, i, e, hide) : ev_median(s, i, e, c, hide);
	int a = first_anchor(&s->r[i], e);

	/* a farther anchor far from what the nearest says (a call preempted
	 * between its enter and the Q): the nearest says more */
	if (v && a >= 0 && c != a && c != EV_CAND_KNN) {
		uint64_t n = ev_median(s, i, e, a, hide), t = at(&s->r[i], a);
		uint64_t gap = n > t ? n - t : t - n;

		if (n && (v > n ? v - n : n - v) > 4 * gap + 20000)
			v = n;
	}
	return v ? bounded_ev(&s->r[i], e, v) : 0;
}

/* per run length, the candidate with the least mean error on a sample of
 * the device's requests that have the event (as choose() for completions) */
static void ev_choose(const struct repair_set *s, size_t lo, size_t hi,
		      enum repair_event e, int best[NR_RUNS])
{
	double err[NR_RUNS][NR_A + 1] = {{0}};
	uint64_t n[NR_RUNS][NR_A + 1] = {{0}}, nk = 0, tried = 0;
	int tgt = target_of(e), a[NR_ANCHORS + 1];
	size_t na = anchors(e, a), stride;

	for (size_t i = lo; i < hi; i++)
		nk += at(&s->r[i], tgt) && first_anchor(&s->r[i], e) >= 0;
	stride = nk > CHOICE_SAMPLE ? nk / CHOICE_SAMPLE : 1;
	nk = 0;
	for (size_t i = lo; i < hi; i++) {
		uint64_t truth = at(&s->r[i], tgt);

		if (!truth || first_anchor(&s->r[i], e) < 0 || nk++ % stride)
			continue;
		tried++;
		for (int g = 0; g < NR_RUNS; g++) {
			for (size_t k = 0; k <= na; k++) {
				int c = k < na ? a[k] : EV_CAND_KNN;
				uint64_t v;

				/* the request's own time is no anchor of itself;
				 * the walks start beside it */
				v = ev_cand(s, i, e, c, run_hide[g]);
				if (!v)
					continue;
				err[g][c] +=
				    v > truth ? (double)(v - truth) : (double)(truth - v);
				n[g][c]++;
			}
		}
	}
	a[na] = EV_CAND_KNN;
	for (int g = 0; g < NR_RUNS; g++)
		best[g] =
		    least_error(err[g], n[g], a, na + 1, tried, EV_CAND_KNN, EV_CAND_KNN);
}

static size_t estimate_event(const struct repair_set *s, enum repair_event e,
			     enum repair_method m, uint64_t *est)
{
	int tgt = target_of(e), best[NR_RUNS] = {0};
	struct ev_mean t;
	size_t refused = 0, dev_end = 0;

	for (size_t i = 0; i < s->n; i++) {
		const struct rreq *q = &s->r[i];
		bool miss = e == RE_ISSUE ? q->miss_d : q->miss_q;

		if (i >= dev_end) { /* a device's first request */
			for (dev_end = i; dev_end < s->n && s->r[dev_end].dev == q->dev;
			     dev_end++)
				;
			if (m == RM_MEAN)
				ev_mean_fill(s, i, dev_end, e, &t);
			if (m == RM_EVIDENCE)
				ev_choose(s, i, dev_end, e, best);
		}
		est[i] = 0;
		if (!miss || !has_event(q, e))
			continue;
		switch (m) {
		case RM_ZERO: {
			int a = first_anchor(q, e);

			est[i] = a < 0 ? 0 : bounded_ev(q, e, at(q, a));
			break;
		}
		case RM_MEAN:
			est[i] = ev_mean(q, e, &t);
			est[i] = est[i] ? bounded_ev(q, e, est[i]) : 0;
			break;
		case RM_KNN:
			est[i] = ev_cand(s, i, e, EV_CAND_KNN, 0);
			break;
		default: {
			size_t l = i, r = i + 1, run;

			/* the run of requests missing it, around this one */
			while (l > 0 && s->r[l - 1].dev == q->dev &&
			       !at(&s->r[l - 1], tgt))
				l--;
			while (r < s->n && s->r[r].dev == q->dev && !at(&s->r[r], tgt))
				r++;
			run = r - l;
			est[i] = ev_cand(s, i, e, best[run_class(run)], 0);
			if (!est[i] && first_anchor(q, e) >= 0)
				est[i] = ev_cand(s, i, e, first_anchor(q, e), 0);
			if (!est[i])
				est[i] = ev_cand(s, i, e, EV_CAND_KNN, 0);
			break;
		}
		}
		refused += !est[i];
	}
	return refused;
}

/* ---- system call exits ---------------------------------------------------------------
 *
 * A lost exit lies after the call's enter and, for a call that waits for its
 * I/O, after the last completion of the requests it queued; and before the
 * task's next enter. The neighbours are the calls of the same number
 * entered nearest in time, any task.
 */

static bool sys_known(const struct rsys *y)
{
	return y->exit_ns && !y->missing && y->exit_ns >= y->enter_ns;
}

enum { SC_KNN, SC_DUR, SC_LASTC, NR_SC };

/* up to k calls of y's number nearest in enter time with a known exit
 * (and a last completion: need_c; the same bytes asked: same_count) */
static size_t sys_nearest(const struct repair_set *s, size_t i, size_t k, bool need_c,
			  bool same_count, size_t hide, size_t *out)
{
	const struct rsys *y = &s->sys[i];
	size_t n = 0, l = i, r = i + 1, walked = 0, hl = hide, hr = hide;

	while (n < k && walked++ < 2 * MAX_WALK) {
		const struct rsys *a =
		    l > 0 && s->sys[l - 1].nr == y->nr ? &s->sys[l - 1] : NULL;
		const struct rsys *b =
		    r < s->nsys && s->sys[r].nr == y->nr ? &s->sys[r] : NULL;
		const struct rsys *c;
		size_t at_idx;

		if (!a && !b)
			break;
		if (a && (!b || y->enter_ns - a->enter_ns <= b->enter_ns - y->enter_ns)) {
			c = a;
			at_idx = --l;
		} else {
			c = b;
			at_idx = r++;
		}
		if (!sys_known(c) || (need_c && !c->last_c_ns) ||
		    (same_count && c->count != y->count))
			continue;
		if (c == a ? hl : hr) {
			if (c == a)
				hl--;
			else
				hr--;
			continue;
		}
		out[n++] = at_idx;
	}
	return n;
}

static uint64_t sys_bounded(const struct repair_set *s, const struct rsys *y,
			    uint64_t est)
{
	uint64_t lo = (y->last_c_ns > y->enter_ns ? y->last_c_ns : y->enter_ns) + 1;
	uint64_t hi = y->next_ns ? y->next_ns - 1 : s->end_ns;

	if (est > hi)
		est = hi;
	return est < lo ? lo : est;
}

static uint64_t sys_cand(const struct repair_set *s, size_t i, int c, size_t hide)
{
	const struct rsys *y = &s->sys[i];
	size_t idx[K_EVIDENCE], n;
	uint64_t v[K_EVIDENCE], sum = 0;

	switch (c) {
	case SC_KNN:
		if (!(n = sys_nearest(s, i, K_KNN, false, false, hide, idx)))
			return 0;
		for (size_t k = 0; k < n; k++)
			sum += s->sys[idx[k]].exit_ns - s->sys[idx[k]].enter_ns;
		return sys_bounded(s, y, y->enter_ns + sum / n);
	case SC_DUR:
		n = sys_nearest(s, i, K_EVIDENCE, false, true, hide, idx);
		if (n < 3)
			n = sys_nearest(s, i, K_EVIDENCE, false, false, hide, idx);
		if (!n)
			return 0;
		for (size_t k = 0; k < n; k++)
			v[k] = s->sys[idx[k]].exit_ns - s->sys[idx[k]].enter_ns;
		return sys_bounded(s, y, y->enter_ns + median(v, n));
	default:
		if (!y->last_c_ns ||
		    !(n = sys_nearest(s, i, K_EVIDENCE, true, false, hide, idx)))
			return 0;
		for (size_t k = 0; k < n; k++)
			v[k] = s->sys[idx[k]].exit_ns - s->sys[idx[k]].last_c_ns;
		return sys_bounded(s, y, y->last_c_ns + median(v, n));
	}
}

/* per run length, the candidate with the least mean error on a sample of
 * the number's calls with a known exit */
static void sys_choose(const struct repair_set *s, size_t lo, size_t hi,
		       int best[NR_RUNS])
{
	static const int scs[NR_SC] = {SC_KNN, SC_DUR, SC_LASTC};
	double err[NR_RUNS][NR_SC] = {{0}};
	uint64_t n[NR_RUNS][NR_SC] = {{0}}, nk = 0, tried = 0;
	size_t stride;

	for (size_t i = lo; i < hi; i++)
		nk += sys_known(&s->sys[i]);
	stride = nk > CHOICE_SAMPLE ? nk / CHOICE_SAMPLE : 1;
	nk = 0;
	for (size_t i = lo; i < hi; i++) {
		const struct rsys *y = &s->sys[i];

		if (!sys_known(y) || nk++ % stride)
			continue;
		tried++;
		for (int g = 0; g < NR_RUNS; g++) {
			for (int c = 0; c < NR_SC; c++) {
				uint64_t v = sys_cand(s, i, c, run_hide[g]);

				if (!v)
					continue;
				err[g][c] += v > y->exit_ns ? (double)(v - y->exit_ns)
							    : (double)(y->exit_ns - v);
				n[g][c]++;
			}
		}
	}
	for (int g = 0; g < NR_RUNS; g++)
		best[g] = least_error(err[g], n[g], scs, NR_SC, tried, SC_KNN, SC_KNN);
}

static size_t estimate_exits(const struct repair_set *s, enum repair_method m,
			     uint64_t *est)
{
	int best[NR_RUNS] = {0};
	size_t refused = 0, nr_end = 0;
	uint64_t sum = 0, cnt = 0;

	for (size_t i = 0; i < s->nsys; i++) {
		const struct rsys *y = &s->sys[i];

		if (i >= nr_end) { /* a number's first call */
			sum = cnt = 0;
			for (nr_end = i; nr_end < s->nsys && s->sys[nr_end].nr == y->nr;
			     nr_end++)
				if (sys_known(&s->sys[nr_end])) {
					sum += s->sys[nr_end].exit_ns -
					       s->sys[nr_end].enter_ns;
					cnt++;
				}
			if (m == RM_EVIDENCE)
				sys_choose(s, i, nr_end, best);
		}
		est[i] = 0;
		if (!y->missing)
			continue;
		switch (m) {
		case RM_ZERO: /* nothing after its last event */
			est[i] = sys_bounded(s, y, 0);
			break;
		case RM_MEAN:
			est[i] = cnt ? sys_bounded(s, y, y->enter_ns + sum / cnt) : 0;
			break;
		case RM_KNN:
			est[i] = sys_cand(s, i, SC_KNN, 0);
			break;
		default: {
			size_t l = i, r = i + 1;

			while (l > 0 && s->sys[l - 1].nr == y->nr &&
			       !sys_known(&s->sys[l - 1]))
				l--;
			while (r < s->nsys && s->sys[r].nr == y->nr &&
			       !sys_known(&s->sys[r]))
				r++;
			est[i] = sys_cand(s, i, best[run_class(r - l)], 0);
			if (!est[i])
				est[i] = sys_cand(s, i, SC_DUR, 0);
			break;
		}
		}
		refused += !est[i];
	}
	return refused;
}

size_t repair_estimate(const struct repair_set *s, enum repair_event e,
		       enum repair_method m, uint64_t *est)
{
	if (e == RE_EXIT)
		return estimate_exits(s, m, est);
	return e == RE_COMPLETE ? estimate_complete(s, m, est)
				: estimate_event(s, e, m, est);
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

/* whether the evaluation may hide e of the ith request (call): it has it,
 * and what bounds it */
static bool hideable(const struct repair_set *s, size_t i, enum repair_event e)
{
	const struct rreq *q = e == RE_EXIT ? NULL : &s->r[i];

	if (e == RE_EXIT)
		return sys_known(&s->sys[i]);
	if (e == RE_COMPLETE)
		return known(q);
	return has_event(q, e) && at(q, target_of(e)) && first_anchor(q, e) >= 0;
}

static size_t rows(const struct repair_set *s, enum repair_event e)
{
	return e == RE_EXIT ? s->nsys : s->n;
}

size_t repair_hideable(const struct repair_set *s, enum repair_event e)
{
	size_t n = 0;

	for (size_t i = 0; i < rows(s, e); i++)
		n += hideable(s, i, e);
	return n;
}

static bool *miss_flag(struct repair_set *s, size_t i, enum repair_event e)
{
	switch (e) {
	case RE_COMPLETE:
		return &s->r[i].missing;
	case RE_ISSUE:
		return &s->r[i].miss_d;
	case RE_QUEUE:
		return &s->r[i].miss_q;
	default:
		return &s->sys[i].missing;
	}
}

static uint64_t truth_of(const struct repair_set *s, size_t i, enum repair_event e)
{
	switch (e) {
	case RE_COMPLETE:
		return s->r[i].c_ns;
	case RE_ISSUE:
		return s->r[i].d_ns;
	case RE_QUEUE:
		return s->r[i].q_ns;
	default:
		return s->sys[i].exit_ns;
	}
}

int repair_evaluate(struct repair_set *s, enum repair_event e, double rate, bool burst,
		    uint64_t seed, enum repair_method m, struct repair_eval *out)
{
	size_t nrow = rows(s, e), ne = 0, left = 0;
	uint64_t *est = malloc((nrow + 1) * sizeof(*est)), x = seed * 2654435761u + 1;
	double *err = malloc((nrow + 1) * sizeof(*err)), sum = 0;
	bool *hid = calloc(nrow + 1, sizeof(*hid));

	memset(out, 0, sizeof(*out));
	out->rate = rate;
	out->burst = burst;
	out->event = e;
	out->method = m;
	if (!est || !err || !hid) {
		free(est);
		free(err);
		free(hid);
		return -ENOMEM;
	}
	repair_order(s, e);
	/* the same requests hidden for every method: the seed decides */
	for (size_t i = 0; i < nrow; i++) {
		double u = (double)(xorshift(&x) >> 11) / 9007199254740992.0;

		if (!hideable(s, i, e))
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
		*miss_flag(s, i, e) = true;
		out->hidden++;
	}
	repair_estimate(s, e, m, est);
	for (size_t i = 0; i < nrow; i++) {
		uint64_t t = truth_of(s, i, e);

		if (!hid[i])
			continue;
		*miss_flag(s, i, e) = false;
		if (!est[i]) {
			out->refused++;
			continue;
		}
		err[ne] = est[i] > t ? (double)(est[i] - t) : (double)(t - est[i]);
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
