// SPDX-License-Identifier: GPL-2.0
/*
 * sizes: the size of each request, per device and read/write, in KiB: the
 * distribution bcc's bitesize shows (--view hist), with percentiles. In an
 * --aggregate recording, the kernel's log2 histograms of bytes, moved down
 * ten buckets (2^k bytes are 2^(k-10) KiB exactly).
 */
#include "analyzer.h"

struct sizes_priv {
	struct dev_metrics m[NR_OPG];
};

static struct metric *size_metric(struct analysis *a, struct sizes_priv *p,
				  struct dev_result *d, int o)
{
	struct metric *m;

	if (!d || !(m = dev_metric(a, &p->m[o], d, "size", "KiB", a->env.keep_time)))
		return NULL;
	if (!m->n && !m->agg_n) /* "loop0 read", as latency's scopes */
		snprintf(m->scope, sizeof(m->scope), "%s %s", d->name, opg_names[o]);
	return m;
}

static void request(struct analysis *a, void *priv, struct dev_result *d,
		    const struct join_request *r)
{
	int o = opg_of(r->flags);
	struct metric *m;

	if (o < 0 || !r->nr_sectors || !(m = size_metric(a, priv, d, o)))
		return;
	analysis_note_err(a, metric_add(m, r->c_ns, r->nr_sectors / 2));
}

static void agg(struct analysis *a, void *priv, const struct iot_agg_entry *e)
{
	uint64_t kib[64] = {0};
	struct dev_result *d;
	struct metric *m;

	if (e->metric != IOT_AGG_SIZE || e->op >= NR_OPG ||
	    !(d = analysis_dev(a, e->dev)) || !(m = size_metric(a, priv, d, e->op)))
		return;
	for (int k = 0; k < 64; k++)
		kib[k > 10 ? k - 10 : 0] += e->buckets[k];
	metric_add_hist(m, kib, e->sum / 1024);
}

static int merge(struct analysis *a, void *priv, const struct analysis *src,
		 void *src_priv, const size_t *devmap)
{
	struct sizes_priv *p = priv, *s = src_priv;
	int err = 0;

	for (int o = 0; o < NR_OPG && !err; o++)
		err = dev_metrics_merge(a, &p->m[o], &s->m[o], devmap);
	return err;
}

static int finish(struct analysis *a, struct an_output *o)
{
	struct sizes_priv *p = o->priv;

	for (size_t i = 0; i < a->nr_devs; i++)
		for (int op = 0; op < NR_OPG; op++)
			if (i < p->m[op].nr)
				an_output_metric(a, o, &p->m[op].m[i]);
	return 0;
}

static void release(void *priv)
{
	struct sizes_priv *p = priv;

	for (int o = 0; o < NR_OPG; o++)
		dev_metrics_release(&p->m[o]);
}

const struct analyzer an_sizes = {
    .name = "sizes",
    .help = "request sizes (KiB) per device and read/write, as bcc's bitesize",
    .priv_size = sizeof(struct sizes_priv),
    .metric_unit = "KiB",
    .request = request,
    .agg = agg,
    .merge = merge,
    .finish = finish,
    .release = release,
};
