/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel <-> user ABI of iotrail: one fixed 64-byte record for every
 * traced event, the per-CPU buffer control block, and the configuration
 * constants. Both the BPF programs and user space include this file; the
 * trace file stores these records unchanged (docs/FORMAT.md), so a field
 * changed here is a format version change.
 *
 * Fixed-width fields only, explicit padding, little-endian (the trace file is
 * only written on little-endian hosts).
 */
#ifndef IOTRAIL_EVENTS_H
#define IOTRAIL_EVENTS_H

#ifndef __bpf__
#include <linux/types.h>
#endif

/* Event types. The numbering is part of the trace format: append only. */
enum iot_ev {
	IOT_EV_NONE = 0,
	/* block layer, one per tracepoint */
	IOT_EV_BIO_QUEUE = 1,	   /* Q: id = bio */
	IOT_EV_GETRQ = 2,	   /* G: id = bio that got a request */
	IOT_EV_RQ_INSERT = 3,	   /* I: id = request, id2 = rq->bio */
	IOT_EV_RQ_ISSUE = 4,	   /* D: id = request, id2 = rq->bio */
	IOT_EV_RQ_COMPLETE = 5,	   /* C: id = request, nr = sectors done now,
				      id2 = sectors left before << 32 | error */
	IOT_EV_BIO_COMPLETE = 6,   /* C for bio-based devices: id = bio, id2 = error */
	IOT_EV_BIO_BACKMERGE = 7,  /* M: id = bio merged at the back of a request */
	IOT_EV_BIO_FRONTMERGE = 8, /* F: id = bio merged at the front of a request */
	IOT_EV_RQ_MERGE = 9,	   /* id = request merged away into its neighbour */
	IOT_EV_SPLIT = 10, /* X: id = new (front) bio, id2 = sector of the remainder */
	IOT_EV_BIO_REMAP = 11,	/* A: id = bio, id2 = old sector, aux = old dev */
	IOT_EV_RQ_REMAP = 12,	/* A: id = request, id2 = old sector, aux = old dev */
	IOT_EV_RQ_REQUEUE = 13, /* R: id = request */
	IOT_EV_PLUG = 14,	/* P: dev of the queue */
	IOT_EV_UNPLUG = 15,	/* U: nr = requests flushed, aux = explicit */
	IOT_EV_IO_START = 16,	/* block_io_start (accounting start), id = request */
	IOT_EV_IO_DONE = 17,	/* block_io_done (accounting end), id = request */
	IOT_EV_RQ_INFO = 18,	/* just before the C of a data-less request (a
				   flush): id = request, id2 = rq->bio (0 for the
				   flush machinery's own flush request), sector =
				   rq->start_time_ns (0 = not kept), nr = 0 */
	/* who and why (src/bpf/cause.bpf.h, docs/ATTRIBUTION.md) */
	IOT_EV_BIO_INFO = 19,	    /* beside a Q: id = bio, id2 = inode of its first
				       page (0: none), sector = that page's index in
				       the file, nr = cgroup (low 32 bits of the id of
				       the bio's blkcg), dev = the disk, flags = IOT_CAUSE_* |
				       IOT_WB_* << 8 | IOT_HOST_* << 16 */
	IOT_EV_DIRTY = 20,	    /* a task dirtied a page cache folio: id = inode,
				       id2 = folio index, nr = pages, dev = the
				       inode's filesystem */
	IOT_EV_EXEC = 21,	    /* a task took a new name (exec): id, id2 = its
				       16-byte comm */
	IOT_EV_COMMIT = 22,	    /* a jbd2 journal commit begins (flags 0) or ends
				       (flags 1): id = transaction id, dev = the
				       journal's filesystem (st_dev) */
	IOT_EV_WAKEUP = 23,	    /* a task inside a traced fsync/fdatasync was
				       woken: id = its tid (the record's tid is the
				       waker) */
	IOT_EV_FAULT = 24,	    /* a page fault on a file's page reached the page
				       cache (mm_filemap_fault): id = inode, id2 =
				       page index, dev = its filesystem */
	IOT_EV_URING_SUBMIT = 25,   /* an io_uring request that can reach a file
				       was submitted (io_uring_submit_req, in
				       the submitting thread: the caller or the
				       SQPOLL thread): id = the request (struct
				       io_kiocb), id2 = file position (~0: none),
				       nr = length, flags = IORING_OP_* |
				       IOT_URING_SQPOLL */
	IOT_EV_URING_COMPLETE = 26, /* its completion was posted
				       (io_uring_complete): id = the request,
				       id2 = user_data, sector = inode of its
				       file (0: none), nr = res (signed), dev
				       = the file's st_dev, flags = IORING_OP_* */
	IOT_EV_URING_WORK = 27,	    /* beside the BIO_INFO of a bio an io-wq
				       worker queued: id = the bio, id2 = the
				       request the worker runs (io_worker
				       ->cur_work) */
	IOT_EV_MARK = 28,	    /* a user marker (include/iotrail/marker.h), from the
				       IOT_CHUNK_MARKS stream: id = the mark's id,
				       id2 and sector = its name (16 bytes, NUL-padded),
				       flags = 0 point, 1 begin, 2 end; cpu = 0xffff */
	/* syscall layer */
	/* the NVMe driver layer, where the kernel has nvme_core's
	 * tracepoints (docs/DRIVER.md): id = request, nr = the NVMe queue id
	 * (0 admin, 1.. I/O: hctx queue_num + 1), dev, sector, flags as the
	 * request's */
	IOT_EV_DRV_SUBMIT = 29, /* nvme_setup_cmd: the command built, just
				   before the doorbell */
	IOT_EV_DRV_CQE = 30,	/* nvme_sq: the device's completion entry
				   handled; id2 = the SQ head it reported */
	IOT_EV_DRV_DONE = 31,	/* nvme_complete_rq: the driver ends the
				   request */
	IOT_EV_SYS_ENTER = 32,	/* id = pos or ~0, id2 = inode, sector = syscall nr,
				   nr = count (bytes; iovcnt for the v-calls),
				   dev = file's st_dev, aux = fd */
	IOT_EV_SYS_EXIT = 33,	/* sector = return value (signed), aux = syscall nr */
	/* one record per request (--summary) */
	IOT_EV_SUMMARY = 48, /* see struct iot_summary */
	/* fill: this CPU's buffer was full and tracing stopped on every CPU;
	 * flags = IOT_STOP_REASON_*, id2 = records dropped on this CPU */
	IOT_EV_STOP = 49,
	/* back-pressure (record --backpressure summary, the default): this
	 * CPU's buffer reached half full (flags IOT_DEGRADE_BEGIN, id = records
	 * then in it): from here the requests queued on this CPU are written as
	 * SUMMARY records, and its other events are not written, until the
	 * buffer is down to 1/4 (flags IOT_DEGRADE_END, id = records then in it,
	 * id2 = records this CPU did not write in the stretch) */
	IOT_EV_DEGRADE = 50,
	IOT_EV_MAX = 64,
};

