// SPDX-License-Identifier: GPL-2.0
/*
 * The analyzers in threads of their own (analysis_fanout_start): the
 * joining thread copies each join output the hooks would have seen into a
 * log of batches, and every fan-out thread runs its share of the analyzers
 * over every batch, in order. An analyzer's state is its own (analyzer.h),
 * and it sees the same outputs in the same order as in one thread, so the
 * result is the same, whatever the number of threads.
 *
 * What the threads share: the devices of the result. The joining thread
 * makes them, and counts in them (requests, sectors, flushes); analyzers
 * read their names and fill their own metrics (latency's stages). A new
 * device may move a->devs, so the joining thread first waits for every
 * thread to catch up. The trace's tables the hooks may read (devices,
 * files) are not written while joining; the task table's names (EXEC) are
 * read only at finish.
 *
 * A batch is handed on only between outputs: a request's bios are in the
 * batch of its request, and name it by its offset there.
 *
 * The analyzers' finish may run in threads too (a->threads, fanout_finish),
 * each taking the next analyzer not yet finished.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../join/outlog.h"
#include "../util/clock.h"
#include "analyzer.h"
#include "fanout.h"

#define FAN_DEPTH 8	       /* batches in the ring */
#define FAN_BATCH (256u << 10) /* bytes of a batch before it is handed on */

struct fan_thread {
	struct fanout *f;
	pthread_t th;
	struct an_hooks hooks; /* its share of the analyzers */
	uint64_t done;	       /* batches it has run */
	uint64_t cpu_ns;       /* its CPU time, once stopped */
	bool started;
};

struct fanout {
	struct analysis *a;
	struct outlog b[FAN_DEPTH]; /* the join's outputs, each entry's aux the
				       index of its device in a->devs */
	uint64_t made;		    /* batches handed on; the next is filled */
	bool stop;		    /* no more batches */
	struct fan_thread *t;
	unsigned int nr_threads;
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

static uint64_t min_done(const struct fanout *f)
{
	uint64_t m = f->made;

	for (unsigned int i = 0; i < f->nr_threads; i++)
		if (f->t[i].done < m)
			m = f->t[i].done;
	return m;
}

static void run_batch(struct analysis *a, const struct an_hooks *h,
		      const struct outlog *b)
{
	for (size_t off = 0; off < b->len;) {
		const struct outlog_ent *e = outlog_at(b, off);
		const void *x = outlog_data(e);

		switch (e->type) {
		case OUTLOG_REQUEST:
			an_hooks_request(a, h, &a->devs[e->aux], x);
			break;
		case OUTLOG_BIO:
			an_hooks_bio(a, h, &a->devs[e->aux], outlog_bio_req(b, e), x);
			break;
		case OUTLOG_SYSCALL:
			an_hooks_syscall(a, h, x);
			break;
		case OUTLOG_COMMIT:
			an_hooks_commit(a, h, x);
			break;
		case OUTLOG_URING:
			an_hooks_uring(a, h, x);
			break;
		case OUTLOG_MARK:
			an_hooks_mark(a, h, x);
			break;
		case OUTLOG_UNFINISHED:
			an_hooks_unfinished(a, h, x);
			break;
		case OUTLOG_FAULT:
			an_hooks_fault(a, h, x);
			break;
		case OUTLOG_DIRTY:
			an_hooks_dirty(a, h, x);
			break;
		case OUTLOG_FLOOR:
			an_hooks_floor(a, h, outlog_floor_ns(e));
			break;
		default: /* OUTLOG_BIO_REQ */
			break;
		}
		off += e->size;
	}
}

static void *fan_run(void *arg)
{
	struct fan_thread *t = arg;
	struct fanout *f = t->f;
	uint64_t cpu = now_ns(CLOCK_THREAD_CPUTIME_ID);

	pthread_mutex_lock(&f->mu);
	for (;;) {
		uint64_t k;

		while (t->done == f->made && !f->stop)
			pthread_cond_wait(&f->cv, &f->mu);
		if (t->done == f->made)
			break; /* stopped, and every batch run */
		k = t->done % FAN_DEPTH;
		pthread_mutex_unlock(&f->mu);
		run_batch(f->a, &t->hooks, &f->b[k]);
		pthread_mutex_lock(&f->mu);
		t->done++;
		pthread_cond_broadcast(&f->cv);
	}
	t->cpu_ns = now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu;
	pthread_mutex_unlock(&f->mu);
	return NULL;
}

/* The batch being filled to the threads, and the next slot once every
 * thread is done with what it held. */
static void hand_on(struct fanout *f)
{
	pthread_mutex_lock(&f->mu);
	f->made++;
	pthread_cond_broadcast(&f->cv);
	while (f->made - min_done(f) >= FAN_DEPTH)
		pthread_cond_wait(&f->cv, &f->mu);
	pthread_mutex_unlock(&f->mu);
	outlog_clear(&f->b[f->made % FAN_DEPTH]);
}

/* Every output so far run by every thread. */
static void catch_up(struct fanout *f)
{
	if (f->b[f->made % FAN_DEPTH].len)
		hand_on(f);
	pthread_mutex_lock(&f->mu);
	while (min_done(f) < f->made)
		pthread_cond_wait(&f->cv, &f->mu);
	pthread_mutex_unlock(&f->mu);
}

/* The batch to write an output of its own into: a full one is handed on
 * first (never between a request and its bios, which name it) */
static struct outlog *batch(struct fanout *f)
{
	if (f->b[f->made % FAN_DEPTH].len >= FAN_BATCH)
		hand_on(f);
	return &f->b[f->made % FAN_DEPTH];
}

/* out of memory, the output is lost to the analyzers, as a failed GROW in
 * a hook loses it */
static void lost(struct fanout *f, const struct outlog *b)
{
	if (b->err)
		analysis_note_err(f->a, -ENOMEM);
}

struct dev_result *fanout_dev(struct fanout *f, uint32_t dev)
{
	struct analysis *a = f->a;

