// SPDX-License-Identifier: GPL-2.0
/* The trace file's tables: META at the start; devices, tasks, drops and
 * END at the stop (recorder.h). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "../util/grow.h"
#include "../util/most.h"
#include "recorder.h"
#include "spec.h"

/* ---- cgroups: id -> path, for IOT_EV_BIO_INFO -------------------------------- */

struct cgroups {
	struct iot_cgroup_entry *e;
	size_t n, cap;
};

#define CGROUPS_MAX 65536

static void cgroups_walk(struct cgroups *cg, const char *dir, const char *prefix,
			 const char *rel, int depth)
{
	struct stat st;
	struct dirent *de;
	DIR *d;

	if (cg->n >= CGROUPS_MAX || depth > 32 || stat(dir, &st) || !S_ISDIR(st.st_mode))
		return;
	if (!GROW(cg->e, cg->n + 1, cg->cap)) {
		struct iot_cgroup_entry *e = &cg->e[cg->n++];

		memset(e, 0, sizeof(*e));
		e->id = st.st_ino;
		snprintf(e->path, sizeof(e->path), "%s%s", prefix, rel[0] ? rel : "/");
	}
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		char sub[4096], subrel[4096];

		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name);
		snprintf(subrel, sizeof(subrel), "%s/%s", rel, de->d_name);
		cgroups_walk(cg, sub, prefix, subrel, depth + 1);
	}
	closedir(d);
}

/* Every cgroup under /sys/fs/cgroup: the v2 hierarchy (there, or at
 * unified/ beside v1 ones) as "/path", each v1 one as "controller:/path". */
static int write_cgroups(struct recorder *rc)
{
	static const char root[] = "/sys/fs/cgroup";
	struct cgroups cg = {0};
	struct dirent *de;
	struct stat st;
	char path[4096];
	int err = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/cgroup.controllers", root);
	if (!stat(path, &st)) { /* v2 mounted at the root */
		cgroups_walk(&cg, root, "", "", 0);
	} else if ((d = opendir(root))) {
		while ((de = readdir(d))) {
			char prefix[300];

			if (de->d_name[0] == '.' ||
			    (de->d_type != DT_DIR && de->d_type != DT_LNK))
				continue;
			snprintf(path, sizeof(path), "%s/%s", root, de->d_name);
			/* v1 links (cpu -> cpu,cpuacct) name a hierarchy twice */
			if (lstat(path, &st) || !S_ISDIR(st.st_mode))
				continue;
			if (!strcmp(de->d_name, "unified"))
				prefix[0] = 0;
			else
				snprintf(prefix, sizeof(prefix), "%s:", de->d_name);
			cgroups_walk(&cg, path, prefix, "", 0);
		}
		closedir(d);
	}
	if (cg.n)
		err = trace_writer_chunk(&rc->w, IOT_CHUNK_CGROUPS, 0, cg.e,
					 cg.n * sizeof(*cg.e), NULL, 0);
	free(cg.e);
	return err;
}

int write_meta(struct recorder *rc)
{
	const struct record_opts *o = rc->o;
	char host[256] = "", kernel[256], models[512], stack[1536], flows[2048] = "";
	struct utsname u;
	int err;
	struct trace_meta m = {
	    .host = host,
	    .kernel = kernel,
	    .cmdline = o->cmdline,
	    .mode = o->aggregate ? "aggregate"
		    : o->summary ? "summary"
				 : "events",
	    .speculate_ns = o->speculate_ns,
	    .bufpolicy = o->policy == IOT_POLICY_FILL	? "fill"
			 : o->policy == IOT_POLICY_RING ? "ring"
							: "switch",
	    .bufresize = o->bufresize_manual ? "manual" : "auto",
	    .backpressure = record_degrades(o) ? "summary" : "drop",
	    .aggregate = !o->aggregate	   ? ""
			 : o->agg_syscalls ? "block,syscall"
					   : "block",
	    .bufsize = (uint64_t)rc->nr_slots * IOT_REC_SIZE,
	    .switch_ns = o->switch_ns,
	    .attach = rc->attach_kind,
	    .variant = rc->variant,
	    .missing = rc->missing,
	    .drivers = rc->drivers,
	    .models = models,
	    .stack = stack,
	    .flows = flows,
	};

	uname(&u);
	gethostname(host, sizeof(host) - 1);
	snprintf(kernel, sizeof(kernel), "%s %s", u.sysname, u.release);
	m.arch = u.machine;
	devtab_models(&rc->devs, models, sizeof(models));
	devtab_stack(&rc->devs, stack, sizeof(stack));
	for (int i = 0; i < o->nr_flows; i++) {
		size_t used = strlen(flows);

		if (used + 4 >= sizeof(flows))
			break;
		if (i)
			strcat(flows, "; ");
		flowdef_describe(&o->flows[i], flows + strlen(flows),
				 sizeof(flows) - strlen(flows));
	}
	err = trace_writer_meta(&rc->w, &m);
	if (!err)
		err = trace_writer_chunk(&rc->w, IOT_CHUNK_DEVICES, 0, rc->devs.e,
					 rc->devs.n * sizeof(*rc->devs.e), NULL, 0);
	return err;
}

