// SPDX-License-Identifier: GPL-2.0
/*
 * The per-request state machine. Identity is the kernel address the raw
 * tracepoints hand us (bio or request); sector adjacency is used only where
 * the kernel gives no address (merges, splits), as btt does.
 *
 * A bio (QUEUED while bio.req is NONE, IN_REQ after):
 *
 *   (new)  --Q bio_queue: bio_new()----------------------> QUEUED
 *   QUEUED --G getrq: on_getrq(), heads a new request-----> IN_REQ (head)
 *   QUEUED --M backmerge / F frontmerge: on_bio_merge()---> IN_REQ (the
 *                                                request found by sector)
 *   QUEUED --X split: on_split(), the front part----------> QUEUED (both; the
 *                                                new one keeps the old Q)
 *   QUEUED --C bio_complete: on_bio_complete()------------> emitted as a
 *                                         bio-only request (bio-based device)
 *   IN_REQ --(its request completes): emit_request()------> emitted per bio,
 *                                                          freed by req_free()
 *
 * A request (enum rq_state; created at G by req_new(), keyed by its head
 * bio until the kernel shows its address at I or D, when req_for_rq() links
 * the address; mergeable while not issued):
 *
 *   RQ_GOT      --I rq_insert------------> RQ_INSERTED
 *   RQ_GOT      --D rq_issue-------------> RQ_ISSUED     (no scheduler: no I)
 *   RQ_INSERTED --D rq_issue-------------> RQ_ISSUED     req_unmerge(): out of
 *                                                         the merge maps
 *   RQ_ISSUED   --R rq_requeue-----------> RQ_INSERTED   next D overwrites d_ns
 *   any         --rq_merge: on_rq_merge()-> (its bios move to the neighbour it
 *                                            touches; freed, never emitted)
 *   any         --C rq_complete: on_rq_complete(), sectors left > done
 *                                         -> unchanged (partial completion)
 *   any         --C rq_complete, last sectors -> emit_request(), req_free()
 *
 * A completion of a request never seen before (in flight when the trace
 * began) is emitted with only the stages seen, and counted as an orphan.
 *
 * A system call: SYS_ENTER opens one per tid (on_sys_enter()); every bio
 * that tid queues before SYS_EXIT is attributed to it; SYS_EXIT
 * (on_sys_exit()) emits it with the bio and scheduler times of those bios
 * that completed by then (emit_request() adds them).
 */
#include "join_int.h"

#include <assert.h>

#include "../util/grow.h"

#include <stdlib.h>
#include <string.h>

/* ---- pools ---------------------------------------------------------------- */

/* A slot of a pool: the first on its free list, else a new one at the end;
 * zeroed. 0 or -ENOMEM. */
#define POOL_TAKE(arr, nr, cap, freelist, link, out)                                     \
	pool_take((void *)&(arr), sizeof(*(arr)), offsetof(__typeof__(*(arr)), link),    \
		  &(nr), &(cap), &(freelist), (out))

/* A slot zeroed with 16-byte stores. A memset (or a loop the compiler
 * turns into one) of a slot's 136 or 208 bytes became `rep stos`, whose
 * start-up was half of bio_new's time on one core; the empty asm keeps
 * the stores stores. Unrolled (a slot's size is a constant wherever this
 * is inlined), a one-thread report of a 16-CPU zram trace runs 3% fewer
 * instructions (callgrind) and about 1.5% faster (2 vCPUs). */
typedef uint64_t zero16 __attribute__((vector_size(16), aligned(1), may_alias));
static inline __attribute__((always_inline)) void zero_slot(char *p, size_t n)
{
	size_t k = 0;

#pragma GCC unroll 16
	for (; k + 16 <= n; k += 16) {
		*(zero16 *)(p + k) = (zero16){0, 0};
		__asm__("" : : "r"(p));
	}
	for (; k < n; k++)
		p[k] = 0;
}

static inline __attribute__((always_inline)) int
pool_take(void *arrp, size_t elem, size_t link_off, uint32_t *nr, size_t *cap,
	  uint32_t *freelist, uint32_t *out)
{
	char *arr;
	uint32_t i = *freelist;

	if (i != NONE) {
		memcpy(&arr, arrp, sizeof(arr));
		memcpy(freelist, arr + (size_t)i * elem + link_off, sizeof(*freelist));
	} else {
		if (grow_array(arrp, elem, (size_t)*nr + 1, cap))
			return -ENOMEM;
		i = (*nr)++;
	}
	memcpy(&arr, arrp, sizeof(arr));
	zero_slot(arr + (size_t)i * elem, elem);
	*out = i;
	return 0;
}

/* Frees a bio that belongs to no request. A bio in a request is owned by
 * it (freed with it): here it only loses its address, which the kernel is
 * reusing because this request's completion was lost. */
static void bio_free(struct join *j, uint32_t b)
{
	struct join_bio_st *bs = &j->bios[b];
	uint32_t *v = u64map_get(&j->bio_by_ptr, bs->ptr);

	if (v && *v == b)
		u64map_del(&j->bio_by_ptr, bs->ptr);
	if (bs->req != NONE)
		return;
	{
		uint64_t k = u64map_dev_sector(bs->dev, bs->sector);

		v = u64map_get(&j->bio_by_start, k);
		if (v && *v == b)
			u64map_del(&j->bio_by_start, k);
	}
	bs->ptr = 0;
	bs->next = j->free_bio;
	j->free_bio = b;
}

static void req_unmerge(struct join *j, struct join_req_st *rs, uint32_t ri)
{
	uint32_t *v;

	if (rs->start_key) {
		v = u64map_get(&j->req_by_start, rs->start_key);
		if (v && *v == ri)
			u64map_del(&j->req_by_start, rs->start_key);
		rs->start_key = 0;
	}
	if (rs->end_key) {
		v = u64map_get(&j->req_by_end, rs->end_key);
		if (v && *v == ri)
			u64map_del(&j->req_by_end, rs->end_key);
		rs->end_key = 0;
	}
}

static int req_remerge(struct join *j, uint32_t ri)
{
	struct join_req_st *rs = &j->reqs[ri];

	req_unmerge(j, rs, ri);
	if (rs->state == RQ_ISSUED)
		return 0;
	rs->start_key = u64map_dev_sector(rs->r.dev, rs->r.sector);
	rs->end_key = u64map_dev_sector(rs->r.dev, rs->r.sector + rs->r.nr_sectors);
	if (u64map_put(&j->req_by_start, rs->start_key, ri) ||
	    u64map_put(&j->req_by_end, rs->end_key, ri))
		return -ENOMEM;
	return 0;
}

static void req_free(struct join *j, uint32_t ri)
{
	struct join_req_st *rs = &j->reqs[ri];
	uint32_t *v;

	req_unmerge(j, rs, ri);
	if (rs->r.rq) {
		v = u64map_get(&j->rq_by_ptr, rs->r.rq);
		if (v && *v == ri)
			u64map_del(&j->rq_by_ptr, rs->r.rq);
	}
	for (uint32_t b = rs->head, n; b != NONE; b = n) {
		n = j->bios[b].next;
		j->bios[b].req = NONE; /* already out of bio_by_start */
		j->bios[b].next = NONE;
		j->bios[b].sector = 0;
		{
			struct join_bio_st *bs = &j->bios[b];
			uint32_t *bv = u64map_get(&j->bio_by_ptr, bs->ptr);

			if (bv && *bv == b)
				u64map_del(&j->bio_by_ptr, bs->ptr);
			bs->ptr = 0;
			bs->next = j->free_bio;
			j->free_bio = b;
		}
	}
	rs->next_free = j->free_req;
	j->free_req = ri;
}

/* ---- bios ------------------------------------------------------------------ */

/* Ties a bio to the io_uring request it serves. */
static void uring_link(struct join *j, struct join_bio_st *bs, uint32_t ui, uint64_t q_ns)
{
	struct join_uring *u = &j->urings[ui].u;

	bs->uring = ui;
	bs->uring_gen = j->urings[ui].gen;
	if (!u->nr_bios++) {
		u->first_q_ns = q_ns;
		u->first_sector = bs->sector;
		u->bio_dev = bs->dev;
	}
}

