// SPDX-License-Identifier: GPL-2.0
/*
 * iotrail's kernel side: tracepoint programs for the block layer, the I/O
 * system calls and the process tree, writing struct iot_rec records into
 * per-CPU buffers. No policy lives here beyond filtering: everything else
 * is decided in user space. Each concern is a header, included here in
 * dependency order:
 *   shims.bpf.h      tp_btf or raw_tp reads, the kernel layouts supported
 *   emit.bpf.h       the per-CPU buffers and their policies
 *   config.bpf.h     what user space fixes before load
 *   record.bpf.h     records and the bio/request events
 *   aggregate.bpf.h  --aggregate histograms
 *   addr.bpf.h       a kernel address as a number, and its set in a table
 *   inflight.bpf.h   the in-flight table (--summary, --aggregate, --trigger)
 *   speculate.bpf.h  --speculate
 *   syscalls.bpf.h   syscall numbers, the process filter, fd -> file
 *   cause.bpf.h      who and why: a bio's file, cgroup and cause
 *   flow.bpf.h       record --flow: which flows an event belongs to
 * This file holds the programs only.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "shims.bpf.h"
#include "emit.bpf.h"
#include "config.bpf.h"
#include "record.bpf.h"
#include "log2.bpf.h"
#include "aggregate.bpf.h"
#include "addr.bpf.h"
#include "inflight.bpf.h"
#include "speculate.bpf.h"
#include "syscalls.bpf.h"
#include "cause.bpf.h"
#include "flow.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* ---- block tracepoints ----------------------------------------------------- */

TP(block_bio_queue)
int BPF_PROG(block_bio_queue, struct bio *bio)
{
	struct iot_sum_slot *sl;

	if (STATE_ON) {
		sum_bio_queue(bio);
		return 0;
	}
	if (cfg_degrade && degraded() && degrade_queue(bio))
		return 0;
	if (cfg_flow && !flow_bio_queue(bio))
		return 0;
	if (SPEC_ON) {
		sl = sum_bio_queue(bio);
		if (sl)
			spec_attach(sl);
	} else if (TRIGGER_ON) {
		sum_bio_queue(bio);
	}
	{
		__u32 dev = 0;
		__u64 ts = 0;

		emit_bio_dev(IOT_EV_BIO_QUEUE, bio, 0, IOT_FLAGS_FROM_OPF, &dev, &ts);
		if (dev && !SPEC_ON) /* at the Q's time (0: none written) */
			emit_bio_info(bio, dev, ts);
	}
	return 0;
}

TP(block_getrq)
int BPF_PROG(block_getrq, struct bio *bio)
{
	if (degrade_slot((__u64)bio)) /* G: the kernel's rq->start_time_ns at C */
		return 0;
	if (cfg_flow && !flow_of((__u64)bio))
		return 0;
	return emit_bio(IOT_EV_GETRQ, bio, 0);
}

TP(block_bio_backmerge)
int BPF_PROG(block_bio_backmerge, struct bio *bio)
{
	/* --speculate keeps the merged bio's state: the request's completion
	 * finds it on the request's bio chain */
	if (STATE_ON || (TRIGGER_ON && !SPEC_ON)) {
		struct iot_sum_slot *sl = sum_find((__u64)bio);

		if (sl)
			sl->key = 0;
		if (STATE_ON)
			return 0;
	}
	if (cfg_degrade) { /* its request has the state, or its own events */
		struct iot_sum_slot *sl = degrade_slot((__u64)bio);

		if (sl) {
			sum_free(sl);
			return 0;
		}
	}
	if (cfg_flow && !flow_of((__u64)bio))
		return 0;
	return emit_bio(IOT_EV_BIO_BACKMERGE, bio, 0);
}

TP(block_bio_frontmerge)
int BPF_PROG(block_bio_frontmerge, struct bio *bio)
{
	if (degrade_slot((__u64)bio))
		return 0;
	if (cfg_flow && !flow_of((__u64)bio))
		return 0;
	return emit_bio(IOT_EV_BIO_FRONTMERGE, bio, 0);
}

