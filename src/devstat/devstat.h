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

/*
 * What `stat --trace` counts in the kernel (src/bpf/devlat.bpf.c) for one
 * device since it began, each request at its completion: per kind, in
 * diskstats' order, the requests, their time from the kernel's
 * rq->start_time_ns (where diskstats' await starts) to the issue to the
 * driver (D), and from D to the completion (C); the time with at least one
 * request between D and C, and the most requests there at once since the
 * last sample (or those still there from before it).
 */
enum { DT_READ, DT_WRITE, DT_DISCARD, DT_FLUSH, DT_KINDS };

struct devstat_trace {
	uint64_t ios[DT_KINDS], g2d_ns[DT_KINDS], d2c_ns[DT_KINDS];
	uint64_t busy_ns;
	uint64_t inflight; /* between D and C at the sample */
	uint64_t peak;	   /* the most after an issue since the last sample */
	uint64_t no_start; /* requests the kernel did not stamp: no G2D */
	uint64_t missed;   /* completions the programs did not see: busy_ns
			    * counts until the request was issued again */
};

/* Over itv_ns: requests per second and per kind the mean await (G2C, the
 * trace's figure for diskstats' await), its part before the driver
 * (`sched`: plug, scheduler, tags) and at the driver and device (`dev`,
 * D2C), in ms; aqu_sz the mean G2C requests in flight (diskstats' aqu-sz),
 * dev_qd the mean D2C ones (the device's true queue depth), util the share
 * of time with a request at the driver, in %. */
struct devstat_trace_rates {
	double s[DT_KINDS], await[DT_KINDS], sched[DT_KINDS], dev[DT_KINDS];
	double aqu_sz, dev_qd, util;
	uint64_t peak, no_start, missed;
};
void devstat_trace_rates(const struct devstat_trace *prev,
			 const struct devstat_trace *cur, uint64_t itv_ns,
			 struct devstat_trace_rates *r);

#endif
