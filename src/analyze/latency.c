// SPDX-License-Identifier: GPL-2.0
/*
 * latency: btt's breakdown per device and read/write: Q2G, G2I, I2D, D2C
 * per request, Q2C per bio. Its metrics live in the devices of the result
 * (analysis.h), where the JSON device objects and the HTML stage charts
 * read them.
 */
#include "analyzer.h"

static void stage_add(struct analysis *a, struct dev_result *d, int s, int o, uint64_t t,
		      uint64_t from, uint64_t to)
{
	if (!from || !to || to < from)
		return;
	analysis_note_err(a, metric_add(&d->stage[s][o], t, to - from));
}

static void request(struct analysis *a, void *priv, struct dev_result *d,
		    const struct join_request *r)
{
	int o = opg_of(r->flags);

	if (o < 0)
		return;
	stage_add(a, d, ST_Q2G, o, r->c_ns, r->q_ns, r->g_ns);
	stage_add(a, d, ST_G2I, o, r->c_ns, r->g_ns, r->i_ns);
	stage_add(a, d, ST_I2D, o, r->c_ns, r->i_ns, r->d_ns);
	stage_add(a, d, ST_D2C, o, r->c_ns, r->d_ns, r->c_ns);
}

static void bio(struct analysis *a, void *priv, struct dev_result *d,
		const struct join_request *r, const struct join_bio *b)
{
	int o = opg_of(r->flags);

	if (o < 0 || !b->q_ns || r->c_ns < b->q_ns)
		return;
	stage_add(a, d, ST_Q2C, o, r->c_ns, b->q_ns, r->c_ns);
}

static void agg(struct analysis *a, void *priv, const struct iot_agg_entry *e)
{
	struct dev_result *d;

	if (e->metric > IOT_AGG_Q2C || e->op >= NR_OPG || !(d = analysis_dev(a, e->dev)))
		return;
	metric_add_hist(&d->stage[e->metric][e->op], e->buckets, e->sum);
}

/* its metrics are the devices', which analysis_merge merges */
static int merge(struct analysis *a, void *priv, const struct analysis *src,
		 void *src_priv, const size_t *devmap)
{
	return 0;
}

/* job k: device k / NR_STAGES's stage k % NR_STAGES, read and write and
 * both together (its copy let go once finished: as many copies at once as
 * threads) */
static void finish_stage(struct analysis *a, void *ctx, size_t k)
{
	struct dev_result *d = &a->devs[k / NR_STAGES];
	int s = (int)(k % NR_STAGES);

	for (int op = 0; op < NR_OPG && a->env.stage_all; op++)
		analysis_note_err(a, metric_add_all(&d->stage_all[s], &d->stage[s][op]));
	analysis_note_err(a, metric_finish(&d->stage_all[s]));
	metric_drop_values(&d->stage_all[s]);
	for (int op = 0; op < NR_OPG; op++)
		analysis_note_err(a, metric_finish(&d->stage[s][op]));
}

static int finish(struct analysis *a, struct an_output *o)
{
	/* the sorts, each stage on a thread of its own where there are
	 * threads (a->threads) */
	analysis_each(a, a->nr_devs * NR_STAGES, finish_stage, NULL);
	for (size_t i = 0; i < a->nr_devs; i++) {
		struct dev_result *d = &a->devs[i];

		for (int op = 0; op < NR_OPG; op++)
			for (int s = 0; s < NR_STAGES; s++)
				an_output_metric(a, o, &d->stage[s][op]);
	}
	return 0;
}

const struct analyzer an_latency = {
    .name = "latency",
    .help = "btt's Q2G, G2I, I2D, D2C per request and Q2C per bio, per device "
	    "and read/write",
    .metric_unit = "us",
    .request = request,
    .bio = bio,
    .agg = agg,
    .merge = merge,
    .finish = finish,
};
