/* SPDX-License-Identifier: GPL-2.0 */
/* Parsing of the option values people type: sizes, times, rates. */
#ifndef IOTRAIL_UTIL_PARSE_H
#define IOTRAIL_UTIL_PARSE_H

#include <stdbool.h>
#include <stdint.h>

/* "4096", "64k", "4m", "1g" (binary units, optional trailing b/B). 0 or -EINVAL. */
int parse_size(const char *s, uint64_t *bytes);
/* "10", "10s", "100ms", "250us", "5000ns", "2m" (minutes), "1h"; a bare
 * number is seconds. 0 or -EINVAL. */
int parse_time(const char *s, uint64_t *ns);
/* A plain decimal count, "4096" (no sign, no suffix). 0 or -EINVAL. */
int parse_count(const char *s, uint64_t *n);
/* A period given as a rate ("10hz") or a time ("100ms"). 0 or -EINVAL. */
int parse_rate(const char *s, uint64_t *period_ns);
/* A CPU list as the kernel writes one (/sys/devices/system/cpu/online:
 * "0-3,8,10-11", a newline at the end or not) into set[0..n): the count of
 * CPUs set, or -EINVAL for bad syntax, a reversed range or a CPU >= n. */
int parse_cpulist(const char *s, bool *set, unsigned int n);

#endif
