// SPDX-License-Identifier: GPL-2.0
/*
 * Chrome's trace-event JSON (the "JSON Array/Object Format" that Perfetto
 * and chrome://tracing read), from joined requests, streamed.
 *
 * Each device is a process; its threads are lanes. A request is a complete
 * ("X") slice on a request lane, from its first seen stamp to C, with one
 * nested slice per stage between consecutive stamps seen (Q2G, G2I, I2D,
 * D2C; "G2D" where no I was seen). Its D2C is also a slice on a device
 * lane, so the device lanes in use at an instant are the requests at the
 * device. Slices on one lane never overlap: the join hands requests over in
 * completion order, so a lane whose last slice ended at or before a
 * request's start is free for it (greedy; lanes grow with the concurrency,
 * never with the trace). System calls are slices on their own thread, user
 * markers instants or async slices on theirs.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../util/grow.h"
#include "export.h"
#include "../analyze/flows.h"

/* device processes live above any pid the kernel hands out (4194304) */
#define DEV_PID0      0x40000000u
#define DEVICE_LANE0  100000u /* thread ids of the device lanes */
#define NAMED_PROCESS (1ull << 40)

struct chrome_dev {
	uint32_t dev, pid;
	uint64_t *req_end, *dev_end; /* per lane: its last slice's end */
	size_t nr_req, cap_req, nr_dev, cap_dev;
};

static void ts_field(struct json_writer *w, const char *name, uint64_t ns)
{
	/* microseconds, to the nanosecond */
	jw_name(w, name);
	jw_scaled(w, ns, 3);
}

/* a metadata event ("M") whose args hold one field: a name or a
 * sort_index */
static void meta(struct chrome *c, const char *what, uint32_t pid, uint32_t tid,
		 bool thread, const char *name, int64_t idx)
{
	jw_start_object(&c->w);
	jw_string_field(&c->w, "ph", "M");
	jw_string_field(&c->w, "name", what);
	jw_uint_field(&c->w, "pid", pid);
	if (thread)
		jw_uint_field(&c->w, "tid", tid);
	jw_name(&c->w, "args");
	jw_start_object(&c->w);
	if (name)
		jw_string_field(&c->w, "name", name);
	else
		jw_int_field(&c->w, "sort_index", idx);
	jw_end_object(&c->w);
	jw_end_object(&c->w);
}

int chrome_open(struct chrome *c, FILE *f, const struct row_names *nm,
		const uint32_t *syscall_nr)
{
	memset(c, 0, sizeof(*c));
	c->f = f;
	c->nm = *nm;
	c->syscall_nr = syscall_nr;
	if (u64map_init(&c->named, 256))
		return -ENOMEM;
	jw_init(&c->w, f, false);
	jw_start_object(&c->w);
	jw_string_field(&c->w, "displayTimeUnit", "ns");
	jw_name(&c->w, "traceEvents");
	jw_start_array(&c->w);
	return 0;
}

static struct chrome_dev *dev_of(struct chrome *c, uint32_t dev)
{
	struct chrome_dev *d;
	char name[80];

	for (size_t i = 0; i < c->nr_devs; i++)
		if (c->devs[i].dev == dev)
			return &c->devs[i];
	if (GROW(c->devs, c->nr_devs + 1, c->cap_devs))
		return NULL;
	d = &c->devs[c->nr_devs];
	memset(d, 0, sizeof(*d));
	d->dev = dev;
	d->pid = DEV_PID0 + (uint32_t)c->nr_devs++;
	snprintf(name, sizeof(name), "%s",
		 c->nm.dev ? c->nm.dev(c->nm.dev_ctx, dev) : "?");
	meta(c, "process_name", d->pid, 0, false, name, 0);
	meta(c, "process_sort_index", d->pid, 0, false, NULL, (int64_t)c->nr_devs - 1);
	return d;
}

/* the first lane free at start, or a new one (named); its thread id, or
 * 0 when out of memory */