	if (a->last_dev >= 0 && a->devs[a->last_dev].dev == dev)
		return &a->devs[a->last_dev];
	for (size_t i = 0; i < a->nr_devs; i++) {
		if (a->devs[i].dev == dev) {
			a->last_dev = (int)i;
			return &a->devs[i];
		}
	}
	catch_up(f); /* a->devs may move */
	return analysis_dev_slow(a, dev);
}

void fanout_request(struct fanout *f, struct dev_result *d, const struct join_request *r)
{
	struct outlog *b = batch(f);

	outlog_request(b, (uint32_t)(d - f->a->devs), r);
	lost(f, b);
}

void fanout_bio(struct fanout *f, struct dev_result *d, const struct join_request *r,
		const struct join_bio *bio)
{
	struct outlog *b = &f->b[f->made % FAN_DEPTH];

	if (outlog_needs_req(b, r)) /* its request is not in this batch */
		b = batch(f);
	outlog_bio(b, (uint32_t)(d - f->a->devs), r, bio);
	lost(f, b);
}

#define FAN_OUTPUT(hook, type, TYPE)                                                     \
	void fanout_##hook(struct fanout *f, type x)                                     \
	{                                                                                \
		struct outlog *b = batch(f);                                             \
                                                                                         \
		outlog_put(b, TYPE, 0, x, sizeof(*x));                                   \
		lost(f, b);                                                              \
	}
FAN_OUTPUT(syscall, const struct join_syscall *, OUTLOG_SYSCALL)
FAN_OUTPUT(commit, const struct join_commit *, OUTLOG_COMMIT)
FAN_OUTPUT(uring, const struct join_uring *, OUTLOG_URING)
FAN_OUTPUT(mark, const struct join_mark *, OUTLOG_MARK)
FAN_OUTPUT(unfinished, const struct join_request *, OUTLOG_UNFINISHED)
FAN_OUTPUT(fault, const struct join_fault *, OUTLOG_FAULT)
FAN_OUTPUT(dirty, const struct join_dirty *, OUTLOG_DIRTY)

void fanout_floor(struct fanout *f, uint64_t ns)
{
	struct outlog *b = batch(f);

	outlog_put(b, OUTLOG_FLOOR, 0, &ns, sizeof(ns));
	lost(f, b);
}

static void fanout_free(struct fanout *f)
{
	for (unsigned int i = 0; i < f->nr_threads; i++)
		an_hooks_release(&f->t[i].hooks);
	for (int k = 0; k < FAN_DEPTH; k++)
		outlog_release(&f->b[k]);
	free(f->t);
	pthread_cond_destroy(&f->cv);
	pthread_mutex_destroy(&f->mu);
	free(f);
}

static void stop_threads(struct fanout *f)
{
	pthread_mutex_lock(&f->mu);
	f->stop = true;
	pthread_cond_broadcast(&f->cv);
	pthread_mutex_unlock(&f->mu);
	for (unsigned int i = 0; i < f->nr_threads; i++)
		if (f->t[i].started)
			pthread_join(f->t[i].th, NULL);
}

int analysis_fanout_start(struct analysis *a, unsigned int threads)
{
	struct fanout *f;
	int err = 0;

	if (threads > a->nr_out)
		threads = (unsigned int)a->nr_out;
	if (!threads || a->fan)
		return -EINVAL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->a = a;
	pthread_mutex_init(&f->mu, NULL);
	pthread_cond_init(&f->cv, NULL);
	f->t = calloc(threads, sizeof(*f->t));
	if (!f->t) {
		fanout_free(f);
		return -ENOMEM;
	}
	f->nr_threads = threads;
	/* the analyzers dealt out in registry order */
	for (size_t i = 0; i < a->nr_out && !err; i++)
		err = an_hooks_add(&f->t[i % threads].hooks, &a->out[i]);
	for (unsigned int i = 0; i < threads && !err; i++) {
		f->t[i].f = f;
		if (pthread_create(&f->t[i].th, NULL, fan_run, &f->t[i]))
			err = -EAGAIN;
		else
			f->t[i].started = true;
	}
	if (err) {
		stop_threads(f);
		fanout_free(f);
		return err;
	}
	a->fan = f;
	return 0;
}

struct each_work {
	struct analysis *a;
	size_t n, next; /* the jobs, and the next to take */
	void (*fn)(struct analysis *a, void *ctx, size_t k);
	void *ctx;
};

static void *each_run(void *arg)
{
	struct each_work *w = arg;
	size_t k;

	while ((k = __atomic_fetch_add(&w->next, 1, __ATOMIC_RELAXED)) < w->n &&
	       !__atomic_load_n(&w->a->err, __ATOMIC_RELAXED))
		w->fn(w->a, w->ctx, k);
	return NULL;
}

void analysis_each(struct analysis *a, size_t n,
		   void (*fn)(struct analysis *a, void *ctx, size_t k), void *ctx)
{
	struct each_work w = {.a = a, .n = n, .fn = fn, .ctx = ctx};
	pthread_t th[64];
	unsigned int t = 0;

	/* the heaviest first would balance better; the jobs are dealt as
	 * they come: each thread takes the next */
	while (t + 1 < a->threads && t + 1 < n && t < 64 &&
	       !pthread_create(&th[t], NULL, each_run, &w))
		t++;
	each_run(&w);
	for (unsigned int k = 0; k < t; k++)
		pthread_join(th[k], NULL);
}

static void finish_one(struct analysis *a, void *ctx, size_t i)
{
	if (a->out[i].an->finish)
		analysis_note_err(a, a->out[i].an->finish(a, &a->out[i]));
}

void fanout_finish(struct analysis *a)
{
	analysis_each(a, a->nr_out, finish_one, NULL);
}

void analysis_fanout_end(struct analysis *a)
{
	struct fanout *f = a->fan;

	if (!f)
		return;
	catch_up(f);
	stop_threads(f);
	if (getenv("IOTRAIL_DEBUG")) { /* where a report's time goes */
		fprintf(stderr, "iotrail: analyzers on %u threads: CPU s", f->nr_threads);
		for (unsigned int i = 0; i < f->nr_threads; i++)
			fprintf(stderr, " %.3f", f->t[i].cpu_ns / 1e9);
		fputc('\n', stderr);
	}
	fanout_free(f);
	a->fan = NULL;
}
