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
#include <sys/resource.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <signal.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "../analyze/analyzer.h"
#include "../record/record.h"
#include "../serve/http.h"
#include "../serve/metrics.h"
#include "../trace/syscalls.h"
#include "../util/clock.h"
#include "../util/grow.h"
#include "../util/parse.h"
#include "cli.h"
#include "pipeline.h"

/* --capture-slow: a latency bucket's exemplar, a request captured in it */
#define EX_BUCKETS (METRICS_NS_HI - METRICS_NS_LO + 1)
#define EX_STAGES  (IOT_AGG_Q2C + 1)
struct exemplar {
	bool set;
	double value_s, ts_s;
	uint64_t rq;
	unsigned int file; /* capture-N.iot */
};

struct ex_dev {
	uint32_t dev;
	struct exemplar b[IOT_AGG_OPS][EX_STAGES][EX_BUCKETS];
};

struct capture {
	uint64_t slow_ns, period_ns;
	const char *dir;
	unsigned int keep;
	const char *const *devs;
	int nr_devs;
	pthread_t thread;
	bool running;
	volatile int stop;
	volatile pid_t child;
	pthread_mutex_t lock; /* the exemplars: the HTTP thread reads them */
	struct ex_dev ex[16];
	size_t nr_ex;
	unsigned int file; /* the one being written */
	uint64_t scanned;  /* requests found in closed files */
};

struct serve {
	struct http_server http;
	struct record_live lv;
	pthread_t thread;
	bool running;
	uint64_t scrapes;
	struct {
		uint32_t dev;
		char name[32];
	} * names; /* dev_t -> name, as /sys says (the HTTP thread's) */
	size_t nr_names, cap_names;
	/* the -d disks: their series exist from the start */
	uint32_t known[RECORD_MAX_DEVS];
	size_t nr_known;
	struct capture cap;
	bool by_cgroup;
	bool syscalls; /* --syscalls: their histograms are served */
	struct {
		uint32_t id;
		char *path;	 /* whole (a Kubernetes container's runs past 150
				    bytes); NULL when no cgroup has that id (yet) */
	} cgroups[IOT_AGG_DEVS]; /* the HTTP thread's cache */
	size_t nr_cgroups;
};

/* the directory under root whose inode (low 32 bits) is id: its path
 * from root into out */
static bool find_cgroup(const char *root, const char *rel, uint32_t id, char *out,
			size_t len, int depth)
{
	char dir[4096];
	struct dirent *de;
	struct stat st;
	bool found = false;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s%s", root, rel);
	if (depth > 32 || stat(dir, &st) || !S_ISDIR(st.st_mode))
		return false;
	if ((uint32_t)st.st_ino == id) {
		snprintf(out, len, "%s", rel[0] ? rel : "/");
		return true;
	}
	d = opendir(dir);
	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		char sub[4096];

		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", rel, de->d_name);
		found = find_cgroup(root, sub, id, out, len, depth + 1);
	}
	closedir(d);
	return found;
}

static void forget_cgroups(struct serve *sv)
{
	for (size_t i = 0; i < sv->nr_cgroups; i++)
		free(sv->cgroups[i].path);
	sv->nr_cgroups = 0;
}

/* a blkcg's path in its hierarchy: cgroup v1's blkio one where mounted,
 * else v2's; cached, misses too (a cgroup made later is looked for again
 * once the cache, one entry a histogram slot, is full and starts over) */
static const char *cgroup_name(void *ctx, uint32_t id)
{
	static const char *const roots[] = {"/sys/fs/cgroup/blkio",
					    "/sys/fs/cgroup/unified", "/sys/fs/cgroup"};
	struct serve *sv = ctx;
	char path[4096];
	size_t i;

	for (i = 0; i < sv->nr_cgroups; i++)
		if (sv->cgroups[i].id == id)
			return sv->cgroups[i].path;
	if (sv->nr_cgroups == sizeof(sv->cgroups) / sizeof(sv->cgroups[0]))
		forget_cgroups(sv);
	i = sv->nr_cgroups++;
	sv->cgroups[i].id = id;
	sv->cgroups[i].path = NULL;
	for (size_t r = 0; r < sizeof(roots) / sizeof(roots[0]); r++)
		if (find_cgroup(roots[r], "", id, path, sizeof(path), 0)) {
			sv->cgroups[i].path = strdup(path); /* NULL: the id */
			break;
		}
	return sv->cgroups[i].path;
}

