// SPDX-License-Identifier: GPL-2.0
/*
 * tasks: who issued the I/O, as the block layer saw it: per process (the
 * task that queued a request's first bio, block_bio_queue's current task),
 * its name and cgroup from the trace's task table, read and write requests
 * and bytes, and their Q2C. This is the submitter: writeback shows as its
 * kworker and journal writes as jbd2, not as the process that dirtied the
 * pages (issue "Who and why" is to follow them back).
 */
#include <stdlib.h>
#include <string.h>

#include "../util/grow.h"
#include "../util/u64map.h"
#include "analyzer.h"

struct task_row {
	uint32_t pid, tid; /* tgid, and the first thread seen */
	uint64_t requests[NR_OPG], bytes[NR_OPG];
	uint64_t q2c_sum_ns, q2c_max_ns, nr_q2c;
};

struct tasks_priv {
	struct u64map by_pid; /* pid -> row index */
	struct task_row *rows;
	size_t nr, cap;
};

static int init(struct analysis *a, struct an_output *o)
{
	struct tasks_priv *p = o->priv;

	return u64map_init(&p->by_pid, 64);
}

/* pid's row, made with tid its first thread; NULL out of memory */
static struct task_row *row_of(struct tasks_priv *p, uint32_t pid, uint32_t tid)
{
	uint32_t *v = u64map_get(&p->by_pid, pid);
	struct task_row *t;

	if (v)
		return &p->rows[*v];
	if (GROW(p->rows, p->nr + 1, p->cap) ||
	    u64map_put(&p->by_pid, pid, (uint32_t)p->nr))
		return NULL;
	t = &p->rows[p->nr++];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	return t;
}

static void request(struct analysis *a, void *priv, struct dev_result *d,
		    const struct join_request *r)
{
	struct tasks_priv *p = priv;
	int op = opg_of(r->flags);
	struct task_row *t;

	if (op < 0 || !r->tid) /* 0: not seen queued (or the idle task) */
		return;
	if (!(t = row_of(p, r->pid, r->tid))) {
		analysis_note_err(a, -ENOMEM);
		return;
	}
	t->requests[op]++;
	t->bytes[op] += (uint64_t)r->nr_sectors * 512;
	if (r->q_ns && r->c_ns >= r->q_ns) {
		uint64_t q2c = r->c_ns - r->q_ns;

		t->q2c_sum_ns += q2c;
		t->q2c_max_ns = q2c > t->q2c_max_ns ? q2c : t->q2c_max_ns;
		t->nr_q2c++;
	}
}

/* a later part's rows: a process new here keeps the thread it showed
 * first there */
static int merge(struct analysis *a, void *priv, const struct analysis *src,
		 void *src_priv, const size_t *devmap)
{
	const struct tasks_priv *s = src_priv;

	for (size_t i = 0; i < s->nr; i++) {
		const struct task_row *r = &s->rows[i];
		struct task_row *t = row_of(priv, r->pid, r->tid);

		if (!t)
			return -ENOMEM;
		for (int op = 0; op < NR_OPG; op++) {
			t->requests[op] += r->requests[op];
			t->bytes[op] += r->bytes[op];
		}
		t->q2c_sum_ns += r->q2c_sum_ns;
		t->q2c_max_ns =
		    r->q2c_max_ns > t->q2c_max_ns ? r->q2c_max_ns : t->q2c_max_ns;
		t->nr_q2c += r->nr_q2c;
	}
	return 0;
}

static int cmp_bytes(const void *x, const void *y)
{
	const struct task_row *a = x, *b = y;
	uint64_t ba = a->bytes[0] + a->bytes[1], bb = b->bytes[0] + b->bytes[1];

	if (ba != bb)
		return ba < bb ? 1 : -1;
	return (a->pid > b->pid) - (a->pid < b->pid);
}

static const struct column cols[] = {
    {"pid", "PID", 7, CELL_U64},
    {"comm", "COMM", -16, CELL_STR},
    {"cgroup", "CGROUP", -24, CELL_STR},
    {"reads", "READS", 8, CELL_U64},
    {"read_bytes", "READ_KB", 10, CELL_U64, IN_ALL, 0, 1024, 0},
    {"writes", "WRITES", 8, CELL_U64},
    {"write_bytes", "WRITE_KB", 10, CELL_U64, IN_ALL, 0, 1024, 0},
    {"q2c_avg_ns", "Q2C_AVG_US", 11, CELL_F64, IN_ALL, 0, 1e3, 1},
    {"q2c_max_ns", "Q2C_MAX_US", 11, CELL_U64, IN_ALL, 0, 1e3, 1},
};

static int finish(struct analysis *a, struct an_output *o)
{
	struct tasks_priv *p = o->priv;
	struct table *t =
	    an_output_table(a, o, "tasks", cols, sizeof(cols) / sizeof(cols[0]));

	if (!t)
		return -ENOMEM;
	snprintf(t->title, sizeof(t->title),
		 "Tasks: who queued each request's first bio (the submitter)");
	if (p->nr)
		qsort(p->rows, p->nr, sizeof(*p->rows), cmp_bytes);
	for (size_t i = 0; i < p->nr; i++) {
		const struct task_row *r = &p->rows[i];
		const struct iot_task_entry *e =
		    a->env.task_entry ? a->env.task_entry(a->env.ctx, r->tid) : NULL;

		table_row(t);
		table_u64(t, r->pid);
		table_str(t, "%s", e && e->comm[0] ? e->comm : "?");
		table_str(t, "%.*s", (int)sizeof(e->cgroup),
			  e && e->cgroup[0] ? e->cgroup : "?");
		table_u64(t, r->requests[OPG_READ]);
		table_u64(t, r->bytes[OPG_READ]);
		table_u64(t, r->requests[OPG_WRITE]);
		table_u64(t, r->bytes[OPG_WRITE]);
		if (r->nr_q2c)
			table_f64(t, (double)r->q2c_sum_ns / (double)r->nr_q2c);
		else
			table_na(t);
		table_u64(t, r->q2c_max_ns);
	}
	return 0;
}

static void release(void *priv)
{
	struct tasks_priv *p = priv;

	u64map_release(&p->by_pid);
	free(p->rows);
}

const struct analyzer an_tasks = {
    .name = "tasks",
    .help = "requests, bytes and Q2C per process that submitted them, with its "
	    "cgroup (writeback shows as its kworker)",
    .priv_size = sizeof(struct tasks_priv),
    .init = init,
    .request = request,
    .merge = merge,
    .finish = finish,
    .release = release,
};