static int bio_new(struct join *j, const struct iot_rec *r, uint64_t q_ns, uint32_t *out)
{
	struct join_bio_st *bs;
	uint32_t b, *sv;

	if (POOL_TAKE(j->bios, j->nr_bios, j->cap_bios, j->free_bio, next, &b))
		return -ENOMEM;
	bs = &j->bios[b];

	bs->ptr = r->id;
	bs->q_ns = q_ns;
	bs->cpu = r->cpu;
	bs->sector = r->sector;
	bs->nr = r->nr;
	bs->dev = r->dev;
	bs->flags = r->flags & ~IOT_F_ESTIMATED;
	bs->est_q = q_ns && (r->flags & IOT_F_ESTIMATED);
	j->st.estimated_queues += bs->est_q;
	bs->pid = r->pid;
	bs->tid = r->tid;
	bs->req = NONE;
	bs->next = NONE;
	bs->sys = NONE;
	bs->sys_enter = 0;
	if (q_ns && (sv = u64map_get(&j->sys_by_tid, r->tid))) {
		bs->sys = *sv;
		bs->sys_gen = j->sys[*sv].gen;
		bs->ino = j->sys[*sv].s.ino;
		bs->sys_enter = j->sys[*sv].s.enter_ns;
		j->sys[*sv].s.nr_bios++;
	}
	bs->uring = NONE;
	if (q_ns && j->uring_by_tid.n && (sv = u64map_get(&j->uring_by_tid, r->tid))) {
		struct join_uring_st *us = &j->urings[*sv];

		if (us->open && us->u.tid == r->tid)
			uring_link(j, bs, *sv, r->ts_ns);
	}
	if (u64map_put(&j->bio_by_ptr, r->id, b) ||
	    u64map_put(&j->bio_by_start, u64map_dev_sector(r->dev, r->sector), b))
		return -ENOMEM;
	*out = b;
	return 0;
}

/* The bio of r->id: the one queued, or one made up for a bio queued before
 * the trace began (q_ns 0). */
static int bio_find(struct join *j, const struct iot_rec *r, uint32_t *out)
{
	uint32_t *v = u64map_get(&j->bio_by_ptr, r->id);

	if (v && j->bios[*v].req == NONE) {
		*out = *v;
		return 0;
	}
	if (v) /* its request never completed in the trace: a new bio */
		bio_free(j, *v);
	return bio_new(j, r, 0, out);
}

/* Leaves the queued state: out of the by-start map. */
static void bio_take(struct join *j, uint32_t b)
{
	struct join_bio_st *bs = &j->bios[b];
	uint64_t k = u64map_dev_sector(bs->dev, bs->sector);
	uint32_t *v = u64map_get(&j->bio_by_start, k);

	if (v && *v == b)
		u64map_del(&j->bio_by_start, k);
}

static void req_append(struct join *j, uint32_t ri, uint32_t b, bool front)
{
	struct join_req_st *rs = &j->reqs[ri];
	struct join_bio_st *bs = &j->bios[b];

	if (bs->req != NONE)
		return; /* already in a request: a damaged stream, keep lists sane */
	bio_take(j, b);
	bs->req = ri;
	if (bs->est_q)
		rs->r.estimated |= JOIN_EST_Q;
	if (rs->head == NONE) {
		rs->head = rs->tail = b;
		bs->next = NONE;
	} else if (front) {
		bs->next = rs->head;
		rs->head = b;
	} else {
		bs->next = NONE;
		j->bios[rs->tail].next = b;
		rs->tail = b;
	}
	rs->r.nr_bios++;
}

/* ---- requests ---------------------------------------------------------------- */

static void release_held(struct join *j, uint32_t ri);

static int req_new(struct join *j, uint32_t *out)
{
	uint32_t ri;

	if (POOL_TAKE(j->reqs, j->nr_reqs, j->cap_reqs, j->free_req, next_free, &ri))
		return -ENOMEM;
	j->reqs[ri].head = j->reqs[ri].tail = NONE;
	*out = ri;
	return 0;
}

static int on_getrq(struct join *j, const struct iot_rec *r)
{
	struct join_req_st *rs;
	uint32_t b, ri;
	int err;

	err = bio_find(j, r, &b);
	if (!err)
		err = req_new(j, &ri);
	if (err)
		return err;
	rs = &j->reqs[ri];
	rs->r.dev = r->dev;
	rs->r.flags = j->bios[b].flags;
	rs->r.sector = j->bios[b].sector;
	rs->r.nr_sectors = j->bios[b].nr;
	rs->r.pid = j->bios[b].pid;
	rs->r.tid = j->bios[b].tid;
	rs->r.ino = j->bios[b].ino;
	rs->r.q_ns = j->bios[b].q_ns;
	rs->r.q_cpu = j->bios[b].cpu;
	rs->r.g_ns = r->ts_ns;
	rs->r.g_cpu = r->cpu;
	req_append(j, ri, b, false);
	return req_remerge(j, ri);
}

static int on_bio_merge(struct join *j, const struct iot_rec *r, bool front)
{
	uint32_t b, *v;
	uint64_t key;
	int err;

	err = bio_find(j, r, &b);
	if (err)
		return err;
	key = front ? u64map_dev_sector(r->dev, r->sector + r->nr)
		    : u64map_dev_sector(r->dev, r->sector);
	v = u64map_get(front ? &j->req_by_start : &j->req_by_end, key);
	if (!v) {
		j->st.unmatched_merges++;
		bio_free(j, b);
		return 0;
	}
	req_append(j, *v, b, front);
	if (front)
		j->reqs[*v].r.sector = r->sector;
	j->reqs[*v].r.nr_sectors += r->nr;
	return req_remerge(j, *v);
}

/* The request of an I/D/C/R event: by address, else through its head bio
 * (id2 = rq->bio), else a new one for a request that began before the trace. */
static int req_for_rq(struct join *j, const struct iot_rec *r, uint64_t head_bio,
		      uint32_t *out)
{
	uint32_t *v = u64map_get(&j->rq_by_ptr, r->id), ri, *hb = NULL;
	struct join_req_st *rs;

	if (v && j->reqs[*v].held) { /* the address is in use again */
		release_held(j, *v);
		v = u64map_get(&j->rq_by_ptr, r->id);
	}
	if (head_bio)
		hb = u64map_get(&j->bio_by_ptr, head_bio);
	if (v && hb && j->bios[*hb].req != NONE && j->bios[*hb].req != *v) {
		/* the address was reused: the old request lost its completion
		 * (the kernel did not hand it to the programs; not counted by
		 * it either): counted, and forgotten */
		uint32_t old = *v;

		j->st.lost_completions++;
		u64map_del(&j->rq_by_ptr, r->id);
		j->reqs[old].r.rq = 0;
		req_free(j, old);
		v = NULL;
	}
	if (v) {
		*out = *v;
		return 0;
	}
	if (hb && j->bios[*hb].req != NONE) {
		ri = j->bios[*hb].req;
	} else {
		int err = req_new(j, &ri);

		if (err)
			return err;
		rs = &j->reqs[ri];
		rs->r.dev = r->dev;
		rs->r.flags = r->flags & ~IOT_F_ESTIMATED;
		rs->r.sector = r->sector;
		rs->r.nr_sectors = r->nr;
	}
	rs = &j->reqs[ri];
	if (rs->r.rq) { /* another address already: stale, start over */
		uint32_t *o = u64map_get(&j->rq_by_ptr, rs->r.rq);

		if (o && *o == ri)
			u64map_del(&j->rq_by_ptr, rs->r.rq);
	}
	rs->r.rq = r->id;
	if (u64map_put(&j->rq_by_ptr, r->id, ri))
		return -ENOMEM;
	*out = ri;
	return 0;
}

