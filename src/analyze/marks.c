// SPDX-License-Identifier: GPL-2.0
/*
 * marks: the application's own phases (include/iotrail/marker.h) beside
 * its I/O (`report -a marks`). A begin and the next end of the same process,
 * name and id make a span; per name its duration as a metric, and per span
 * the read and write requests of that process completed inside it (matched
 * by process and time: the kernel does not know the application's
 * phases). Points are listed with their time.
 *
 * A part of the outputs (analysis.whole set) cannot pair a begin with an end
 * that lies in another part, nor count a process's requests from its
 * first mark: it counts every process's requests, and keeps each mark
 * with its process's counts at that moment; the merge adds the counts
 * up to each mark and takes the marks in order, as one pass would.
 */
#include <stdlib.h>
#include <string.h>

#include "../util/grow.h"
#include "../util/u64map.h"
#include "analyzer.h"

#define MAX_NAMES 64 /* metrics for the first names; every span is listed */

struct span {
	uint64_t start, end, id;
	uint32_t pid, tid;
	char name[17];
	uint8_t kind; /* 0 point, 1 span */
	uint64_t reqs[2], bytes[2];
};

struct pid_io { /* running totals of one process's completed requests */
	uint32_t pid;
	uint64_t reqs[2], bytes[2];
	/* a part's: of reqs and bytes, what its merge has added so far */
	uint64_t merged_reqs[2], merged_bytes[2];
};

struct part_mark { /* a part's mark, with its process's counts then */
	struct join_mark m;
	uint32_t io; /* the process's, in the part's io */
	uint64_t reqs[2], bytes[2];
};

struct marks_priv {
	struct span *spans; /* done, and open ones (end 0) */
	size_t nr, cap;
	struct u64map open; /* (pid, name, id) -> span index */
	struct pid_io *io;
	size_t nr_io, cap_io;
	struct u64map by_pid;  /* a part's: pid -> index in io */
	struct part_mark *log; /* a part's marks, in order */
	size_t nr_log, cap_log;
	struct metric m[MAX_NAMES];
	char names[MAX_NAMES][17];
	int nr_names;
	uint64_t unmatched_ends;
};

static int init(struct analysis *a, struct an_output *o)
{
	struct marks_priv *p = o->priv;

	if (a->whole && u64map_init(&p->by_pid, 64))
		return -ENOMEM;
	return u64map_init(&p->open, 64);
}

static struct pid_io *io_of(struct marks_priv *p, uint32_t pid, bool add)
{
	for (size_t i = 0; i < p->nr_io; i++)
		if (p->io[i].pid == pid)
			return &p->io[i];
	if (!add || GROW(p->io, p->nr_io + 1, p->cap_io))
		return NULL;
	p->io[p->nr_io] = (struct pid_io){.pid = pid};
	return &p->io[p->nr_io++];
}

/* a part's: every process's, by the map */
static struct pid_io *part_io_of(struct analysis *a, struct marks_priv *p, uint32_t pid)
{
	uint32_t *v = u64map_get(&p->by_pid, pid);

	if (v)
		return &p->io[*v];
	if (GROW(p->io, p->nr_io + 1, p->cap_io) ||
	    u64map_put(&p->by_pid, pid, (uint32_t)p->nr_io)) {
		analysis_note_err(a, -ENOMEM);
		return NULL;
	}
	p->io[p->nr_io] = (struct pid_io){.pid = pid};
	return &p->io[p->nr_io++];
}

static void request(struct analysis *a, void *priv, struct dev_result *d,
		    const struct join_request *r)
{
	struct marks_priv *p = priv;
	int op = opg_of(r->flags);
	struct pid_io *io;

	/* only processes that marked (the list is short); a part's, every
	 * process's */
	if (op < 0 || !r->pid ||
	    !(io = a->whole ? part_io_of(a, p, r->pid) : io_of(p, r->pid, false)))
		return;
	io->reqs[op]++;
	io->bytes[op] += (uint64_t)r->nr_sectors * 512;
}

