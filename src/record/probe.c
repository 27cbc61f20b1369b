// SPDX-License-Identifier: GPL-2.0
/* Per-tracepoint program choice by BTF (see probe.h for the order). */
#include "probe.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "../bpf/events.h"
#include "iotrail_btf.skel.h"

/* Number of tracepoint arguments (without the ctx), -1 if absent. */
static int tp_nargs(const struct btf *btf, const char *tp)
{
	char name[128];
	const struct btf_type *t;
	int id;

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	id = btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF);
	if (id < 0)
		return -1;
	t = btf__type_by_id(btf, id);
	t = btf__type_by_id(btf, t->type); /* pointer */
	if (!t || !btf_is_ptr(t))
		return -1;
	t = btf__type_by_id(btf, t->type); /* func proto */
	if (!t || !btf_is_func_proto(t))
		return -1;
	return btf_vlen(t) - 1;
}

struct plan {
	const char *tp;
	struct bpf_program *cur; /* current layout */
	int cur_nargs;
	struct bpf_program *old; /* an older layout the same program reads, or NULL */
	int old_nargs;
	bool in_summary; /* needed by --summary */
	bool in_events;	 /* needed by per-event tracing */
};

static void append(char *buf, size_t len, const char *fmt, const char *a, const char *b)
{
	size_t n = strlen(buf);

	if (n < len)
		snprintf(buf + n, len - n, fmt, n ? "," : "", a, b);
}

int probe_plan(struct iotrail_bpf *skel, const struct probe_opts *po, char *variant,
	       size_t vlen, char *missing, size_t mlen)
{
	typeof(skel->progs) *p = &skel->progs;
	const bool ev = !po->summary && !po->aggregate, pf = po->pid_filter;
	/* name, current, nargs, old layout, nargs, in --summary, per event */
	const struct plan plans[] = {
	    {"block_bio_queue", p->block_bio_queue, 1, NULL, 0, true, true},
	    {"block_getrq", p->block_getrq, 1, NULL, 0, false, true},
	    {"block_rq_insert", p->block_rq_insert, 1, NULL, 0, true, true},
	    {"block_rq_issue", p->block_rq_issue, 1, NULL, 0, true, true},
	    {"block_rq_complete", p->block_rq_complete, 3, NULL, 0, true, true},
	    {"block_bio_complete", p->block_bio_complete, 2, NULL, 0, true, true},
	    {"block_bio_backmerge", p->block_bio_backmerge, 1, NULL, 0, true, true},
	    {"block_bio_frontmerge", p->block_bio_frontmerge, 1, NULL, 0, false, true},
	    {"block_rq_merge", p->block_rq_merge, 1, NULL, 0, false, true},
	    {"block_split", p->block_split, 2, NULL, 0, true, true},
	    {"block_bio_remap", p->block_bio_remap, 3, NULL, 0, false, true},
	    {"block_rq_remap", p->block_rq_remap, 3, NULL, 0, false, true},
	    {"block_rq_requeue", p->block_rq_requeue, 1, NULL, 0, false, true},
	    {"block_plug", p->block_plug, 1, NULL, 0, false, !po->dev_filter},
	    {"block_unplug", p->block_unplug, 3, NULL, 0, false, !po->dev_filter},
	    {"block_io_start", p->block_io_start, 1, NULL, 0, false, po->accounting},
	    {"block_io_done", p->block_io_done, 1, NULL, 0, false, po->accounting},
	    {"sys_enter", p->sys_enter, 2, NULL, 0, false, true},
	    {"sys_exit", p->sys_exit, 2, NULL, 0, false, true},
	    {"sched_process_fork", p->sched_process_fork, 2, NULL, 0, pf, pf},
	    {"sched_process_exit", p->sched_process_exit, 2, p->sched_process_exit, 1,
	     true, true},
	    /* who and why (src/bpf/cause.bpf.h) */
	    {"writeback_start", p->writeback_start, 2, NULL, 0, false, true},
	    {"writeback_written", p->writeback_written, 2, NULL, 0, false, true},
	    {"jbd2_start_commit", p->jbd2_start_commit, 2, NULL, 0, false, true},
	    {"jbd2_end_commit", p->jbd2_end_commit, 2, NULL, 0, false, true},
	    {"writeback_dirty_folio", p->writeback_dirty_folio, 2, NULL, 0, false, true},
	    {"sched_process_exec", p->sched_process_exec, 3, NULL, 0, false, true},
	    {"sched_waking", p->sched_waking, 1, NULL, 0, false, true},
	    {"mm_filemap_fault", p->mm_filemap_fault, 2, NULL, 0, false, true},
	    {"mm_filemap_map_pages", p->mm_filemap_map_pages, 3, NULL, 0, false, true},
	    {"io_uring_submit_req", p->io_uring_submit_req, 1, NULL, 0, false, po->uring},
	    {"io_uring_complete", p->io_uring_complete, 3, NULL, 0, false, po->uring},
	};
	struct btf *btf = btf__load_vmlinux_btf();
	int err;

	variant[0] = missing[0] = 0;
	if (!btf) {
		err = -errno;
		return err ? err : -ENOENT;
	}
	for (size_t i = 0; i < sizeof(plans) / sizeof(plans[0]); i++) {
		const struct plan *pl = &plans[i];
		bool want = ev ? pl->in_events : pl->in_summary;

		if (po->aggregate && po->agg_syscalls &&
		    (!strcmp(pl->tp, "sys_enter") || !strcmp(pl->tp, "sys_exit")))
			want = true;
		if (po->speculate &&
		    (!strcmp(pl->tp, "sys_enter") || !strcmp(pl->tp, "sys_exit") ||
		     !strcmp(pl->tp, "block_plug") || !strcmp(pl->tp, "block_unplug") ||
		     !strcmp(pl->tp, "sched_waking")))
			want = false;
		int n = tp_nargs(btf, pl->tp);

		bpf_program__set_autoload(pl->cur, false);
		if (pl->old)
			bpf_program__set_autoload(pl->old, false);
		if (!want)
			continue;
		if (n == pl->cur_nargs) {
			bpf_program__set_autoload(pl->cur, true);
			append(variant, vlen, "%s%s:%s", pl->tp, "cur");
		} else if (pl->old && n == pl->old_nargs) {
			bpf_program__set_autoload(pl->old, true);
			append(variant, vlen, "%s%s:%s", pl->tp, "old");
		} else {
			/* a layout these programs would read wrong (the
			 * pre-5.11 request_queue argument): not traced */
			append(missing, mlen, "%s%s%s", pl->tp,
			       n < 0 ? "(absent)" : "(unsupported layout)");
		}
	}
	btf__free(btf);
	return 0;
}

