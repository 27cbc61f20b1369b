// SPDX-License-Identifier: GPL-2.0
/*
 * The analyzers: each turns joined requests, bios or syscalls into metrics of
 * the result model. Stage definitions follow btt (docs/ARCHITECTURE.md):
 * Q2G, G2I, I2D, D2C per request, Q2C per bio.
 */
#include "analysis.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const stage_names[NR_STAGES] = {"q2g", "g2i", "i2d", "d2c", "q2c"};
const char *const opg_names[NR_OPG] = {"read", "write"};
const char *const syscall_kind_names[NR_SYSCALL_KINDS] = {
    "read",   "write",	"pread64", "pwrite64", "readv",
    "writev", "preadv", "pwritev", "fsync",    "fdatasync",
};
const uint32_t syscall_nr_x86_64[NR_SYSCALL_KINDS] = {0,  1,   17,  18, 19,
						      20, 295, 296, 74, 75};

static const struct {
	const char *name;
	int an;
} analyzers[] = {
    {"latency", AN_LATENCY},   {"syscall", AN_SYSCALL},	  {"biotime", AN_BIOTIME},
    {"elvtime", AN_ELVTIME},   {"iosector", AN_IOSECTOR}, {"correlate", AN_CORRELATE},
    {"patterns", AN_PATTERNS},
};

int analyzer_by_name(const char *name)
{
	for (size_t i = 0; i < sizeof(analyzers) / sizeof(analyzers[0]); i++)
		if (!strcmp(name, analyzers[i].name))
			return analyzers[i].an;
	return -1;
}

const char *analyzer_name(int an)
{
	for (size_t i = 0; i < sizeof(analyzers) / sizeof(analyzers[0]); i++)
		if (analyzers[i].an == an)
			return analyzers[i].name;
	return "?";
}

static void note_err(struct analysis *a, int err)
{
	if (err && !a->err)
		a->err = err;
}

static struct dev_result *dev_get(struct analysis *a, uint32_t dev)
{
	struct dev_result *d;
	char scope[48];

	if (a->last_dev >= 0 && a->devs[a->last_dev].dev == dev)
		return &a->devs[a->last_dev];
	for (size_t i = 0; i < a->nr_devs; i++) {
		if (a->devs[i].dev == dev) {
			a->last_dev = i;
			return &a->devs[i];
		}
	}
	if (a->nr_devs == a->cap_devs) {
		size_t cap = a->cap_devs ? a->cap_devs * 2 : 8;

		d = realloc(a->devs, cap * sizeof(*d));
		if (!d) {
			note_err(a, -ENOMEM);
			return NULL;
		}
		a->devs = d;
		a->cap_devs = cap;
	}
	d = &a->devs[a->nr_devs];
	memset(d, 0, sizeof(*d));
	d->dev = dev;
	snprintf(d->name, sizeof(d->name), "%s", a->dev_name(a->dev_names_ctx, dev));
	for (int s = 0; s < NR_STAGES; s++) {
		for (int o = 0; o < NR_OPG; o++) {
			snprintf(scope, sizeof(scope), "%s %s", d->name, opg_names[o]);
			metric_init(&d->stage[s][o], scope, stage_names[s], "ns",
				    a->keep_time);
		}
		metric_init(&d->stage_all[s], d->name, stage_names[s], "ns", false);
	}
	metric_init(&d->biotime, d->name, "biotime", "ns", a->keep_time);
	metric_init(&d->elvtime, d->name, "elvtime", "ns", a->keep_time);
	metric_init(&d->sector, d->name, "sector", "sectors", true);
	metric_init(&d->seek, d->name, "seek", "sectors", true);
	a->last_dev = a->nr_devs;
	return &a->devs[a->nr_devs++];
}

static int opg_of(uint32_t flags)
{
	switch (flags & IOT_OP_MASK) {
	case IOT_OP_READ:
		return OPG_READ;
	case IOT_OP_WRITE:
		return OPG_WRITE;
	default:
		return -1; /* flush, discard, ...: counted apart, as diskstats does */
	}
}

static void stage_add(struct analysis *a, struct dev_result *d, int s, int o, uint64_t t,
		      uint64_t from, uint64_t to)
{
	if (!from || !to || to < from)
		return;
	note_err(a, metric_add(&d->stage[s][o], t, to - from));
}

static struct window *window_at(struct analysis *a, uint64_t t_ns)
{
	size_t k;

