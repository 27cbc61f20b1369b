/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Appends chunks to a trace file. Knows nothing of where records come from.
 * Every call either writes its whole chunk or returns -errno. A write that
 * fails (the file system full, a quota, the file size limit) cuts the file
 * back to its last whole chunk, so what it holds still reads; the records
 * of event chunks taken before and lost with it (they may have waited in
 * the stdio buffer) are counted per CPU (trace_writer_lost), and no event
 * chunk is taken after it: a CPU's records have no hole in the middle.
 * Chunks may come from several threads: each is written whole.
 */
#ifndef IOTRAIL_TRACE_WRITER_H
#define IOTRAIL_TRACE_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <stdio.h>

#include "format.h"

/* Where a run of records is packed before it is written: one per thread
 * that packs (the recorder's drain threads), so packing runs in parallel
 * and only the write is serialised. */
struct trace_pack_room {
	uint8_t *p;
	size_t cap;
};

/* A chunk appended since the file was last known to hold everything:
 * where it ends, and the event records in it (for a failure's count) */
struct trace_chunk_note {
	uint64_t end, nr_recs;
	uint32_t cpu;
};

struct trace_writer {
	FILE *f;
	char *path;
	uint64_t offset;		/* bytes written so far */
	uint64_t durable;		/* bytes known to be in the file (flushed) */
	struct trace_chunk_note *notes; /* the chunks after durable */
	size_t nr_notes, cap_notes;
	int failed;	   /* the first write's -errno, 0 while none failed */
	uint64_t *lost;	   /* per CPU: event records a failed write cost */
	uint32_t nr_lost;  /* entries in lost */
	uint64_t reserved; /* blocks allocated up to here (trace_writer_reserve) */
	bool no_reserve;   /* the file system does not allocate ahead */
	bool no_sync;	   /* the close leaves the write-back to the kernel */
	char *iobuf;
	bool discard; /* opened with no path: chunks are counted, not kept */
	struct trace_pack_room room; /* trace_writer_packed's */
	/* every chunk is written whole under it: several threads may write
	 * (a CPU's chunks must still come from one thread, in order) */
	pthread_mutex_t lock;
};

/* Creates (truncates) path and writes the header. 0 or -errno. A NULL path
 * opens a writer that keeps nothing (`iotrail serve` without -o). */
int trace_writer_open(struct trace_writer *w, const char *path,
		      const struct iot_file_header *hdr);
/* One chunk whose payload is p1[0..n1) followed by p2[0..n2) (p2 may be
 * NULL): the two halves of a wrapped ring span travel as one chunk. */
int trace_writer_chunk(struct trace_writer *w, uint32_t type, uint32_t cpu,
		       const void *p1, size_t n1, const void *p2, size_t n2);
/* r1[0..n1) then r2[0..n2) (r2 may be NULL), one CPU's records in seq
 * order, as one EVENTS_PACKED chunk: a header should then say
 * IOT_VERSION_MINOR (format.h). Packed in the writer's own room: one
 * thread at a time. */
int trace_writer_packed(struct trace_writer *w, uint32_t cpu, const struct iot_rec *r1,
			size_t n1, const struct iot_rec *r2, size_t n2);
/* The same, packed in the caller's room outside the writer's lock. */
int trace_writer_packed_in(struct trace_writer *w, struct trace_pack_room *room,
			   uint32_t cpu, const struct iot_rec *r1, size_t n1,
			   const struct iot_rec *r2, size_t n2);
void trace_pack_room_release(struct trace_pack_room *room);
/* Keeps the file's blocks allocated for at least the next bytes past what
 * is written (fallocate, the size unchanged), so that their writes cannot
 * fail for want of space: 0; 0 with nothing done where the file system
 * cannot allocate ahead; -ENOSPC, -EDQUOT, -EFBIG... when there is no room
 * for them. The blocks past the end are given back at the close. */
int trace_writer_reserve(struct trace_writer *w, uint64_t bytes);
/* What stdio holds, written: 0, or the -errno of a write that failed (the
 * file then cut back as above). */
int trace_writer_flush(struct trace_writer *w);
/* The event records of cpu in chunks taken and then lost to a failed
 * write (header above); those of the failing call are not among them. */
uint64_t trace_writer_lost(const struct trace_writer *w, uint32_t cpu);
/* Flushes, syncs, gives back blocks allocated past the end, and closes;
 * safe on a writer that failed to open. */
int trace_writer_close(struct trace_writer *w);

/* The META chunk's keys, in the order they are written: the one list
 * (docs/FORMAT.md describes them; the reader looks them up by these
 * names). Strings may be NULL (written empty). */
struct trace_meta {
	const char *host, *kernel, *arch, *cmdline;
	const char *mode;	  /* "events", "summary", "aggregate" */
	uint64_t speculate_ns;	  /* 0: no --speculate */
	const char *bufpolicy;	  /* "switch", "fill", "ring" */
	const char *bufresize;	  /* "auto", "manual" */
	const char *backpressure; /* "summary", "drop" (since 1.9, after flows) */
	/* --aggregate: the layers histogrammed, "block" or "block,syscall"
	 * (added after backpressure without a version bump; absent: both);
	 * "" in the other modes */
	const char *aggregate;
	uint64_t bufsize; /* bytes per CPU */
	uint64_t switch_ns;
	const char *attach;  /* "tp_btf", "raw_tp" */
	const char *variant; /* program chosen per tracepoint */
	const char *missing; /* tracepoints not traced */
	const char *drivers; /* driver layers recorded ("nvme"), or "none (why)" */
	const char *models;  /* devices that are models (devtab_models), or "" */
	const char *stack;   /* loop devices and their backing files
				(devtab_stack), or "" */
	const char *flows;   /* record --flow: the definitions, "; "-joined
				(flowdef_describe), or "" */
};
/* Writes m as the META chunk (key=value lines, padded to 8 bytes). */
int trace_writer_meta(struct trace_writer *w, const struct trace_meta *m);

#endif