static uint64_t key_of(const struct join_mark *m)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (const char *c = m->name; *c; c++)
		h = (h ^ (uint8_t)*c) * 0x100000001b3ull;
	h ^= m->id * 0x9e3779b97f4a7c15ull;
	h ^= (uint64_t)m->pid << 40;
	return h ? h : 1;
}

static void take(struct analysis *a, struct marks_priv *p, const struct join_mark *m)
{
	uint64_t k = key_of(m);
	struct pid_io *io = io_of(p, m->pid, true);
	struct span *s;
	uint32_t *v;

	if (!io) {
		analysis_note_err(a, -ENOMEM);
		return;
	}
	if (m->kind == 2) { /* end */
		v = u64map_get(&p->open, k);
		if (!v) {
			p->unmatched_ends++;
			return;
		}
		s = &p->spans[*v];
		u64map_del(&p->open, k);
		s->end = m->ts_ns;
		for (int op = 0; op < 2; op++) {
			s->reqs[op] = io->reqs[op] - s->reqs[op];
			s->bytes[op] = io->bytes[op] - s->bytes[op];
		}
		for (int i = 0; i <= p->nr_names && i < MAX_NAMES; i++) {
			if (i == p->nr_names) {
				snprintf(p->names[i], sizeof(p->names[i]), "%s", s->name);
				metric_init(&p->m[i], p->names[i], "duration", "ns",
					    a->env.keep_time);
				p->nr_names++;
			}
			if (!strcmp(p->names[i], s->name)) {
				analysis_note_err(
				    a, metric_add(&p->m[i], s->end, s->end - s->start));
				break;
			}
		}
		return;
	}
	if (GROW(p->spans, p->nr + 1, p->cap)) {
		analysis_note_err(a, -ENOMEM);
		return;
	}
	s = &p->spans[p->nr];
	memset(s, 0, sizeof(*s));
	s->start = m->ts_ns;
	s->id = m->id;
	s->pid = m->pid;
	s->tid = m->tid;
	s->kind = m->kind == 1;
	memcpy(s->name, m->name, sizeof(s->name));
	if (s->kind) { /* the totals now: the span's are the difference */
		memcpy(s->reqs, io->reqs, sizeof(s->reqs));
		memcpy(s->bytes, io->bytes, sizeof(s->bytes));
		analysis_note_err(a, u64map_put(&p->open, k, (uint32_t)p->nr));
	}
	p->nr++;
}

static void mark(struct analysis *a, void *priv, const struct join_mark *m)
{
	struct marks_priv *p = priv;
	struct pid_io *io;

	if (!a->whole) {
		take(a, p, m);
		return;
	}
	if (!(io = part_io_of(a, p, m->pid)))
		return;
	if (GROW(p->log, p->nr_log + 1, p->cap_log)) {
		analysis_note_err(a, -ENOMEM);
		return;
	}
	p->log[p->nr_log] = (struct part_mark){.m = *m, .io = (uint32_t)(io - p->io)};
	memcpy(p->log[p->nr_log].reqs, io->reqs, sizeof(io->reqs));
	memcpy(p->log[p->nr_log].bytes, io->bytes, sizeof(io->bytes));
	p->nr_log++;
}

/* Of a part's counts x of a process, what the merge has not added yet, up
 * to reqs and bytes, added to p's (when p counts that process, or add). */
static int add_counts(struct marks_priv *p, struct pid_io *x, const uint64_t reqs[2],
		      const uint64_t bytes[2], bool add)
{
	struct pid_io *to = io_of(p, x->pid, add);

	if (!to)
		return add ? -ENOMEM : 0;
	for (int op = 0; op < 2; op++) {
		to->reqs[op] += reqs[op] - x->merged_reqs[op];
		to->bytes[op] += bytes[op] - x->merged_bytes[op];
		x->merged_reqs[op] = reqs[op];
		x->merged_bytes[op] = bytes[op];
	}
	return 0;
}

