// SPDX-License-Identifier: GPL-2.0
/*
 * The analysis core: the devices of the result, the --requests list, and
 * the dispatch of the join's output to the chosen analyzers (analyzer.h),
 * each in its own file. Stage definitions follow btt (docs/ARCHITECTURE.md):
 * Q2G, G2I, I2D, D2C per request, Q2C per bio.
 */
#include "analysis.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/grow.h"
#include "analyzer.h"
#include "fanout.h"

const char *const stage_names[NR_STAGES] = {"q2g", "g2i", "i2d", "d2c", "q2c"};
const char *const opg_names[NR_OPG] = {"read", "write"};

struct dev_result *analysis_dev_slow(struct analysis *a, uint32_t dev)
{
	struct dev_result *d;
	char scope[48];

	for (size_t i = 0; i < a->nr_devs; i++) {
		if (a->devs[i].dev == dev) {
			a->last_dev = (int)i;
			return &a->devs[i];
		}
	}
	if (GROW(a->devs, a->nr_devs + 1, a->cap_devs)) {
		analysis_note_err(a, -ENOMEM);
		return NULL;
	}
	d = &a->devs[a->nr_devs];
	memset(d, 0, sizeof(*d));
	d->dev = dev;
	snprintf(d->name, sizeof(d->name), "%s", a->env.dev_name(a->env.ctx, dev));
	d->bio_based = a->env.is_bio_based && a->env.is_bio_based(a->env.ctx, dev);
	for (int s = 0; s < NR_STAGES; s++) {
		for (int o = 0; o < NR_OPG; o++) {
			snprintf(scope, sizeof(scope), "%s %s", d->name, opg_names[o]);
			metric_init(&d->stage[s][o], scope, stage_names[s], "ns",
				    a->env.keep_time);
		}
		metric_init(&d->stage_all[s], d->name, stage_names[s], "ns", false);
	}
	metric_init(&d->flush, d->name, "flush", "ns", a->env.keep_time);
	a->last_dev = (int)a->nr_devs;
	return &a->devs[a->nr_devs++];
}

struct metric *dev_metric_slow(struct analysis *a, struct dev_metrics *dm,
			       const struct dev_result *d, const char *name,
			       const char *unit, bool keep_time)
{
	size_t idx = (size_t)(d - a->devs);

	if (GROW(dm->m, idx + 1, dm->cap)) {
		analysis_note_err(a, -ENOMEM);
		return NULL;
	}
	while (dm->nr <= idx) {
		metric_init(&dm->m[dm->nr], a->devs[dm->nr].name, name, unit, keep_time);
		dm->nr++;
	}
	return &dm->m[idx];
}

void dev_metrics_release(struct dev_metrics *dm)
{
	for (size_t i = 0; i < dm->nr; i++)
		metric_release(&dm->m[i]);
	free(dm->m);
	memset(dm, 0, sizeof(*dm));
}

int dev_metrics_finish(struct analysis *a, struct an_output *o)
{
	struct dev_metrics *dm = o->priv;

	for (size_t i = 0; i < dm->nr; i++)
		an_output_metric(a, o, &dm->m[i]);
	return 0;
}

int dev_metrics_merge(struct analysis *a, struct dev_metrics *dm, struct dev_metrics *src,
		      const size_t *devmap)
{
	for (size_t i = 0; i < src->nr; i++) {
		struct metric *s = &src->m[i];
		struct metric *m;

		if (!s->n && !s->agg_n)
			continue; /* made for a device after it, never added to */
		m = dev_metric(a, dm, &a->devs[devmap[i]], s->name, s->unit,
			       s->keep_time);
		if (!m)
			return -ENOMEM;
		if (!m->n && !m->agg_n) /* an analyzer may name it at its first value */
			memcpy(m->scope, s->scope, sizeof(m->scope));
		if (metric_take(m, s))
			return -ENOMEM;
	}
	return 0;
}

int dev_metrics_merge_hook(struct analysis *a, void *priv, const struct analysis *src,
			   void *src_priv, const size_t *devmap)
{
	return dev_metrics_merge(a, priv, src_priv, devmap);
}

void dev_metrics_free(void *priv)
{
	dev_metrics_release(priv);
}