/* a tracepoint in tracefs, wherever tracefs is mounted */
static bool tracepoint_exists(const char *sys, const char *name)
{
	static const char *const roots[] = {"/sys/kernel/tracing",
					    "/sys/kernel/debug/tracing"};
	char path[256];

	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		snprintf(path, sizeof(path), "%s/events/%s/%s", roots[i], sys, name);
		if (!access(path, F_OK))
			return true;
	}
	return false;
}

/* whether the machine has an NVMe controller */
static bool nvme_controllers(void)
{
	DIR *d = opendir("/sys/class/nvme");
	struct dirent *e;
	bool any = false;

	if (!d)
		return false;
	while (!any && (e = readdir(d)))
		any = e->d_name[0] != '.';
	closedir(d);
	return any;
}

bool probe_drivers(struct iotrail_bpf *skel, const struct probe_opts *po, char *drivers,
		   size_t dlen)
{
	static const char *const tps[] = {"nvme_setup_cmd", "nvme_sq",
					  "nvme_complete_rq"};
	bool ev = !po->summary && !po->aggregate && !po->speculate, all = true;

	for (size_t i = 0; i < sizeof(tps) / sizeof(tps[0]); i++)
		all = all && tracepoint_exists("nvme", tps[i]);
	bpf_program__set_autoload(skel->progs.nvme_setup_cmd, ev && all);
	bpf_program__set_autoload(skel->progs.nvme_sq, ev && all);
	bpf_program__set_autoload(skel->progs.nvme_complete_rq, ev && all);
	if (ev && all) {
		snprintf(drivers, dlen, "nvme");
		return false;
	}
	if (!ev)
		snprintf(drivers, dlen, "none (per-event tracing only)");
	else
		snprintf(drivers, dlen,
			 "none (nvme: the tracepoints nvme_setup_cmd, nvme_sq, "
			 "nvme_complete_rq are absent%s)",
			 access("/sys/module/nvme_core", F_OK)
			     ? ": nvme_core is not loaded"
			     : "");
	return ev && nvme_controllers();
}
