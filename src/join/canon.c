// SPDX-License-Identifier: GPL-2.0
/*
 * The join's state in a canonical form, for the segment-parallel join
 * (parallel.c): a join started at a segment's boundary is taken over from
 * the record where its state is the same as that of the join which ran
 * from the trace's start. "The same" must not hang on the pools' layout,
 * which differs between the two: so every live object is written as its
 * content, each reference as the kernel's identity of what it names (a
 * system call by its thread, an io_uring request by its address) or as the
 * rank of the named object among its kind, and the whole sorted. Two forms
 * of the same bytes are two states from which the same records give the
 * same outputs.
 *
 * What is not in the form: the counters (join_stats, additive; the caller
 * adds them up) and the generation numbers (only their equality is read).
 * The facts that records alone write (each CPU's plain BIO_INFO, each
 * task's last fault, the dirtiers' processes) a join begun mid-trace is
 * given at its start (join_seed), so they are in the form like the rest.
 *
 * Anything the form cannot name for sure (two requests alike in every
 * byte, a map naming a free slot, a list that loops) makes it ambiguous,
 * and an ambiguous form equals nothing: the cost is a longer run, never a
 * different output.
 */
#include <stdlib.h>
#include <string.h>

#include "../util/grow.h"
#include "join_int.h"

struct join_canon_ent {
	size_t off;
	uint32_t len;
};

enum canon_kind {
	CK_REQ = 1,
	CK_QBIO,
	CK_MAP_BIO_PTR,
	CK_MAP_BIO_START,
	CK_MAP_RQ_PTR,
	CK_MAP_REQ_START,
	CK_MAP_REQ_END,
	CK_SYS,
	CK_URING,
	CK_MAP_URING_TID,
	CK_DIRTIER,
	CK_TGID,
	CK_HELD,
	CK_COMMIT,
	CK_PLAIN,
	CK_FAULT,
	CK_FAULT_INDEX,
};

/* the pieces of one entry, appended to c->tmp */
static int put(struct join_canon *c, const void *p, size_t n)
{
	if (GROW(c->tmp, c->tmp_len + n, c->tmp_cap))
		return -ENOMEM;
	memcpy(c->tmp + c->tmp_len, p, n);
	c->tmp_len += n;
	return 0;
}

static int put64(struct join_canon *c, uint64_t v)
{
	return put(c, &v, sizeof(v));
}

static int ent_begin(struct join_canon *c, enum canon_kind k, size_t *start)
{
	uint8_t kind = (uint8_t)k;

	*start = c->tmp_len;
	return put(c, &kind, 1);
}

static int ent_end(struct join_canon *c, size_t start)
{
	if (GROW(c->ent, c->nr_ent + 1, c->cap_ent))
		return -ENOMEM;
	c->ent[c->nr_ent++] =
	    (struct join_canon_ent){.off = start, .len = (uint32_t)(c->tmp_len - start)};
	return 0;
}

/* the slots of a pool on its free list; NULL out of memory, *bad when the
 * list leaves the pool or loops */
static uint8_t *free_slots(uint32_t nr, uint32_t first, const void *pool, size_t elem,
			   size_t link_off, bool *bad)
{
	uint8_t *is_free = calloc(nr ? nr : 1, 1);

	if (!is_free)
		return NULL;
	for (uint32_t f = first, n = 0; f != NONE; n++) {
		if (f >= nr || is_free[f] || n > nr) {
			*bad = true;
			break;
		}
		is_free[f] = 1;
		memcpy(&f, (const char *)pool + (size_t)f * elem + link_off, sizeof(f));
	}
	return is_free;
}

/* A bio as the form holds it: its fields, and what it names by identity */
static int put_bio(struct join_canon *c, const struct join *j,
		   const struct join_bio_st *bs)
{
	uint64_t sys_tid = 0, uring_req = 0;
	uint8_t refs = 0;

	if (bs->sys != NONE && bs->sys < j->nr_sys && j->sys[bs->sys].open &&
	    j->sys[bs->sys].gen == bs->sys_gen) {
		sys_tid = j->sys[bs->sys].s.tid;
		refs |= 1;
	}
	if (bs->uring != NONE && bs->uring < j->nr_urings && j->urings[bs->uring].open &&
	    j->urings[bs->uring].gen == bs->uring_gen) {
		uring_req = j->urings[bs->uring].u.req;
		refs |= 2;
	}
	{
		const uint64_t f[] = {bs->ptr, bs->q_ns,      bs->sector, bs->nr,
				      bs->dev, bs->flags,     bs->pid,	  bs->tid,
				      bs->ino, bs->sys_enter, bs->cpu,	  bs->est_q,
				      sys_tid, uring_req,     refs};

		if (put(c, f, sizeof(f)))
			return -ENOMEM;
	}
	return put(c, &bs->why, sizeof(bs->why));
}