static void emit_request(struct join *j, uint32_t ri)
{
	struct join_req_st *rs = &j->reqs[ri];

	if (j->sink.request)
		j->sink.request(j->sink.ctx, &rs->r);
	for (uint32_t b = rs->head; b != NONE; b = j->bios[b].next) {
		struct join_bio_st *bs = &j->bios[b];
		struct join_bio jb = {
		    .q_ns = bs->q_ns,
		    .sector = bs->sector,
		    .nr_sectors = bs->nr,
		    .tid = bs->tid,
		    .ino = bs->ino,
		    .pid = bs->pid,
		    .why = bs->why,
		    .sys_enter_ns = bs->sys_enter,
		    .cpu = bs->cpu,
		};
		struct join_uring_st *us =
		    bs->uring != NONE && j->urings[bs->uring].open &&
			    j->urings[bs->uring].gen == bs->uring_gen
			? &j->urings[bs->uring]
			: NULL;

		if (us) {
			struct join_uring *u = &us->u;

			jb.uring_req = u->req;
			u->nr_bios_done++;
			u->sectors += bs->nr;
			if (rs->r.c_ns > u->last_c_ns)
				u->last_c_ns = rs->r.c_ns;
			if (rs->r.d_ns && rs->r.c_ns >= rs->r.d_ns)
				u->d2c_sum_ns += rs->r.c_ns - rs->r.d_ns;
		}
		assert(bs->req == ri); /* a request's bios are IN_REQ, in it */
		if (j->sink.bio)
			j->sink.bio(j->sink.ctx, &rs->r, &jb);
		if (bs->sys != NONE && j->sys[bs->sys].open &&
		    j->sys[bs->sys].gen == bs->sys_gen && bs->q_ns) {
			struct join_syscall *s = &j->sys[bs->sys].s;
			uint64_t q2c = rs->r.c_ns - bs->q_ns;

			if (!s->nr_bios_done || q2c < s->bio_q2c_min_ns)
				s->bio_q2c_min_ns = q2c;
			if (q2c > s->bio_q2c_max_ns)
				s->bio_q2c_max_ns = q2c;
			s->bio_q2c_sum_ns += q2c;
			s->nr_bios_done++;
			if (rs->r.i_ns && rs->r.d_ns >= rs->r.i_ns) {
				s->i2d_sum_ns += rs->r.d_ns - rs->r.i_ns;
				s->nr_i2d++;
			}
		}
	}
}

/* Whether a request whose data just completed went through the flush
 * machinery's sequence: a bio was queued with PREFLUSH or FUA and the
 * request was issued without (blk_insert_flush() takes them off the data
 * part when it runs the flushes around it). A device without a volatile
 * cache has them taken off too, with no sequence and no last end: its
 * requests wait for the next use of their address or the stream's end. */
static bool in_flush_seq(const struct join *j, const struct join_req_st *rs)
{
	uint32_t want = 0;

	if (!rs->r.d_ns || rs->r.bio_only)
		return false;
	for (uint32_t b = rs->head; b != NONE; b = j->bios[b].next)
		want |= j->bios[b].flags & (IOT_F_PREFLUSH | IOT_F_FUA);
	return want && (want & ~rs->r.flags);
}

/* A held request whose last end did not come: emitted as it was. */
static void release_held(struct join *j, uint32_t ri)
{
	for (uint32_t *p = &j->held; *p != NONE; p = &j->reqs[*p].next_held)
		if (*p == ri) {
			*p = j->reqs[ri].next_held;
			break;
		}
	j->reqs[ri].held = false;
	emit_request(j, ri);
	req_free(j, ri);
}

static int on_rq_complete(struct join *j, const struct iot_rec *r)
{
	uint64_t left_before = r->id2 >> 32;
	struct join_req_st *rs;
	uint32_t ri;
	int err;

	uint32_t *h = u64map_get(&j->rq_by_ptr, r->id);
	uint8_t est = r->flags & IOT_F_ESTIMATED ? JOIN_EST_C : 0;

	j->st.estimated_completions += !!est;
	if (h && j->reqs[*h].held) { /* the sequence's end */
		ri = *h;
		j->reqs[ri].r.c_ns = r->ts_ns;
		j->reqs[ri].r.c_cpu = r->cpu;
		j->reqs[ri].r.estimated |= est;
		release_held(j, ri);
		return 0;
	}
	if (!h)
		j->st.orphan_completions++;
	err = req_for_rq(j, r, 0, &ri);
	if (err)
		return err;
	rs = &j->reqs[ri];
	if (!rs->r.d_ns && !rs->r.i_ns)
		rs->r.sector = r->sector; /* first seen at RI or C */
	if (!rs->left)
		rs->r.nr_sectors = 0; /* counts what completes from here on */
	rs->r.nr_sectors += r->nr;
	rs->left = left_before > r->nr ? left_before - r->nr : 0;
	if (rs->left)
		return 0; /* partial completion */
	rs->r.c_ns = r->ts_ns;
	rs->r.c_cpu = r->cpu;
	rs->r.estimated |= est;
	rs->r.error = (int32_t)(uint32_t)r->id2;
	if (in_flush_seq(j, rs)) {
		rs->held = true;
		rs->next_held = j->held;
		j->held = ri;
		return 0;
	}
	emit_request(j, ri);
	req_free(j, ri);
	return 0;
}

static int on_bio_complete(struct join *j, const struct iot_rec *r)
{
	uint32_t *v = u64map_get(&j->bio_by_ptr, r->id);
	struct join_bio_st *bs;
	struct join_request jr;
	bool bio_based;

	if (!v)
		return 0; /* queued before the trace, or its request is done */
	bs = &j->bios[*v];
	if (bs->req != NONE)
		return 0; /* its request's completion counts */
	/* the last device's kind: one device, mostly */
	if (j->bb_dev1 != (uint64_t)r->dev + 1) {
		j->bb_last = j->is_bio_based ? j->is_bio_based(j->dev_ctx, r->dev) : true;
		j->bb_dev1 = (uint64_t)r->dev + 1;
	}
	bio_based = j->bb_last;
	if (!bio_based) {
		bio_free(j, *v); /* merged into a request we never saw */
		return 0;
	}
	memset(&jr, 0, sizeof(jr));
	jr.dev = bs->dev;
	jr.flags = bs->flags;
	jr.sector = bs->sector;
	jr.nr_sectors = bs->nr;
	jr.pid = bs->pid;
	jr.tid = bs->tid;
	jr.ino = bs->ino;
	jr.q_ns = bs->q_ns;
	jr.q_cpu = bs->cpu;
	jr.c_ns = r->ts_ns;
	jr.c_cpu = r->cpu;
	jr.nr_bios = 1;
	jr.error = (int32_t)r->id2;
	jr.bio_only = true;
	if (r->flags & IOT_F_ESTIMATED) {
		jr.estimated = JOIN_EST_C;
		j->st.estimated_completions++;
	}
	if (bs->est_q)
		jr.estimated |= JOIN_EST_Q;
	{
		/* reuse emit_request's per-bio and syscall accounting */
		uint32_t ri, b = *v;

		if (req_new(j, &ri))
			return -ENOMEM;
		j->reqs[ri].r = jr;
		j->reqs[ri].r.nr_bios = 0;
		req_append(j, ri, b, false);
		emit_request(j, ri);
		req_free(j, ri);
	}
	return 0;
}

