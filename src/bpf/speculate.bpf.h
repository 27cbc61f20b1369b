/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --speculate LATENCY: tail-based tracing of slow requests (DTrace's
 * speculations, one per bio, decided by the request's completion).
 *
 * nspec buffers of cfg_spec_nrec records each ("spec_buf"), a record count
 * per buffer ("spec_len") and a queue of free buffer numbers ("spec_free",
 * filled by user space before attach). A buffer's life:
 *
 *   Q  block_bio_queue  the bio's in-flight slot takes a free buffer
 *                       (none free: counted as unavailable, not traced)
 *   X  block_split      the split-off bio takes its own buffer
 *   *  every other block event of the bio, or of the request whose head
 *      bio it is, is appended to that buffer (full: counted as a
 *      speculative drop, the record is lost)
 *   C  the request's last completion appends its record, then decides for
 *      the head bio and every bio merged into it (bi_next, at most
 *      IOT_SPEC_CHAIN): Q2C of the head >= cfg_spec_ns or an error
 *      commits, i.e. copies each buffer's records into this CPU's
 *      principal buffer under its policy; otherwise they are discarded.
 *      Either way the buffers go back to the queue.
 *
 * Committed records keep their own timestamps, older than records already
 * in the principal buffer: the reader sorts a speculative trace as a whole
 * (reader.c). A slot whose completion never comes is reaped by the recorder
 * after a minute (src/record/drain.c), which returns its buffer.
 */
#ifndef IOTRAIL_SPECULATE_BPF_H
#define IOTRAIL_SPECULATE_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct iot_rec);
	__uint(max_entries, 1); /* set by user space: nspec * cfg_spec_nrec */
} spec_buf SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 1); /* set by user space: nspec */
} spec_len SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__type(value, __u32);
	__uint(max_entries, 1); /* set by user space: nspec */
} spec_free SEC(".maps");

/* A buffer for a freshly claimed slot (or the one it still holds: the bio
 * address was reused before a completion was seen). */
static __always_inline void spec_attach(struct iot_sum_slot *sl)
{
	struct iot_ctl *c;
	__u64 *len;
	__u32 id;

	if (sl->spec) {
		id = (__u32)sl->spec - 1;
	} else if (bpf_map_pop_elem(&spec_free, &id)) {
		c = this_ctl();
		if (c)
			__sync_fetch_and_add(&c->spec_unavail, 1);
		sl->key = 0;
		return;
	}
	len = bpf_map_lookup_elem(&spec_len, &id);
	if (len)
		*len = 0;
	sl->c_ns = 0;
	sl->spec = (__u64)id + 1;
}

static __always_inline struct iot_rec *spec_append(__u32 id, __u16 type)
{
	struct iot_ctl *c;
	struct iot_rec *r;
	__u64 *len, n, pt;
	__u32 i;

	len = bpf_map_lookup_elem(&spec_len, &id);
	if (!len)
		return NULL;
	n = __sync_fetch_and_add(len, 1);
	if (n >= cfg_spec_nrec) {
		c = this_ctl();
		if (c)
			__sync_fetch_and_add(&c->spec_drops, 1);
		return NULL;
	}
	i = id * cfg_spec_nrec + (__u32)n;
	r = bpf_map_lookup_elem(&spec_buf, &i);
	if (!r)
		return NULL;
	pt = bpf_get_current_pid_tgid();
	r->ts_ns = bpf_ktime_get_ns();
	r->seq = ~0ull; /* never a committed slot's number, even mid-copy */
	r->pid = pt >> 32;
	r->tid = (__u32)pt;
	r->type = type;
	r->cpu = bpf_get_smp_processor_id();
	return r;
}