static int cmp_bytes(const unsigned char *a, size_t la, const unsigned char *b, size_t lb)
{
	int d = memcmp(a, b, la < lb ? la : lb);

	return d ? d : (la > lb) - (la < lb);
}

/* qsort has no context: the buffer the entries point into */
static __thread const unsigned char *sort_base;

static int cmp_ent(const void *x, const void *y)
{
	const struct join_canon_ent *a = x, *b = y;

	return cmp_bytes(sort_base + a->off, a->len, sort_base + b->off, b->len);
}

/* an object's entry, and its slot in the pool */
struct ranked {
	struct join_canon_ent e;
	uint32_t idx;
};

static int cmp_ranked(const void *x, const void *y)
{
	return cmp_ent(&((const struct ranked *)x)->e, &((const struct ranked *)y)->e);
}

/* Ranks n objects whose entries are given; *bad when two are alike */
static void rank_objects(struct join_canon *c, struct ranked *o, size_t n, uint32_t *rank,
			 bool *bad)
{
	sort_base = c->tmp;
	qsort(o, n, sizeof(*o), cmp_ranked);
	for (size_t i = 0; i < n; i++) {
		rank[o[i].idx] = (uint32_t)i;
		if (i && !cmp_ranked(&o[i - 1], &o[i]))
			*bad = true;
	}
}

/* The form of a reference to bio b: a queued bio's rank, or its request's
 * rank and its place in that request's list */
static int put_bio_ref(struct join_canon *c, const struct join *j, uint32_t b,
		       const uint8_t *bio_free, const uint32_t *qrank,
		       const uint32_t *rrank, const uint32_t *pos, bool *bad)
{
	uint64_t f[3];

	if (b >= j->nr_bios || bio_free[b]) {
		*bad = true;
		return 0;
	}
	if (j->bios[b].req == NONE) {
		f[0] = 0;
		f[1] = qrank[b];
		f[2] = 0;
	} else {
		f[0] = 1;
		f[1] = rrank[j->bios[b].req];
		f[2] = pos[b];
	}
	return put(c, f, sizeof(f));
}

/* every (key, value) of a map */
#define MAP_EACH(m, k, v, body)                                                          \
	do {                                                                             \
		if ((m)->has_zero) {                                                     \
			uint64_t k = 0;                                                  \
			uint32_t v = (m)->zero_val;                                      \
			body;                                                            \
		}                                                                        \
		for (size_t i_ = 0; i_ <= (m)->mask; i_++)                               \
			if ((m)->slots[i_].key) {                                        \
				uint64_t k = (m)->slots[i_].key;                         \
				uint32_t v = (m)->slots[i_].val;                         \
				body;                                                    \
			}                                                                \
	} while (0)

static int build(const struct join *j, struct join_canon *c, uint8_t *bio_free,
		 uint8_t *req_free, uint32_t *qrank, uint32_t *rrank, uint32_t *pos,
		 struct ranked *o, bool *bad)
{
	size_t start, n = 0;
	int err = 0;

	/* the requests, each with its bios in list order */
	for (uint32_t ri = 0; ri < j->nr_reqs && !err; ri++) {
		const struct join_req_st *rs = &j->reqs[ri];
		uint32_t k = 0;

		if (req_free[ri])
			continue;
		err = ent_begin(c, CK_REQ, &start);
		if (!err) {
			const uint64_t f[] = {rs->state, rs->left, rs->held,
					      rs->start_key, rs->end_key};

			err = put(c, &rs->r, sizeof(rs->r)) || put(c, f, sizeof(f));
		}
		for (uint32_t b = rs->head; b != NONE && !err; b = j->bios[b].next, k++) {
			if (b >= j->nr_bios || bio_free[b] || j->bios[b].req != ri ||
			    k > j->nr_bios) {
				*bad = true;
				break;
			}
			pos[b] = k;
			err = put_bio(c, j, &j->bios[b]);
		}
		if (!err)
			err = put64(c, k);
		o[n++] = (struct ranked){{start, (uint32_t)(c->tmp_len - start)}, ri};
	}
	if (err)
		return err;
	rank_objects(c, o, n, rrank, bad);
	for (size_t i = 0; i < n && !err; i++) {
		if (GROW(c->ent, c->nr_ent + 1, c->cap_ent))
			return -ENOMEM;
		c->ent[c->nr_ent++] = o[i].e;
	}
	/* the bios queued, in no request */
	n = 0;
	for (uint32_t b = 0; b < j->nr_bios && !err; b++) {
		if (bio_free[b])
			continue;
		if (j->bios[b].req != NONE) {
			if (j->bios[b].req >= j->nr_reqs || req_free[j->bios[b].req])
				*bad = true;
			continue;
		}
		err = ent_begin(c, CK_QBIO, &start) || put_bio(c, j, &j->bios[b]);
		o[n++] = (struct ranked){{start, (uint32_t)(c->tmp_len - start)}, b};
	}
	if (err)
		return err;
	rank_objects(c, o, n, qrank, bad);
	for (size_t i = 0; i < n; i++) {
		if (GROW(c->ent, c->nr_ent + 1, c->cap_ent))
			return -ENOMEM;
		c->ent[c->nr_ent++] = o[i].e;
	}

