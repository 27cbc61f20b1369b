// SPDX-License-Identifier: GPL-2.0
/* windows: per-window records (windows.h). */
#include "windows.h"

#include <string.h>

#include "../util/grow.h"
#include "../util/nice.h"
#include "analyzer.h"

/* windows kept at most: a 1 ns window or a corrupt timestamp must not ask
 * for memory without bound */
#define WINDOWS_MAX 100000

static int init(struct analysis *a, struct an_output *o)
{
	struct windows_priv *p = o->priv;
	/* the windows from the recording's start, to its end or --time's */
	uint64_t end = a->env.to_ns < a->env.end_ns ? a->env.to_ns : a->env.end_ns;
	uint64_t dur = end > a->env.t0_ns ? end - a->env.t0_ns : 0;
	uint64_t skip = a->env.from_ns > a->env.t0_ns ? a->env.from_ns - a->env.t0_ns : 0;

	p->window_ns = a->env.window_ns;
	if (!p->window_ns) {
		/* about 50 windows of what is shown, a 1-2-5 multiple of a
		 * millisecond */
		uint64_t shown = dur > skip ? dur - skip : 0;

		p->window_ns = (uint64_t)nice_ceil((double)shown / 50 / 1e6) * 1000000ull;
		if (!p->window_ns)
			p->window_ns = 1000000;
	}
	if (dur / p->window_ns >= WINDOWS_MAX) {
		snprintf(
		    a->errmsg, sizeof(a->errmsg),
		    "--window: %llu windows of %llu ns over the %.3f s trace; at most "
		    "%d (try a longer window, or auto)",
		    (unsigned long long)(dur / p->window_ns),
		    (unsigned long long)p->window_ns, dur / 1e9, WINDOWS_MAX);
		return -E2BIG;
	}
	/* no completion comes after the recording's end: a later time is
	 * corrupt, and must not make a million empty windows */
	p->max = dur ? dur / p->window_ns + 2 : WINDOWS_MAX;
	if (p->max > WINDOWS_MAX)
		p->max = WINDOWS_MAX;
	p->first = skip / p->window_ns;
	return 0;
}

/* Windows 0 .. n - 1 there (new ones empty); 0 or -ENOMEM */
static int windows_to(struct windows_priv *p, size_t n)
{
	size_t old = p->cap;

	if (n > p->cap) {
		if (GROW(p->win, n, p->cap))
			return -ENOMEM;
		memset(p->win + old, 0, (p->cap - old) * sizeof(*p->win));
	}
	if (n > p->nr)
		p->nr = n;
	return 0;
}

static struct window *window_at(struct analysis *a, struct windows_priv *p, uint64_t t_ns)
{
	size_t k;

	if (t_ns < a->env.t0_ns)
		return NULL;
	k = (t_ns - a->env.t0_ns) / p->window_ns;
	if (k >= p->max) {
		p->out_of_range++; /* past the recording's end: a corrupt time */
		return NULL;
	}
	if (windows_to(p, k + 1)) {
		analysis_note_err(a, -ENOMEM);
		return NULL;
	}
	return &p->win[k];
}

static void request(struct analysis *a, void *priv, struct dev_result *d,
		    const struct join_request *r)
{
	struct window *w;

	if (opg_of(r->flags) < 0 || !(w = window_at(a, priv, r->c_ns)))
		return;
	w->requests++;
	w->bytes += (uint64_t)r->nr_sectors * 512;
	if (r->q_ns && r->c_ns >= r->q_ns)
		w->q2c_sum_ns += r->c_ns - r->q_ns, w->nr_q2c++;
	if (r->q_ns && r->g_ns >= r->q_ns)
		w->q2g_sum_ns += r->g_ns - r->q_ns, w->nr_q2g++;
	if (r->g_ns && r->d_ns >= r->g_ns && r->drv_submit_ns >= r->d_ns &&
	    r->drv_cqe_ns >= r->drv_submit_ns && r->c_ns >= r->drv_cqe_ns &&
	    r->drv_submit_ns) {
		/* the NVMe driver layer recorded: the seed's split, with the
		 * device from the command's submission to its completion
		 * entry and the driver's work on both sides of it */
		w->g2d_sum_ns += (r->drv_submit_ns - r->g_ns) + (r->c_ns - r->drv_cqe_ns);
		w->nr_g2d++;
		w->d2c_sum_ns += r->drv_cqe_ns - r->drv_submit_ns, w->nr_d2c++;
		return;
	}
	if (r->g_ns && r->d_ns >= r->g_ns)
		w->g2d_sum_ns += r->d_ns - r->g_ns, w->nr_g2d++;
	if (r->d_ns && r->c_ns >= r->d_ns)
		w->d2c_sum_ns += r->c_ns - r->d_ns, w->nr_d2c++;
}

