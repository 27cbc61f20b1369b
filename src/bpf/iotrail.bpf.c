// SPDX-License-Identifier: GPL-2.0
/*
 * iotrail's kernel side: raw tracepoint programs for the block layer and the
 * I/O system calls, writing struct iot_rec records into per-CPU buffers
 * (emit.bpf.h). No policy lives here beyond filtering: everything else is
 * decided in user space.
 *
 * Argument layouts differ between kernels. The default programs follow the
 * layouts of Linux >= 5.11 (request and bio tracepoints without the queue
 * argument, commit a54895fa057c "block: remove the request_queue to argument
 * request based tracepoints"); the *_q variants take the older layout with a
 * leading struct request_queue *. User space picks one per tracepoint by
 * counting the arguments of btf_trace_<name> in the kernel's BTF
 * (src/record/probe.c) and records the choice in the trace file.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "emit.bpf.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 cfg_self_tgid = 0;     /* never trace the recorder itself */
const volatile bool cfg_filter_pids = false; /* syscalls: only tgids in "pids" */
const volatile bool cfg_filter_devs = false; /* block: only disks in "devs" */
const volatile bool cfg_summary = false;     /* one record per request */

/* Device filter: disk dev_t -> sector range [start, end) on that disk. */
struct dev_range {
	__u64 start;
	__u64 end;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, struct dev_range);
} devs SEC(".maps");

/* Process filter: tgid -> 1. Children are added by the fork hook below. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u8);
} pids SEC(".maps");

/* --summary: in-flight request state keyed by the first bio, then by the
 * request. LRU so that bios merged away or never completed cannot fill it. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, struct iot_summary);
} inflight SEC(".maps");

/* ---- helpers ---------------------------------------------------------- */

static __always_inline __u32 disk_devt(struct gendisk *disk)
{
	if (!disk)
		return 0;
	return ((__u32)BPF_CORE_READ(disk, major) << 20) |
	       (__u32)BPF_CORE_READ(disk, first_minor);
}

/* Translate the kernel's opf into the stable IOT_OP_* | IOT_F_* encoding.
 * The flag bit positions are CO-RE relocated against the running kernel. */
static __always_inline __u32 iot_opf(__u32 opf)
{
	__u32 f = opf & IOT_OP_MASK;

	if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_SYNC)))
		f |= IOT_F_SYNC;
	if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_META)))
		f |= IOT_F_META;
	if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_FUA)))
		f |= IOT_F_FUA;
	if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_PREFLUSH)))
		f |= IOT_F_PREFLUSH;
	if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_RAHEAD)))
		f |= IOT_F_RAHEAD;
	return f;
}

static __always_inline bool dev_wanted(__u32 dev, __u64 sector)
{
	struct dev_range *r;

	if (!cfg_filter_devs)
		return true;
	r = bpf_map_lookup_elem(&devs, &dev);
	return r && sector >= r->start && sector < r->end;
}

static __always_inline struct iot_rec *begin(__u16 type, __u64 *seq)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct iot_rec *r = iot_reserve(cpu, seq);
	__u64 pt;

	if (!r)
		return NULL;
	pt = bpf_get_current_pid_tgid();
	r->ts_ns = bpf_ktime_get_ns();
	r->pid = pt >> 32;
	r->tid = (__u32)pt;
	r->type = type;
	r->cpu = cpu;
	return r;
}

/* ---- block layer: bio events --------------------------------------------- */

static __always_inline int emit_bio(__u16 type, struct bio *bio, __u64 id2)
{
	struct iot_rec *r;
	__u64 seq, sector;
	__u32 dev;

	dev = disk_devt(BPF_CORE_READ(bio, bi_bdev, bd_disk));
	sector = BPF_CORE_READ(bio, bi_iter.bi_sector);
	if (!dev_wanted(dev, sector))
		return 0;
	r = begin(type, &seq);
	if (!r)
		return 0;
	r->id = (__u64)bio;
	r->id2 = id2;
	r->sector = sector;
	r->nr = BPF_CORE_READ(bio, bi_iter.bi_size) >> 9;
	r->dev = dev;
	r->flags = iot_opf(BPF_CORE_READ(bio, bi_opf));
	iot_commit(r, seq);
	return 0;
}

