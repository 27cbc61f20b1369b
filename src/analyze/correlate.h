/* SPDX-License-Identifier: GPL-2.0 */
/*
 * correlate: read system call time against the bio time (Q2C) and the
 * scheduler time (I2D) of the bios it queued (seed 000, figures 3-10 and
 * 3-11), per log2 bucket of the syscall time in µs. Its state is public so
 * the HTML report can draw it.
 */
#ifndef IOTRAIL_ANALYZE_CORRELATE_H
#define IOTRAIL_ANALYZE_CORRELATE_H

#include <stdint.h>

#include "metric.h"

struct corr_bucket {
	uint64_t syscalls;
	uint64_t bio_sum_ns, bio_min_ns, bio_max_ns;
	uint64_t elv_n, elv_sum_ns, elv_min_ns, elv_max_ns;
};

struct correlate_priv {
	struct corr_bucket b[LOG2_SLOTS];
};

#endif
