/* SPDX-License-Identifier: GPL-2.0 */
/* The maps of src/bpf/top.bpf.c, as user space reads them. */
#ifndef IOTRAIL_TOP_ABI_H
#define IOTRAIL_TOP_ABI_H

#ifndef __bpf__
#include <linux/types.h>
#endif

/* the stages of a request: from the kernel's rq->start_time_ns to the
 * issue to the driver (sched), from there to the completion (dev), and the
 * whole (await), as `iotrail stat --trace` splits it */
enum { TOP_SCHED, TOP_DEV, TOP_AWAIT, TOP_STAGES };
enum { TOP_READ, TOP_WRITE, TOP_OTHER, TOP_OPS }; /* other: flush, discard */

#define TOP_HIST 64 /* log2 buckets of ns: k holds [2^k, 2^(k+1)), 0 and 1 in 0 */

/* the key of a process's counts: per disk, so that a view of some disks
 * counts a process's requests on them only */
struct top_proc_key {
	__u32 tgid, disk;
};

/* per process and disk, and per disk, since the programs were attached */
struct top_stats {
	__u64 ios[TOP_OPS], bytes[TOP_OPS];
	__u64 sum_ns[TOP_STAGES];
	__u64 hist[TOP_STAGES][TOP_HIST];
	char comm[16]; /* processes: the first task seen doing I/O */
};

struct top_lost {
	__u64 requests_full; /* requests the table of requests had no room for */
	__u64 procs_full;    /* completions of a process the table had no room for */
	__u64 missed;	     /* requests used again before their completion came */
};

#endif
