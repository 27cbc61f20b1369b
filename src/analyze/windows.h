/* SPDX-License-Identifier: GPL-2.0 */
/*
 * windows: seed 003's per-window records, by completion time: requests,
 * bytes, and the average Q2C, kernel (Q2G), driver (G2D) and device (D2C)
 * time; where the NVMe driver layer was recorded (docs/DRIVER.md), driver
 * is G to the command's submission plus its completion entry to C, and
 * device the submission to the completion entry. A stage a device does not have (a
 * bio-based device has Q and C only) has no samples, and shows as not applicable. Public
 * for the HTML report's stages-over-time chart.
 */
#ifndef IOTRAIL_ANALYZE_WINDOWS_H
#define IOTRAIL_ANALYZE_WINDOWS_H

#include <stddef.h>
#include <stdint.h>

struct window {
	uint64_t requests, bytes;
	uint64_t q2c_sum_ns, nr_q2c;
	uint64_t q2g_sum_ns, nr_q2g; /* kernel */
	uint64_t g2d_sum_ns, nr_g2d; /* driver */
	uint64_t d2c_sum_ns, nr_d2c; /* device */
};

struct windows_priv {
	uint64_t window_ns;
	struct window *win;
	size_t nr, cap;
	size_t max;	       /* windows kept at most (the recording's length) */
	size_t first;	       /* the first in --time's window (shown from) */
	uint64_t out_of_range; /* requests past the last window kept */
};

#endif