	/* the maps, each value by what it names */
#define BIO_MAP(m, kind)                                                                 \
	MAP_EACH(m, key, val, {                                                          \
		if (!err)                                                                \
			err =                                                            \
			    ent_begin(c, kind, &start) || put64(c, key) ||               \
			    put_bio_ref(c, j, val, bio_free, qrank, rrank, pos, bad) ||  \
			    ent_end(c, start);                                           \
	})
#define REQ_MAP(m, kind)                                                                 \
	MAP_EACH(m, key, val, {                                                          \
		if (val >= j->nr_reqs || req_free[val])                                  \
			*bad = true;                                                     \
		else if (!err)                                                           \
			err = ent_begin(c, kind, &start) || put64(c, key) ||             \
			      put64(c, rrank[val]) || ent_end(c, start);                 \
	})
	BIO_MAP(&j->bio_by_ptr, CK_MAP_BIO_PTR);
	BIO_MAP(&j->bio_by_start, CK_MAP_BIO_START);
	REQ_MAP(&j->rq_by_ptr, CK_MAP_RQ_PTR);
	REQ_MAP(&j->req_by_start, CK_MAP_REQ_START);
	REQ_MAP(&j->req_by_end, CK_MAP_REQ_END);
	/* an open call is in this map alone: written whole there */
	MAP_EACH(&j->sys_by_tid, key, val, {
		if (val >= j->nr_sys || !j->sys[val].open)
			*bad = true;
		else if (!err)
			err = ent_begin(c, CK_SYS, &start) || put64(c, key) ||
			      put(c, &j->sys[val].s, sizeof(j->sys[val].s)) ||
			      put64(c, j->sys[val].enter_seq) || ent_end(c, start);
	});
	/* so is an open io_uring request, in the map by address */
	MAP_EACH(&j->uring_by_ptr, key, val, {
		if (val >= j->nr_urings || !j->urings[val].open)
			*bad = true;
		else if (!err)
			err = ent_begin(c, CK_URING, &start) || put64(c, key) ||
			      put(c, &j->urings[val].u, sizeof(j->urings[val].u)) ||
			      ent_end(c, start);
	});
	MAP_EACH(&j->uring_by_tid, key, val, {
		if (val >= j->nr_urings || !j->urings[val].open)
			*bad = true;
		else if (!err)
			err = ent_begin(c, CK_MAP_URING_TID, &start) || put64(c, key) ||
			      put64(c, j->urings[val].u.req) || ent_end(c, start);
	});
	MAP_EACH(&j->dirtier, key, val, {
		if (!err)
			err = ent_begin(c, CK_DIRTIER, &start) || put64(c, key) ||
			      put64(c, val) || ent_end(c, start);
	});
	MAP_EACH(&j->tgid, key, val, {
		if (!err)
			err = ent_begin(c, CK_TGID, &start) || put64(c, key) ||
			      put64(c, val) || ent_end(c, start);
	});
	/* the requests held for the flush sequence, in list order */
	n = 0;
	for (uint32_t h = j->held; h != NONE && !err; h = j->reqs[h].next_held, n++) {
		if (h >= j->nr_reqs || req_free[h] || n > j->nr_reqs) {
			*bad = true;
			break;
		}
		err = ent_begin(c, CK_HELD, &start) || put64(c, n) ||
		      put64(c, rrank[h]) || ent_end(c, start);
	}
	MAP_EACH(&j->fault, key, val, {
		if (!err)
			err = ent_begin(c, CK_FAULT, &start) || put64(c, key) ||
			      put64(c, val) || ent_end(c, start);
	});
	MAP_EACH(&j->fault_index, key, val, {
		if (!err)
			err = ent_begin(c, CK_FAULT_INDEX, &start) || put64(c, key) ||
			      put64(c, val) || ent_end(c, start);
	});
	/* a CPU's slot: the array grows as CPUs are read, set or not */
	for (size_t k = 0; k < j->nr_plain && !err; k++)
		if (j->plain[k].tid1)
			err = ent_begin(c, CK_PLAIN, &start) || put64(c, k) ||
			      put(c, &j->plain[k], sizeof(j->plain[k])) ||
			      ent_end(c, start);
	for (uint32_t i = 0; i < j->nr_open_commits && !err; i++)
		err = ent_begin(c, CK_COMMIT, &start) || put64(c, i) ||
		      put(c, &j->open_commits[i], sizeof(j->open_commits[i])) ||
		      ent_end(c, start);
	return err ? -ENOMEM : 0;
}

