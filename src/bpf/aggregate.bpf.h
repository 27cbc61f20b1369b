/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --aggregate: log2 histograms per device, op and stage, request sizes and
 * system calls, kept in a per-CPU mmap-able array that user space reads
 * (AGG chunks). Disks get a slot at first sight.
 */
#ifndef IOTRAIL_AGGREGATE_BPF_H
#define IOTRAIL_AGGREGATE_BPF_H

/* One histogram an element: one lookup a histogram, not one a counter.
 * The elements lie end to end (IOT_AGG_KHIST * 8 bytes each), so the
 * mmap holds the u64s user space reads, in the same order. */
struct agg_hist {
	__u64 v[IOT_AGG_KHIST];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct agg_hist);
	/* set by user space: nr_bufs * IOT_AGG_HISTS(slots): a region for
	 * each CPU with a buffer (cfg_cpu_buf) */
	__uint(max_entries, 1);
} agg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, IOT_AGG_DEVS);
	__type(key, __u64); /* disk dev_t | cgroup << 32 (cfg_agg_cgroup), else 0 */
	__type(value, __u32);
} agg_devs SEC(".maps");

__u64 agg_next_slot = 1; /* .data: slot 0 is "no device" (64-bit: see iot_stop) */

/* serve --by cgroup: the slots user space took back from (disk, cgroup)
 * pairs whose cgroup went away (drain.c, reclaim_slots), for new pairs
 * before agg_next_slot's: a ring user space fills at agg_free_tail (each
 * slot written first), and the programs take from at agg_free_head */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, IOT_AGG_DEVS);
	__type(key, __u32);
	__type(value, __u32);
} agg_free SEC(".maps");
__u64 agg_free_head = 0, agg_free_tail = 0;
/* bumped by user space as it takes a slot back: the CPUs' last-slot
 * entries (agg_dev_last) made before are void */
__u64 agg_gen = 0;
/* aggsize: device slots (slot 0 included) per CPU, at most IOT_AGG_DEVS */
const volatile __u32 cfg_agg_devs = IOT_AGG_DEVS;
#define AGG_HISTS_PER_CPU IOT_AGG_HISTS(cfg_agg_devs)

/* The last device (and cgroup) a CPU looked up and its slot: under load
 * the next request is nearly always on the same one, and the hash lookup
 * was a quarter of the completion's cost. One entry per program that adds
 * requests (AGG_SITE_*): a program never runs nested in itself on a CPU
 * (the kernel skips such a run and counts a miss), but a request's
 * completion may interrupt a bio's, and a shared entry could then be read
 * or written half-way. */
struct agg_dev_last {
	__u64 key;
	__u32 slot;
	__u32 gen; /* agg_gen's low half when it was made */
};

#define AGG_SITE_RQ  0u /* block_rq_complete */
#define AGG_SITE_BIO 1u /* block_bio_complete */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct agg_dev_last);
} agg_dev_last SEC(".maps");

/* A slot taken back (agg_free), or ~0 when there is none. Another CPU
 * may take the same ring entry first: a few tries, then none. */
static __always_inline __u32 agg_take_free(void)
{
	for (int t = 0; t < 4; t++) {
		__u64 h = agg_free_head;
		__u32 i, *s;

		if (h >= agg_free_tail)
			return ~0u;
		/* (a full barrier: the ring's entry is read after it) */
		if (__sync_val_compare_and_swap(&agg_free_head, h, h + 1) != h)
			continue;
		i = (__u32)(h % IOT_AGG_DEVS);
		s = bpf_map_lookup_elem(&agg_free, &i);
		return s && *s && *s < cfg_agg_devs ? *s : ~0u;
	}
	return ~0u;
}

/* The histogram slot of a disk (and cgroup), handed out at first sight;
 * ~0 if full. site: AGG_SITE_*, the calling program. */
static __always_inline __u32 agg_dev_slot(__u32 dev, __u32 cgroup, __u32 site)
{
	__u64 key = (__u64)dev | (__u64)cgroup << 32;
	__u32 *v, slot, gen = (__u32)agg_gen;
	struct agg_dev_last *last = bpf_map_lookup_elem(&agg_dev_last, &site);

	/* key + 1: a zeroed entry matches no device */
	if (last && last->key == key + 1 && last->gen == gen)
		return last->slot;
	v = bpf_map_lookup_elem(&agg_devs, &key);
	if (v) {
		if (last) {
			last->key = key + 1;
			last->slot = *v;
			last->gen = gen;
		}
		return *v;
	}
	slot = cfg_agg_cgroup ? agg_take_free() : ~0u;
	if (slot == ~0u)
		slot = (__u32)__sync_fetch_and_add(&agg_next_slot, 1);
	if (slot >= cfg_agg_devs)
		return ~0u;
	if (bpf_map_update_elem(&agg_devs, &key, &slot, BPF_NOEXIST)) {
		v = bpf_map_lookup_elem(&agg_devs, &key); /* another CPU won */
		return v ? *v : ~0u;
	}
	return slot;
}