/* ---- --capture-slow: rotating speculative recordings and exemplars ---- */

static struct exemplar *ex_slot(struct capture *c, uint32_t dev, unsigned int op,
				unsigned int stage, int j)
{
	size_t i;

	if (op >= IOT_AGG_OPS || stage >= EX_STAGES || j < METRICS_NS_LO ||
	    j > METRICS_NS_HI)
		return NULL;
	for (i = 0; i < c->nr_ex; i++)
		if (c->ex[i].dev == dev)
			break;
	if (i == c->nr_ex) {
		if (c->nr_ex == sizeof(c->ex) / sizeof(c->ex[0]))
			return NULL;
		memset(&c->ex[i], 0, sizeof(c->ex[i]));
		c->ex[i].dev = dev;
		c->nr_ex++;
	}
	return &c->ex[i].b[op][stage][j - METRICS_NS_LO];
}

/* the bucket a latency counts in: the first le = 2^j ns above it */
static int bucket_of(uint64_t ns)
{
	int j = 64 - __builtin_clzll(ns | 1);

	return j < METRICS_NS_LO ? METRICS_NS_LO : j;
}

struct scan {
	struct capture *c;
	unsigned int file;
	uint64_t mono0, real0;
};

static void scan_request(void *ctx, const struct join_request *r)
{
	struct scan *sc = ctx;
	struct capture *c = sc->c;
	uint32_t opf = r->flags & IOT_OP_MASK;
	unsigned int op = opf == IOT_OP_READ ? 0 : opf == IOT_OP_WRITE ? 1 : 2;
	struct {
		unsigned int stage;
		uint64_t from;
	} st[] = {{IOT_AGG_Q2C, r->q_ns}, {IOT_AGG_D2C, r->d_ns}};

	if (!r->c_ns || !r->q_ns || r->c_ns - r->q_ns < c->slow_ns)
		return;
	c->scanned++;
	pthread_mutex_lock(&c->lock);
	for (size_t k = 0; k < sizeof(st) / sizeof(st[0]); k++) {
		uint64_t v =
		    st[k].from && r->c_ns >= st[k].from ? r->c_ns - st[k].from : 0;
		struct exemplar *e =
		    v ? ex_slot(c, r->dev, op, st[k].stage, bucket_of(v)) : NULL;

		if (!e)
			continue;
		e->set = true;
		e->value_s = v / 1e9;
		e->ts_s = (sc->real0 + (r->c_ns - sc->mono0)) / 1e9;
		e->rq = r->rq;
		e->file = sc->file;
	}
	pthread_mutex_unlock(&c->lock);
}

static void scan_none(void *ctx, const struct join_request *r, const struct join_bio *b)
{
}

static void scan_sys(void *ctx, const struct join_syscall *s) {}

/* a closed capture file: its slow requests become exemplars */
static void scan_file(struct capture *c, const char *path, unsigned int file)
{
	struct analysis_env env = {0};
	struct pipeline *pl = calloc(1, sizeof(*pl));
	struct scan sc = {.c = c, .file = file};
	struct join_sink sink = {
	    .ctx = &sc, .request = scan_request, .bio = scan_none, .syscall = scan_sys};

	if (!pl)
		return;
	if (!pipeline_open(pl, path, &env)) {
		sc.mono0 = pl->rd.hdr.start_mono_ns;
		sc.real0 = pl->rd.hdr.start_realtime_ns;
		pipeline_join(pl, path, &sink, NULL, NULL);
	}
	pipeline_release(pl);
	free(pl);
}

