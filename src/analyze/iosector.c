// SPDX-License-Identifier: GPL-2.0
/*
 * iosector: the sector of each request and the seek distance to it, in
 * issue (dispatch) order per device: start(n) - end(n-1), signed in the
 * series, its absolute value in the statistics.
 */
#include "analyzer.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../util/grow.h"

/* a request as issued: 24 bytes while held; seq, its place among its
 * device's as they came (modulo 2^32), breaks ties in time */
struct io_at {
	uint64_t t, sector;
	uint32_t nr, seq;
};

/* A device's requests in issue order (by time, then as they came), held
 * until the join's floor (join_sink.floor) passes them, then counted: the
 * join gives them in completion order, which is issue order but for the
 * requests a queue's depth apart, so each goes in a few places from the
 * end at most, and only the requests in flight at a floor stay (before,
 * every request stayed to the finish: 1.59 GB of a 3.8 GB trace). A device
 * whose requests came further out of order than INSERT_MOVES a request (a
 * request held for long, a crafted trace) takes them at the end from then
 * on, sorted by time and seq at each floor: the same order. A request
 * before what a floor already counted (a record that came late) goes first
 * of those held, counted (late). */
struct io_dev {
	struct io_at *v;
	size_t n, cap;
	uint64_t moves;
	uint32_t arrived; /* the next seq */
	bool unsorted;
	bool counted;	   /* last is set */
	struct io_at last; /* the request counted last */
	size_t sv_cap;	   /* of its seek metric's signed values */
	uint64_t late;	   /* requests that came after a floor past them */
};

#define INSERT_MOVES 64

/* a part's request, in the order it came, with its device (the part's
 * index), and where each floor fell among them: replayed by the merge */
struct io_came {
	struct io_at x;
	uint32_t dev;
};
struct io_floor {
	uint64_t ns;
	size_t at; /* requests before it */
};

struct iosector_priv {
	struct io_dev *dev; /* by device index (a->devs) */
	size_t nr_dev, cap_dev;
	uint64_t floor; /* the highest floor given */
	struct dev_metrics sector, seek;
	/* a part's (a->whole): what came, for the merge */
	struct io_came *came;
	size_t nr_came, cap_came;
	struct io_floor *floors;
	size_t nr_floors, cap_floors;
};

static struct io_dev *dev_at(struct iosector_priv *p, size_t idx)
{
	size_t old = p->cap_dev;

	if (idx >= p->cap_dev) {
		if (GROW(p->dev, idx + 1, p->cap_dev))
			return NULL;
		memset(p->dev + old, 0, (p->cap_dev - old) * sizeof(*p->dev));
	}
	if (idx >= p->nr_dev)
		p->nr_dev = idx + 1;
	return &p->dev[idx];
}

/* x after every request of v issued at its time or before */
static int put(struct iosector_priv *p, struct io_dev *v, struct io_at x)
{
	size_t i;

	if (GROW(v->v, v->n + 1, v->cap))
		return -ENOMEM;
	x.seq = v->arrived++;
	v->late += x.t < p->floor;
	i = v->n++;
	if (!v->unsorted) {
		size_t at = i;

		while (at > 0 && v->v[at - 1].t > x.t)
			at--;
		v->moves += i - at;
		if (v->moves > INSERT_MOVES * ((uint64_t)v->arrived + 1024))
			v->unsorted = true; /* what is in place stays: sorted */
		else if (at < i) {
			memmove(v->v + at + 1, v->v + at, (i - at) * sizeof(*v->v));
			i = at;
		}
	}
	v->v[i] = x;
	return 0;
}

static void request(struct analysis *a, void *priv, struct dev_result *d,
		    const struct join_request *r)
{
	struct iosector_priv *p = priv;
	struct io_at x;
	struct io_dev *v;

	if (opg_of(r->flags) < 0 || !(r->d_ns || r->bio_only))
		return;
	x = (struct io_at){r->d_ns ? r->d_ns : r->q_ns, r->sector, r->nr_sectors, 0};
	if (a->whole) { /* a part: as it came, for the merge */
		if (GROW(p->came, p->nr_came + 1, p->cap_came)) {
			analysis_note_err(a, -ENOMEM);
			return;
		}
		p->came[p->nr_came++] = (struct io_came){x, (uint32_t)(d - a->devs)};
		return;
	}
	v = dev_at(p, (size_t)(d - a->devs));
	if (!v || put(p, v, x))
		analysis_note_err(a, -ENOMEM);
}

/* by time, then as they came (seq modulo 2^32: those held are fewer) */
static int cmp_at(const void *x, const void *y)
{
	const struct io_at *a = x, *b = y;
	int32_t d = (int32_t)(a->seq - b->seq);

	if (a->t != b->t)
		return a->t > b->t ? 1 : -1;
	return (d > 0) - (d < 0);
}

/* Device i's requests held before floor, in issue order, into its two
 * metrics: the sector, and the seek to it, start(n) - end(n-1) (signed in
 * the series, its absolute value in the statistics); with times only for
 * the series view, else values (in buckets past METRIC_EXACT_MAX,
 * metric.h) */