static __always_inline struct iot_rec *spec_record(__u64 key, __u16 type)
{
	struct iot_sum_slot *sl = sum_find(key);
	struct iot_rec *r;

	if (!sl || !sl->spec)
		return NULL;
	r = spec_append((__u32)sl->spec - 1, type);
	if (!r)
		return NULL;
	/* the times the decision compares are the records' own */
	if (type == IOT_EV_BIO_QUEUE)
		sl->q_ns = r->ts_ns;
	else if (type == IOT_EV_RQ_COMPLETE || type == IOT_EV_BIO_COMPLETE)
		sl->c_ns = r->ts_ns;
	return r;
}

struct spec_copy {
	__u32 base; /* first record of the buffer in spec_buf */
	__u32 cpu;
	__u64 lost; /* records that did not fit the principal buffer */
	__u32 n;
};

static long spec_copy_one(__u32 i, void *ctx)
{
	struct spec_copy *cp = ctx;
	__u32 k = cp->base + i;
	struct iot_rec *src = bpf_map_lookup_elem(&spec_buf, &k), *dst;
	__u64 seq;

	if (!src)
		return 1;
	dst = iot_reserve(cp->cpu, &seq); /* counts its own drop */
	if (!dst) {
		cp->lost = cp->n - i - 1;
		return 1;
	}
	*dst = *src; /* seq is ~0 until the commit below */
	iot_commit(dst, seq);
	return 0;
}

/* Commit (keep) or discard a slot's speculation and free the slot. */
static __always_inline void spec_close(struct iot_sum_slot *sl, bool keep)
{
	__u64 sp = __sync_lock_test_and_set(&sl->spec, 0), *len;
	struct iot_ctl *c = this_ctl();
	__u32 id;

	sl->key = 0;
	if (!sp)
		return;
	id = (__u32)sp - 1;
	if (keep) {
		struct spec_copy cp = {.base = id * cfg_spec_nrec,
				       .cpu = bpf_get_smp_processor_id()};

		len = bpf_map_lookup_elem(&spec_len, &id);
		cp.n = len ? (*len < cfg_spec_nrec ? (__u32)*len : cfg_spec_nrec) : 0;
		bpf_loop(cp.n, spec_copy_one, &cp, 0);
		if (c && cp.lost)
			__sync_fetch_and_add(&c->drops_full, cp.lost);
	}
	if (c)
		__sync_fetch_and_add(keep ? &c->spec_commits : &c->spec_discards, 1);
	bpf_map_push_elem(&spec_free, &id, 0);
}

/* Q2C as the records say it (the report's Q2C): the clock is read when a
 * record is written, not again at the decision, which an interrupt can
 * delay by tens of microseconds. */
static __always_inline bool spec_keep(struct iot_sum_slot *head, int error)
{
	__u64 c;

	if (error)
		return true;
	if (!head)
		return false;
	c = head->c_ns ?: bpf_ktime_get_ns();
	return c - head->q_ns >= cfg_spec_ns;
}

struct spec_chain {
	struct bio *b;
	bool keep;
};

static long spec_close_one(__u32 i, void *ctx)
{
	struct spec_chain *ch = ctx;
	struct iot_sum_slot *sl = sum_find((__u64)ch->b);

	if (sl)
		spec_close(sl, ch->keep);
	ch->b = KREAD1(ch->b, bi_next);
	return ch->b ? 0 : 1;
}

/* A request's last completion: decide for its head bio and the bios
 * merged into it. The chain is walked by bpf_loop: unrolled, its 64 steps
 * of sum_find and spec_close went past the verifier's million instructions
 * on 6.18.44. */
static __always_inline void spec_complete_rq(struct request *rq, int error)
{
	struct spec_chain ch = {.b = KREAD1(rq, bio)};

	if (!ch.b)
		return;
	ch.keep = spec_keep(sum_find((__u64)ch.b), error);
	bpf_loop(IOT_SPEC_CHAIN, spec_close_one, &ch, 0);
}

/* A bio-based device's bio completion. */
static __always_inline void spec_complete_bio(struct bio *bio, int error)
{
	struct iot_sum_slot *sl = sum_find((__u64)bio);

	if (sl)
		spec_close(sl, spec_keep(sl, error));
}

#endif /* IOTRAIL_SPECULATE_BPF_H */