void an_output_metric(struct analysis *a, struct an_output *o, struct metric *m)
{
	if (!m->n && !m->agg_n)
		return; /* empty metrics are left out */
	if (GROW(o->metrics, o->nr_metrics + 1, o->cap_metrics) || metric_finish(m)) {
		analysis_note_err(a, -ENOMEM);
		return;
	}
	analysis_note_metric(a, m);
	o->metrics[o->nr_metrics++] = m;
}

struct table *an_output_table(struct analysis *a, struct an_output *o, const char *name,
			      const struct column *cols, size_t nr_cols)
{
	struct table *t;

	if (GROW(o->tables, o->nr_tables + 1, o->cap_tables) ||
	    !(t = calloc(1, sizeof(*t)))) {
		analysis_note_err(a, -ENOMEM);
		return NULL;
	}
	table_init(t, name, cols, nr_cols);
	o->tables[o->nr_tables++] = t;
	return t;
}

void an_hooks_request(struct analysis *a, const struct an_hooks *h, struct dev_result *d,
		      const struct join_request *r)
{
	for (size_t i = 0; i < h->nr_on_request; i++)
		h->on_request[i].fn(a, h->on_request[i].priv, d, r);
}

void an_hooks_bio(struct analysis *a, const struct an_hooks *h, struct dev_result *d,
		  const struct join_request *r, const struct join_bio *b)
{
	for (size_t i = 0; i < h->nr_on_bio; i++)
		h->on_bio[i].fn(a, h->on_bio[i].priv, d, r, b);
}

void an_hooks_syscall(struct analysis *a, const struct an_hooks *h,
		      const struct join_syscall *s)
{
	for (size_t i = 0; i < h->nr_on_syscall; i++)
		h->on_syscall[i].fn(a, h->on_syscall[i].priv, s);
}

/* the rare hooks (a journal commit, a marker, ...): a walk over the
 * analyzers */
#define RARE_HOOK(hook, type)                                                            \
	void an_hooks_##hook(struct analysis *a, const struct an_hooks *h, type x)       \
	{                                                                                \
		for (size_t i = 0; i < h->nr_outs; i++)                                  \
			if (h->outs[i]->an->hook)                                        \
				h->outs[i]->an->hook(a, h->outs[i]->priv, x);            \
	}
RARE_HOOK(commit, const struct join_commit *)
RARE_HOOK(uring, const struct join_uring *)
RARE_HOOK(mark, const struct join_mark *)
RARE_HOOK(unfinished, const struct join_request *)
RARE_HOOK(fault, const struct join_fault *)
RARE_HOOK(dirty, const struct join_dirty *)
RARE_HOOK(floor, uint64_t)

int an_hooks_add(struct an_hooks *h, struct an_output *o)
{
	const struct analyzer *an = o->an;

	if (!h->outs) {
		h->outs = calloc(nr_analyzers, sizeof(*h->outs));
		h->on_request = calloc(nr_analyzers, sizeof(*h->on_request));
		h->on_bio = calloc(nr_analyzers, sizeof(*h->on_bio));
		h->on_syscall = calloc(nr_analyzers, sizeof(*h->on_syscall));
		if (!h->outs || !h->on_request || !h->on_bio || !h->on_syscall)
			return -ENOMEM;
	}
	h->outs[h->nr_outs++] = o;
	if (an->request)
		h->on_request[h->nr_on_request].fn = an->request,
		h->on_request[h->nr_on_request++].priv = o->priv;
	if (an->bio)
		h->on_bio[h->nr_on_bio].fn = an->bio,
		h->on_bio[h->nr_on_bio++].priv = o->priv;
	if (an->syscall)
		h->on_syscall[h->nr_on_syscall].fn = an->syscall,
		h->on_syscall[h->nr_on_syscall++].priv = o->priv;
	return 0;
}

void an_hooks_release(struct an_hooks *h)
{
	free(h->outs);
	free(h->on_request);
	free(h->on_bio);
	free(h->on_syscall);
	memset(h, 0, sizeof(*h));
}

/* Whether an output that ended at t is in --time's window */
static inline bool in_window(const struct analysis *a, uint64_t t)
{
	return t >= a->env.from_ns && t < a->env.to_ns;
}

/* The sink's side of each join output: the counts of the result, and the
 * analyzers' hooks, here or through the fan-out's log. */