TP(block_bio_complete)
int BPF_PROG(block_bio_complete, struct request_queue *q, struct bio *bio)
{
	if (STATE_ON) {
		struct iot_sum_slot *sl;

		/* On a request-based (blk-mq) device the request's completion
		 * is the record; a bio's own completion there would count a
		 * request twice (e.g. the old head bio after a front merge). */
		if (KREAD1(q, mq_ops))
			return 0;
		sl = sum_find((__u64)bio);
		if (sl)
			sum_emit(sl, KREAD1(bio, bi_iter.bi_size) >> 9, 0,
				 KREAD1(bio, bi_status), AGG_SITE_BIO);
		return 0;
	}
	if (cfg_degrade) {
		struct iot_sum_slot *sl = degrade_slot((__u64)bio);

		if (sl) {
			if (!KREAD1(q, mq_ops))
				sum_emit(sl, KREAD1(bio, bi_iter.bi_size) >> 9, 0,
					 KREAD1(bio, bi_status), AGG_SITE_BIO);
			return 0;
		}
	}
	if (cfg_flow && !flow_of((__u64)bio))
		return 0;
	emit_bio(IOT_EV_BIO_COMPLETE, bio, KREAD1(bio, bi_status));
	if (SPEC_ON) {
		if (!KREAD1(q, mq_ops))
			spec_complete_bio(bio, KREAD1(bio, bi_status));
		return 0;
	}
	if (TRIGGER_ON && !KREAD1(q, mq_ops))
		trig_check(sum_find((__u64)bio), KREAD1(bio, bi_status));
	return 0;
}

/* The split-off front part of a bio never passes block_bio_queue. The
 * kernel chains it to its parent (bio_chain() sets bi_private) before the
 * tracepoint fires, so --summary hands the parent's state on to it. */
TP(block_split)
int BPF_PROG(block_split, struct bio *bio, unsigned int new_sector)
{
	struct iot_sum_slot *sl;

	if (STATE_ON || (cfg_degrade && degrade_slot((__u64)KREAD1(bio, bi_private)))) {
		sum_split(bio);
		return 0;
	}
	if (cfg_flow) { /* copy: the part carries its parent's flows */
		__u32 m = flow_of((__u64)KREAD1(bio, bi_private));

		if (!m) { /* and not an earlier bio's at this address */
			bpf_map_delete_elem(&flow_objs, &bio);
			return 0;
		}
		flow_set((__u64)bio, m);
	}
	if (SPEC_ON) {
		sl = sum_split(bio);
		if (sl)
			spec_attach(sl);
	} else if (TRIGGER_ON) {
		sum_split(bio);
	}
	return emit_bio(IOT_EV_SPLIT, bio, new_sector);
}

TP(block_bio_remap)
int BPF_PROG(block_bio_remap, struct bio *bio, dev_t old_dev, sector_t from)
{
	/* the old device in place of the op flags: a remap carries no new op */
	if (degrade_slot((__u64)bio))
		return 0;
	if (cfg_flow && !flow_of((__u64)bio))
		return 0;
	return emit_bio_flags(IOT_EV_BIO_REMAP, bio, from, old_dev);
}

TP(block_rq_remap)
int BPF_PROG(block_rq_remap, struct request *rq, dev_t old_dev, sector_t from)
{
	if (degrade_slot((__u64)KREAD1(rq, bio)))
		return 0;
	if (cfg_flow && !flow_rq(rq, false))
		return 0;
	return emit_rq(IOT_EV_RQ_REMAP, rq, from, old_dev);
}

/* --summary at I (stage 1) and D (stage 2): the state of the head bio. */
static __always_inline void sum_rq_stage(struct request *rq, struct iot_sum_slot *sl,
					 int stage)
{
	if (!sl)
		return;
	if (stage == 1) {
		if (!sl->i_delta_ns)
			sl->i_delta_ns = delta32(sl->q_ns, bpf_ktime_get_ns());
	} else {
		sl->d_delta_ns = delta32(sl->q_ns, bpf_ktime_get_ns());
		sl->nr = rq_sectors(rq);
	}
}