/* Stable operation encoding: low 8 bits are the kernel's REQ_OP_* value
 * (READ 0, WRITE 1, FLUSH 2, DISCARD 3, ...), higher bits stable flags
 * translated from the running kernel's enum req_flag_bits at load time. */
#define IOT_OP_MASK    0xffu
#define IOT_OP_READ    0u
#define IOT_OP_WRITE   1u
#define IOT_OP_FLUSH   2u
#define IOT_OP_DISCARD 3u
#define IOT_F_SYNC     (1u << 8)
#define IOT_F_META     (1u << 9)
#define IOT_F_FUA      (1u << 10)
#define IOT_F_PREFLUSH (1u << 11)
#define IOT_F_RAHEAD   (1u << 12)
/* a value `iotrail repair` estimated, never a measurement (docs/REPAIR.md):
 * set on the records of a REPAIR chunk */
#define IOT_F_ESTIMATED (1u << 31)
/* the return value of a system call exit `iotrail repair` estimated: its
 * time is estimated, its value not known */
#define IOT_RET_UNKNOWN (-0x7fffffffffffffffll - 1)

/* IOT_EV_BIO_INFO: why a bio was queued. Stable numbers: append only. */
enum iot_cause {
	IOT_CAUSE_OTHER = 0,
	IOT_CAUSE_DIRECT = 1,	 /* in a read/write call, into the caller's pages */
	IOT_CAUSE_READ = 2,	 /* in a read call, into the page cache (a miss) */
	IOT_CAUSE_READAHEAD = 3, /* REQ_RAHEAD, outside a read call */
	IOT_CAUSE_FAULT = 4,	 /* a page fault (not yet told apart) */
	IOT_CAUSE_WRITEBACK = 5, /* dirty pages written: IOT_WB_* says why */
	IOT_CAUSE_JOURNAL = 6,	 /* a jbd2 commit's own blocks */
	IOT_CAUSE_FLUSH = 7,	 /* a data-less PREFLUSH bio */
	IOT_CAUSE_IO_URING = 8,
	IOT_CAUSE_AIO = 9,
	IOT_CAUSE_SWAP = 10, /* REQ_SWAP */
	IOT_CAUSE_MAX = 11,
};
/* why writeback wrote: the kernel's enum wb_reason (translated at load),
 * or the context the queueing task was in */
