// SPDX-License-Identifier: GPL-2.0
/*
 * iosector: the sector of each request and the seek distance to it, in
 * issue (dispatch) order per device: start(n) - end(n-1), signed in the
 * series, its absolute value in the statistics.
 */
#include "analyzer.h"

#include <errno.h>
#include <stdlib.h>

struct iosector_priv {
	struct dev_metrics sector, seek; /* seek holds the sizes until finish */
};

static void request(struct analysis *a, void *priv, struct dev_result *d,
		    const struct join_request *r)
{
	struct iosector_priv *p = priv;
	struct metric *ms, *mk;
	uint64_t t = r->d_ns ? r->d_ns : r->q_ns;

	if (opg_of(r->flags) < 0 || !(r->d_ns || r->bio_only) ||
	    !(ms = dev_metric(a, &p->sector, d, "sector", "sectors", true)) ||
	    !(mk = dev_metric(a, &p->seek, d, "seek", "sectors", true)))
		return;
	/* issue order: sorted by time in finish() */
	analysis_note_err(a, metric_add(ms, t, r->sector));
	analysis_note_err(a, metric_add(mk, t, r->nr_sectors));
}

struct pair {
	uint64_t t, sector, nr;
};

static int cmp_pair(const void *x, const void *y)
{
	const struct pair *a = x, *b = y;

	return (a->t > b->t) - (a->t < b->t);
}

static int seeks(struct metric *sector, struct metric *seek)
{
	size_t n = sector->n;
	struct pair *p;

	if (!n)
		return 0;
	p = malloc(n * sizeof(*p));
	seek->sv = malloc(n * sizeof(*seek->sv));
	if (!p || !seek->sv) {
		free(p);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		p[i] = (struct pair){sector->t[i], sector->v[i], seek->v[i]};
	qsort(p, n, sizeof(*p), cmp_pair);
	seek->sum = 0;
	for (size_t i = 0; i < n; i++) {
		/* in unsigned arithmetic, which wraps: a crafted trace's
		 * sectors far apart overflowed the signed difference */
		uint64_t d = i ? p[i].sector - (p[i - 1].sector + p[i - 1].nr) : 0;
		int64_t diff = (int64_t)d;

		sector->t[i] = p[i].t;
		sector->v[i] = p[i].sector;
		seek->t[i] = p[i].t;
		seek->sv[i] = diff;
		seek->v[i] = diff < 0 ? 0 - d : d;
		seek->sum += seek->v[i];
	}
	free(p);
	return 0;
}

static int finish(struct analysis *a, struct an_output *o)
{
	struct iosector_priv *p = o->priv;

	for (size_t i = 0; i < p->sector.nr; i++) {
		int err = seeks(&p->sector.m[i], &p->seek.m[i]);

		if (err)
			return err;
		an_output_metric(a, o, &p->sector.m[i]);
		an_output_metric(a, o, &p->seek.m[i]);
	}
	return 0;
}

/* the issue order is made at finish: a later part's samples are added */
static int merge(struct analysis *a, void *priv, const struct analysis *src,
		 void *src_priv, const size_t *devmap)
{
	struct iosector_priv *p = priv, *s = src_priv;

	return dev_metrics_merge(a, &p->sector, &s->sector, devmap)
		   ?: dev_metrics_merge(a, &p->seek, &s->seek, devmap);
}

static void release(void *priv)
{
	struct iosector_priv *p = priv;

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
