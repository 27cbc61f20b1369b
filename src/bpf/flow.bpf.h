/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record --flow: only the events of some flows (docs/FLOWS.md, "Recording
 * only some flows"). The decision is made once, where a flow starts, and
 * carried as a mask of definitions (bit i: cfg_flows[i]):
 *
 *   sys_enter      the call matches: mask on the task until its sys_exit
 *   page fault     the fault matches: mask on the task, for its reads of
 *                  that file, until its next fault
 *   io_uring       the submission matches: mask on the io_kiocb
 *   bio_queue      the task's mask (a bio queued in a flow's call), the
 *                  io_kiocb's (an io-wq worker), the backing file's pages
 *                  (a loop device's worker, below a flow's request), or a
 *                  bio start that matches (writeback, journal, ...)
 *   split          the parent's mask, copied
 *   I, D           the request's: its own, or its bios' (bi_next), ORed:
 *                  a request carries every flow merged into it
 *   D on a loop    the request's mask onto the backing file's pages
 *   C              the request's, then forgotten (with --accounting,
 *                  handed to its block_io_done, later in the same call)
 *
 * Events whose object carries no mask are not written. Tables, drops and
 * journal commits are written as always.
 */
#ifndef IOTRAIL_FLOW_BPF_H
#define IOTRAIL_FLOW_BPF_H

const volatile bool cfg_flow = false;
const volatile __u32 cfg_nr_flows = 0;
/* a definition starts at page faults: else faults cost no map work */
const volatile bool cfg_flow_faults = false;
/* --accounting too: a completion hands its mask on to block_io_done */
const volatile bool cfg_flow_done = false;
const volatile struct iot_flow_def cfg_flows[IOT_FLOW_MAX] = {};
/* the loop devices, with the backing file's inode and offset */
const volatile __u32 cfg_nr_flow_loops = 0;
const volatile __u32 cfg_flow_loop_dev[IOT_FLOW_MAX_LOOPS] = {};
const volatile __u64 cfg_flow_loop_ino[IOT_FLOW_MAX_LOOPS] = {};
const volatile __u64 cfg_flow_loop_off[IOT_FLOW_MAX_LOOPS] = {};

/* the longest run of pages a loop request hands on (1 MiB) */
#define IOT_FLOW_PAGES 256u
/* bios followed on a request's chain (as --speculate does) */
#define IOT_FLOW_CHAIN 32u

/* tid -> mask, from a matching system call's enter to its exit */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u32);
} flow_task SEC(".maps");

/* a bio, request or io_kiocb address -> mask */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, __u32);
} flow_objs SEC(".maps");

/* tid -> the file and mask of its last page fault that started a flow: the
 * task's reads of that file outside a flow's call are the fault's (as the
 * join ties them: src/join/join.c, why_in_syscall) */
struct flow_fault {
	__u64 ino;
	__u32 mask;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct flow_fault);
} flow_faults SEC(".maps");

struct flow_page {
	__u64 ino, index;
};

/* a loop's backing file page -> the masks of the requests mapped onto it */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, struct flow_page);
	__type(value, __u32);
} flow_pages SEC(".maps");

/* A request's mask from its last C to its block_io_done, which comes later
 * in the same call on the same CPU, when the request's entry is forgotten
 * and its bios are gone. A few deep: another device's completion may
 * interrupt between the two (a nested one deeper than this loses its E).
 * Every request's C puts its mask, 0 outside the flows: a request with no
 * block_io_done (a flush's) leaves its entry behind, and the next request
 * at its address must not take it. */
#define FLOW_DONE_DEPTH 4u
struct flow_done {
	__u64 rq[FLOW_DONE_DEPTH];
	__u32 mask[FLOW_DONE_DEPTH];
	__u32 next;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct flow_done);
} flow_done SEC(".maps");

static __always_inline void flow_done_put(__u64 rq, __u32 mask)
{
	__u32 k = 0, i = FLOW_DONE_DEPTH;
	struct flow_done *d = bpf_map_lookup_elem(&flow_done, &k);

	if (!d)
		return;
	for (__u32 w = 0; w < FLOW_DONE_DEPTH; w++)
		if (d->rq[w] == rq)
			i = w;
	if (i >= FLOW_DONE_DEPTH)
		i = d->next++ % FLOW_DONE_DEPTH;
	d->rq[i] = rq;
	d->mask[i] = mask;
}

