/* SPDX-License-Identifier: GPL-2.0 */
/* The maps of src/bpf/sched.bpf.c, as user space reads them. */
#ifndef IOTRAIL_SCHED_ABI_H
#define IOTRAIL_SCHED_ABI_H

#ifndef __bpf__
#include <linux/types.h>
#endif

#define SCHED_HIST 32 /* log2 buckets of microseconds */

struct sched_task {
	__u32 tgid, pad;
	char comm[16];
	__u64 voluntary, involuntary, migrations;
	__u64 run_ns, on_ns; /* on_ns: on a CPU since, 0 not */
	__u64 runq_count, runq_sum_ns, runq_max_ns;
	__u64 runq_hist[SCHED_HIST]; /* wakeup (or preemption) to running, us */
};

struct sched_cpu {
	__u64 busy_ns, switches;
	__u64 last_ns;
	__u64 last_busy;
};

#endif
