// SPDX-License-Identifier: GPL-2.0
/*
 * iotrail sched: per CPU the busy share and context switches, per task the
 * voluntary and involuntary switches, migrations and run-queue latency,
 * and the imbalance between CPUs (seed 001's CPU pinning post), counted in
 * the kernel (src/record/sched.c); and the scheduler's tunables as this
 * kernel has them, read only.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../analyze/metric.h"
#include "../record/sched.h"
#include "../render/render.h"
#include "../util/json_writer.h"
#include "../util/parse.h"
#include "cli.h"

#define MAX_PIDS 64

static void sched_usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: iotrail sched [-p PID]... [--comm NAME] [--duration TIME]\n"
	    "                     [-- COMMAND ...]\n"
	    "\n"
	    "  -p, --pid PID         this process's tasks (and its children from now)\n"
	    "      --comm NAME       the tasks of this name\n"
	    "  -D, --duration TIME   stop after TIME (10s, 500ms); without it and\n"
	    "                        without COMMAND, at Ctrl-C\n"
	    "  COMMAND               its tasks and its children's, while it runs\n"
	    "  none of them: every task\n"
	    "\n"
	    "  Voluntary and involuntary switches count as the kernel's\n"
	    "  voluntary_ctxt_switches and nonvoluntary_ctxt_switches do; run-queue\n"
	    "  latency runs from a wakeup (or a preemption) to running again.\n");
}

static int cmp_task(const void *x, const void *y)
{
	const struct sched_task_row *a = x, *b = y;
	uint64_t sa = a->t.voluntary + a->t.involuntary,
		 sb = b->t.voluntary + b->t.involuntary;

	if (sa != sb)
		return sa < sb ? 1 : -1;
	return (a->tid > b->tid) - (a->tid < b->tid);
}

/* Run-queue latency from the kernel's log2 buckets of microseconds (bucket
 * k: [2^k, 2^(k+1)), 0 in 0), as the analyzers keep in-kernel histograms:
 * a metric, so its percentiles and its printed histogram are theirs. */
static void runq_metric(struct metric *m, const uint64_t hist[SCHED_HIST],
			uint64_t sum_ns)
{
	uint64_t b[64] = {0};

	memcpy(b, hist, SCHED_HIST * sizeof(*hist));
	metric_init(m, "run-queue latency", "(all tasks)", "us", false);
	metric_add_hist(m, b, sum_ns / 1000);
	if (metric_finish(m))
		memset(&m->st, 0, sizeof(m->st));
}

static void tunables(void)
{
	static const char *const dirs[] = {"/proc/sys/kernel", "/sys/kernel/debug/sched"};
	int n = 0;

	printf("\n# scheduler tunables (read only):");
	for (int d = 0; d < 2; d++) {
		DIR *dir = opendir(dirs[d]);
		struct dirent *e;

		while (dir && (e = readdir(dir))) {
			char path[512], val[64] = "";
			FILE *f;

			if (e->d_name[0] == '.' ||
			    (!d && strncmp(e->d_name, "sched_", 6)))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dirs[d], e->d_name);
			f = fopen(path, "r");
			if (!f)
				continue;
			if (fgets(val, sizeof(val), f)) {
				val[strcspn(val, "\n")] = 0;
				if (strchr(val, ' ') == NULL && val[0])
					printf("%s %s=%s", n++ % 4 ? "" : "\n#  ",
					       e->d_name, val);
			}
			fclose(f);
		}
		if (dir)
			closedir(dir);
	}
	printf("\n");
}

