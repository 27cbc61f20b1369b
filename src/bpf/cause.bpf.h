/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who and why (docs/ATTRIBUTION.md): what the kernel says about the cause of
 * a bio at its queueing, recorded beside its Q as an IOT_EV_BIO_INFO:
 *   - the file: the bio's first page -> its folio -> mapping -> host inode
 *     (number, type) and the page's index in the file;
 *   - the cgroup: bio->bi_blkg -> blkcg -> cgroup, the one the kernel's own
 *     blkio/io counters charge;
 *   - the cause, from the bio's flags (flush, swap, readahead) and from what
 *     the queueing task is doing: a writeback work item (writeback_start ..
 *     writeback_written, with the kernel's reason), a journal commit
 *     (jbd2_start_commit .. jbd2_end_commit), reclaim. The traced system
 *     call the task is in is the join's to add (src/join/join.c,
 *     why_in_syscall()): it has the SYS_ENTER already.
 * And IOT_EV_FAULT when a traced task's page fault reaches the page cache
 * (the join ties its reads to it); IOT_EV_DIRTY when a task dirties a page cache folio
 * (writeback_dirty_folio: in the dirtier's context), so that writeback
 * can be charged to the task that dirtied the pages; IOT_EV_EXEC when a
 * task takes a new name.
 */
#ifndef IOTRAIL_CAUSE_BPF_H
#define IOTRAIL_CAUSE_BPF_H

/* What a task is doing, per task: the traced system call it is in (also
 * --aggregate's start time), the writeback work it runs, a journal commit. */
struct task_ctx {
	__u32 wb;     /* IOT_WB_* of the writeback work it runs, 0 none */
	__u32 commit; /* in a jbd2 commit */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_ctx);
} task_ctxs SEC(".maps");

/* --aggregate: the traced system call a thread is in, in a slot by its id
 * modulo the size (an array lookup: task storage cost twice as much).
 * Two threads whose ids share a slot and are inside calls at once: the
 * first one's call is not counted (its exit finds another id there). */
#define SYS_SLOTS 65536
struct sys_slot {
	__u32 tid;
	__u32 sys; /* the call + 1; 0 none */
	__u64 ts_ns;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SYS_SLOTS);
	__type(key, __u32);
	__type(value, struct sys_slot);
} sys_slots SEC(".maps");

static __always_inline struct sys_slot *sys_slot(__u32 tid)
{
	__u32 i = tid & (SYS_SLOTS - 1);

	return bpf_map_lookup_elem(&sys_slots, &i);
}

static __always_inline struct task_ctx *task_ctx(bool create)
{
	return bpf_task_storage_get(&task_ctxs, bpf_get_current_task_btf(), 0,
				    create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
}

/* The tasks inside a traced fsync or fdatasync, for the sched_waking
 * program; nr_in_sync counts them so that it returns at once when none. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u8);
} in_sync SEC(".maps");
__u32 nr_in_sync = 0;

static __always_inline void sync_enter(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u8 one = 1;

	if (!bpf_map_update_elem(&in_sync, &tid, &one, BPF_NOEXIST))
		__sync_fetch_and_add(&nr_in_sync, 1);
}

static __always_inline void sync_exit(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();

	if (!bpf_map_delete_elem(&in_sync, &tid))
		__sync_fetch_and_add(&nr_in_sync, -1);
}

/* Per CPU, the last "plain" BIO_INFO written (a bio without a file's page,
 * cause other: direct I/O, most of the time): the next one of the same
 * task with the same cgroup and page kind is not written, and the join
 * takes it from the same slot it keeps per CPU (src/join/join.c). One
 * record less per direct I/O bio. */
struct bi_plain {
	__u32 tid1; /* tid + 1: 0 none */
	__u32 cgroup;
	__u32 kind;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bi_plain);
} bi_plain SEC(".maps");

#define IOT_S_IFMT	      0170000
#define IOT_S_IFREG	      0100000
#define IOT_S_IFDIR	      0040000
#define IOT_S_IFBLK	      0060000
#define IOT_PAGE_MAPPING_ANON 0x1ul
#define IOT_PF_MEMALLOC	      0x00000800u
#define IOT_PF_KSWAPD	      0x00020000u
#define IOT_PF_KTHREAD	      0x00200000u
#define IOT_PF_IO_WORKER      0x00000010u /* io-wq workers, the SQPOLL thread */