	if (!a->window_ns || t_ns < a->t0_ns)
		return NULL;
	k = (t_ns - a->t0_ns) / a->window_ns;
	if (k >= a->cap_win) {
		size_t cap = a->cap_win ? a->cap_win : 64;
		struct window *w;

		while (cap <= k)
			cap *= 2;
		w = realloc(a->win, cap * sizeof(*w));
		if (!w) {
			note_err(a, -ENOMEM);
			return NULL;
		}
		memset(w + a->cap_win, 0, (cap - a->cap_win) * sizeof(*w));
		a->win = w;
		a->cap_win = cap;
	}
	if (k + 1 > a->nr_win)
		a->nr_win = k + 1;
	return &a->win[k];
}

static void on_request(void *ctx, const struct join_request *r)
{
	struct analysis *a = ctx;
	struct dev_result *d = dev_get(a, r->dev);
	int o = opg_of(r->flags);
	struct window *w;

	if (a->groups)
		groups_request(a->groups, r);
	if (!d)
		return;
	a->requests_total++;
	if (r->error)
		d->errors++;
	if (o < 0) {
		if ((r->flags & IOT_OP_MASK) == IOT_OP_FLUSH)
			d->flushes++;
		else if ((r->flags & IOT_OP_MASK) == IOT_OP_DISCARD) {
			d->discards++;
			d->discard_sectors += r->nr_sectors;
		}
		return;
	}
	d->requests[o]++;
	d->sectors[o] += r->nr_sectors;
	if (a->analyzers & AN_LATENCY) {
		stage_add(a, d, ST_Q2G, o, r->c_ns, r->q_ns, r->g_ns);
		stage_add(a, d, ST_G2I, o, r->c_ns, r->g_ns, r->i_ns);
		stage_add(a, d, ST_I2D, o, r->c_ns, r->i_ns, r->d_ns);
		stage_add(a, d, ST_D2C, o, r->c_ns, r->d_ns, r->c_ns);
	}
	if ((a->analyzers & AN_ELVTIME) && r->i_ns && r->d_ns >= r->i_ns)
		note_err(a, metric_add(&d->elvtime, r->d_ns, r->d_ns - r->i_ns));
	if ((a->analyzers & AN_IOSECTOR) && (r->d_ns || r->bio_only)) {
		/* issue order: sorted by time in analysis_finish() */
		note_err(a,
			 metric_add(&d->sector, r->d_ns ? r->d_ns : r->q_ns, r->sector));
		note_err(
		    a, metric_add(&d->seek, r->d_ns ? r->d_ns : r->q_ns, r->nr_sectors));
	}
	w = window_at(a, r->c_ns);
	if (w) {
		w->requests++;
		w->bytes += (uint64_t)r->nr_sectors * 512;
		if (r->q_ns && r->c_ns >= r->q_ns)
			w->q2c_sum_ns += r->c_ns - r->q_ns, w->nr_q2c++;
		if (r->q_ns && r->g_ns >= r->q_ns)
			w->q2g_sum_ns += r->g_ns - r->q_ns, w->nr_q2g++;
		if (r->g_ns && r->d_ns >= r->g_ns)
			w->g2d_sum_ns += r->d_ns - r->g_ns, w->nr_g2d++;
		if (r->d_ns && r->c_ns >= r->d_ns)
			w->d2c_sum_ns += r->c_ns - r->d_ns, w->nr_d2c++;
	}
	if (a->keep_requests) {
		if (a->nr_reqs == a->cap_reqs) {
			size_t cap = a->cap_reqs ? a->cap_reqs * 2 : 1024;
			struct join_request *n = realloc(a->reqs, cap * sizeof(*n));

			if (!n) {
				note_err(a, -ENOMEM);
				return;
			}
			a->reqs = n;
			a->cap_reqs = cap;
		}
		a->reqs[a->nr_reqs++] = *r;
	}
}

static void on_bio(void *ctx, const struct join_request *r, const struct join_bio *b)
{
	struct analysis *a = ctx;
	struct dev_result *d;
	int o = opg_of(r->flags);

	a->bios_total++;
	if (a->groups)
		groups_bio(a->groups, r, b);
	if (o < 0 || !b->q_ns || r->c_ns < b->q_ns)
		return;
	d = dev_get(a, r->dev);
	if (!d)
		return;
	if (a->analyzers & AN_LATENCY)
		stage_add(a, d, ST_Q2C, o, r->c_ns, b->q_ns, r->c_ns);
	if (a->analyzers & AN_BIOTIME)
		note_err(a, metric_add(&d->biotime, r->c_ns, r->c_ns - b->q_ns));
}