/* the exemplars of a file about to be removed go with it */
static void forget_file(struct capture *c, unsigned int file)
{
	pthread_mutex_lock(&c->lock);
	for (size_t i = 0; i < c->nr_ex; i++)
		for (unsigned int o = 0; o < IOT_AGG_OPS; o++)
			for (unsigned int s = 0; s < EX_STAGES; s++)
				for (int j = 0; j < EX_BUCKETS; j++)
					if (c->ex[i].b[o][s][j].file == file)
						c->ex[i].b[o][s][j].set = false;
	pthread_mutex_unlock(&c->lock);
}

static bool exemplar(void *ctx, uint32_t dev, uint8_t op, uint8_t metric, int j,
		     char *buf, size_t len)
{
	struct capture *c = &((struct serve *)ctx)->cap;
	struct exemplar *e, copy = {0};

	if (!c->slow_ns)
		return false;
	pthread_mutex_lock(&c->lock);
	e = ex_slot(c, dev, op, metric, j);
	if (e)
		copy = *e;
	pthread_mutex_unlock(&c->lock);
	if (!copy.set)
		return false;
	snprintf(buf, len,
		 " # {trace_file=\"capture-%u.iot\",request=\"%#llx\"} %.9f %.3f",
		 copy.file, (unsigned long long)copy.rq, copy.value_s, copy.ts_s);
	return true;
}

/* one capture: `iotrail record --speculate` for a period, in a child */
static pid_t start_capture(struct capture *c, const char *path)
{
	char slow[32], period[32], log[4200];
	const char *argv[8 + 2 * RECORD_MAX_DEVS + 1];
	int n = 0, fd;
	pid_t pid;

	snprintf(slow, sizeof(slow), "%lluns", (unsigned long long)c->slow_ns);
	snprintf(period, sizeof(period), "%lluns", (unsigned long long)c->period_ns);
	snprintf(log, sizeof(log), "%s/capture.log", c->dir);
	argv[n++] = "iotrail";
	argv[n++] = "record";
	argv[n++] = "--speculate";
	argv[n++] = slow;
	argv[n++] = "--duration";
	argv[n++] = period;
	argv[n++] = "-o";
	argv[n++] = path;
	for (int i = 0; i < c->nr_devs; i++) {
		argv[n++] = "-d";
		argv[n++] = c->devs[i];
	}
	argv[n] = NULL;
	pid = fork();
	if (pid)
		return pid;
	fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd >= 0) {
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
	}
	/* the signals serve's recorder catches are the child's own again */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	execv("/proc/self/exe", (char **)argv);
	_exit(127);
}

static void *capture_thread(void *arg)
{
	struct capture *c = arg;
	char path[4200], old[4200];
	sigset_t all;

	/* signals are the main thread's (the recorder's stop) */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	for (unsigned int k = 1; !c->stop; k++) {
		int status;
		pid_t pid;

		snprintf(path, sizeof(path), "%s/capture-%u.iot", c->dir, k);
		c->file = k;
		pid = start_capture(c, path);
		if (pid < 0)
			break;
		c->child = pid;
		if (c->stop)
			kill(pid, SIGINT);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		c->child = 0;
		if (c->stop) {
			struct stat st;

			/* stopped before it wrote anything: nothing to keep */
			if (!stat(path, &st) && !st.st_size)
				unlink(path);
			break;
		}
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			/* the capture failed (see capture.log): try again later */
			struct timespec pause = {1, 0};

			nanosleep(&pause, NULL);
			continue;
		}
		scan_file(c, path, k);
		if (k > c->keep) {
			forget_file(c, k - c->keep);
			snprintf(old, sizeof(old), "%s/capture-%u.iot", c->dir,
				 k - c->keep);
			unlink(old);
		}
	}
	return NULL;
}

static int capture_start(struct capture *c)
{
	pthread_mutex_init(&c->lock, NULL);
	if (pthread_create(&c->thread, NULL, capture_thread, c))
		return -errno;
	c->running = true;
	return 0;
}

