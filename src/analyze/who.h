/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The who analyzer's keys, for renderers that group its rows by one of them
 * (the HTML page's charts).
 */
#ifndef IOTRAIL_ANALYZE_WHO_H
#define IOTRAIL_ANALYZE_WHO_H

#include <stdbool.h>

/* Whether the who table's column col (its CSV/JSON key) names key ("task",
 * "cgroup", "file", "cause"). */
bool who_key_column(const char *key, const char *col);

#endif
