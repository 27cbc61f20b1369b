/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Renderers: the result model (analysis.h, read-only: every statistic is
 * computed by analysis_finish) and facts about the trace (struct
 * report_info) into text, CSV, JSON or HTML. Each prints the analyzers'
 * metrics and tables in registry order, without knowing the analyzers, and
 * all of them print the same numbers. `iotrail script` prints events
 * (render_event); the reports never see one.
 */
#ifndef IOTRAIL_RENDER_RENDER_H
#define IOTRAIL_RENDER_RENDER_H

#include <stdbool.h>
#include <stdio.h>

#include "../analyze/analyzer.h"
#include "../trace/format.h"
#include "../util/json_writer.h"

enum view { VIEW_STATS, VIEW_HIST, VIEW_SERIES };
enum out_format { FMT_TEXT, FMT_CSV, FMT_JSON };

struct report_info {
	const char *path;
	const char *mode; /* "events", "summary" or "aggregate" */
	/* aggregate: the layers histogrammed (META aggregate), "" else */
	const char *agg_layers;
	const char *kernel;
	uint32_t nr_cpus;
	uint64_t events;	/* records read */
	uint64_t gaps;		/* sequence numbers missing */
	uint64_t kernel_misses; /* events the kernel kept from our programs */
	/* user marks the trace is without (END): dropped by a full ring,
	 * never committed; marker rings left out as damaged */
	uint64_t marks_dropped, marks_torn, marks_bad_rings;
	uint64_t duration_ns;
	bool complete;	  /* the END chunk is there (else: killed, duration unknown) */
	bool drops_known; /* the DROPS table is there */
	uint64_t t0_ns;	  /* recording start, CLOCK_MONOTONIC */
	const char *stop_reason;     /* trace_reader_stop_reason: "command", "size"... */
	const struct iot_stop *stop; /* fill/trigger details, or NULL */
	const struct iot_spec_info *spec; /* --speculate, or NULL */
	const struct iot_drop_entry *drops;
	size_t nr_drops;
	/* where in time they were dropped (since 1.9; none before) */
	const struct iot_drop_stretch *drop_stretches;
	size_t nr_drop_stretches;
	/* back-pressure (record --backpressure summary): the stretches in
	 * which CPUs recorded requests as summaries, and the SUMMARY records */
	const struct iot_degrade_stretch *degrades;
	size_t nr_degrades;
	uint64_t summaries;
	struct join_stats join;
	/* `iotrail repair` (docs/REPAIR.md): its method (NULL: not repaired),
	 * the estimates it wrote and its expected error; the requests that
	 * carry an estimate, and those --measured-only left out */
	const char *repair_method;
	uint64_t repair_estimated, repair_mae_ns;
	uint64_t requests_estimated, requests_excluded;
	uint64_t syscalls_estimated, syscalls_excluded;
	/* devices the recorder found to be models (iotrail-hdd), with their
	 * parameters: "loop0: iotrail-hdd rpm=...; ..." or "" */
	const char *models;
	/* record --flow: the flows recorded (META flows=), "" for all */
	const char *flows;
	const char *(*comm)(void *ctx, uint32_t tid);
	void *comm_ctx;
	/* "blktrace" for an imported capture: its requests were linked by
	 * device and sector, not by kernel address; NULL for a recording */
	const char *imported;
};

struct render_opts {
	enum view view;
	bool requests; /* list every request */
};

void render_text(FILE *f, const struct report_info *ri, const struct analysis *a,
		 const struct render_opts *o);
void render_csv(FILE *f, const struct report_info *ri, const struct analysis *a,
		const struct render_opts *o);
void render_json(FILE *f, const struct report_info *ri, const struct analysis *a,
		 const struct render_opts *o);
/* One analyzer's metrics and tables as CSV (report --out-dir). */
void render_csv_output(FILE *f, const struct report_info *ri, const struct an_output *o,
		       const struct render_opts *ro);
/* report --html: one page; the seed experiment's figures when the patterns
 * analyzer ran with a layout. */
void render_html(FILE *f, const struct report_info *ri, const struct analysis *a);

/* A metric's samples as CSV lines: time_s,scope,metric,value,unit. */
void render_series(FILE *f, const struct report_info *ri, const struct metric *m);
/* A metric's log2 histogram in libbpf-tools' shape (ns metrics in us). */
void render_hist(FILE *f, const struct metric *m);
/* "768 CPUs (2 online at the start)", or "2 CPUs": a host may count
 * thousands of possible CPUs (the trace's streams) and have few online */
void render_cpus(const struct report_info *ri, char *buf, size_t len);
/* A table cell as people read it (text and HTML): "-" when not applicable. */
void render_cell(const struct table *t, size_t row, size_t col, char *buf, size_t len);

/* "R", "W", "F", "D" + "S" sync, "M" meta, "A" readahead, like rwbs */
void render_rwbs(uint32_t flags, char out[8]);

/* "Q", "G", "D", ...: blktrace's letters where they exist */
const char *render_action(uint16_t type);
/* One event as a text line (iotrail script). */
void render_event(FILE *f, const struct iot_rec *r, uint64_t t0_ns, const char *dev,
		  const char *comm);
/* stable names per event type (export rows, CTF event classes):
 * "block_bio_queue", "sys_enter", ... (docs/FORMAT.md) */
const char *render_event_name(uint16_t type);

/* Rows for programs (rows.c, docs/FORMAT.md "Rows"): one per event, one
 * per request; the names behind the numbers come from here */
struct row_names {
	uint64_t t0_ns;				      /* time_s counts from here */
	const char *(*dev)(void *ctx, uint32_t dev);  /* NULL: "major:minor" */
	const char *(*comm)(void *ctx, uint32_t tid); /* NULL: "" */
	void *dev_ctx, *comm_ctx;
};
void render_event_head(FILE *f);
void render_event_csv(FILE *f, const struct iot_rec *r, const struct row_names *nm);
void render_event_json(struct json_writer *w, const struct iot_rec *r,
		       const struct row_names *nm);
/* a report's: its devices' and tasks' names */
struct row_names render_report_names(const struct report_info *ri,
				     const struct analysis *a);
void render_request_head(FILE *f);
void render_request_csv(FILE *f, const struct join_request *r,
			const struct row_names *nm);
void render_request_json(struct json_writer *w, const struct join_request *r,
			 const struct row_names *nm);
#endif