static int on_split(struct join *j, const struct iot_rec *r)
{
	uint32_t *v = u64map_get(&j->bio_by_start, u64map_dev_sector(r->dev, r->sector));
	uint32_t parent = 0, s;
	uint64_t q_ns = 0;
	int err;

	j->st.splits++;
	if (v) {
		parent = *v;
		q_ns = j->bios[parent].q_ns;
	}
	{
		/* the kernel has just made this bio: another one of ours at its
		 * address ended unseen (its request's completion was lost) */
		uint32_t *old = u64map_get(&j->bio_by_ptr, r->id);

		if (old && (!v || *old != parent)) {
			bio_free(j, *old);
			old = NULL;
		}
		if (!old && (err = bio_new(j, r, q_ns, &s)))
			return err;
	}
	if (v) { /* the front bio is of the same file, cause and cgroup */
		uint32_t *f = u64map_get(&j->bio_by_ptr, r->id);

		if (f && *f != parent) {
			struct join_bio_st *fs = &j->bios[*f], *ps = &j->bios[parent];

			fs->why = ps->why;
			fs->cpu = ps->cpu;
			if (fs->uring == NONE && ps->uring != NONE &&
			    j->urings[ps->uring].gen == ps->uring_gen &&
			    j->urings[ps->uring].open)
				uring_link(j, fs, ps->uring, fs->q_ns);
		}
	}
	if (v && j->bios[parent].ptr != r->id) {
		/* the parent keeps the remainder, from id2 on */
		struct join_bio_st *ps = &j->bios[parent];
		uint64_t done = r->id2 > ps->sector ? r->id2 - ps->sector : 0;

		bio_take(j, parent);
		ps->nr = ps->nr > done ? ps->nr - (uint32_t)done : 0;
		ps->sector = r->id2;
		/* the remainder's first page: a page cache bio holds
		 * consecutive pages of its file (mpage, iomap build them so) */
		if (ps->why.host == IOT_HOST_REG && ps->why.ino)
			ps->why.index += done / PAGE_SECTORS;
		if (u64map_put(&j->bio_by_start, u64map_dev_sector(ps->dev, ps->sector),
			       parent))
			return -ENOMEM;
		/* the new front bio took the start key: restore it */
		if (u64map_put(&j->bio_by_start, u64map_dev_sector(r->dev, r->sector),
			       *u64map_get(&j->bio_by_ptr, r->id)))
			return -ENOMEM;
	}
	return 0;
}

static int on_rq_merge(struct join *j, const struct iot_rec *r)
{
	uint32_t *v = u64map_get(&j->rq_by_ptr, r->id), ri, ti;
	uint32_t *t;
	struct join_req_st *rs;

	j->st.rq_merges++;
	if (v) {
		ri = *v;
	} else {
		/* merged away as the scheduler inserts it, before I or D: the
		 * request is still known by its head bio only */
		uint32_t *bv = r->id2 ? u64map_get(&j->bio_by_ptr, r->id2) : NULL;

		if (!bv || j->bios[*bv].req == NONE)
			return 0;
		ri = j->bios[*bv].req;
	}
	rs = &j->reqs[ri];
	/* its neighbour ends where it starts, or starts where it ends */
	t = u64map_get(&j->req_by_end, u64map_dev_sector(rs->r.dev, rs->r.sector));
	if (!t || *t == ri)
		t = u64map_get(
		    &j->req_by_start,
		    u64map_dev_sector(rs->r.dev, rs->r.sector + rs->r.nr_sectors));
	if (!t || *t == ri) {
		req_free(j, ri);
		return 0;
	}
	ti = *t;
	for (uint32_t b = rs->head, n; b != NONE; b = n) {
		n = j->bios[b].next;
		j->bios[b].req = NONE; /* released, to be appended */
		req_append(j, ti, b, j->reqs[ti].r.sector > rs->r.sector);
	}
	rs->head = rs->tail = NONE;
	if (j->reqs[ti].r.sector > rs->r.sector)
		j->reqs[ti].r.sector = rs->r.sector;
	j->reqs[ti].r.nr_sectors += rs->r.nr_sectors;
	if (rs->r.q_ns && (!j->reqs[ti].r.q_ns || rs->r.q_ns < j->reqs[ti].r.q_ns)) {
		j->reqs[ti].r.q_ns = rs->r.q_ns;
		j->reqs[ti].r.q_cpu = rs->r.q_cpu;
	}
	req_free(j, ri);
	return req_remerge(j, ti);
}

/* ---- who and why ------------------------------------------------------------- */

/* one page of one file; a 64-bit mix, so two pages of different files
 * could share a key with odds of about n^2 / 2^64 */
static uint64_t page_key(uint64_t ino, uint64_t index)
{
	uint64_t k = ino * 0x9e3779b97f4a7c15ull ^ (index + 1) * 0xc2b2ae3d27d4eb4full;

	return k ? k : 1;
}

static int on_dirty(struct join *j, const struct iot_rec *r)
{
	uint32_t n = r->nr > 1024 ? 1024 : r->nr; /* a folio: at most 4 MiB */

	j->st.dirty_pages += n;
	if (j->sink.dirty) {
		struct join_dirty d = {.pid = r->pid,
				       .tid = r->tid,
				       .dev = r->dev,
				       .ino = r->id,
				       .index = r->id2,
				       .pages = n ? n : 1,
				       .ts_ns = r->ts_ns};

		j->sink.dirty(j->sink.ctx, &d);
	}
	for (uint32_t k = 0; k < n; k++)
		if (u64map_put(&j->dirtier, page_key(r->id, r->id2 + k), r->tid))
			return -ENOMEM;
	return u64map_put(&j->tgid, r->tid, r->pid);
}

/* Whether a read-ahead bio of a file's pages, queued in a read call, holds
 * none of the pages the call asked for: the asynchronous read-ahead the
 * call set off (it met a page marked PG_readahead), not its own miss. The
 * call's pages are pos .. pos + count - 1; readv and preadv count iovecs,
 * not bytes, and stay reads. */
static bool read_ahead_of(const struct join_syscall *s, int kind,
			  const struct join_bio_st *bs, const struct join_why *w)
{
	uint64_t first, last, pages = (bs->nr + PAGE_SECTORS - 1) / PAGE_SECTORS;

	if (!(bs->flags & IOT_F_RAHEAD) || w->host != IOT_HOST_REG ||
	    (kind != SK_READ && kind != SK_PREAD64) || s->pos == ~0ull || !s->count ||
	    w->ino != s->ino)
		return false;
	first = s->pos / 4096;
	last = (s->pos + s->count - 1) / 4096;
	return w->index > last || w->index + (pages ? pages : 1) <= first;
}

/* What the kernel side leaves to the join: a bio its task queued inside a
 * traced system call, with no context that says more (a writeback work, a
 * commit, a flush, swap, reclaim), is that call's: fsync's writeback (or
 * read), direct I/O (no page cache page), a buffered read that missed, an
 * O_SYNC write. */
static void why_in_syscall(const struct join *j, const struct join_bio_st *bs,
			   struct join_why *w)
{
	const struct join_syscall *s;
	int kind;

	if (!(w->cause == IOT_CAUSE_READAHEAD || w->cause == IOT_CAUSE_OTHER ||
	      (w->cause == IOT_CAUSE_WRITEBACK && w->wb == IOT_WB_TASK)))
		return;
	if (bs->sys == NONE || !j->syscall_nr || j->sys[bs->sys].gen != bs->sys_gen) {
		/* outside a call: a read of the file its task last faulted on
		 * is that fault's: the read of the faulting page (in the
		 * fault's read-ahead, the bio that holds it), the rest of the
		 * read-ahead stays readahead */
		uint32_t *f =
		    w->host == IOT_HOST_REG && (bs->flags & IOT_OP_MASK) == IOT_OP_READ
			? u64map_get(&j->fault, bs->tid)
			: NULL;
		uint32_t *fi = f ? u64map_get(&j->fault_index, bs->tid) : NULL;
		uint64_t pages = (bs->nr + PAGE_SECTORS - 1) / PAGE_SECTORS;

		if (!f || *f != (uint32_t)w->ino)
			return;
		if (w->cause == IOT_CAUSE_OTHER ||
		    (fi && *fi >= (uint32_t)w->index && *fi - (uint32_t)w->index < pages))
			w->cause = IOT_CAUSE_FAULT;
		return;
	}
	s = &j->sys[bs->sys].s;
	kind = syscall_kind(j->syscall_nr, s->nr);
	if (kind < 0)
		return;
	if (kind == SK_IO_URING_ENTER || kind == SK_IO_SUBMIT) {
		/* issued inline by the submission (the rest by io-wq workers
		 * and SQPOLL, which the kernel side names) */
		w->cause = kind == SK_IO_SUBMIT ? IOT_CAUSE_AIO : IOT_CAUSE_IO_URING;
		w->wb = 0;
	} else if (kind == SK_FSYNC || kind == SK_FDATASYNC) {
		bool rd = (bs->flags & IOT_OP_MASK) == IOT_OP_READ;

		w->cause = rd ? IOT_CAUSE_READ : IOT_CAUSE_WRITEBACK;
		w->wb = rd ? 0 : IOT_WB_FSYNC;
	} else if (w->host == IOT_HOST_NONE || w->host == IOT_HOST_ANON) {
		w->cause = IOT_CAUSE_DIRECT; /* the pages are the caller's own */
		w->wb = 0;
	} else if ((bs->flags & IOT_OP_MASK) == IOT_OP_READ) {
		w->cause =
		    read_ahead_of(s, kind, bs, w) ? IOT_CAUSE_READAHEAD : IOT_CAUSE_READ;
		w->wb = 0;
	} else if (!syscall_kind_is_read(kind)) {
		w->cause = IOT_CAUSE_WRITEBACK; /* O_SYNC, O_DSYNC */
		w->wb = IOT_WB_WRITE_SYNC;
	} /* else a read's writes (direct I/O flushing the range first): the
	     task's own writeback, as the kernel side said */
}

