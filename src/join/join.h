/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The request join: turns the time-ordered event stream into completed
 * requests (with every stage time), the bios each carried, and the system
 * calls that caused them. The state machine is drawn in join.c.
 *
 * Output goes to a join_sink; pointers passed to it are valid only during
 * the call.
 */
#ifndef IOTRAIL_JOIN_JOIN_H
#define IOTRAIL_JOIN_JOIN_H

#include <stdbool.h>
#include <stdint.h>

#include "../trace/format.h"
#include "../trace/gaps.h"
#include "../trace/syscalls.h"
#include "../util/u64map.h"

/* One request (or, on bio-based devices, one bio) that completed. */
struct join_request {
	uint64_t rq;	     /* kernel address; 0 for a bio-only I/O */
	uint32_t dev;	     /* disk dev_t */
	uint32_t flags;	     /* IOT_OP_* | IOT_F_* */
	uint64_t sector;     /* first sector at issue */
	uint32_t nr_sectors; /* sectors completed */
	uint32_t pid, tid;   /* submitter of the first bio (0: unknown) */
	uint64_t ino;	     /* inode of the syscall that queued it, 0 = none */
	uint64_t q_ns, g_ns, i_ns, d_ns, c_ns; /* stage times, 0 = not seen */
	/* the CPU each stage's event ran on (meaningful where its time is) */
	uint16_t q_cpu, g_cpu, i_cpu, d_cpu, c_cpu;
	uint64_t start_ns; /* the kernel's rq->start_time_ns, recorded for
			      data-less requests (flushes) only; 0 = unknown */
	uint32_t nr_bios;  /* bios carried (1 + merged) */
	uint32_t nr_requeues;
	int32_t error; /* blk_status_t of the completion */
	bool bio_only; /* bio-based device: Q and C only */
	/* the NVMe driver layer (IOT_EV_DRV_*, docs/DRIVER.md), 0 = not seen:
	 * the command built, its completion entry handled, the driver done */
	uint64_t drv_submit_ns, drv_cqe_ns, drv_done_ns;
	uint32_t hwq;	   /* the NVMe queue id, when drv_submit_ns */
	uint8_t estimated; /* JOIN_EST_*: times `iotrail repair` estimated */
};

#define JOIN_EST_C 1u /* c_ns (docs/REPAIR.md) */
#define JOIN_EST_D 2u /* d_ns */
#define JOIN_EST_Q 4u /* q_ns: its first bio's, or any bio's it carries */

/* The flush machinery's own flush request (blk-flush.c's flush_rq): no
 * bio, op FLUSH. /proc/diskstats counts these as flushes, and their time
 * from start_ns. The data-less PREFLUSH write it is issued for completes
 * right after it, as a write of 0 sectors without I or D. */
static inline bool join_is_flush_rq(const struct join_request *r)
{
	return (r->flags & IOT_OP_MASK) == IOT_OP_FLUSH && !r->nr_bios;
}

/* Who and why, from the IOT_EV_BIO_INFO beside a bio's Q (src/bpf/cause.bpf.h)
 * and, for writeback of a file's pages, the IOT_EV_DIRTY of its first page. */
struct join_why {
	bool known;	      /* a BIO_INFO was seen (traces since format 1.3) */
	uint8_t cause;	      /* IOT_CAUSE_* */
	uint8_t wb;	      /* IOT_WB_* */
	uint8_t host;	      /* IOT_HOST_* */
	uint32_t cgroup;      /* low 32 bits of the blkcg's cgroup id, 0 unknown */
	uint64_t ino;	      /* inode of the first page, 0 none */
	uint64_t index;	      /* that page's index in its file */
	uint32_t dirtier_pid; /* writeback: the task that dirtied the first */
	uint32_t dirtier_tid; /* page while recording; 0 unseen */
};

/* One bio of a completed request (btt counts Q2C per bio). */
struct join_bio {
	uint64_t q_ns; /* its own queue time, 0 = queued before the trace */
	uint64_t sector;
	uint32_t nr_sectors;
	uint32_t tid;
	uint64_t ino; /* inode of the syscall that queued it, 0 = none */
	uint32_t pid; /* the task that queued it */
	struct join_why why;
	uint64_t uring_req;    /* the io_uring request it serves (struct io_kiocb
				  address), 0 none known */
	uint16_t cpu;	       /* the CPU its Q ran on */
	uint64_t sys_enter_ns; /* the system call it was queued in (by the same
				  task, between its enter and exit): that
				  call's enter time, 0 none */
};

