// SPDX-License-Identifier: GPL-2.0
/* elvtime: time in the I/O scheduler (I2D) of each request, per device. */
#include "analyzer.h"

struct elvtime_priv {
	struct dev_metrics i2d;
};

static void request(struct analysis *a, void *priv, struct dev_result *d,
		    const struct join_request *r)
{
	struct elvtime_priv *p = priv;
	struct metric *m;

	if (opg_of(r->flags) < 0 || !r->i_ns || r->d_ns < r->i_ns ||
	    !(m = dev_metric(a, &p->i2d, d, "elvtime", "ns", a->env.keep_time)))
		return;
	analysis_note_err(a, metric_add(m, r->d_ns, r->d_ns - r->i_ns));
}

static void agg(struct analysis *a, void *priv, const struct iot_agg_entry *e)
{
	struct elvtime_priv *p = priv;
	struct dev_result *d;
	struct metric *m;

	if (e->metric != IOT_AGG_I2D || e->op >= NR_OPG ||
	    !(d = analysis_dev(a, e->dev)) ||
	    !(m = dev_metric(a, &p->i2d, d, "elvtime", "ns", a->env.keep_time)))
		return;
	metric_add_hist(m, e->buckets, e->sum);
}

static int finish(struct analysis *a, struct an_output *o)
{
	struct elvtime_priv *p = o->priv;

	for (size_t i = 0; i < p->i2d.nr; i++)
		an_output_metric(a, o, &p->i2d.m[i]);
	return 0;
}

static void release(void *priv)
{
	dev_metrics_release(&((struct elvtime_priv *)priv)->i2d);
}

const struct analyzer an_elvtime = {
    .name = "elvtime",
    .help = "I/O scheduler time (I2D) of each request, per device",
    .priv_size = sizeof(struct elvtime_priv),
    .metric_unit = "us",
    .request = request,
    .agg = agg,
    .finish = finish,
    .release = release,
};
