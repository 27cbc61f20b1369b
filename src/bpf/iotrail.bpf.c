// SPDX-License-Identifier: GPL-2.0
/*
 * iotrail's kernel side: raw tracepoint programs for the block layer and the
 * I/O system calls, writing struct iot_rec records into per-CPU buffers
 * (emit.bpf.h). No policy lives here beyond filtering: everything else is
 * decided in user space.
 *
 * Argument layouts differ between kernels. The default programs follow the
 * layouts of Linux >= 5.11 (request and bio tracepoints without the queue
 * argument, commit a54895fa057c "block: remove the request_queue to argument
 * request based tracepoints"); the *_q variants take the older layout with a
 * leading struct request_queue *. User space picks one per tracepoint by
 * counting the arguments of btf_trace_<name> in the kernel's BTF
 * (src/record/probe.c) and records the choice in the trace file.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "emit.bpf.h"

/*
 * This file is built twice (Makefile): with IOT_TP_BTF the block programs are
 * BTF-typed raw tracepoints (tp_btf) that read kernel structures with plain
 * loads; without it they are untyped raw tracepoints reading through
 * bpf_probe_read_kernel() (BPF_CORE_READ). The first costs about 50 ns less
 * per event (bench/bpf_cost.sh); the second loads where tp_btf cannot.
 * KREADn(p, a, b...) reads p->a->b either way.
 */
#ifdef IOT_TP_BTF
#define TP(name)	SEC("tp_btf/" #name)
#define KREAD1(p, a)	((p)->a)
#define KREAD2(p, a, b) ((p)->a->b)
#else
#define TP(name)	SEC("raw_tp/" #name)
#define KREAD1(p, a)	BPF_CORE_READ(p, a)
#define KREAD2(p, a, b) BPF_CORE_READ(p, a, b)
#endif

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 cfg_self_tgid = 0;	     /* never trace the recorder itself */
const volatile bool cfg_filter_pids = false; /* syscalls: only tgids in "pids" */
const volatile bool cfg_summary = false;     /* one record per request */
/* --trigger (ring): stop when a request's Q2C reaches this, or it fails */
const volatile __u64 cfg_trigger_ns = 0;
const volatile bool cfg_trigger_error = false;
#define TRIGGER_ON (cfg_trigger_ns || cfg_trigger_error)
const volatile bool cfg_aggregate = false; /* histograms in the kernel only */
/* the in-flight slot table serves --summary, --aggregate and --trigger */
#define STATE_ON (cfg_summary || cfg_aggregate)
/* --speculate: a request's records wait in a speculation buffer until its
 * completion commits them (Q2C >= cfg_spec_ns, or an error) or drops them */
const volatile bool cfg_speculate = false;
const volatile __u64 cfg_spec_ns = 0;
const volatile __u32 cfg_spec_nrec = 16; /* records per speculation buffer */
#define SPEC_ON cfg_speculate

/* Device filter (-d), fixed before load so it costs no map lookup: disk
 * dev_t and the sector range [start, end) selected on it. */
#define IOT_MAX_FILTER_DEVS 16
const volatile __u32 cfg_nr_devs = 0; /* 0: every device */
const volatile __u32 cfg_dev[IOT_MAX_FILTER_DEVS] = {};
const volatile __u64 cfg_dev_start[IOT_MAX_FILTER_DEVS] = {};
const volatile __u64 cfg_dev_end[IOT_MAX_FILTER_DEVS] = {};

/* Process filter: tgid -> 1. Children are added by the fork hook below. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u8);
} pids SEC(".maps");

/* --summary: in-flight state (events.h: struct iot_sum_slot). Slots whose
 * completion never comes (a bio front-merged into a request, torn by a lost
 * event) are reaped by the recorder after a minute (record.c). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct iot_sum_slot);
	__uint(max_entries, IOT_SUM_SETS *IOT_SUM_WAYS);
} inflight SEC(".maps");

/* ---- helpers ---------------------------------------------------------- */

static __always_inline __u32 disk_devt(struct gendisk *disk)
{
	if (!disk)
		return 0;
	return ((__u32)KREAD1(disk, major) << 20) | (__u32)KREAD1(disk, first_minor);
}

/* Translate the kernel's opf into the stable IOT_OP_* | IOT_F_* encoding.
 * The flag bit positions are CO-RE relocated against the running kernel. */
