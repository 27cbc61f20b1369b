/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `iotrail stat --trace`'s kernel side (src/bpf/devlat.bpf.c): per disk and
 * partition, counters of the requests the block layer issued and completed
 * since it was attached, read as iostat reads /proc/diskstats.
 */
#ifndef IOTRAIL_RECORD_DEVLAT_H
#define IOTRAIL_RECORD_DEVLAT_H

#include <stddef.h>
#include <stdint.h>

#include "../devstat/devstat.h"

struct devlat;

/* Loads and attaches. 0, or non-zero with a message in err. */
int devlat_open(struct devlat **out, char *err, size_t errlen);
/* Reads dev's counters (major << 20 | minor) as of now into t (zero if
 * none of its requests was issued yet). */
void devlat_read(struct devlat *dl, uint32_t dev, struct devstat_trace *t);
/* After the reads of one sample: peaks count from here. */
void devlat_next(struct devlat *dl);
/* issued requests the table had no room for, since the start */
uint64_t devlat_lost(struct devlat *dl);
void devlat_close(struct devlat *dl);

#endif