static void on_request(void *ctx, const struct join_request *r)
{
	struct analysis *a = ctx;
	struct dev_result *d;
	int o = opg_of(r->flags);

	if (!in_window(a, r->c_ns))
		return;
	d = a->fan ? fanout_dev(a->fan, r->dev) : analysis_dev(a, r->dev);
	if (!d)
		return;
	if (r->estimated) {
		a->requests_estimated++;
		if (a->env.measured_only) {
			a->requests_excluded++;
			return;
		}
	}
	if (a->fan)
		fanout_request(a->fan, d, r);
	else
		an_hooks_request(a, &a->hooks, d, r);
	a->requests_total++;
	if (r->error)
		d->errors++;
	if (o < 0) {
		if ((r->flags & IOT_OP_MASK) == IOT_OP_FLUSH) {
			uint64_t from =
			    r->start_ns && r->start_ns <= r->c_ns ? r->start_ns : r->d_ns;

			d->flushes++;
			if (join_is_flush_rq(r) && from && from <= r->c_ns) {
				d->flush_from_issue += from != r->start_ns;
				analysis_note_err(
				    a, metric_add(&d->flush, r->c_ns, r->c_ns - from));
			}
		} else if ((r->flags & IOT_OP_MASK) == IOT_OP_DISCARD) {
			d->discards++;
			d->discard_sectors += r->nr_sectors;
		}
	} else {
		d->requests[o]++;
		d->sectors[o] += r->nr_sectors;
	}
	if (a->env.keep_requests) {
		if (GROW(a->reqs, a->nr_reqs + 1, a->cap_reqs)) {
			analysis_note_err(a, -ENOMEM);
			return;
		}
		a->reqs[a->nr_reqs++] = *r;
	}
}

static void on_bio(void *ctx, const struct join_request *r, const struct join_bio *b)
{
	struct analysis *a = ctx;
	struct dev_result *d;

	if (!in_window(a, r->c_ns))
		return;
	a->bios_total++;
	if (r->estimated && a->env.measured_only)
		return;
	if (!a->hooks.nr_on_bio)
		return;
	if (a->fan) {
		if ((d = fanout_dev(a->fan, r->dev)))
			fanout_bio(a->fan, d, r, b);
	} else if ((d = analysis_dev(a, r->dev))) {
		an_hooks_bio(a, &a->hooks, d, r, b);
	}
}

static void on_syscall(void *ctx, const struct join_syscall *s)
{
	struct analysis *a = ctx;

	if (!in_window(a, s->exit_ns))
		return;
	if (s->estimated) {
		a->syscalls_estimated++;
		if (a->env.measured_only) {
			a->syscalls_excluded++;
			return;
		}
	}
	a->syscalls_total++;
	if (a->fan)
		fanout_syscall(a->fan, s);
	else
		an_hooks_syscall(a, &a->hooks, s);
}

static void on_commit(void *ctx, const struct join_commit *c)
{
	struct analysis *a = ctx;

	if (!in_window(a, c->end_ns))
		return;
	a->commits_total++;
	if (a->fan)
		fanout_commit(a->fan, c);
	else
		an_hooks_commit(a, &a->hooks, c);
}

/* the other outputs: to the hooks, here or through the log, where their
 * time (at) is in --time's window */
#define SINK_HOOK(hook, type, at)                                                        \
	static void on_##hook(void *ctx, type x)                                         \
	{                                                                                \
		struct analysis *a = ctx;                                                \
                                                                                         \
		if (!in_window(a, (at)))                                                 \
			return;                                                          \
		if (a->fan)                                                              \
			fanout_##hook(a->fan, x);                                        \
		else                                                                     \
			an_hooks_##hook(a, &a->hooks, x);                                \
	}
SINK_HOOK(uring, const struct join_uring *, x->cqe_ns)
SINK_HOOK(mark, const struct join_mark *, x->ts_ns)
/* (not completed by the trace's end: in a window that reaches it) */
SINK_HOOK(unfinished, const struct join_request *,
	  a->env.to_ns == UINT64_MAX ? a->env.from_ns : UINT64_MAX)
SINK_HOOK(fault, const struct join_fault *, x->ts_ns)
SINK_HOOK(dirty, const struct join_dirty *, x->ts_ns)

/* the join's floor: whatever --time's window */
static void on_floor(void *ctx, uint64_t ns)
{
	struct analysis *a = ctx;

	if (a->fan)
		fanout_floor(a->fan, ns);
	else
		an_hooks_floor(a, &a->hooks, ns);
}

