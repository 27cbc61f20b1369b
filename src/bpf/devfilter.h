/* SPDX-License-Identifier: GPL-2.0 */
/*
 * -d's search, one copy for the programs (record.bpf.h: dev_wanted) and the
 * unit tests: n sector ranges [start, end) by disk dev_t, sorted by disk,
 * then start, and disjoint (src/record/devices.c: devrange_merge). A few
 * are scanned (a step costs about what a scan's comparison does, and the
 * verifier drops the path n does not take: n is a constant there), more
 * searched: 11 steps over 1024.
 */
#ifndef IOTRAIL_DEVFILTER_H
#define IOTRAIL_DEVFILTER_H

#ifndef __bpf__
#include <linux/types.h>
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#endif

#define IOT_MAX_FILTER_DEVS 1024 /* ranges */
#define IOT_FILTER_STEPS    11	 /* log2(IOT_MAX_FILTER_DEVS) + 1 */
#define IOT_FILTER_SCAN	    4	 /* up to this many: a scan */

/* Whether sector of disk d lies in one of the n ranges. A sector of ~0
 * (the flush machinery's flush request has no sector) concerns its whole
 * disk: it is in any range of the disk, as it counts in the disk's
 * /proc/diskstats. */
static __always_inline int iot_devfilter_has(const volatile __u32 *dev,
					     const volatile __u64 *start,
					     const volatile __u64 *end, __u32 n, __u32 d,
					     __u64 sector)
{
	__u32 lo = 0, hi = n, i;

	if (n <= IOT_FILTER_SCAN) {
		for (i = 0; i < IOT_FILTER_SCAN && i < n; i++)
			if (dev[i] == d &&
			    ((sector >= start[i] && sector < end[i]) || sector == ~0ull))
				return 1;
		return 0;
	}
	/* lo: how many ranges begin at or before (d, sector); the last of
	 * them is the only one that can hold the sector */
	for (int k = 0; k < IOT_FILTER_STEPS && lo < hi; k++) {
		__u32 mid = (lo + hi) >> 1;

		if (mid >= IOT_MAX_FILTER_DEVS)
			return 0;
		if (dev[mid] < d || (dev[mid] == d && start[mid] <= sector))
			lo = mid + 1;
		else
			hi = mid;
	}
	i = lo - 1;
	if (!lo || i >= IOT_MAX_FILTER_DEVS || dev[i] != d)
		return 0;
	return sector < end[i] || sector == ~0ull;
}

#endif /* IOTRAIL_DEVFILTER_H */