/* --flow at I and D: the request's flows, from its bios (merges since);
 * at D on a loop device, handed on to the backing file's pages. */
static __always_inline __u32 flow_rq_stage(struct request *rq, int stage)
{
	__u32 m = flow_rq(rq, stage >= 1);

	if (m && stage == 2)
		flow_loop_issue(rq_devt(rq), KREAD1(rq, __sector), rq_sectors(rq), m);
	return m;
}

/* The request tracepoints, generated alike. */
#define RQ_PROG(name, type, stage)                                                       \
	TP(name)                                                                         \
	int BPF_PROG(name, struct request *rq)                                           \
	{                                                                                \
		struct iot_sum_slot *sl;                                                 \
                                                                                         \
		if (STATE_ON) {                                                          \
			if (stage >= 0)                                                  \
				sum_rq_stage(rq, sum_find((__u64)KREAD1(rq, bio)),       \
					     stage);                                     \
			return 0;                                                        \
		}                                                                        \
		sl = degrade_slot((__u64)KREAD1(rq, bio));                               \
		if (sl) {                                                                \
			if (stage >= 0)                                                  \
				sum_rq_stage(rq, sl, stage);                             \
			return 0;                                                        \
		}                                                                        \
		if (cfg_flow && !flow_rq_stage(rq, stage))                               \
			return 0;                                                        \
		return emit_rq(type, rq, (__u64)KREAD1(rq, bio), rq_sectors(rq));        \
	}

RQ_PROG(block_rq_insert, IOT_EV_RQ_INSERT, 1)
RQ_PROG(block_rq_issue, IOT_EV_RQ_ISSUE, 2)
RQ_PROG(block_rq_requeue, IOT_EV_RQ_REQUEUE, -1)
RQ_PROG(block_rq_merge, IOT_EV_RQ_MERGE, -1)

TP(block_io_start)
int BPF_PROG(block_io_start, struct request *rq)
{
	if (degrade_slot((__u64)KREAD1(rq, bio)))
		return 0;
	if (cfg_flow && !flow_rq(rq, false))
		return 0;
	return emit_rq(IOT_EV_IO_START, rq, 0, rq_sectors(rq));
}

TP(block_io_done)
int BPF_PROG(block_io_done, struct request *rq)
{
	if (degrade_slot((__u64)KREAD1(rq, bio)))
		return 0;
	if (cfg_flow && !flow_done_take((__u64)rq))
		return 0;
	return emit_rq(IOT_EV_IO_DONE, rq, 0, rq_sectors(rq));
}

TP(block_rq_complete)
int BPF_PROG(block_rq_complete, struct request *rq, int error, unsigned int nr_bytes)
{
	if (STATE_ON) {
		/* partial completions: the request ends with its last bytes.
		 * A data-less flush write completes here without I or D. */
		if (nr_bytes >= KREAD1(rq, __data_len)) {
			struct iot_sum_slot *sl = sum_find((__u64)KREAD1(rq, bio));

			if (sl)
				sum_emit(sl, 0, KREAD1(rq, start_time_ns), error,
					 AGG_SITE_RQ);
		}
		return 0;
	}
	if (cfg_degrade) {
		struct iot_sum_slot *sl = degrade_slot((__u64)KREAD1(rq, bio));

		if (sl) {
			if (nr_bytes >= KREAD1(rq, __data_len))
				sum_emit(sl, 0, KREAD1(rq, start_time_ns), error,
					 AGG_SITE_RQ);
			return 0;
		}
	}
	if (cfg_flow) {
		__u32 m = flow_rq(rq, false);
		bool last;

		/* other I/O's completions read nothing more, but with
		 * --accounting (flow_done_put puts their 0) */
		if (!m && !cfg_flow_done)
			return 0;
		last = nr_bytes >= KREAD1(rq, __data_len);
		if (last && cfg_flow_done)
			flow_done_put((__u64)rq, m);
		if (!m)
			return 0;
		if (last) {
			bpf_map_delete_elem(&flow_objs, &rq);
			flow_loop_complete(rq_devt(rq));
		}
	}
	/* a data-less request (a flush) shows its bio and the kernel's start
	 * time, which /proc/diskstats' flush time counts from: the flush
	 * machinery's request has neither Q nor G, the request it flushes
	 * for neither I nor D */
	if (!nr_bytes && !SPEC_ON)
		emit_rq_info(rq);
	/* id2: sectors the request still had before this completion (high
	 * half) and the error (low half): the reader knows when it is done */
	emit_rq(IOT_EV_RQ_COMPLETE, rq, ((__u64)rq_sectors(rq) << 32) | (__u32)error,
		nr_bytes >> 9);
	if (SPEC_ON) {
		if (nr_bytes >= KREAD1(rq, __data_len))
			spec_complete_rq(rq, error);
		return 0;
	}
	if (TRIGGER_ON && nr_bytes >= KREAD1(rq, __data_len))
		trig_check(sum_find((__u64)KREAD1(rq, bio)), error);
	return 0;
}