/* One system call, at its exit. */
struct join_syscall {
	uint32_t pid, tid;
	uint32_t nr; /* syscall number */
	uint32_t fd;
	uint32_t rwf; /* preadv2, pwritev2: RWF_* flags (the low 8 bits) */
	uint32_t dev; /* the file's st_dev (kernel encoding) */
	uint64_t ino;
	uint64_t pos;	/* file position, ~0 when not applicable */
	uint64_t count; /* bytes asked (iovcnt for the v-calls) */
	int64_t ret;
	uint64_t enter_ns, exit_ns;
	uint16_t enter_cpu, exit_cpu;
	uint64_t wake_ns;      /* fsync, fdatasync: the last wakeup of the task
				  in the call (IOT_EV_WAKEUP), 0 none seen */
	uint32_t nr_bios;      /* bios the task queued during the call */
	uint32_t nr_ra_bios;   /* of which read ahead of what a read call
				  asked for (cause readahead) */
	uint32_t nr_bios_done; /* of which completed before the exit */
	uint64_t bio_q2c_sum_ns, bio_q2c_min_ns, bio_q2c_max_ns;
	uint64_t i2d_sum_ns; /* scheduler time of those bios' requests */
	uint32_t nr_i2d;
	bool estimated; /* its exit is `iotrail repair`'s estimate: ret is
			   IOT_RET_UNKNOWN */
};

/* One journal commit (jbd2_start_commit .. jbd2_end_commit), at its end. */
struct join_commit {
	uint32_t dev; /* the journal's filesystem (st_dev, kernel encoding) */
	uint32_t tid; /* the transaction */
	uint64_t start_ns, end_ns;
};

/* A traced task's page fault on a file's page (IOT_EV_FAULT): the
 * faulting page, or the pages fault-around mapped. */
struct join_fault {
	uint32_t pid, tid;
	uint32_t dev; /* the file's st_dev */
	uint64_t ino;
	uint64_t index; /* first page */
	uint32_t pages;
	bool around; /* mapped by fault-around: touched or not, unknown */
	uint64_t ts_ns;
};

/* A traced task made page cache pages of a file dirty (IOT_EV_DIRTY: the
 * kernel's writeback_dirty_folio, in the dirtier's context; a page already
 * dirty is not made so again, and not seen). */
struct join_dirty {
	uint32_t pid, tid;
	uint32_t dev; /* the file's st_dev */
	uint64_t ino;
	uint64_t index; /* first page */
	uint32_t pages;
	uint64_t ts_ns;
};

/* A user marker (IOT_EV_MARK), as recorded. */
struct join_mark {
	uint64_t ts_ns;
	uint32_t pid, tid;
	uint64_t id;
	char name[17]; /* NUL-terminated */
	uint8_t kind;  /* 0 point, 1 begin, 2 end */
};

/* How an io_uring request's bios are tied to it (docs/ATTRIBUTION.md). */
enum join_uring_via {
	JOIN_URING_INLINE = 0, /* queued by the submitting task after the
				  request's io_uring_submit_req, within its
				  io_uring_enter (same thread, in sequence) */
	JOIN_URING_SQPOLL = 1, /* the same, by the ring's SQPOLL thread */
	JOIN_URING_IO_WQ = 2,  /* queued by an io-wq worker running it: the
				  worker's cur_work names it (kernel pointer) */
};

/* One io_uring request that can reach a file, at its completion. */
struct join_uring {
	uint64_t req;	       /* struct io_kiocb address */
	uint64_t user_data;    /* from the completion */
	uint64_t pos;	       /* file position of a read or write, ~0 none */
	uint32_t len;	       /* bytes asked */
	uint8_t opcode;	       /* IORING_OP_* */
	uint8_t via;	       /* enum join_uring_via of its bios */
	bool submit_seen;      /* false: submitted before the trace began */
	uint32_t pid, tid;     /* the submitting task (SQPOLL: its thread) */
	uint64_t ino;	       /* its file, 0 none */
	uint32_t dev;	       /* the file's st_dev */
	int32_t res;	       /* the completion's result */
	uint64_t submit_ns;    /* io_uring_submit_req, 0 unseen */
	uint64_t cqe_ns;       /* io_uring_complete */
	uint32_t nr_bios;      /* bios tied to it */
	uint32_t nr_bios_done; /* of which completed before the CQE */
	uint64_t sectors;      /* of those */
	uint64_t first_sector; /* of its first bio queued */
	uint32_t bio_dev;      /* that bio's disk */
	uint64_t first_q_ns, last_c_ns;
	uint64_t d2c_sum_ns; /* device time of its bios' requests, summed */
};

