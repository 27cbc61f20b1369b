// SPDX-License-Identifier: GPL-2.0
/*
 * The gaps of a trace's streams (gaps.h).
 *
 * Each question looks only at gaps whose next record a merge has already
 * taken in when it returns the record asked about (the stream's gaps up
 * to a sequence number it has read, or the first gap after one when that
 * gap's next record is earlier than the time asked about): so a list of
 * skipped gaps still being filled by the merge answers as the whole one
 * does.
 */
#include "gaps.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/grow.h"

int trace_gaps_init(struct trace_gaps *gs, uint32_t nr_streams)
{
	memset(gs, 0, sizeof(*gs));
	gs->s = calloc(nr_streams ? nr_streams : 1, sizeof(*gs->s));
	if (!gs->s)
		return -ENOMEM;
	gs->nr_streams = nr_streams;
	pthread_mutex_init(&gs->mu, NULL);
	return 0;
}

void trace_gaps_release(struct trace_gaps *gs)
{
	if (!gs->s)
		return;
	for (uint32_t i = 0; i < gs->nr_streams; i++) {
		free(gs->s[i].skipped.g);
		free(gs->s[i].dropped.g);
	}
	free(gs->s);
	pthread_mutex_destroy(&gs->mu);
	memset(gs, 0, sizeof(*gs));
}

void trace_gaps_clear(struct trace_gaps *gs)
{
	for (uint32_t i = 0; i < gs->nr_streams; i++)
		__atomic_store_n(&gs->s[i].skipped.n, 0, __ATOMIC_RELEASE);
}

static int append(struct trace_gaps *gs, struct trace_gap_list *l, uint64_t seq,
		  uint64_t ts_ns, uint64_t lost)
{
	if (l->n && l->g[l->n - 1].seq >= seq)
		return 0; /* not after the last: damage, left out */
	if (GROW(l->g, l->n + 1, l->cap))
		return -ENOMEM;
	l->g[l->n] = (struct trace_gap){
	    .seq = seq, .ts_ns = ts_ns, .lost = (l->n ? l->g[l->n - 1].lost : 0) + lost};
	__atomic_store_n(&l->n, l->n + 1, __ATOMIC_RELEASE);
	__atomic_store_n(&gs->any, true, __ATOMIC_RELEASE);
	return 0;
}

int trace_gaps_add(struct trace_gaps *gs, uint32_t s, uint64_t seq, uint64_t ts_ns,
		   uint64_t lost)
{
	int err;

	if (s >= gs->nr_streams || !lost)
		return 0;
	if (gs->shared)
		pthread_mutex_lock(&gs->mu);
	err = append(gs, &gs->s[s].skipped, seq, ts_ns, lost);
	if (gs->shared)
		pthread_mutex_unlock(&gs->mu);
	return err;
}

int trace_gaps_add_dropped(struct trace_gaps *gs, uint32_t s, uint64_t seq,
			   uint64_t ts_ns, uint64_t lost)
{
	return s < gs->nr_streams && lost
		   ? append(gs, &gs->s[s].dropped, seq, ts_ns, lost)
		   : 0;
}

int trace_gaps_copy_dropped(struct trace_gaps *dst, const struct trace_gaps *src)
{
	for (uint32_t i = 0; i < src->nr_streams && i < dst->nr_streams; i++) {
		struct trace_gap_list *d = &dst->s[i].dropped;

		d->n = 0;
		if (APPEND(d->g, d->n, d->cap, src->s[i].dropped.g, src->s[i].dropped.n))
			return -ENOMEM;
		if (d->n)
			dst->any = true;
	}
	return 0;
}

/* The number of the list's gaps whose next record is at or before seq */
static size_t upto(const struct trace_gap_list *l, size_t n, uint64_t seq)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->g[mid].seq <= seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static uint64_t between(const struct trace_gap_list *l, size_t n, uint64_t a, uint64_t b)
{
	size_t i = upto(l, n, a), k = upto(l, n, b);

	return a < b && k > i ? l->g[k - 1].lost - (i ? l->g[i - 1].lost : 0) : 0;
}

