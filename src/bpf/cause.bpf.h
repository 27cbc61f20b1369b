/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who and why (docs/ATTRIBUTION.md): what the kernel says about the cause of
 * a bio at its queueing, recorded beside its Q as an IOT_EV_BIO_INFO:
 *   - the file: the bio's first page -> its folio -> mapping -> host inode
 *     (number, type) and the page's index in the file;
 *   - the cgroup: bio->bi_blkg -> blkcg -> cgroup, the one the kernel's own
 *     blkio/io counters charge;
 *   - the cause, from the bio's flags (flush, swap, readahead) and from what
 *     the queueing task is doing: a traced system call, a writeback work
 *     item (writeback_start .. writeback_written, with the kernel's reason),
 *     a journal commit (jbd2_start_commit .. jbd2_end_commit), reclaim.
 * And IOT_EV_DIRTY when a task dirties a page cache folio
 * (writeback_dirty_folio: in the dirtier's context), so that writeback
 * can be charged to the task that dirtied the pages; IOT_EV_EXEC when a
 * task takes a new name.
 */
#ifndef IOTRAIL_CAUSE_BPF_H
#define IOTRAIL_CAUSE_BPF_H

/* What a task is doing, per task: the traced system call it is in (also
 * --aggregate's start time), the writeback work it runs, a journal commit. */
struct task_ctx {
	__u64 ts_ns;  /* --aggregate: when the system call began */
	long sys;     /* the traced system call it is in, + 1: 0 none (a
			 context the writeback or jbd2 hooks made is zeroed) */
	__u32 wb;     /* IOT_WB_* of the writeback work it runs, 0 none */
	__u32 commit; /* in a jbd2 commit */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_ctx);
} task_ctxs SEC(".maps");

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

#define IOT_S_IFMT	      0170000
#define IOT_S_IFREG	      0100000
#define IOT_S_IFDIR	      0040000
#define IOT_S_IFBLK	      0060000
#define IOT_PAGE_MAPPING_ANON 0x1ul
#define IOT_PF_MEMALLOC	      0x00000800u
#define IOT_PF_KSWAPD	      0x00020000u

/* the folio a page belongs to (compound_head's low bit marks a tail page),
 * and the page's place in it */
static __always_inline struct folio *page_folio_of(struct page *page, __u64 *nth)
{
	unsigned long head = BPF_CORE_READ(page, compound_head);

	*nth = 0;
	if (!(head & 1))
		return (struct folio *)page;
	head--;
	*nth = ((unsigned long)page - head) / bpf_core_type_size(struct page);
	return (struct folio *)head;
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

static __always_inline bool is_write_call(long id)
{
	return id == cfg_nr_write || id == cfg_nr_pwrite64 || id == cfg_nr_writev ||
	       id == cfg_nr_pwritev;
}

/* The record beside a bio's Q. */
static __always_inline void emit_bio_info(struct bio *bio)
{
	__u32 opf = BPF_CORE_READ(bio, bi_opf), kind = IOT_HOST_NONE, cause, reason = 0;
	__u64 seq, ino = 0, index = 0, nth;
	struct task_struct *task;
	struct address_space *mapping = NULL;
	struct task_ctx *tc;
	struct iot_rec *r;
	long sys;
	struct page *page = NULL;
	struct inode *host = NULL;
	__u32 dev = bio_devt(bio), cgroup = 0, size;

	size = BPF_CORE_READ(bio, bi_iter.bi_size);
	if (!dev_wanted(dev, BPF_CORE_READ(bio, bi_iter.bi_sector)))
		return;
	if (BPF_CORE_READ(bio, bi_vcnt))
		page = BPF_CORE_READ(bio, bi_io_vec, bv_page);
	if (page) {
		struct folio *folio = page_folio_of(page, &nth);

		mapping = BPF_CORE_READ(folio, mapping);
		if ((unsigned long)mapping & IOT_PAGE_MAPPING_ANON) {
			kind = IOT_HOST_ANON;
		} else if (mapping) {
			__u32 mode;

			host = BPF_CORE_READ(mapping, host);
			mode = BPF_CORE_READ(host, i_mode) & IOT_S_IFMT;
			ino = BPF_CORE_READ(host, i_ino);
			index = BPF_CORE_READ(folio, index) + nth;
			kind = mode == IOT_S_IFREG   ? IOT_HOST_REG
			       : mode == IOT_S_IFDIR ? IOT_HOST_DIR
			       : mode == IOT_S_IFBLK ? IOT_HOST_BLK
						     : IOT_HOST_OTHER;
		}
	}
	if (bpf_core_field_exists(bio->bi_blkg)) {
		struct blkcg_gq *blkg = BPF_CORE_READ(bio, bi_blkg);

		if (blkg)
			cgroup = (__u32)BPF_CORE_READ(blkg, blkcg, css.cgroup, kn, id);
	}
	tc = task_ctx(false);
	sys = tc ? tc->sys - 1 : -1;
	task = bpf_get_current_task_btf();
	if (!size &&
	    (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_PREFLUSH)))) {
		cause = IOT_CAUSE_FLUSH;
	} else if (bpf_core_enum_value_exists(enum req_flag_bits, __REQ_SWAP) &&
		   (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_SWAP)))) {
		cause = IOT_CAUSE_SWAP;
	} else if (tc && tc->commit) {
		/* the commit writes its log, and in ordered mode the data the
		 * transaction's inodes dirtied */
		cause = kind == IOT_HOST_REG ? IOT_CAUSE_WRITEBACK : IOT_CAUSE_JOURNAL;
		reason = IOT_WB_JOURNAL;
	} else if (tc && tc->wb) {
		cause = IOT_CAUSE_WRITEBACK;
		reason = tc->wb;
	} else if (sys >= 0 && (sys == cfg_nr_fsync || sys == cfg_nr_fdatasync)) {
		cause = (opf & IOT_OP_MASK) == IOT_OP_READ ? IOT_CAUSE_READ
							   : IOT_CAUSE_WRITEBACK;
		reason = IOT_WB_FSYNC;
	} else if (sys >= 0 && (kind == IOT_HOST_NONE || kind == IOT_HOST_ANON)) {
		cause = IOT_CAUSE_DIRECT; /* the pages are the caller's own */
	} else if (sys >= 0 && (opf & IOT_OP_MASK) == IOT_OP_READ) {
		cause = IOT_CAUSE_READ;
	} else if (sys >= 0 && is_write_call(sys)) {
		cause = IOT_CAUSE_WRITEBACK; /* O_SYNC / O_DSYNC */
		reason = IOT_WB_WRITE_SYNC;
	} else if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_RAHEAD))) {
		cause = IOT_CAUSE_READAHEAD;
	} else if (BPF_CORE_READ(task, flags) & (IOT_PF_KSWAPD | IOT_PF_MEMALLOC)) {
		cause = IOT_CAUSE_WRITEBACK;
		reason = IOT_WB_VMSCAN;
	} else if ((opf & IOT_OP_MASK) == IOT_OP_WRITE && kind == IOT_HOST_REG) {
		/* a file's dirty pages, written by a task outside the calls
		 * traced: close() after a truncate (ext4's auto_da_alloc),
		 * sync_file_range(), msync() */
		cause = IOT_CAUSE_WRITEBACK;
		reason = IOT_WB_TASK;
	} else {
		cause = IOT_CAUSE_OTHER;
	}

	r = begin(IOT_EV_BIO_INFO, &seq);
	if (!r)
		return;
	r->id = (__u64)bio;
	r->id2 = ino;
	r->sector = index;
	r->nr = cgroup;
	r->dev = dev;
	r->flags = cause | reason << 8 | kind << 16;
	iot_commit(r, seq);
}

#endif /* IOTRAIL_CAUSE_BPF_H */
