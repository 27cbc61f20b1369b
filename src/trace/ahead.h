/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Packed chunks unpacked ahead of the merge, on threads (reader.c). The
 * merge reads chunks in file order and unpacks each packed chunk as it
 * reaches it, which on one thread was a third of a packed trace's report.
 * With threads to spare, workers unpack the next few packed chunks while
 * the merge works on the current ones, and the merge takes each chunk's
 * records as it reaches it (or unpacks it itself when no worker has begun
 * it). The records are the same bytes either way.
 */
#ifndef IOTRAIL_TRACE_AHEAD_H
#define IOTRAIL_TRACE_AHEAD_H

#include <stddef.h>

#include "format.h"

struct trace_reader;
struct reader_ahead;

/* Workers for r's chunks todo (nr_todo packed chunks, in the order the
 * merge reaches them; the array becomes theirs), or NULL (none, no thread
 * to be had, out of memory: the merge unpacks them) */
struct reader_ahead *ahead_start(const struct trace_reader *r, size_t *todo,
				 size_t nr_todo, unsigned int workers);
/* The records of chunk k (the next packed chunk in file order the merge
 * has not taken, or any chunk: then unpacked here), the caller's to free;
 * NULL when they cannot be had (out of memory, the file changed). */
struct iot_rec *ahead_take(struct reader_ahead *a, size_t k);
/* The chunks the merge took unpacked by a worker, and the workers */
size_t ahead_count(struct reader_ahead *a);
unsigned int ahead_workers(const struct reader_ahead *a);
/* Back to the trace's first chunk (a rewind): what was unpacked ahead is
 * dropped. */
void ahead_reset(struct reader_ahead *a);
void ahead_stop(struct reader_ahead *a);

#endif