static __always_inline __u32 flow_done_take(__u64 rq)
{
	__u32 k = 0;
	struct flow_done *d = bpf_map_lookup_elem(&flow_done, &k);

	for (__u32 i = 0; d && i < FLOW_DONE_DEPTH; i++) {
		if (d->rq[i] == rq) {
			d->rq[i] = 0;
			return d->mask[i];
		}
	}
	return 0;
}

/* Per loop device: its flows' requests in flight (issued, not completed),
 * and the union of their masks since it was last idle. */
struct flow_loop {
	__u64 inflight, mask; /* 64 bits: the atomics' width */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, IOT_FLOW_MAX_LOOPS);
	__type(key, __u32);
	__type(value, struct flow_loop);
} flow_loops SEC(".maps");

static __always_inline int flow_loop_index(__u32 dev)
{
	for (__u32 i = 0; i < IOT_FLOW_MAX_LOOPS && i < cfg_nr_flow_loops; i++)
		if (cfg_flow_loop_dev[i] == dev)
			return (int)i;
	return -1;
}

/* The io (blkio) cgroup of the current task, as bio_cgroup() names a bio's. */
static __always_inline __u64 task_blkcg(void)
{
	struct task_struct *t = bpf_get_current_task_btf();
	int id = bpf_core_enum_value(enum cgroup_subsys_id, io_cgrp_id);
	struct cgroup_subsys_state *css;

	if (id < 0 || id >= CGROUP_SUBSYS_COUNT)
		return 0;
	css = BPF_CORE_READ(t, cgroups, subsys[id]);
	return css ? (__u32)BPF_CORE_READ(css, cgroup, kn, id) : 0;
}

/* The definitions that start a flow here: a mask. off ~0: not known (it
 * then passes only definitions without an offset range). */
static __always_inline __u32 flow_match(__u32 start, __u32 op, __u32 dev, __u64 ino,
					__u64 size, __u64 off, __u64 cgroup)
{
	__u32 pid = bpf_get_current_pid_tgid() >> 32, m = 0;
	char comm[16] = {};
	bool have_comm = false;

	for (__u32 i = 0; i < IOT_FLOW_MAX && i < cfg_nr_flows; i++) {
		const volatile struct iot_flow_def *d = &cfg_flows[i];
		bool same = true;

		if (!(d->starts & start) || (d->ops && !(d->ops & op)) ||
		    (d->tgid && d->tgid != pid) || (d->dev && d->dev != dev) ||
		    (d->ino && d->ino != ino) || size < d->size_min ||
		    size > d->size_max || off < d->off_min ||
		    (off > d->off_max && off != ~0ull) ||
		    (off == ~0ull && (d->off_min || d->off_max != ~0ull)) ||
		    (d->cgroup && d->cgroup != cgroup))
			continue;
		if (d->comm[0]) {
			if (!have_comm) {
				bpf_get_current_comm(comm, sizeof(comm));
				have_comm = true;
			}
			for (int k = 0; k < 16; k++) {
				if (d->comm[k] != comm[k]) {
					same = false;
					break;
				}
				if (!comm[k])
					break;
			}
		}
		if (same)
			m |= 1u << i;
	}
	return m;
}

static __always_inline __u32 flow_of(__u64 addr)
{
	__u32 *m = addr ? bpf_map_lookup_elem(&flow_objs, &addr) : NULL;

	return m ? *m : 0;
}

static __always_inline void flow_set(__u64 addr, __u32 mask)
{
	if (addr && mask)
		bpf_map_update_elem(&flow_objs, &addr, &mask, BPF_ANY);
}

static __always_inline __u32 flow_task_mask(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u32 *m = bpf_map_lookup_elem(&flow_task, &tid);

	return m ? *m : 0;
}

/* A system call starts a flow when a definition matches: kind is 0..
 * (syscall_kind): reads, writes, syncs. */