static __always_inline __u32 iot_opf(__u32 opf)
{
	__u32 f = opf & IOT_OP_MASK;

	if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_SYNC)))
		f |= IOT_F_SYNC;
	if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_META)))
		f |= IOT_F_META;
	if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_FUA)))
		f |= IOT_F_FUA;
	if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_PREFLUSH)))
		f |= IOT_F_PREFLUSH;
	if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_RAHEAD)))
		f |= IOT_F_RAHEAD;
	return f;
}

static __always_inline bool dev_wanted(__u32 dev, __u64 sector)
{
	if (!cfg_nr_devs)
		return true;
	/* A request without a sector (the flush machinery's flush request
	 * carries (sector_t)-1) concerns its whole disk: it passes any filter
	 * on that disk, as it counts in the disk's /proc/diskstats. */
	for (__u32 i = 0; i < IOT_MAX_FILTER_DEVS && i < cfg_nr_devs; i++)
		if (cfg_dev[i] == dev &&
		    ((sector >= cfg_dev_start[i] && sector < cfg_dev_end[i]) ||
		     sector == ~0ull))
			return true;
	return false;
}

static __always_inline struct iot_rec *begin(__u16 type, __u64 *seq)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct iot_rec *r = iot_reserve(cpu, seq);
	__u64 pt;

	if (!r)
		return NULL;
	pt = bpf_get_current_pid_tgid();
	r->ts_ns = bpf_ktime_get_ns();
	r->pid = pt >> 32;
	r->tid = (__u32)pt;
	r->type = type;
	r->cpu = cpu;
	return r;
}

static __always_inline struct iot_rec *spec_record(__u64 key, __u16 type);

/* A record about the bio or request whose state is under key: into the
 * principal buffer, or under --speculate into that request's speculation
 * buffer (*seq is then ~0: a speculative record is no committed slot). */
static __always_inline struct iot_rec *begin_for(__u64 key, __u16 type, __u64 *seq)
{
	if (SPEC_ON) {
		*seq = ~0ull;
		return spec_record(key, type);
	}
	return begin(type, seq);
}

/* ---- block layer: bio events --------------------------------------------- */

/* One bio event. flags: IOT_FLAGS_FROM_OPF to translate the bio's op, or
 * what the type puts there instead (a remap's old dev_t). */
#define IOT_FLAGS_FROM_OPF 0xffffffffu

static __always_inline int emit_bio_flags(__u16 type, struct bio *bio, __u64 id2,
					  __u32 flags)
{
	struct iot_rec *r;
	__u64 seq, sector;
	__u32 dev;

	dev = disk_devt(KREAD2(bio, bi_bdev, bd_disk));
	sector = KREAD1(bio, bi_iter.bi_sector);
	if (!dev_wanted(dev, sector))
		return 0;
	r = begin_for((__u64)bio, type, &seq);
	if (!r)
		return 0;
	r->id = (__u64)bio;
	r->id2 = id2;
	r->sector = sector;
	r->nr = KREAD1(bio, bi_iter.bi_size) >> 9;
	r->dev = dev;
	r->flags = flags == IOT_FLAGS_FROM_OPF ? iot_opf(KREAD1(bio, bi_opf)) : flags;
	iot_commit(r, seq);
	return 0;
}

static __always_inline int emit_bio(__u16 type, struct bio *bio, __u64 id2)
{
	return emit_bio_flags(type, bio, id2, IOT_FLAGS_FROM_OPF);
}

static __always_inline int emit_rq(__u16 type, struct request *rq, __u64 id2, __u32 nr)
{
	struct iot_rec *r;
	__u64 seq, sector;
	__u32 dev;

	dev = disk_devt(KREAD2(rq, q, disk));
	sector = KREAD1(rq, __sector);
	if (!dev_wanted(dev, sector))
		return 0;
	r = begin_for(SPEC_ON ? (__u64)KREAD1(rq, bio) : 0, type, &seq);
	if (!r)
		return 0;
	r->id = (__u64)rq;
	r->id2 = id2;
	r->sector = sector;
	r->nr = nr;
	r->dev = dev;
	r->flags = iot_opf(KREAD1(rq, cmd_flags));
	iot_commit(r, seq);
	return 0;
}

static __always_inline __u32 rq_sectors(struct request *rq)
{
	return KREAD1(rq, __data_len) >> 9;
}

/* ---- --summary: fold the stages of one request into one record ------------ *
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

static __always_inline __u32 sum_set(__u64 key)
{
	/* bios are slab objects: drop the low bits, fold the high ones */
	return ((__u32)(key >> 6) ^ (__u32)(key >> 22)) & (IOT_SUM_SETS - 1);
}

