/* SPDX-License-Identifier: GPL-2.0 */
/* Round numbers for axes and window sizes. */
#ifndef IOTRAIL_UTIL_NICE_H
#define IOTRAIL_UTIL_NICE_H

/* Rounds max up to 1, 2 or 5 times a power of ten (1 for max <= 0). */
double nice_ceil(double max);

#endif
