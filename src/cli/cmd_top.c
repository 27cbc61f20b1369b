// SPDX-License-Identifier: GPL-2.0
/*
 * iotrail top: a live view, per device and per process, of the requests
 * completed in each interval: rates, throughput, and the stages' average and
 * 99th percentile (src/record/top.c counts them in the kernel). On a terminal
 * an ncurses screen, sortable by key; otherwise (or with -b) the same tables
 * as plain text, one block per interval.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <ncurses.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "../analyze/metric.h"
#include "../record/top.h"
#include "../util/clock.h"
#include "../util/parse.h"
#include "cli.h"

#define MAX_PIDS 32
#define MAX_DEVS 1024 /* as record -d */

enum sort_key { SORT_IOPS, SORT_KBS, SORT_AWAIT, SORT_PID, NR_SORT };
static const char *const sort_names[NR_SORT] = {"iops", "kbs", "await", "pid"};

struct top_opts {
	bool batch;
	size_t rows; /* process rows shown, 0: what fits (terminal) or 20 */
	pid_t pids[MAX_PIDS];
	size_t nr_pids;
	uint32_t devs[MAX_DEVS];
	size_t nr_devs;
	enum sort_key sort;
	uint64_t interval_ns, count; /* count 0: until q or Ctrl-C */
};

/* one row of the view: the change over the interval, per second */
struct view_row {
	uint32_t key;
	char name[32]; /* COMM, or the disk's name */
	double r_s, w_s, o_s, rkb_s, wkb_s;
	double avg_us[TOP_STAGES];
	double p99_us[TOP_STAGES]; /* the upper bound of its log2 bucket */
	bool has[TOP_STAGES];
};

struct view {
	struct view_row *procs, *disks;
	size_t nr_procs, nr_disks;
	double itv_s;
	struct top_lost lost; /* over the interval */
};

static volatile sig_atomic_t stop_now;

static void on_signal(int sig)
{
	(void)sig;
	stop_now = 1;
}

static void top_usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: iotrail top [-b] [-n ROWS] [-p PID]... [-d DEV]... [--sort KEY] "
	    "[interval [count]]\n"
	    "\n"
	    "  per device and per process, the requests completed each interval\n"
	    "  (1 s by default; 500ms, 2s), count of them in all (until q or Ctrl-C\n"
	    "  without): r/s w/s o/s (flushes, discards), rkB/s wkB/s, and per stage\n"
	    "  the average and 99th percentile in us: sched (the kernel's request\n"
	    "  start to its issue to the driver), dev (issue to completion), await\n"
	    "  (the whole, as iostat's). The process is the one that submitted the\n"
	    "  request. On a terminal, keys: i t a p sort by IOPS, throughput, await,\n"
	    "  pid; q quits.\n"
	    "\n"
	    "  -b, --batch         plain text blocks, as when not on a terminal\n"
	    "  -n, --rows N        at most N processes (default: what fits, or 20)\n"
	    "  -p, --pid PID       only these processes\n"
	    "  -d, --device DEV    only these disks (loop0, vda)\n"
	    "      --sort KEY      iops (default), kbs, await, pid\n");
}

/* ---- the arithmetic ---------------------------------------------------------------- */

static int cmp_key(const void *a, const void *b)
{
	uint32_t x = ((const struct top_row *)a)->key,
		 y = ((const struct top_row *)b)->key;

	return (x > y) - (x < y);
}

static const struct top_row *find_row(const struct top_row *rows, size_t n, uint32_t key)
{
	struct top_row k = {.key = key};

	return n ? bsearch(&k, rows, n, sizeof(*rows), cmp_key) : NULL;
}

static uint64_t delta(uint64_t a, uint64_t b)
{
	return b >= a ? b - a : 0;
}

/* cur - prev (prev NULL: since the start) as rates over itv_s; false when
 * nothing completed */
