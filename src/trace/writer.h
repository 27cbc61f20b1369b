/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Appends chunks to a trace file. Knows nothing of where records come from.
 * Every call either writes its whole chunk or returns -errno and leaves the
 * chunks written before intact, so a failure never costs earlier data.
 */
#ifndef IOTRAIL_TRACE_WRITER_H
#define IOTRAIL_TRACE_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "format.h"

struct trace_writer {
	FILE *f;
	char *path;
	uint64_t offset; /* bytes written so far */
	char *iobuf;
	bool discard;  /* opened with no path: chunks are counted, not kept */
	uint8_t *pack; /* trace_writer_packed's room */
	size_t pack_cap;
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
 * IOT_VERSION_MINOR (format.h). */
int trace_writer_packed(struct trace_writer *w, uint32_t cpu, const struct iot_rec *r1,
			size_t n1, const struct iot_rec *r2, size_t n2);
/* Flushes, syncs and closes; safe on a writer that failed to open. */
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
