// SPDX-License-Identifier: GPL-2.0
/*
 * iotrail stat: sysstat's iostat from /proc/diskstats, same columns, same
 * arithmetic, same JSON (src/devstat/). The first report covers the time
 * since boot, each next one the interval before it.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../devstat/devstat.h"
#include "../devstat/out.h"
#include "../record/devlat.h"
#include "../util/clock.h"
#include "../util/parse.h"
#include "cli.h"

#define MAX_DEVS 1024 /* as record -d */

static volatile sig_atomic_t stop_now;

static void on_signal(int sig)
{
	(void)sig;
	stop_now = 1;
}

static void stat_usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: iotrail stat [-x] [-y] [--trace] [-d DEV]... [-o JSON] [interval "
	    "[count]]\n"
	    "\n"
	    "  sysstat's iostat, from /proc/diskstats: the first report since boot,\n"
	    "  then one per interval (seconds, or 500ms, 2s), count of them in all\n"
	    "  (forever without count, until Ctrl-C)\n"
	    "\n"
	    "  -x                    iostat -x's columns: r/s rkB/s rrqm/s %%rrqm "
	    "r_await\n"
	    "                        rareq-sz, the same for writes (w) and discards "
	    "(d),\n"
	    "                        f/s f_await (flushes), aqu-sz %%util; svctm is not\n"
	    "                        shown (sysstat dropped it: the kernel never "
	    "measured\n"
	    "                        service time)\n"
	    "  -y                    leave out the report since boot\n"
	    "  -d, --device DEV      these devices (loop0, vda); default: every whole\n"
	    "                        disk used since boot\n"
	    "  -o JSON               sysstat's JSON layout and field names\n"
	    "      --trace           beside each device, what tracing its requests\n"
	    "                        gives over the same interval (r/s ... f_await,\n"
	    "                        aqu-sz, %%util), the difference, and what only\n"
	    "                        the trace has: await split into before the\n"
	    "                        driver (sched) and at it (dev, D2C), the mean\n"
	    "                        and most requests at the driver (dev-qd,\n"
	    "                        max-qd); intervals only (as -y), docs/STAT.md\n"
	    "      --diskstats FILE  read FILE instead of /proc/diskstats (tests)\n");
}

struct stat_opts {
	bool ext, json, skip_first, trace;
	const char *devs[MAX_DEVS];
	size_t nr_devs;
	uint64_t interval_ns, count; /* 0: one report; count 0: forever */
	const char *diskstats;
};

static bool shown(const struct stat_opts *o, const struct devstat_dev *d)
{
	if (o->nr_devs) {
		for (size_t i = 0; i < o->nr_devs; i++)
			if (!strcmp(o->devs[i], d->name))
				return true;
		return false;
	}
	return (d->f[DS_RD_IOS] || d->f[DS_WR_IOS] || d->f[DS_DC_IOS] ||
		d->f[DS_FL_IOS]) &&
	       !devstat_is_partition(d->name);
}

/* --trace: each device's last trace counters, and when they were read */
struct traced {
	struct devlat *dl;
	struct traced_dev {
		uint32_t dev;
		struct devstat_trace prev, cur;
	} * devs;
	size_t nr;
	uint64_t prev_ns, cur_ns;
};

static struct traced_dev *traced_dev(struct traced *tr, uint32_t dev)
{
	struct traced_dev *n;

	for (size_t i = 0; i < tr->nr; i++)
		if (tr->devs[i].dev == dev)
			return &tr->devs[i];
	n = realloc(tr->devs, (tr->nr + 1) * sizeof(*n));
	if (!n)
		return NULL;
	tr->devs = n;
	n = &tr->devs[tr->nr++];
	memset(n, 0, sizeof(*n));
	n->dev = dev;
	return n;
}

/* the trace's counters of the devices shown, read just after diskstats */
static void trace_sample(const struct stat_opts *o, struct traced *tr,
			 const struct devstat_sample *s)
{
	tr->prev_ns = tr->cur_ns;
	tr->cur_ns = now_ns(CLOCK_MONOTONIC);
	for (size_t i = 0; i < s->nr; i++) {
		const struct devstat_dev *d = &s->devs[i];
		struct traced_dev *t;

		if (!shown(o, d) || !(t = traced_dev(tr, d->major << 20 | d->minor)))
			continue;
		t->prev = t->cur;
		devlat_read(tr->dl, t->dev, &t->cur);
	}
	devlat_next(tr->dl);
}

static void report(const struct stat_opts *o, struct devstat_out *out,
		   const struct devstat_sample *prev, const struct devstat_sample *cur,
		   struct traced *tr)
{
	uint64_t itv = prev ? cur->uptime_cs - prev->uptime_cs : cur->uptime_cs;

