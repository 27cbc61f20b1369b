/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `iotrail sched`'s kernel side (src/bpf/sched.bpf.c): what the scheduler
 * did to chosen tasks, counted in the kernel, for the life of a command,
 * a duration, or until Ctrl-C.
 */
#ifndef IOTRAIL_RECORD_SCHED_H
#define IOTRAIL_RECORD_SCHED_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../bpf/sched_abi.h"

struct sched_opts {
	const pid_t *pids; /* processes, and their children from now on */
	size_t nr_pids;
	const char *comm;  /* tasks of this name, or NULL */
	char *const *argv; /* the command (and its children), or NULL */
	uint64_t duration_ns;
};

struct sched_task_row {
	uint32_t tid;
	struct sched_task t;
};

struct sched_result {
	struct sched_task_row *tasks;
	size_t nr_tasks;
	struct sched_cpu *cpus; /* per CPU */
	unsigned int nr_cpus;
	uint64_t elapsed_ns;
	int command_status; /* -1 none */
};

/* 0, or non-zero with a message in err. */
int sched_run(const struct sched_opts *o, struct sched_result *r, char *err,
	      size_t errlen);
void sched_result_release(struct sched_result *r);

#endif
