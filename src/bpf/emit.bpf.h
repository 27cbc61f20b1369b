/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-CPU record buffers, producer side, and the buffer policies.
 *
 * Each CPU online when the recording began owns cfg_nr_slots consecutive
 * 64-byte slots of the mmap-able array "buf" (its buffer: cfg_cpu_buf), and
 * every possible CPU one struct iot_ctl in the mmap-able array "ctl". A CPU
 * brought online later has no buffer: its records are dropped and counted
 * (drops_full). There is no BPF ring buffer and no wake-up: user space
 * polls at switchrate.
 *
 * Producer protocol (per record):
 *   0. not armed yet, or no more (user space sets `armed` once every program
 *      is attached, and clears it before detaching them): nothing is written,
 *      so a trace begins and ends at one instant for every event type, not
 *      program by program as they attach
 *      stopped (fill full, or a ring trigger fired): nothing more is traced
 *   1. switch, fill: h = ctl.head, t = ctl.tail; if h - t >= capacity the
 *      record is dropped and counted (switch), or tracing stops on every CPU
 *      and a STOP record goes into the space reserved for it (fill)
 *      ring: no check; the slot of the oldest record is reused
 *   2. seq = fetch_add(ctl.head, 1)   -- atomic: an interrupt may nest here
 *   3. fill every field of slot[seq % nr_slots] except seq
 *   4. compiler barrier, then slot.seq = seq   -- the commit
 * The consumer reads slot[s] only while slot.seq == s (docs/ARCHITECTURE.md).
 * capacity = nr_slots - IOT_SLACK_SLOTS (nested interrupts never overwrite)
 *          - 1 under fill (the STOP record always fits).
 */
#ifndef IOTRAIL_EMIT_BPF_H
#define IOTRAIL_EMIT_BPF_H

#include "events.h"

const volatile __u32 cfg_nr_slots = 65536; /* per CPU, power of two */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct iot_rec);
	__uint(max_entries, 1); /* set by user space: nr_bufs * cfg_nr_slots */
} buf SEC(".maps");

/* Each possible CPU's buffer (in buf, and in --aggregate's agg), or
 * IOT_NO_BUF for a CPU that was offline when the recording began: buffers
 * for the online CPUs only, not for every CPU the firmware could add. */
const volatile __u32 cfg_cpu_buf[IOT_MAX_CPUS] = {};
/* Every possible CPU has a buffer, its own number: the verifier then
 * drops the table's load from the programs (about 6 ns an I/O, 2 vCPUs). */
const volatile bool cfg_cpu_buf_all = true;

static __always_inline __u32 cpu_buf(__u32 cpu)
{
	if (cfg_cpu_buf_all)
		return cpu;
	return cpu < IOT_MAX_CPUS ? cfg_cpu_buf[cpu] : IOT_NO_BUF;
}

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct iot_ctl);
	__uint(max_entries, 1); /* set by user space: nr_cpus */
} ctl SEC(".maps");

/* Buffer policy (events.h: IOT_POLICY_*), fixed before load. */
const volatile __u32 cfg_policy = IOT_POLICY_SWITCH;
/* Set once, by the first CPU whose fill buffer is full or whose request
 * fires the ring trigger; read by user space through the skeleton's bss. */
struct iot_stop stop = {};
/* 1 from when every program is attached until the recording stops */
__u32 armed = 0;

/* This CPU's control block (for its counters). */
static __always_inline struct iot_ctl *this_ctl(void)
{
	__u32 cpu = bpf_get_smp_processor_id();

	return bpf_map_lookup_elem(&ctl, &cpu);
}

/* Slot s of buffer b (a CPU's cpu_buf, not IOT_NO_BUF). */
static __always_inline struct iot_rec *slot_at(__u32 b, __u64 s)
{
	__u32 idx = b * cfg_nr_slots + (__u32)(s & (cfg_nr_slots - 1));

	return bpf_map_lookup_elem(&buf, &idx);
}

/* A record of the buffers' own (STOP, DEGRADE) into this CPU's next slot,
 * with no capacity check: its caller keeps room for it. */
static __always_inline void ctl_record(__u32 cpu, struct iot_ctl *c, __u16 type, __u64 ts,
				       __u64 id, __u64 id2, __u32 flags)
{
	__u32 b = cpu_buf(cpu);
	struct iot_rec *r;
	__u64 s;

	if (b == IOT_NO_BUF)
		return;
	s = __sync_fetch_and_add(&c->head, 1);
	r = slot_at(b, s);
	if (!r)
		return;
	r->ts_ns = ts;
	r->id = id;
	r->id2 = id2;
	r->sector = 0;
	r->nr = 0;
	r->dev = 0;
	r->pid = 0;
	r->tid = 0;
	r->type = type;
	r->cpu = cpu;
	r->flags = flags;
	asm volatile("" ::: "memory");
	r->seq = s;
}