static __always_inline bool flow_sys_enter(__u32 op, __u32 dev, __u64 ino, __u64 size,
					   __u64 pos)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u32 m =
	    flow_match(IOT_FLOW_START_SYSCALL, op, dev, ino, size, pos, task_blkcg());

	if (!m)
		return false;
	bpf_map_update_elem(&flow_task, &tid, &m, BPF_ANY);
	return true;
}

static __always_inline bool flow_sys_exit(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();

	return bpf_map_delete_elem(&flow_task, &tid) == 0;
}

/* A page fault on a file's page: whether it starts a flow (its reads then
 * carry the mask until the task's next fault). */
static __always_inline bool flow_fault(__u32 dev, __u64 ino, __u64 index)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct flow_fault f = {ino, 0};

	if (!cfg_flow_faults)
		return false;
	f.mask = flow_match(IOT_FLOW_START_FAULT, IOT_FLOW_OP_READ, dev, ino, 4096,
			    index * 4096, task_blkcg());
	if (!f.mask) {
		bpf_map_delete_elem(&flow_faults, &tid);
		return false;
	}
	bpf_map_update_elem(&flow_faults, &tid, &f, BPF_ANY);
	return true;
}

/* The mask of the task's last flow-starting fault, for a read of its file */
static __always_inline __u32 flow_fault_mask(__u32 opf, __u32 kind, __u64 ino)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct flow_fault *f;

	if (!cfg_flow_faults || kind != IOT_HOST_REG ||
	    (opf & IOT_OP_MASK) != IOT_OP_READ)
		return 0;
	f = bpf_map_lookup_elem(&flow_faults, &tid);
	return f && f->ino == ino ? f->mask : 0;
}

/* The pages of the backing file a loop request maps onto carry its mask:
 * the loop worker's bios on them inherit it. */
static __always_inline void flow_loop_issue(__u32 dev, __u64 sector, __u32 nr, __u32 mask)
{
	int i = flow_loop_index(dev);
	__u32 key = (__u32)i;
	struct flow_loop *fl;
	struct flow_page k;
	__u64 first, last;

	if (i < 0 || i >= (int)IOT_FLOW_MAX_LOOPS)
		return;
	fl = bpf_map_lookup_elem(&flow_loops, &key);
	if (fl) {
		__sync_fetch_and_add(&fl->inflight, 1);
		__sync_fetch_and_or(&fl->mask, mask);
	}
	k.ino = cfg_flow_loop_ino[i];
	first = (cfg_flow_loop_off[i] + sector * 512) / 4096;
	last = (cfg_flow_loop_off[i] + (sector + (nr ?: 1)) * 512 - 1) / 4096;
	for (__u32 p = 0; p < IOT_FLOW_PAGES && first + p <= last; p++) {
		__u32 *old, v = mask;

		k.index = first + p;
		old = bpf_map_lookup_elem(&flow_pages, &k);
		if (old)
			v |= *old;
		bpf_map_update_elem(&flow_pages, &k, &v, BPF_ANY);
	}
}

/* A flow's request on a loop device completes. */
static __always_inline void flow_loop_complete(__u32 dev)
{
	int i = flow_loop_index(dev);
	__u32 key = (__u32)i;
	struct flow_loop *fl;

	if (i < 0)
		return;
	fl = bpf_map_lookup_elem(&flow_loops, &key);
	if (fl && fl->inflight && __sync_fetch_and_add(&fl->inflight, -1) == 1)
		fl->mask = 0;
}

/* The masks of the backing-file pages a bio reads or writes: its first
 * page's file and index (page_host), the rest following it. */
