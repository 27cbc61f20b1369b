/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Lines per CPU (drops, back-pressure) on a machine of hundreds of CPUs:
 * the MOST_CPU_LINES CPUs with the most get a line each, the others one
 * line together.
 */
#ifndef IOTRAIL_UTIL_MOST_H
#define IOTRAIL_UTIL_MOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MOST_CPU_LINES 8

/* Marks in show[] (n entries) the `most` with the largest key, ties to
 * the first; the others false. Every one when n <= most. */
static inline void pick_most(const uint64_t *key, bool *show, size_t n, size_t most)
{
	for (size_t i = 0; i < n; i++)
		show[i] = n <= most;
	for (size_t k = 0; n > most && k < most; k++) {
		size_t best = n;

		for (size_t i = 0; i < n; i++)
			if (!show[i] && (best == n || key[i] > key[best]))
				best = i;
		show[best] = true;
	}
}

#endif