/* The plain BIO_INFO slot of a CPU (src/bpf/cause.bpf.h), or NULL. */
static struct join_plain *plain_of(struct join *j, uint32_t cpu)
{
	if (cpu >= 65536)
		return NULL; /* damage */
	if (cpu >= j->nr_plain) {
		size_t n = cpu + 1;
		struct join_plain *p = realloc(j->plain, n * sizeof(*p));

		if (!p)
			return NULL;
		memset(p + j->nr_plain, 0, (n - j->nr_plain) * sizeof(*p));
		j->plain = p;
		j->nr_plain = n;
	}
	return &j->plain[cpu];
}

/* At a Q: the BIO_INFO the recorder would leave out, from the CPU's plain
 * slot; a BIO_INFO that follows replaces it. */
static void why_repeated(struct join *j, const struct iot_rec *r, uint32_t b)
{
	struct join_plain *p = plain_of(j, r->cpu);
	struct join_why *w = &j->bios[b].why;

	if (!p || p->tid1 != r->tid + 1)
		return;
	memset(w, 0, sizeof(*w));
	w->known = true;
	w->cause = IOT_CAUSE_OTHER;
	w->host = p->host;
	w->cgroup = p->cgroup;
	why_in_syscall(j, &j->bios[b], w);
}

static void on_bio_info(struct join *j, const struct iot_rec *r)
{
	uint32_t *v = u64map_get(&j->bio_by_ptr, r->id), *t;
	struct join_why *w;

	if (j->bi_elided && (r->flags & 0xff) == IOT_CAUSE_OTHER && !r->id2) {
		struct join_plain *p = plain_of(j, r->cpu);

		if (p)
			*p =
			    (struct join_plain){r->tid + 1, r->nr, r->flags >> 16 & 0xff};
	}
	if (!v)
		return;
	w = &j->bios[*v].why;
	w->known = true;
	w->cause = r->flags & 0xff;
	w->wb = r->flags >> 8 & 0xff;
	w->host = r->flags >> 16 & 0xff;
	w->cgroup = r->nr;
	w->ino = r->id2;
	w->index = r->sector;
	why_in_syscall(j, &j->bios[*v], w);
	if (w->cause == IOT_CAUSE_READAHEAD && j->bios[*v].sys != NONE &&
	    j->sys[j->bios[*v].sys].gen == j->bios[*v].sys_gen)
		j->sys[j->bios[*v].sys].s.nr_ra_bios++;
	if (w->cause != IOT_CAUSE_WRITEBACK || w->host != IOT_HOST_REG)
		return;
	t = u64map_get(&j->dirtier, page_key(w->ino, w->index));
	if (!t) {
		j->st.wb_dirtier_unseen++;
		return;
	}
	j->st.wb_dirtier_found++;
	w->dirtier_tid = *t;
	t = u64map_get(&j->tgid, w->dirtier_tid);
	w->dirtier_pid = t ? *t : 0;
	/* written: a later dirtying is a new one */
	for (uint32_t k = 0; k < (j->bios[*v].nr + PAGE_SECTORS - 1) / PAGE_SECTORS; k++)
		u64map_del(&j->dirtier, page_key(w->ino, w->index + k));
}

static void on_fault(struct join *j, const struct iot_rec *r)
{
	struct join_fault f = {
	    .pid = r->pid,
	    .tid = r->tid,
	    .dev = r->dev,
	    .ino = r->id,
	    .index = r->id2,
	    .pages = r->nr ? r->nr : 1, /* before 1.5: one page, nr 0 */
	    .around = r->flags & IOT_FAULT_AROUND,
	    .ts_ns = r->ts_ns,
	};

	if (j->sink.fault)
		j->sink.fault(j->sink.ctx, &f);
}

/* ---- system calls ----------------------------------------------------------- */

static int on_sys_enter(struct join *j, const struct iot_rec *r)
{
	uint32_t *v = u64map_get(&j->sys_by_tid, r->tid), si;
	struct join_sys_st *ss;

	if (v) { /* its exit was lost: the slot is this call's now */
		j->st.lost_syscall_exits++;
		si = *v;
		memset(&j->sys[si].s, 0, sizeof(j->sys[si].s));
	} else {
		if (POOL_TAKE(j->sys, j->nr_sys, j->cap_sys, j->free_sys, next_free,
			      &si) ||
		    u64map_put(&j->sys_by_tid, r->tid, si))
			return -ENOMEM;
	}
	ss = &j->sys[si];
	/* POOL_TAKE zeroed the slot, gen included: one counter for all, so
	 * a bio of a call that ended never names the slot's next call */
	ss->gen = ++j->sys_gen;
	ss->open = true;
	ss->s.pid = r->pid;
	ss->s.tid = r->tid;
	ss->s.nr = (uint32_t)r->sector;
	ss->s.fd = r->flags;
	if (j->syscall_nr) {
		int k = syscall_kind(j->syscall_nr, ss->s.nr);

		if (k == SK_PREADV2 || k == SK_PWRITEV2) { /* fd | RWF_* << 24 */
			ss->s.fd = r->flags & 0xffffff;
			ss->s.rwf = r->flags >> 24;
		}
	}
	ss->s.dev = r->dev;
	ss->s.ino = r->id2;
	ss->s.pos = r->id;
	ss->s.count = r->nr;
	ss->s.enter_ns = r->ts_ns;
	ss->s.enter_cpu = r->cpu;
	ss->enter_seq = r->seq;
	return 0;
}

/* The slot of a call no longer open (its map entry already gone) */
static void sys_free(struct join *j, uint32_t si)
{
	struct join_sys_st *ss = &j->sys[si];

	ss->open = false;
	ss->gen = ++j->sys_gen;
	ss->next_free = j->free_sys;
	j->free_sys = si;
}

static void on_sys_exit(struct join *j, const struct iot_rec *r)
{
	uint32_t *v = u64map_get(&j->sys_by_tid, r->tid), si;
	struct join_sys_st *ss;

	if (!v)
		return; /* entered before the trace began */
	si = *v;
	ss = &j->sys[si];
	u64map_del(&j->sys_by_tid, r->tid);
	ss->s.ret = (int64_t)r->sector;
	ss->s.exit_ns = r->ts_ns;
	ss->s.exit_cpu = r->cpu;
	if (r->flags & IOT_F_ESTIMATED) {
		ss->s.estimated = true;
		ss->s.ret = IOT_RET_UNKNOWN;
		j->st.estimated_exits++;
	}
	if (ss->s.nr != (r->flags & ~IOT_F_ESTIMATED)) {
		/* another call's exit: this one's was lost */
	} else if (trace_gaps_any(j->gaps) && !ss->s.estimated &&
		   trace_gaps_lost_between(j->gaps, ss->s.enter_cpu, ss->enter_seq,
					   ss->s.enter_ns, r->cpu, r->seq, r->ts_ns)) {
		/* records of its CPU lost between (gaps.h): the thread's
		 * records there (this call's exit, the next one's enter) most
		 * likely among them. Only gaps a merge has taken in by the
		 * exit are asked about (gaps.c): one join or many, the same
		 * answer. */
		j->st.lost_cut_syscalls++;
	} else if (j->sink.syscall) {
		j->sink.syscall(j->sink.ctx, &ss->s);
	}
	sys_free(j, si);
}

