/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Flow definitions for record --flow (docs/FLOWS.md, "Recording only some
 * flows"): named sections of `key = value` lines, built in or from a file.
 *
 *   [name]
 *   start  = syscall, io_uring, writeback, journal, readahead, flush, other, fault
 *   op     = read, write, sync
 *   pid    = 1234            comm = sqlite3
 *   cgroup = /sys/fs/cgroup/blkio/db
 *   file   = /var/lib/db/main.db       dev = vdb | 254:16
 *   size   = 4k-1m           offset = 0-1g      (a range, or one value)
 *
 * Paths and devices are resolved when read: a definition names what exists.
 */
#ifndef IOTRAIL_RECORD_FLOWDEF_H
#define IOTRAIL_RECORD_FLOWDEF_H

#include <stddef.h>

#include "../bpf/events.h"

struct flowdef {
	char name[32];
	struct iot_flow_def d;
	char where[64]; /* "FILE:LINE" of its section */
};

struct flowdefs {
	struct flowdef *v;
	size_t n, cap;
};

/* The definitions in text (named fname in messages) added to defs; a name
 * defined again replaces the earlier one (a file's over a built-in). 0, or
 * -EINVAL with "FILE:LINE:COL: what" in err. */
int flowdefs_parse(struct flowdefs *defs, const char *text, const char *fname, char *err,
		   size_t errlen);
/* The built-in definitions (command, reads, writes, sync, writeback, journal). */
int flowdefs_builtin(struct flowdefs *defs, char *err, size_t errlen);
/* A definitions file; -errno or -EINVAL with the message in err. */
int flowdefs_load(struct flowdefs *defs, const char *path, char *err, size_t errlen);
const struct flowdef *flowdefs_find(const struct flowdefs *defs, const char *name);
/* "name: start=syscall,io_uring op=read comm=cat" (META flows=) */
void flowdef_describe(const struct flowdef *f, char *out, size_t len);
void flowdefs_release(struct flowdefs *defs);

#endif