/* What the bio's first page says: its file (host inode number, kind, the
 * page's index in it) or that it is anonymous (a caller's own buffer).
 * The tp_btf build reads with plain loads: the values that are not typed
 * pointers (the bio_vec's page, a tail page's head, a mapping with flag
 * bits) as numbers (KNUM), cast back to their types with bpf_rdonly_cast();
 * the raw_tp build reads through probe reads. */
#ifdef IOT_TP_BTF
#define AS_KTYPE(v, type)                                                                \
	((type *)bpf_rdonly_cast((void *)(v), bpf_core_type_id_kernel(type)))
#else
#define AS_KTYPE(v, type) ((type *)(v))
#endif

static __always_inline __u32 page_host(unsigned long page, __u64 *ino, __u64 *index)
{
	unsigned long head, mapping;
	struct address_space *as;
	struct folio *folio;
	struct inode *host;
	__u64 nth = 0;
	__u32 mode;

	/* numbers with flag bits, not pointers: read as numbers */
	head = KNUM(&((struct page *)page)->compound_head);
	if (head & 1) { /* a tail page: the folio is its head */
		head--;
		nth = (page - head) / bpf_core_type_size(struct page);
		folio = AS_KTYPE(head, struct folio);
	} else {
		folio = AS_KTYPE(page, struct folio);
	}
	mapping = KNUM(&folio->mapping);
	if (!mapping)
		return IOT_HOST_NONE;
	if (mapping & IOT_PAGE_MAPPING_ANON)
		return IOT_HOST_ANON;
	as = AS_KTYPE(mapping, struct address_space);
	host = KREAD1(as, host);
	if (!host)
		return IOT_HOST_NONE;
	mode = KREAD1(host, i_mode) & IOT_S_IFMT;
	*ino = KREAD1(host, i_ino);
	*index = KREAD1(folio, index) + nth;
	return mode == IOT_S_IFREG   ? IOT_HOST_REG
	       : mode == IOT_S_IFDIR ? IOT_HOST_DIR
	       : mode == IOT_S_IFBLK ? IOT_HOST_BLK
				     : IOT_HOST_OTHER;
}

static __always_inline __u32 wb_reason_of(struct wb_writeback_work *work)
{
	int reason = BPF_CORE_READ(work, reason);

	if (reason == bpf_core_enum_value(enum wb_reason, WB_REASON_BACKGROUND))
		return IOT_WB_BACKGROUND;
	if (reason == bpf_core_enum_value(enum wb_reason, WB_REASON_VMSCAN))
		return IOT_WB_VMSCAN;
	if (reason == bpf_core_enum_value(enum wb_reason, WB_REASON_SYNC))
		return IOT_WB_SYNC;
	if (reason == bpf_core_enum_value(enum wb_reason, WB_REASON_PERIODIC))
		return IOT_WB_PERIODIC;
	if (reason == bpf_core_enum_value(enum wb_reason, WB_REASON_FS_FREE_SPACE))
		return IOT_WB_FS_FREE_SPACE;
	return IOT_WB_OTHER;
}

/* The io_uring request an io-wq worker runs (struct io_worker's cur_work,
 * inside its struct io_kiocb), 0 when the task is not one: the SQPOLL
 * thread's worker_private is its struct io_sq_data, whose bytes where an
 * io_worker keeps its task never point back at the task. */
static __always_inline __u64 io_wq_req(struct task_struct *task)
{
	struct io_worker *w = BPF_CORE_READ(task, worker_private);
	struct io_wq_work *work;

	if (!w || (void *)BPF_CORE_READ(w, task) != (void *)task)
		return 0;
	work = BPF_CORE_READ(w, cur_work);
	return work ? (__u64)work - bpf_core_field_offset(struct io_kiocb, work) : 0;
}

/* Why a bio is queued (IOT_CAUSE_*, with IOT_WB_* in *reason), from its op,
 * its first page's kind and the task queueing it: BIO_INFO's cause, and
 * where record --flow's bio starts come from (flow.bpf.h). */