int join_canon(const struct join *j, struct join_canon *c)
{
	uint8_t *bio_free, *req_free;
	uint32_t *qrank, *rrank, *pos;
	struct ranked *o;
	size_t most = (j->nr_bios > j->nr_reqs ? j->nr_bios : j->nr_reqs) + 1;
	bool bad = false;
	int err = -ENOMEM;

	c->tmp_len = c->nr_ent = c->len = 0;
	bio_free = free_slots(j->nr_bios, j->free_bio, j->bios, sizeof(*j->bios),
			      offsetof(struct join_bio_st, next), &bad);
	req_free = free_slots(j->nr_reqs, j->free_req, j->reqs, sizeof(*j->reqs),
			      offsetof(struct join_req_st, next_free), &bad);
	qrank = calloc(j->nr_bios + 1, sizeof(*qrank));
	pos = calloc(j->nr_bios + 1, sizeof(*pos));
	rrank = calloc(j->nr_reqs + 1, sizeof(*rrank));
	o = calloc(most, sizeof(*o));
	if (bio_free && req_free && qrank && pos && rrank && o)
		err = build(j, c, bio_free, req_free, qrank, rrank, pos, o, &bad);
	free(bio_free);
	free(req_free);
	free(qrank);
	free(pos);
	free(rrank);
	free(o);
	if (err)
		return err;
	/* the whole, sorted, each entry after its length */
	sort_base = c->tmp;
	if (c->nr_ent) /* an empty state has no array */
		qsort(c->ent, c->nr_ent, sizeof(*c->ent), cmp_ent);
	for (size_t i = 0; i < c->nr_ent; i++) {
		if (GROW(c->out, c->len + 4 + c->ent[i].len, c->cap))
			return -ENOMEM;
		memcpy(c->out + c->len, &c->ent[i].len, 4);
		memcpy(c->out + c->len + 4, c->tmp + c->ent[i].off, c->ent[i].len);
		c->len += 4 + c->ent[i].len;
	}
	c->ambiguous = bad;
	return 0;
}

void join_canon_release(struct join_canon *c)
{
	free(c->tmp);
	free(c->ent);
	free(c->out);
	memset(c, 0, sizeof(*c));
}

void join_sizes(const struct join *j, uint64_t out[JOIN_NR_SIZES])
{
	const struct u64map *m[] = {&j->bio_by_ptr,   &j->bio_by_start, &j->rq_by_ptr,
				    &j->req_by_start, &j->req_by_end,	&j->sys_by_tid,
				    &j->uring_by_ptr, &j->uring_by_tid, &j->dirtier,
				    &j->tgid,	      &j->fault};
	size_t i;

	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		out[i] = m[i]->n;
	out[i++] = j->nr_open_commits;
	out[i] = j->held != NONE;
}

/* ---- the facts records alone write ------------------------------------------ */

int join_seed_init(struct join_seed *s)
{
	memset(s, 0, sizeof(*s));
	if (u64map_init(&s->fault, 64) || u64map_init(&s->fault_index, 64) ||
	    u64map_init(&s->tgid, 64)) {
		join_seed_release(s);
		return -ENOMEM;
	}
	return 0;
}

void join_seed_release(struct join_seed *s)
{
	free(s->plain);
	u64map_release(&s->fault);
	u64map_release(&s->fault_index);
	u64map_release(&s->tgid);
	memset(s, 0, sizeof(*s));
}

