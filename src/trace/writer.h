/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Appends chunks to a trace file. Knows nothing of where records come from.
 * Every call either writes its whole chunk or returns -errno and leaves the
 * chunks written before intact, so a failure never costs earlier data.
 */
#ifndef IOTRAIL_TRACE_WRITER_H
#define IOTRAIL_TRACE_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "format.h"

struct trace_writer {
	FILE *f;
	char *path;
	uint64_t offset; /* bytes written so far */
	char *iobuf;
};

/* Creates (truncates) path and writes the header. 0 or -errno. */
int trace_writer_open(struct trace_writer *w, const char *path,
		      const struct iot_file_header *hdr);
/* One chunk whose payload is p1[0..n1) followed by p2[0..n2) (p2 may be
 * NULL): the two halves of a wrapped ring span travel as one chunk. */
int trace_writer_chunk(struct trace_writer *w, uint32_t type, uint32_t cpu,
		       const void *p1, size_t n1, const void *p2, size_t n2);
/* Flushes, syncs and closes; safe on a writer that failed to open. */
int trace_writer_close(struct trace_writer *w);

#endif