static void on_syscall(void *ctx, const struct join_syscall *s)
{
	struct analysis *a = ctx;
	uint64_t dur = s->exit_ns - s->enter_ns;

	a->syscalls_total++;
	if (a->groups)
		groups_syscall(a->groups, s);
	if (a->analyzers & AN_SYSCALL) {
		for (int k = 0; k < NR_SYSCALL_KINDS; k++) {
			if (a->syscall_nr[k] == s->nr) {
				note_err(a, metric_add(&a->syscall[k], s->exit_ns, dur));
				break;
			}
		}
	}
	if ((a->analyzers & AN_CORRELATE) && s->nr_bios_done &&
	    syscall_is_read(a->syscall_nr, s->nr)) {
		uint64_t us = dur / 1000, bio = s->bio_q2c_sum_ns / s->nr_bios_done;
		int k = us ? 63 - __builtin_clzll(us) : 0;
		struct corr_bucket *c = &a->corr[k];

		if (!c->syscalls || bio < c->bio_min_ns)
			c->bio_min_ns = bio;
		if (bio > c->bio_max_ns)
			c->bio_max_ns = bio;
		c->bio_sum_ns += bio;
		c->syscalls++;
		if (s->nr_i2d) {
			uint64_t elv = s->i2d_sum_ns / s->nr_i2d;

			if (!c->elv_n || elv < c->elv_min_ns)
				c->elv_min_ns = elv;
			if (elv > c->elv_max_ns)
				c->elv_max_ns = elv;
			c->elv_sum_ns += elv;
			c->elv_n++;
		}
	}
}

void analysis_init(struct analysis *a, unsigned int analyzers, bool keep_time,
		   uint64_t t0_ns, uint64_t window_ns, bool keep_requests,
		   const char *(*dev_name)(void *, uint32_t), void *ctx)
{
	/* x86_64 numbers; the trace's arch decides (see cmd_report.c) */

	memset(a, 0, sizeof(*a));
	a->analyzers = analyzers;
	a->keep_time = keep_time;
	a->t0_ns = t0_ns;
	a->window_ns = window_ns;
	a->keep_requests = keep_requests;
	a->dev_name = dev_name;
	a->dev_names_ctx = ctx;
	a->last_dev = -1;
	for (int k = 0; k < NR_SYSCALL_KINDS; k++) {
		metric_init(&a->syscall[k], "syscall", syscall_kind_names[k], "ns",
			    keep_time);
		a->syscall_nr[k] = syscall_nr_x86_64[k];
	}
}

struct join_sink analysis_sink(struct analysis *a)
{
	struct join_sink s = {
	    .ctx = a,
	    .request = on_request,
	    .bio = on_bio,
	    .syscall = on_syscall,
	};

	return s;
}

struct pair {
	uint64_t t, sector, nr;
};

static int cmp_pair(const void *x, const void *y)
{
	const struct pair *a = x, *b = y;

	return (a->t > b->t) - (a->t < b->t);
}

/* Seek distance in issue order: start(n) - end(n-1), signed in sv, its
 * absolute value in v. */
static int finish_iosector(struct dev_result *d)
{
	size_t n = d->sector.n;
	struct pair *p;

	if (!n)
		return 0;
	p = malloc(n * sizeof(*p));
	d->seek.sv = malloc(n * sizeof(*d->seek.sv));
	if (!p || !d->seek.sv) {
		free(p);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		p[i].t = d->sector.t[i];
		p[i].sector = d->sector.v[i];
		p[i].nr = d->seek.v[i];
	}
	qsort(p, n, sizeof(*p), cmp_pair);
	d->seek.sum = 0;
	for (size_t i = 0; i < n; i++) {
		int64_t diff =
		    i ? (int64_t)p[i].sector - (int64_t)(p[i - 1].sector + p[i - 1].nr)
		      : 0;

		d->sector.t[i] = p[i].t;
		d->sector.v[i] = p[i].sector;
		d->seek.t[i] = p[i].t;
		d->seek.sv[i] = diff;
		d->seek.v[i] = diff < 0 ? (uint64_t)-diff : (uint64_t)diff;
		d->seek.sum += d->seek.v[i];
	}
	free(p);
	return 0;
}