enum iot_wb {
	IOT_WB_NONE = 0,
	IOT_WB_BACKGROUND = 1, /* over the background dirty threshold */
	IOT_WB_VMSCAN = 2,     /* memory pressure (also: queued by reclaim) */
	IOT_WB_SYNC = 3,       /* sync(2), syncfs(2) */
	IOT_WB_PERIODIC = 4,   /* dirty_expire_centisecs */
	IOT_WB_FS_FREE_SPACE = 5,
	IOT_WB_OTHER = 6,      /* laptop mode, forker thread, foreign flush */
	IOT_WB_FSYNC = 7,      /* in fsync(2) / fdatasync(2) */
	IOT_WB_WRITE_SYNC = 8, /* in a write call (O_SYNC, O_DSYNC) */
	IOT_WB_JOURNAL = 9,    /* by a jbd2 commit (ordered data, or its log) */
	IOT_WB_TASK = 10,      /* by the dirtying task outside the calls traced */
	IOT_WB_MAX = 11,
};
#define IOT_FAULT_AROUND 1u /* IOT_EV_FAULT flags */

/* IOT_EV_URING_SUBMIT flags above the opcode */
#define IOT_URING_OP_MASK 0xffu
#define IOT_URING_SQPOLL  (1u << 8) /* submitted by the ring's SQPOLL thread */

/* what the host inode of the bio's first page is */
enum iot_host {
	IOT_HOST_NONE = 0, /* no page cache page (the caller's, or none) */
	IOT_HOST_REG = 1,  /* a regular file: data */
	IOT_HOST_DIR = 2,
	IOT_HOST_BLK = 3, /* a block device's buffer cache: metadata, journal */
	IOT_HOST_OTHER = 4,
	IOT_HOST_ANON = 5, /* anonymous memory */
};

/*
 * One traced event, 64 bytes. The meaning of id, id2, sector, nr and aux per
 * type is listed in enum iot_ev above and in docs/FORMAT.md.
 * seq is written last by the producer: a slot whose seq does not equal the
 * slot's expected sequence number is not (yet) a committed record.
 */
struct iot_rec {
	__u64 ts_ns;  /* bpf_ktime_get_ns(): CLOCK_MONOTONIC, nanoseconds */
	__u64 seq;    /* per-CPU sequence number, 0-based, gapless */
	__u64 id;     /* kernel address of the bio / request; see enum iot_ev */
	__u64 id2;    /* related object or value; see enum iot_ev */
	__u64 sector; /* first sector (512-byte units); syscalls: see enum */
	__u32 nr;     /* length in 512-byte sectors; syscalls: bytes */
	__u32 dev;    /* kernel dev_t: major << 20 | minor */
	__u32 pid;    /* tgid of the current task */
	__u32 tid;    /* pid of the current task */
	__u16 type;   /* enum iot_ev */
	__u16 cpu;    /* CPU that produced the record */
	__u32 flags;  /* IOT_OP_* | IOT_F_*; aux for some types (enum iot_ev) */
};

/*
 * --summary: one record per request with every stage's timestamp. Same size
 * as iot_rec, with ts_ns, seq, type, cpu and flags at the same offsets, so
 * both travel through the same buffers, files and merge. Stage deltas are 0
 * when the stage was not seen (bio-based devices have no G, I, D; a request
 * issued without a scheduler has no I) and saturate at 4.29 s.
 */
