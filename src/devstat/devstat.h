/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Device statistics the way sysstat's iostat computes them: samples of
 * /proc/diskstats and /proc/uptime, and the rates and averages between two
 * samples (or since boot) with iostat's definitions and names
 * (`iotrail stat`, docs/STAT.md).
 */
#ifndef IOTRAIL_DEVSTAT_DEVSTAT_H
#define IOTRAIL_DEVSTAT_DEVSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* the counters of one line of /proc/diskstats, in its order
 * (Documentation/admin-guide/iostats.rst); absent ones stay 0 */
enum devstat_field {
	DS_RD_IOS,
	DS_RD_MERGES,
	DS_RD_SECTORS,
	DS_RD_TICKS, /* ms */
	DS_WR_IOS,
	DS_WR_MERGES,
	DS_WR_SECTORS,
	DS_WR_TICKS,
	DS_IN_FLIGHT,
	DS_IO_TICKS, /* ms with at least one request in flight */
	DS_RQ_TICKS, /* weighted ms: the time integral of the queue depth */
	DS_DC_IOS,
	DS_DC_MERGES,
	DS_DC_SECTORS,
	DS_DC_TICKS,
	DS_FL_IOS,
	DS_FL_TICKS,
	NR_DS_FIELDS
};

struct devstat_dev {
	char name[32];
	uint32_t major, minor;
	uint64_t f[NR_DS_FIELDS];
};

struct devstat_sample {
	uint64_t uptime_cs; /* /proc/uptime, 1/100 s */
	struct devstat_dev *devs;
	size_t nr, cap;
};

/* Reads both files into s (its devices replaced). 0, or -errno with a
 * message naming the file and line in err. */
int devstat_read(struct devstat_sample *s, const char *diskstats, const char *uptime,
		 char *err, size_t errlen);
void devstat_release(struct devstat_sample *s);
const struct devstat_dev *devstat_find(const struct devstat_sample *s, const char *name);
/* Whether a device is a partition (/sys/class/block/NAME/partition). */
bool devstat_is_partition(const char *name);

/* iostat -x's values for one device over itv_cs (1/100 s); prev NULL:
 * since boot. Rates per second, sizes in kB, times in ms, shares in %. */
struct devstat_rates {
	double r_s, rkb_s, rrqm_s, rrqm_pct, r_await, rareq_sz;
	double w_s, wkb_s, wrqm_s, wrqm_pct, w_await, wareq_sz;
	double d_s, dkb_s, drqm_s, drqm_pct, d_await, dareq_sz;
	double f_s, f_await;
	double aqu_sz, util;
	/* iostat without -x: tps, and rkb_s, wkb_s, dkb_s above as kB_read/s,
	 * kB_wrtn/s, kB_dscd/s */
	double tps;
	uint64_t kb_read, kb_wrtn, kb_dscd;
};
void devstat_rates(const struct devstat_dev *prev, const struct devstat_dev *cur,
		   uint64_t itv_cs, struct devstat_rates *r);

#endif
