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

/* tp_btf programs: the kernel's structures read with plain loads */
#define IOT_TP_BTF
#include "addr.bpf.h"
#include "log2.bpf.h"
#include "shims.bpf.h"
#include "top_abi.h"

char LICENSE[] SEC("license") = "GPL";

/* what a new entry starts from: too big for the stack, never written */
const volatile struct top_stats zero_stats;

/* The requests in flight: a 4-way set-associative array keyed by the
 * request's address, as record's in-flight table (a hash map's update and
 * delete were most of a request's cost): claimed with a compare-and-swap,
 * found with four compares, freed with a store. */
#define PENDING_SETS 16384u

struct pending {
	__u64 key; /* first (addr.bpf.h): the request's address, 0: free */
	__u64 d_ns;
	__u32 tgid, disk;
	__u64 bytes;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PENDING_SETS *ADDR_WAYS);
	__type(key, __u32);
	__type(value, struct pending);
} pending SEC(".maps");

/* The last process and disk this CPU found an entry for: their entries are
 * never deleted, so the next request of the same ones needs no lookup. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct top_proc_key);
} proc_known SEC(".maps");

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

static __always_inline struct pending *pending_find(__u64 key)
{
	return addr_find(&pending, PENDING_SETS, key);
}

static __always_inline struct pending *pending_claim(__u64 key)
{
	return addr_claim(&pending, PENDING_SETS, key);
}

/* the process's entry on the disk, made at its first request */
static __always_inline void proc_entry(__u32 tgid, __u32 disk)
{
	struct top_proc_key pk = {.tgid = tgid, .disk = disk}, *known;
	__u32 zero = 0;
	struct top_stats *s;

	known = bpf_map_lookup_elem(&proc_known, &zero);
	if (known && known->tgid == tgid && known->disk == disk)
		return;
	if (!bpf_map_lookup_elem(&procs, &pk)) {
		bpf_map_update_elem(&procs, &pk, (void *)&zero_stats, BPF_NOEXIST);
		s = bpf_map_lookup_elem(&procs, &pk);
		if (!s)
			return; /* full: its completions are counted lost */
		bpf_get_current_comm(s->comm, sizeof(s->comm));
	}
	if (known)
		*known = pk;
}

/* a request seen for the first time, in the task that submits or issues
 * it; key: its address, a number */
static __always_inline struct pending *track(struct request *rq, __u64 key)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32, disk = rq_devt(rq);
	struct pending *p = pending_find(key);
	struct top_lost *l;

	if (p) { /* its last user's completion was not seen */
		l = lost_of();
		if (l)
			__sync_fetch_and_add(&l->missed, 1);
	} else {
		if (!disk)
			return NULL;
		p = pending_claim(key);
		if (!p) {
			l = lost_of();
			if (l)
				__sync_fetch_and_add(&l->requests_full, 1);
			return NULL;
		}
	}
	p->d_ns = 0;
	p->tgid = tgid;
	p->disk = disk;
	p->bytes = 0;
	proc_entry(tgid, disk);
	return p;
}

TP(block_io_start)
int BPF_PROG(top_io_start, struct request *rq)
{
	__u64 key = addr_of((__u64)rq);

	if (key)
		track(rq, key);
	return 0;
}

TP(block_rq_issue)
int BPF_PROG(top_issue, struct request *rq)
{
	__u64 key = addr_of((__u64)rq);
	struct pending *p;

	if (!key)
		return 0;
	p = pending_find(key);
	if (!p) /* not accounted (no block_io_start): the issuing task */
		p = track(rq, key);
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

TP(block_rq_complete)
int BPF_PROG(top_complete, struct request *rq, int error, unsigned int nr_bytes)
{
	__u64 key = addr_of((__u64)rq), now = bpf_ktime_get_ns(), start, t[TOP_STAGES];
	struct pending *p = key ? pending_find(key) : NULL;
	struct top_proc_key pk;
	bool has[TOP_STAGES];
	struct top_stats *s;
	__u32 op;
	int o;

	if (!p)
		return 0;
	p->bytes += nr_bytes;
	if (nr_bytes < KREAD1(rq, __data_len))
		return 0; /* partly done: the rest is still at the driver */
	start = KREAD1(rq, start_time_ns);
	has[TOP_DEV] = p->d_ns && now >= p->d_ns;
	has[TOP_SCHED] = has[TOP_DEV] && start && p->d_ns >= start;
	has[TOP_AWAIT] = start && now >= start;
	t[TOP_DEV] = now - p->d_ns;
	t[TOP_SCHED] = p->d_ns - start;
	t[TOP_AWAIT] = now - start;
	op = KREAD1(rq, cmd_flags) & 0xff; /* REQ_OP_MASK */
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
	p->key = 0;
	return 0;
}