static __always_inline struct iot_sum_slot *sum_find(__u64 key)
{
	__u32 base = sum_set(key) * IOT_SUM_WAYS;

	/* 0 marks a free slot: a request without bios (the flush machinery's
	 * own flush request) must not adopt one */
	if (!key)
		return NULL;

	for (__u32 w = 0; w < IOT_SUM_WAYS; w++) {
		__u32 i = base + w;
		struct iot_sum_slot *sl = bpf_map_lookup_elem(&inflight, &i);

		if (sl && sl->key == key)
			return sl;
	}
	return NULL;
}

/* A slot for key: its own if present (address reuse), else a free one. */
static __always_inline struct iot_sum_slot *sum_claim(__u64 key)
{
	__u32 base = sum_set(key) * IOT_SUM_WAYS;
	struct iot_sum_slot *sl = sum_find(key);

	if (sl)
		return sl;
	for (__u32 w = 0; w < IOT_SUM_WAYS; w++) {
		__u32 i = base + w;

		sl = bpf_map_lookup_elem(&inflight, &i);
		if (sl && !sl->key && __sync_val_compare_and_swap(&sl->key, 0, key) == 0)
			return sl;
	}
	return NULL;
}

static __always_inline void count_nostate(void)
{
	struct iot_ctl *c = this_ctl();

	if (c)
		__sync_fetch_and_add(&c->drops_nostate, 1);
}

static __always_inline struct iot_sum_slot *sum_bio_queue(struct bio *bio)
{
	__u64 key = (__u64)bio, sector = KREAD1(bio, bi_iter.bi_sector);
	__u32 dev = disk_devt(KREAD2(bio, bi_bdev, bd_disk));
	struct iot_sum_slot *sl;

	if (!dev_wanted(dev, sector))
		return NULL;
	sl = sum_claim(key);
	if (!sl) {
		count_nostate();
		return NULL;
	}
	sl->q_ns = bpf_ktime_get_ns();
	sl->sector = sector;
	sl->i_delta_ns = 0;
	sl->d_delta_ns = 0;
	sl->nr = KREAD1(bio, bi_iter.bi_size) >> 9;
	sl->dev = dev;
	sl->tid = (__u32)bpf_get_current_pid_tgid();
	sl->flags = iot_opf(KREAD1(bio, bi_opf));
	return sl;
}

/* ---- --aggregate ------------------------------------------------------------ */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 1); /* set by user space: nr_cpus * slots * IOT_AGG_PER_DEV */
} agg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, IOT_AGG_DEVS);
	__type(key, __u32);
	__type(value, __u32);
} agg_devs SEC(".maps");

__u64 agg_next_slot = 1; /* .bss: slot 0 is "no device" (64-bit: see iot_stop) */
/* aggsize: device slots (slot 0 included) per CPU, at most IOT_AGG_DEVS */
const volatile __u32 cfg_agg_devs = IOT_AGG_DEVS;
#define AGG_PER_CPU (cfg_agg_devs * IOT_AGG_PER_DEV)

static __always_inline __u32 log2_u64(__u64 v)
{
	__u32 r = 0;

	if (v >> 32) {
		v >>= 32;
		r += 32;
	}
	if (v >> 16) {
		v >>= 16;
		r += 16;
	}
	if (v >> 8) {
		v >>= 8;
		r += 8;
	}
	if (v >> 4) {
		v >>= 4;
		r += 4;
	}
	if (v >> 2) {
		v >>= 2;
		r += 2;
	}
	if (v >> 1)
		r += 1;
	return r;
}

/* The histogram slot of a disk, handed out at first sight; ~0 if full. */
static __always_inline __u32 agg_dev_slot(__u32 dev)
{
	__u32 *v = bpf_map_lookup_elem(&agg_devs, &dev), slot;

	if (v)
		return *v;
	slot = (__u32)__sync_fetch_and_add(&agg_next_slot, 1);
	if (slot >= cfg_agg_devs)
		return ~0u;
	if (bpf_map_update_elem(&agg_devs, &dev, &slot, BPF_NOEXIST)) {
		v = bpf_map_lookup_elem(&agg_devs, &dev); /* another CPU won */
		return v ? *v : ~0u;
	}
	return slot;
}

