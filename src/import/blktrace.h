/* SPDX-License-Identifier: GPL-2.0 */
/*
 * blktrace captures as iotrail traces (docs/IMPORT.md): blktrace's binary
 * per-CPU files (struct blk_io_trace, either byte order, notify records for
 * process names, sequence gaps counted as losses) and the stream of
 * ftrace's "blk" tracer with trace option "bin" (each record behind a
 * 16-byte ftrace header).
 *
 * blktrace records carry no kernel addresses: which Q, G, I, D and C are
 * one request is decided here from the device and the sector, as btt
 * decides it, and the trace says so (META identity=sector). Each bio and
 * request gets a made-up address, never reused, so the join, the
 * analyzers and export treat the result as any other trace.
 */
#ifndef IOTRAIL_IMPORT_BLKTRACE_H
#define IOTRAIL_IMPORT_BLKTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../trace/format.h"

struct bt_rec; /* one blk_io_trace, decoded */

struct bt_import {
	struct bt_rec *recs;
	size_t nr, cap;
	struct iot_task_entry *tasks; /* from notify records */
	size_t nr_tasks, cap_tasks;
	struct iot_dev_entry *devs; /* in order of first sight */
	size_t nr_devs, cap_devs;
	uint32_t nr_cpus;     /* highest CPU seen + 1 */
	uint64_t realtime_ns; /* from a TIMESTAMP notify, 0 none */
	uint64_t realtime_at; /* its record's time */
	char name_hint[32];   /* a per-CPU file's device name ("sda") */
	/* what was read */
	uint64_t files, records, notify, skipped;
	uint64_t gaps;	     /* records missing from blktrace's per-CPU sequence */
	uint64_t unmatched;  /* G, I, D, C, M, F, R of no bio or request known */
	uint64_t big_endian; /* records in the other byte order */
	uint64_t ftrace;     /* records of an ftrace "bin" stream */
	char err[512];	     /* what stopped the reading, naming file and offset */
};

void bt_import_init(struct bt_import *im);
/* Reads one file: 0; 1 when it ends in a damaged or cut record (what
 * precedes is kept, err says where); -1 when nothing could be read (err). */
int bt_import_file(struct bt_import *im, const char *path);
/* Links the records by device and sector and writes them as an iotrail
 * trace to path. 0, or -1 with err. */
int bt_import_write(struct bt_import *im, const char *path, const char *source);
void bt_import_release(struct bt_import *im);

#endif