static __always_inline int emit_rq(__u16 type, struct request *rq, __u64 id2,
				   __u32 nr)
{
	struct iot_rec *r;
	__u64 seq, sector;
	__u32 dev;

	dev = disk_devt(BPF_CORE_READ(rq, q, disk));
	sector = BPF_CORE_READ(rq, __sector);
	if (!dev_wanted(dev, sector))
		return 0;
	r = begin(type, &seq);
	if (!r)
		return 0;
	r->id = (__u64)rq;
	r->id2 = id2;
	r->sector = sector;
	r->nr = nr;
	r->dev = dev;
	r->flags = iot_opf(BPF_CORE_READ(rq, cmd_flags));
	iot_commit(r, seq);
	return 0;
}

static __always_inline __u32 rq_sectors(struct request *rq)
{
	return BPF_CORE_READ(rq, __data_len) >> 9;
}

/* ---- --summary: fold the stages of one request into one record ------------ */

static __always_inline void sum_bio_queue(struct bio *bio)
{
	struct iot_summary s = {};
	__u64 key = (__u64)bio;
	__u64 pt = bpf_get_current_pid_tgid();

	s.dev = disk_devt(BPF_CORE_READ(bio, bi_bdev, bd_disk));
	s.sector = BPF_CORE_READ(bio, bi_iter.bi_sector);
	if (!dev_wanted(s.dev, s.sector))
		return;
	s.q_ns = bpf_ktime_get_ns();
	s.tid = (__u32)pt;
	s.nr = BPF_CORE_READ(bio, bi_iter.bi_size) >> 9;
	s.flags = iot_opf(BPF_CORE_READ(bio, bi_opf));
	bpf_map_update_elem(&inflight, &key, &s, BPF_ANY);
}

static __always_inline void sum_stage(__u64 key, int stage)
{
	struct iot_summary *s = bpf_map_lookup_elem(&inflight, &key);
	__u64 d;

	if (!s)
		return;
	d = bpf_ktime_get_ns() - s->q_ns;
	d = d > 0xffffffffull ? 0xffffffffu : d;
	if (stage == 0 && !s->g_delta_ns)
		s->g_delta_ns = d ?: 1;
	else if (stage == 1 && !s->i_delta_ns)
		s->i_delta_ns = d ?: 1;
	else if (stage == 2)
		s->d_delta_ns = d ?: 1;
}

/* First time a request is seen (insert or issue): re-key its state from the
 * first bio to the request, so later front merges cannot lose it. */
static __always_inline void sum_rq_stage(struct request *rq, int stage)
{
	__u64 rkey = (__u64)rq, bkey;
	struct iot_summary *s = bpf_map_lookup_elem(&inflight, &rkey);

	if (!s) {
		bkey = (__u64)BPF_CORE_READ(rq, bio);
		s = bpf_map_lookup_elem(&inflight, &bkey);
		if (!s)
			return;
		bpf_map_update_elem(&inflight, &rkey, s, BPF_ANY);
		bpf_map_delete_elem(&inflight, &bkey);
	}
	sum_stage(rkey, stage);
	if (stage == 2) { /* issue: the request's final size */
		s = bpf_map_lookup_elem(&inflight, &rkey);
		if (s)
			s->nr = rq_sectors(rq);
	}
}

static __always_inline void sum_complete(__u64 key, __u32 nr, int error)
{
	struct iot_summary *s = bpf_map_lookup_elem(&inflight, &key);
	struct iot_summary *r;
	__u64 seq;

	if (!s)
		return;
	/* begin() stamps ts (= c_ns), cpu and type at the shared offsets */
	r = (struct iot_summary *)begin(IOT_EV_SUMMARY, &seq);
	if (r) {
		r->sector = s->sector;
		r->q_ns = s->q_ns;
		r->g_delta_ns = s->g_delta_ns;
		r->i_delta_ns = s->i_delta_ns;
		r->d_delta_ns = s->d_delta_ns;
		r->nr = nr ?: s->nr;
		r->dev = s->dev;
		r->tid = s->tid;
		r->flags = s->flags | (error ? IOT_SUMMARY_F_ERROR : 0);
		iot_commit((struct iot_rec *)r, seq);
	}
	bpf_map_delete_elem(&inflight, &key);
}

/* ---- block tracepoints ----------------------------------------------------- */

SEC("raw_tp/block_bio_queue")
int BPF_PROG(block_bio_queue, struct bio *bio)
{
	if (cfg_summary) {
		sum_bio_queue(bio);
		return 0;
	}
	return emit_bio(IOT_EV_BIO_QUEUE, bio, 0);
}

SEC("raw_tp/block_getrq")
int BPF_PROG(block_getrq, struct bio *bio)
{
	if (cfg_summary) {
		sum_stage((__u64)bio, 0);
		return 0;
	}
	return emit_bio(IOT_EV_GETRQ, bio, 0);
}