static __always_inline void agg_add(__u32 slot, __u32 op, __u32 metric, __u64 value)
{
	__u32 cpu = bpf_get_smp_processor_id();
	__u32 base =
	    cpu * AGG_PER_CPU +
	    ((slot * IOT_AGG_OPS + op) * IOT_AGG_METRICS + metric) * IOT_AGG_HIST;
	__u32 b = base + log2_u64(value), s = base + IOT_AGG_BUCKETS;
	__u64 *p;

	if (slot >= cfg_agg_devs || op >= IOT_AGG_OPS || metric >= IOT_AGG_METRICS)
		return;
	p = bpf_map_lookup_elem(&agg, &b);
	if (p)
		__sync_fetch_and_add(p, 1); /* CPU-local: nested interrupts only */
	p = bpf_map_lookup_elem(&agg, &s);
	if (p)
		__sync_fetch_and_add(p, value);
}

static __always_inline __u32 agg_op(__u32 flags)
{
	__u32 op = flags & IOT_OP_MASK;

	return op == IOT_OP_READ ? 0 : op == IOT_OP_WRITE ? 1 : 2;
}

/* A completed request into the stage and size histograms. */
static __always_inline void agg_request(struct iot_sum_slot *sl, __u32 nr, __u64 g_ns)
{
	__u32 slot = agg_dev_slot(sl->dev), op = agg_op(sl->flags);
	__u64 now = bpf_ktime_get_ns(), q = sl->q_ns;
	__u64 i = sl->i_delta_ns ? q + sl->i_delta_ns : 0;
	__u64 d = sl->d_delta_ns ? q + sl->d_delta_ns : 0;

	if (slot == ~0u) {
		count_nostate();
		return;
	}
	if (g_ns < q)
		g_ns = 0;
	if (g_ns)
		agg_add(slot, op, IOT_AGG_Q2G, g_ns - q);
	if (g_ns && i >= g_ns)
		agg_add(slot, op, IOT_AGG_G2I, i - g_ns);
	if (i && d >= i)
		agg_add(slot, op, IOT_AGG_I2D, d - i);
	if (d)
		agg_add(slot, op, IOT_AGG_D2C, now - d);
	agg_add(slot, op, IOT_AGG_Q2C, now - q);
	agg_add(slot, op, IOT_AGG_SIZE, (__u64)(nr ?: sl->nr) << 9);
}

static __always_inline __u32 delta32(__u64 from, __u64 to)
{
	__u64 d = to > from ? to - from : 0;

	return d > 0xffffffffull ? 0xffffffffu : (d ?: 1);
}

/* One record from a slot, then the slot is free again. */
static __always_inline void sum_emit(struct iot_sum_slot *sl, __u32 nr, __u64 g_ns,
				     int error)
{
	struct iot_summary *r;
	__u64 seq;

	if (cfg_aggregate) {
		agg_request(sl, nr, g_ns);
		sl->key = 0;
		return;
	}
	/* begin() stamps ts (= c_ns), cpu and type at the shared offsets */
	r = (struct iot_summary *)begin(IOT_EV_SUMMARY, &seq);
	if (r) {
		r->sector = sl->sector;
		r->q_ns = sl->q_ns;
		r->g_delta_ns = g_ns >= sl->q_ns ? delta32(sl->q_ns, g_ns) : 0;
		r->i_delta_ns = sl->i_delta_ns;
		r->d_delta_ns = sl->d_delta_ns;
		r->nr = nr ?: sl->nr;
		r->dev = sl->dev;
		r->tid = sl->tid;
		r->flags = sl->flags | (error ? IOT_SUMMARY_F_ERROR : 0);
		iot_commit((struct iot_rec *)r, seq);
	}
	sl->key = 0;
}

