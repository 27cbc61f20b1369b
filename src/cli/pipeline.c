// SPDX-License-Identifier: GPL-2.0
/* The analysis pipeline of report and overlay (pipeline.h). */
#include "pipeline.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../trace/syscalls.h"

/* a trace from an architecture iotrail does not know: no number matches */
static const uint32_t unknown_arch_nr[NR_SYSCALL_KINDS] = {
    UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX,
    UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX};

static const struct iot_dev_entry *dev_entry(void *ctx, uint32_t dev)
{
	return trace_reader_dev(&((struct pipeline *)ctx)->rd, dev);
}

static const char *dev_name(void *ctx, uint32_t dev)
{
	struct pipeline *p = ctx;
	const struct iot_dev_entry *e = dev_entry(ctx, dev);

	if (e)
		return e->name;
	snprintf(p->buf, sizeof(p->buf), "%u:%u", dev >> 20, dev & 0xfffff);
	return p->buf;
}

static bool is_bio_based(void *ctx, uint32_t dev)
{
	const struct iot_dev_entry *e = dev_entry(ctx, dev);

	return e ? (e->flags & IOT_DEV_BIO_BASED) != 0 : true;
}

/* A filesystem's st_dev: traced (in the device table), and where its
 * partition starts. */
static bool fs_dev(void *ctx, uint32_t st_dev, uint64_t *part_start)
{
	const struct iot_dev_entry *e = dev_entry(ctx, st_dev);

	if (!e)
		return false;
	*part_start = e->start_sector;
	return true;
}

static const struct iot_task_entry *task_entry(void *ctx, uint32_t tid)
{
	return trace_reader_task(&((struct pipeline *)ctx)->rd, tid);
}

static const char *file_path(void *ctx, uint32_t dev, uint64_t ino)
{
	return trace_reader_file(&((struct pipeline *)ctx)->rd, dev, ino);
}

static const char *cgroup_path(void *ctx, uint32_t id)
{
	return trace_reader_cgroup(&((struct pipeline *)ctx)->rd, id);
}

const char *pipeline_comm(void *ctx, uint32_t tid)
{
	const struct iot_task_entry *t =
	    trace_reader_task(&((struct pipeline *)ctx)->rd, tid);

	return t && t->comm[0] ? t->comm : "?";
}

static void add_agg(void *ctx, const struct iot_agg_entry *e)
{
	analysis_add_agg(ctx, e);
}

int pipeline_open(struct pipeline *p, const char *input, struct analysis_env *env)
{
	char errbuf[512], arch[32];

	memset(p, 0, sizeof(*p));
	if (trace_reader_open(&p->rd, input, errbuf, sizeof(errbuf))) {
		fprintf(stderr, "iotrail: %s\n", errbuf);
		return 1;
	}
	p->opened = true;
	trace_reader_meta(&p->rd, "arch", arch, sizeof(arch));
	trace_reader_meta(&p->rd, "drivers", p->drivers, sizeof(p->drivers));
	env->drivers = p->drivers[0] ? p->drivers : "none (recorded before 1.7)";
	trace_reader_meta(&p->rd, "stack", p->stack, sizeof(p->stack));
	env->stack = p->stack;
	env->syscall_nr = syscall_numbers(arch[0] ? arch : "x86_64");
	if (!env->syscall_nr) {
		fprintf(stderr,
			"iotrail: %s: recorded on %s, whose system call numbers iotrail "
			"does not know; system calls are left out\n",
			input, arch);
		env->syscall_nr = unknown_arch_nr;
	}
	p->syscall_nr = env->syscall_nr;
	env->t0_ns = p->rd.hdr.start_mono_ns;
	/* a recording cut short ended within a switch period (5 s at most,
	 * as --switchrate allows) of its last drain */
	env->end_ns = p->rd.has_end	   ? p->rd.end.end_mono_ns
		      : p->rd.last_mark_ns ? p->rd.last_mark_ns + 5000000000ull
					   : 0;
	env->ctx = p;
	env->dev_name = dev_name;
	env->is_bio_based = is_bio_based;
	env->fs_dev = fs_dev;
	env->dev_entry = dev_entry;
	env->task_entry = task_entry;
	env->cgroup_path = cgroup_path;
	env->file_path = file_path;
	return 0;
}

int pipeline_join(struct pipeline *p, const char *input, const struct join_sink *sink,
		  int (*record)(void *ctx, const struct iot_rec *r), void *ctx)
{
	const struct iot_rec *rec;
	int err;

	if (join_init(&p->jn, sink, is_bio_based, p)) {
		fprintf(stderr, "iotrail: out of memory\n");
		return 1;
	}
	p->jn.syscall_nr = p->syscall_nr;
	p->jn.bi_elided = p->rd.hdr.version_major == 1 && p->rd.hdr.version_minor >= 4;
	p->joining = true;
	while ((err = trace_reader_next(&p->rd, &rec)) == 1) {
		if (rec->type == IOT_EV_EXEC)
			trace_reader_exec(&p->rd, rec);
		if (record && record(ctx, rec))
			return 1;
		if (join_feed(&p->jn, rec)) {
			err = -1;
			break;
		}
	}
	if (err < 0) {
		fprintf(stderr, "iotrail: %s: out of memory\n", input);
		return 1;
	}
	join_end(&p->jn);
	return 0;
}

int pipeline_run(struct pipeline *p, const char *input, uint64_t set,
		 struct analysis_env *env)
{
	struct join_sink sink;
	int err;

	err = pipeline_open(p, input, env);
	if (err)
		return err;
	p->analyzing = true;
	err = analysis_init(&p->an, set, env);
	if (err) {
		fprintf(stderr, "iotrail: %s\n",
			p->an.errmsg[0] ? p->an.errmsg : "out of memory");
		return err == -ENOMEM ? 1 : 2; /* else an option that does not fit */
	}
	sink = analysis_sink(&p->an);
	err = pipeline_join(p, input, &sink, NULL, NULL);
	if (err)
		return err;
	/* --aggregate recordings: the kernel's histograms */
	trace_reader_aggs(&p->rd, add_agg, &p->an);
	if (analysis_finish(&p->an)) {
		fprintf(stderr, "iotrail: %s: %s\n", input,
			p->an.errmsg[0] ? p->an.errmsg : "out of memory");
		return 1;
	}
	if (p->rd.warning[0])
		fprintf(stderr, "iotrail: warning: %s\n", p->rd.warning);
	return 0;
}

void pipeline_release(struct pipeline *p)
{
	if (p->joining)
		join_release(&p->jn);
	if (p->analyzing)
		analysis_release(&p->an);
	if (p->opened)
		trace_reader_release(&p->rd);
	memset(p, 0, sizeof(*p));
}
