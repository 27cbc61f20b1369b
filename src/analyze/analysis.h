/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The result model of `iotrail report`: per-device counts, per-stage latency
 * metrics, system call metrics, windows, the sector sequence and the
 * syscall/bio correlation, built from the join's output by the analyzers.
 * Renderers read it; nothing here formats text.
 */
#ifndef IOTRAIL_ANALYZE_ANALYSIS_H
#define IOTRAIL_ANALYZE_ANALYSIS_H

#include <stdbool.h>
#include <stdint.h>

#include "../join/join.h"
#include "groups.h"
#include "metric.h"
#include "syscalls.h"

enum stage { ST_Q2G, ST_G2I, ST_I2D, ST_D2C, ST_Q2C, NR_STAGES };
enum opgrp { OPG_READ, OPG_WRITE, NR_OPG };
extern const char *const stage_names[NR_STAGES];
extern const char *const opg_names[NR_OPG];

/* The analyzers `--analyzer NAME` selects; latency is the default. */
enum analyzer {
	AN_LATENCY = 1 << 0,   /* btt breakdown per device and read/write */
	AN_SYSCALL = 1 << 1,   /* enter to exit of each I/O syscall */
	AN_BIOTIME = 1 << 2,   /* Q2C per bio, per device */
	AN_ELVTIME = 1 << 3,   /* I2D per request, per device */
	AN_IOSECTOR = 1 << 4,  /* sector and seek distance in issue order */
	AN_CORRELATE = 1 << 5, /* syscall time against bio and scheduler time */
	AN_PATTERNS = 1 << 6,  /* reads by file set (groups.h), with --layout */
};
int analyzer_by_name(const char *name); /* AN_* or -1 */
const char *analyzer_name(int an);

struct dev_result {
	uint32_t dev;
	char name[32];
	uint64_t requests[NR_OPG], sectors[NR_OPG];
	uint64_t flushes, discards, discard_sectors, errors;
	struct metric stage[NR_STAGES][NR_OPG]; /* latency; q2c is per bio */
	struct metric stage_all[NR_STAGES];	/* read and write together */
	struct metric biotime, elvtime;		/* AN_BIOTIME, AN_ELVTIME */
	struct metric sector, seek;		/* AN_IOSECTOR */
};

/* Seed 003's per-window record. */
struct window {
	uint64_t requests, bytes;
	uint64_t q2c_sum_ns, nr_q2c;
	uint64_t q2g_sum_ns, nr_q2g; /* kernel */
	uint64_t g2d_sum_ns, nr_g2d; /* driver */
	uint64_t d2c_sum_ns, nr_d2c; /* device */
};

/* Seed 000 figures 3-10/3-11: per log2 bucket of read syscall time. */
struct corr_bucket {
	uint64_t syscalls;
	uint64_t bio_sum_ns, bio_min_ns, bio_max_ns;
	uint64_t elv_n, elv_sum_ns, elv_min_ns, elv_max_ns;
};

struct analysis {
	unsigned int analyzers; /* AN_* */
	bool keep_time;		/* series view: remember sample times */
	uint64_t t0_ns;		/* recording start (series and windows origin) */
	uint64_t window_ns;	/* 0: no windows */

	struct dev_result *devs;
	size_t nr_devs, cap_devs;
	int last_dev;	     /* lookup cache */
	void *dev_names_ctx; /* for naming devices */
	const char *(*dev_name)(void *ctx, uint32_t dev);

	struct metric syscall[NR_SYSCALL_KINDS];
	uint32_t syscall_nr[NR_SYSCALL_KINDS]; /* numbers of this arch */
	struct corr_bucket corr[LOG2_SLOTS];

	struct window *win;
	size_t nr_win, cap_win;

	struct join_request *reqs; /* --requests: every request, completion order */
	size_t nr_reqs, cap_reqs;
	bool keep_requests;
	bool want_stage_all;   /* fill stage_all (read and write together): JSON */
	struct groups *groups; /* AN_PATTERNS: set up by the caller, or NULL */

	uint64_t requests_total, bios_total, syscalls_total;
	int err; /* first allocation failure */
};

void analysis_init(struct analysis *a, unsigned int analyzers, bool keep_time,
		   uint64_t t0_ns, uint64_t window_ns, bool keep_requests,
		   const char *(*dev_name)(void *, uint32_t), void *ctx);
/* The sink to hand to join_init(). */
struct join_sink analysis_sink(struct analysis *a);
/* After the last event: orders the sector sequence, derives seeks. */
int analysis_finish(struct analysis *a);
/* The name of a device of the result, "?" if it has none. */
const char *analysis_dev_name(const struct analysis *a, uint32_t dev);
/* One histogram of an AGG chunk (--aggregate recordings). */
void analysis_add_agg(struct analysis *a, uint32_t dev, unsigned int op,
		      unsigned int metric, uint64_t sum, const uint64_t buckets[64]);
void analysis_release(struct analysis *a);

/* The metrics of one analyzer, for the generic views (stats, hist,
 * series); empty metrics are left out. Returns how many were written. */
size_t analysis_metrics(struct analysis *a, int an, struct metric **out, size_t max);
#endif