struct iot_summary {
	__u64 c_ns;	  /* completion (C), CLOCK_MONOTONIC ns: the sort key */
	__u64 seq;	  /* as in iot_rec */
	__u64 sector;	  /* first sector (512-byte units) */
	__u64 q_ns;	  /* first bio queued (Q), CLOCK_MONOTONIC ns */
	__u32 g_delta_ns; /* G - Q, ns */
	__u32 i_delta_ns; /* I - Q, ns */
	__u32 d_delta_ns; /* D - Q, ns */
	__u32 nr;	  /* sectors of the request */
	__u32 dev;	  /* kernel dev_t of the disk */
	__u32 tid;	  /* submitting thread (its tgid is in the task table) */
	__u16 type;	  /* IOT_EV_SUMMARY */
	__u16 cpu;	  /* CPU of the completion */
	__u32 flags;	  /* IOT_OP_* | IOT_F_*; IOT_SUMMARY_F_ERROR */
};
#define IOT_SUMMARY_F_ERROR (1u << 31)
/* no completion: the request was issued (D) and no program saw it
 * complete. LOST: its slot was claimed again for a new bio at its address
 * (the kernel ran no program for the completion; c_ns: when that was
 * found), or reaped by the recorder after a minute (c_ns: the stop). UNFINISHED: still in
 * flight at the stop (c_ns: the stop). The join counts them as it counts such requests in
 * the events: left out. */
#define IOT_SUMMARY_F_LOST	 (1u << 30)
#define IOT_SUMMARY_F_UNFINISHED (1u << 29)
#define IOT_DEGRADE_END		 0u /* IOT_EV_DEGRADE flags */
#define IOT_DEGRADE_BEGIN	 1u

/*
 * Per-CPU buffer control block, one per CPU in the mmap-able "ctl" array.
 * head is advanced by the producer (BPF, atomically: interrupts nest),
 * tail by the consumer (user space). Padded to a cache line pair so the
 * producer's and consumer's lines never share.
 */
struct iot_ctl {
	__u64 head;	     /* next sequence number to reserve */
	__u64 drops_full;    /* records dropped: buffer full */
	__u64 drops_nostate; /* --summary: no free way for a request's state */
	__u64 spec_unavail;  /* --speculate: every speculation buffer busy */
	__u64 spec_drops;    /* --speculate: records over specsize, dropped */
	__u64 spec_commits;  /* --speculate: requests committed (slow or failed) */
	__u64 spec_discards; /* --speculate: requests discarded (fast) */
	__u64 degraded;	     /* back-pressure: 1 inside a stretch */
	__u64 tail;	     /* first sequence number not yet consumed */
	/* --aggregate: slots claimed again while they held an issued request,
	 * whose completion no program saw (not in the histograms); the
	 * recorder adds the ones it reaps to CPU 0's */
	__u64 agg_lost;
	/* --aggregate: requests of a disk that found every histogram slot
	 * taken (also in drops_nostate) */
	__u64 agg_no_slot;
	__u64 pad1[5];
	/* back-pressure, written by the producer in a stretch only */
	__u64 degrade_skipped;	 /* records not written, every stretch */
	__u64 degrade_summaries; /* requests queued here in a stretch */
	__u64 degrade_ns;	 /* time inside stretches that ended */
	__u64 degrade_since_ns;	 /* the open stretch's begin */
	__u64 degrade_skipped0;	 /* degrade_skipped when it began */
	__u64 degrades;		 /* stretches begun */
	__u64 pad2[2];
};

/*
 * The in-flight state of --summary, --aggregate, --trigger and --speculate:
 * a 4-way set-associative table in an mmap-able array, IOT_SUM_SETS sets of
 * IOT_SUM_WAYS slots, indexed by a hash of the bio's address. key 0 = free;
 * a slot is claimed with a compare-and-swap on key and freed by storing 0.
 * spec (--speculate) is taken with an atomic exchange by whoever frees the
 * buffer (the completion, or the recorder's reaper), so it is freed once.
 */