static int init_of(struct analysis *a, uint64_t set, const struct analysis_env *env,
		   const struct analysis *whole)
{
	memset(a, 0, sizeof(*a));
	a->env = *env;
	if (!a->env.to_ns)
		a->env.to_ns = UINT64_MAX;
	a->whole = whole;
	a->last_dev = -1;
	memset(a->syscall_kind, -1, sizeof(a->syscall_kind));
	for (int k = 0; env->syscall_nr && k < NR_SYSCALL_KINDS; k++)
		if (env->syscall_nr[k] < ANALYSIS_SYSCALL_NRS)
			a->syscall_kind[env->syscall_nr[k]] = (int8_t)k;
	a->out = calloc(nr_analyzers, sizeof(*a->out));
	if (!a->out)
		return -ENOMEM;
	for (size_t i = 0; i < nr_analyzers; i++) {
		const struct analyzer *an = analyzers[i];
		struct an_output *o;
		int err;

		if (!(set & AN_BIT(i)))
			continue;
		o = &a->out[a->nr_out++];
		o->an = an;
		o->priv = calloc(1, an->priv_size ? an->priv_size : 1);
		if (!o->priv || an_hooks_add(&a->hooks, o))
			return -ENOMEM;
		err = an->init ? an->init(a, o) : 0;
		if (err) {
			if (!a->errmsg[0])
				snprintf(a->errmsg, sizeof(a->errmsg), "%s: %s", an->name,
					 strerror(-err));
			return err;
		}
	}
	return 0;
}

int analysis_init(struct analysis *a, uint64_t set, const struct analysis_env *env)
{
	return init_of(a, set, env, NULL);
}

struct join_sink analysis_sink(struct analysis *a)
{
	struct join_sink s = {
	    .ctx = a,
	    .request = on_request,
	    .bio = on_bio,
	    .syscall = on_syscall,
	    .commit = on_commit,
	    .uring = on_uring,
	    .fault = on_fault,
	    .dirty = on_dirty,
	    .mark = on_mark,
	    .unfinished = on_unfinished,
	};

	for (size_t i = 0; i < a->nr_out; i++)
		if (a->out[i].an->floor)
			s.floor = on_floor; /* else the join looks for none */
	return s;
}

const char *analysis_dev_name(const struct analysis *a, uint32_t dev)
{
	for (size_t k = 0; k < a->nr_devs; k++)
		if (a->devs[k].dev == dev)
			return a->devs[k].name;
	return "?";
}

const struct an_output *analysis_output(const struct analysis *a, const char *name)
{
	for (size_t i = 0; i < a->nr_out; i++)
		if (!strcmp(a->out[i].an->name, name))
			return &a->out[i];
	return NULL;
}

void analysis_add_agg(struct analysis *a, const struct iot_agg_entry *e)
{
	uint64_t count = 0;
	struct dev_result *d;

	for (int k = 0; k < 64; k++)
		count += e->buckets[k];
	for (size_t i = 0; i < a->nr_out; i++)
		if (a->out[i].an->agg)
			a->out[i].an->agg(a, a->out[i].priv, e);
	if (e->metric >= IOT_AGG_SYSCALL) {
		a->syscalls_total += count;
		return;
	}
	/* flushes and discards come together: the kernel does not split them */
	if (e->metric != IOT_AGG_SIZE || e->op >= NR_OPG)
		return;
	d = analysis_dev(a, e->dev);
	if (!d)
		return;
	d->requests[e->op] += count;
	d->sectors[e->op] += e->sum / 512;
	a->requests_total += count;
}

bool analysis_can_part(const struct analysis *a)
{
	for (size_t i = 0; i < a->nr_out; i++)
		if (!a->out[i].an->merge)
			return false;
	return !a->fan;
}

int analysis_part_init(struct analysis *part, const struct analysis *a)
{
	uint64_t set = 0;

	for (size_t i = 0; i < a->nr_out; i++)
		set |= AN_BIT(analyzer_index(a->out[i].an->name));
	return init_of(part, set, &a->env, a);
}

const void *analysis_whole_priv(const struct analysis *a, const struct an_output *o)
{
	/* a part's analyzers are the whole's, in the same order */
	size_t i = (size_t)(o - a->out);

	return a->whole && i < a->whole->nr_out ? a->whole->out[i].priv : NULL;
}