static bool view_row(struct view_row *v, const struct top_row *prev,
		     const struct top_row *cur, double itv_s)
{
	static const struct top_stats zero;
	const struct top_stats *a = prev ? &prev->s : &zero, *b = &cur->s;
	uint64_t n = 0;

	memset(v, 0, sizeof(*v));
	v->key = cur->key;
	for (int o = 0; o < TOP_OPS; o++)
		n += delta(a->ios[o], b->ios[o]);
	if (!n || itv_s <= 0)
		return false;
	v->r_s = (double)delta(a->ios[TOP_READ], b->ios[TOP_READ]) / itv_s;
	v->w_s = (double)delta(a->ios[TOP_WRITE], b->ios[TOP_WRITE]) / itv_s;
	v->o_s = (double)delta(a->ios[TOP_OTHER], b->ios[TOP_OTHER]) / itv_s;
	v->rkb_s = (double)delta(a->bytes[TOP_READ], b->bytes[TOP_READ]) / 1024 / itv_s;
	v->wkb_s = (double)delta(a->bytes[TOP_WRITE], b->bytes[TOP_WRITE]) / 1024 / itv_s;
	for (int k = 0; k < TOP_STAGES; k++) {
		uint64_t buckets[TOP_HIST];
		struct metric m;
		struct metric_stats st;

		for (int i = 0; i < TOP_HIST; i++)
			buckets[i] = delta(a->hist[k][i], b->hist[k][i]);
		metric_init(&m, "", "", "ns", false);
		metric_add_hist(&m, buckets, delta(a->sum_ns[k], b->sum_ns[k]));
		metric_stats(&m, &st);
		metric_release(&m);
		v->has[k] = st.count > 0;
		v->avg_us[k] = st.avg / 1e3;
		v->p99_us[k] = (double)st.p99 / 1e3;
	}
	return true;
}

