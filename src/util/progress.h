/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Progress of long work on a terminal: "label: 42%" on stderr, redrawn at
 * most ten times a second, and nothing at all when stderr is not a
 * terminal (piped, redirected, a test).
 */
#ifndef IOTRAIL_UTIL_PROGRESS_H
#define IOTRAIL_UTIL_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

struct progress {
	bool on;
	const char *label;
	uint64_t total, next_ns;
};

void progress_init(struct progress *p, const char *label, uint64_t total);
void progress_update(struct progress *p, uint64_t done);
/* clears the line */
void progress_done(struct progress *p);

#endif