/* as join_feed writes them (join.c: on_bio_info, the FAULT case, on_dirty) */
int join_seed_feed(struct join_seed *s, const struct iot_rec *r, bool bi_elided)
{
	if (r->type == IOT_EV_BIO_INFO && r->id && bi_elided &&
	    (r->flags & 0xff) == IOT_CAUSE_OTHER && !r->id2) {
		if (r->cpu >= s->nr_plain) {
			size_t n = r->cpu + 1;
			struct join_plain *p = realloc(s->plain, n * sizeof(*p));

			if (!p)
				return -ENOMEM;
			memset(p + s->nr_plain, 0, (n - s->nr_plain) * sizeof(*p));
			s->plain = p;
			s->nr_plain = n;
		}
		s->plain[r->cpu] =
		    (struct join_plain){r->tid + 1, r->nr, r->flags >> 16 & 0xff};
	} else if (r->type == IOT_EV_FAULT && !(r->flags & IOT_FAULT_AROUND)) {
		if (u64map_put(&s->fault, r->tid, (uint32_t)r->id) ||
		    u64map_put(&s->fault_index, r->tid, (uint32_t)r->id2))
			return -ENOMEM;
	} else if (r->type == IOT_EV_DIRTY) {
		if (u64map_put(&s->tgid, r->tid, r->pid))
			return -ENOMEM;
	} else if (r->type == IOT_EV_DEGRADE && r->flags == IOT_DEGRADE_BEGIN &&
		   (!s->pin || r->ts_ns < s->pin - 1) && r->ts_ns != UINT64_MAX) {
		s->pin = r->ts_ns + 1;
	}
	return 0;
}

/* The facts of from into a seed's or a join's fields, which are the same
 * (what they held is freed) */
static int copy_facts(struct join_plain **plain, size_t *nr_plain, struct u64map *fault,
		      struct u64map *fault_index, struct u64map *tgid,
		      const struct join_seed *from)
{
	struct join_plain *p = NULL;

	if (from->nr_plain) {
		p = malloc(from->nr_plain * sizeof(*p));
		if (!p)
			return -ENOMEM;
		memcpy(p, from->plain, from->nr_plain * sizeof(*p));
	}
	free(*plain);
	*plain = p;
	*nr_plain = from->nr_plain;
	return u64map_copy(fault, &from->fault) ||
		       u64map_copy(fault_index, &from->fault_index) ||
		       u64map_copy(tgid, &from->tgid)
		   ? -ENOMEM
		   : 0;
}

int join_seed_copy(struct join_seed *to, const struct join_seed *from)
{
	to->pin = from->pin;
	return copy_facts(&to->plain, &to->nr_plain, &to->fault, &to->fault_index,
			  &to->tgid, from);
}

static int merge_map(struct u64map *to, const struct u64map *later)
{
	if (later->has_zero && u64map_put(to, 0, later->zero_val))
		return -ENOMEM;
	for (size_t i = 0; i <= later->mask; i++)
		if (later->slots[i].key &&
		    u64map_put(to, later->slots[i].key, later->slots[i].val))
			return -ENOMEM;
	return 0;
}

int join_seed_merge(struct join_seed *to, const struct join_seed *later)
{
	if (later->nr_plain > to->nr_plain) {
		struct join_plain *p = realloc(to->plain, later->nr_plain * sizeof(*p));

		if (!p)
			return -ENOMEM;
		memset(p + to->nr_plain, 0,
		       (later->nr_plain - to->nr_plain) * sizeof(*p));
		to->plain = p;
		to->nr_plain = later->nr_plain;
	}
	/* a CPU's entry is set by a record (tid + 1: never 0, see
	 * trace_reader_plan) or left as it was */
	for (size_t c = 0; c < later->nr_plain; c++)
		if (later->plain[c].tid1)
			to->plain[c] = later->plain[c];
	if (later->pin && (!to->pin || later->pin < to->pin))
		to->pin = later->pin;
	return merge_map(&to->fault, &later->fault) ||
		       merge_map(&to->fault_index, &later->fault_index) ||
		       merge_map(&to->tgid, &later->tgid)
		   ? -ENOMEM
		   : 0;
}

int join_seed_apply(struct join *j, const struct join_seed *s)
{
	if (s->pin && s->pin - 1 < j->floor_pin)
		j->floor_pin = s->pin - 1;
	return copy_facts(&j->plain, &j->nr_plain, &j->fault, &j->fault_index, &j->tgid,
			  s);
}
