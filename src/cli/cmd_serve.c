// SPDX-License-Identifier: GPL-2.0
/*
 * iotrail serve: the fleet endpoint (docs/FLEET.md). The recorder runs in
 * aggregation mode (histograms in the kernel, no record per event) on the
 * main thread, as `record --aggregate` runs; a second thread answers HTTP
 * on /metrics (Prometheus text or OpenMetrics) and /healthz, reading the
 * kernel's histograms through their mapping. The two share nothing that
 * either waits on: a scrape never holds back the recorder.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "../record/record.h"
#include "../serve/http.h"
#include "../serve/metrics.h"
#include "../trace/syscalls.h"
#include "../util/clock.h"
#include "../util/parse.h"
#include "cli.h"

struct serve {
	struct http_server http;
	struct record_live lv;
	pthread_t thread;
	bool running;
	uint64_t scrapes;
	struct {
		uint32_t dev;
		char name[32];
	} names[64]; /* dev_t -> name, as /sys says (the HTTP thread's) */
	size_t nr_names;
	uint32_t known[64]; /* the -d disks: their series exist from the start */
	size_t nr_known;
};

/* a -d argument's disk as the kernel numbers it (major << 20 | minor): a
 * partition's disk, since the histograms are per disk; 0 when unknown */
static uint32_t disk_of(const char *arg)
{
	char path[300], link[300], buf[32];
	unsigned int maj, mn;
	struct stat st;
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", arg[0] == '/' ? "" : "/dev/", arg);
	if (stat(path, &st) || !S_ISBLK(st.st_mode))
		return 0;
	maj = major(st.st_rdev);
	mn = minor(st.st_rdev);
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u/partition", maj, mn);
	if (!access(link, F_OK)) {
		snprintf(link, sizeof(link), "/sys/dev/block/%u:%u/../dev", maj, mn);
		f = fopen(link, "r");
		if (!f)
			return 0;
		if (!fgets(buf, sizeof(buf), f) || sscanf(buf, "%u:%u", &maj, &mn) != 2)
			maj = mn = 0;
		fclose(f);
	}
	return maj << 20 | mn;
}

/* zero histograms for the -d disks' reads and writes not yet seen, so
 * that rate() has a first sample before their first request */
static struct iot_agg_entry *with_known(const struct serve *sv, struct iot_agg_entry *e,
					size_t *n)
{
	static const uint8_t metrics[] = {IOT_AGG_Q2G, IOT_AGG_G2I, IOT_AGG_I2D,
					  IOT_AGG_D2C, IOT_AGG_Q2C, IOT_AGG_SIZE};
	size_t want = *n + sv->nr_known * 2 * sizeof(metrics);
	struct iot_agg_entry *all = realloc(e, (want ? want : 1) * sizeof(*e));

	if (!all)
		return e;
	for (size_t d = 0; d < sv->nr_known; d++)
		for (uint8_t op = 0; op < 2; op++)
			for (size_t m = 0; m < sizeof(metrics); m++) {
				bool seen = false;

				for (size_t i = 0; i < *n && !seen; i++)
					seen = all[i].dev == sv->known[d] &&
					       all[i].op == op &&
					       all[i].metric == metrics[m];
				if (seen)
					continue;
				memset(&all[*n], 0, sizeof(all[*n]));
				all[*n].dev = sv->known[d];
				all[*n].op = op;
				all[(*n)++].metric = metrics[m];
			}
	return all;
}

/* a disk's name from /sys/dev/block/MAJ:MIN/uevent (DEVNAME=), cached */
static const char *dev_name(void *ctx, uint32_t dev)
{
	struct serve *sv = ctx;
	char path[64], line[128];
	FILE *f;

	for (size_t i = 0; i < sv->nr_names; i++)
		if (sv->names[i].dev == dev)
			return sv->names[i].name;
	if (sv->nr_names == sizeof(sv->names) / sizeof(sv->names[0]))
		return NULL;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/uevent", dev >> 20,
		 dev & 0xfffff);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "DEVNAME=", 8)) {
			line[strcspn(line, "\n")] = 0;
			sv->names[sv->nr_names].dev = dev;
			snprintf(sv->names[sv->nr_names].name, sizeof(sv->names[0].name),
				 "%s", line + 8);
			fclose(f);
			return sv->names[sv->nr_names++].name;
		}
	fclose(f);
	return NULL;
}

static void body_of(struct http_response *r, char *buf, size_t len, const char *type)
{
	r->status = 200;
	r->type = type;
	r->body = buf;
	r->len = len;
}