static void capture_stop(struct capture *c)
{
	pid_t pid;

	if (!c->running)
		return;
	c->stop = 1;
	pid = c->child;
	if (pid > 0)
		kill(pid, SIGINT); /* it ends its trace with the END chunk */
	pthread_join(c->thread, NULL);
	c->running = false;
}

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
	if (GROW(sv->names, sv->nr_names + 1, sv->cap_names))
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
		    .nr_syscall_names =
			sv->syscalls ? IOT_AGG_METRICS - IOT_AGG_SYSCALL : 0,
		    .uptime_s = (now_ns(CLOCK_MONOTONIC) - sv->lv.start_ns) / 1e9,
		    .scrapes = ++sv->scrapes,
		    .openmetrics = strstr(accept, "application/openmetrics-text") != NULL,
		    .exemplar = exemplar,
		};

		uint32_t *cg = NULL;
		struct record_live_lost lost;
		bool ok =
		    !record_live_read(&sv->lv, &e, &n, sv->by_cgroup ? &cg : NULL, &lost);

		mi.lost = lost.no_room;
		mi.lost_completions = lost.completions;
		mi.slots_used = lost.slots_used;
		mi.slots = lost.slots;

		if (ok) {
			if (!sv->by_cgroup)
				e = with_known(sv, e, &n);
			mi.cgroups = cg;
			mi.cgroup_name = cgroup_name;
			metrics_write(f, e, n, &mi);
		}
		free(e);
		free(cg);
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
	if (sv->cap.slow_ns && capture_start(&sv->cap))
		fprintf(stderr, "iotrail: cannot start the captures: %s\n",
			strerror(errno));
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

	capture_stop(&sv->cap);
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
	    "                     [--syscalls] [--by cgroup] [--slots N]\n"
	    "                     [--capture-slow LATENCY [--capture-dir DIR]\n"
	    "                      [--capture-files N] [--capture-period TIME]]\n"
	    "  -l, --listen ADDR:PORT  where to answer (default 127.0.0.1:9464; :9464\n"
	    "                          for every address, [::1]:9464)\n"
	    "  -d, --device DEV        only these devices (as record -d)\n"
	    "  -o, --output TRACE      also keep the histograms in a trace, every\n"
	    "                          --interval (default 10s): report -i reads it\n"
	    "      --syscalls          also the I/O system calls' latency (hooks every\n"
	    "                          system call on the machine: costs more)\n"
	    "      --by cgroup         series per (disk, cgroup)\n"
	    "      --slots N           histogram slots: disks, or (disk, cgroup) pairs\n"
	    "                          (default: every disk; 255 pairs), 1 to 1023,\n"
	    "                          each 5904 bytes per CPU\n"
	    "      --capture-slow LATENCY  also record every request at least\n"
	    "                          LATENCY slow in rotated traces (--capture-dir,\n"
	    "                          default iotrail-capture; --capture-files kept,\n"
	    "                          4; a new one every --capture-period, 30s),\n"
	    "                          the exemplars of the latency buckets\n"
	    "Serves /metrics (Prometheus text 0.0.4, or OpenMetrics 1.0 when the\n"
	    "scraper asks) and /healthz until SIGINT or SIGTERM (docs/FLEET.md).\n");
	return f == stdout ? 0 : 2;
}

/* Room for HTTP_MAX_CONNS connections beside the recorder's own
 * descriptors and the captures' files: the soft limit on descriptors is
 * often 1024, under HTTP_MAX_CONNS, so it is raised towards the hard one
 * (the server refuses what is beyond either: http.h) */
static void raise_nofile(void)
{
	const rlim_t want = HTTP_MAX_CONNS + 1024;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= want)
		return;
	rl.rlim_cur =
	    rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want ? want : rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl)) {
		/* the lower limit stands: connections past it are refused */
	}
}