/* The split-off front part inherits its parent's state (see block_split). */
static __always_inline struct iot_sum_slot *sum_split(struct bio *bio)
{
	struct iot_sum_slot *ps = sum_find((__u64)KREAD1(bio, bi_private));
	struct iot_sum_slot *sl;

	if (!ps)
		return NULL;
	sl = sum_claim((__u64)bio);
	if (!sl) {
		count_nostate();
		return NULL;
	}
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

#include "speculate.bpf.h"

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

/* ---- block tracepoints ----------------------------------------------------- */

TP(block_bio_queue)
int BPF_PROG(block_bio_queue, struct bio *bio)
{
	struct iot_sum_slot *sl;

	if (STATE_ON) {
		sum_bio_queue(bio);
		return 0;
	}
	if (SPEC_ON) {
		sl = sum_bio_queue(bio);
		if (sl)
			spec_attach(sl);
	} else if (TRIGGER_ON) {
		sum_bio_queue(bio);
	}
	return emit_bio(IOT_EV_BIO_QUEUE, bio, 0);
}

TP(block_getrq)
int BPF_PROG(block_getrq, struct bio *bio)
{
	return emit_bio(IOT_EV_GETRQ, bio, 0);
}

TP(block_getrq)
int BPF_PROG(block_getrq_q, struct request_queue *q, struct bio *bio)
{
	return emit_bio(IOT_EV_GETRQ, bio, 0);
}

TP(block_bio_backmerge)
int BPF_PROG(block_bio_backmerge, struct bio *bio)
{
	/* --speculate keeps the merged bio's state: the request's completion
	 * finds it on the request's bio chain */
	if (STATE_ON || (TRIGGER_ON && !SPEC_ON)) {
		struct iot_sum_slot *sl = sum_find((__u64)bio);

		if (sl)
			sl->key = 0;
		if (STATE_ON)
			return 0;
	}
	return emit_bio(IOT_EV_BIO_BACKMERGE, bio, 0);
}

TP(block_bio_backmerge)
int BPF_PROG(block_bio_backmerge_q, struct request_queue *q, struct request *rq,
	     struct bio *bio)
{
	return emit_bio(IOT_EV_BIO_BACKMERGE, bio, (__u64)rq);
}

TP(block_bio_frontmerge)
int BPF_PROG(block_bio_frontmerge, struct bio *bio)
{
	return emit_bio(IOT_EV_BIO_FRONTMERGE, bio, 0);
}

TP(block_bio_frontmerge)
int BPF_PROG(block_bio_frontmerge_q, struct request_queue *q, struct request *rq,
	     struct bio *bio)
{
	return emit_bio(IOT_EV_BIO_FRONTMERGE, bio, (__u64)rq);
}

TP(block_bio_complete)
int BPF_PROG(block_bio_complete, struct request_queue *q, struct bio *bio)
{
	if (STATE_ON) {
		struct iot_sum_slot *sl;

		/* On a request-based (blk-mq) device the request's completion
		 * is the record; a bio's own completion there would count a
		 * request twice (e.g. the old head bio after a front merge). */
		if (KREAD1(q, mq_ops))
			return 0;
		sl = sum_find((__u64)bio);
		if (sl)
			sum_emit(sl, KREAD1(bio, bi_iter.bi_size) >> 9, 0,
				 KREAD1(bio, bi_status));
		return 0;
	}
	emit_bio(IOT_EV_BIO_COMPLETE, bio, KREAD1(bio, bi_status));
	if (SPEC_ON) {
		if (!KREAD1(q, mq_ops))
			spec_complete_bio(bio, KREAD1(bio, bi_status));
		return 0;
	}
	if (TRIGGER_ON && !KREAD1(q, mq_ops))
		trig_check(sum_find((__u64)bio), KREAD1(bio, bi_status));
	return 0;
}

/* The split-off front part of a bio never passes block_bio_queue. The
 * kernel chains it to its parent (bio_chain() sets bi_private) before the
 * tracepoint fires, so --summary hands the parent's state on to it. */
TP(block_split)
int BPF_PROG(block_split, struct bio *bio, unsigned int new_sector)
{
	struct iot_sum_slot *sl;

	if (STATE_ON) {
		sum_split(bio);
		return 0;
	}
	if (SPEC_ON) {
		sl = sum_split(bio);
		if (sl)
			spec_attach(sl);
	} else if (TRIGGER_ON) {
		sum_split(bio);
	}
	return emit_bio(IOT_EV_SPLIT, bio, new_sector);
}

TP(block_bio_remap)
int BPF_PROG(block_bio_remap, struct bio *bio, dev_t old_dev, sector_t from)
{
	/* the old device in place of the op flags: a remap carries no new op */
	return emit_bio_flags(IOT_EV_BIO_REMAP, bio, from, old_dev);
}

TP(block_rq_remap)
int BPF_PROG(block_rq_remap, struct request *rq, dev_t old_dev, sector_t from)
{
	return emit_rq(IOT_EV_RQ_REMAP, rq, from, old_dev);
}

/* --summary at I (stage 1) and D (stage 2): the state of the head bio. */
static __always_inline void sum_rq_stage(struct request *rq, int stage)
{
	struct iot_sum_slot *sl = sum_find((__u64)KREAD1(rq, bio));

	if (!sl)
		return;
	if (stage == 1) {
		if (!sl->i_delta_ns)
			sl->i_delta_ns = delta32(sl->q_ns, bpf_ktime_get_ns());
	} else {
		sl->d_delta_ns = delta32(sl->q_ns, bpf_ktime_get_ns());
		sl->nr = rq_sectors(rq);
	}
}

/* Request tracepoints, both argument layouts, generated alike. */
#define RQ_PROG(name, type, stage)                                                       \
	TP(name)                                                                         \
	int BPF_PROG(name, struct request *rq)                                           \
	{                                                                                \
		if (STATE_ON) {                                                          \
			if (stage >= 0)                                                  \
				sum_rq_stage(rq, stage);                                 \
			return 0;                                                        \
		}                                                                        \
		return emit_rq(type, rq, (__u64)KREAD1(rq, bio), rq_sectors(rq));        \
	}                                                                                \
	TP(name)                                                                         \
	int BPF_PROG(name##_q, struct request_queue *q, struct request *rq)              \
	{                                                                                \
		if (STATE_ON) {                                                          \
			if (stage >= 0)                                                  \
				sum_rq_stage(rq, stage);                                 \
			return 0;                                                        \
		}                                                                        \
		return emit_rq(type, rq, (__u64)KREAD1(rq, bio), rq_sectors(rq));        \
	}

RQ_PROG(block_rq_insert, IOT_EV_RQ_INSERT, 1)
RQ_PROG(block_rq_issue, IOT_EV_RQ_ISSUE, 2)
RQ_PROG(block_rq_requeue, IOT_EV_RQ_REQUEUE, -1)
RQ_PROG(block_rq_merge, IOT_EV_RQ_MERGE, -1)

TP(block_io_start)
int BPF_PROG(block_io_start, struct request *rq)
{
	return emit_rq(IOT_EV_IO_START, rq, 0, rq_sectors(rq));
}

TP(block_io_done)
int BPF_PROG(block_io_done, struct request *rq)
{
	return emit_rq(IOT_EV_IO_DONE, rq, 0, rq_sectors(rq));
}

TP(block_rq_complete)
int BPF_PROG(block_rq_complete, struct request *rq, int error, unsigned int nr_bytes)
{
	if (STATE_ON) {
		/* partial completions: the request ends with its last bytes.
		 * A data-less flush write completes here without I or D. */
		if (nr_bytes >= KREAD1(rq, __data_len)) {
			struct iot_sum_slot *sl = sum_find((__u64)KREAD1(rq, bio));

			if (sl)
				sum_emit(sl, 0, KREAD1(rq, start_time_ns), error);
		}
		return 0;
	}
	/* id2: sectors the request still had before this completion (high
	 * half) and the error (low half): the reader knows when it is done */
	emit_rq(IOT_EV_RQ_COMPLETE, rq, ((__u64)rq_sectors(rq) << 32) | (__u32)error,
		nr_bytes >> 9);
	if (SPEC_ON) {
		if (nr_bytes >= KREAD1(rq, __data_len))
			spec_complete_rq(rq, error);
		return 0;
	}
	if (TRIGGER_ON && nr_bytes >= KREAD1(rq, __data_len))
		trig_check(sum_find((__u64)KREAD1(rq, bio)), error);
	return 0;
}

TP(block_plug)
int BPF_PROG(block_plug, struct request_queue *q)
{
	struct iot_rec *r;
	__u64 seq;

	if (cfg_nr_devs || SPEC_ON)
		return 0;
	r = begin(IOT_EV_PLUG, &seq);
	if (!r)
		return 0;
	r->id = (__u64)q;
	r->id2 = 0;
	r->sector = 0;
	r->nr = 0;
	r->dev = disk_devt(KREAD1(q, disk));
	r->flags = 0;
	iot_commit(r, seq);
	return 0;
}

TP(block_unplug)
int BPF_PROG(block_unplug, struct request_queue *q, unsigned int depth, bool explicit)
{
	struct iot_rec *r;
	__u64 seq;

	if (cfg_nr_devs || SPEC_ON)
		return 0;
	r = begin(IOT_EV_UNPLUG, &seq);
	if (!r)
		return 0;
	r->id = (__u64)q;
	r->id2 = 0;
	r->sector = 0;
	r->nr = depth;
	r->dev = disk_devt(KREAD1(q, disk));
	r->flags = explicit;
	iot_commit(r, seq);
	return 0;
}

/* ---- syscall layer ------------------------------------------------------------ */

/* x86_64 syscall numbers of the traced calls; user space rewrites these
 * for other architectures before load (src/record/probe.c). */
const volatile __u32 cfg_nr_read = 0, cfg_nr_write = 1, cfg_nr_pread64 = 17,
		     cfg_nr_pwrite64 = 18, cfg_nr_readv = 19, cfg_nr_writev = 20,
		     cfg_nr_preadv = 295, cfg_nr_pwritev = 296, cfg_nr_fsync = 74,
		     cfg_nr_fdatasync = 75;

/* --aggregate: when the current system call began, per task */
struct sys_start {
	__u64 ts_ns;
	long id;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct sys_start);
} sys_starts SEC(".maps");

/* 0..9 in the order of IOT_AGG_SYSCALL's kinds */
static __always_inline __u32 syscall_kind(long id)
{
	return id == cfg_nr_read       ? 0
	       : id == cfg_nr_write    ? 1
	       : id == cfg_nr_pread64  ? 2
	       : id == cfg_nr_pwrite64 ? 3
	       : id == cfg_nr_readv    ? 4
	       : id == cfg_nr_writev   ? 5
	       : id == cfg_nr_preadv   ? 6
	       : id == cfg_nr_pwritev  ? 7
	       : id == cfg_nr_fsync    ? 8
				       : 9;
}

static __always_inline bool traced_syscall(long id)
{
	return id == cfg_nr_read || id == cfg_nr_write || id == cfg_nr_pread64 ||
	       id == cfg_nr_pwrite64 || id == cfg_nr_readv || id == cfg_nr_writev ||
	       id == cfg_nr_preadv || id == cfg_nr_pwritev || id == cfg_nr_fsync ||
	       id == cfg_nr_fdatasync;
}

/* The last answer of the process filter on this CPU: a CPU that keeps
 * running one process (the usual case under I/O load) skips the hash.
 * gen is bumped by the fork hook so a cached "no" cannot outlive a child
 * being added. */
struct pid_cache {
	__u32 tgid;
	__u32 wanted;
	__u64 gen;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pid_cache);
} pid_cache SEC(".maps");

