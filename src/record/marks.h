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
#include "../trace/format.h"
#include "../trace/writer.h"

struct mark_ring;

struct marks {
	char dir[256]; /* "" : no markers */
	bool owned;    /* made by us: emptied and removed at the end */
	struct mark_ring *rings;
	size_t nr, cap;
	uint64_t seq; /* of the records written, gapless */
	/* marks written; dropped by a full ring; reserved and never
	 * committed (torn); rings left out, their head or tail where no
	 * writer of the library leaves it (damaged), the first one's pid */
	uint64_t written, dropped, torn, damaged;
	uint32_t damaged_pid;
	/* what the ENDs written so far said (marks_end) */
	uint64_t end_dropped, end_torn, end_damaged;
	struct iot_rec *buf;
	size_t cap_buf;
};

/* With a command: a fresh directory, put in the environment the command
 * inherits. Without: IOTRAIL_MARKERS if set. 0 or -errno. */
int marks_init(struct marks *m, bool command);
/* Every committed mark since the last call, as one chunk. final: the
 * recording ends (slots still open are skipped, counted). 0 or -errno. */
int marks_drain(struct marks *m, struct trace_writer *w, bool final);
/* What the file's END says of the marks: those lost since the last END. */
void marks_end(struct marks *m, struct iot_end *e);
/* On stderr, at the stop: the marks lost, if any. */
void marks_say(const struct marks *m);
void marks_release(struct marks *m);

#endif
