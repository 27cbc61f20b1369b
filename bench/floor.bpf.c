// SPDX-License-Identifier: GPL-2.0
/*
 * The floor for bench/percall: per traced syscall event, only what any
 * recorder must do: enter the raw tracepoint, take a timestamp and the pid,
 * write 32 bytes into an mmap-able per-CPU array. No filtering beyond the
 * syscall number, no commit protocol, no drop accounting.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

const volatile long cfg_nr = 17; /* pread64 */
/* 0: mmap-able array; 1: BPF ring buffer, no wake-up; 2: BPF ring buffer,
 * wake-up per record; 3: perf buffer (a wake-up per record) */
const volatile int cfg_kind = 0;
#define SLOTS 65536

struct rec32 {
	__u64 ts, pid_tgid, a, b;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct rec32);
	__uint(max_entries, 4 * SLOTS);
} fbuf SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u32);
	__uint(max_entries, 1);
} fpos SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20);
} frb SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} fpb SEC(".maps");

static __always_inline void put(void *ctx, long a)
{
	if (cfg_kind == 1 || cfg_kind == 2) {
		struct rec32 *r = bpf_ringbuf_reserve(&frb, sizeof(*r), 0);

		if (!r)
			return;
		r->ts = bpf_ktime_get_ns();
		r->pid_tgid = bpf_get_current_pid_tgid();
		r->a = a;
		r->b = 0;
		bpf_ringbuf_submit(r, cfg_kind == 1 ? BPF_RB_NO_WAKEUP : 0);
		return;
	}
	if (cfg_kind == 3) {
		struct rec32 r = {bpf_ktime_get_ns(), bpf_get_current_pid_tgid(), a, 0};

		bpf_perf_event_output(ctx, &fpb, BPF_F_CURRENT_CPU, &r, sizeof(r));
		return;
	}
	{
		__u32 zero = 0, cpu = bpf_get_smp_processor_id() & 3, idx;
		__u32 *p = bpf_map_lookup_elem(&fpos, &zero);
		struct rec32 *r;

		if (!p)
			return;
		idx = cpu * SLOTS + ((*p)++ & (SLOTS - 1));
		r = bpf_map_lookup_elem(&fbuf, &idx);
		if (!r)
			return;
		r->ts = bpf_ktime_get_ns();
		r->pid_tgid = bpf_get_current_pid_tgid();
		r->a = a;
		r->b = 0;
	}
}

SEC("tp_btf/sys_enter")
int BPF_PROG(floor_enter, struct pt_regs *regs, long id)
{
	if (id == cfg_nr)
		put(ctx, id);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(floor_exit, struct pt_regs *regs, long ret)
{
	if (regs->orig_ax == cfg_nr)
		put(ctx, ret);
	return 0;
}
