/* SPDX-License-Identifier: GPL-2.0 */
/* A clock's reading in nanoseconds. */
#ifndef IOTRAIL_UTIL_CLOCK_H
#define IOTRAIL_UTIL_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