__u64 pids_gen = 1; /* .bss: bumped whenever "pids" grows */

static __always_inline bool task_wanted(void)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32, zero = 0;
	struct pid_cache *c;
	bool wanted;

	if (tgid == cfg_self_tgid)
		return false;
	if (!cfg_filter_pids)
		return true;
	c = bpf_map_lookup_elem(&pid_cache, &zero);
	if (c && c->tgid == tgid && c->gen == pids_gen)
		return c->wanted;
	wanted = bpf_map_lookup_elem(&pids, &tgid) != NULL;
	if (c) {
		c->tgid = tgid;
		c->wanted = wanted;
		c->gen = pids_gen;
	}
	return wanted;
}

/* The file behind fd, with its position, inode number and device. The
 * tp_btf build walks task->files with plain loads and casts the file slot
 * read from the fd array with bpf_rdonly_cast() (Linux >= 6.2); the raw_tp
 * build reads everything through probe reads. */
#ifdef IOT_TP_BTF
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym;
#define SYSARG(regs, n) PT_REGS_PARM##n##_SYSCALL(regs)
#else
#define SYSARG(regs, n) PT_REGS_PARM##n##_CORE_SYSCALL(regs)
#endif

struct file_info {
	__u64 pos, ino;
	__u32 dev;
	bool found;
};