/* The records of the gaps after a whose next record is before t, up to
 * `enough`: from the first on, stopping at one whose record is not before
 * t (the later ones a merge may not have taken in yet at t) */
static uint64_t after_until(const struct trace_gap_list *l, size_t n, uint64_t a,
			    uint64_t t, uint64_t enough)
{
	uint64_t lost = 0;

	for (size_t i = upto(l, n, a); i < n && l->g[i].ts_ns < t && lost < enough; i++)
		lost += l->g[i].lost - (i ? l->g[i - 1].lost : 0);
	return lost;
}

/* The records of the gaps at or before b whose next record is after t, up
 * to `enough`: from the last on, stopping at one whose record is not */
static uint64_t since_upto(const struct trace_gap_list *l, size_t n, uint64_t t,
			   uint64_t b, uint64_t enough)
{
	uint64_t lost = 0;

	for (size_t k = upto(l, n, b); k && l->g[k - 1].ts_ns > t && lost < enough; k--)
		lost += l->g[k - 1].lost - (k > 1 ? l->g[k - 2].lost : 0);
	return lost;
}

/* Stream s (NULL: none of that number), and how many skipped gaps it has,
 * locked where shared and there are some */
static struct trace_gap_stream *stream(struct trace_gaps *gs, uint32_t s, size_t *n)
{
	if (!gs || s >= gs->nr_streams)
		return NULL;
	*n = __atomic_load_n(&gs->s[s].skipped.n, __ATOMIC_ACQUIRE);
	if (*n && gs->shared) {
		pthread_mutex_lock(&gs->mu);
		*n = gs->s[s].skipped.n;
	}
	return &gs->s[s];
}

static void stream_done(struct trace_gaps *gs, size_t n)
{
	if (n && gs->shared)
		pthread_mutex_unlock(&gs->mu);
}

uint64_t trace_gaps_between(struct trace_gaps *gs, uint32_t s, uint64_t a, uint64_t b)
{
	size_t n;
	struct trace_gap_stream *st = stream(gs, s, &n);
	uint64_t lost;

	if (!st)
		return 0;
	lost =
	    between(&st->dropped, st->dropped.n, a, b) + between(&st->skipped, n, a, b);
	stream_done(gs, n);
	return lost;
}

bool trace_gaps_lost_between(struct trace_gaps *gs, uint32_t e, uint64_t e_seq,
			     uint64_t e_ns, uint32_t x, uint64_t x_seq, uint64_t x_ns)
{
	struct trace_gap_stream *st;
	uint64_t lost = 0;
	size_t n;

	if (e == x)
		return trace_gaps_between(gs, e, e_seq, x_seq) >= 2;
	if ((st = stream(gs, e, &n))) {
		lost = after_until(&st->dropped, st->dropped.n, e_seq, x_ns, 2) +
		       after_until(&st->skipped, n, e_seq, x_ns, 2);
		stream_done(gs, n);
	}
	if (lost < 2 && (st = stream(gs, x, &n))) {
		lost += since_upto(&st->dropped, st->dropped.n, e_ns, x_seq, 2) +
			since_upto(&st->skipped, n, e_ns, x_seq, 2);
		stream_done(gs, n);
	}
	return lost >= 2;
}

uint64_t trace_gaps_next_ts(struct trace_gaps *gs, uint32_t s, uint64_t a)
{
	size_t n, i;
	struct trace_gap_stream *st = stream(gs, s, &n);
	uint64_t t = UINT64_MAX;

	if (!st)
		return t;
	i = upto(&st->dropped, st->dropped.n, a);
	if (i < st->dropped.n)
		t = st->dropped.g[i].ts_ns;
	i = upto(&st->skipped, n, a);
	if (i < n && st->skipped.g[i].ts_ns < t)
		t = st->skipped.g[i].ts_ns;
	stream_done(gs, n);
	return t;
}
