// SPDX-License-Identifier: GPL-2.0
/*
 * iotrail callers: the kernel stack at every hit of one tracepoint, counted
 * in the kernel per distinct stack (src/stacks/, `iotrail callers`). The
 * program reads no argument, so one program serves any tracepoint.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

#define MAX_DEPTH 127 /* the kernel's default perf_event_max_stack */

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, MAX_DEPTH * sizeof(__u64));
	__uint(max_entries, 16384);
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32); /* stack id */
	__type(value, __u64);
	__uint(max_entries, 16384);
} counts SEC(".maps");

const volatile __u32 cfg_self_tgid = 0;
__u64 hits = 0, lost_stacks = 0, lost_counts = 0;

SEC("raw_tp")
int on_event(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 one = 1, *c;
	long ret;
	__u32 id;

	if (bpf_get_current_pid_tgid() >> 32 == cfg_self_tgid)
		return 0;
	__sync_fetch_and_add(&hits, 1);
	ret = bpf_get_stackid(ctx, &stacks, 0);
	if (ret < 0) { /* the stack map is full, or a hash collision */
		__sync_fetch_and_add(&lost_stacks, 1);
		return 0;
	}
	id = (__u32)ret;
	c = bpf_map_lookup_elem(&counts, &id);
	if (c) {
		__sync_fetch_and_add(c, 1);
		return 0;
	}
	if (!bpf_map_update_elem(&counts, &id, &one, BPF_NOEXIST))
		return 0;
	c = bpf_map_lookup_elem(&counts, &id); /* another CPU put it first */
	if (c)
		__sync_fetch_and_add(c, 1);
	else
		__sync_fetch_and_add(&lost_counts, 1); /* the count map is full */
	return 0;
}