static __always_inline void fd_file(unsigned int fd, struct file_info *fi)
{
	struct file **fds, *slot = NULL;
#ifdef IOT_TP_BTF
	struct task_struct *task = bpf_get_current_task_btf();
	struct fdtable *fdt = task->files->fdt;
	struct file *f;

	if (fd >= fdt->max_fds)
		return;
	fds = fdt->fd;
	if (bpf_probe_read_kernel(&slot, sizeof(slot), &fds[fd]) || !slot)
		return;
	f = bpf_rdonly_cast(slot, bpf_core_type_id_kernel(struct file));
	fi->pos = f->f_pos;
	fi->ino = f->f_inode->i_ino;
	fi->dev = f->f_inode->i_sb->s_dev;
#else
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();

	if (fd >= BPF_CORE_READ(task, files, fdt, max_fds))
		return;
	fds = BPF_CORE_READ(task, files, fdt, fd);
	if (!fds || bpf_probe_read_kernel(&slot, sizeof(slot), &fds[fd]) || !slot)
		return;
	fi->pos = BPF_CORE_READ(slot, f_pos);
	fi->ino = BPF_CORE_READ(slot, f_inode, i_ino);
	fi->dev = BPF_CORE_READ(slot, f_inode, i_sb, s_dev);
#endif
	fi->found = true;
}

