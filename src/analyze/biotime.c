// SPDX-License-Identifier: GPL-2.0
/* biotime: Q2C of each bio, per device, reads and writes together. */
#include "analyzer.h"

static void bio(struct analysis *a, void *priv, struct dev_result *d,
		const struct join_request *r, const struct join_bio *b)
{
	struct dev_metrics *dm = priv;
	struct metric *m;

	if (opg_of(r->flags) < 0 || !b->q_ns || r->c_ns < b->q_ns ||
	    !(m = dev_metric(a, dm, d, "biotime", "ns", a->env.keep_time)))
		return;
	analysis_note_err(a, metric_add(m, r->c_ns, r->c_ns - b->q_ns));
}

static void agg(struct analysis *a, void *priv, const struct iot_agg_entry *e)
{
	struct dev_metrics *dm = priv;
	struct dev_result *d;
	struct metric *m;

	if (e->metric != IOT_AGG_Q2C || e->op >= NR_OPG ||
	    !(d = analysis_dev(a, e->dev)) ||
	    !(m = dev_metric(a, dm, d, "biotime", "ns", a->env.keep_time)))
		return;
	metric_add_hist(m, e->buckets, e->sum);
}

const struct analyzer an_biotime = {
    .name = "biotime",
    .help = "Q2C of each bio, per device",
    .priv_size = sizeof(struct dev_metrics),
    .metric_unit = "us",
    .bio = bio,
    .agg = agg,
    .merge = dev_metrics_merge_hook,
    .finish = dev_metrics_finish,
    .release = dev_metrics_free,
};
