/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The in-flight table: per-bio state in a 4-way set-associative mmap-able
 * array, for --summary (one record per request), --aggregate, --trigger
 * and --speculate. Slots whose completion never comes (a bio front-merged
 * into a request, torn by a lost event) are reaped by the recorder after a
 * minute (src/record/drain.c).
 */
#ifndef IOTRAIL_INFLIGHT_BPF_H
#define IOTRAIL_INFLIGHT_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct iot_sum_slot);
	__uint(max_entries, IOT_SUM_SETS *IOT_SUM_WAYS);
} inflight SEC(".maps");

/* --summary folds the stages of one request into one record:
 *
 * Q   bio_queue      state = { q_ns, tid, op, sector, size } under the bio
 * M   backmerge      the merged bio's own state is dropped (its request has one)
 * X   split          the split-off front part inherits its parent's state
 * I   rq_insert      state(rq->bio).i_delta
 * D   rq_issue       state(rq->bio).d_delta, size = the request's
 * C   rq_complete    G from rq->start_time_ns (the kernel's own stamp at
 *                    allocation, when it keeps one), one record, state freed
 * C   bio_complete   bio-based devices: one record from the bio's state
 * A front merge makes the new bio the request's head: the request is then
 * found under that bio's own state (its Q is the later bio's).
 */

/* key: a number (addr_of) */
static __always_inline __u32 sum_set(__u64 key)
{
	return addr_set(key, IOT_SUM_SETS);
}

static __always_inline struct iot_sum_slot *sum_find(__u64 key)
{
	__u32 base;

	/* 0 marks a free slot: a request without bios (the flush machinery's
	 * own flush request) must not adopt one. Not armed (before the start,
	 * or past the stop while the programs are detached): the table is
	 * left as it was, so a request in flight at the stop stays there, for
	 * the recorder to write unfinished, rather than be freed by a
	 * completion that could no longer write it. */
	if (!key || !armed)
		return NULL;
	key = addr_of(key);
	if (!key)
		return NULL;
	base = sum_set(key) * IOT_SUM_WAYS;

	for (__u32 w = 0; w < IOT_SUM_WAYS; w++) {
		__u32 i = base + w;
		struct iot_sum_slot *sl = bpf_map_lookup_elem(&inflight, &i);

		if (sl && sl->key == key)
			return sl;
	}
	return NULL;
}

/* A slot for key: its own if present (address reuse, or a split's
 * second look), else a free one, *fresh then true. One pass over the set
 * finds both, with the key made a number once. */
static __always_inline struct iot_sum_slot *sum_claim(__u64 key, bool *fresh)
{
	struct iot_sum_slot *sl, *slots[IOT_SUM_WAYS] = {};
	__u32 base;

	if (!key)
		return NULL;
	key = addr_of(key);
	if (!key)
		return NULL;
	base = sum_set(key) * IOT_SUM_WAYS;
	*fresh = false;
	for (__u32 w = 0; w < IOT_SUM_WAYS; w++) {
		__u32 i = base + w;

		sl = bpf_map_lookup_elem(&inflight, &i);
		if (sl && sl->key == key)
			return sl;
		slots[w] = sl;
	}
	for (__u32 w = 0; w < IOT_SUM_WAYS; w++) {
		sl = slots[w];
		if (sl && !sl->key &&
		    __sync_val_compare_and_swap(&sl->key, 0, key) == 0) {
			*fresh = true;
			return sl;
		}
	}
	return NULL;
}

/* A slot is free again (back-pressure counts the ones it holds). */
static __always_inline void sum_free(struct iot_sum_slot *sl)
{
	sl->key = 0;
	if (cfg_degrade)
		__sync_fetch_and_add(&degrade_live, -1);
}

static __always_inline __u32 delta32(__u64 from, __u64 to)
{
	__u64 d = to > from ? to - from : 0;

	return d > 0xffffffffull ? 0xffffffffu : (d ?: 1);
}

/* One SUMMARY record from a slot's state (the slot stays as it is).
 * c_ns: begin() stamps the record's time with now. */
static __always_inline void sum_write(struct iot_sum_slot *sl, __u32 nr, __u64 g_ns,
				      __u32 flags)
{
	struct iot_summary *r;
	__u64 seq;

	/* begin() stamps ts (= c_ns), cpu and type at the shared offsets */
	r = (struct iot_summary *)begin(IOT_EV_SUMMARY, &seq);
	if (!r)
		return;
	r->sector = sl->sector;
	r->q_ns = sl->q_ns;
	r->g_delta_ns = g_ns >= sl->q_ns ? delta32(sl->q_ns, g_ns) : 0;
	r->i_delta_ns = sl->i_delta_ns;
	r->d_delta_ns = sl->d_delta_ns;
	r->nr = nr ?: sl->nr;
	r->dev = sl->dev;
	r->tid = sl->tid;
	r->flags = sl->flags | flags;
	iot_commit((struct iot_rec *)r, seq);
}

/* A slot claimed again for a new bio while it held an issued request: no
 * program saw that request complete (the kernel ran none for it, see
 * docs/ARCHITECTURE.md "Oracles"). Where requests are written as
 * summaries, its stages go out flagged lost, for the join to count, before
 * the new bio's state replaces them; --aggregate counts it (ctl). */
static __always_inline void sum_reclaimed(struct iot_sum_slot *sl)
{
	struct iot_ctl *c;

	if (!sl->d_delta_ns)
		return;
	if (!cfg_aggregate) {
		sum_write(sl, 0, 0, IOT_SUMMARY_F_LOST);
		return;
	}
	c = this_ctl();
	if (c)
		__sync_fetch_and_add(&c->agg_lost, 1);
}

