// SPDX-License-Identifier: GPL-2.0
/*
 * The segment-parallel join (parallel.h).
 *
 * The calling thread reads the records into segments of seg_recs. Each
 * segment but the first is joined by a worker from an empty state, its
 * outputs written to a log, and its state taken down in canonical form
 * (canon.c) at a few checkpoints near its start, 1/8 of the way and then
 * twice as far each time, up to half way.
 *
 * The first segment's join starts where the trace starts: it is the
 * trace's own. When it has joined its segment, a worker runs it on into
 * the next, checkpoint by checkpoint: where its state is the same as the
 * next segment's at the same checkpoint, the two will give the same
 * outputs from there on. The next segment's log is taken from that
 * checkpoint, its join becomes the trace's own, and it runs on into the
 * segment after (the chain). A join whose state never met the next
 * segment's moves into that segment's place and joins it whole itself. So
 * the outputs are one join's, whatever the threads, and what a segment
 * costs twice is the stretch until the states meet: the requests, calls
 * and io_uring requests open at its boundary. What records alone write
 * (each CPU's plain BIO_INFO, each task's last fault, the dirtiers'
 * tgids) the reader keeps as it reads, and hands to each segment's join
 * at its start (join_seed). The dirtier map is not such: a page leaves it
 * when its writeback is seen, which the state decides; a trace with pages
 * dirtied and not yet written back meets only once they are.
 *
 * A third thread replays the logs, in segment order, into the sink. Or,
 * with parts (cfg->part_sink), a worker runs each whole log through a
 * part's sink, several at once, and the replay thread merges the parts in
 * order: what the sink does then runs on every core too.
 *
 * Or the segments are read on the workers themselves (cfg->fill: a trace
 * whose stretches of time each have a merge of their own, reader.h), so
 * that no thread reads every record: a worker reads the next segment when
 * its slot is free, with the facts its records write by themselves (a
 * seed of its own, from empty), and the segments are then put in order one
 * at a time, each given the facts before it (the seeds of those before
 * merged, join_seed_merge).
 */
#include "parallel.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../util/clock.h"
#include "../util/grow.h"
#include "outlog.h"

/* ---- segments ------------------------------------------------------------ */

struct snap {
	uint64_t at;	/* records of the segment joined */
	size_t log_off; /* the log's length then */
	struct join_stats st;
	uint64_t sizes[JOIN_NR_SIZES];
	uint64_t floor_next, floor_pin; /* where the sink's next floor falls */
	unsigned char *form;		/* the canonical form, NULL: ambiguous */
	size_t form_len;
};

#define MAX_SNAPS 32

enum seg_state {
	SEG_FREE,    /* its slot is free */
	SEG_FILLING, /* the reader fills it */
	SEG_READ,    /* a worker read it (cfg->fill): its seed is to be set */
	SEG_READY,   /* its records are in */
	SEG_OWN,     /* joined from empty by a worker */
	SEG_JOINED,  /* that done: its checkpoints are known */
};

struct seg {
	enum seg_state state;
	uint64_t idx;
	struct iot_rec *recs;
	size_t n, cap;
	struct join jn;
	bool has_jn;
	struct outlog log;
	struct snap snaps[MAX_SNAPS];
	unsigned int nr_snaps;
	/* where its outputs begin: a checkpoint's log offset and counts (the
	 * first segment: 0) */
	size_t from;
	struct join_stats base;
	struct join_stats end;	/* its join's counts where its outputs end */
	struct join_seed seed;	/* the facts as they stood at its start */
	struct join_seed delta; /* cfg->fill: the facts its records write */
	bool final;		/* its log is whole: to replay */
	bool parted;		/* cfg->part_sink: its log ran through its part */
};

