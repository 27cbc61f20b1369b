// SPDX-License-Identifier: GPL-2.0
/* elvtime: time in the I/O scheduler (I2D) of each request, per device. */
#include "analyzer.h"

static void request(struct analysis *a, void *priv, struct dev_result *d,
		    const struct join_request *r)
{
	struct dev_metrics *dm = priv;
	struct metric *m;

	if (opg_of(r->flags) < 0 || !r->i_ns || r->d_ns < r->i_ns ||
	    !(m = dev_metric(a, dm, d, "elvtime", "ns", a->env.keep_time)))
		return;
	analysis_note_err(a, metric_add(m, r->d_ns, r->d_ns - r->i_ns));
}

static void agg(struct analysis *a, void *priv, const struct iot_agg_entry *e)
{
	struct dev_metrics *dm = priv;
	struct dev_result *d;
	struct metric *m;

	if (e->metric != IOT_AGG_I2D || e->op >= NR_OPG ||
	    !(d = analysis_dev(a, e->dev)) ||
	    !(m = dev_metric(a, dm, d, "elvtime", "ns", a->env.keep_time)))
		return;
	metric_add_hist(m, e->buckets, e->sum);
}

const struct analyzer an_elvtime = {
    .name = "elvtime",
    .help = "I/O scheduler time (I2D) of each request, per device",
    .priv_size = sizeof(struct dev_metrics),
    .metric_unit = "us",
    .request = request,
    .agg = agg,
    .merge = dev_metrics_merge_hook,
    .finish = dev_metrics_finish,
    .release = dev_metrics_free,
};