struct join_sink {
	void *ctx;
	void (*request)(void *ctx, const struct join_request *r);
	void (*bio)(void *ctx, const struct join_request *r, const struct join_bio *b);
	void (*syscall)(void *ctx, const struct join_syscall *s);
	void (*commit)(void *ctx, const struct join_commit *c); /* optional */
	void (*uring)(void *ctx, const struct join_uring *u);	/* optional */
	void (*fault)(void *ctx, const struct join_fault *f);	/* optional */
	void (*dirty)(void *ctx, const struct join_dirty *d);	/* optional */
	void (*mark)(void *ctx, const struct join_mark *m);	/* optional */
	/* optional, at join_end(): each request never completed (c_ns 0):
	 * in flight as the trace ended, or its completion not shown */
	void (*unfinished)(void *ctx, const struct join_request *r);
	/* Optional: every request (and each of its bios) given after this has
	 * each of its times (Q, G, I, D, C) at or after ns, but for a record
	 * that came into the stream late (committed after later ones were
	 * read; the plan refuses such a trace, docs/ARCHITECTURE.md) and a
	 * summary no back-pressure stretch announced. Called between outputs
	 * where the stream passes a multiple of 2^JOIN_FLOOR_SHIFT ns, at the same
	 * places whatever the threads (parallel.c), so that what an analyzer
	 * keeps in time order can go as it is settled. For events-mode
	 * streams: a --summary recording's requests are all summaries. */
	void (*floor)(void *ctx, uint64_t ns);
};

/* the floor's grid (join_sink.floor): 2^24 ns, about 17 ms */
#define JOIN_FLOOR_SHIFT 24

struct join_stats {
	uint64_t events;	     /* records fed */
	uint64_t orphan_completions; /* completions of requests never seen queued */
	uint64_t lost_completions;   /* requests issued whose completion never
					came (their address was issued again) */
	uint64_t unmatched_merges;   /* merges into requests never seen */
	uint64_t lost_syscall_exits;
	/* requests seen but not completed when the trace ended (join_end): in
	   flight when it stopped, or their completion lost with their address
	   never issued again */
	uint64_t unfinished;
	uint64_t invalid;     /* block records without a kernel address: damage */
	uint64_t dirty_pages; /* pages seen dirtied (IOT_EV_DIRTY) */
	uint64_t wb_dirtier_found, wb_dirtier_unseen; /* writeback bios */
	uint64_t commits, commit_ends_unmatched;      /* journal commits */
	uint64_t splits, remaps, requeues, rq_merges;
	/* io_uring requests: completed; completions without a submission
	 * seen (submitted before the trace); submissions whose request
	 * address came back without a completion (lost) */
	uint64_t uring_done, uring_unsubmitted, uring_lost;
	/* NVMe driver events of no request in flight (its D not seen) */
	uint64_t drv_unmatched;
	/* completions, issues, bio queueings and system call exits `iotrail
	 * repair` estimated (IOT_F_ESTIMATED) */
	uint64_t estimated_completions, estimated_issues, estimated_queues;
	uint64_t estimated_exits;
	/* system calls open on a CPU when a back-pressure stretch began
	 * there, left out: their exits most likely not written */
	uint64_t bp_cut_syscalls;
	/* system calls whose enter and exit have records of their CPU lost
	 * between them (a full buffer): left out, the exit most likely another
	 * call's, its own lost (gaps.h) */
	uint64_t lost_cut_syscalls;
};

struct join_bio_st;
struct join_req_st;
struct join_sys_st;
struct join_uring_st;

struct join {
	struct join_sink sink;
	bool (*is_bio_based)(void *ctx, uint32_t dev);
	void *dev_ctx;
	/* is_bio_based's last answer (a trace's devices do not change), for
	 * the device of the last bio completed: bb_dev + 1, 0 for none */
	uint64_t bb_dev1;
	bool bb_last;
	/* the trace's system call numbers by kind (syscalls.h), for the causes
	 * of bios queued in a call; NULL: not known */
	const uint32_t *syscall_nr;
	/* a trace whose recorder leaves out a BIO_INFO equal to the last
	 * plain one of its CPU (format >= 1.4, src/bpf/cause.bpf.h bi_plain):
	 * the join repeats it from its own copy of that slot */
	bool bi_elided;
	/* where the trace's streams lost records (the reader's or the plan's
	 * list, gaps.h); NULL: not known, every exit is taken as its call's */
	struct trace_gaps *gaps;
	struct join_plain {
		uint32_t tid1; /* tid + 1, 0 none */
		uint32_t cgroup;
		uint8_t host;
	} * plain; /* per CPU */
	size_t nr_plain;
	struct join_stats st;

	struct join_bio_st *bios;
	uint32_t nr_bios, free_bio;
	size_t cap_bios;
	struct join_req_st *reqs;
	uint32_t nr_reqs, free_req;
	uint32_t held; /* requests held for the flush sequence's end, a list */
	size_t cap_reqs;
	struct join_sys_st *sys;
	uint32_t nr_sys, free_sys, sys_gen;
	size_t cap_sys;