const char *analysis_dev_name(const struct analysis *a, uint32_t dev)
{
	for (size_t k = 0; k < a->nr_devs; k++)
		if (a->devs[k].dev == dev)
			return a->devs[k].name;
	return "?";
}

void analysis_add_agg(struct analysis *a, uint32_t dev, unsigned int op,
		      unsigned int metric, uint64_t sum, const uint64_t buckets[64])
{
	struct dev_result *d;
	uint64_t count = 0;

	for (int k = 0; k < 64; k++)
		count += buckets[k];
	if (metric >= IOT_AGG_SYSCALL) {
		if (metric - IOT_AGG_SYSCALL < NR_SYSCALL_KINDS &&
		    (a->analyzers & AN_SYSCALL))
			metric_add_hist(&a->syscall[metric - IOT_AGG_SYSCALL], buckets,
					sum);
		a->syscalls_total += count;
		return;
	}
	if (op >= NR_OPG) /* flushes and discards together: not split in the kernel */
		return;
	d = dev_get(a, dev);
	if (!d)
		return;
	if (metric == IOT_AGG_SIZE) {
		d->requests[op] += count;
		d->sectors[op] += sum / 512;
		a->requests_total += count;
		return;
	}
	if (metric <= IOT_AGG_Q2C && (a->analyzers & AN_LATENCY))
		metric_add_hist(&d->stage[metric][op], buckets, sum);
	if (metric == IOT_AGG_Q2C && (a->analyzers & AN_BIOTIME))
		metric_add_hist(&d->biotime, buckets, sum);
	if (metric == IOT_AGG_I2D && (a->analyzers & AN_ELVTIME))
		metric_add_hist(&d->elvtime, buckets, sum);
}

int analysis_finish(struct analysis *a)
{
	if (a->groups && groups_finish(a->groups))
		note_err(a, -ENOMEM);
	for (size_t i = 0; i < a->nr_devs; i++) {
		struct dev_result *d = &a->devs[i];

		if (a->want_stage_all)
			for (int s = 0; s < NR_STAGES; s++)
				for (int o = 0; o < NR_OPG; o++) {
					for (size_t k = 0; k < d->stage[s][o].n; k++)
						note_err(a,
							 metric_add(&d->stage_all[s], 0,
								    d->stage[s][o].v[k]));
					if (d->stage[s][o].agg_n)
						metric_add_hist(&d->stage_all[s],
								d->stage[s][o].agg_b,
								d->stage[s][o].agg_sum);
				}
		if (a->analyzers & AN_IOSECTOR)
			note_err(a, finish_iosector(d));
	}
	return a->err;
}

void analysis_release(struct analysis *a)
{
	for (size_t i = 0; i < a->nr_devs; i++) {
		struct dev_result *d = &a->devs[i];

		for (int s = 0; s < NR_STAGES; s++) {
			for (int o = 0; o < NR_OPG; o++)
				metric_release(&d->stage[s][o]);
			metric_release(&d->stage_all[s]);
		}
		metric_release(&d->biotime);
		metric_release(&d->elvtime);
		metric_release(&d->sector);
		metric_release(&d->seek);
	}
	for (int k = 0; k < NR_SYSCALL_KINDS; k++)
		metric_release(&a->syscall[k]);
	free(a->devs);
	free(a->win);
	free(a->reqs);
	memset(a, 0, sizeof(*a));
}

size_t analysis_metrics(struct analysis *a, int an, struct metric **out, size_t max)
{
	size_t n = 0;

#define PUT(m)                                                                           \
	do {                                                                             \
		if (((m)->n || (m)->agg_n) && n < max)                                   \
			out[n++] = (m);                                                  \
	} while (0)
	if (an == AN_SYSCALL) {
		for (int k = 0; k < NR_SYSCALL_KINDS; k++)
			PUT(&a->syscall[k]);
		return n;
	}
	for (size_t i = 0; i < a->nr_devs; i++) {
		struct dev_result *d = &a->devs[i];

		switch (an) {
		case AN_LATENCY:
			for (int o = 0; o < NR_OPG; o++)
				for (int s = 0; s < NR_STAGES; s++)
					PUT(&d->stage[s][o]);
			break;
		case AN_BIOTIME:
			PUT(&d->biotime);
			break;
		case AN_ELVTIME:
			PUT(&d->elvtime);
			break;
		case AN_IOSECTOR:
			PUT(&d->sector);
			PUT(&d->seek);
			break;
		default:
			break;
		}
	}
#undef PUT
	return n;
}