static int write_json(const char *path, const struct sched_result *r)
{
	FILE *f = fopen(path, "w");
	struct json_writer w;

	if (!f) {
		fprintf(stderr, "iotrail: -o %s: %s\n", path, strerror(errno));
		return 1;
	}
	jw_init(&w, f, true);
	jw_start_object(&w);
	jw_uint_field(&w, "elapsed_ns", r->elapsed_ns);
	jw_uint_field(&w, "nr_cpus", r->nr_cpus);
	jw_name(&w, "cpus");
	jw_start_array(&w);
	for (unsigned int i = 0; i < r->nr_cpus; i++) {
		jw_start_object(&w);
		jw_uint_field(&w, "cpu", i);
		jw_uint_field(&w, "busy_ns", r->cpus[i].busy_ns);
		jw_uint_field(&w, "switches", r->cpus[i].switches);
		jw_end_object(&w);
	}
	jw_end_array(&w);
	jw_name(&w, "tasks");
	jw_start_array(&w);
	for (size_t i = 0; i < r->nr_tasks; i++) {
		const struct sched_task *t = &r->tasks[i].t;
		char comm[17];

		memcpy(comm, t->comm, 16);
		comm[16] = 0;
		jw_start_object(&w);
		jw_uint_field(&w, "pid", t->tgid);
		jw_uint_field(&w, "tid", r->tasks[i].tid);
		jw_string_field(&w, "comm", comm);
		jw_uint_field(&w, "voluntary", t->voluntary);
		jw_uint_field(&w, "involuntary", t->involuntary);
		jw_uint_field(&w, "migrations", t->migrations);
		jw_uint_field(&w, "run_ns", t->run_ns);
		jw_uint_field(&w, "runq_count", t->runq_count);
		jw_uint_field(&w, "runq_sum_ns", t->runq_sum_ns);
		jw_uint_field(&w, "runq_max_ns", t->runq_max_ns);
		jw_name(&w, "runq_hist_us_log2");
		jw_start_array(&w);
		for (int k = 0; k < SCHED_HIST; k++)
			jw_uint(&w, t->runq_hist[k]);
		jw_end_array(&w);
		jw_end_object(&w);
	}
	jw_end_array(&w);
	jw_end_object(&w);
	fputc('\n', f);
	if (fclose(f)) {
		fprintf(stderr, "iotrail: -o %s: %s\n", path, strerror(errno));
		return 1;
	}
	return 0;
}

/* one -o file's figures, per second where they are counts */
struct sched_sum {
	double secs, busy_pct_min, busy_pct_max, vol_s, invol_s, migr_s, runq_avg_us;
	uint64_t hist[SCHED_HIST], runq_count, runq_sum_ns;
	unsigned int nr_cpus;
	double busy_pct[64];
};

static int load_sum(const char *path, struct sched_sum *m)
{
	json_error_t je;
	json_t *root = json_load_file(path, 0, &je), *cpus, *tasks, *v;
	double runq_sum = 0;
	size_t i;

	memset(m, 0, sizeof(*m));
	if (!root) {
		fprintf(stderr, "iotrail: --compare %s: line %d: %s\n", path, je.line,
			je.text);
		return 2;
	}
	m->secs = json_number_value(json_object_get(root, "elapsed_ns")) / 1e9;
	cpus = json_object_get(root, "cpus");
	tasks = json_object_get(root, "tasks");
	if (m->secs <= 0 || !json_is_array(cpus) || !json_is_array(tasks)) {
		fprintf(stderr, "iotrail: --compare %s: not an iotrail sched -o file\n",
			path);
		json_decref(root);
		return 2;
	}
	m->busy_pct_min = 100;
	json_array_foreach(cpus, i, v)
	{
		double b = 100 * json_number_value(json_object_get(v, "busy_ns")) / 1e9 /
			   m->secs;

		if (i < 64)
			m->busy_pct[m->nr_cpus++] = b;
		if (b < m->busy_pct_min)
			m->busy_pct_min = b;
		if (b > m->busy_pct_max)
			m->busy_pct_max = b;
	}
	json_array_foreach(tasks, i, v)
	{
		json_t *h = json_object_get(v, "runq_hist_us_log2"), *x;
		size_t k;

		m->vol_s += json_number_value(json_object_get(v, "voluntary"));
		m->invol_s += json_number_value(json_object_get(v, "involuntary"));
		m->migr_s += json_number_value(json_object_get(v, "migrations"));
		m->runq_count +=
		    (uint64_t)json_number_value(json_object_get(v, "runq_count"));
		runq_sum += json_number_value(json_object_get(v, "runq_sum_ns"));
		json_array_foreach(h, k, x) if (k < SCHED_HIST) m->hist[k] +=
		    (uint64_t)json_number_value(x);
	}
	m->vol_s /= m->secs;
	m->invol_s /= m->secs;
	m->migr_s /= m->secs;
	m->runq_avg_us = m->runq_count ? runq_sum / (double)m->runq_count / 1e3 : 0;
	m->runq_sum_ns = (uint64_t)runq_sum;
	json_decref(root);
	return 0;
}