TP(block_plug)
int BPF_PROG(block_plug, struct request_queue *q)
{
	if (cfg_nr_devs || SPEC_ON || cfg_flow || degrade_skip())
		return 0;
	emit_rec(IOT_EV_PLUG, (__u64)q, 0, 0, 0, disk_devt(KREAD1(q, disk)), 0);
	return 0;
}

TP(block_unplug)
int BPF_PROG(block_unplug, struct request_queue *q, unsigned int depth, bool explicit)
{
	if (cfg_nr_devs || SPEC_ON || cfg_flow || degrade_skip())
		return 0;
	emit_rec(IOT_EV_UNPLUG, (__u64)q, 0, 0, depth, disk_devt(KREAD1(q, disk)),
		 explicit);
	return 0;
}

/* ---- system calls and the process tree ---------------------------------------- */

TP(sys_enter)
int BPF_PROG(sys_enter, struct pt_regs *regs, long id)
{
	struct file_info fi = {};
	__u64 pos = ~0ull, offp = 0;
	unsigned int fd;
	__u32 count, aux;

	if (!traced_syscall(id) || !task_wanted() || cfg_summary || SPEC_ON)
		return 0;
	if (cfg_aggregate) {
		/* a call that began before every program was attached is not
		 * counted, as events mode does not see its enter */
		__u32 tid = (__u32)bpf_get_current_pid_tgid();
		struct sys_slot *ss = armed ? sys_slot(tid) : NULL;

		if (ss) {
			ss->tid = tid;
			ss->sys = id + 1;
			ss->ts_ns = bpf_ktime_get_ns();
		}
		return 0;
	}
	if (id == cfg_nr_fsync || id == cfg_nr_fdatasync)
		sync_enter();
	if (degrade_skip())
		return 0;
	fd = (unsigned int)SYSARG(regs, 1);
	/* bytes asked; the number of iocbs or SQEs submitted */
	count = (id == cfg_nr_fsync || id == cfg_nr_fdatasync) ? 0
		: async_submit(id)			       ? (__u32)SYSARG(regs, 2)
							       : (__u32)SYSARG(regs, 3);
	if (id == cfg_nr_sendfile) { /* out_fd, in_fd, *offset, count */
		fd = (unsigned int)SYSARG(regs, 2);
		offp = SYSARG(regs, 3);
		count = (__u32)SYSARG(regs, 4);
	} else if (id == cfg_nr_splice || id == cfg_nr_copy_file_range) {
		/* fd_in, *off_in, fd_out, *off_out, len, flags */
		offp = SYSARG(regs, 2);
		count = (__u32)SYSARG(regs, 5);
	}
	if (!async_submit(id))
		fd_file(fd, &fi);
	if (id == cfg_nr_splice && fi.found && (fi.mode & IOT_S_IFMT) != IOT_S_IFREG) {
		/* from a pipe: the file is the one written */
		fd = (unsigned int)SYSARG(regs, 3);
		offp = SYSARG(regs, 4);
		fi = (struct file_info){};
		fd_file(fd, &fi);
	}
	aux = fd;
	if (offp) {
		if (bpf_probe_read_user(&pos, sizeof(pos), (void *)offp))
			pos = ~0ull;
	} else if (id == cfg_nr_pread64 || id == cfg_nr_pwrite64 || id == cfg_nr_preadv ||
		   id == cfg_nr_pwritev) {
		pos = SYSARG(regs, 4);
	} else if (id == cfg_nr_preadv2 || id == cfg_nr_pwritev2) {
		/* offset -1: the file's position; RWF_* in aux's top byte */
		pos = SYSARG(regs, 4);
		if (pos == ~0ull && fi.found)
			pos = fi.pos;
		aux = (fd & 0xffffff) | (__u32)(SYSARG6(regs) & 0xff) << 24;
	} else if (fi.found && id != cfg_nr_fsync && id != cfg_nr_fdatasync) {
		pos = fi.pos;
	}
	if (cfg_flow && !flow_sys_enter(syscall_op(id), fi.dev, fi.ino, count, pos))
		return 0;
	emit_rec(IOT_EV_SYS_ENTER, pos, fi.ino, id, count, fi.dev, aux);
	return 0;
}