int write_new_tasks(struct recorder *rc)
{
	size_t n = rc->tasks.n - rc->tasks_written;
	int err;

	if (!n)
		return 0;
	err = trace_writer_chunk(&rc->w, IOT_CHUNK_TASKS, 0,
				 rc->tasks.e + rc->tasks_written,
				 n * sizeof(*rc->tasks.e), NULL, 0);
	if (!err)
		rc->tasks_written = rc->tasks.n;
	return err;
}

static int exited_lookup(void *ctx, uint32_t tid, uint32_t *pid, uint64_t *cgroup_id,
			 char comm[16])
{
	struct recorder *rc = ctx;
	struct {
		uint32_t tgid, pad;
		uint64_t cgroup_id;
		char comm[16];
	} ti;

	if (bpf_map__lookup_elem(rc->skel->maps.exited, &tid, sizeof(tid), &ti,
				 sizeof(ti), 0))
		return -ENOENT;
	*pid = ti.tgid;
	*cgroup_id = ti.cgroup_id;
	memcpy(comm, ti.comm, 16);
	return 0;
}

/*
 * Events the kernel did not let a program see: a program already running on
 * a CPU is not entered again from a nested context (an interrupt completing
 * another request inside a completion), and the kernel only counts it, per
 * program (bpf_prog_info.recursion_misses). Summed here, named per program
 * in `names`, so such losses are never silent.
 */
static uint64_t kernel_misses(const struct recorder *rc, char *names, size_t len)
{
	struct bpf_program *prog;
	uint64_t total = 0;
	size_t n = 0;

	names[0] = 0;
	bpf_object__for_each_program(prog, rc->skel->obj)
	{
		struct bpf_prog_info info = {};
		__u32 ilen = sizeof(info);
		int fd = bpf_program__fd(prog);

		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &ilen) ||
		    !info.recursion_misses)
			continue;
		total += info.recursion_misses;
		if (n < len)
			n += snprintf(names + n, len - n, "%s%s %llu", n ? ", " : "",
				      bpf_program__name(prog),
				      (unsigned long long)info.recursion_misses);
	}
	return total;
}