/* Plain adds, not atomic ones: the region is this CPU's, and each of its
 * counters has one writer, never nested in itself: a device's histograms
 * are added to by one program (block_rq_complete on a request-based device,
 * block_bio_complete on the others), the system calls' by sys_exit. Twelve
 * locked adds per request were a third of the completion's cost. b: this
 * CPU's region (agg_region), asked once per request. */
static __always_inline void agg_add(__u32 b, __u32 slot, __u32 op, __u32 metric,
				    __u64 value)
{
	__u32 h = b * AGG_HISTS_PER_CPU + iot_agg_hist(slot, op, metric), k;
	struct agg_hist *p;

	if (b == IOT_NO_BUF || slot >= cfg_agg_devs || op >= IOT_AGG_OPS ||
	    (slot ? metric >= IOT_AGG_DEV_METRICS
		  : op || metric < IOT_AGG_SYSCALL ||
			metric >= IOT_AGG_SYSCALL + IOT_AGG_SYSCALLS))
		return;
	p = bpf_map_lookup_elem(&agg, &h);
	if (!p)
		return;
	k = log2_u64(value);
	p->v[k < IOT_AGG_KBUCKETS ? k : IOT_AGG_KBUCKETS - 1] += 1;
	p->v[IOT_AGG_KBUCKETS] += value;
}

/* This CPU's region of agg, or IOT_NO_BUF for a CPU brought online after
 * the recording began. */
static __always_inline __u32 agg_region(void)
{
	return cpu_buf(bpf_get_smp_processor_id());
}

/* What the histograms leave out, counted in this CPU's control block:
 * a request completed on a CPU with no region (AGG_OUT_NO_REGION: with the
 * completions no program saw, AGG lost, and as a drop of that CPU's, which
 * the recorder names and the file flags), a system call timed there (a drop
 * only, as its records would be in events mode), or a request of a disk
 * that found every slot taken (AGG_OUT_NO_SLOT). */
#define AGG_OUT_NO_REGION  0u
#define AGG_OUT_SYS_REGION 1u
#define AGG_OUT_NO_SLOT	   2u

static __always_inline void agg_count_out(__u32 why)
{
	struct iot_ctl *c = this_ctl();

	if (!c)
		return;
	if (why == AGG_OUT_NO_SLOT) {
		__sync_fetch_and_add(&c->drops_nostate, 1);
		__sync_fetch_and_add(&c->agg_no_slot, 1);
		return;
	}
	if (why == AGG_OUT_NO_REGION)
		__sync_fetch_and_add(&c->agg_lost, 1);
	__sync_fetch_and_add(&c->drops_full, 1);
}

/* A traced system call's time, kind k (syscall_kind), at its exit; a
 * kind past the histograms is not kept anywhere. */
static __always_inline void agg_syscall(__u32 k, __u64 ns)
{
	__u32 b = agg_region();

	if (k >= IOT_AGG_SYSCALLS)
		return;
	if (b == IOT_NO_BUF)
		agg_count_out(AGG_OUT_SYS_REGION);
	else
		agg_add(b, 0, 0, IOT_AGG_SYSCALL + k, ns);
}

static __always_inline __u32 agg_op(__u32 flags)
{
	__u32 op = flags & IOT_OP_MASK;

	return op == IOT_OP_READ ? 0 : op == IOT_OP_WRITE ? 1 : 2;
}

/* A completed request into the stage and size histograms. */
static __always_inline void agg_request(struct iot_sum_slot *sl, __u32 nr, __u64 g_ns,
					__u32 site)
{
	__u32 slot = agg_dev_slot(sl->dev, cfg_agg_cgroup ? sl->tid : 0, site),
	      op = agg_op(sl->flags);
	__u32 b = agg_region();
	__u64 now = bpf_ktime_get_ns(), q = sl->q_ns;
	__u64 i = sl->i_delta_ns ? q + sl->i_delta_ns : 0;
	__u64 d = sl->d_delta_ns ? q + sl->d_delta_ns : 0;

	if (slot == ~0u || b == IOT_NO_BUF) {
		agg_count_out(slot == ~0u ? AGG_OUT_NO_SLOT : AGG_OUT_NO_REGION);
		return;
	}
	if (g_ns < q)
		g_ns = 0;
	if (g_ns)
		agg_add(b, slot, op, IOT_AGG_Q2G, g_ns - q);
	if (g_ns && i >= g_ns)
		agg_add(b, slot, op, IOT_AGG_G2I, i - g_ns);
	if (i && d >= i)
		agg_add(b, slot, op, IOT_AGG_I2D, d - i);
	if (d)
		agg_add(b, slot, op, IOT_AGG_D2C, now - d);
	agg_add(b, slot, op, IOT_AGG_Q2C, now - q);
	agg_add(b, slot, op, IOT_AGG_SIZE, (__u64)(nr ?: sl->nr) << 9);
}

#endif /* IOTRAIL_AGGREGATE_BPF_H */
