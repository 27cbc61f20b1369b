/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `iotrail top`'s kernel side (src/bpf/top.bpf.c): per process and per disk,
 * requests, bytes and the stages' histograms, counted in the kernel since
 * the programs were attached, read in one go every interval.
 */
#ifndef IOTRAIL_RECORD_TOP_H
#define IOTRAIL_RECORD_TOP_H

#include <stddef.h>
#include <stdint.h>

#include "../bpf/top_abi.h"

struct top;

struct top_row {
	uint32_t key;  /* tgid, or disk dev_t (major << 20 | minor) */
	uint32_t disk; /* the disk of a process's counts; a disk's own */
	struct top_stats s;
};

struct top_sample {
	uint64_t ts_ns; /* CLOCK_MONOTONIC when read */
	struct top_row *procs, *disks;
	size_t nr_procs, nr_disks, cap_procs, cap_disks;
	struct top_lost lost;
};

/* Loads and attaches. 0, or non-zero with a message in err. */
int top_open(struct top **out, char *err, size_t errlen);
/* Every process's (per disk) and disk's counters as of now into s (its
 * arrays reused). 0 or -errno. */
int top_read(struct top *t, struct top_sample *s);
void top_sample_release(struct top_sample *s);
void top_close(struct top *t);

#endif