TP(sys_enter)
int BPF_PROG(sys_enter, struct pt_regs *regs, long id)
{
	struct file_info fi = {};
	struct iot_rec *r;
	__u64 seq, pos = ~0ull;
	unsigned int fd;

	if (!traced_syscall(id) || !task_wanted() || cfg_summary || SPEC_ON)
		return 0;
	if (cfg_aggregate) {
		struct sys_start *st =
		    bpf_task_storage_get(&sys_starts, bpf_get_current_task_btf(), 0,
					 BPF_LOCAL_STORAGE_GET_F_CREATE);

		if (st) {
			st->ts_ns = bpf_ktime_get_ns();
			st->id = id;
		}
		return 0;
	}
	fd = (unsigned int)SYSARG(regs, 1);
	fd_file(fd, &fi);
	if (id == cfg_nr_pread64 || id == cfg_nr_pwrite64 || id == cfg_nr_preadv ||
	    id == cfg_nr_pwritev)
		pos = SYSARG(regs, 4);
	else if (fi.found && (id == cfg_nr_read || id == cfg_nr_write ||
			      id == cfg_nr_readv || id == cfg_nr_writev))
		pos = fi.pos;

	r = begin(IOT_EV_SYS_ENTER, &seq);
	if (!r)
		return 0;
	r->id = pos;
	r->id2 = fi.ino;
	r->sector = id;
	r->nr =
	    (id == cfg_nr_fsync || id == cfg_nr_fdatasync) ? 0 : (__u32)SYSARG(regs, 3);
	r->dev = fi.dev;
	r->flags = fd;
	iot_commit(r, seq);
	return 0;
}

TP(sys_exit)
int BPF_PROG(sys_exit, struct pt_regs *regs, long ret)
{
	struct iot_rec *r;
	__u64 seq;
	long id;

#if defined(__TARGET_ARCH_x86)
	id = KREAD1(regs, orig_ax);
#elif defined(__TARGET_ARCH_arm64)
	id = BPF_CORE_READ((struct pt_regs___arm64 *)regs, syscallno);
#else
	id = -1;
#endif
	if (!traced_syscall(id) || !task_wanted() || cfg_summary || SPEC_ON)
		return 0;
	if (cfg_aggregate) {
		struct sys_start *st =
		    bpf_task_storage_get(&sys_starts, bpf_get_current_task_btf(), 0, 0);

		if (st && st->ts_ns && st->id == id) {
			agg_add(0, 0, IOT_AGG_SYSCALL + syscall_kind(id),
				bpf_ktime_get_ns() - st->ts_ns);
			st->ts_ns = 0;
		}
		return 0;
	}
	r = begin(IOT_EV_SYS_EXIT, &seq);
	if (!r)
		return 0;
	r->id = 0;
	r->id2 = 0;
	r->sector = (__u64)ret;
	r->nr = 0;
	r->dev = 0;
	r->flags = (__u32)id;
	iot_commit(r, seq);
	return 0;
}

/* Children of traced processes are traced too. */
SEC("raw_tp/sched_process_fork")
int BPF_PROG(sched_process_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = BPF_CORE_READ(parent, tgid);
	__u32 ctgid = BPF_CORE_READ(child, tgid);
	__u8 one = 1;

	if (bpf_map_lookup_elem(&pids, &ptgid) && ptgid != ctgid) {
		bpf_map_update_elem(&pids, &ctgid, &one, BPF_ANY);
		__sync_fetch_and_add(&pids_gen, 1);
	}
	return 0;
}

/* Names of tasks that exit during the recording, for the task table:
 * user space reads /proc for the living and this map for the dead. */
struct task_info {
	__u32 tgid;
	__u32 pad;
	__u64 cgroup_id;
	char comm[16];
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct task_info);
} exited SEC(".maps");

SEC("raw_tp/sched_process_exit")
int BPF_PROG(sched_process_exit, struct task_struct *task)
{
	struct task_info ti = {};
	__u64 pt = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pt;

	ti.tgid = pt >> 32;
	ti.cgroup_id = bpf_get_current_cgroup_id();
	bpf_get_current_comm(ti.comm, sizeof(ti.comm));
	bpf_map_update_elem(&exited, &tid, &ti, BPF_ANY);
	return 0;
}