static uint32_t lane(struct chrome *c, struct chrome_dev *d, bool device, uint64_t start,
		     uint64_t end)
{
	uint64_t **ends = device ? &d->dev_end : &d->req_end;
	size_t *nr = device ? &d->nr_dev : &d->nr_req;
	size_t *cap = device ? &d->cap_dev : &d->cap_req;
	uint32_t base = device ? DEVICE_LANE0 : 1;
	char name[48];
	size_t i;

	for (i = 0; i < *nr; i++)
		if ((*ends)[i] <= start)
			break;
	if (i == *nr) {
		if (grow_array(ends, sizeof(**ends), *nr + 1, cap))
			return 0;
		(*nr)++;
		snprintf(name, sizeof(name), "%s %zu", device ? "device" : "request",
			 i + 1);
		meta(c, "thread_name", d->pid, base + (uint32_t)i, true, name, 0);
		meta(c, "thread_sort_index", d->pid, base + (uint32_t)i, true, NULL,
		     (device ? 1000000 : 0) + (int64_t)i);
	}
	(*ends)[i] = end;
	return base + (uint32_t)i;
}

static void slice_start(struct chrome *c, const char *name, const char *cat, uint32_t pid,
			uint32_t tid, uint64_t start, uint64_t end)
{
	jw_start_object(&c->w);
	jw_string_field(&c->w, "ph", "X");
	jw_string_field(&c->w, "name", name);
	jw_string_field(&c->w, "cat", cat);
	jw_uint_field(&c->w, "pid", pid);
	jw_uint_field(&c->w, "tid", tid);
	ts_field(&c->w, "ts", start);
	ts_field(&c->w, "dur", end - start);
	c->slices++;
}

static void request_args(struct chrome *c, const struct join_request *r, const char *rwbs)
{
	char addr[24];

	jw_name(&c->w, "args");
	jw_start_object(&c->w);
	jw_string_field(&c->w, "rwbs", rwbs);
	jw_uint_field(&c->w, "sector", r->sector);
	jw_uint_field(&c->w, "nr_sectors", r->nr_sectors);
	jw_uint_field(&c->w, "pid", r->pid);
	jw_uint_field(&c->w, "tid", r->tid);
	jw_string_field(&c->w, "comm",
			c->nm.comm ? c->nm.comm(c->nm.comm_ctx, r->tid) : "");
	snprintf(addr, sizeof(addr), "%#" PRIx64, r->rq);
	jw_string_field(&c->w, "rq", addr);
	jw_uint_field(&c->w, "nr_bios", r->nr_bios);
	jw_int_field(&c->w, "error", r->error);
	if (r->estimated) {
		jw_name(&c->w, "c_estimated");
		jw_bool(&c->w, true);
	}
	jw_end_object(&c->w);
}

/* chrome_request's work; *at: where its request slice went (pid 0 when
 * none was drawn) */
static int draw_request(struct chrome *c, const struct join_request *r,
			struct chrome_slice *at)
{
	static const char letters[] = "QGIDC";
	uint64_t t[5] = {r->q_ns, r->g_ns, r->i_ns, r->d_ns, r->c_ns};
	struct chrome_dev *d;
	char rwbs[8], name[48];
	int first = -1, prev;
	uint32_t tid;

	at->pid = 0;
	if (!r->c_ns)
		return 0;
	/* the stamps seen, in order; one out of order (a damaged trace) ends
	 * the chain before it */
	for (int k = 0; k < 5; k++)
		if (t[k] && t[k] <= r->c_ns && first < 0)
			first = k;
	if (first < 0 || first == 4)
		return 0; /* a completion alone: no span to draw */
	d = dev_of(c, r->dev);
	if (!d)
		return -ENOMEM;
	render_rwbs(r->flags, rwbs);
	snprintf(name, sizeof(name), "%s %" PRIu64, rwbs, (uint64_t)r->nr_sectors * 512);
	tid = lane(c, d, false, t[first], r->c_ns);
	if (!tid)
		return -ENOMEM;
	*at = (struct chrome_slice){d->pid, tid, t[first], r->c_ns};
	slice_start(c, name, "request", d->pid, tid, t[first], r->c_ns);
	request_args(c, r, rwbs);
	jw_end_object(&c->w);
	prev = first;
	for (int k = first + 1; k < 5; k++) {
		char stage[4] = {letters[prev], '2', letters[k], 0};

		if (!t[k] || t[k] < t[prev] || t[k] > r->c_ns)
			continue;
		slice_start(c, stage, "stage", d->pid, tid, t[prev], t[k]);
		jw_end_object(&c->w);
		prev = k;
	}
	if (r->d_ns && r->d_ns <= r->c_ns) {
		tid = lane(c, d, true, r->d_ns, r->c_ns);
		if (!tid)
			return -ENOMEM;
		slice_start(c, name, "device", d->pid, tid, r->d_ns, r->c_ns);
		request_args(c, r, rwbs);
		jw_end_object(&c->w);
	}
	return ferror(c->f) ? -EIO : 0;
}