int write_tables(struct recorder *rc, uint32_t reason, bool last)
{
	char missed[256];
	struct iot_drop_entry *d;
	struct iot_end end = {
	    .end_mono_ns = now_ns(CLOCK_MONOTONIC),
	    .reason = reason,
	    .command_status = rc->child > 0 && rc->child_done ? rc->child_status : -1,
	    .unfinished = rc->agg_unfinished,
	};

	uint64_t misses = kernel_misses(rc, missed, sizeof(missed));
	int err;

	/* the file's own (--max-files); said once, in all, at the last */
	end.kernel_misses = misses - rc->misses_base;
	rc->misses_base = misses;
	if (last && misses)
		fprintf(stderr,
			"iotrail: %llu events missed by the kernel (a program is not "
			"entered again from a nested interrupt): %s\n",
			(unsigned long long)misses, missed);
	marks_end(&rc->marks, &end);
	if (last)
		marks_say(&rc->marks);

	devtab_scan(&rc->devs); /* devices the command created */
	task_table_finish(&rc->tasks, exited_lookup, rc);
	err = trace_writer_chunk(&rc->w, IOT_CHUNK_DEVICES, 0, rc->devs.e,
				 rc->devs.n * sizeof(*rc->devs.e), NULL, 0);
	if (!err)
		err = trace_writer_chunk(&rc->w, IOT_CHUNK_TASKS, 0, rc->tasks.e,
					 rc->tasks.n * sizeof(*rc->tasks.e), NULL, 0);
	if (!err)
		err = write_cgroups(rc);
	file_table_finish(&rc->files);
	if (!err && rc->files.n)
		err = trace_writer_chunk(&rc->w, IOT_CHUNK_FILES, 0, rc->files.e,
					 rc->files.n * sizeof(*rc->files.e), NULL, 0);
	d = calloc(rc->nr_cpus, sizeof(*d));
	if (!d)
		return -ENOMEM;
	for (uint32_t cpu = 0; cpu < rc->nr_cpus; cpu++)
		d[cpu] = cpu_drop_entry(rc, cpu);
	if (!err)
		err = trace_writer_chunk(&rc->w, IOT_CHUNK_DROPS, 0, d,
					 rc->nr_cpus * sizeof(*d), NULL, 0);
	free(d);
	if (!err && rc->o->speculate_ns) {
		struct iot_spec_info si = {
		    .threshold_ns = rc->o->speculate_ns,
		    .nspec = rc->o->nspec,
		    .specsize = rc->spec_nrec * IOT_REC_SIZE,
		};

		spec_summarize(rc->ctl, rc->nr_cpus, &si);
		err = trace_writer_chunk(&rc->w, IOT_CHUNK_SPEC, 0, &si, sizeof(si), NULL,
					 0);
	}
	if (!err && kernel_stop(rc))
		err = trace_writer_chunk(&rc->w, IOT_CHUNK_STOP, 0, &rc->skel->bss->stop,
					 sizeof(rc->skel->bss->stop), NULL, 0);
	if (!err)
		err = trace_writer_chunk(&rc->w, IOT_CHUNK_END, 0, &end, sizeof(end),
					 NULL, 0);
	return err;
}

void say_stop(const struct recorder *rc, uint32_t reason)
{
	if (reason == IOT_STOP_FILL)
		fprintf(
		    stderr,
		    "iotrail: buffer of CPU %u full: tracing stopped (bufpolicy=fill)\n",
		    rc->skel->bss->stop.cpu);
	if (reason == IOT_STOP_TRIGGER) {
		const struct iot_stop *st = &rc->skel->bss->stop;
		const struct iot_dev_entry *d = NULL;

		for (size_t i = 0; i < rc->devs.n; i++)
			if (rc->devs.e[i].dev == st->trig_dev)
				d = &rc->devs.e[i];
		fprintf(stderr,
			"iotrail: trigger: request at sector %llu of %s took %.3f ms "
			"(Q2C)%s; the ring holds what led up to it\n",
			(unsigned long long)st->trig_sector, d ? d->name : "?",
			st->trig_q2c_ns / 1e6, st->trig_error ? ", failed" : "");
	}
}

/* "iotrail: back-pressure on CPU k: ..." for the CPUs under it longest,
 * the others in one line (util/most.h) */
static void say_backpressure(const struct recorder *rc)
{
	uint64_t now = now_ns(CLOCK_MONOTONIC), *key = calloc(rc->nr_cpus, sizeof(*key));
	bool *show = calloc(rc->nr_cpus, sizeof(*show));
	uint32_t *cpus = calloc(rc->nr_cpus, sizeof(*cpus)), n = 0, rest = 0;
	uint64_t r_deg = 0, r_ns = 0, r_sum = 0, r_skip = 0;

	if (!key || !show || !cpus)
		goto out;
	for (uint32_t cpu = 0; cpu < rc->nr_cpus; cpu++) {
		const struct iot_ctl *c = &rc->ctl[cpu];
		uint64_t ns = c->degrade_ns;

		if (!c->degrades)
			continue;
		if (c->degraded) /* still in one at the stop */
			ns += now > c->degrade_since_ns ? now - c->degrade_since_ns : 0;
		key[n] = ns;
		cpus[n++] = cpu;
	}
	pick_most(key, show, n, MOST_CPU_LINES);
	for (uint32_t i = 0; i < n; i++) {
		const struct iot_ctl *c = &rc->ctl[cpus[i]];

		if (!show[i]) {
			rest++;
			r_deg += c->degrades;
			r_ns += key[i];
			r_sum += c->degrade_summaries;
			r_skip += c->degrade_skipped;
			continue;
		}
		fprintf(
		    stderr,
		    "iotrail: back-pressure on CPU %u: %llu stretch%s, %.3f s in all: "
		    "%llu requests queued there written as summaries, %llu other "
		    "records not written\n",
		    cpus[i], (unsigned long long)c->degrades,
		    c->degrades == 1 ? "" : "es", key[i] / 1e9,
		    (unsigned long long)c->degrade_summaries,
		    (unsigned long long)c->degrade_skipped);
	}
	if (rest)
		fprintf(
		    stderr,
		    "iotrail: back-pressure on %u more CPUs: %llu stretches, %.3f s in "
		    "all: %llu requests queued there written as summaries, %llu other "
		    "records not written\n",
		    rest, (unsigned long long)r_deg, r_ns / 1e9,
		    (unsigned long long)r_sum, (unsigned long long)r_skip);
out:
	free(key);
	free(show);
	free(cpus);
}

