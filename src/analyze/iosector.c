// SPDX-License-Identifier: GPL-2.0
/*
 * iosector: the sector of each request and the seek distance to it, in
 * issue (dispatch) order per device: start(n) - end(n-1), signed in the
 * series, its absolute value in the statistics.
 */
#include "analyzer.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../util/grow.h"

/* a request as issued: 24 bytes until finish; seq, its place among its
 * device's as they came (modulo 2^32), breaks ties in time */
struct io_at {
	uint64_t t, sector;
	uint32_t nr, seq;
};

/* A device's requests in issue order (by time, then as they came), kept so
 * as they come: the join gives them in completion order, which is issue
 * order but for the requests a queue's depth apart, so each goes in a few
 * places from the end at most (a sort at finish took as long again as the
 * rest of the report on a 3.8 GB trace, and its copy half as much memory).
 * A device whose requests came further out of order than INSERT_MOVES a
 * request (a request held for long, a crafted trace) takes them at the end
 * from then on, and is sorted at finish by time and seq: the same order. */
struct io_dev {
	struct io_at *v;
	size_t n, cap;
	uint64_t moves;
	uint32_t arrived; /* the next seq */
	bool unsorted;
};

#define INSERT_MOVES 64

struct iosector_priv {
	struct io_dev *dev; /* by device index (a->devs) */
	size_t nr_dev, cap_dev;
	struct dev_metrics sector, seek; /* made at finish */
};

static struct io_dev *dev_at(struct iosector_priv *p, size_t idx)
{
	size_t old = p->cap_dev;

	if (idx >= p->cap_dev) {
		if (GROW(p->dev, idx + 1, p->cap_dev))
			return NULL;
		memset(p->dev + old, 0, (p->cap_dev - old) * sizeof(*p->dev));
	}
	if (idx >= p->nr_dev)
		p->nr_dev = idx + 1;
	return &p->dev[idx];
}

/* x after every request of v issued at its time or before */
static int put(struct io_dev *v, struct io_at x)
{
	size_t i;

	if (GROW(v->v, v->n + 1, v->cap))
		return -ENOMEM;
	x.seq = v->arrived++;
	i = v->n++;
	if (!v->unsorted) {
		size_t at = i;

		while (at > 0 && v->v[at - 1].t > x.t)
			at--;
		v->moves += i - at;
		if (v->moves > INSERT_MOVES * (uint64_t)(v->n + 1024))
			v->unsorted = true; /* what is in place stays: sorted */
		else if (at < i) {
			memmove(v->v + at + 1, v->v + at, (i - at) * sizeof(*v->v));
			i = at;
		}
	}
	v->v[i] = x;
	return 0;
}

static void request(struct analysis *a, void *priv, struct dev_result *d,
		    const struct join_request *r)
{
	struct iosector_priv *p = priv;
	struct io_dev *v;

	if (opg_of(r->flags) < 0 || !(r->d_ns || r->bio_only))
		return;
	v = dev_at(p, (size_t)(d - a->devs));
	if (!v ||
	    put(v, (struct io_at){r->d_ns ? r->d_ns : r->q_ns, r->sector, r->nr_sectors}))
		analysis_note_err(a, -ENOMEM);
}

static int cmp_at(const void *x, const void *y)
{
	const struct io_at *a = x, *b = y;

	if (a->t != b->t)
		return a->t > b->t ? 1 : -1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

/* A device's requests in issue order into its two metrics: the sector,
 * and the seek to it, start(n) - end(n-1) (signed in the series, its
 * absolute value in the statistics); with times only for the series
 * view, else values (in buckets past METRIC_EXACT_MAX, metric.h) */
static int seeks(struct io_dev *v, struct metric *sector, struct metric *seek)
{
	int err = 0;

	if (!v->n)
		return 0;
	if (v->unsorted)
		qsort(v->v, v->n, sizeof(*v->v), cmp_at);
	if (seek->keep_time && !(seek->sv = malloc(v->n * sizeof(*seek->sv))))
		return -ENOMEM;
	for (size_t i = 0; i < v->n && !err; i++) {
		const struct io_at *x = &v->v[i];
		/* in unsigned arithmetic, which wraps: a crafted trace's
		 * sectors far apart overflowed the signed difference */
		uint64_t d = i ? x->sector - (x[-1].sector + x[-1].nr) : 0;
		int64_t diff = (int64_t)d;

		if (seek->sv)
			seek->sv[i] = diff;
		err = metric_add(sector, x->t, x->sector)
			  ?: metric_add(seek, x->t, diff < 0 ? 0 - d : d);
	}
	free(v->v);
	v->v = NULL;
	v->n = v->cap = 0;
	return err;
}

static int finish(struct analysis *a, struct an_output *o)
{
	struct iosector_priv *p = o->priv;

	for (size_t i = 0; i < p->nr_dev; i++) {
		struct metric *ms, *mk;
		int err;

		if (!p->dev[i].n)
			continue;
		ms = dev_metric(a, &p->sector, &a->devs[i], "sector", "sectors",
				a->env.keep_time);
		mk = dev_metric(a, &p->seek, &a->devs[i], "seek", "sectors",
				a->env.keep_time);
		if (!ms || !mk)
			return -ENOMEM;
		err = seeks(&p->dev[i], ms, mk);
		if (err)
			return err;
	}
	for (size_t i = 0; i < p->sector.nr; i++) {
		an_output_metric(a, o, &p->sector.m[i]);
		an_output_metric(a, o, &p->seek.m[i]);
	}
	return 0;
}

/* a later part's requests, each put in after those before it, as one
 * thread would have: in the part's order (issue order, or with ties as
 * they came where the part fell back) */
static int merge(struct analysis *a, void *priv, const struct analysis *src,
		 void *src_priv, const size_t *devmap)
{
	struct iosector_priv *p = priv, *s = src_priv;

	for (size_t i = 0; i < s->nr_dev; i++) {
		const struct io_dev *from = &s->dev[i];
		struct io_dev *v;

		if (!from->n)
			continue;
		v = dev_at(p, devmap[i]);
		if (!v)
			return -ENOMEM;
		/* a part's first request at or after the last before it (most
		 * parts): the part's requests go at the end whole */
		if (!v->unsorted && !from->unsorted &&
		    (!v->n || v->v[v->n - 1].t <= from->v[0].t)) {
			if (APPEND(v->v, v->n, v->cap, from->v, from->n))
				return -ENOMEM;
			for (size_t k = v->n - from->n; k < v->n; k++)
				v->v[k].seq = v->arrived++; /* after those before */
			continue;
		}
		for (size_t k = 0; k < from->n; k++)
			if (put(v, from->v[k]))
				return -ENOMEM;
	}
	return 0;
}

static void release(void *priv)
{
	struct iosector_priv *p = priv;

	for (size_t i = 0; i < p->nr_dev; i++)
		free(p->dev[i].v);
	free(p->dev);
	dev_metrics_release(&p->sector);
	dev_metrics_release(&p->seek);
}

const struct analyzer an_iosector = {
    .name = "iosector",
    .help = "sector and seek distance of each request, in issue order",
    .priv_size = sizeof(struct iosector_priv),
    .metric_unit = "sectors",
    .request = request,
    .merge = merge,
    .finish = finish,
    .release = release,
};
