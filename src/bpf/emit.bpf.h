/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-CPU record buffers, producer side.
 *
 * Each CPU owns cfg_nr_slots consecutive 64-byte slots of the mmap-able
 * array "buf" and one struct iot_ctl in the mmap-able array "ctl". There is
 * no BPF ring buffer and no wake-up: user space polls at switchrate.
 *
 * Producer protocol (per record):
 *   1. h = ctl.head, t = ctl.tail; if h - t >= nr_slots - SLACK: drops_full++
 *      and stop (the record is lost and counted, never overwrites).
 *   2. seq = fetch_add(ctl.head, 1)   -- atomic: an interrupt may nest here
 *   3. fill every field of slot[seq % nr_slots] except seq
 *   4. compiler barrier, then slot.seq = seq   -- the commit
 * The consumer reads slot[s] only while slot.seq == s (docs/ARCHITECTURE.md).
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
	__uint(max_entries, 1); /* set by user space: nr_cpus * cfg_nr_slots */
} buf SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct iot_ctl);
	__uint(max_entries, 1); /* set by user space: nr_cpus */
} ctl SEC(".maps");

/* Reserve a slot on this CPU. Returns NULL (and counts the drop) when full. */
static __always_inline struct iot_rec *iot_reserve(__u32 cpu, __u64 *seq)
{
	struct iot_ctl *c;
	struct iot_rec *r;
	__u32 idx;
	__u64 s;

	c = bpf_map_lookup_elem(&ctl, &cpu);
	if (!c)
		return NULL;
	if (c->head - c->tail >= cfg_nr_slots - IOT_SLACK_SLOTS) {
		__sync_fetch_and_add(&c->drops_full, 1);
		return NULL;
	}
	s = __sync_fetch_and_add(&c->head, 1);
	idx = cpu * cfg_nr_slots + (__u32)(s & (cfg_nr_slots - 1));
	r = bpf_map_lookup_elem(&buf, &idx);
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

#endif /* IOTRAIL_EMIT_BPF_H */