	devstat_out_report_begin(out);
	for (int pass = 0; pass < (tr && !out->json ? 2 : 1); pass++) {
		for (size_t i = 0; i < cur->nr; i++) {
			const struct devstat_dev *d = &cur->devs[i];
			struct devstat_trace_rates t;
			struct traced_dev *td;
			struct devstat_rates r;

			if (!shown(o, d))
				continue;
			devstat_rates(prev ? devstat_find(prev, d->name) : NULL, d, itv,
				      &r);
			td = tr ? traced_dev(tr, d->major << 20 | d->minor) : NULL;
			if (td)
				devstat_trace_rates(&td->prev, &td->cur,
						    tr->cur_ns - tr->prev_ns, &t);
			if (!pass)
				devstat_out_dev_trace(out, d->name, &r, td ? &t : NULL);
			else if (td)
				devstat_out_trace(out, d->name, &r, &t);
		}
	}
	devstat_out_report_end(out);
}

static int parse_args(int argc, char **argv, struct stat_opts *o)
{
	static const struct option longopts[] = {
	    {"device", required_argument, NULL, 'd'},
	    {"diskstats", required_argument, NULL, 'S'},
	    {"trace", no_argument, NULL, 'T'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c, ret;

	o->diskstats = "/proc/diskstats";
	while ((c = getopt_long(argc, argv, "xyd:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'x':
			o->ext = true;
			break;
		case 'y':
			o->skip_first = true;
			break;
		case 'd':
			if (o->nr_devs == MAX_DEVS)
				return usage_error("-d %s: at most %d devices", optarg,
						   MAX_DEVS);
			o->devs[o->nr_devs++] =
			    strncmp(optarg, "/dev/", 5) ? optarg : optarg + 5;
			break;
		case 'o':
			if (strcmp(optarg, "JSON"))
				return usage_error("-o %s: the one format is JSON",
						   optarg);
			o->json = true;
			break;
		case 'S':
			o->diskstats = optarg;
			break;
		case 'T':
			o->trace = true;
			o->skip_first = true; /* nothing was traced since boot */
			break;
		case 'h':
			stat_usage(stdout);
			exit(0);
		default:
			stat_usage(stderr);
			return 2;
		}
	}
	ret = parse_interval_count(argc, argv, &o->interval_ns, &o->count);
	if (ret)
		return ret;
	if (o->trace && strcmp(o->diskstats, "/proc/diskstats"))
		return usage_error("--trace traces this machine: it takes no "
				   "--diskstats");
	if (!o->interval_ns)
		o->count = 1;
	return 0;
}

int cmd_stat(int argc, char **argv)
{
	struct stat_opts o = {0};
	struct devstat_sample s[2] = {{0}};
	struct devstat_out out = {.f = stdout};
	struct traced tr = {0};
	struct timespec next;
	char err[256];
	int ret, cur = 0;
	uint64_t done = 0;

	ret = parse_args(argc, argv, &o);
	if (ret)
		return ret;
	out.ext = o.ext;
	out.json = o.json;
	if (devstat_read(&s[0], o.diskstats, "/proc/uptime", err, sizeof(err))) {
		fprintf(stderr, "iotrail: %s\n", err);
		return 1;
	}
	for (size_t i = 0; i < o.nr_devs; i++)
		if (!devstat_find(&s[0], o.devs[i])) {
			fprintf(stderr, "iotrail: -d %s: no such device in %s\n",
				o.devs[i], o.diskstats);
			devstat_release(&s[0]);
			return 2;
		}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (o.trace) {
		if (devlat_open(&tr.dl, err, sizeof(err))) {
			fprintf(stderr, "iotrail: %s\n", err);
			ret = 1;
			goto out;
		}
		/* the same instant as the diskstats sample, as near as can be */
		if (devstat_read(&s[0], o.diskstats, "/proc/uptime", err, sizeof(err))) {
			fprintf(stderr, "iotrail: %s\n", err);
			ret = 1;
			goto out;
		}
		trace_sample(&o, &tr, &s[0]);
	}
	devstat_out_begin(&out);
	if (!o.skip_first) {
		report(&o, &out, NULL, &s[0], NULL);
		done++;
	} else if (!o.interval_ns) {
		o.count = 2; /* -y without interval: iostat waits one second */
		o.interval_ns = 1000000000ull;
	}
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!stop_now && (!o.count || done < o.count)) {
		uint64_t ns = (uint64_t)next.tv_nsec + o.interval_ns;

		next.tv_sec += (time_t)(ns / 1000000000ull);
		next.tv_nsec = (long)(ns % 1000000000ull);
		while (!stop_now && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next,
						    NULL) == EINTR)
			;
		if (stop_now)
			break;
		if (devstat_read(&s[!cur], o.diskstats, "/proc/uptime", err,
				 sizeof(err))) {
			fprintf(stderr, "iotrail: %s\n", err);
			ret = 1;
			break;
		}
		if (o.trace)
			trace_sample(&o, &tr, &s[!cur]);
		cur = !cur;
		report(&o, &out, &s[!cur], &s[cur], o.trace ? &tr : NULL);
		done++;
	}
	devstat_out_end(&out);
	if (o.trace && devlat_lost(tr.dl))
		fprintf(stderr,
			"iotrail: --trace: %llu requests were not followed (the "
			"table of issued requests was full)\n",
			(unsigned long long)devlat_lost(tr.dl));
out:
	devlat_close(tr.dl);
	free(tr.devs);
	devstat_release(&s[0]);
	devstat_release(&s[1]);
	return ret;
}
