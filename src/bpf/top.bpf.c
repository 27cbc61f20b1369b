// SPDX-License-Identifier: GPL-2.0
/*
 * iotrail top: per process and per disk, requests, bytes and the stages'
 * log2 histograms, counted in the kernel without a record per event
 * (src/record/top.c reads them every interval). The process is the one that
 * submitted the request (block_io_start runs in its context; where the
 * kernel did not account the request, the task that issued it).
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "log2.bpf.h"
#include "shims.bpf.h"
#include "top_abi.h"

char LICENSE[] SEC("license") = "GPL";

/* what a new entry starts from: too big for the stack, never written */
const volatile struct top_stats zero_stats;

struct pending {
	__u64 d_ns;
	__u32 tgid, disk;
	__u64 bytes;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64); /* struct request * */
	__type(value, struct pending);
} pending SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct top_proc_key);
	__type(value, struct top_stats);
} procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u32); /* disk dev_t, major << 20 | minor */
	__type(value, struct top_stats);
} disks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct top_lost);
} lost SEC(".maps");

static __always_inline struct top_lost *lost_of(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&lost, &zero);
}

/* a request seen for the first time, in the task that submits or issues it */
static __always_inline struct pending *track(struct request *rq)
{
	__u64 key = (__u64)rq, id = bpf_get_current_pid_tgid();
	struct pending v = {.tgid = id >> 32, .disk = rq_devt(rq)};
	struct pending *p = bpf_map_lookup_elem(&pending, &key);
	struct top_proc_key pk;
	struct top_lost *l = lost_of();

	if (p) { /* its last user's completion was not seen */
		if (l)
			__sync_fetch_and_add(&l->missed, 1);
		*p = v;
		return p;
	}
	if (!v.disk)
		return NULL;
	if (bpf_map_update_elem(&pending, &key, &v, BPF_NOEXIST)) {
		if (l)
			__sync_fetch_and_add(&l->requests_full, 1);
		return NULL;
	}
	pk.tgid = v.tgid;
	pk.disk = v.disk;
	if (!bpf_map_lookup_elem(&procs, &pk)) {
		struct top_stats *s;

		bpf_map_update_elem(&procs, &pk, (void *)&zero_stats, BPF_NOEXIST);
		s = bpf_map_lookup_elem(&procs, &pk);
		if (s)
			bpf_get_current_comm(s->comm, sizeof(s->comm));
	}
	return bpf_map_lookup_elem(&pending, &key);
}

SEC("tp_btf/block_io_start")
int BPF_PROG(top_io_start, struct request *rq)
{
	track(rq);
	return 0;
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(top_issue, struct request *rq)
{
	__u64 key = (__u64)rq;
	struct pending *p = bpf_map_lookup_elem(&pending, &key);

	if (!p) /* not accounted (no block_io_start): the issuing task */
		p = track(rq);
	if (p)
		p->d_ns = bpf_ktime_get_ns();
	return 0;
}

/* One request into an entry, not under a lock: a bpf_spin_lock around
 * the adds cost a quarter more per completion, for a snapshot that holds
 * each request whole (docs/TOP.md). */
static __always_inline void add(struct top_stats *s, int op, __u64 bytes, const __u64 *t,
				const bool *has)
{
	__sync_fetch_and_add(&s->ios[op], 1);
	__sync_fetch_and_add(&s->bytes[op], bytes);
	for (int k = 0; k < TOP_STAGES; k++) {
		if (!has[k])
			continue;
		__sync_fetch_and_add(&s->sum_ns[k], t[k]);
		__sync_fetch_and_add(&s->hist[k][log2_u64(t[k]) & (TOP_HIST - 1)], 1);
	}
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(top_complete, struct request *rq, int error, unsigned int nr_bytes)
{
	__u64 key = (__u64)rq, now = bpf_ktime_get_ns(), start, t[TOP_STAGES];
	struct pending *p = bpf_map_lookup_elem(&pending, &key);
	struct top_proc_key pk;
	bool has[TOP_STAGES];
	struct top_stats *s;
	__u32 op;
	int o;

	if (!p)
		return 0;
	p->bytes += nr_bytes;
	if (nr_bytes < BPF_CORE_READ(rq, __data_len))
		return 0; /* partly done: the rest is still at the driver */
	start = BPF_CORE_READ(rq, start_time_ns);
	has[TOP_DEV] = p->d_ns && now >= p->d_ns;
	has[TOP_SCHED] = has[TOP_DEV] && start && p->d_ns >= start;
	has[TOP_AWAIT] = start && now >= start;
	t[TOP_DEV] = now - p->d_ns;
	t[TOP_SCHED] = p->d_ns - start;
	t[TOP_AWAIT] = now - start;
	op = BPF_CORE_READ(rq, cmd_flags) & 0xff; /* REQ_OP_MASK */
	o = op == 0 ? TOP_READ : op == 1 ? TOP_WRITE : TOP_OTHER;
	if ((s = bpf_map_lookup_elem(&disks, &p->disk))) {
		add(s, o, p->bytes, t, has);
	} else {
		bpf_map_update_elem(&disks, &p->disk, (void *)&zero_stats, BPF_NOEXIST);
		if ((s = bpf_map_lookup_elem(&disks, &p->disk)))
			add(s, o, p->bytes, t, has);
	}
	pk.tgid = p->tgid;
	pk.disk = p->disk;
	if ((s = bpf_map_lookup_elem(&procs, &pk))) {
		add(s, o, p->bytes, t, has);
	} else {
		struct top_lost *l = lost_of();

		if (l)
			__sync_fetch_and_add(&l->procs_full, 1);
	}
	bpf_map_delete_elem(&pending, &key);
	return 0;
}