TP(sys_exit)
int BPF_PROG(sys_exit, struct pt_regs *regs, long ret)
{
	long id;

#if defined(__TARGET_ARCH_x86)
	id = KREAD1(regs, orig_ax);
#elif defined(__TARGET_ARCH_arm64)
	id = BPF_CORE_READ((struct pt_regs___arm64 *)regs, syscallno);
#else
	id = -1;
#endif
	if (!traced_syscall(id) || !task_wanted() || cfg_summary || SPEC_ON)
		return 0;
	if (cfg_aggregate) {
		__u32 tid = (__u32)bpf_get_current_pid_tgid();
		struct sys_slot *ss = sys_slot(tid);

		if (ss && ss->tid == tid && ss->sys == id + 1 && ss->ts_ns && armed)
			agg_syscall(syscall_kind(id), bpf_ktime_get_ns() - ss->ts_ns);
		if (ss && ss->tid == tid)
			ss->sys = 0;
		return 0;
	}
	if (id == cfg_nr_fsync || id == cfg_nr_fdatasync)
		sync_exit();
	if (degrade_skip())
		return 0;
	if (cfg_flow && !flow_sys_exit())
		return 0;
	emit_rec(IOT_EV_SYS_EXIT, 0, 0, (__u64)ret, 0, 0, (__u32)id);
	return 0;
}