static int compare(const char *before, const char *after)
{
	struct sched_sum a, b;
	struct metric ma, mb;
	int ret = load_sum(before, &a);

	if (!ret)
		ret = load_sum(after, &b);
	if (ret)
		return ret;
	printf("%-26s %12s %12s\n", "", "BEFORE", "AFTER");
	for (unsigned int i = 0; i < a.nr_cpus && i < b.nr_cpus; i++) {
		char name[32];

		snprintf(name, sizeof(name), "cpu %u busy %%", i);
		printf("%-26s %12.1f %12.1f\n", name, a.busy_pct[i], b.busy_pct[i]);
	}
	printf("%-26s %12.1f %12.1f\n", "imbalance (points)",
	       a.busy_pct_max - a.busy_pct_min, b.busy_pct_max - b.busy_pct_min);
	printf("%-26s %12.1f %12.1f\n", "voluntary switches/s", a.vol_s, b.vol_s);
	printf("%-26s %12.1f %12.1f\n", "involuntary switches/s", a.invol_s, b.invol_s);
	printf("%-26s %12.1f %12.1f\n", "migrations/s", a.migr_s, b.migr_s);
	printf("%-26s %12.1f %12.1f\n", "run-queue latency avg us", a.runq_avg_us,
	       b.runq_avg_us);
	runq_metric(&ma, a.hist, a.runq_sum_ns);
	runq_metric(&mb, b.hist, b.runq_sum_ns);
	printf("%-26s %12llu %12llu\n", "run-queue latency p99 us",
	       (unsigned long long)ma.st.p99, (unsigned long long)mb.st.p99);
	metric_release(&ma);
	metric_release(&mb);
	return 0;
}