int chrome_request(struct chrome *c, const struct join_request *r)
{
	struct chrome_slice at;

	return draw_request(c, r, &at);
}

/* a task's process and thread names, once */
static void name_task(struct chrome *c, uint32_t pid, uint32_t tid)
{
	const char *comm = c->nm.comm ? c->nm.comm(c->nm.comm_ctx, tid) : "";

	if (!u64map_get(&c->named, NAMED_PROCESS | pid) &&
	    !u64map_put(&c->named, NAMED_PROCESS | pid, 1)) {
		const char *pcomm = c->nm.comm ? c->nm.comm(c->nm.comm_ctx, pid) : "";

		meta(c, "process_name", pid, 0, false, pcomm, 0);
	}
	if (!u64map_get(&c->named, tid) && !u64map_put(&c->named, tid, 1))
		meta(c, "thread_name", pid, tid, true, comm, 0);
}

int chrome_syscall(struct chrome *c, const struct join_syscall *s)
{
	int k = c->syscall_nr ? syscall_kind(c->syscall_nr, s->nr) : -1;
	char name[32];

	if (!s->enter_ns || s->exit_ns < s->enter_ns)
		return 0;
	name_task(c, s->pid, s->tid);
	if (k >= 0)
		snprintf(name, sizeof(name), "%s", syscall_kind_names[k]);
	else
		snprintf(name, sizeof(name), "syscall %u", s->nr);
	slice_start(c, name, "syscall", s->pid, s->tid, s->enter_ns, s->exit_ns);
	jw_name(&c->w, "args");
	jw_start_object(&c->w);
	jw_uint_field(&c->w, "fd", s->fd);
	jw_uint_field(&c->w, "ino", s->ino);
	if (s->pos != ~0ull)
		jw_uint_field(&c->w, "pos", s->pos);
	jw_uint_field(&c->w, "count", s->count);
	if (s->estimated) { /* `iotrail repair`'s exit: its value unknown */
		jw_name(&c->w, "ret");
		jw_null(&c->w);
		jw_name(&c->w, "estimated");
		jw_bool(&c->w, true);
	} else {
		jw_int_field(&c->w, "ret", s->ret);
	}
	jw_uint_field(&c->w, "bios", s->nr_bios);
	jw_end_object(&c->w);
	jw_end_object(&c->w);
	return ferror(c->f) ? -EIO : 0;
}

int chrome_mark(struct chrome *c, const struct join_mark *m)
{
	static const char *const ph[] = {"i", "b", "e"};
	char id[24];

	if (m->kind > 2)
		return 0;
	name_task(c, m->pid, m->tid);
	jw_start_object(&c->w);
	jw_string_field(&c->w, "ph", ph[m->kind]);
	jw_string_field(&c->w, "name", m->name);
	jw_string_field(&c->w, "cat", "mark");
	jw_uint_field(&c->w, "pid", m->pid);
	jw_uint_field(&c->w, "tid", m->tid);
	ts_field(&c->w, "ts", m->ts_ns);
	if (m->kind == 0) {
		jw_string_field(&c->w, "s", "t");
	} else {
		snprintf(id, sizeof(id), "%#" PRIx64, m->id);
		jw_string_field(&c->w, "id", id);
	}
	jw_end_object(&c->w);
	return ferror(c->f) ? -EIO : 0;
}

/* ---- iotrail flows -f chrome ---- */

struct flow_draw {
	struct chrome *c;
	struct chrome_slice *at; /* the slices drawn: requests, calls */
	size_t nr, cap;
	struct u64map by_id; /* request id, or CALL | flow -> index in at */
	uint64_t arrows;
};
#define CALL (1ull << 63)

