// SPDX-License-Identifier: GPL-2.0
/*
 * iosector: the sector of each request and the seek distance to it, in
 * issue (dispatch) order per device: start(n) - end(n-1), signed in the
 * series, its absolute value in the statistics.
 */
#include "analyzer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/grow.h"

/* a request as issued: 24 bytes until finish, where the issue order is
 * made (the join gives them in completion order) */
struct io_at {
	uint64_t t, sector;
	uint32_t nr;
};

struct io_dev {
	struct io_at *v;
	size_t n, cap;
};

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

static void request(struct analysis *a, void *priv, struct dev_result *d,
		    const struct join_request *r)
{
	struct iosector_priv *p = priv;
	struct io_dev *v;

	if (opg_of(r->flags) < 0 || !(r->d_ns || r->bio_only))
		return;
	v = dev_at(p, (size_t)(d - a->devs));
	if (!v || GROW(v->v, v->n + 1, v->cap)) {
		analysis_note_err(a, -ENOMEM);
		return;
	}
	v->v[v->n++] =
	    (struct io_at){r->d_ns ? r->d_ns : r->q_ns, r->sector, r->nr_sectors};
}

static int cmp_at(const void *x, const void *y)
{
	const struct io_at *a = x, *b = y;

	return (a->t > b->t) - (a->t < b->t);
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

/* the issue order is made at finish: a later part's requests appended */
static int merge(struct analysis *a, void *priv, const struct analysis *src,
		 void *src_priv, const size_t *devmap)
{
	struct iosector_priv *p = priv, *s = src_priv;

	for (size_t i = 0; i < s->nr_dev; i++) {
		struct io_dev *v;

		if (!s->dev[i].n)
			continue;
		v = dev_at(p, devmap[i]);
		if (!v || APPEND(v->v, v->n, v->cap, s->dev[i].v, s->dev[i].n))
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
