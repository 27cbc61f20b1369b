// SPDX-License-Identifier: GPL-2.0
/*
 * iotrail pin --spread: each task of the chosen processes pinned to one CPU,
 * round robin over the CPUs it may use (seed 001's tuning 1), with
 * sched_setaffinity; what it did is printed, task by task.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/parse.h"
#include "cli.h"

#define MAX_PIDS 64

static void pin_usage(FILE *f)
{
	fprintf(f,
		"usage: iotrail pin --spread (-p PID... | --comm NAME)\n"
		"\n"
		"  --spread              pin each task (thread) of the processes to one\n"
		"                        CPU, in turn over the CPUs iotrail may use\n"
		"  -p, --pid PID         a process (every thread of it)\n"
		"      --comm NAME       every process of this name\n");
}

static int comm_of(pid_t pid, char *out, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(out, (int)len, f))
		out[0] = 0;
	out[strcspn(out, "\n")] = 0;
	fclose(f);
	return 0;
}

/* Pins every thread of pid, the next CPU of cpus each; *k moves on. */
static int spread(pid_t pid, const int *cpus, int nr, int *k)
{
	char path[64];
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d) {
		fprintf(stderr, "iotrail: -p %d: no such process\n", (int)pid);
		return 2;
	}
	while ((e = readdir(d))) {
		pid_t tid = (pid_t)atoi(e->d_name);
		cpu_set_t set;
		char comm[32] = "?";

		if (tid <= 0)
			continue;
		CPU_ZERO(&set);
		CPU_SET(cpus[*k % nr], &set);
		snprintf(path, sizeof(path), "%d/task/%d", (int)pid, (int)tid);
		comm_of(tid, comm, sizeof(comm));
		if (sched_setaffinity(tid, sizeof(set), &set)) {
			if (errno == ESRCH)
				continue; /* the thread ended meanwhile */
			fprintf(stderr, "iotrail: task %d of %d: %s\n", (int)tid,
				(int)pid, strerror(errno));
			closedir(d);
			return 1;
		}
		printf("%7d %7d %-16s -> CPU %d\n", (int)pid, (int)tid, comm,
		       cpus[*k % nr]);
		(*k)++;
	}
	closedir(d);
	return 0;
}

int cmd_pin(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"spread", no_argument, NULL, 's'},
	    {"pid", required_argument, NULL, 'p'},
	    {"comm", required_argument, NULL, 'c'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	pid_t pids[MAX_PIDS];
	int nr_pids = 0, cpus[CPU_SETSIZE], nr = 0, k = 0, c, ret = 0;
	const char *comm = NULL;
	bool do_spread = false;
	cpu_set_t mine;

	while ((c = getopt_long(argc, argv, "p:h", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			do_spread = true;
			break;
		case 'p': {
			uint64_t v;

			if (parse_count(optarg, &v) || !v || v > INT32_MAX)
				return usage_error("-p %s: not a process id", optarg);
			if (nr_pids == MAX_PIDS)
				return usage_error("-p: at most %d processes", MAX_PIDS);
			pids[nr_pids++] = (pid_t)v;
			break;
		}
		case 'c':
			comm = optarg;
			break;
		case 'h':
			pin_usage(stdout);
			return 0;
		default:
			pin_usage(stderr);
			return 2;
		}
	}
	if (!do_spread)
		return usage_error(
		    "pin: --spread is the one policy (iotrail pin --help)");
	if (!nr_pids && !comm)
		return usage_error("pin --spread: -p PID or --comm NAME is needed");
	if (sched_getaffinity(0, sizeof(mine), &mine))
		return usage_error("sched_getaffinity: %s", strerror(errno));
	for (int i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &mine))
			cpus[nr++] = i;
	if (comm) {
		DIR *d = opendir("/proc");
		struct dirent *e;
		int found = 0;

		while (d && (e = readdir(d)) && nr_pids < MAX_PIDS) {
			pid_t p = (pid_t)atoi(e->d_name);
			char name[32];

			if (p > 0 && !comm_of(p, name, sizeof(name)) &&
			    !strcmp(name, comm))
				pids[nr_pids++] = p, found++;
		}
		if (d)
			closedir(d);
		if (!found) {
			fprintf(stderr, "iotrail: --comm %s: no such process\n", comm);
			return 2;
		}
	}
	for (int i = 0; i < nr_pids && !ret; i++)
		ret = spread(pids[i], cpus, nr, &k);
	return ret;
}