struct iot_sum_slot {
	__u64 key;  /* bio address, 0 when free */
	__u64 q_ns; /* Q, CLOCK_MONOTONIC ns */
	__u64 sector;
	__u32 i_delta_ns, d_delta_ns;
	__u32 nr, dev, tid, flags;
	__u64 spec; /* --speculate: speculation buffer + 1, 0 = none */
	__u64 c_ns; /* --speculate: the completion record's time */
};
#define IOT_SUM_SETS 16384u
#define IOT_SUM_WAYS 4u

/* Principal buffer policies (DTrace's bufpolicy). */
#define IOT_POLICY_SWITCH 0u /* drop what does not fit, count it; never pause */
#define IOT_POLICY_FILL	  1u /* stop everything at the first full CPU */
#define IOT_POLICY_RING	  2u /* overwrite the oldest; written out at the end */

/* Why the kernel side stopped tracing (struct iot_stop.reason). */
#define IOT_STOP_REASON_FULL	1u /* fill: a CPU's buffer was full */
#define IOT_STOP_REASON_TRIGGER 2u /* ring: --trigger fired */

/* The kernel side's stop state, in the BPF program's .bss. */
struct iot_stop {
	__u64 reason;	   /* 0 while tracing, else IOT_STOP_REASON_* (64-bit:
			      compare-and-swap on it needs no BPF v3 atomics) */
	__u64 ts_ns;	   /* when */
	__u64 trig_q2c_ns; /* trigger: the request's Q2C */
	__u64 trig_sector; /* trigger: its first sector */
	__u32 cpu;	   /* the CPU that stopped it */
	__u32 trig_dev;	   /* trigger: its disk */
	__s32 trig_error;  /* trigger: its completion status */
	__u32 pad;
};

/*
 * --aggregate: log2 histograms in the kernel, in an mmap-able array with one
 * region per CPU (aggsize sets how many device slots, at most IOT_AGG_DEVS).
 * Slot 0 is "no device": the system calls' IOT_AGG_SYSCALLS histograms, one
 * a kind. The others are handed out in order of first sight ("agg_devs"
 * map: dev_t -> slot), each IOT_AGG_OPS x IOT_AGG_DEV_METRICS histograms
 * (iot_agg_hist). A histogram is IOT_AGG_KBUCKETS counters (bucket k:
 * values in [2^k, 2^(k+1)), 0 and 1 in bucket 0, 2^39 and more in the
 * last) and its sum. The AGG chunks carry IOT_AGG_BUCKETS a histogram, the
 * ones past the kernel's 0.
 */
/* at most: a storage server may have hundreds of disks; by default a slot
 * for each disk (at least 16), 256 under serve --by cgroup, within a share of
 * MemAvailable (src/record/load.c, agg_slots) */
#define IOT_AGG_DEVS	      1024u
#define IOT_AGG_OPS	      3u /* read, write, other */
#define IOT_AGG_METRICS	      16u
#define IOT_AGG_BUCKETS	      64u
#define IOT_AGG_KBUCKETS      40u		      /* 2^40 ns is 18 minutes */
#define IOT_AGG_KHIST	      (IOT_AGG_KBUCKETS + 1u) /* buckets, then the sum */
#define IOT_AGG_SYSCALLS      10u /* kinds: IOT_AGG_SYSCALL + 0 .. 9 */
#define IOT_AGG_DEV_METRICS   6u  /* IOT_AGG_Q2G .. IOT_AGG_SIZE */
#define IOT_AGG_HISTS_PER_DEV (IOT_AGG_OPS * IOT_AGG_DEV_METRICS)
/* the histograms of a region of `slots` slots, slot 0 included */
#define IOT_AGG_HISTS(slots) (IOT_AGG_SYSCALLS + ((slots)-1u) * IOT_AGG_HISTS_PER_DEV)
/* metrics: the five stages (ns), request size (bytes), syscalls (ns) */
#define IOT_AGG_Q2G  0u
#define IOT_AGG_G2I  1u
#define IOT_AGG_I2D  2u
#define IOT_AGG_D2C  3u
#define IOT_AGG_Q2C  4u
#define IOT_AGG_SIZE 5u
#define IOT_AGG_SYSCALL                                                                  \
	6u /* + syscall kind: read write pread64 pwrite64                                \
	      readv writev preadv pwritev fsync fdatasync */