static int merge(struct analysis *a, void *priv, const struct analysis *src,
		 void *src_priv, const size_t *devmap)
{
	struct marks_priv *p = priv, *x = src_priv;

	for (size_t i = 0; i < x->nr_log; i++) {
		const struct part_mark *pm = &x->log[i];

		if (add_counts(p, &x->io[pm->io], pm->reqs, pm->bytes, true))
			return -ENOMEM;
		take(a, p, &pm->m);
	}
	/* the requests after each process's last mark in the part */
	for (size_t i = 0; i < x->nr_io; i++)
		add_counts(p, &x->io[i], x->io[i].reqs, x->io[i].bytes, false);
	return a->err;
}

static const struct column cols[] = {
    {"time_s", "TIME(s)", 10, CELL_F64, IN_PEOPLE, 6, 1, 6},
    {"start_ns", "START", 0, CELL_U64, IN_PROGRAMS},
    {"end_ns", "END", 0, CELL_U64, IN_PROGRAMS},
    {"pid", "PID", 7, CELL_U64},
    {"tid", "TID", 7, CELL_U64},
    {"kind", "KIND", -5, CELL_STR},
    {"name", "NAME", -16, CELL_STR},
    {"id", "ID", 10, CELL_U64},
    {"duration_ns", "DUR", 9, CELL_U64, IN_ALL, 0, 1e3, 1},
    {"read_requests", "READS", 6, CELL_U64},
    {"read_bytes", "READ_KB", 8, CELL_U64, IN_ALL, 0, 1024, 0},
    {"write_requests", "WRITES", 6, CELL_U64},
    {"write_bytes", "WRITE_KB", 8, CELL_U64, IN_ALL, 0, 1024, 0},
};

static int finish(struct analysis *a, struct an_output *o)
{
	struct marks_priv *p = o->priv;
	struct table *t;

	for (int i = 0; i < p->nr_names; i++)
		an_output_metric(a, o, &p->m[i]);
	t = an_output_table(a, o, "marks", cols, sizeof(cols) / sizeof(cols[0]));
	if (!t)
		return -ENOMEM;
	snprintf(t->title, sizeof(t->title),
		 "User marks: spans (begin..end) with the process's requests completed "
		 "in them, and points (us)");
	for (size_t i = 0; i < p->nr; i++) {
		const struct span *s = &p->spans[i];
		table_row(t);
		table_f64(t, s->start >= a->env.t0_ns
				 ? (double)(s->start - a->env.t0_ns) / 1e9
				 : 0);
		table_u64(t, s->start);
		if (s->kind && s->end)
			table_u64(t, s->end);
		else
			table_na(t);
		table_u64(t, s->pid);
		table_u64(t, s->tid);
		table_str(t, "%s", s->kind ? (s->end ? "span" : "open") : "point");
		table_str(t, "%s", s->name);
		table_u64(t, s->id);
		if (s->kind && s->end) {
			table_u64(t, s->end - s->start);
			table_u64(t, s->reqs[0]);
			table_u64(t, s->bytes[0]);
			table_u64(t, s->reqs[1]);
			table_u64(t, s->bytes[1]);
		} else {
			for (int k = 0; k < 5; k++)
				table_na(t);
		}
	}
	if (!p->nr)
		table_note(t, "# no user mark in this trace (include/iotrail/marker.h; "
			      "recorded since trace format 1.6)\n");
	else if (p->unmatched_ends)
		table_note(t, "# %llu ends without their begin\n",
			   (unsigned long long)p->unmatched_ends);
	return 0;
}

static void release(void *priv)
{
	struct marks_priv *p = priv;

	for (int i = 0; i < p->nr_names; i++)
		metric_release(&p->m[i]);
	u64map_release(&p->open);
	u64map_release(&p->by_pid);
	free(p->spans);
	free(p->io);
	free(p->log);
}

const struct analyzer an_marks = {
    .name = "marks",
    .help = "the application's marked phases (iotrail/marker.h) and the I/O "
	    "completed in each",
    .priv_size = sizeof(struct marks_priv),
    .metric_unit = "us",
    .init = init,
    .request = request,
    .mark = mark,
    .merge = merge,
    .finish = finish,
    .release = release,
};