/* Children of traced processes are traced too. */
SEC("raw_tp/sched_process_fork")
int BPF_PROG(sched_process_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = BPF_CORE_READ(parent, tgid);
	__u32 ctgid = BPF_CORE_READ(child, tgid);
	__u8 one = 1;

	if (bpf_map_lookup_elem(&pids, &ptgid) && ptgid != ctgid) {
		bpf_map_update_elem(&pids, &ctgid, &one, BPF_ANY);
		__sync_fetch_and_add(&pids_gen, 1);
	}
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

/* ---- who and why (cause.bpf.h) ------------------------------------------------- */

/* A flusher (or sync) thread runs a writeback work item: its bios are
 * writeback for the work's reason. */
SEC("raw_tp/writeback_start")
int BPF_PROG(writeback_start, struct bdi_writeback *wb, struct wb_writeback_work *work)
{
	struct task_ctx *tc = task_ctx(true);

	if (tc)
		tc->wb = wb_reason_of(work);
	return 0;
}

SEC("raw_tp/writeback_written")
int BPF_PROG(writeback_written, struct bdi_writeback *wb, struct wb_writeback_work *work)
{
	struct task_ctx *tc = task_ctx(false);

	if (tc)
		tc->wb = 0;
	return 0;
}

/* A journal commit begins or ends: an IOT_EV_COMMIT for every filesystem
 * (few, and what fsync waits for whoever runs it), whatever the filters. */
static __always_inline void emit_commit(journal_t *journal, transaction_t *t, __u32 end)
{
	if (cfg_summary || cfg_aggregate || SPEC_ON)
		return;
	emit_rec(IOT_EV_COMMIT, (__u64)BPF_CORE_READ(t, t_tid), 0, 0, 0,
		 BPF_CORE_READ(journal, j_fs_dev, bd_dev), end);
}

SEC("raw_tp/jbd2_start_commit")
int BPF_PROG(jbd2_start_commit, journal_t *journal, transaction_t *commit_transaction)
{
	struct task_ctx *tc = task_ctx(true);

	if (tc)
		tc->commit = 1;
	emit_commit(journal, commit_transaction, 0);
	return 0;
}

SEC("raw_tp/jbd2_end_commit")
int BPF_PROG(jbd2_end_commit, journal_t *journal, transaction_t *commit_transaction)
{
	struct task_ctx *tc = task_ctx(false);

	if (tc)
		tc->commit = 0;
	emit_commit(journal, commit_transaction, 1);
	return 0;
}

/* In the dirtier's context, once per folio going clean -> dirty. */
TP(writeback_dirty_folio)
int BPF_PROG(writeback_dirty_folio, struct folio *folio, struct address_space *mapping)
{
	struct inode *host;
	unsigned long flags;
	__u32 nr = 1;

	if (!mapping || !task_wanted() || cfg_summary || SPEC_ON || degrade_skip())
		return 0;
	/* --flow: pages dirtied in a flow's call (its writeback's dirtier) */
	if (cfg_flow && !flow_task_mask())
		return 0;
	host = KREAD1(mapping, host);
	if (!host)
		return 0;
	/* a large folio: its order is in the second page's flags (the first
	 * word of either, read as a number where its type changed) */
	flags = KNUM(folio);
	if (bpf_core_field_exists(folio->_flags_1) &&
	    (flags & (1ul << bpf_core_enum_value(enum pageflags, PG_head))))
		nr = 1u << (KREAD1(folio, _flags_1) & 0x1f);
	emit_rec(IOT_EV_DIRTY, KREAD1(host, i_ino), KREAD1(folio, index), 0, nr,
		 KREAD2(host, i_sb, s_dev), 0);
	return 0;
}

/* A task inside a traced fsync or fdatasync is being woken (by the completion
 * it waited for, or the journal's commit): the split of its call tells the
 * wait for a CPU after it from the I/O (src/analyze/fsync.c). Every other
 * wakeup costs one load while no such call is open. */
SEC("raw_tp/sched_waking")
int BPF_PROG(sched_waking, struct task_struct *p)
{
	__u32 tid;

	if (!nr_in_sync)
		return 0;
	tid = BPF_CORE_READ(p, pid);
	if (!bpf_map_lookup_elem(&in_sync, &tid) || degrade_skip())
		return 0;
	emit_rec(IOT_EV_WAKEUP, tid, 0, 0, 0, 0, 0);
	return 0;
}

/* A page fault of a traced task on a file's page that the page tables did
 * not have (filemap_fault): the bios the task queues next for that inode,
 * outside a system call, are the fault's (the join links them). */
TP(mm_filemap_fault)
int BPF_PROG(mm_filemap_fault, struct address_space *mapping, unsigned long index)
{
	struct inode *host;

	if (!mapping || !task_wanted() || cfg_summary || SPEC_ON || degrade_skip())
		return 0;
	host = KREAD1(mapping, host);
	if (!host)
		return 0;
	if (cfg_flow &&
	    !flow_fault(KREAD2(host, i_sb, s_dev), KREAD1(host, i_ino), index))
		return 0;
	emit_rec(IOT_EV_FAULT, KREAD1(host, i_ino), index, 0, 1,
		 KREAD2(host, i_sb, s_dev), 0);
	return 0;
}

/* Fault-around (filemap_map_pages): the pages of start..end already in the
 * page cache were mapped into the task, whether it touches them or not. */
TP(mm_filemap_map_pages)
int BPF_PROG(mm_filemap_map_pages, struct address_space *mapping, unsigned long start,
	     unsigned long end)
{
	struct inode *host;

	if (!mapping || end < start || !task_wanted() || cfg_summary || SPEC_ON ||
	    cfg_flow || degrade_skip())
		return 0;
	host = KREAD1(mapping, host);
	if (!host)
		return 0;
	emit_rec(IOT_EV_FAULT, KREAD1(host, i_ino), start, 0, end - start + 1,
		 KREAD2(host, i_sb, s_dev), IOT_FAULT_AROUND);
	return 0;
}

/* A task's name after exec: the kernel's, not what /proc said before. */
SEC("raw_tp/sched_process_exec")
int BPF_PROG(sched_process_exec, struct task_struct *p, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	char comm[16] = {};
	__u64 lo, hi;

	if (!task_wanted() || cfg_summary || SPEC_ON)
		return 0;
	bpf_get_current_comm(comm, sizeof(comm));
	__builtin_memcpy(&lo, comm, 8);
	__builtin_memcpy(&hi, comm + 8, 8);
	emit_rec(IOT_EV_EXEC, lo, hi, 0, 0, 0, 0);
	return 0;
}

/* ---- io_uring (docs/ATTRIBUTION.md, "io_uring") ------------------------------ */

/* The opcodes that can reach a file, and so a disk (UAPI numbers): readv,
 * writev, fsync, read_fixed, write_fixed, sync_file_range, fallocate, read,
 * write, splice, uring_cmd (passthrough), ftruncate, readv_fixed,
 * writev_fixed. Network, poll and timeout requests are not recorded. */
#define IOT_URING_FILE_OPS                                                               \
	((1ull << 1) | (1ull << 2) | (1ull << 3) | (1ull << 4) | (1ull << 5) |           \
	 (1ull << 8) | (1ull << 17) | (1ull << 22) | (1ull << 23) | (1ull << 30) |       \
	 (1ull << 46) | (1ull << 55) | (1ull << 60) | (1ull << 61))
/* the opcodes whose command is a struct io_rw (a position and a length) */
#define IOT_URING_RW_OPS                                                                 \
	((1ull << 1) | (1ull << 2) | (1ull << 4) | (1ull << 5) | (1ull << 22) |          \
	 (1ull << 23) | (1ull << 60) | (1ull << 61))

static __always_inline bool uring_op_traced(__u8 op)
{
	return op < 64 && (IOT_URING_FILE_OPS >> op & 1) && !cfg_summary &&
	       !cfg_aggregate && !SPEC_ON;
}

/* --flow: an io_uring request starts a flow when a definition matches its
 * op, file, length and position; the bios its thread queues inline next
 * carry it (the task's mask until the next submission or the call's exit),
 * an io-wq worker's through the io_kiocb. */
static __always_inline bool flow_uring_submit(struct io_kiocb *req, __u8 op, __u64 pos,
					      __u32 len)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), fop = 0, m;
	struct file *f = KREAD1(req, file);
	__u64 ino = 0;
	__u32 dev = 0;

	if (op == 1 || op == 4 || op == 22) /* READV, READ_FIXED, READ */
		fop = IOT_FLOW_OP_READ;
	else if (op == 2 || op == 5 || op == 23) /* WRITEV, WRITE_FIXED, WRITE */
		fop = IOT_FLOW_OP_WRITE;
	else if (op == 3) /* FSYNC */
		fop = IOT_FLOW_OP_SYNC;
	if (f) {
		ino = KREAD2(f, f_inode, i_ino);
		dev = KREAD3(f, f_inode, i_sb, s_dev);
	}
	m = flow_match(IOT_FLOW_START_URING, fop, dev, ino, len, pos, task_blkcg());
	if (!m) {
		bpf_map_delete_elem(&flow_task, &tid);
		return false;
	}
	flow_set((__u64)req, m);
	bpf_map_update_elem(&flow_task, &tid, &m, BPF_ANY);
	return true;
}