int cmd_sched(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"pid", required_argument, NULL, 'p'},
	    {"comm", required_argument, NULL, 'c'},
	    {"duration", required_argument, NULL, 'D'},
	    {"output", required_argument, NULL, 'o'},
	    {"compare", no_argument, NULL, 'C'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct sched_opts o = {0};
	struct sched_result r;
	pid_t pids[MAX_PIDS];
	uint64_t all[SCHED_HIST] = {0}, all_sum = 0, busy_min = UINT64_MAX, busy_max = 0;
	const char *output = NULL;
	bool cmp = false;
	char err[256];
	double secs;
	int c, ret;

	while ((c = getopt_long(argc, argv, "+p:D:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'p': {
			uint64_t v;

			if (parse_count(optarg, &v) || !v || v > INT32_MAX)
				return usage_error("-p %s: not a process id", optarg);
			if (o.nr_pids == MAX_PIDS)
				return usage_error("-p %s: at most %d processes", optarg,
						   MAX_PIDS);
			pids[o.nr_pids++] = (pid_t)v;
			break;
		}
		case 'c':
			if (!*optarg || strlen(optarg) > 15)
				return usage_error(
				    "--comm '%s': a task name has 1 to 15 bytes", optarg);
			o.comm = optarg;
			break;
		case 'D':
			if (parse_time(optarg, &o.duration_ns) || !o.duration_ns)
				return usage_error(
				    "--duration %s: not a time (10s, 500ms)", optarg);
			break;
		case 'o':
			output = optarg;
			break;
		case 'C':
			cmp = true;
			break;
		case 'h':
			sched_usage(stdout);
			return 0;
		default:
			sched_usage(stderr);
			return 2;
		}
	}
	if (cmp) {
		if (argc - optind != 2)
			return usage_error("--compare BEFORE AFTER: two sched -o files");
		return compare(argv[optind], argv[optind + 1]);
	}
	o.pids = pids;
	if (optind < argc)
		o.argv = argv + optind;
	ret = sched_run(&o, &r, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "iotrail: %s\n", err);
		return ret;
	}
	secs = (double)r.elapsed_ns / 1e9;
	printf("# sched: %u CPUs, %.3f s, %zu tasks seen\n", r.nr_cpus, secs, r.nr_tasks);
	printf("\n%-5s %7s %11s\n", "CPU", "BUSY%", "SWITCHES/s");
	for (unsigned int i = 0; i < r.nr_cpus; i++) {
		uint64_t b = r.cpus[i].busy_ns;

		printf("%-5u %7.1f %11.0f\n", i,
		       r.elapsed_ns ? 100.0 * (double)b / (double)r.elapsed_ns : 0,
		       secs > 0 ? (double)r.cpus[i].switches / secs : 0);
		if (b < busy_min)
			busy_min = b;
		if (b > busy_max)
			busy_max = b;
	}
	if (r.nr_cpus > 1 && r.elapsed_ns)
		printf("# imbalance: the busiest CPU ran %.1f points more than the least "
		       "busy\n",
		       100.0 * (double)(busy_max - busy_min) / (double)r.elapsed_ns);
	qsort(r.tasks, r.nr_tasks, sizeof(*r.tasks), cmp_task);
	printf("\n%7s %7s %-16s %9s %11s %7s %9s %9s %9s %9s\n", "PID", "TID", "COMM",
	       "VOLUNTARY", "INVOLUNTARY", "MIGR/s", "RUN_MS", "RUNQ_AVG", "RUNQ_P99",
	       "RUNQ_MAX");
	for (size_t i = 0; i < r.nr_tasks; i++) {
		const struct sched_task *t = &r.tasks[i].t;
		char comm[17];

		memcpy(comm, t->comm, 16);
		comm[16] = 0;
		struct metric m;
		uint64_t p99;

		for (int k = 0; k < SCHED_HIST; k++)
			all[k] += t->runq_hist[k];
		all_sum += t->runq_sum_ns;
		runq_metric(&m, (const uint64_t *)t->runq_hist, t->runq_sum_ns);
		p99 = m.st.p99;
		metric_release(&m);
		printf(
		    "%7u %7u %-16s %9llu %11llu %7.1f %9.1f %9.1f %9llu %9.1f\n", t->tgid,
		    r.tasks[i].tid, comm, (unsigned long long)t->voluntary,
		    (unsigned long long)t->involuntary,
		    secs > 0 ? (double)t->migrations / secs : 0, (double)t->run_ns / 1e6,
		    t->runq_count ? (double)t->runq_sum_ns / (double)t->runq_count / 1e3
				  : 0,
		    (unsigned long long)p99, (double)t->runq_max_ns / 1e3);
	}
	printf("# RUNQ_*: run-queue latency in us (P99: the upper bound of its log2 "
	       "bucket)\n");
	{
		struct metric m;

		runq_metric(&m, all, all_sum);
		render_hist(stdout, &m);
		metric_release(&m);
	}
	tunables();
	ret = r.command_status > 0 && r.command_status < 128 ? r.command_status : 0;
	if (output && write_json(output, &r))
		ret = 1;
	sched_result_release(&r);
	return ret;
}
