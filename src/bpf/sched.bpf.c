// SPDX-License-Identifier: GPL-2.0
/*
 * iotrail sched: what the scheduler did to chosen tasks, counted in the
 * kernel (`iotrail sched`, src/cli/cmd_sched.c): per task the voluntary and
 * involuntary switches, migrations, time on a CPU and run-queue latency
 * (wakeup to running, a log2 histogram); per CPU the time it ran any task
 * and its context switches.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "log2.bpf.h"
#include "sched_abi.h"

char LICENSE[] SEC("license") = "GPL";

const volatile bool cfg_all = false;   /* every task; else the tgids in "pids" */
const volatile char cfg_comm[16] = {}; /* a name to choose by, "" none */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32); /* tgid */
	__type(value, __u8);
} pids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32); /* tid */
	__type(value, struct sched_task);
} tasks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);   /* tid */
	__type(value, __u64); /* when it was woken, or put back runnable */
} woken SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sched_cpu);
} cpus SEC(".maps");

static __always_inline bool chosen(struct task_struct *p)
{
	__u32 tgid = BPF_CORE_READ(p, tgid);

	if (!BPF_CORE_READ(p, pid))
		return false; /* the idle task */
	if (cfg_all)
		return true;
	if (bpf_map_lookup_elem(&pids, &tgid))
		return true;
	if (cfg_comm[0]) {
		char comm[16];

		BPF_CORE_READ_STR_INTO(&comm, p, comm);
		for (int i = 0; i < 16; i++) {
			if (comm[i] != cfg_comm[i])
				return false;
			if (!comm[i])
				break;
		}
		return true;
	}
	return false;
}

static __always_inline struct sched_task *task_of(struct task_struct *p)
{
	__u32 tid = BPF_CORE_READ(p, pid);
	struct sched_task *t = bpf_map_lookup_elem(&tasks, &tid), zero = {};

	if (t)
		return t;
	zero.tgid = BPF_CORE_READ(p, tgid);
	BPF_CORE_READ_STR_INTO(&zero.comm, p, comm);
	bpf_map_update_elem(&tasks, &tid, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&tasks, &tid);
}

static __always_inline void mark_woken(struct task_struct *p)
{
	__u32 tid = BPF_CORE_READ(p, pid);
	__u64 now = bpf_ktime_get_ns();

	if (chosen(p))
		bpf_map_update_elem(&woken, &tid, &now, BPF_ANY);
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(sched_wakeup, struct task_struct *p)
{
	mark_woken(p);
	return 0;
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(sched_wakeup_new, struct task_struct *p)
{
	mark_woken(p);
	return 0;
}

static __always_inline __u32 log2_slot(__u64 v)
{
	__u32 s = log2_u64(v);

	return s < SCHED_HIST ? s : SCHED_HIST - 1;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(sched_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	__u64 now = bpf_ktime_get_ns();
	__u32 zero = 0, tid;
	struct sched_cpu *c = bpf_map_lookup_elem(&cpus, &zero);
	struct sched_task *t;
	__u64 *w;

	if (c) {
		/* busy: from a switch to a task until the switch away */
		if (c->last_ns && c->last_busy)
			c->busy_ns += now - c->last_ns;
		c->last_ns = now;
		c->last_busy = BPF_CORE_READ(next, pid) != 0;
		c->switches++;
	}
	if (chosen(prev) && (t = task_of(prev))) {
		if (t->on_ns) {
			t->run_ns += now - t->on_ns;
			t->on_ns = 0;
		}
		/* as the kernel counts nivcsw and nvcsw: preempted, or
		 * leaving while still runnable, is involuntary */
		if (preempt || !prev_state) {
			t->involuntary++;
			tid = BPF_CORE_READ(prev, pid);
			bpf_map_update_elem(&woken, &tid, &now, BPF_ANY);
		} else {
			t->voluntary++;
		}
	}
	if (chosen(next) && (t = task_of(next))) {
		t->on_ns = now;
		BPF_CORE_READ_STR_INTO(&t->comm, next, comm); /* after an exec */
		tid = BPF_CORE_READ(next, pid);
		w = bpf_map_lookup_elem(&woken, &tid);
		if (w) {
			__u64 lat = now > *w ? now - *w : 0;

			t->runq_hist[log2_slot(lat / 1000)]++;
			t->runq_sum_ns += lat;
			t->runq_count++;
			if (lat > t->runq_max_ns)
				t->runq_max_ns = lat;
			bpf_map_delete_elem(&woken, &tid);
		}
	}
	return 0;
}

SEC("tp_btf/sched_migrate_task")
int BPF_PROG(sched_migrate_task, struct task_struct *p, int dest_cpu)
{
	struct sched_task *t;

	if (chosen(p) && (t = task_of(p)))
		t->migrations++;
	return 0;
}

/* children of chosen processes are chosen */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(sched_process_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = BPF_CORE_READ(parent, tgid), ctgid = BPF_CORE_READ(child, tgid);
	__u8 one = 1;

	if (!cfg_all && ptgid != ctgid && bpf_map_lookup_elem(&pids, &ptgid))
		bpf_map_update_elem(&pids, &ctgid, &one, BPF_ANY);
	return 0;
}
