/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An output file replaced whole: written beside itself (PATH.XXXXXX) and
 * renamed into place once complete, so that a failure leaves whatever was
 * at PATH before. A path that exists and is not a regular file (a device
 * such as /dev/null, a FIFO) is written in place: renaming over it would
 * replace the device with a file.
 */
#ifndef IOTRAIL_UTIL_OUTFILE_H
#define IOTRAIL_UTIL_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

struct outfile {
	const char *path;
	char tmp[4096]; /* "" when in place */
	FILE *f;
};

/* 0, or -errno (nothing created) */
int outfile_open(struct outfile *o, const char *path);
/* The path outfile_open writes to (PATH.XXXXXX, or PATH in place): for a
 * writer that opens files itself, after outfile_reserve. */
int outfile_reserve(struct outfile *o, const char *path);
/* ok: flushed, closed and renamed into place (0 or -errno); !ok: closed
 * and the temporary removed (0) */
int outfile_commit(struct outfile *o, bool ok);

#endif