/* "iotrail: N drops on CPU k" for the CPUs that dropped most, the others
 * in one line (util/most.h) */
static void say_cpu_drops(const struct recorder *rc)
{
	uint64_t *key = calloc(rc->nr_cpus, sizeof(*key)), r_d = 0;
	bool *show = calloc(rc->nr_cpus, sizeof(*show));
	uint32_t *cpus = calloc(rc->nr_cpus, sizeof(*cpus)), n = 0, rest = 0, r_off = 0;

	if (!key || !show || !cpus)
		goto out;
	for (uint32_t cpu = 0; cpu < rc->nr_cpus; cpu++) {
		struct iot_drop_entry e = cpu_drop_total(rc, cpu);
		uint64_t d = iot_drop_total(&e);

		if (d) {
			key[n] = d;
			cpus[n++] = cpu;
		}
	}
	pick_most(key, show, n, MOST_CPU_LINES);
	for (uint32_t i = 0; i < n; i++) {
		bool off = rc->cpu_buf[cpus[i]] == IOT_NO_BUF;

		if (!show[i]) {
			rest++;
			r_d += key[i];
			r_off += off;
		} else if (off) {
			fprintf(stderr,
				"iotrail: %llu drops on CPU %u: it was offline when the "
				"recording began, and has no buffer\n",
				(unsigned long long)key[i], cpus[i]);
		} else {
			fprintf(stderr, "iotrail: %llu drops on CPU %u\n",
				(unsigned long long)key[i], cpus[i]);
		}
	}
	if (rest && r_off)
		fprintf(
		    stderr,
		    "iotrail: %llu drops on %u more CPUs, %u of them offline when the "
		    "recording began, with no buffer (iotrail report -f json: each "
		    "CPU's)\n",
		    (unsigned long long)r_d, rest, r_off);
	else if (rest)
		fprintf(
		    stderr,
		    "iotrail: %llu drops on %u more CPUs (iotrail report -f json: each "
		    "CPU's)\n",
		    (unsigned long long)r_d, rest);
out:
	free(key);
	free(show);
	free(cpus);
}

void say_drops(const struct recorder *rc)
{
	uint64_t no_slot = 0;
	char most[32], more[80];

	for (uint32_t cpu = 0; cpu < rc->nr_cpus; cpu++)
		no_slot += rc->ctl[cpu].agg_no_slot;
	if (no_slot) {
		/* what was full, and how to get more: serve --slots, record
		 * -x aggsize */
		if (rc->agg_devs == IOT_AGG_DEVS)
			snprintf(more, sizeof(more), ", the most");
		else if (rc->o->live_start) /* serve */
			snprintf(more, sizeof(more), " (--slots gives up to %u)",
				 IOT_AGG_DEVS - 1);
		else
			snprintf(
			    more, sizeof(more), " (-x aggsize=%s gives %u, the most)",
			    fmt_size(RECORD_AGG_BYTES(IOT_AGG_DEVS), most, sizeof(most)),
			    IOT_AGG_DEVS - 1);
		fprintf(
		    stderr,
		    "iotrail: %llu requests left out of the histograms: their %s found "
		    "all %u %s taken%s\n",
		    (unsigned long long)no_slot,
		    rc->o->agg_by_cgroup ? "(disk, cgroup) pairs" : "disks",
		    rc->agg_devs - 1, rc->o->agg_by_cgroup ? "slots" : "device slots",
		    more);
	}
	say_backpressure(rc);
	say_cpu_drops(rc);
}