/* After the request's prep, in the submitting thread: the bios it queues
 * inline follow in the same thread (the join links them). */
TP(io_uring_submit_req)
int BPF_PROG(io_uring_submit_req, struct io_kiocb *req)
{
	__u8 op = KREAD1(req, opcode);
	__u64 pos = ~0ull;
	__u32 len = 0, flags = op;

	if (!uring_op_traced(op) || !task_wanted() || degrade_skip())
		return 0;
	if (IOT_URING_RW_OPS >> op & 1) {
		struct io_rw *rw = AS_KTYPE(&req->cmd, struct io_rw);

		pos = KREAD1(rw, kiocb.ki_pos);
		len = KREAD1(rw, len);
	}
	if (bpf_get_current_task_btf()->flags & IOT_PF_IO_WORKER)
		flags |= IOT_URING_SQPOLL; /* io-wq workers do not submit */
	if (cfg_flow && !flow_uring_submit(req, op, pos, len))
		return 0;
	emit_rec(IOT_EV_URING_SUBMIT, (__u64)req, pos, 0, len, 0, flags);
	return 0;
}

/* A completion is posted, in whatever task posts it (the ring owner's task
 * work, the SQPOLL thread, an io-wq worker, or an interrupt): the filter
 * asks about the ring owner's process. The request still holds its file. */
