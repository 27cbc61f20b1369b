/* SPDX-License-Identifier: GPL-2.0 */
/* The maps of src/bpf/devlat.bpf.c, as user space reads them. */
#ifndef IOTRAIL_DEVLAT_ABI_H
#define IOTRAIL_DEVLAT_ABI_H

#ifndef __bpf__
#include <linux/types.h>
#endif

/* the kernel's stat groups (op_stat_group()): the order of /proc/diskstats */
enum { DEVLAT_READ, DEVLAT_WRITE, DEVLAT_DISCARD, DEVLAT_FLUSH, DEVLAT_GROUPS };

/* Per disk (and per partition), counted since the programs were attached,
 * each request at its completion as the kernel counts diskstats: */
struct devlat_dev {
	__u64 ios[DEVLAT_GROUPS];
	__u64 g2d_ns[DEVLAT_GROUPS]; /* rq->start_time_ns to issue (D) */
	__u64 d2c_ns[DEVLAT_GROUPS]; /* issue to completion (C) */
	__u64 no_start;		     /* requests without rq->start_time_ns */
	/* requests issued again before the programs saw them complete: the
	 * kernel did not run them for that completion, and the request
	 * counted in flight until now (busy_acc too long) */
	__u64 missed;
	/* requests between D and C now, and the time integral of that count
	 * as a sum whose terms are added at the 0->1 (-now) and 1->0 (+now)
	 * changes: busy time is busy_acc, plus now while inflight > 0 */
	__u64 inflight;
	__u64 busy_acc;
	/* the most in flight after an issue in interval peak_epoch (the
	 * programs' epoch, which user space advances at each sample) */
	__u64 peak, peak_epoch;
};

/* what the programs could not follow */
struct devlat_lost {
	__u64 table_full; /* issued requests that found the table full */
};

#endif
