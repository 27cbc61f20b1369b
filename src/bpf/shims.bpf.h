/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-layout shims: how the programs read the kernel, in one place.
 *
 * Layouts: the programs follow the tracepoint arguments of Linux >= 5.11
 * (request-based block tracepoints without a struct request_queue
 * argument) and read bio->bi_bdev->bd_disk and request->q->disk, which
 * later kernels have; iotrail is built and tested on 6.x. Older layouts are
 * not supported: user space counts each tracepoint's arguments in the
 * kernel's BTF (src/record/probe.c) and names a tracepoint whose layout it
 * does not know as not traced, rather than reading it wrong.
 */
#ifndef IOTRAIL_SHIMS_BPF_H
#define IOTRAIL_SHIMS_BPF_H

/*
 * This file is built twice (Makefile): with IOT_TP_BTF the block programs are
 * BTF-typed raw tracepoints (tp_btf) that read kernel structures with plain
 * loads; without it they are untyped raw tracepoints reading through
 * bpf_probe_read_kernel() (BPF_CORE_READ). The first costs about 50 ns less
 * per event (bench/bpf_cost.sh); the second loads where tp_btf cannot.
 * KREADn(p, a, b...) reads p->a->b either way.
 */
#ifdef IOT_TP_BTF
#define TP(name)	   SEC("tp_btf/" #name)
#define KREAD1(p, a)	   ((p)->a)
#define KREAD2(p, a, b)	   ((p)->a->b)
#define KREAD3(p, a, b, c) ((p)->a->b->c)
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym;
/* The unsigned long at kernel address p as a number, for a value that is
 * no typed pointer (a field with flag bits, a slot of a pointer array) or
 * one to do arithmetic on: a plain load through memory of no type (cast to
 * type 0; a fault reads 0), where bpf_probe_read_kernel() is a helper call.
 * The three of a bio's Q were a third of its program's time. A kernel
 * whose bpf_rdonly_cast() refuses type 0 refuses this build: the raw_tp
 * one loads. */
#define KNUM(p) (*(const unsigned long *)bpf_rdonly_cast((const void *)(p), 0))
#else
#define TP(name)	   SEC("raw_tp/" #name)
#define KREAD1(p, a)	   BPF_CORE_READ(p, a)
#define KREAD2(p, a, b)	   BPF_CORE_READ(p, a, b)
#define KREAD3(p, a, b, c) BPF_CORE_READ(p, a, b, c)
static __always_inline unsigned long knum(const void *p)
{
	unsigned long v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), p);
	return v;
}
#define KNUM(p)		   knum((const void *)(p))
#endif

/* a disk's dev_t in the kernel's encoding (major << 20 | minor) */
static __always_inline __u32 disk_devt(struct gendisk *disk)
{
	if (!disk)
		return 0;
	return ((__u32)KREAD1(disk, major) << 20) | (__u32)KREAD1(disk, first_minor);
}

/* the disk a bio is queued to, and a request's */
static __always_inline __u32 bio_devt(struct bio *bio)
{
	return disk_devt(KREAD2(bio, bi_bdev, bd_disk));
}

static __always_inline __u32 rq_devt(struct request *rq)
{
	return disk_devt(KREAD2(rq, q, disk));
}

/* The cgroup a bio is charged to, as the kernel's blk-cgroup charges it:
 * bio->bi_blkg -> blkcg -> cgroup -> kernfs node id (the low 32 bits of
 * the cgroup's id, the inode of its directory); 0 unknown */
static __always_inline __u32 bio_cgroup(struct bio *bio)
{
	if (bpf_core_field_exists(bio->bi_blkg)) {
		struct blkcg_gq *blkg = KREAD1(bio, bi_blkg);
		struct blkcg *bc = blkg ? KREAD1(blkg, blkcg) : NULL;
		struct cgroup *cg = bc ? KREAD1(bc, css.cgroup) : NULL;
		struct kernfs_node *kn = cg ? KREAD1(cg, kn) : NULL;

		return kn ? (__u32)KREAD1(kn, id) : 0;
	}
	return 0;
}

#endif /* IOTRAIL_SHIMS_BPF_H */
