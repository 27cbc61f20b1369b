// SPDX-License-Identifier: GPL-2.0
/* biotime: Q2C of each bio, per device, reads and writes together. */
#include "analyzer.h"

struct biotime_priv {
	struct dev_metrics q2c;
};

static void bio(struct analysis *a, void *priv, struct dev_result *d,
		const struct join_request *r, const struct join_bio *b)
{
	struct biotime_priv *p = priv;
	struct metric *m;

	if (opg_of(r->flags) < 0 || !b->q_ns || r->c_ns < b->q_ns ||
	    !(m = dev_metric(a, &p->q2c, d, "biotime", "ns", a->env.keep_time)))
		return;
	analysis_note_err(a, metric_add(m, r->c_ns, r->c_ns - b->q_ns));
}

static void agg(struct analysis *a, void *priv, const struct iot_agg_entry *e)
{
	struct biotime_priv *p = priv;
	struct dev_result *d;
	struct metric *m;

	if (e->metric != IOT_AGG_Q2C || e->op >= NR_OPG ||
	    !(d = analysis_dev(a, e->dev)) ||
	    !(m = dev_metric(a, &p->q2c, d, "biotime", "ns", a->env.keep_time)))
		return;
	metric_add_hist(m, e->buckets, e->sum);
}

static int finish(struct analysis *a, struct an_output *o)
{
	struct biotime_priv *p = o->priv;

	for (size_t i = 0; i < p->q2c.nr; i++)
		an_output_metric(a, o, &p->q2c.m[i]);
	return 0;
}

static void release(void *priv)
{
	dev_metrics_release(&((struct biotime_priv *)priv)->q2c);
}

const struct analyzer an_biotime = {
    .name = "biotime",
    .help = "Q2C of each bio, per device",
    .priv_size = sizeof(struct biotime_priv),
    .metric_unit = "us",
    .bio = bio,
    .agg = agg,
    .finish = finish,
    .release = release,
};
