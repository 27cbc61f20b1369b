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
/* A stage of a device: its metric per op sorted, on `*ctx` threads each
 * when they are large; then (JSON) all ops' together. Where one op has
 * every value (reads alone, say), those are the statistics of all: no
 * copy, no second sort. */
static void finish_stage(struct analysis *a, void *ctx, size_t k)
{
	const unsigned int *threads = ctx;
	struct dev_result *d = &a->devs[k / NR_STAGES];
	int s = (int)(k % NR_STAGES), with = 0, only = 0;
	struct metric *all = &d->stage_all[s];

	for (int op = 0; op < NR_OPG; op++) {
		analysis_note_err(a, metric_finish_threads(&d->stage[s][op], *threads));
		analysis_note_metric(a, &d->stage[s][op]);
		if (d->stage[s][op].n || d->stage[s][op].agg_n) {
			with++;
			only = op;
		}
	}
	if (a->env.stage_all && with == 1 && !all->n && !all->agg_n) {
		const struct metric *one = &d->stage[s][only];

		all->n = one->n;
		all->sum = one->sum;
		all->st = one->st;
		all->hist = one->hist;
		all->hist_k = one->hist_k;
		all->finished = true;
		return;
	}
	for (int op = 0; op < NR_OPG && a->env.stage_all; op++)
		analysis_note_err(a, metric_add_all(all, &d->stage[s][op]));
	analysis_note_err(a, metric_finish_threads(all, *threads));
	analysis_note_metric(a, all);
	metric_drop_values(all);
}

static int finish(struct analysis *a, struct an_output *o)
{
	/* the sorts, each stage on a thread of its own where there are
	 * threads (a->threads), and a large one's on several: those left
	 * over, shared among the large ones (a zram recording's reads: one
	 * device, one stage, 20M values) */
	size_t jobs = a->nr_devs * NR_STAGES, large = 0;
	unsigned int threads = 1;

	for (size_t k = 0; k < jobs; k++)
		for (int op = 0; op < NR_OPG; op++)
			if (a->devs[k / NR_STAGES].stage[k % NR_STAGES][op].n >=
			    METRIC_THREADS_MIN) {
				large++;
				break;
			}
	if (large && a->threads > 1)
		threads = (unsigned int)(a->threads / large) ?: 1;
	analysis_each(a, jobs, finish_stage, &threads);
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