	struct u64map bio_by_ptr;   /* bio address -> bio */
	struct u64map bio_by_start; /* (dev, sector) -> bio not yet in a request */
	struct u64map rq_by_ptr;    /* request address -> request */
	struct u64map req_by_end;   /* (dev, end sector) -> mergeable request */
	struct u64map req_by_start; /* (dev, start sector) -> mergeable request */
	struct u64map sys_by_tid;   /* tid -> open system call */
	struct u64map dirtier;	    /* (inode, page index) -> tid that dirtied it */
	struct u64map tgid;	    /* tid -> tgid, of the dirtiers */
	struct u64map fault;	    /* tid -> low 32 bits of the inode of its
				       last page cache fault (IOT_EV_FAULT) */
	struct u64map fault_index;  /* tid -> that fault's page index (low 32) */
	struct join_uring_st *urings;
	uint32_t nr_urings, free_uring, uring_gen;
	size_t cap_urings;
	struct u64map uring_by_ptr; /* io_kiocb address -> open io_uring request */
	struct u64map uring_by_tid; /* tid -> the request it submitted last, in
				       its open io_uring_enter or SQPOLL loop */
	/* the sink's floor: the next multiple of 2^JOIN_FLOOR_SHIFT ns a
	 * record's time reaching gives one (UINT64_MAX: no floor hook); the
	 * first back-pressure stretch's begin, which bounds it from there on
	 * (the stretches' summaries come at completion, with times from
	 * before); a scratch map of the pools' free slots */
	uint64_t floor_next, floor_pin;
	uint8_t *floor_free;
	size_t floor_free_cap;
	/* journal commits begun and not yet ended: one per journal at a time */
#define JOIN_OPEN_COMMITS 16
	struct join_commit open_commits[JOIN_OPEN_COMMITS];
	uint32_t nr_open_commits;
};

/* is_bio_based(dev) tells whether a device completes bios without requests
 * (zram, brd); NULL means "guess from the events". 0 or -ENOMEM. */
int join_init(struct join *j, const struct join_sink *sink,
	      bool (*is_bio_based)(void *ctx, uint32_t dev), void *dev_ctx);
/* Feeds one record, in time order. 0 or -ENOMEM. */
int join_feed(struct join *j, const struct iot_rec *r);
/* Feeds n records, in time order, as n join_feed calls would (one call: a
 * record's call was 17 of the join's 95 own instructions a record); stops
 * at the first error. 0 or -ENOMEM. */
int join_feed_n(struct join *j, const struct iot_rec *const *r, size_t n);
/* Feeds a --summary record (already joined in the kernel). */
void join_feed_summary(struct join *j, const struct iot_summary *s);
/* The end of the stream: what the join still holds (requests waiting for
 * the flush machinery's last end) is emitted. */
void join_end(struct join *j);
void join_release(struct join *j);

/* ---- the segment-parallel join's view of the state (canon.c) ---- */

/* The state in canonical form: the same bytes for two joins mean the same
 * outputs from the same records on (canon.c says what is in it). */
struct join_canon {
	unsigned char *out;
	size_t len, cap;
	bool ambiguous; /* equals nothing */
	unsigned char *tmp;
	size_t tmp_len, tmp_cap;
	struct join_canon_ent *ent;
	size_t nr_ent, cap_ent;
};
/* 0 or -ENOMEM; c is reused from call to call */
int join_canon(const struct join *j, struct join_canon *c);
void join_canon_release(struct join_canon *c);
/* the sizes of the state's maps and lists: unequal, the forms are too */
#define JOIN_NR_SIZES 13
void join_sizes(const struct join *j, uint64_t out[JOIN_NR_SIZES]);
/* The facts that records alone write, whatever the state: each CPU's
 * plain BIO_INFO, each task's last page cache fault, the dirtiers' tgids.
 * A join begun mid-trace is given them as they stood there. */
struct join_seed {
	struct join_plain *plain;
	size_t nr_plain;
	struct u64map fault, fault_index, tgid;
	uint64_t pin; /* the first back-pressure stretch's begin (join.floor_pin)
			 + 1, 0: none yet */
};
int join_seed_init(struct join_seed *s);
/* One record more (in stream order); 0 or -ENOMEM */
int join_seed_feed(struct join_seed *s, const struct iot_rec *r, bool bi_elided);
int join_seed_copy(struct join_seed *to, const struct join_seed *from);
/* The facts of a stretch's records (a seed fed them from init) over the
 * facts before it: as if fed one after the other; 0 or -ENOMEM */
int join_seed_merge(struct join_seed *to, const struct join_seed *later);
/* Into a join just made (join_init); 0 or -ENOMEM */
int join_seed_apply(struct join *j, const struct join_seed *s);
void join_seed_release(struct join_seed *s);

#endif
