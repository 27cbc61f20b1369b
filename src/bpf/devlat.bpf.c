// SPDX-License-Identifier: GPL-2.0
/*
 * iotrail stat --trace: per disk and partition, the time each request spent
 * before its issue to the driver (from the kernel's own rq->start_time_ns,
 * the stamp diskstats' await starts from) and at the driver and device
 * (issue to completion), and the number of requests at the driver over time,
 * counted in the kernel without a record per event (src/record/devlat.c).
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

/* tp_btf programs: the kernel's structures read with plain loads */
#define IOT_TP_BTF
#include "addr.bpf.h"
#include "devlat_abi.h"
#include "shims.bpf.h"

char LICENSE[] SEC("license") = "GPL";

__u64 epoch; /* the sampling interval, advanced by user space */

/* The requests at the driver: a 4-way set-associative array keyed by the
 * request's address, as top's (src/bpf/top.bpf.c): no hash map update and
 * delete per request. */
#define ISSUED_SETS 16384u

struct issued {
	__u64 key; /* first (addr.bpf.h): the request's address, 0: free */
	__u64 d_ns, start_ns;
	__u32 disk, part;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, ISSUED_SETS *ADDR_WAYS);
	__type(key, __u32);
	__type(value, struct issued);
} issued SEC(".maps");

static __always_inline struct issued *issued_find(__u64 key)
{
	return addr_find(&issued, ISSUED_SETS, key);
}

static __always_inline struct issued *issued_claim(__u64 key)
{
	return addr_claim(&issued, ISSUED_SETS, key);
}

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32); /* dev_t, major << 20 | minor */
	__type(value, struct devlat_dev);
} devs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct devlat_lost);
} lost SEC(".maps");

static __always_inline struct devlat_dev *dev_of(__u32 dev)
{
	struct devlat_dev *d = bpf_map_lookup_elem(&devs, &dev), zero = {};

	if (d)
		return d;
	bpf_map_update_elem(&devs, &dev, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&devs, &dev);
}

/* a request reached the driver: one more in flight */
static __always_inline void up(__u32 dev, __u64 now)
{
	struct devlat_dev *d = dev_of(dev);
	__u64 n;

	if (!d)
		return;
	n = __sync_fetch_and_add(&d->inflight, 1) + 1;
	if (n == 1)
		__sync_fetch_and_add(&d->busy_acc, -now);
	/* racy by design: a peak, not a count */
	if (d->peak_epoch != epoch) {
		d->peak_epoch = epoch;
		d->peak = n;
	} else if (n > d->peak) {
		d->peak = n;
	}
}

/* a request left the driver: one fewer in flight */
static __always_inline void leave(struct devlat_dev *d, __u64 now)
{
	if (__sync_fetch_and_add(&d->inflight, -1) == 1)
		__sync_fetch_and_add(&d->busy_acc, now);
}

/* a request done: grp its kind, or < 0 none (requeued) */
static __always_inline struct devlat_dev *count(__u32 dev, int grp, __u64 g2d, __u64 d2c,
						bool has_start)
{
	struct devlat_dev *d = bpf_map_lookup_elem(&devs, &dev);

	if (!d || grp < 0 || grp >= DEVLAT_GROUPS)
		return d;
	__sync_fetch_and_add(&d->ios[grp], 1);
	__sync_fetch_and_add(&d->d2c_ns[grp], d2c);
	if (has_start)
		__sync_fetch_and_add(&d->g2d_ns[grp], g2d);
	else
		__sync_fetch_and_add(&d->no_start, 1);
	return d;
}

/* a request left dev's driver, done (grp >= 0) or requeued (grp < 0) */
static __always_inline void down(__u32 dev, __u64 now, int grp, __u64 g2d, __u64 d2c,
				 bool has_start)
{
	struct devlat_dev *d = count(dev, grp, g2d, d2c, has_start);

	if (d)
		leave(d, now);
}

/* an entry whose request completed unseen: it leaves the driver now (its
 * time there, and busy time, counted too long) and is counted missed */
