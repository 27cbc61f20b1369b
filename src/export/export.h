/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Traces for other tools (docs/EXPORT.md): Chrome's trace-event JSON
 * (chrome.c: Perfetto, chrome://tracing) from joined requests, and CTF 1.8
 * (ctf.c: babeltrace2, Trace Compass) from events. Both stream: what they
 * hold grows with the requests in flight and the CPUs, never with the
 * trace. CSV and JSON lines are render/rows.c's.
 */
#ifndef IOTRAIL_EXPORT_EXPORT_H
#define IOTRAIL_EXPORT_EXPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../join/join.h"
#include "../render/render.h"
#include "../util/json_writer.h"
#include "../util/u64map.h"

/* ---- chrome.c ---- */

struct chrome_dev; /* a device's process and its lanes */
struct an_output;

/* where a slice went: its process and thread (lane), its span */
struct chrome_slice {
	uint32_t pid, tid;
	uint64_t start, end;
};

struct chrome {
	FILE *f;
	struct json_writer w;
	struct row_names nm;
	const uint32_t *syscall_nr; /* the trace's numbers by kind */
	struct chrome_dev *devs;
	size_t nr_devs, cap_devs;
	struct u64map named; /* tids and pids whose names were written */
	uint64_t slices;
	bool flows; /* chrome_flows wrote it */
};

/* Starts the JSON on f. 0 or -ENOMEM. */
int chrome_open(struct chrome *c, FILE *f, const struct row_names *nm,
		const uint32_t *syscall_nr);
/* One request: a slice on its device's request lane with its stages as
 * nested slices, and its D2C on a device lane. */
int chrome_request(struct chrome *c, const struct join_request *r);
/* One system call: a slice on its thread. */
int chrome_syscall(struct chrome *c, const struct join_syscall *s);
/* One user marker: an instant, or the end of an async slice. */
int chrome_mark(struct chrome *c, const struct join_mark *m);
/* The flows analyzer's chosen flows (docs/FLOWS.md): their calls and
 * requests as above, and an arrow (a Chrome flow event) from each call to
 * its requests and from each loop device's request to the requests below
 * it waited for. 0 or -errno. */
int chrome_flows(struct chrome *c, const struct an_output *flows);
/* Closes the JSON (metadata: otherData) and frees what c holds. */
void chrome_close(struct chrome *c, const char *source);

/* ---- ctf.c ---- */

struct ctf_stream;

struct ctf {
	char *dir;
	struct ctf_stream *streams; /* per CPU, then one for the markers */
	uint32_t nr_streams;
	uint64_t events;
	bool made_dir;
	uint8_t class_of[IOT_EV_MAX]; /* event type -> its class + 1, 0 none */
	uint8_t uuid[16]; /* from the trace's start times: the same each time */
	char err[256];	  /* what failed, naming the file */
};

/* Creates DIR (absent, or without a metadata file) and its metadata for
 * a trace called name, of nr_cpus CPUs, whose CLOCK_REALTIME read
 * realtime_ns when CLOCK_MONOTONIC read mono_ns. 0, or -1 with c->err. */
int ctf_open(struct ctf *c, const char *dir, uint32_t nr_cpus, uint64_t realtime_ns,
	     uint64_t mono_ns, const char *name, const char *hostname,
	     const char *kernel);
/* One record; comm: its task's name. 0, or -1 with c->err. */
int ctf_event(struct ctf *c, const struct iot_rec *r, const char *comm,
	      const char *device);
/* Records lost on a CPU before its next one (sequence gaps, buffer
 * drops): its packet ends there, and the next counts them in
 * events_discarded. 0, or -1 with c->err. */
int ctf_discarded(struct ctf *c, uint32_t cpu, uint64_t n);
/* Writes the last packets. 0, or -1 with c->err. Frees c either way;
 * after an error, or when !keep, removes what it wrote. */
int ctf_close(struct ctf *c, bool keep);

#endif