/* part's device d into a's device to: counts added, metrics appended */
static int dev_merge(struct dev_result *to, struct dev_result *d)
{
	for (int o = 0; o < NR_OPG; o++) {
		to->requests[o] += d->requests[o];
		to->sectors[o] += d->sectors[o];
	}
	to->flushes += d->flushes;
	to->discards += d->discards;
	to->discard_sectors += d->discard_sectors;
	to->errors += d->errors;
	to->flush_from_issue += d->flush_from_issue;
	for (int s = 0; s < NR_STAGES; s++) {
		for (int o = 0; o < NR_OPG; o++)
			if (metric_take(&to->stage[s][o], &d->stage[s][o]))
				return -ENOMEM;
		if (metric_take(&to->stage_all[s], &d->stage_all[s]))
			return -ENOMEM;
	}
	return metric_take(&to->flush, &d->flush);
}

void analysis_part_end(struct analysis *part)
{
	if (part->part_ended)
		return;
	part->part_ended = true;
	for (size_t i = 0; i < part->nr_out; i++)
		if (part->out[i].an->part_end)
			part->out[i].an->part_end(part, part->out[i].priv);
}

int analysis_merge(struct analysis *a, struct analysis *part)
{
	size_t *devmap;
	int err;

	analysis_part_end(part);
	devmap = calloc(part->nr_devs ? part->nr_devs : 1, sizeof(*devmap));
	err = devmap ? 0 : -ENOMEM;

	/* a's devices in the order they were first seen: a part's new ones
	 * come after those of the parts before, in the part's order */
	for (size_t i = 0; i < part->nr_devs && !err; i++) {
		struct dev_result *d = analysis_dev(a, part->devs[i].dev);

		if (!d)
			err = -ENOMEM;
		else
			devmap[i] = (size_t)(d - a->devs);
		if (!err)
			err = dev_merge(d, &part->devs[i]);
	}
	if (!err && APPEND(a->reqs, a->nr_reqs, a->cap_reqs, part->reqs, part->nr_reqs))
		err = -ENOMEM;
	a->requests_total += part->requests_total;
	a->bios_total += part->bios_total;
	a->syscalls_total += part->syscalls_total;
	a->commits_total += part->commits_total;
	a->requests_estimated += part->requests_estimated;
	a->requests_excluded += part->requests_excluded;
	a->syscalls_estimated += part->syscalls_estimated;
	a->syscalls_excluded += part->syscalls_excluded;
	/* the same analyzers, in the same order (analysis_part_init) */
	for (size_t i = 0; i < a->nr_out && i < part->nr_out && !err; i++)
		err = a->out[i].an->merge(a, a->out[i].priv, part, part->out[i].priv,
					  devmap);
	analysis_note_err(a, part->err);
	analysis_note_err(a, err);
	free(devmap);
	analysis_release(part);
	return err;
}

int analysis_finish(struct analysis *a)
{
	for (size_t i = 0; i < a->nr_devs; i++) {
		analysis_note_err(a, metric_finish(&a->devs[i].flush));
		analysis_note_metric(a, &a->devs[i].flush);
	}
	if (a->threads > 1 && a->nr_out > 1) {
		fanout_finish(a);
	} else {
		for (size_t i = 0; i < a->nr_out && !a->err; i++)
			if (a->out[i].an->finish)
				analysis_note_err(a, a->out[i].an->finish(a, &a->out[i]));
	}
	for (size_t i = 0; i < a->nr_out && !a->err; i++)
		for (size_t k = 0; k < a->out[i].nr_tables; k++)
			analysis_note_err(a, a->out[i].tables[k]->err);
	return a->err;
}

void analysis_release(struct analysis *a)
{
	for (size_t i = 0; i < a->nr_out; i++) {
		struct an_output *o = &a->out[i];

		if (o->an->release && o->priv)
			o->an->release(o->priv);
		free(o->priv);
		free(o->metrics);
		for (size_t k = 0; k < o->nr_tables; k++) {
			table_release(o->tables[k]);
			free(o->tables[k]);
		}
		free(o->tables);
	}
	analysis_fanout_end(a);
	free(a->out);
	an_hooks_release(&a->hooks);
	for (size_t i = 0; i < a->nr_devs; i++) {
		struct dev_result *d = &a->devs[i];

		for (int s = 0; s < NR_STAGES; s++) {
			for (int o = 0; o < NR_OPG; o++)
				metric_release(&d->stage[s][o]);
			metric_release(&d->stage_all[s]);
		}
		metric_release(&d->flush);
	}
	free(a->devs);
	free(a->reqs);
	memset(a, 0, sizeof(*a));
}
