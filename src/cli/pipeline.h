/* SPDX-License-Identifier: GPL-2.0 */
/*
 * reader -> join -> analyzers, in one pass over a trace with memory bounded
 * by the in-flight requests (plus what the chosen analyzers keep): what
 * `report` and `overlay` share.
 */
#ifndef IOTRAIL_CLI_PIPELINE_H
#define IOTRAIL_CLI_PIPELINE_H

#include "../analyze/analyzer.h"
#include "../join/join.h"
#include "../trace/reader.h"

struct pipeline {
	struct trace_reader rd;
	struct analysis an;
	struct join jn;
	char drivers[160]; /* META drivers= */
	char stack[1536];  /* META stack= */
	const uint32_t *syscall_nr;
	int fan_threads; /* the analyzers' threads (analysis_fanout_start) */
	int pull_err;	 /* the reader's error, for the parallel join */
	bool parts;	 /* the join on threads analyses each segment apart
			    into an of its own, merged in order (pipeline_run,
			    where every analyzer merges: analysis_merge) */
	bool opened, analyzing, joining;
};

/* 1: the reader runs in the joining thread; 0 (the default) or more: in a
 * thread of its own where the machine has a second CPU (the records reach
 * the join in batches, in the same order: the same output). For the
 * process (report --threads). */
void pipeline_set_threads(int n);

/* Opens input, completes env with the trace's facts (start and end, the
 * system call numbers of its architecture, the device table's callbacks),
 * runs the analyzers of set over every record and AGG chunk, and finishes
 * them. 0, or the exit status after saying why on stderr (1). A packed
 * chunk found damaged on the way starts it all again, the trace checked
 * at the open: p is released and opened again. */
int pipeline_run(struct pipeline *p, const char *input, uint64_t set,
		 struct analysis_env *env);
/* The first half of pipeline_run: opens input and fills env's facts
 * about the trace; 0 or 1 (said on stderr). */
int pipeline_open(struct pipeline *p, const char *input, struct analysis_env *env);
/* The second half's loop: every record through the join into sink, and
 * first, when not NULL, to record (a non-zero return stops it: 1). 0, or
 * 1 after saying why. The reader may run ahead in a thread of its own
 * (pipeline_set_threads); the reader's fields are the caller's again on
 * return. */
int pipeline_join(struct pipeline *p, const char *input, const struct join_sink *sink,
		  int (*record)(void *ctx, const struct iot_rec *r), void *ctx);
/* A task's name from the trace's task table (ctx: the pipeline). */
const char *pipeline_comm(void *ctx, uint32_t tid);
void pipeline_release(struct pipeline *p);

#endif