/* Back-pressure: the state of a request queued in a stretch (emit.bpf.h),
 * or NULL; nothing is looked up while no such request is in flight. */
static __always_inline struct iot_sum_slot *degrade_slot(__u64 key)
{
	if (!cfg_degrade || *(volatile __s64 *)&degrade_live <= 0)
		return NULL;
	return sum_find(key);
}

static __always_inline void sum_fill(struct iot_sum_slot *sl, struct bio *bio, __u32 dev,
				     __u64 sector)
{
	sl->q_ns = bpf_ktime_get_ns();
	sl->sector = sector;
	sl->i_delta_ns = 0;
	sl->d_delta_ns = 0;
	sl->nr = KREAD1(bio, bi_iter.bi_size) >> 9;
	sl->dev = dev;
	/* --aggregate per cgroup: the bio's cgroup where the task would be;
	 * by device only, nothing (a helper call less on every Q) */
	sl->tid = cfg_agg_cgroup  ? bio_cgroup(bio)
		  : cfg_aggregate ? 0
				  : (__u32)bpf_get_current_pid_tgid();
	sl->flags = iot_opf(KREAD1(bio, bi_opf));
}

static __always_inline struct iot_sum_slot *sum_bio_queue(struct bio *bio)
{
	__u64 key = (__u64)bio, sector = KREAD1(bio, bi_iter.bi_sector);
	__u32 dev = bio_devt(bio);
	struct iot_sum_slot *sl;
	bool fresh;

	if (!armed || !dev_wanted(dev, sector)) /* (see sum_find) */
		return NULL;
	sl = sum_claim(key, &fresh);
	if (!sl) {
		count_nostate();
		return NULL;
	}
	if (!fresh && STATE_ON) /* --trigger, --speculate: the events say it */
		sum_reclaimed(sl);
	sum_fill(sl, bio, dev, sector);
	return sl;
}

/* Back-pressure at Q, in a stretch: true when the bio is this mode's to
 * summarise (or not wanted at all); false when no slot is free, and its
 * events are written as outside a stretch. */
static __always_inline bool degrade_queue(struct bio *bio)
{
	__u64 key = (__u64)bio, sector = KREAD1(bio, bi_iter.bi_sector);
	__u32 dev = bio_devt(bio);
	struct iot_sum_slot *sl;
	struct iot_ctl *c;
	bool fresh;

	if (!dev_wanted(dev, sector))
		return true;
	sl = sum_claim(key, &fresh);
	if (!sl)
		return false;
	if (fresh)
		__sync_fetch_and_add(&degrade_live, 1);
	else
		sum_reclaimed(sl);
	sum_fill(sl, bio, dev, sector);
	c = this_ctl();
	if (c)
		__sync_fetch_and_add(&c->degrade_summaries, 1);
	return true;
}

/* One record from a slot (or, --aggregate, its histograms' counts), then
 * the slot is free again. site: AGG_SITE_*, the calling program. */
static __always_inline void sum_emit(struct iot_sum_slot *sl, __u32 nr, __u64 g_ns,
				     int error, __u32 site)
{
	if (cfg_aggregate)
		agg_request(sl, nr, g_ns, site);
	else
		sum_write(sl, nr, g_ns, error ? IOT_SUMMARY_F_ERROR : 0);
	sum_free(sl);
}

/* The split-off front part inherits its parent's state (see block_split). */
static __always_inline struct iot_sum_slot *sum_split(struct bio *bio)
{
	struct iot_sum_slot *ps = sum_find((__u64)KREAD1(bio, bi_private));
	struct iot_sum_slot *sl;
	bool fresh;

	if (!ps)
		return NULL;
	sl = sum_claim((__u64)bio, &fresh);
	if (!sl) {
		count_nostate();
		return NULL;
	}
	if (fresh && cfg_degrade)
		__sync_fetch_and_add(&degrade_live, 1);
	if (!fresh && (STATE_ON || cfg_degrade))
		sum_reclaimed(sl);
	sl->q_ns = ps->q_ns;
	sl->sector = KREAD1(bio, bi_iter.bi_sector);
	sl->i_delta_ns = 0;
	sl->d_delta_ns = 0;
	sl->nr = KREAD1(bio, bi_iter.bi_size) >> 9;
	sl->dev = ps->dev;
	sl->tid = ps->tid;
	sl->flags = ps->flags;
	return sl;
}

/* --trigger: at a request's completion, its Q2C against the threshold. The
 * first request to reach it stops tracing on every CPU: the ring then holds
 * what led up to it. */
static __always_inline void trig_check(struct iot_sum_slot *sl, int error)
{
	__u64 q2c;

	if (!sl)
		return;
	q2c = bpf_ktime_get_ns() - sl->q_ns;
	if ((cfg_trigger_ns && q2c >= cfg_trigger_ns) || (cfg_trigger_error && error)) {
		if (__sync_val_compare_and_swap(&stop.reason, 0,
						IOT_STOP_REASON_TRIGGER) == 0) {
			stop.ts_ns = bpf_ktime_get_ns();
			stop.cpu = bpf_get_smp_processor_id();
			stop.trig_q2c_ns = q2c;
			stop.trig_sector = sl->sector;
			stop.trig_dev = sl->dev;
			stop.trig_error = error;
		}
	}
	sl->key = 0;
}

#endif /* IOTRAIL_INFLIGHT_BPF_H */