static __always_inline __u32 flow_bio_pages(struct bio *bio, __u32 kind, __u64 ino,
					    __u64 index)
{
	struct flow_page k = {ino, index};
	__u32 m = 0, n;

	if (!cfg_nr_flow_loops || kind != IOT_HOST_REG)
		return 0;
	n = (KREAD1(bio, bi_iter.bi_size) + 4095) / 4096;
	for (__u32 p = 0; p < IOT_FLOW_PAGES && p < n; p++) {
		__u32 *v = bpf_map_lookup_elem(&flow_pages, &k);

		if (v)
			m |= *v;
		k.index++;
	}
	if (m || !(KREAD1(bio, bi_opf) &
		   (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_RAHEAD))))
		return m;
	/* read-ahead of a backing file beyond the pages asked for so far,
	 * while flows' requests are in flight on its loop: kept for them (by
	 * timing; the report links by page only) */
	for (__u32 i = 0; i < IOT_FLOW_MAX_LOOPS && i < cfg_nr_flow_loops; i++) {
		__u32 key = i;
		struct flow_loop *fl;

		if (cfg_flow_loop_ino[i] != k.ino)
			continue;
		fl = bpf_map_lookup_elem(&flow_loops, &key);
		if (fl && fl->inflight)
			m |= (__u32)fl->mask;
	}
	return m;
}

/* The start kind of a bio that no flow's call or request brought here:
 * its cause, as BIO_INFO names it (bio_cause). */
static __always_inline __u32 flow_bio_start(struct bio *bio, __u32 opf, __u32 kind)
{
	__u32 reason;

	switch (bio_cause(bio, opf, kind, bpf_get_current_task_btf(), &reason)) {
	case IOT_CAUSE_FLUSH:
		return IOT_FLOW_START_FLUSH;
	case IOT_CAUSE_JOURNAL:
		return IOT_FLOW_START_JOURNAL;
	case IOT_CAUSE_WRITEBACK:
		return IOT_FLOW_START_WRITEBACK;
	case IOT_CAUSE_READAHEAD:
		return IOT_FLOW_START_READAHEAD;
	default:
		return IOT_FLOW_START_OTHER;
	}
}

static __always_inline __u32 flow_op(__u32 opf)
{
	__u32 op = opf & IOT_OP_MASK;

	return op == IOT_OP_READ    ? IOT_FLOW_OP_READ
	       : op == IOT_OP_WRITE ? IOT_FLOW_OP_WRITE
	       : op == IOT_OP_FLUSH ? IOT_FLOW_OP_SYNC
				    : 0;
}

/* At Q: the bio's mask (0: none of the flows), remembered under it. */
static __always_inline __u32 flow_bio_queue(struct bio *bio)
{
	__u32 opf = KREAD1(bio, bi_opf), m = flow_task_mask(), kind = IOT_HOST_NONE;
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 ino = 0, index = 0;

	if (KREAD1(bio, bi_vcnt)) {
		struct bio_vec *bv = KREAD1(bio, bi_io_vec);
		unsigned long page = 0;

		if (bv)
			page = KNUM(&bv->bv_page);
		if (page)
			kind = page_host(page, &ino, &index);
	}
	if (task->flags & IOT_PF_IO_WORKER)
		m |= flow_of(io_wq_req(task));
	m |= flow_bio_pages(bio, kind, ino, index);
	if (!m)
		m = flow_fault_mask(opf, kind, ino);
	if (!m)
		m = flow_match(flow_bio_start(bio, opf, kind), flow_op(opf),
			       bio_devt(bio), ino, KREAD1(bio, bi_iter.bi_size),
			       KREAD1(bio, bi_iter.bi_sector) * 512, bio_cgroup(bio));
	if (m)
		flow_set((__u64)bio, m);
	else
		bpf_map_delete_elem(&flow_objs, &bio); /* an address used before */
	return m;
}

/* A request's mask: its own, else its bios' on the chain, ORed. */
static __always_inline __u32 flow_rq(struct request *rq, bool refresh)
{
	__u32 m = refresh ? 0 : flow_of((__u64)rq);
	struct bio *b;

	if (m)
		return m;
	b = KREAD1(rq, bio);
	for (__u32 i = 0; i < IOT_FLOW_CHAIN && b; i++) {
		m |= flow_of((__u64)b);
		b = KREAD1(b, bi_next);
	}
	if (m)
		flow_set((__u64)rq, m);
	else if (refresh)
		bpf_map_delete_elem(&flow_objs, &rq); /* an address used before */
	return m;
}

#endif /* IOTRAIL_FLOW_BPF_H */