int cmd_serve(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"listen", required_argument, NULL, 'l'},
	    {"device", required_argument, NULL, 'd'},
	    {"output", required_argument, NULL, 'o'},
	    {"interval", required_argument, NULL, 'I'},
	    {"by", required_argument, NULL, 'B'},
	    {"syscalls", no_argument, NULL, 'Y'},
	    {"slots", required_argument, NULL, 'N'},
	    {"capture-slow", required_argument, NULL, 'S'},
	    {"capture-dir", required_argument, NULL, 'D'},
	    {"capture-files", required_argument, NULL, 'K'},
	    {"capture-period", required_argument, NULL, 'P'},
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
	const char *listen_addr = "127.0.0.1:9464", *devs[RECORD_MAX_DEVS],
		   *cap_dir = "iotrail-capture";
	uint64_t slow_ns = 0, period_ns = 30000000000ull;
	unsigned long keep = 4;
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
			if (o.nr_devs == RECORD_MAX_DEVS)
				return usage_error("-d: at most %d devices",
						   RECORD_MAX_DEVS);
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
		case 'B':
			if (strcmp(optarg, "cgroup"))
				return usage_error("--by %s: serve splits by cgroup only "
						   "(--by cgroup)",
						   optarg);
			o.agg_by_cgroup = true;
			break;
		case 'Y':
			o.agg_syscalls = true;
			break;
		case 'N': {
			uint64_t v;

			if (parse_count(optarg, &v) || !v || v >= IOT_AGG_DEVS)
				return usage_error("--slots %s: a count from 1 to %u",
						   optarg, IOT_AGG_DEVS - 1);
			/* and slot 0, the system calls' */
			o.aggsize = RECORD_AGG_BYTES(v + 1);
			break;
		}
		case 'S':
			if (parse_time(optarg, &slow_ns) || !slow_ns)
				return usage_error(
				    "--capture-slow %s: not a latency (try 10ms, "
				    "500us)",
				    optarg);
			break;
		case 'D':
			cap_dir = optarg;
			break;
		case 'K': {
			char *end;

			keep = strtoul(optarg, &end, 10);
			if (*end || !keep || keep > 1000)
				return usage_error(
				    "--capture-files %s: a count from 1 to 1000", optarg);
			break;
		}
		case 'P':
			if (parse_time(optarg, &period_ns) || period_ns < 1000000000ull)
				return usage_error(
				    "--capture-period %s: a time of 1s or more", optarg);
			break;
		case 'h':
			return usage(stdout);
		default:
			return usage(stderr);
		}
	}
	if (optind < argc)
		return usage_error("serve: unexpected argument '%s'", argv[optind]);
	if (!slow_ns && (strcmp(cap_dir, "iotrail-capture") || keep != 4 ||
			 period_ns != 30000000000ull))
		return usage_error(
		    "--capture-dir, --capture-files, --capture-period: only "
		    "with --capture-slow");
	if (slow_ns && o.agg_by_cgroup)
		return usage_error("--capture-slow and --by cgroup: not together yet (an "
				   "exemplar names a disk's bucket, not a cgroup's)");
	if (slow_ns && mkdir(cap_dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "iotrail: --capture-dir %s: %s\n", cap_dir,
			strerror(errno));
		return 1;
	}
	if (o.interval_ns && !o.output)
		return usage_error("--interval: only with -o (the histograms' trace)");
	if (o.output && !o.interval_ns)
		o.interval_ns = 10000000000ull;
	sv = calloc(1, sizeof(*sv));
	if (!sv)
		return 1;
	raise_nofile();
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
	sv->by_cgroup = o.agg_by_cgroup;
	sv->syscalls = o.agg_syscalls;
	sv->cap.slow_ns = slow_ns;
	sv->cap.period_ns = period_ns;
	sv->cap.dir = cap_dir;
	sv->cap.keep = (unsigned int)keep;
	sv->cap.devs = devs;
	sv->cap.nr_devs = o.nr_devs;
	sv->http.handle = handle;
	sv->http.ctx = sv;
	o.live_start = live_start;
	o.live_stop = live_stop;
	o.live_ctx = sv;
	fprintf(stderr, "iotrail: serving http://%s/metrics\n", listen_addr);
	ret = record_run(&o);
	live_stop(sv);
	http_close(&sv->http);
	free(sv->names);
	forget_cgroups(sv);
	free(sv);
	return ret;
}
