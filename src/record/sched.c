// SPDX-License-Identifier: GPL-2.0
/* `iotrail sched`: load, choose, wait, read (sched.h). */
#include "sched.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpflog.h"
#include "live.h"
#include "sched.skel.h"

static int read_maps(struct sched_bpf *skel, struct sched_result *r)
{
	int tfd = bpf_map__fd(skel->maps.tasks), cfd = bpf_map__fd(skel->maps.cpus);
	__u32 key, next, *prev = NULL, zero = 0;
	size_t cap = 0;
	int ncpu;

	while (!bpf_map_get_next_key(tfd, prev, &next)) {
		struct sched_task t;

		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(tfd, &key, &t) || t.tgid == (__u32)getpid())
			continue; /* ours: chosen only to choose the command */
		if (r->nr_tasks == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			struct sched_task_row *n = realloc(r->tasks, ncap * sizeof(*n));

			if (!n)
				return -ENOMEM;
			r->tasks = n;
			cap = ncap;
		}
		r->tasks[r->nr_tasks++] = (struct sched_task_row){key, t};
	}
	ncpu = libbpf_num_possible_cpus();
	if (ncpu <= 0)
		return ncpu ? ncpu : -EINVAL;
	r->nr_cpus = (unsigned int)ncpu;
	r->cpus = calloc(r->nr_cpus, sizeof(*r->cpus));
	if (!r->cpus)
		return -ENOMEM;
	return bpf_map_lookup_elem(cfd, &zero, r->cpus) ? -errno : 0;
}

int sched_run(const struct sched_opts *o, struct sched_result *r, char *err,
	      size_t errlen)
{
	struct live_child child = {-1, -1};
	struct sched_bpf *skel;
	__u8 one = 1;
	int ret;

	memset(r, 0, sizeof(*r));
	r->command_status = -1;
	for (size_t i = 0; i < o->nr_pids; i++)
		if (kill(o->pids[i], 0) && errno == ESRCH) {
			snprintf(err, errlen, "-p %d: no such process", (int)o->pids[i]);
			return 2;
		}
	bpflog_quiet();
	skel = sched_bpf__open();
	if (!skel) {
		snprintf(err, errlen, "cannot open the BPF object: %s", strerror(errno));
		return 1;
	}
	skel->rodata->cfg_all = !o->nr_pids && !o->comm && !o->argv;
	if (o->comm)
		strncpy((char *)skel->rodata->cfg_comm, o->comm,
			sizeof(skel->rodata->cfg_comm) - 1);
	ret = sched_bpf__load(skel);
	if (ret) {
		char why[256];

		snprintf(err, errlen, "cannot load the BPF programs: %s",
			 bpflog_why(ret, why, sizeof(why)));
		sched_bpf__destroy(skel);
		return 1;
	}
	for (size_t i = 0; i < o->nr_pids; i++) {
		__u32 p = (__u32)o->pids[i];

		bpf_map_update_elem(bpf_map__fd(skel->maps.pids), &p, &one, BPF_ANY);
	}
	ret = sched_bpf__attach(skel);
	if (ret) {
		snprintf(err, errlen, "cannot attach: %s", strerror(-ret));
		sched_bpf__destroy(skel);
		return 1;
	}
	if (o->argv) {
		/* chosen from its fork on, as /proc counts its switches: we are
		 * chosen for the fork (the fork hook chooses the child before
		 * it runs), then no longer (our rows are left out below) */
		__u32 self = (__u32)getpid();

		bpf_map_update_elem(bpf_map__fd(skel->maps.pids), &self, &one, BPF_ANY);
		ret = live_spawn(&child, o->argv);
		bpf_map_delete_elem(bpf_map__fd(skel->maps.pids), &self);
		if (ret) {
			snprintf(err, errlen, "fork: %s", strerror(-ret));
			sched_bpf__destroy(skel);
			return 1;
		}
	}
	r->command_status =
	    live_wait(o->argv ? &child : NULL, o->duration_ns, &r->elapsed_ns);
	sched_bpf__detach(skel);
	ret = read_maps(skel, r);
	sched_bpf__destroy(skel);
	if (ret) {
		snprintf(err, errlen, "reading the counts: %s", strerror(-ret));
		return 1;
	}
	if (r->command_status == 127) {
		snprintf(err, errlen, "%s: the command could not run", o->argv[0]);
		return 1;
	}
	return 0;
}

void sched_result_release(struct sched_result *r)
{
	free(r->tasks);
	free(r->cpus);
	memset(r, 0, sizeof(*r));
}
