// SPDX-License-Identifier: GPL-2.0
/*
 * iotrail sched: per CPU the busy share and context switches, per task the
 * voluntary and involuntary switches, migrations and run-queue latency,
 * and the imbalance between CPUs (seed 001's CPU pinning post), counted in
 * the kernel (src/record/sched.c); and the scheduler's tunables as this
 * kernel has them, read only.
 */
#include <dirent.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../record/sched.h"
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

/* the upper bound (us) of the bucket holding the q-th share of the values */
static uint64_t hist_quantile(const __u64 *h, uint64_t n, double q)
{
	uint64_t want = (uint64_t)(q * (double)n + 0.999999), seen = 0;

	for (int i = 0; i < SCHED_HIST; i++) {
		seen += h[i];
		if (n && seen >= want)
			return i ? (1ull << i) : 1; /* bucket i: [2^(i-1), 2^i) us */
	}
	return 0;
}

static void print_hist(const uint64_t *h)
{
	uint64_t max = 0;
	int last = -1;

	for (int i = 0; i < SCHED_HIST; i++) {
		if (h[i] > max)
			max = h[i];
		if (h[i])
			last = i;
	}
	printf("\n%10s%-14s : count    distribution\n", "", "usecs");
	for (int i = 0; i <= last; i++) {
		uint64_t lo = i ? 1ull << (i - 1) : 0, hi = i ? (1ull << i) - 1 : 1;
		int stars = max ? (int)(h[i] * 40 / max) : 0;

		printf("%10llu -> %-10llu : %-8llu |%-40.*s|\n", (unsigned long long)lo,
		       (unsigned long long)hi, (unsigned long long)h[i], stars,
		       "****************************************");
	}
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

int cmd_sched(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"pid", required_argument, NULL, 'p'},
	    {"comm", required_argument, NULL, 'c'},
	    {"duration", required_argument, NULL, 'D'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct sched_opts o = {0};
	struct sched_result r;
	pid_t pids[MAX_PIDS];
	uint64_t all[SCHED_HIST] = {0}, busy_min = UINT64_MAX, busy_max = 0;
	char err[256];
	double secs;
	int c, ret;

	while ((c = getopt_long(argc, argv, "+p:D:h", longopts, NULL)) != -1) {
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
		case 'h':
			sched_usage(stdout);
			return 0;
		default:
			sched_usage(stderr);
			return 2;
		}
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
		for (int k = 0; k < SCHED_HIST; k++)
			all[k] += t->runq_hist[k];
		printf(
		    "%7u %7u %-16s %9llu %11llu %7.1f %9.1f %9.1f %9llu %9.1f\n", t->tgid,
		    r.tasks[i].tid, comm, (unsigned long long)t->voluntary,
		    (unsigned long long)t->involuntary,
		    secs > 0 ? (double)t->migrations / secs : 0, (double)t->run_ns / 1e6,
		    t->runq_count ? (double)t->runq_sum_ns / (double)t->runq_count / 1e3
				  : 0,
		    (unsigned long long)hist_quantile(t->runq_hist, t->runq_count, 0.99),
		    (double)t->runq_max_ns / 1e3);
	}
	printf("# RUNQ_*: run-queue latency in us (P99: the upper bound of its log2 "
	       "bucket)\n");
	print_hist(all);
	tunables();
	ret = r.command_status > 0 && r.command_status < 128 ? r.command_status : 0;
	sched_result_release(&r);
	return ret;
}