/* Where (slot, op, metric) lies in a region, in histograms: slot 0 takes
 * the system calls' metrics (op 0), the others the devices'. The caller
 * keeps to those. */
static inline __u32 iot_agg_hist(__u32 slot, __u32 op, __u32 metric)
{
	return slot ? IOT_AGG_SYSCALLS +
			  ((slot - 1) * IOT_AGG_OPS + op) * IOT_AGG_DEV_METRICS + metric
		    : metric - IOT_AGG_SYSCALL;
}

/* iot_agg_hist's inverse: the slot of histogram h, and its op and metric */
static inline __u32 iot_agg_slot(__u32 h)
{
	return h < IOT_AGG_SYSCALLS ? 0
				    : 1 + (h - IOT_AGG_SYSCALLS) / IOT_AGG_HISTS_PER_DEV;
}
static inline __u32 iot_agg_op(__u32 h)
{
	return h < IOT_AGG_SYSCALLS
		   ? 0
		   : (h - IOT_AGG_SYSCALLS) / IOT_AGG_DEV_METRICS % IOT_AGG_OPS;
}
static inline __u32 iot_agg_metric(__u32 h)
{
	return h < IOT_AGG_SYSCALLS ? IOT_AGG_SYSCALL + h
				    : (h - IOT_AGG_SYSCALLS) % IOT_AGG_DEV_METRICS;
}

/* --speculate: bios of one request whose speculations a completion closes
 * (the head bio and the bios merged into it, following bi_next) */
#define IOT_SPEC_CHAIN 64u

/*
 * record --flow (docs/FLOWS.md, "Recording only some flows"): definitions
 * user space fixes before load. A flow starts where its start kind and
 * every set filter match; the programs then carry its bit (one per
 * definition) on the task for the system call, on the bio, its split parts,
 * its request, and through a loop device on the backing file's pages, and
 * write only events that carry a bit.
 */
#define IOT_FLOW_MAX	   8u
#define IOT_FLOW_MAX_LOOPS 16u
/* start kinds: a system call, an io_uring request, or a bio of a cause */
#define IOT_FLOW_START_SYSCALL	 (1u << 0)
#define IOT_FLOW_START_URING	 (1u << 1)
#define IOT_FLOW_START_WRITEBACK (1u << 2)
#define IOT_FLOW_START_JOURNAL	 (1u << 3)
#define IOT_FLOW_START_READAHEAD (1u << 4)
#define IOT_FLOW_START_FLUSH	 (1u << 5)
#define IOT_FLOW_START_OTHER	 (1u << 6) /* any other bio: swap, metadata, ... */
#define IOT_FLOW_START_FAULT	 (1u << 7) /* a page fault on a file's page */
/* operations: a system call's kind, or a bio's op */
#define IOT_FLOW_OP_READ  (1u << 0)
#define IOT_FLOW_OP_WRITE (1u << 1)
#define IOT_FLOW_OP_SYNC  (1u << 2) /* fsync, fdatasync; a flush bio */
struct iot_flow_def {
	__u32 starts; /* IOT_FLOW_START_* */
	__u32 ops;    /* IOT_FLOW_OP_*, 0: any */
	__u32 tgid;   /* 0: any */
	__u32 dev;    /* a file's st_dev (system call) or a bio's disk, 0: any */
	__u64 cgroup; /* cgroup v2 id (bpf_get_current_cgroup_id), 0: any */
	__u64 ino;    /* the file's inode, 0: any */
	__u64 size_min, size_max; /* bytes asked, or the bio's */
	__u64 off_min, off_max;	  /* file position, or the bio's sector * 512 */
	char comm[16];		  /* the task's, "" any */
};

#define IOT_REC_SIZE 64u
#define IOT_MAX_CPUS 8192u /* possible CPUs: x86-64's NR_CPUS at most */
/* cfg_cpu_buf of a CPU offline when the recording began: it has no buffer */
#define IOT_NO_BUF 0xffffffffu
/* free slots kept back so that records of nested programs (interrupts on the
 * same CPU) never overwrite unconsumed ones */
#define IOT_SLACK_SLOTS 16u

#endif /* IOTRAIL_EVENTS_H */