static __always_inline void stale(struct issued *v, __u64 now)
{
	struct devlat_dev *d = bpf_map_lookup_elem(&devs, &v->disk);

	if (d) {
		__sync_fetch_and_add(&d->missed, 1);
		leave(d, now);
	}
	if (v->part != v->disk && (d = bpf_map_lookup_elem(&devs, &v->part))) {
		__sync_fetch_and_add(&d->missed, 1);
		leave(d, now);
	}
}

static __always_inline __u32 part_devt(struct request *rq, __u32 disk)
{
	struct block_device *part = KREAD1(rq, part);
	__u32 dev;

	if (!part)
		return disk;
	dev = KREAD1(part, bd_dev); /* the kernel's encoding, as disk */
	return dev ? dev : disk;
}

TP(block_rq_issue)
int BPF_PROG(devlat_issue, struct request *rq)
{
	__u64 key = addr_of((__u64)rq), now = bpf_ktime_get_ns();
	__u32 disk = rq_devt(rq), zero = 0;
	struct issued *v;

	if (!disk || !key)
		return 0;
	v = issued_find(key);
	if (v) { /* issued again, its completion not seen */
		stale(v, now);
	} else if (!(v = issued_claim(key))) {
		struct devlat_lost *l = bpf_map_lookup_elem(&lost, &zero);

		if (l)
			__sync_fetch_and_add(&l->table_full, 1);
		return 0;
	}
	v->d_ns = now;
	v->start_ns = KREAD1(rq, start_time_ns);
	v->disk = disk;
	v->part = part_devt(rq, disk);
	up(v->disk, now);
	if (v->part != v->disk)
		up(v->part, now);
	return 0;
}

/* the kernel's op_stat_group() */
static __always_inline int group_of(__u32 cmd_flags)
{
	__u32 op = cmd_flags & 0xff; /* REQ_OP_MASK */

	if (op == 3) /* REQ_OP_DISCARD */
		return DEVLAT_DISCARD;
	if (op == 2) /* REQ_OP_FLUSH */
		return DEVLAT_FLUSH;
	return op & 1 ? DEVLAT_WRITE : DEVLAT_READ;
}

static __always_inline void end(struct request *rq, bool done)
{
	__u64 key = addr_of((__u64)rq), now = bpf_ktime_get_ns(), g2d = 0;
	struct issued *v = key ? issued_find(key) : NULL, never;
	__u64 start = KREAD1(rq, start_time_ns);
	bool has_start;
	int grp;

	if (v && start && v->start_ns != start) {
		/* the entry is an earlier request's in the same struct
		 * request, whose completion was not seen; this one was not
		 * issued (an empty PREFLUSH write) */
		stale(v, now);
		v->key = 0;
		v = NULL;
	}
	if (!v) {
		/* Completed without an issue we saw: a request the flush
		 * machinery ended itself (an empty PREFLUSH write: diskstats
		 * counts it as a write), or one issued before we were
		 * attached. All its time was before the driver. */
		never.disk = rq_devt(rq);
		if (!done || !never.disk)
			return;
		never.d_ns = now;
		never.start_ns = start;
		never.part = part_devt(rq, never.disk);
		v = &never;
		if (!dev_of(v->disk) || (v->part != v->disk && !dev_of(v->part)))
			return;
	}
	has_start = v->start_ns && v->start_ns <= v->d_ns;
	if (has_start)
		g2d = v->d_ns - v->start_ns;
	/* requeued: not at the driver any more, and not done */
	grp = done ? group_of(KREAD1(rq, cmd_flags)) : -1;
	if (v == &never) {
		count(v->disk, grp, g2d, 0, has_start);
		if (v->part != v->disk)
			count(v->part, grp, g2d, 0, has_start);
		return;
	}
	down(v->disk, now, grp, g2d, now - v->d_ns, has_start);
	if (v->part != v->disk)
		down(v->part, now, grp, g2d, now - v->d_ns, has_start);
	v->key = 0;
}

TP(block_rq_complete)
int BPF_PROG(devlat_complete, struct request *rq, int error, unsigned int nr_bytes)
{
	/* a partial completion leaves the request at the driver */
	if (nr_bytes < KREAD1(rq, __data_len))
		return 0;
	end(rq, true);
	return 0;
}

TP(block_rq_requeue)
int BPF_PROG(devlat_requeue, struct request *rq)
{
	end(rq, false);
	return 0;
}