/* fill: this CPU is full. Stop every CPU, and write the STOP record into the
 * slot kept for it (the first CPU to get here does; the others only count). */
static __always_inline void fill_stop(__u32 cpu, struct iot_ctl *c)
{
	if (__sync_val_compare_and_swap(&stop.reason, 0, IOT_STOP_REASON_FULL) != 0)
		return;
	stop.ts_ns = bpf_ktime_get_ns();
	stop.cpu = cpu;
	ctl_record(cpu, c, IOT_EV_STOP, stop.ts_ns, 0, c->drops_full,
		   IOT_STOP_REASON_FULL);
}

/* Reserve a slot on this CPU. Returns NULL (and counts the drop) when the
 * record cannot be had; see the protocol above. */
static __always_inline struct iot_rec *iot_reserve(__u32 cpu, __u64 *seq)
{
	__u32 b = cpu_buf(cpu);
	struct iot_ctl *c;
	struct iot_rec *r;
	__u64 s;

	if (!armed || (cfg_policy != IOT_POLICY_SWITCH && stop.reason))
		return NULL;
	c = bpf_map_lookup_elem(&ctl, &cpu);
	if (!c)
		return NULL;
	if (b == IOT_NO_BUF) {
		__sync_fetch_and_add(&c->drops_full, 1);
		return NULL;
	}
	if (cfg_policy != IOT_POLICY_RING &&
	    c->head - c->tail >= cfg_nr_slots - IOT_SLACK_SLOTS -
				     (cfg_policy == IOT_POLICY_FILL ? 1 : 0)) {
		__sync_fetch_and_add(&c->drops_full, 1);
		if (cfg_policy == IOT_POLICY_FILL)
			fill_stop(cpu, c);
		return NULL;
	}
	s = __sync_fetch_and_add(&c->head, 1);
	r = slot_at(b, s);
	if (!r)
		return NULL;
	*seq = s;
	return r;
}

static __always_inline void iot_commit(struct iot_rec *r, __u64 seq)
{
	asm volatile("" ::: "memory");
	r->seq = seq;
}

/*
 * Back-pressure (switch, events mode; record --backpressure summary, the
 * default). A CPU whose buffer reaches half its capacity enters a
 * stretch: the requests queued on it from then on keep their stages in the
 * in-flight table and are written as one SUMMARY record each at their
 * completion, as --summary writes them, and its other events are not
 * written (counted). The stretch ends when the buffer is down to 1/4. A
 * DEGRADE record marks each end, in the slots above 1/2 and below 1/4: it
 * always fits. Requests queued before a stretch keep their events.
 */
const volatile bool cfg_degrade = false;
/* in-flight slots held by requests queued in a stretch: while none is, the
 * block programs look nothing up (inflight.bpf.h, degrade_slot). A line of
 * its own: every CPU adds to it in a stretch, every program reads `armed`. */
__s64 degrade_live __attribute__((aligned(64))) = 0;
__u64 degrade_live_pad[7] = {};

/* Whether this CPU is inside a stretch now; begins or ends one. */
static __always_inline bool degraded(void)
{
	__u64 fill, cap = cfg_nr_slots - IOT_SLACK_SLOTS, now;
	__u32 cpu;
	struct iot_ctl *c;

	if (!cfg_degrade || !armed)
		return false;
	cpu = bpf_get_smp_processor_id();
	c = bpf_map_lookup_elem(&ctl, &cpu);
	if (!c)
		return false;
	fill = c->head - c->tail;
	if (!c->degraded) {
		if (fill < cap / 2)
			return false;
		if (__sync_val_compare_and_swap(&c->degraded, 0, 1) != 0)
			return true; /* an interrupt on this CPU began it */
		now = bpf_ktime_get_ns();
		c->degrades++;
		c->degrade_since_ns = now;
		c->degrade_skipped0 = c->degrade_skipped;
		ctl_record(cpu, c, IOT_EV_DEGRADE, now, fill, 0, IOT_DEGRADE_BEGIN);
		return true;
	}
	if (fill > cap / 4)
		return true;
	if (__sync_val_compare_and_swap(&c->degraded, 1, 0) != 1)
		return false;
	now = bpf_ktime_get_ns();
	c->degrade_ns += now - c->degrade_since_ns;
	ctl_record(cpu, c, IOT_EV_DEGRADE, now, fill,
		   c->degrade_skipped - c->degrade_skipped0, IOT_DEGRADE_END);
	return false;
}

/* A record that is not written because this CPU is in a stretch: true (and
 * counted), or false when it is to be written. */
static __always_inline bool degrade_skip(void)
{
	struct iot_ctl *c;
	__u32 cpu;

	if (!cfg_degrade || !degraded())
		return false;
	cpu = bpf_get_smp_processor_id();
	c = bpf_map_lookup_elem(&ctl, &cpu);
	if (c)
		__sync_fetch_and_add(&c->degrade_skipped, 1);
	return true;
}

#endif /* IOTRAIL_EMIT_BPF_H */