SEC("raw_tp/block_getrq")
int BPF_PROG(block_getrq_q, struct request_queue *q, struct bio *bio)
{
	if (cfg_summary) {
		sum_stage((__u64)bio, 0);
		return 0;
	}
	return emit_bio(IOT_EV_GETRQ, bio, 0);
}

SEC("raw_tp/block_bio_backmerge")
int BPF_PROG(block_bio_backmerge, struct bio *bio)
{
	if (cfg_summary) {
		__u64 key = (__u64)bio;
		bpf_map_delete_elem(&inflight, &key);
		return 0;
	}
	return emit_bio(IOT_EV_BIO_BACKMERGE, bio, 0);
}

SEC("raw_tp/block_bio_backmerge")
int BPF_PROG(block_bio_backmerge_q, struct request_queue *q, struct request *rq,
	     struct bio *bio)
{
	return emit_bio(IOT_EV_BIO_BACKMERGE, bio, (__u64)rq);
}

SEC("raw_tp/block_bio_frontmerge")
int BPF_PROG(block_bio_frontmerge, struct bio *bio)
{
	if (cfg_summary)
		return 0; /* keeps its state: it becomes the request's first bio */
	return emit_bio(IOT_EV_BIO_FRONTMERGE, bio, 0);
}

SEC("raw_tp/block_bio_frontmerge")
int BPF_PROG(block_bio_frontmerge_q, struct request_queue *q, struct request *rq,
	     struct bio *bio)
{
	return emit_bio(IOT_EV_BIO_FRONTMERGE, bio, (__u64)rq);
}

SEC("raw_tp/block_bio_complete")
int BPF_PROG(block_bio_complete, struct request_queue *q, struct bio *bio)
{
	if (cfg_summary) {
		sum_complete((__u64)bio, BPF_CORE_READ(bio, bi_iter.bi_size) >> 9,
			     BPF_CORE_READ(bio, bi_status));
		return 0;
	}
	return emit_bio(IOT_EV_BIO_COMPLETE, bio, BPF_CORE_READ(bio, bi_status));
}

/* The split-off front part of a bio never passes block_bio_queue. The
 * kernel chains it to its parent (bio_chain() sets bi_private) before the
 * tracepoint fires, so --summary hands the parent's state on to it. */
SEC("raw_tp/block_split")
int BPF_PROG(block_split, struct bio *bio, unsigned int new_sector)
{
	if (cfg_summary) {
		__u64 parent = (__u64)BPF_CORE_READ(bio, bi_private), key = (__u64)bio;
		struct iot_summary *ps = bpf_map_lookup_elem(&inflight, &parent);
		struct iot_summary s;

		if (!ps)
			return 0;
		s = *ps;
		s.sector = BPF_CORE_READ(bio, bi_iter.bi_sector);
		s.nr = BPF_CORE_READ(bio, bi_iter.bi_size) >> 9;
		bpf_map_update_elem(&inflight, &key, &s, BPF_ANY);
		return 0;
	}
	return emit_bio(IOT_EV_SPLIT, bio, new_sector);
}

SEC("raw_tp/block_bio_remap")
int BPF_PROG(block_bio_remap, struct bio *bio, dev_t old_dev, sector_t from)
{
	struct iot_rec *r;
	__u64 seq, sector;
	__u32 dev;

	if (cfg_summary)
		return 0;
	dev = disk_devt(BPF_CORE_READ(bio, bi_bdev, bd_disk));
	sector = BPF_CORE_READ(bio, bi_iter.bi_sector);
	if (!dev_wanted(dev, sector))
		return 0;
	r = begin(IOT_EV_BIO_REMAP, &seq);
	if (!r)
		return 0;
	r->id = (__u64)bio;
	r->id2 = from;
	r->sector = sector;
	r->nr = BPF_CORE_READ(bio, bi_iter.bi_size) >> 9;
	r->dev = dev;
	/* the old device replaces the op flags: remaps carry no new op */
	r->flags = old_dev;
	iot_commit(r, seq);
	return 0;
}

SEC("raw_tp/block_rq_remap")
int BPF_PROG(block_rq_remap, struct request *rq, dev_t old_dev, sector_t from)
{
	if (cfg_summary)
		return 0;
	return emit_rq(IOT_EV_RQ_REMAP, rq, from, old_dev);
}