/* A back-pressure stretch of a CPU's begins (IOT_EV_DEGRADE): from here
 * its records but the requests' summaries are not written, the exits of
 * the calls entered there and still open most likely among them. The next
 * exit of the same thread, after the stretch, would be taken for theirs, a
 * call as long as the stretch: so they are left out now, counted. A call
 * whose thread moved and exits on another CPU is left out too (rare), and
 * so is an exit `iotrail repair` estimated in the stretch. Decided by the
 * mark alone, it keeps the state what a join begun inside the stretch has
 * (parallel.c): the segments of a trace under back-pressure meet. */
static void on_degrade_begin(struct join *j, uint32_t cpu)
{
	if (!j->sys_by_tid.n)
		return;
	for (uint32_t si = 0; si < j->nr_sys; si++) {
		struct join_sys_st *ss = &j->sys[si];

		if (!ss->open || ss->s.enter_cpu != cpu)
			continue;
		u64map_del(&j->sys_by_tid, ss->s.tid);
		j->st.bp_cut_syscalls++;
		sys_free(j, si);
	}
}

/* ---- journal commits ------------------------------------------------------------ */

/* A commit's start is kept until its end (same journal, same transaction);
 * with every slot taken, the oldest start is forgotten (its end then counts
 * as unmatched). */
static void on_commit(struct join *j, const struct iot_rec *r)
{
	uint32_t tid = (uint32_t)r->id, i;
	struct join_commit c;

	for (i = 0; i < j->nr_open_commits; i++)
		if (j->open_commits[i].dev == r->dev && j->open_commits[i].tid == tid)
			break;
	if (!(r->flags & 1)) { /* start */
		if (i == j->nr_open_commits) {
			if (i == JOIN_OPEN_COMMITS) {
				memmove(j->open_commits, j->open_commits + 1,
					sizeof(j->open_commits[0]) * (i - 1));
				i--;
			} else {
				j->nr_open_commits++;
			}
		}
		j->open_commits[i] =
		    (struct join_commit){.dev = r->dev, .tid = tid, .start_ns = r->ts_ns};
		return;
	}
	if (i == j->nr_open_commits) {
		j->st.commit_ends_unmatched++;
		return;
	}
	c = j->open_commits[i];
	c.end_ns = r->ts_ns;
	memmove(j->open_commits + i, j->open_commits + i + 1,
		sizeof(j->open_commits[0]) * (j->nr_open_commits - i - 1));
	j->nr_open_commits--;
	j->st.commits++;
	if (j->sink.commit)
		j->sink.commit(j->sink.ctx, &c);
}

/* ---- io_uring ------------------------------------------------------------------- */

/* The open request at address req, made when absent (submitted before the
 * trace, or its submission lost). */
static int uring_get(struct join *j, uint64_t req, uint32_t *out)
{
	uint32_t *v = u64map_get(&j->uring_by_ptr, req), ui;

	if (v) {
		*out = *v;
		return 0;
	}
	if (POOL_TAKE(j->urings, j->nr_urings, j->cap_urings, j->free_uring, next_free,
		      &ui) ||
	    u64map_put(&j->uring_by_ptr, req, ui))
		return -ENOMEM;
	/* POOL_TAKE zeroed the slot, gen included: one counter for all */
	j->urings[ui].gen = ++j->uring_gen;
	j->urings[ui].open = true;
	j->urings[ui].u.req = req;
	j->urings[ui].u.pos = ~0ull;
	*out = ui;
	return 0;
}

static void uring_free(struct join *j, uint32_t ui)
{
	struct join_uring_st *us = &j->urings[ui];
	uint32_t *v = u64map_get(&j->uring_by_ptr, us->u.req);

	if (v && *v == ui)
		u64map_del(&j->uring_by_ptr, us->u.req);
	v = u64map_get(&j->uring_by_tid, us->u.tid);
	if (v && *v == ui)
		u64map_del(&j->uring_by_tid, us->u.tid);
	us->open = false;
	us->next_free = j->free_uring;
	j->free_uring = ui;
}

static int on_uring_submit(struct join *j, const struct iot_rec *r)
{
	uint32_t *v = u64map_get(&j->uring_by_ptr, r->id), ui;
	struct join_uring *u;

	if (v) { /* the address is back: the old request's completion was lost */
		j->st.uring_lost++;
		uring_free(j, *v);
	}
	if (uring_get(j, r->id, &ui))
		return -ENOMEM;
	u = &j->urings[ui].u;
	u->submit_seen = true;
	u->submit_ns = r->ts_ns;
	u->pos = r->id2;
	u->len = r->nr;
	u->opcode = r->flags & IOT_URING_OP_MASK;
	u->via = r->flags & IOT_URING_SQPOLL ? JOIN_URING_SQPOLL : JOIN_URING_INLINE;
	u->pid = r->pid;
	u->tid = r->tid;
	return u64map_put(&j->uring_by_tid, r->tid, ui);
}

/* An io-wq worker queued bio id for request id2. */
static int on_uring_work(struct join *j, const struct iot_rec *r)
{
	uint32_t *v = u64map_get(&j->bio_by_ptr, r->id), ui;
	struct join_bio_st *bs;

	if (!v)
		return 0;
	bs = &j->bios[*v];
	if (bs->uring != NONE && j->urings[bs->uring].open &&
	    j->urings[bs->uring].gen == bs->uring_gen) {
		if (j->urings[bs->uring].u.req == r->id2)
			return 0;
		j->urings[bs->uring].u.nr_bios--; /* the kernel's word wins */
	}
	if (uring_get(j, r->id2, &ui))
		return -ENOMEM;
	if (!j->urings[ui].u.submit_seen && !j->urings[ui].u.pid) {
		j->urings[ui].u.pid = r->pid;
		j->urings[ui].u.tid = r->tid;
	}
	j->urings[ui].u.via = JOIN_URING_IO_WQ;
	uring_link(j, bs, ui, bs->q_ns);
	return 0;
}

static void on_uring_complete(struct join *j, const struct iot_rec *r)
{
	uint32_t *v = u64map_get(&j->uring_by_ptr, r->id);
	struct join_uring *u;

	if (!v) {
		j->st.uring_unsubmitted++;
		return;
	}
	u = &j->urings[*v].u;
	u->user_data = r->id2;
	u->ino = r->sector;
	u->dev = r->dev;
	u->res = (int32_t)r->nr;
	u->opcode = r->flags & IOT_URING_OP_MASK;
	u->cqe_ns = r->ts_ns;
	if (!u->submit_seen)
		j->st.uring_unsubmitted++;
	else
		j->st.uring_done++;
	if (j->sink.uring && u->submit_seen)
		j->sink.uring(j->sink.ctx, u);
	uring_free(j, *v);
}

/* ---- entry points ------------------------------------------------------------- */

int join_init(struct join *j, const struct join_sink *sink,
	      bool (*is_bio_based)(void *ctx, uint32_t dev), void *dev_ctx)
{
	memset(j, 0, sizeof(*j));
	j->sink = *sink;
	j->is_bio_based = is_bio_based;
	j->dev_ctx = dev_ctx;
	j->free_bio = j->free_req = j->free_sys = j->free_uring = j->held = NONE;
	j->floor_next = sink->floor ? 0 : UINT64_MAX;
	j->floor_pin = UINT64_MAX;
	if (u64map_init(&j->bio_by_ptr, 64) || u64map_init(&j->bio_by_start, 64) ||
	    u64map_init(&j->rq_by_ptr, 64) || u64map_init(&j->req_by_end, 64) ||
	    u64map_init(&j->req_by_start, 64) || u64map_init(&j->sys_by_tid, 1024) ||
	    u64map_init(&j->dirtier, 64) || u64map_init(&j->tgid, 256) ||
	    u64map_init(&j->fault, 64) || u64map_init(&j->fault_index, 64) ||
	    u64map_init(&j->uring_by_ptr, 256) || u64map_init(&j->uring_by_tid, 64)) {
		join_release(j);
		return -ENOMEM;
	}
	return 0;
}