static int count(struct analysis *a, struct iosector_priv *p, size_t i, uint64_t floor)
{
	struct io_dev *v = &p->dev[i];
	struct metric *sector, *seek;
	size_t k = 0;
	int err = 0;

	if (!v->n)
		return 0;
	if (v->unsorted)
		qsort(v->v, v->n, sizeof(*v->v), cmp_at);
	while (k < v->n && v->v[k].t < floor)
		k++;
	if (!k)
		return 0;
	sector =
	    dev_metric(a, &p->sector, &a->devs[i], "sector", "sectors", a->env.keep_time);
	seek = dev_metric(a, &p->seek, &a->devs[i], "seek", "sectors", a->env.keep_time);
	if (!sector || !seek)
		return -ENOMEM;
	if (seek->keep_time && GROW(seek->sv, seek->n + k, v->sv_cap))
		return -ENOMEM;
	for (size_t j = 0; j < k && !err; j++) {
		const struct io_at *x = &v->v[j];
		/* in unsigned arithmetic, which wraps: a crafted trace's
		 * sectors far apart overflowed the signed difference */
		uint64_t d = v->counted ? x->sector - (v->last.sector + v->last.nr) : 0;
		int64_t diff = (int64_t)d;

		if (seek->keep_time)
			seek->sv[seek->n] = diff;
		err = metric_add(sector, x->t, x->sector)
			  ?: metric_add(seek, x->t, diff < 0 ? 0 - d : d);
		v->last = *x;
		v->counted = true;
	}
	memmove(v->v, v->v + k, (v->n - k) * sizeof(*v->v));
	v->n -= k;
	return err;
}

static void give_floor(struct analysis *a, struct iosector_priv *p, uint64_t ns)
{
	if (ns <= p->floor)
		return;
	p->floor = ns;
	for (size_t i = 0; i < p->nr_dev; i++)
		if (count(a, p, i, ns))
			analysis_note_err(a, -ENOMEM);
}

static void on_floor(struct analysis *a, void *priv, uint64_t ns)
{
	struct iosector_priv *p = priv;

	if (!a->whole) {
		give_floor(a, p, ns);
		return;
	}
	if (GROW(p->floors, p->nr_floors + 1, p->cap_floors)) {
		analysis_note_err(a, -ENOMEM);
		return;
	}
	p->floors[p->nr_floors++] = (struct io_floor){ns, p->nr_came};
}

static const struct column late_cols[] = {
    {"device", "DEVICE", -12, CELL_STR, 0, 0, 0, 0, NULL, NULL},
    {"late_requests", "LATE", 8, CELL_U64, 0, 0, 0, 0, NULL, NULL},
};

static int finish(struct analysis *a, struct an_output *o)
{
	struct iosector_priv *p = o->priv;
	struct table *t = NULL;

	for (size_t i = 0; i < p->nr_dev; i++) {
		int err = count(a, p, i, UINT64_MAX);

		if (err)
			return err;
		free(p->dev[i].v);
		p->dev[i].v = NULL;
		p->dev[i].n = p->dev[i].cap = 0;
	}
	for (size_t i = 0; i < p->sector.nr; i++) {
		an_output_metric(a, o, &p->sector.m[i]);
		an_output_metric(a, o, &p->seek.m[i]);
	}
	/* where a record came late, the order is not the issue order: said */
	for (size_t i = 0; i < p->nr_dev; i++) {
		if (!p->dev[i].late)
			continue;
		if (!t) {
			t = an_output_table(a, o, "iosector_late", late_cols,
					    sizeof(late_cols) / sizeof(late_cols[0]));
			if (!t)
				return -ENOMEM;
			snprintf(t->title, sizeof(t->title),
				 "Requests counted out of issue order (iosector)");
			table_note(t, "Each came after requests issued later had been "
				      "counted (a record committed late, or a summary "
				      "without its stretch): counted where it came, its "
				      "seek from the request counted before it.");
		}
		table_row(t);
		table_str(t, "%s", a->devs[i].name);
		table_u64(t, p->dev[i].late);
	}
	return 0;
}

/* a later part's requests and floors, replayed as one thread would have
 * met them */
static int merge(struct analysis *a, void *priv, const struct analysis *src,
		 void *src_priv, const size_t *devmap)
{
	struct iosector_priv *p = priv, *s = src_priv;
	size_t f = 0;

	(void)src;
	for (size_t k = 0; k <= s->nr_came; k++) {
		for (; f < s->nr_floors && s->floors[f].at == k; f++)
			give_floor(a, p, s->floors[f].ns);
		if (k < s->nr_came) {
			struct io_dev *v = dev_at(p, devmap[s->came[k].dev]);

			if (!v || put(p, v, s->came[k].x))
				return -ENOMEM;
		}
	}
	return 0; /* a floor's error is noted (a->err) */
}

static void release(void *priv)
{
	struct iosector_priv *p = priv;

	for (size_t i = 0; i < p->nr_dev; i++)
		free(p->dev[i].v);
	free(p->dev);
	free(p->came);
	free(p->floors);
	dev_metrics_release(&p->sector);
	dev_metrics_release(&p->seek);
}

const struct analyzer an_iosector = {
    .name = "iosector",
    .help = "sector and seek distance of each request, in issue order",
    .priv_size = sizeof(struct iosector_priv),
    .metric_unit = "sectors",
    .request = request,
    .floor = on_floor,
    .merge = merge,
    .finish = finish,
    .release = release,
};
