/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Renderers: the result model (analysis.h) and facts about the trace
 * (struct report_info) into text, CSV or JSON. They never see an event, and
 * all three print the same numbers.
 */
#ifndef IOTRAIL_RENDER_RENDER_H
#define IOTRAIL_RENDER_RENDER_H

#include <stdbool.h>
#include <stdio.h>

#include "../analyze/analysis.h"
#include "../trace/format.h"

enum view { VIEW_STATS, VIEW_HIST, VIEW_SERIES };
enum out_format { FMT_TEXT, FMT_CSV, FMT_JSON };

struct report_info {
	const char *path;
	const char *mode; /* "events" or "summary" */
	const char *kernel;
	uint32_t nr_cpus;
	uint64_t events;	/* records read */
	uint64_t gaps;		/* sequence numbers missing */
	uint64_t kernel_misses; /* events the kernel kept from our programs */
	uint64_t duration_ns;
	uint64_t t0_ns;		 /* recording start, CLOCK_MONOTONIC */
	const char *stop_reason; /* "command", "duration", "signal", "error", "unknown" */
	const struct iot_stop *stop;	  /* fill/trigger details, or NULL */
	const struct iot_spec_info *spec; /* --speculate, or NULL */
	const struct iot_drop_entry *drops;
	size_t nr_drops;
	struct join_stats join;
	const char *(*comm)(void *ctx, uint32_t tid);
	void *comm_ctx;
};

struct render_opts {
	unsigned int analyzers; /* AN_* to show */
	enum view view;
	enum out_format format;
	bool requests; /* list every request */
	bool windows;  /* the --window table */
};

void render_text(FILE *f, const struct report_info *ri, struct analysis *a,
		 const struct render_opts *o);
void render_csv(FILE *f, const struct report_info *ri, struct analysis *a,
		const struct render_opts *o);
void render_json(FILE *f, const struct report_info *ri, struct analysis *a,
		 const struct render_opts *o);

/* report --html: the page, with seed 000's figures; layout may be NULL
 * (no fragment figures). */
void render_html(FILE *f, const struct report_info *ri, struct analysis *a,
		 const struct frag_scan *layout);

/* The patterns table (AN_PATTERNS), in each format. */
struct json_writer;
void render_patterns_text(FILE *f, const struct groups *gs);
void render_patterns_csv(FILE *f, const struct groups *gs);
void render_patterns_json(struct json_writer *w, const struct groups *gs);

/* "R", "W", "F", "D" + "S" sync, "M" meta, "A" readahead, like rwbs */
void render_rwbs(uint32_t flags, char out[8]);

/* "Q", "G", "D", ...: blktrace's letters where they exist */
const char *render_action(uint16_t type);
/* One event as a text line (iotrail script). */
void render_event(FILE *f, const struct iot_rec *r, uint64_t t0_ns, const char *dev,
		  const char *comm);
#endif