/* The sink's floor at line (a multiple of 2^JOIN_FLOOR_SHIFT ns the stream
 * reached): no request or bio held here has a time before it, nor has one
 * to come (its records are at line or after), but for a summary of a
 * back-pressure stretch, whose times go back to its Q: after the first
 * stretch's begin, the floor stays there. */
static void __attribute__((noinline)) give_floor(struct join *j, uint64_t line)
{
	uint64_t m = line < j->floor_pin ? line : j->floor_pin;
	size_t need = (size_t)j->nr_bios + j->nr_reqs;
	uint8_t *fb, *fr;
	uint32_t n;

	if (!need) {
		j->sink.floor(j->sink.ctx, m);
		return;
	}
	if (need > j->floor_free_cap) {
		uint8_t *x = realloc(j->floor_free, need);

		if (!x)
			return; /* no floor this time: the analyzers keep more */
		j->floor_free = x;
		j->floor_free_cap = need;
	}
	fb = j->floor_free;
	fr = fb + j->nr_bios;
	memset(fb, 0, need);
	n = 0;
	for (uint32_t f = j->free_bio; f != NONE && f < j->nr_bios && n < j->nr_bios;
	     f = j->bios[f].next, n++)
		fb[f] = 1;
	n = 0;
	for (uint32_t f = j->free_req; f != NONE && f < j->nr_reqs && n < j->nr_reqs;
	     f = j->reqs[f].next_free, n++)
		fr[f] = 1;
	for (uint32_t i = 0; i < j->nr_bios; i++)
		if (!fb[i] && j->bios[i].q_ns && j->bios[i].q_ns < m)
			m = j->bios[i].q_ns;
	for (uint32_t i = 0; i < j->nr_reqs; i++) {
		const struct join_request *r = &j->reqs[i].r;
		const uint64_t t[] = {r->q_ns, r->g_ns, r->i_ns, r->d_ns, r->c_ns};

		if (fr[i])
			continue;
		for (size_t k = 0; k < sizeof(t) / sizeof(t[0]); k++)
			if (t[k] && t[k] < m)
				m = t[k];
	}
	j->sink.floor(j->sink.ctx, m);
}

/* A record at ts passed the line floor_next: the sink's floor, there.
 * Finding it walks the pools, so where many requests and bios are held
 * (a trace whose completions were lost, a crafted one whose every record
 * is a line further on) the floors come a line in 2, 4, ... instead: one
 * in 2^k lines, 64 x 2^(k-1) held or more. Decided by the state's sizes,
 * which met() compares, so at the same places whatever the threads. */
static void __attribute__((noinline)) floor_cross(struct join *j, uint64_t ts)
{
	const unsigned int s = JOIN_FLOOR_SHIFT;
	uint64_t line = ts >> s << s, last = j->floor_next - (1ull << s);
	uint64_t held = (j->bio_by_ptr.n + j->rq_by_ptr.n) >> 6;
	unsigned int k = held ? 64 - (unsigned int)__builtin_clzll(held) : 0;

	if (j->floor_next == UINT64_MAX)
		return; /* no floor hook (a record of that time), or the last line */
	if (k > 63 - s)
		k = 63 - s;
	if (!j->floor_next || line >> (s + k) != last >> (s + k))
		give_floor(j, line);
	/* the line after, where it is not past 2^64: 0 means the first */
	j->floor_next = line < UINT64_MAX - (1ull << s) ? line + (1ull << s) : UINT64_MAX;
}

/* One record: join_feed_n's loop body, its only copy (a second copy, for
 * join_feed, made the compiler call the cases' handlers out of line). */
static inline __attribute__((always_inline)) int feed(struct join *j,
						      const struct iot_rec *r)
{
	uint32_t b, ri;
	int err = 0;

	if (r->ts_ns >= j->floor_next)
		floor_cross(j, r->ts_ns);
	j->st.events++;
	/* a block event names its bio or request by kernel address, never 0
	 * (0 is this file's "no address"): such a record is damage */
	if (!r->id && ((r->type >= IOT_EV_BIO_QUEUE && r->type <= IOT_EV_RQ_REQUEUE) ||
		       r->type == IOT_EV_RQ_INFO || r->type == IOT_EV_BIO_INFO)) {
		j->st.invalid++;
		return 0;
	}
	switch (r->type) {
	case IOT_EV_BIO_QUEUE: {
		uint32_t *v = u64map_get(&j->bio_by_ptr, r->id);

		if (v) /* address reused: the old bio ended unseen */
			bio_free(j, *v);
		err = bio_new(j, r, r->ts_ns, &b);
		if (!err && j->bi_elided)
			why_repeated(j, r, b);
		break;
	}
	case IOT_EV_GETRQ:
		err = on_getrq(j, r);
		break;
	case IOT_EV_BIO_BACKMERGE:
		err = on_bio_merge(j, r, false);
		break;
	case IOT_EV_BIO_FRONTMERGE:
		err = on_bio_merge(j, r, true);
		break;
	case IOT_EV_RQ_INSERT:
		err = req_for_rq(j, r, r->id2, &ri);
		if (err)
			break;
		if (!j->reqs[ri].r.i_ns) {
			j->reqs[ri].r.i_ns = r->ts_ns;
			j->reqs[ri].r.i_cpu = r->cpu;
		}
		if (j->reqs[ri].state == RQ_GOT)
			j->reqs[ri].state = RQ_INSERTED;
		break;
	case IOT_EV_RQ_ISSUE:
		err = req_for_rq(j, r, r->id2, &ri);
		if (err)
			break;
		j->reqs[ri].r.d_ns = r->ts_ns;
		j->reqs[ri].r.d_cpu = r->cpu;
		j->reqs[ri].r.sector = r->sector;
		j->reqs[ri].r.nr_sectors = r->nr;
		j->reqs[ri].r.flags = r->flags & ~IOT_F_ESTIMATED;
		if (r->flags & IOT_F_ESTIMATED) {
			j->reqs[ri].r.estimated |= JOIN_EST_D;
			j->st.estimated_issues++;
		}
		j->reqs[ri].state = RQ_ISSUED;
		req_unmerge(j, &j->reqs[ri], ri);
		break;
	case IOT_EV_RQ_INFO: {
		/* names the bio of a request never seen at I or D, and the
		 * kernel's start time of a flush */
		uint32_t *k = u64map_get(&j->rq_by_ptr, r->id);
		bool known = k;

		if (k && j->reqs[*k].held)
			break; /* its last end follows */
		err = req_for_rq(j, r, r->id2, &ri);
		if (err)
			break;
		j->reqs[ri].r.start_ns = r->sector;
		if (!known && !j->reqs[ri].r.d_ns)
			j->reqs[ri].r.sector = 0; /* the C says */
		break;
	}
	case IOT_EV_DRV_SUBMIT:
	case IOT_EV_DRV_CQE:
	case IOT_EV_DRV_DONE: {
		/* the driver's, between the request's D and C: by its address */
		uint32_t *v = u64map_get(&j->rq_by_ptr, r->id);
		struct join_request *q = v ? &j->reqs[*v].r : NULL;

		if (!q) {
			j->st.drv_unmatched++;
			break;
		}
		if (r->type == IOT_EV_DRV_SUBMIT) {
			q->drv_submit_ns = r->ts_ns; /* a requeued one: the last */
			q->drv_cqe_ns = q->drv_done_ns = 0;
			q->hwq = r->nr;
		} else if (r->type == IOT_EV_DRV_CQE) {
			q->drv_cqe_ns = r->ts_ns;
		} else {
			q->drv_done_ns = r->ts_ns;
		}
		break;
	}
	case IOT_EV_RQ_REQUEUE: {
		uint32_t *v = u64map_get(&j->rq_by_ptr, r->id);

		j->st.requeues++;
		if (v) {
			j->reqs[*v].r.nr_requeues++;
			j->reqs[*v].state = RQ_INSERTED;
		}
		break;
	}
	case IOT_EV_RQ_MERGE:
		err = on_rq_merge(j, r);
		break;
	case IOT_EV_RQ_COMPLETE:
		err = on_rq_complete(j, r);
		break;
	case IOT_EV_BIO_COMPLETE:
		err = on_bio_complete(j, r);
		break;
	case IOT_EV_SPLIT:
		err = on_split(j, r);
		break;
	case IOT_EV_BIO_REMAP: {
		uint32_t *v = u64map_get(&j->bio_by_ptr, r->id);

		j->st.remaps++;
		if (v && j->bios[*v].req == NONE) {
			bio_take(j, *v);
			j->bios[*v].dev = r->dev;
			j->bios[*v].sector = r->sector;
			err = u64map_put(&j->bio_by_start,
					 u64map_dev_sector(r->dev, r->sector), *v);
		}
		break;
	}
	case IOT_EV_BIO_INFO:
		on_bio_info(j, r);
		break;
	case IOT_EV_DIRTY:
		err = on_dirty(j, r);
		break;
	case IOT_EV_COMMIT:
		on_commit(j, r);
		break;
	case IOT_EV_FAULT:
		on_fault(j, r);
		if (!(r->flags & IOT_FAULT_AROUND))
			err = u64map_put(&j->fault, r->tid, (uint32_t)r->id) ||
			      u64map_put(&j->fault_index, r->tid, (uint32_t)r->id2);
		break;
	case IOT_EV_WAKEUP: {
		uint32_t *v = u64map_get(&j->sys_by_tid, r->id);

		if (v)
			j->sys[*v].s.wake_ns = r->ts_ns;
		break;
	}
	case IOT_EV_SYS_ENTER:
	case IOT_EV_SYS_EXIT:
		/* a submission's inline window ends with its io_uring_enter */
		if (j->uring_by_tid.n)
			u64map_del(&j->uring_by_tid, r->tid);
		if (r->type == IOT_EV_SYS_ENTER)
			err = on_sys_enter(j, r);
		else
			on_sys_exit(j, r);
		break;
	case IOT_EV_MARK:
		if (j->sink.mark) {
			struct join_mark m = {.ts_ns = r->ts_ns,
					      .pid = r->pid,
					      .tid = r->tid,
					      .id = r->id,
					      .kind = (uint8_t)r->flags};

			memcpy(m.name, &r->id2, 8);
			memcpy(m.name + 8, &r->sector, 8);
			j->sink.mark(j->sink.ctx, &m);
		}
		break;
	case IOT_EV_URING_SUBMIT:
		err = on_uring_submit(j, r);
		break;
	case IOT_EV_URING_WORK:
		err = on_uring_work(j, r);
		break;
	case IOT_EV_URING_COMPLETE:
		on_uring_complete(j, r);
		break;
	case IOT_EV_SUMMARY:
		join_feed_summary(j, (const struct iot_summary *)r);
		break;
	case IOT_EV_DEGRADE:
		if (r->flags == IOT_DEGRADE_BEGIN) {
			on_degrade_begin(j, r->cpu);
			if (r->ts_ns < j->floor_pin)
				j->floor_pin = r->ts_ns;
		}
		break;
	default:
		break; /* plug, unplug, io_start, io_done, remap of requests */
	}
	return err;
}

