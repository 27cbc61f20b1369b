/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User markers (include/iotrail/marker.h): the recorder gives its command a
 * directory in IOTRAIL_MARKERS (or uses the one already in its own
 * environment, for processes started elsewhere), and at every drain reads
 * the marks each process's ring holds into an IOT_CHUNK_MARKS chunk.
 */
#ifndef IOTRAIL_RECORD_MARKS_H
#define IOTRAIL_RECORD_MARKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../bpf/events.h"
#include "../trace/writer.h"

struct mark_ring;

struct marks {
	char dir[256]; /* "" : no markers */
	bool owned;    /* made by us: emptied and removed at the end */
	struct mark_ring *rings;
	size_t nr, cap;
	uint64_t seq; /* of the records written, gapless */
	uint64_t written, dropped, torn;
	struct iot_rec *buf;
	size_t cap_buf;
};

/* With a command: a fresh directory, put in the environment the command
 * inherits. Without: IOTRAIL_MARKERS if set. 0 or -errno. */
int marks_init(struct marks *m, bool command);
/* Every committed mark since the last call, as one chunk. final: the
 * recording ends (slots still open are skipped, counted). 0 or -errno. */
int marks_drain(struct marks *m, struct trace_writer *w, bool final);
void marks_release(struct marks *m);

#endif