_Static_assert(sizeof(struct window) % sizeof(uint64_t) == 0, "window: counters only");

/* a later part's windows: their counts and sums added */
static int merge(struct analysis *a, void *priv, const struct analysis *src,
		 void *src_priv, const size_t *devmap)
{
	struct windows_priv *p = priv;
	const struct windows_priv *s = src_priv;

	if (windows_to(p, s->nr))
		return -ENOMEM;
	for (size_t k = 0; k < s->nr; k++) {
		uint64_t *to = (uint64_t *)&p->win[k];
		const uint64_t *from = (const uint64_t *)&s->win[k];

		for (size_t i = 0; i < sizeof(struct window) / sizeof(uint64_t); i++)
			to[i] += from[i];
	}
	p->out_of_range += s->out_of_range;
	return 0;
}

#define AVG(key, head)                                                                   \
	{                                                                                \
		key, head, 10, CELL_F64, IN_ALL & ~IN_JSON, 1, 1e3, 1, NULL, NULL        \
	}
#define SUM(key)                                                                         \
	{                                                                                \
		key, "", 0, CELL_U64, IN_JSON, 0, 0, 0, NULL, NULL                       \
	}
static const struct column cols[] = {
    {"window_start_s", "WINDOW_S", 10, CELL_F64, IN_ALL & ~IN_JSON, 6, 1, 3, NULL, NULL},
    {"start_ns", "", 0, CELL_U64, IN_JSON},
    {"requests", "REQUESTS", 9, CELL_U64},
    {"bytes", "BYTES", 12, CELL_U64},
    AVG("q2c_avg_ns", "Q2C_US"),
    AVG("kernel_avg_ns", "KERNEL_US"),
    AVG("driver_avg_ns", "DRIVER_US"),
    AVG("device_avg_ns", "DEVICE_US"),
    SUM("q2c_sum_ns"),
    SUM("kernel_sum_ns"),
    SUM("driver_sum_ns"),
    SUM("device_sum_ns"),
};

static void avg(struct table *t, uint64_t sum, uint64_t n)
{
	if (n)
		table_f64(t, (double)sum / (double)n);
	else
		table_na(t);
}

static int finish(struct analysis *a, struct an_output *o)
{
	const struct windows_priv *p = o->priv;
	struct table *t =
	    an_output_table(a, o, "windows", cols, sizeof(cols) / sizeof(cols[0]));

	if (!t)
		return -ENOMEM;
	snprintf(t->title, sizeof(t->title), "Windows of %.3f s (seed 003's records)",
		 p->window_ns / 1e9);
	if (p->out_of_range)
		table_note(t,
			   "  %llu requests completed after the recording's end (corrupt "
			   "times) are left out\n",
			   (unsigned long long)p->out_of_range);
	for (size_t i = p->first; i < p->nr; i++) {
		const struct window *w = &p->win[i];

		table_row(t);
		table_f64(t, (double)(i * p->window_ns) / 1e9);
		table_u64(t, i * p->window_ns);
		table_u64(t, w->requests);
		table_u64(t, w->bytes);
		avg(t, w->q2c_sum_ns, w->nr_q2c);
		avg(t, w->q2g_sum_ns, w->nr_q2g);
		avg(t, w->g2d_sum_ns, w->nr_g2d);
		avg(t, w->d2c_sum_ns, w->nr_d2c);
		table_u64(t, w->q2c_sum_ns);
		table_u64(t, w->q2g_sum_ns);
		table_u64(t, w->g2d_sum_ns);
		table_u64(t, w->d2c_sum_ns);
	}
	return 0;
}

static void release(void *priv)
{
	free(((struct windows_priv *)priv)->win);
}

const struct analyzer an_windows = {
    .name = "windows",
    .help = "requests, bytes and average stage times per time window "
	    "(--window; seed 003)",
    .priv_size = sizeof(struct windows_priv),
    .init = init,
    .request = request,
    .merge = merge,
    .finish = finish,
    .release = release,
};