/* Request tracepoints, both argument layouts, generated alike. */
#define RQ_PROG(name, type, stage)                                            \
	SEC("raw_tp/" #name)                                                  \
	int BPF_PROG(name, struct request *rq)                                \
	{                                                                     \
		if (cfg_summary) {                                            \
			if (stage >= 0)                                       \
				sum_rq_stage(rq, stage);                      \
			return 0;                                             \
		}                                                             \
		return emit_rq(type, rq, (__u64)BPF_CORE_READ(rq, bio),       \
			       rq_sectors(rq));                               \
	}                                                                     \
	SEC("raw_tp/" #name)                                                  \
	int BPF_PROG(name##_q, struct request_queue *q, struct request *rq)   \
	{                                                                     \
		if (cfg_summary) {                                            \
			if (stage >= 0)                                       \
				sum_rq_stage(rq, stage);                      \
			return 0;                                             \
		}                                                             \
		return emit_rq(type, rq, (__u64)BPF_CORE_READ(rq, bio),       \
			       rq_sectors(rq));                               \
	}

RQ_PROG(block_rq_insert, IOT_EV_RQ_INSERT, 1)
RQ_PROG(block_rq_issue, IOT_EV_RQ_ISSUE, 2)
RQ_PROG(block_rq_requeue, IOT_EV_RQ_REQUEUE, -1)
RQ_PROG(block_rq_merge, IOT_EV_RQ_MERGE, -1)

SEC("raw_tp/block_io_start")
int BPF_PROG(block_io_start, struct request *rq)
{
	if (cfg_summary)
		return 0;
	return emit_rq(IOT_EV_IO_START, rq, 0, rq_sectors(rq));
}

SEC("raw_tp/block_io_done")
int BPF_PROG(block_io_done, struct request *rq)
{
	if (cfg_summary)
		return 0;
	return emit_rq(IOT_EV_IO_DONE, rq, 0, rq_sectors(rq));
}

SEC("raw_tp/block_rq_complete")
int BPF_PROG(block_rq_complete, struct request *rq, int error,
	     unsigned int nr_bytes)
{
	if (cfg_summary) {
		/* partial completions: the request ends with its last bytes */
		if (nr_bytes >= BPF_CORE_READ(rq, __data_len)) {
			__u64 key = (__u64)rq;

			/* a data-less flush write is completed by the flush
			 * machinery without insert or issue: still keyed by
			 * its bio */
			if (!bpf_map_lookup_elem(&inflight, &key))
				key = (__u64)BPF_CORE_READ(rq, bio);
			sum_complete(key, 0, error);
		}
		return 0;
	}
	/* id2: sectors the request still had before this completion (high
	 * half) and the error (low half): the reader knows when it is done */
	return emit_rq(IOT_EV_RQ_COMPLETE, rq,
		       ((__u64)rq_sectors(rq) << 32) | (__u32)error,
		       nr_bytes >> 9);
}

SEC("raw_tp/block_plug")
int BPF_PROG(block_plug, struct request_queue *q)
{
	struct iot_rec *r;
	__u64 seq;

	if (cfg_summary || cfg_filter_devs)
		return 0;
	r = begin(IOT_EV_PLUG, &seq);
	if (!r)
		return 0;
	r->id = (__u64)q;
	r->id2 = 0;
	r->sector = 0;
	r->nr = 0;
	r->dev = disk_devt(BPF_CORE_READ(q, disk));
	r->flags = 0;
	iot_commit(r, seq);
	return 0;
}

SEC("raw_tp/block_unplug")
int BPF_PROG(block_unplug, struct request_queue *q, unsigned int depth,
	     bool explicit)
{
	struct iot_rec *r;
	__u64 seq;

	if (cfg_summary || cfg_filter_devs)
		return 0;
	r = begin(IOT_EV_UNPLUG, &seq);
	if (!r)
		return 0;
	r->id = (__u64)q;
	r->id2 = 0;
	r->sector = 0;
	r->nr = depth;
	r->dev = disk_devt(BPF_CORE_READ(q, disk));
	r->flags = explicit;
	iot_commit(r, seq);
	return 0;
}

/* ---- syscall layer ------------------------------------------------------------ */

/* x86_64 syscall numbers of the traced calls; user space rewrites these
 * for other architectures before load (src/record/probe.c). */
const volatile __u32 cfg_nr_read = 0, cfg_nr_write = 1, cfg_nr_pread64 = 17,
		     cfg_nr_pwrite64 = 18, cfg_nr_readv = 19, cfg_nr_writev = 20,
		     cfg_nr_preadv = 295, cfg_nr_pwritev = 296, cfg_nr_fsync = 74,
		     cfg_nr_fdatasync = 75;

static __always_inline bool traced_syscall(long id)
{
	return id == cfg_nr_read || id == cfg_nr_write || id == cfg_nr_pread64 ||
	       id == cfg_nr_pwrite64 || id == cfg_nr_readv ||
	       id == cfg_nr_writev || id == cfg_nr_preadv ||
	       id == cfg_nr_pwritev || id == cfg_nr_fsync ||
	       id == cfg_nr_fdatasync;
}

static __always_inline bool task_wanted(void)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	if (tgid == cfg_self_tgid)
		return false;
	return !cfg_filter_pids || bpf_map_lookup_elem(&pids, &tgid);
}

SEC("raw_tp/sys_enter")
int BPF_PROG(sys_enter, struct pt_regs *regs, long id)
{
	struct task_struct *task;
	struct file **fds, *file = NULL;
	struct iot_rec *r;
	__u64 seq, pos = ~0ull;
	unsigned int fd;

	if (!traced_syscall(id) || !task_wanted() || cfg_summary)
		return 0;
	fd = (unsigned int)PT_REGS_PARM1_CORE_SYSCALL(regs);
	task = (struct task_struct *)bpf_get_current_task();
	fds = BPF_CORE_READ(task, files, fdt, fd);
	if (fds)
		bpf_probe_read_kernel(&file, sizeof(file), &fds[fd]);
	if (id == cfg_nr_pread64 || id == cfg_nr_pwrite64)
		pos = PT_REGS_PARM4_CORE_SYSCALL(regs);
	else if (id == cfg_nr_preadv || id == cfg_nr_pwritev)
		pos = PT_REGS_PARM4_CORE_SYSCALL(regs);
	else if (file && (id == cfg_nr_read || id == cfg_nr_write ||
			  id == cfg_nr_readv || id == cfg_nr_writev))
		pos = BPF_CORE_READ(file, f_pos);

	r = begin(IOT_EV_SYS_ENTER, &seq);
	if (!r)
		return 0;
	r->id = pos;
	r->id2 = file ? BPF_CORE_READ(file, f_inode, i_ino) : 0;
	r->sector = id;
	r->nr = (id == cfg_nr_fsync || id == cfg_nr_fdatasync)
			? 0
			: (__u32)PT_REGS_PARM3_CORE_SYSCALL(regs);
	r->dev = file ? BPF_CORE_READ(file, f_inode, i_sb, s_dev) : 0;
	r->flags = fd;
	iot_commit(r, seq);
	return 0;
}

SEC("raw_tp/sys_exit")
int BPF_PROG(sys_exit, struct pt_regs *regs, long ret)
{
	struct iot_rec *r;
	__u64 seq;
	long id;

#if defined(__TARGET_ARCH_x86)
	id = BPF_CORE_READ(regs, orig_ax);
#elif defined(__TARGET_ARCH_arm64)
	id = BPF_CORE_READ((struct pt_regs___arm64 *)regs, syscallno);
#else
	id = -1;
#endif
	if (!traced_syscall(id) || !task_wanted() || cfg_summary)
		return 0;
	r = begin(IOT_EV_SYS_EXIT, &seq);
	if (!r)
		return 0;
	r->id = 0;
	r->id2 = 0;
	r->sector = (__u64)ret;
	r->nr = 0;
	r->dev = 0;
	r->flags = (__u32)id;
	iot_commit(r, seq);
	return 0;
}

/* Children of traced processes are traced too. */
SEC("raw_tp/sched_process_fork")
int BPF_PROG(sched_process_fork, struct task_struct *parent,
	     struct task_struct *child)
{
	__u32 ptgid = BPF_CORE_READ(parent, tgid);
	__u32 ctgid = BPF_CORE_READ(child, tgid);
	__u8 one = 1;

	if (bpf_map_lookup_elem(&pids, &ptgid))
		bpf_map_update_elem(&pids, &ctgid, &one, BPF_ANY);
	return 0;
}

/* Names of tasks that exit during the recording, for the task table:
 * user space reads /proc for the living and this map for the dead. */
struct task_info {
	__u32 tgid;
	__u32 pad;
	__u64 cgroup_id;
	char comm[16];
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct task_info);
} exited SEC(".maps");

SEC("raw_tp/sched_process_exit")
int BPF_PROG(sched_process_exit, struct task_struct *task)
{
	struct task_info ti = {};
	__u64 pt = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pt;

	ti.tgid = pt >> 32;
	ti.cgroup_id = bpf_get_current_cgroup_id();
	bpf_get_current_comm(ti.comm, sizeof(ti.comm));
	bpf_map_update_elem(&exited, &tid, &ti, BPF_ANY);
	return 0;
}