int join_feed_n(struct join *j, const struct iot_rec *const *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int err = feed(j, r[i]);

		if (err)
			return err;
	}
	return 0;
}

int join_feed(struct join *j, const struct iot_rec *r)
{
	return join_feed_n(j, &r, 1);
}

void join_feed_summary(struct join *j, const struct iot_summary *s)
{
	struct join_request r = {
	    .dev = s->dev,
	    .flags = s->flags & ~(IOT_SUMMARY_F_ERROR | IOT_SUMMARY_F_LOST |
				  IOT_SUMMARY_F_UNFINISHED),
	    .sector = s->sector,
	    .nr_sectors = s->nr,
	    .tid = s->tid,
	    .q_ns = s->q_ns,
	    .g_ns = s->g_delta_ns ? s->q_ns + s->g_delta_ns : 0,
	    .i_ns = s->i_delta_ns ? s->q_ns + s->i_delta_ns : 0,
	    .d_ns = s->d_delta_ns ? s->q_ns + s->d_delta_ns : 0,
	    .c_ns = s->c_ns,
	    .nr_bios = 1,
	    .error = (s->flags & IOT_SUMMARY_F_ERROR) ? 1 : 0,
	    .bio_only = !s->g_delta_ns && !s->d_delta_ns,
	};
	struct join_bio b = {
	    .q_ns = s->q_ns,
	    .sector = s->sector,
	    .nr_sectors = s->nr,
	    .tid = s->tid,
	};

	/* issued, its completion seen by no program: counted and left out,
	 * as the events' lost and unfinished requests are */
	if (s->flags & IOT_SUMMARY_F_LOST) {
		j->st.lost_completions++;
		return;
	}
	if (s->flags & IOT_SUMMARY_F_UNFINISHED) {
		r.c_ns = 0;
		j->st.unfinished++;
		if (j->sink.unfinished)
			j->sink.unfinished(j->sink.ctx, &r);
		return;
	}
	if (j->sink.request)
		j->sink.request(j->sink.ctx, &r);
	if (j->sink.bio)
		j->sink.bio(j->sink.ctx, &r, &b);
}

/* The unfinished requests' order: by their times, address and place, so
 * that it does not hang on the pool's layout (a join begun mid-trace,
 * parallel.c, holds them in other slots) */
static int cmp_unfinished(const void *x, const void *y)
{
	const struct join_request *a = *(const struct join_request *const *)x;
	const struct join_request *b = *(const struct join_request *const *)y;
	const uint64_t ka[] = {a->q_ns, a->g_ns, a->i_ns,  a->d_ns,
			       a->rq,	a->dev,	 a->sector};
	const uint64_t kb[] = {b->q_ns, b->g_ns, b->i_ns,  b->d_ns,
			       b->rq,	b->dev,	 b->sector};

	for (size_t i = 0; i < sizeof(ka) / sizeof(ka[0]); i++)
		if (ka[i] != kb[i])
			return ka[i] < kb[i] ? -1 : 1;
	return memcmp(a, b, sizeof(*a));
}

void join_end(struct join *j)
{
	uint8_t *is_free;
	const struct join_request **open;
	uint32_t nfree = 0, nopen = 0, nall;

	while (j->held != NONE)
		release_held(j, j->held);
	/* the requests still open: every slot not on the free list (and
	 * summaries that said so, counted as they came) */
	for (uint32_t f = j->free_req; f != NONE && f < j->nr_reqs && nfree < j->nr_reqs;
	     f = j->reqs[f].next_free)
		nfree++;
	nall = j->nr_reqs - nfree;
	j->st.unfinished += nall;
	if (!j->sink.unfinished || !nall)
		return;
	is_free = calloc(j->nr_reqs, 1);
	open = malloc(nall * sizeof(*open));
	if (!is_free || !open) {
		free(is_free);
		free(open);
		return; /* counted, not listed */
	}
	for (uint32_t f = j->free_req, n = 0; f != NONE && f < j->nr_reqs && n < nfree;
	     f = j->reqs[f].next_free, n++)
		is_free[f] = 1;
	for (uint32_t i = 0; i < j->nr_reqs && nopen < nall; i++)
		if (!is_free[i])
			open[nopen++] = &j->reqs[i].r;
	qsort(open, nopen, sizeof(*open), cmp_unfinished);
	for (uint32_t i = 0; i < nopen; i++)
		j->sink.unfinished(j->sink.ctx, open[i]);
	free(open);
	free(is_free);
}

void join_release(struct join *j)
{
	free(j->bios);
	free(j->reqs);
	free(j->sys);
	u64map_release(&j->bio_by_ptr);
	u64map_release(&j->bio_by_start);
	u64map_release(&j->rq_by_ptr);
	u64map_release(&j->req_by_end);
	u64map_release(&j->req_by_start);
	u64map_release(&j->sys_by_tid);
	u64map_release(&j->dirtier);
	u64map_release(&j->tgid);
	u64map_release(&j->fault);
	u64map_release(&j->fault_index);
	u64map_release(&j->uring_by_ptr);
	u64map_release(&j->uring_by_tid);
	free(j->urings);
	free(j->plain);
	free(j->floor_free);
	memset(j, 0, sizeof(*j));
}