static const char *disk_name(uint32_t dev, char *buf, size_t len)
{
	char path[64], target[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", dev >> 20, dev & 0xfffff);
	n = readlink(path, target, sizeof(target) - 1);
	if (n > 0) {
		const char *slash;

		target[n] = 0;
		slash = strrchr(target, '/');
		snprintf(buf, len, "%s", slash ? slash + 1 : target);
	} else {
		snprintf(buf, len, "%u:%u", dev >> 20, dev & 0xfffff);
	}
	return buf;
}

static bool wanted(const struct top_opts *o, bool proc, uint32_t key)
{
	size_t n = proc ? o->nr_pids : o->nr_devs;

	if (!n)
		return true;
	for (size_t i = 0; i < n; i++)
		if (proc ? (uint32_t)o->pids[i] == key : o->devs[i] == key)
			return true;
	return false;
}

static void stats_add(struct top_stats *to, const struct top_stats *from)
{
	for (int o = 0; o < TOP_OPS; o++) {
		to->ios[o] += from->ios[o];
		to->bytes[o] += from->bytes[o];
	}
	for (int k = 0; k < TOP_STAGES; k++) {
		to->sum_ns[k] += from->sum_ns[k];
		for (int i = 0; i < TOP_HIST; i++)
			to->hist[k][i] += from->hist[k][i];
	}
}

/* A sample's process rows on the chosen disks, summed per process, sorted
 * by tgid into *out (n of them). 0 or -ENOMEM. */
static int fold(const struct top_opts *o, const struct top_sample *s,
		struct top_row **out, size_t *n)
{
	struct top_row *rows = malloc((s->nr_procs + 1) * sizeof(*rows));
	size_t k = 0;

	if (!rows)
		return -ENOMEM;
	for (size_t i = 0; i < s->nr_procs; i++)
		if (wanted(o, false, s->procs[i].disk) &&
		    wanted(o, true, s->procs[i].key))
			rows[k++] = s->procs[i];
	qsort(rows, k, sizeof(*rows), cmp_key);
	*n = 0;
	for (size_t i = 0; i < k; i++) {
		if (*n && rows[*n - 1].key == rows[i].key)
			stats_add(&rows[*n - 1].s, &rows[i].s);
		else
			rows[(*n)++] = rows[i];
	}
	free(*out);
	*out = rows;
	return 0;
}

static int view_make(const struct top_opts *o, struct view *v, struct top_sample *prev,
		     struct top_sample *cur)
{
	double itv_s = (double)(cur->ts_ns - prev->ts_ns) / 1e9;
	struct top_row *pp = NULL, *cp = NULL;
	size_t np = 0, nc = 0;

	if (prev->nr_disks) /* none yet: no array either */
		qsort(prev->disks, prev->nr_disks, sizeof(*prev->disks), cmp_key);
	free(v->procs);
	free(v->disks);
	memset(v, 0, sizeof(*v));
	v->itv_s = itv_s;
	if (fold(o, prev, &pp, &np) || fold(o, cur, &cp, &nc)) {
		free(pp);
		return -ENOMEM;
	}
	v->procs = calloc(nc + 1, sizeof(*v->procs));
	v->disks = calloc(cur->nr_disks + 1, sizeof(*v->disks));
	if (!v->procs || !v->disks) {
		free(pp);
		free(cp);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nc; i++) {
		struct view_row *r = &v->procs[v->nr_procs];

		if (!view_row(r, find_row(pp, np, cp[i].key), &cp[i], itv_s))
			continue;
		snprintf(r->name, sizeof(r->name), "%.16s", cp[i].s.comm);
		v->nr_procs++;
	}
	for (size_t i = 0; i < cur->nr_disks; i++) {
		const struct top_row *c = &cur->disks[i];
		struct view_row *r = &v->disks[v->nr_disks];

		if (!wanted(o, false, c->key) ||
		    !view_row(r, find_row(prev->disks, prev->nr_disks, c->key), c, itv_s))
			continue;
		disk_name(c->key, r->name, sizeof(r->name));
		v->nr_disks++;
	}
	free(pp);
	free(cp);
	v->lost.requests_full = delta(prev->lost.requests_full, cur->lost.requests_full);
	v->lost.procs_full = delta(prev->lost.procs_full, cur->lost.procs_full);
	v->lost.missed = delta(prev->lost.missed, cur->lost.missed);
	return 0;
}

static enum sort_key sort_by;

static int cmp_view(const void *a, const void *b)
{
	const struct view_row *x = a, *y = b;
	double dx, dy;

	switch (sort_by) {
	case SORT_PID:
		return (x->key > y->key) - (x->key < y->key);
	case SORT_KBS:
		dx = x->rkb_s + x->wkb_s, dy = y->rkb_s + y->wkb_s;
		break;
	case SORT_AWAIT:
		dx = x->avg_us[TOP_AWAIT], dy = y->avg_us[TOP_AWAIT];
		break;
	default:
		dx = x->r_s + x->w_s + x->o_s, dy = y->r_s + y->w_s + y->o_s;
		break;
	}
	if (dx != dy)
		return dx < dy ? 1 : -1;
	return (x->key > y->key) - (x->key < y->key);
}

/* ---- the text, for either screen ----------------------------------------------------
 */

struct screen {
	bool curses;
	int line, max_lines;
};

static void put(struct screen *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void put(struct screen *s, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (!s->curses) {
		fputs(buf, stdout);
		return;
	}
	/* curses: a line per '\n', the last one's end being the line's end */
	for (char *p = buf, *nl; *p && s->line < s->max_lines; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl) {
			mvaddnstr(s->line++, 0, p, COLS > 0 ? COLS : 80);
			break;
		}
		*nl = 0;
		mvaddnstr(s->line++, 0, p, COLS > 0 ? COLS : 80);
	}
}

static void stage_cells(char *buf, size_t len, const struct view_row *r)
{
	size_t off = 0;

	for (int k = 0; k < TOP_STAGES && off < len; k++) {
		if (r->has[k])
			off += (size_t)snprintf(buf + off, len - off, " %9.1f %8.0f",
						r->avg_us[k], r->p99_us[k]);
		else
			off +=
			    (size_t)snprintf(buf + off, len - off, " %9s %8s", "-", "-");
	}
}

#define RATE_HEAD  "%9s %9s %7s %10s %10s"
#define RATE_ROW   "%9.1f %9.1f %7.1f %10.1f %10.1f"
#define STAGE_HEAD " SCHED_AVG SCHED_P99   DEV_AVG  DEV_P99 AWAIT_AVG AWAIT_P99"

static void draw(struct screen *s, const struct top_opts *o, struct view *v, size_t rows)
{
	char stages[128], when[16];
	time_t now = time(NULL);
	struct tm tm;

	localtime_r(&now, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	sort_by = o->sort;
	qsort(v->disks, v->nr_disks, sizeof(*v->disks), cmp_view);
	qsort(v->procs, v->nr_procs, sizeof(*v->procs), cmp_view);
	put(s,
	    "iotrail top - %s  interval %.2f s  sort %s  lost %llu (requests %llu, "
	    "processes %llu, completions unseen %llu)%s\n",
	    when, v->itv_s, sort_names[o->sort],
	    (unsigned long long)(v->lost.requests_full + v->lost.procs_full +
				 v->lost.missed),
	    (unsigned long long)v->lost.requests_full,
	    (unsigned long long)v->lost.procs_full, (unsigned long long)v->lost.missed,
	    s->curses ? "   keys: i t a p sort, q quit" : "");
	put(s, "\n%-16s " RATE_HEAD "%s   (us)\n", "DEVICE", "R/s", "W/s", "O/s", "rKB/s",
	    "wKB/s", STAGE_HEAD);
	for (size_t i = 0; i < v->nr_disks; i++) {
		const struct view_row *r = &v->disks[i];

		stage_cells(stages, sizeof(stages), r);
		put(s, "%-16s " RATE_ROW "%s\n", r->name, r->r_s, r->w_s, r->o_s,
		    r->rkb_s, r->wkb_s, stages);
	}
	put(s, "\n%7s %-16s " RATE_HEAD "%s\n", "PID", "COMM", "R/s", "W/s", "O/s",
	    "rKB/s", "wKB/s", STAGE_HEAD);
	for (size_t i = 0; i < v->nr_procs && i < rows; i++) {
		const struct view_row *r = &v->procs[i];

		stage_cells(stages, sizeof(stages), r);
		put(s, "%7u %-16s " RATE_ROW "%s\n", r->key, r->name, r->r_s, r->w_s,
		    r->o_s, r->rkb_s, r->wkb_s, stages);
	}
	if (v->nr_procs > rows)
		put(s, "  (%zu more processes)\n", v->nr_procs - rows);
	if (!s->curses) {
		putchar('\n');
		fflush(stdout);
	}
}

/* ---- the loop --------------------------------------------------------------------- */

static int parse_args(int argc, char **argv, struct top_opts *o)
{
	static const struct option longopts[] = {
	    {"batch", no_argument, NULL, 'b'},
	    {"rows", required_argument, NULL, 'n'},
	    {"pid", required_argument, NULL, 'p'},
	    {"device", required_argument, NULL, 'd'},
	    {"sort", required_argument, NULL, 'S'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	uint64_t v;
	int c;

	o->interval_ns = 1000000000ull;
	while ((c = getopt_long(argc, argv, "bn:p:d:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			o->batch = true;
			break;
		case 'n':
			if (parse_count(optarg, &v) || !v || v > 100000)
				return usage_error("-n %s: not a number of rows", optarg);
			o->rows = (size_t)v;
			break;
		case 'p':
			if (parse_count(optarg, &v) || !v || v > INT32_MAX)
				return usage_error("-p %s: not a process id", optarg);
			if (o->nr_pids == MAX_PIDS)
				return usage_error("-p %s: at most %d processes", optarg,
						   MAX_PIDS);
			if (kill((pid_t)v, 0) && errno == ESRCH)
				return usage_error("-p %s: no such process", optarg);
			o->pids[o->nr_pids++] = (pid_t)v;
			break;
		case 'd': {
			const char *name =
			    strncmp(optarg, "/dev/", 5) ? optarg : optarg + 5;
			char path[300];
			unsigned int ma, mi;
			FILE *f;

			if (o->nr_devs == MAX_DEVS)
				return usage_error("-d %s: at most %d devices", optarg,
						   MAX_DEVS);
			snprintf(path, sizeof(path), "/sys/class/block/%s/dev", name);
			f = strchr(name, '/') ? NULL : fopen(path, "r");
			if (!f || fscanf(f, "%u:%u", &ma, &mi) != 2) {
				if (f)
					fclose(f);
				return usage_error("-d %s: no such block device", optarg);
			}
			fclose(f);
			o->devs[o->nr_devs++] = ma << 20 | mi;
			break;
		}
		case 'S': {
			int k;

			for (k = 0; k < NR_SORT && strcmp(optarg, sort_names[k]); k++)
				;
			if (k == NR_SORT)
				return usage_error(
				    "--sort %s: one of iops, kbs, await, pid", optarg);
			o->sort = (enum sort_key)k;
			break;
		}
		case 'h':
			top_usage(stdout);
			exit(0);
		default:
			top_usage(stderr);
			return 2;
		}
	}
	return parse_interval_count(argc, argv, &o->interval_ns, &o->count);
}

/* curses: wait until the deadline, taking keys; true when q was pressed or
 * a signal came. A key that changes the order redraws at once. */
static bool wait_keys(struct top_opts *o, struct screen *s, struct view *v,
		      uint64_t deadline)
{
	for (;;) {
		uint64_t now = now_ns(CLOCK_MONOTONIC);
		int ch;

		if (stop_now)
			return true;
		if (now >= deadline)
			return false;
		timeout((int)((deadline - now) / 1000000) + 1);
		ch = getch();
		switch (ch) {
		case 'q':
		case 'Q':
			return true;
		case 'i':
			o->sort = SORT_IOPS;
			break;
		case 't':
			o->sort = SORT_KBS;
			break;
		case 'a':
			o->sort = SORT_AWAIT;
			break;
		case 'p':
			o->sort = SORT_PID;
			break;
		default:
			continue;
		}
		erase();
		s->line = 0;
		s->max_lines = LINES;
		draw(s, o, v, o->rows ? o->rows : (size_t)(LINES > 8 ? LINES - 8 : 1));
		refresh();
	}
}

int cmd_top(int argc, char **argv)
{
	struct top_opts o = {0};
	struct top_sample smp[2] = {{0}};
	struct screen scr = {0};
	struct view v = {0};
	struct top *t = NULL;
	char err[256];
	uint64_t deadline, done = 0;
	int ret, cur = 0;

	ret = parse_args(argc, argv, &o);
	if (ret)
		return ret;
	if (top_open(&t, err, sizeof(err))) {
		fprintf(stderr, "iotrail: top: %s\n", err);
		return 1;
	}
	if (top_read(t, &smp[0])) {
		fprintf(stderr, "iotrail: top: reading the counts: %s\n",
			strerror(errno));
		top_close(t);
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	scr.curses = !o.batch && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO);
	if (scr.curses) {
		if (!initscr()) {
			scr.curses = false;
		} else {
			cbreak();
			noecho();
			curs_set(0);
			keypad(stdscr, TRUE);
			mvaddstr(0, 0, "iotrail top: the first interval...");
			refresh();
		}
	}
	deadline = smp[0].ts_ns + o.interval_ns;
	while (!stop_now && (!o.count || done < o.count)) {
		if (scr.curses) {
			if (wait_keys(&o, &scr, &v, deadline))
				break;
		} else {
			struct timespec ts = {(time_t)(deadline / 1000000000ull),
					      (long)(deadline % 1000000000ull)};

			while (!stop_now &&
			       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
					       NULL) == EINTR)
				;
			if (stop_now)
				break;
		}
		deadline += o.interval_ns;
		if (top_read(t, &smp[!cur]) || view_make(&o, &v, &smp[cur], &smp[!cur])) {
			ret = 1;
			snprintf(err, sizeof(err), "reading the counts: %s",
				 strerror(errno));
			break;
		}
		cur = !cur;
		if (scr.curses) {
			erase();
			scr.line = 0;
			scr.max_lines = LINES;
			draw(&scr, &o, &v,
			     o.rows ? o.rows : (size_t)(LINES > 8 ? LINES - 8 : 1));
			refresh();
		} else {
			draw(&scr, &o, &v, o.rows ? o.rows : 20);
		}
		done++;
	}
	if (scr.curses)
		endwin();
	if (ret)
		fprintf(stderr, "iotrail: top: %s\n", err);
	free(v.procs);
	free(v.disks);
	top_sample_release(&smp[0]);
	top_sample_release(&smp[1]);
	top_close(t);
	return ret;
}