static __always_inline __u32 bio_cause(struct bio *bio, __u32 opf, __u32 kind,
				       struct task_struct *task, __u32 *reason)
{
	/* writeback works and commits run in kernel threads: a user task's
	 * bio needs no look at its context */
	struct task_ctx *tc = task->flags & IOT_PF_KTHREAD ? task_ctx(false) : NULL;

	*reason = 0;
	if (!KREAD1(bio, bi_iter.bi_size) &&
	    (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_PREFLUSH))))
		return IOT_CAUSE_FLUSH;
	if (bpf_core_enum_value_exists(enum req_flag_bits, __REQ_SWAP) &&
	    (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_SWAP))))
		return IOT_CAUSE_SWAP;
	if (tc && tc->commit) {
		/* the commit writes its log, and in ordered mode the data the
		 * transaction's inodes dirtied */
		*reason = IOT_WB_JOURNAL;
		return kind == IOT_HOST_REG ? IOT_CAUSE_WRITEBACK : IOT_CAUSE_JOURNAL;
	}
	if (tc && tc->wb) {
		*reason = tc->wb;
		return IOT_CAUSE_WRITEBACK;
	}
	/* an io_uring request an io-wq worker or the SQPOLL thread runs: both
	 * are threads of the ring's owner */
	if (task->flags & IOT_PF_IO_WORKER)
		return IOT_CAUSE_IO_URING;
	if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_RAHEAD)))
		return IOT_CAUSE_READAHEAD;
	if (task->flags & (IOT_PF_KSWAPD | IOT_PF_MEMALLOC)) {
		*reason = IOT_WB_VMSCAN;
		return IOT_CAUSE_WRITEBACK;
	}
	if ((opf & IOT_OP_MASK) == IOT_OP_WRITE && kind == IOT_HOST_REG) {
		/* a file's dirty pages, written by the task itself: close()
		 * after a truncate (ext4's auto_da_alloc), sync_file_range(),
		 * msync(); or in a traced fsync or O_SYNC write, which the
		 * join tells (it knows the task's open system call) */
		*reason = IOT_WB_TASK;
		return IOT_CAUSE_WRITEBACK;
	}
	return IOT_CAUSE_OTHER;
}

/* The record beside a bio's Q; dev: its disk, which the Q's filter let
 * through; ts: the Q's time, or 0. */
static __always_inline void emit_bio_info(struct bio *bio, __u32 dev, __u64 ts)
{
	__u32 opf = KREAD1(bio, bi_opf), kind = IOT_HOST_NONE, cause, reason = 0;
	__u32 cgroup = 0;
	__u64 ino = 0, index = 0;
	struct task_struct *task;
	struct bi_plain *plain = NULL;
	__u64 uring_req = 0;
	__u32 tid1 = 0;

	if (KREAD1(bio, bi_vcnt)) {
		struct bio_vec *bv = KREAD1(bio, bi_io_vec);
		unsigned long page = 0; /* a number: the folio is found from it */

		if (bv)
			page = KNUM(&bv->bv_page);
		if (page)
			kind = page_host(page, &ino, &index);
	}
	cgroup = bio_cgroup(bio);
	task = bpf_get_current_task_btf();
	cause = bio_cause(bio, opf, kind, task, &reason);
	if (cause == IOT_CAUSE_IO_URING && cfg_uring)
		uring_req = io_wq_req(task);

	if (cause == IOT_CAUSE_OTHER && !ino) {
		__u32 zero = 0;

		tid1 = (__u32)bpf_get_current_pid_tgid() + 1;
		plain = bpf_map_lookup_elem(&bi_plain, &zero);
		if (plain && plain->tid1 == tid1 && plain->cgroup == cgroup &&
		    plain->kind == kind)
			return; /* the same as the last: the join repeats it */
	}
	if (uring_req)
		emit_rec_at(IOT_EV_URING_WORK, (__u64)bio, uring_req, 0, 0, dev, 0, ts);
	if (emit_rec_at(IOT_EV_BIO_INFO, (__u64)bio, ino, index, cgroup, dev,
			cause | reason << 8 | kind << 16, ts) &&
	    plain)
		*plain = (struct bi_plain){tid1, cgroup, kind};
}

#endif /* IOTRAIL_CAUSE_BPF_H */