TP(io_uring_complete)
int BPF_PROG(io_uring_complete, struct io_ring_ctx *ring, void *req_,
	     struct io_uring_cqe *cqe)
{
	/* an untyped argument: typed here */
	struct io_kiocb *req = AS_KTYPE(req_, struct io_kiocb);
	__u8 op = KREAD1(req, opcode);
	struct file *f;
	__u64 ino = 0;
	__u32 dev = 0;

	if (!uring_op_traced(op) || !tgid_wanted(KREAD3(req, tctx, task, tgid)) ||
	    degrade_skip())
		return 0;
	if (cfg_flow) {
		__u64 key = (__u64)req_;

		if (!flow_of(key))
			return 0;
		bpf_map_delete_elem(&flow_objs, &key);
	}
	f = KREAD1(req, file);
	if (f) { /* a fixed file's too: the table's struct file */
		ino = KREAD2(f, f_inode, i_ino);
		dev = KREAD3(f, f_inode, i_sb, s_dev);
	}
	emit_rec(IOT_EV_URING_COMPLETE, (__u64)req_, KREAD1(cqe, user_data), ino,
		 (__u32)KREAD1(cqe, res), dev, op);
	return 0;
}

/*
 * The NVMe driver layer (docs/DRIVER.md): nvme_core's tracepoints, where
 * the module is loaded. Always raw tracepoints read with CO-RE: the module's
 * own types are not needed (the queue id comes from the block layer's
 * structures, as nvme_req_qid() computes it), so nothing here depends on
 * the module's BTF.
 */
static __always_inline int emit_drv(__u16 type, struct request *rq, __u64 id2)
{
	struct request_queue *q = BPF_CORE_READ(rq, q);
	struct gendisk *disk = BPF_CORE_READ(q, disk);
	__u64 sector = BPF_CORE_READ(rq, __sector);
	__u32 dev, qid = 0;

	if (cfg_flow && !flow_rq(rq, false))
		return 0;
	if (degrade_slot((__u64)BPF_CORE_READ(rq, bio)) || degrade_skip())
		return 0;
	if (!disk)
		return 0; /* an admin command: no disk */
	dev =
	    ((__u32)BPF_CORE_READ(disk, major) << 20) | BPF_CORE_READ(disk, first_minor);
	if (!dev_wanted(dev, sector))
		return 0;
	if (BPF_CORE_READ(q, queuedata))
		qid = BPF_CORE_READ(rq, mq_hctx, queue_num) + 1;
	emit_rec(type, (__u64)rq, id2, sector, qid, dev,
		 iot_opf(BPF_CORE_READ(rq, cmd_flags)));
	return 0;
}

SEC("raw_tp/nvme_setup_cmd")
int BPF_PROG(nvme_setup_cmd, struct request *rq)
{
	return emit_drv(IOT_EV_DRV_SUBMIT, rq, 0);
}

SEC("raw_tp/nvme_sq")
int BPF_PROG(nvme_sq, struct request *rq, __u16 sq_head)
{
	return emit_drv(IOT_EV_DRV_CQE, rq, sq_head);
}

SEC("raw_tp/nvme_complete_rq")
int BPF_PROG(nvme_complete_rq, struct request *rq)
{
	return emit_drv(IOT_EV_DRV_DONE, rq, 0);
}