struct par {
	const struct join_par_config *cfg;
	uint64_t seg_recs;
	struct seg *segs; /* a ring of nr_slots */
	unsigned int nr_slots;
	uint64_t filled;   /* segments the reader has begun */
	uint64_t replayed; /* segments replayed and their slots freed */
	uint64_t nr_segs;  /* the number of segments, once the last is known */
	bool last_known;
	uint64_t next_own;     /* the lowest segment no worker has taken */
	uint64_t seeded;       /* cfg->fill: segments put in order */
	uint64_t next_part;    /* the lowest segment no worker ran into a part
				  (segments are made final in order) */
	bool seq_busy;	       /* a worker puts one in order */
	struct join_seed seed; /* the facts, as the reader has read on */
	/* the chain: the trace's own join is segment chain's; it runs on into
	 * segment target once that one is joined (busy: a worker has it) */
	uint64_t chain, target;
	bool chain_busy, chain_done;
	int err;
	struct join_par_result *res;
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

static struct seg *slot(struct par *p, uint64_t s)
{
	return &p->segs[s % p->nr_slots];
}

unsigned int join_par_slots(unsigned int workers)
{
	/* the chain's, each worker's, the one being read, and some slack
	 * for the replay */
	return (workers ? workers : 1) + 4;
}

/* Whether a worker's work is done: the chain's end reached, and with
 * parts, every segment run into its part */
static bool all_done(const struct par *p)
{
	return p->chain_done && (!p->cfg->part_sink || p->next_part >= p->nr_segs);
}

/* A whole log through its part (cfg->part_sink) */
static int run_part(struct par *p, struct seg *g)
{
	struct join_sink k;
	int err =
	    p->cfg->part_sink(p->cfg->part_ctx, (unsigned int)(g->idx % p->nr_slots), &k);

	if (!err) {
		outlog_replay(&g->log, g->from, g->log.len, &k);
		if (p->cfg->part_end)
			p->cfg->part_end(p->cfg->part_ctx,
					 (unsigned int)(g->idx % p->nr_slots));
	}
	return err;
}

static void fail(struct par *p, int err)
{
	pthread_mutex_lock(&p->mu);
	if (!p->err)
		p->err = err;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

static int feed(struct join *j, const struct iot_rec *r, size_t from, size_t to)
{
	const struct iot_rec *run[64];

	while (from < to) {
		size_t m = to - from < 64 ? to - from : 64;

		for (size_t q = 0; q < m; q++)
			run[q] = &r[from + q];
		if (join_feed_n(j, run, m))
			return -ENOMEM;
		from += m;
	}
	return 0;
}

static int take_snap(struct seg *g, struct join_canon *scratch, uint64_t at)
{
	struct snap *sn = &g->snaps[g->nr_snaps];

	if (join_canon(&g->jn, scratch))
		return -ENOMEM;
	sn->at = at;
	g->log.last_src = NULL; /* a bio after here names a request after here */
	sn->log_off = g->log.len;
	sn->st = g->jn.st;
	join_sizes(&g->jn, sn->sizes);
	sn->floor_next = g->jn.floor_next;
	sn->floor_pin = g->jn.floor_pin;
	sn->form = NULL;
	sn->form_len = 0;
	if (!scratch->ambiguous) {
		sn->form = malloc(scratch->len ? scratch->len : 1);
		if (!sn->form)
			return -ENOMEM;
		if (scratch->len) /* an empty state: no bytes, maybe no buffer */
			memcpy(sn->form, scratch->out, scratch->len);
		sn->form_len = scratch->len;
	}
	g->nr_snaps++;
	return 0;
}

static int join_start(struct par *p, struct seg *g)
{
	struct join_sink k = outlog_sink(&g->log, &p->cfg->sink);

	outlog_clear(&g->log);
	if (join_init(&g->jn, &k, p->cfg->is_bio_based, p->cfg->dev_ctx))
		return -ENOMEM;
	g->has_jn = true;
	g->jn.syscall_nr = p->cfg->syscall_nr;
	g->jn.bi_elided = p->cfg->bi_elided;
	g->jn.gaps = p->cfg->gaps;
	return 0;
}

/* A segment joined from an empty state (the first: from the trace's
 * start, with no checkpoints) */
static int own(struct par *p, struct seg *g, struct join_canon *scratch)
{
	uint64_t at;
	size_t done = 0;
	int err = join_start(p, g);

	g->nr_snaps = 0;
	if (!err && g->idx && join_seed_apply(&g->jn, &g->seed))
		err = -ENOMEM;
	if (err || !g->idx)
		return err ? err : feed(&g->jn, g->recs, 0, g->n);
	at = g->n / 8 < 256 ? g->n / 8 : 256;
	for (; at && at <= g->n / 2 && g->nr_snaps < MAX_SNAPS && !err; at *= 2) {
		err = feed(&g->jn, g->recs, done, at);
		done = at;
		if (!err)
			err = take_snap(g, scratch, at);
	}
	if (!err)
		err = feed(&g->jn, g->recs, done, g->n);
	return err ? err : g->log.err ? -ENOMEM : 0;
}

/* Whether the trace's join a, at checkpoint sn of segment t, has t's
 * state: then t's join is the trace's own from there */
static bool met(struct join *a, const struct snap *sn, struct join_canon *scratch,
		int *err)
{
	uint64_t sizes[JOIN_NR_SIZES];

	join_sizes(a, sizes);
	/* and the floors to come (join_sink.floor): from the same places,
	 * the same values */
	if (!sn->form || memcmp(sizes, sn->sizes, sizeof(sizes)) ||
	    a->floor_next != sn->floor_next || a->floor_pin != sn->floor_pin)
		return false;
	if (join_canon(a, scratch)) {
		*err = -ENOMEM;
		return false;
	}
	if (scratch->ambiguous || scratch->len != sn->form_len ||
	    (sn->form_len && memcmp(scratch->out, sn->form, sn->form_len)))
		return false;
	return true;
}

/* The trace's join (segment c's) into segment t, whose own join it
 * replaces: from t's log's start, and with t's counts (base) its own */
static void move_join(struct seg *c, struct seg *t)
{
	c->end = c->jn.st;
	c->has_jn = false;
	join_release(&t->jn);
	for (unsigned int k = 0; k < t->nr_snaps; k++)
		free(t->snaps[k].form);
	t->nr_snaps = 0;
	t->jn = c->jn;
	outlog_clear(&t->log);
	t->jn.sink.ctx = &t->log;
	t->from = 0;
	t->base = c->end;
}

/* The chain's step: the trace's join (segment c's) run into segment t,
 * which is joined. Under p->mu on entry and exit. */
static void chain_step(struct par *p, struct join_canon *scratch)
{
	struct seg *c = slot(p, p->chain), *t;
	int err = 0;
	size_t pos = 0;

	if (p->target >= p->nr_segs && p->last_known) { /* c holds the end */
		pthread_mutex_unlock(&p->mu);
		join_end(&c->jn);
		pthread_mutex_lock(&p->mu);
		if (c->log.err && !p->err)
			p->err = -ENOMEM;
		c->end = c->jn.st;
		c->final = true;
		p->chain_done = true;
		return;
	}
	t = slot(p, p->target);
	pthread_mutex_unlock(&p->mu);
	for (unsigned int k = 0; k < t->nr_snaps && !err; k++) {
		const struct snap *sn = &t->snaps[k];

		err = feed(&c->jn, t->recs, pos, sn->at);
		pos = sn->at;
		if (!err && met(&c->jn, sn, scratch, &err)) {
			pthread_mutex_lock(&p->mu);
			p->res->stitched++;
			p->res->overlap += pos;
			t->from = sn->log_off;
			t->base = sn->st;
			c->end = c->jn.st;
			if (c->log.err && !p->err)
				p->err = -ENOMEM;
			c->final = true;
			p->chain = p->target++;
			return;
		}
	}
	/* never met: t is joined by the trace's join, which moves to t */
	pthread_mutex_lock(&p->mu);
	move_join(c, t);
	if ((err || c->log.err) && !p->err)
		p->err = err ? err : -ENOMEM;
	c->final = true; /* the replayer may free it from here on */
	p->chain = p->target++;
	p->res->rejoined += t->n != 0;
	p->res->overlap += t->n;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	if (!err)
		err = feed(&t->jn, t->recs, pos, t->n);
	pthread_mutex_lock(&p->mu);
	if (err && !p->err)
		p->err = err;
}

/* cfg->fill: segment g read, and the facts its records write */
static int read_seg(struct par *p, struct seg *g)
{
	int err;

	g->n = 0;
	join_seed_release(&g->delta);
	err = join_seed_init(&g->delta);
	if (!err)
		err = p->cfg->fill(p->cfg->src_ctx, g->idx, &g->recs, &g->n, &g->cap);
	for (size_t i = 0; i < g->n && !err; i++)
		err = join_seed_feed(&g->delta, &g->recs[i], p->cfg->bi_elided);
	return err;
}

/* cfg->fill: segment g, the next in order, given the facts before it */
static int in_order(struct par *p, struct seg *g)
{
	int err = join_seed_copy(&g->seed, &p->seed);

	if (!err)
		err = join_seed_merge(&p->seed, &g->delta);
	join_seed_release(&g->delta);
	if (!err && p->cfg->in_order)
		p->cfg->in_order(p->cfg->src_ctx, g->idx);
	return err;
}

static void *worker(void *arg)
{
	struct par *p = arg;
	struct join_canon scratch = {0};
	uint64_t cpu = now_ns(CLOCK_THREAD_CPUTIME_ID);

	pthread_mutex_lock(&p->mu);
	for (;;) {
		if (p->err || all_done(p))
			break;
		/* the chain first: everything after it waits on it */
		if (!p->chain_busy && !p->chain_done &&
		    slot(p, p->chain)->state == SEG_JOINED &&
		    ((p->last_known && p->target >= p->nr_segs) ||
		     (p->target < p->filled &&
		      slot(p, p->target)->state == SEG_JOINED))) {
			p->chain_busy = true;
			chain_step(p, &scratch);
			p->chain_busy = false;
			pthread_cond_broadcast(&p->cv);
			continue;
		}
		if (p->cfg->fill && !p->seq_busy && p->seeded < p->filled &&
		    slot(p, p->seeded)->state == SEG_READ) {
			struct seg *g = slot(p, p->seeded);
			int err;

			p->seq_busy = true;
			pthread_mutex_unlock(&p->mu);
			err = in_order(p, g);
			pthread_mutex_lock(&p->mu);
			if (err && !p->err)
				p->err = err;
			g->state = SEG_READY;
			p->seeded++;
			p->seq_busy = false;
			pthread_cond_broadcast(&p->cv);
			continue;
		}
		/* then the parts: a segment's slot is free once merged */
		if (p->cfg->part_sink && p->next_part < p->filled &&
		    slot(p, p->next_part)->idx == p->next_part &&
		    slot(p, p->next_part)->final) {
			struct seg *g = slot(p, p->next_part++);
			int err;

			pthread_mutex_unlock(&p->mu);
			err = run_part(p, g);
			pthread_mutex_lock(&p->mu);
			if (err && !p->err)
				p->err = err;
			g->parted = true;
			p->res->parts++;
			pthread_cond_broadcast(&p->cv);
			continue;
		}
		if (p->next_own < p->filled && slot(p, p->next_own)->state == SEG_READY) {
			struct seg *g = slot(p, p->next_own++);
			int err;

			g->state = SEG_OWN;
			pthread_mutex_unlock(&p->mu);
			err = own(p, g, &scratch);
			pthread_mutex_lock(&p->mu);
			if (err && !p->err)
				p->err = err;
			g->state = SEG_JOINED;
			pthread_cond_broadcast(&p->cv);
			continue;
		}
		if (p->cfg->fill && p->filled < p->nr_segs &&
		    p->filled - p->replayed < p->nr_slots) {
			struct seg *g = slot(p, p->filled);
			int err;

			g->state = SEG_FILLING;
			g->idx = p->filled++;
			pthread_mutex_unlock(&p->mu);
			err = read_seg(p, g);
			pthread_mutex_lock(&p->mu);
			if (err && !p->err)
				p->err = err;
			g->state = SEG_READ;
			pthread_cond_broadcast(&p->cv);
			continue;
		}
		pthread_cond_wait(&p->cv, &p->mu);
	}
	join_canon_release(&scratch);
	cpu = now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu;
	p->res->cpu_workers_ns += cpu;
	if (cpu > p->res->cpu_worker_max_ns)
		p->res->cpu_worker_max_ns = cpu;
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

static void seg_clear(struct seg *g)
{
	if (g->has_jn)
		join_release(&g->jn);
	g->has_jn = false;
	for (unsigned int k = 0; k < g->nr_snaps; k++)
		free(g->snaps[k].form);
	g->nr_snaps = 0;
	g->from = 0;
	memset(&g->base, 0, sizeof(g->base));
	memset(&g->end, 0, sizeof(g->end));
	g->final = false;
	g->parted = false;
	g->n = 0;
}

_Static_assert(sizeof(struct join_stats) % sizeof(uint64_t) == 0,
	       "join_stats: counters only");

static void add_stats(struct join_stats *to, const struct join_stats *end,
		      const struct join_stats *base)
{
	uint64_t *t = (uint64_t *)to;
	const uint64_t *e = (const uint64_t *)end, *b = (const uint64_t *)base;

	for (size_t i = 0; i < sizeof(*to) / sizeof(uint64_t); i++)
		t[i] += e[i] - b[i];
}

/* The logs into the sink, segment by segment, each once it is whole */
static void *replayer(void *arg)
{
	struct par *p = arg;
	uint64_t cpu = now_ns(CLOCK_THREAD_CPUTIME_ID);

	pthread_mutex_lock(&p->mu);
	for (;;) {
		struct seg *g;

		while (!p->err && !(p->last_known && p->replayed >= p->nr_segs) &&
		       !(p->replayed < p->filled && slot(p, p->replayed)->final &&
			 (!p->cfg->part_sink || slot(p, p->replayed)->parted)))
			pthread_cond_wait(&p->cv, &p->mu);
		if (p->err || p->replayed >= p->nr_segs)
			break;
		g = slot(p, p->replayed);
		pthread_mutex_unlock(&p->mu);
		if (p->cfg->part_sink)
			p->cfg->part_merge(p->cfg->part_ctx,
					   (unsigned int)(g->idx % p->nr_slots));
		else
			outlog_replay(&g->log, g->from, g->log.len, &p->cfg->sink);
		add_stats(&p->res->st, &g->end, &g->base);
		seg_clear(g);
		pthread_mutex_lock(&p->mu);
		g->state = SEG_FREE;
		p->replayed++;
		pthread_cond_broadcast(&p->cv);
	}
	p->res->cpu_replay_ns = now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu;
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* The reader: the stream into segments, as slots come free */
static int read_all(struct par *p, int64_t (*pull)(void *, struct iot_rec *, size_t),
		    void *ctx)
{
	for (uint64_t s = 0;; s++) {
		struct seg *g;
		int64_t got = 0;
		bool end = false;

		pthread_mutex_lock(&p->mu);
		while (!p->err && s - p->replayed >= p->nr_slots)
			pthread_cond_wait(&p->cv, &p->mu);
		if (p->err) {
			pthread_mutex_unlock(&p->mu);
			return p->err;
		}
		g = slot(p, s);
		g->state = SEG_FILLING;
		g->idx = s;
		p->filled = s + 1;
		pthread_mutex_unlock(&p->mu);
		if (GROW(g->recs, p->seg_recs, g->cap) ||
		    join_seed_copy(&g->seed, &p->seed))
			got = -ENOMEM;
		while (got >= 0 && g->n < p->seg_recs) {
			got = pull(ctx, g->recs + g->n, p->seg_recs - g->n);
			if (got <= 0)
				break;
			for (int64_t i = 0; i < got; i++)
				if (join_seed_feed(&p->seed, &g->recs[g->n + i],
						   p->cfg->bi_elided))
					got = -ENOMEM;
			if (got < 0)
				break;
			g->n += (size_t)got;
		}
		if (got < 0) {
			fail(p, (int)got);
			return (int)got;
		}
		end = got == 0;
		pthread_mutex_lock(&p->mu);
		g->state = SEG_READY;
		if (end) {
			p->nr_segs = s + 1;
			p->last_known = true;
		}
		p->res->segments = s + 1;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
		if (end)
			return 0;
	}
}

int join_par_run(const struct join_par_config *cfg,
		 int64_t (*pull)(void *ctx, struct iot_rec *buf, size_t max), void *ctx,
		 struct join_par_result *res)
{
	struct par p = {.cfg = cfg, .res = res};
	unsigned int w = cfg->workers ? cfg->workers : 1, started = 0;
	pthread_t *th, rth;
	bool replaying = false;
	int err;

	memset(res, 0, sizeof(*res));
	p.seg_recs = cfg->seg_recs ? cfg->seg_recs : JOIN_PAR_SEGMENT;
	p.nr_slots = join_par_slots(w);
	p.nr_segs = UINT64_MAX;
	if (cfg->fill) { /* known from the start */
		p.nr_segs = cfg->nr_segs;
		p.last_known = true;
		res->segments = cfg->nr_segs;
	}
	p.target = 1;
	p.segs = calloc(p.nr_slots, sizeof(*p.segs));
	th = calloc(w, sizeof(*th));
	if (!p.segs || !th) {
		free(p.segs);
		free(th);
		return -ENOMEM;
	}
	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.cv, NULL);
	err = join_seed_init(&p.seed);
	for (unsigned int i = 0; i < p.nr_slots && !err; i++)
		err = join_seed_init(&p.segs[i].seed) ?: join_seed_init(&p.segs[i].delta);
	if (err) {
		p.err = err;
		goto out;
	}
	replaying = !pthread_create(&rth, NULL, replayer, &p);
	if (replaying) /* named for perf and top */
		pthread_setname_np(rth, "iotrail-replay");
	while (replaying && started < w &&
	       !pthread_create(&th[started], NULL, worker, &p))
		pthread_setname_np(th[started++], "iotrail-join");
	if (!replaying || !started) {
		fail(&p, -EAGAIN);
	} else if (cfg->fill) {
		worker(&p); /* this thread too: nothing to read in order */
	} else {
		uint64_t cpu = now_ns(CLOCK_THREAD_CPUTIME_ID);

		read_all(&p, pull, ctx);
		res->cpu_read_ns = now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu;
	}
	for (unsigned int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	if (replaying)
		pthread_join(rth, NULL);
out:
	err = p.err;
	join_seed_release(&p.seed);
	for (unsigned int i = 0; i < p.nr_slots; i++) {
		join_seed_release(&p.segs[i].seed);
		join_seed_release(&p.segs[i].delta);
		seg_clear(&p.segs[i]);
		free(p.segs[i].recs);
		outlog_release(&p.segs[i].log);
	}
	free(p.segs);
	free(th);
	pthread_cond_destroy(&p.cv);
	pthread_mutex_destroy(&p.mu);
	return err;
}
