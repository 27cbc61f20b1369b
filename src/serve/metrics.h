/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recorder's --aggregate histograms as Prometheus text (0.0.4) or
 * OpenMetrics 1.0 (docs/FLEET.md has the names): per device and
 * operation, the five stages' latency and the request sizes as classic
 * histograms whose buckets are the kernel's log2 buckets, request and byte
 * counters; system calls per kind; what was lost.
 */
#ifndef IOTRAIL_SERVE_METRICS_H
#define IOTRAIL_SERVE_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../trace/format.h"

struct metrics_info {
	const char *(*dev_name)(void *ctx, uint32_t dev); /* "sda" */
	void *ctx;
	const char *const *syscall_names; /* by kind (IOT_AGG_SYSCALL + kind) */
	/* --by cgroup: each entry's cgroup id (NULL: none) and its path */
	const uint32_t *cgroups;
	const char *(*cgroup_name)(void *ctx, uint32_t id);
	size_t nr_syscall_names;
	uint64_t lost;		    /* requests the in-flight table had no room for,
				       or that found no histogram slot */
	uint32_t slots_used, slots; /* histogram slots handed out, and kept */
	uint64_t lost_completions;  /* issued, no completion seen (the kernel's) */
	double uptime_s;	    /* since the programs were attached */
	uint64_t scrapes;	    /* answered so far, this one included */
	bool openmetrics;	    /* else Prometheus text 0.0.4 */
	/* OpenMetrics only: the exemplar of a latency bucket (le = 2^j ns)
	 * as " # {labels} value timestamp" into buf, or false for none */
	bool (*exemplar)(void *ctx, uint32_t dev, uint8_t op, uint8_t metric, int j,
			 char *buf, size_t len);
};

/* The latency buckets (le, seconds): the kernel's log2 buckets of ns from
 * 2^10 (1.024 us) to 2^35 (34.4 s); sizes: 2^9 (512 B) to 2^27 (128 MiB). */
#define METRICS_NS_LO 10
#define METRICS_NS_HI 35
#define METRICS_B_LO  9
#define METRICS_B_HI  27

void metrics_write(FILE *f, const struct iot_agg_entry *e, size_t n,
		   const struct metrics_info *mi);

#endif
