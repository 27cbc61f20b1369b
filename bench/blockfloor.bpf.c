// SPDX-License-Identifier: GPL-2.0
/*
 * The floor under --aggregate's block programs, for bench/overhead.sh's
 * floor-* variants: what any tracer of a bio's Q2C must run, and no more.
 *   cfg_stamp 0: a program on block_bio_queue and one on
 *                block_bio_complete that return at once: the cost of
 *                running BPF there at all;
 *   cfg_stamp 1: Q stamps the time into the table slot its bio's address
 *                maps to (direct-mapped: one slot, no ways), C finds it
 *                there and counts the Q2C into this CPU's log2 histogram.
 * No device filter, no ops or sizes, nothing counted when a slot was taken.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "log2.bpf.h"

char LICENSE[] SEC("license") = "GPL";

const volatile int cfg_stamp = 1;

#define SLOTS 65536u

struct stamp {
	__u64 bio, ts;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct stamp);
	__uint(max_entries, SLOTS);
} stamps SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 64);
} hist SEC(".maps");

static __always_inline __u32 slot_of(__u64 bio)
{
	return ((__u32)(bio >> 6) ^ (__u32)(bio >> 22)) & (SLOTS - 1);
}

/* raw_tp: the bio arrives as a number, ready to hash */
SEC("raw_tp/block_bio_queue")
int floor_queue(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 bio = ctx->args[0];
	__u32 k = slot_of(bio);
	struct stamp *s;

	if (!cfg_stamp)
		return 0;
	s = bpf_map_lookup_elem(&stamps, &k);
	if (s) {
		s->bio = bio;
		s->ts = bpf_ktime_get_ns();
	}
	return 0;
}

SEC("raw_tp/block_bio_complete")
int floor_complete(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 bio = ctx->args[1], d, *n;
	__u32 k = slot_of(bio), b;
	struct stamp *s;

	if (!cfg_stamp)
		return 0;
	s = bpf_map_lookup_elem(&stamps, &k);
	if (!s || s->bio != bio)
		return 0;
	s->bio = 0;
	d = bpf_ktime_get_ns() - s->ts;
	b = log2_u64(d) & 63; /* aggregate.bpf.h's buckets */
	n = bpf_map_lookup_elem(&hist, &b);
	if (n)
		*n += 1;
	return 0;
}