static int keep_slice(struct flow_draw *fd, uint64_t key, const struct chrome_slice *s)
{
	if (GROW(fd->at, fd->nr + 1, fd->cap))
		return -ENOMEM;
	fd->at[fd->nr] = *s;
	return u64map_put(&fd->by_id, key, (uint32_t)fd->nr++);
}

/* a flow event pair from slice a to slice b (Chrome's "s" and "f", bound
 * to the slices enclosing them): at b's start, or as near as a allows */
static void arrow(struct flow_draw *fd, const struct chrome_slice *a,
		  const struct chrome_slice *b, uint32_t flow)
{
	struct chrome *c = fd->c;
	uint64_t ts = b->start < a->start ? a->start
		      : b->start > a->end ? a->end
					  : b->start;
	uint64_t te = ts < b->start ? b->start : ts > b->end ? b->end : ts;

	fd->arrows++;
	for (int k = 0; k < 2; k++) {
		const struct chrome_slice *s = k ? b : a;

		jw_start_object(&c->w);
		jw_string_field(&c->w, "ph", k ? "f" : "s");
		if (k)
			jw_string_field(&c->w, "bp", "e");
		jw_uint_field(&c->w, "id", fd->arrows);
		jw_string_field(&c->w, "name", "flow");
		jw_string_field(&c->w, "cat", "flow");
		jw_uint_field(&c->w, "pid", s->pid);
		jw_uint_field(&c->w, "tid", s->tid);
		ts_field(&c->w, "ts", k ? te : ts);
		jw_name(&c->w, "args");
		jw_start_object(&c->w);
		jw_uint_field(&c->w, "flow", flow);
		jw_end_object(&c->w);
		jw_end_object(&c->w);
	}
}

static int draw_call(void *ctx, uint32_t flow, const struct join_syscall *s)
{
	struct flow_draw *fd = ctx;
	struct chrome_slice at = {s->pid, s->tid, s->enter_ns, s->exit_ns};
	int err = chrome_syscall(fd->c, s);

	return err ? err : keep_slice(fd, CALL | flow, &at);
}

static int draw_part(void *ctx, uint32_t flow, uint64_t id, const struct join_request *r,
		     uint64_t up_id)
{
	struct flow_draw *fd = ctx;
	uint32_t *have = u64map_get(&fd->by_id, id), *from;
	struct chrome_slice at;
	int err;

	if (!have) { /* a lower request of several flows is drawn once */
		if ((err = draw_request(fd->c, r, &at)))
			return err;
		if (!at.pid)
			return 0;
		if ((err = keep_slice(fd, id, &at)))
			return err;
		have = u64map_get(&fd->by_id, id);
	}
	from = u64map_get(&fd->by_id, up_id ? up_id : CALL | flow);
	if (from)
		arrow(fd, &fd->at[*from], &fd->at[*have], flow);
	return ferror(fd->c->f) ? -EIO : 0;
}

int chrome_flows(struct chrome *c, const struct an_output *flows)
{
	struct flow_draw fd = {.c = c};
	struct flows_visitor v = {.ctx = &fd, .syscall = draw_call, .request = draw_part};
	int err = u64map_init(&fd.by_id, 256);

	c->flows = true;
	if (!err)
		err = flows_visit(flows, &v);
	u64map_release(&fd.by_id);
	free(fd.at);
	return err;
}

void chrome_close(struct chrome *c, const char *source)
{
	jw_end_array(&c->w);
	jw_name(&c->w, "otherData");
	jw_start_object(&c->w);
	jw_string_field(&c->w, "source", source);
	jw_string_field(&c->w, "exporter",
			c->flows ? "iotrail flows -f chrome"
				 : "iotrail export --to chrome");
	jw_end_object(&c->w);
	jw_end_object(&c->w);
	fputc('\n', c->f);
	for (size_t i = 0; i < c->nr_devs; i++) {
		free(c->devs[i].req_end);
		free(c->devs[i].dev_end);
	}
	free(c->devs);
	u64map_release(&c->named);
	c->devs = NULL;
}
