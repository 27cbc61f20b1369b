// SPDX-License-Identifier: GPL-2.0
/*
 * Packed chunks unpacked ahead of the merge (ahead.h).
 *
 * The packed chunks past those unpacked at the open are numbered in file
 * order (todo). Position p is unpacked into slot p % nr_slots by a worker,
 * once the merge has taken position p - nr_slots: so at most nr_slots
 * chunks wait, unpacked, beyond the merge's. The merge takes the positions
 * in order; one no worker has begun it unpacks itself.
 */
#include "ahead.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "reader.h"

struct ahead_slot {
	struct iot_rec *recs;
	bool done; /* recs are position's records (NULL: could not be had) */
};

struct reader_ahead {
	const struct trace_reader *r;
	size_t *todo; /* chunk indexes, in file order */
	size_t nr_todo;
	struct ahead_slot *slots;
	size_t nr_slots;
	size_t issued;	   /* positions handed out, to a worker or the merge */
	size_t taken;	   /* positions the merge has taken */
	unsigned int busy; /* workers unpacking now */
	size_t ahead;	   /* chunks the merge found unpacked (ahead_count) */
	bool pause;	   /* a reset waits for the busy ones */
	bool quit;
	pthread_t *th;
	unsigned int nr_th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

static bool work_for_one(const struct reader_ahead *a)
{
	return !a->pause && a->issued < a->nr_todo && a->issued < a->taken + a->nr_slots;
}

static void *ahead_main(void *arg)
{
	struct reader_ahead *a = arg;

	pthread_mutex_lock(&a->mu);
	for (;;) {
		struct ahead_slot *s;
		struct iot_rec *recs;
		size_t p;

		while (!a->quit && !work_for_one(a))
			pthread_cond_wait(&a->cv, &a->mu);
		if (a->quit)
			break;
		p = a->issued++;
		s = &a->slots[p % a->nr_slots];
		a->busy++;
		pthread_mutex_unlock(&a->mu);
		recs = trace_reader_unpack(a->r, &a->r->chunks[a->todo[p]]);
		pthread_mutex_lock(&a->mu);
		s->recs = recs;
		s->done = true;
		a->busy--;
		pthread_cond_broadcast(&a->cv);
	}
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

static void drop_slots(struct reader_ahead *a)
{
	for (size_t i = 0; i < a->nr_slots; i++) {
		free(a->slots[i].recs);
		a->slots[i].recs = NULL;
		a->slots[i].done = false;
	}
}

static void ahead_free(struct reader_ahead *a)
{
	drop_slots(a);
	pthread_cond_destroy(&a->cv);
	pthread_mutex_destroy(&a->mu);
	free(a->slots);
	free(a->todo);
	free(a->th);
	free(a);
}

struct reader_ahead *ahead_start(const struct trace_reader *r, size_t *todo,
				 size_t nr_todo, unsigned int workers)
{
	struct reader_ahead *a;

	if (!nr_todo || !workers) {
		free(todo);
		return NULL;
	}
	a = calloc(1, sizeof(*a));
	if (!a) {
		free(todo);
		return NULL;
	}
	a->r = r;
	a->todo = todo;
	a->nr_todo = nr_todo;
	a->nr_slots = 2 * (size_t)workers;
	a->slots = calloc(a->nr_slots, sizeof(*a->slots));
	a->th = calloc(workers, sizeof(*a->th));
	pthread_mutex_init(&a->mu, NULL);
	pthread_cond_init(&a->cv, NULL);
	if (!a->slots || !a->th) {
		ahead_free(a);
		return NULL;
	}
	while (a->nr_th < workers &&
	       !pthread_create(&a->th[a->nr_th], NULL, ahead_main, a))
		a->nr_th++;
	if (!a->nr_th) {
		ahead_free(a);
		return NULL;
	}
	return a;
}

struct iot_rec *ahead_take(struct reader_ahead *a, size_t k)
{
	struct iot_rec *recs;
	struct ahead_slot *s;
	size_t p;
	bool next;

	pthread_mutex_lock(&a->mu);
	next = a->taken < a->nr_todo && a->todo[a->taken] == k;
	if (!next || a->taken == a->issued) {
		/* not the next position, or no worker has begun it: ours */
		if (next) {
			a->issued++;
			a->taken++;
			pthread_cond_broadcast(&a->cv);
		}
		pthread_mutex_unlock(&a->mu);
		return trace_reader_unpack(a->r, &a->r->chunks[k]);
	}
	p = a->taken;
	s = &a->slots[p % a->nr_slots];
	while (!s->done)
		pthread_cond_wait(&a->cv, &a->mu);
	recs = s->recs;
	s->recs = NULL;
	s->done = false;
	a->taken++;
	a->ahead++;
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
	return recs;
}

size_t ahead_count(struct reader_ahead *a)
{
	size_t n;

	pthread_mutex_lock(&a->mu);
	n = a->ahead;
	pthread_mutex_unlock(&a->mu);
	return n;
}

unsigned int ahead_workers(const struct reader_ahead *a)
{
	return a->nr_th;
}

void ahead_reset(struct reader_ahead *a)
{
	pthread_mutex_lock(&a->mu);
	a->pause = true;
	while (a->busy)
		pthread_cond_wait(&a->cv, &a->mu);
	drop_slots(a);
	a->issued = a->taken = 0;
	a->pause = false;
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
}

void ahead_stop(struct reader_ahead *a)
{
	pthread_mutex_lock(&a->mu);
	a->quit = true;
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
	for (unsigned int i = 0; i < a->nr_th; i++)
		pthread_join(a->th[i], NULL);
	ahead_free(a);
}