static void handle(void *ctx, const char *path, const char *accept,
		   struct http_response *r)
{
	struct serve *sv = ctx;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (!strcmp(path, "/healthz")) {
		/* the programs are attached and counting while this thread runs */
		if (asprintf(&buf, "ok %.0f s\n",
			     (now_ns(CLOCK_MONOTONIC) - sv->lv.start_ns) / 1e9) > 0)
			body_of(r, buf, strlen(buf), "text/plain; charset=utf-8");
		return;
	}
	if (!strcmp(path, "/")) {
		if (asprintf(&buf,
			     "iotrail serve: /metrics (Prometheus text, OpenMetrics "
			     "when asked), /healthz\n") > 0)
			body_of(r, buf, strlen(buf), "text/plain; charset=utf-8");
		return;
	}
	if (strcmp(path, "/metrics")) {
		r->status = 404;
		return;
	}
	f = open_memstream(&buf, &len);
	if (f) {
		struct iot_agg_entry *e = NULL;
		size_t n = 0;
		struct metrics_info mi = {
		    .dev_name = dev_name,
		    .ctx = sv,
		    .syscall_names = syscall_kind_names,
		    .nr_syscall_names = IOT_AGG_METRICS - IOT_AGG_SYSCALL,
		    .uptime_s = (now_ns(CLOCK_MONOTONIC) - sv->lv.start_ns) / 1e9,
		    .scrapes = ++sv->scrapes,
		    .openmetrics = strstr(accept, "application/openmetrics-text") != NULL,
		};

		bool ok = !record_live_read(&sv->lv, &e, &n, &mi.lost);

		if (ok) {
			e = with_known(sv, e, &n);
			metrics_write(f, e, n, &mi);
		}
		free(e);
		if (fclose(f) || !ok) {
			free(buf);
			r->status = 500;
			return;
		}
		body_of(r, buf, len,
			mi.openmetrics
			    ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
			    : "text/plain; version=0.0.4; charset=utf-8");
	}
}

static void *http_thread(void *arg)
{
	http_run(&((struct serve *)arg)->http);
	return NULL;
}

static void live_start(void *ctx, const struct record_live *lv)
{
	struct serve *sv = ctx;

	sv->lv = *lv;
	if (pthread_create(&sv->thread, NULL, http_thread, sv)) {
		fprintf(stderr, "iotrail: cannot start the HTTP thread: %s\n",
			strerror(errno));
		return;
	}
	sv->running = true;
}

static void live_stop(void *ctx)
{
	struct serve *sv = ctx;

	if (!sv->running)
		return;
	http_stop(&sv->http);
	pthread_join(sv->thread, NULL);
	sv->running = false;
}

static int usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: iotrail serve [--listen ADDR:PORT] [-d DEV]... [-o TRACE "
	    "[--interval TIME]]\n"
	    "  -l, --listen ADDR:PORT  where to answer (default 127.0.0.1:9464; :9464\n"
	    "                          for every address, [::1]:9464)\n"
	    "  -d, --device DEV        only these devices (as record -d)\n"
	    "  -o, --output TRACE      also keep the histograms in a trace, every\n"
	    "                          --interval (default 10s): report -i reads it\n"
	    "Serves /metrics (Prometheus text 0.0.4, or OpenMetrics 1.0 when the\n"
	    "scraper asks) and /healthz until SIGINT or SIGTERM (docs/FLEET.md).\n");
	return f == stdout ? 0 : 2;
}

int cmd_serve(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"listen", required_argument, NULL, 'l'},
	    {"device", required_argument, NULL, 'd'},
	    {"output", required_argument, NULL, 'o'},
	    {"interval", required_argument, NULL, 'I'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	struct record_opts o = {
	    .output = NULL,
	    .bufsize = RECORD_DEFAULT_BUFSIZE,
	    .switch_ns = RECORD_DEFAULT_SWITCH_NS,
	    .nice = RECORD_DEFAULT_NICE,
	    .aggregate = true,
	};
	const char *listen_addr = "127.0.0.1:9464", *devs[64];
	struct serve *sv;
	char err[256];
	int c, ret;

	o.devs = devs;
	o.cmdline = "iotrail serve";
	optind = 1;
	while ((c = getopt_long(argc, argv, "l:d:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'l':
			listen_addr = optarg;
			break;
		case 'd':
			if (o.nr_devs == 64)
				return usage_error("-d: at most 64 devices");
			devs[o.nr_devs++] = optarg;
			break;
		case 'o':
			o.output = optarg;
			break;
		case 'I':
			if (parse_time(optarg, &o.interval_ns) || !o.interval_ns)
				return usage_error(
				    "--interval %s: not a time (try 10s, 1m)", optarg);
			break;
		case 'h':
			return usage(stdout);
		default:
			return usage(stderr);
		}
	}
	if (optind < argc)
		return usage_error("serve: unexpected argument '%s'", argv[optind]);
	if (o.interval_ns && !o.output)
		return usage_error("--interval: only with -o (the histograms' trace)");
	if (o.output && !o.interval_ns)
		o.interval_ns = 10000000000ull;
	sv = calloc(1, sizeof(*sv));
	if (!sv)
		return 1;
	/* the address first: a port in use is said before anything loads */
	ret = http_listen(&sv->http, listen_addr, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "iotrail: %s\n", err);
		free(sv);
		return ret == 2 ? 2 : 1;
	}
	for (int i = 0; i < o.nr_devs; i++) {
		uint32_t d = disk_of(devs[i]);

		if (d)
			sv->known[sv->nr_known++] = d;
	}
	sv->http.handle = handle;
	sv->http.ctx = sv;
	o.live_start = live_start;
	o.live_stop = live_stop;
	o.live_ctx = sv;
	fprintf(stderr, "iotrail: serving http://%s/metrics\n", listen_addr);
	ret = record_run(&o);
	live_stop(sv);
	http_close(&sv->http);
	free(sv);
	return ret;
}
