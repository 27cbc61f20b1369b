/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fsync analyzer's split of a call's time (fsync.c), apart for its
 * unit tests.
 */
#ifndef IOTRAIL_ANALYZE_FSYNC_H
#define IOTRAIL_ANALYZE_FSYNC_H

#include <stddef.h>
#include <stdint.h>

/* the parts, lowest priority first: an instant covered by several counts
 * for the last of them. WAKE, from the caller's last wakeup in the call to
 * its return, is the wait for a CPU and the way out: the caller waits for
 * no I/O any more. */
enum fsync_part { FSYNC_DATA, FSYNC_JOURNAL, FSYNC_FLUSH, FSYNC_WAKE, NR_FSYNC_PARTS };

struct fsync_iv {
	uint64_t start, end; /* [start, end) */
	int part;	     /* enum fsync_part */
};

/* Splits [enter, exit) among the n intervals (clipped to it): each instant
 * goes to the highest part covering it, or to *other when none does.
 * 0 or -ENOMEM. */
int fsync_split(uint64_t enter, uint64_t exit, const struct fsync_iv *iv, size_t n,
		uint64_t part[NR_FSYNC_PARTS], uint64_t *other);

#endif
