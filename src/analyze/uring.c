// SPDX-License-Identifier: GPL-2.0
/*
 * uring: every io_uring request that can reach a file (`report -a uring`),
 * from its submission to its completion, beside the block stages of the
 * bios it queued:
 *   issue     io_uring_submit_req .. its first bio's Q (preparing, the
 *             filesystem, and for io-wq the wait for a worker)
 *   block     first Q .. last C of its bios (the block layer and device)
 *   device    D .. C of its bios' requests, summed
 *   complete  last C .. io_uring_complete (the completion's way back:
 *             task work, the CQE posted)
 * A request that queued no bio (served by the page cache, or an fsync with
 * nothing to write) has only its total. Per opcode as metrics; per request
 * as the table "uring" (CSV and JSON; the text shows it with --top N).
 * How each bio is tied to its request is in docs/ATTRIBUTION.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../trace/cause.h"
#include "../util/grow.h"
#include "analyzer.h"

#define NR_OPS 64 /* IORING_OP_* below this get metrics */

enum { M_TOTAL, M_ISSUE, M_BLOCK, M_DEVICE, M_COMPLETE, NR_M };
static const char *const m_names[NR_M] = {"total", "issue", "block", "device",
					  "complete"};
static const char *const via_names[] = {"inline", "sqpoll", "io-wq"};

struct uring_priv {
	struct join_uring *reqs;
	size_t nr, cap;
	struct metric m[NR_OPS][NR_M];
	uint64_t nr_op[NR_OPS], io_op[NR_OPS];
	char op_names[NR_OPS][16];
};

static int init(struct analysis *a, struct an_output *o)
{
	struct uring_priv *p = o->priv;

	for (int op = 0; op < NR_OPS; op++) {
		const char *name = iot_uring_op_name((unsigned int)op, p->op_names[op]);

		if (name != p->op_names[op])
			snprintf(p->op_names[op], sizeof(p->op_names[op]), "%s", name);
		for (int m = 0; m < NR_M; m++)
			metric_init(&p->m[op][m], p->op_names[op], m_names[m], "ns",
				    a->env.keep_time);
	}
	return 0;
}

static void uring(struct analysis *a, void *priv, const struct join_uring *u)
{
	struct uring_priv *p = priv;
	struct metric *m;
	uint64_t t = u->cqe_ns;

	if (GROW(p->reqs, p->nr + 1, p->cap)) {
		analysis_note_err(a, -ENOMEM);
		return;
	}
	p->reqs[p->nr++] = *u;
	if (u->opcode >= NR_OPS)
		return;
	m = p->m[u->opcode];
	p->nr_op[u->opcode]++;
	analysis_note_err(a, metric_add(&m[M_TOTAL], t, u->cqe_ns - u->submit_ns));
	if (!u->nr_bios_done || u->first_q_ns < u->submit_ns || u->last_c_ns > u->cqe_ns)
		return;
	p->io_op[u->opcode]++;
	analysis_note_err(a, metric_add(&m[M_ISSUE], t, u->first_q_ns - u->submit_ns));
	analysis_note_err(a, metric_add(&m[M_BLOCK], t, u->last_c_ns - u->first_q_ns));
	analysis_note_err(a, metric_add(&m[M_DEVICE], t, u->d2c_sum_ns));
	analysis_note_err(a, metric_add(&m[M_COMPLETE], t, u->cqe_ns - u->last_c_ns));
}

static int merge(struct analysis *a, void *priv, const struct analysis *src,
		 void *src_priv, const size_t *devmap)
{
	struct uring_priv *p = priv;
	struct uring_priv *s = src_priv;

	if (APPEND(p->reqs, p->nr, p->cap, s->reqs, s->nr))
		return -ENOMEM;
	for (int op = 0; op < NR_OPS; op++) {
		p->nr_op[op] += s->nr_op[op];
		p->io_op[op] += s->io_op[op];
		for (int m = 0; m < NR_M; m++)
			if (metric_take(&p->m[op][m], &s->m[op][m]))
				return -ENOMEM;
	}
	return 0;
}

/* ---- the result ----------------------------------------------------------------- */

static const struct column cols[] = {
    {"time_s", "TIME(s)", 10, CELL_F64, IN_PEOPLE, 6, 1, 6},
    {"submit_ns", "SUBMIT", 0, CELL_U64, IN_PROGRAMS},
    {"cqe_ns", "CQE", 0, CELL_U64, IN_PROGRAMS},
    {"pid", "PID", 7, CELL_U64},
    {"tid", "TID", 7, CELL_U64, IN_PROGRAMS},
    {"comm", "COMM", -16, CELL_STR},
    {"op", "OP", -11, CELL_STR},
    {"via", "VIA", -6, CELL_STR},
    {"user_data", "USER_DATA", 18, CELL_U64},
    {"res", "RES", 8, CELL_I64},
    {"pos", "POS", 12, CELL_I64},
    {"len", "LEN", 7, CELL_U64},
    {"file_dev", "FSDEV", 0, CELL_STR, IN_PROGRAMS},
    {"inode", "INODE", 0, CELL_U64, IN_PROGRAMS},
    {"bios", "BIOS", 4, CELL_U64},
    {"bio_dev", "DEV", -8, CELL_STR},
    {"sector", "SECTOR", 10, CELL_U64},
    {"sectors", "SECTORS", 0, CELL_U64, IN_PROGRAMS},
    {"total_ns", "TOTAL", 9, CELL_U64, IN_ALL, 0, 1e3, 1},
    {"issue_ns", "ISSUE", 8, CELL_U64, IN_ALL, 0, 1e3, 1},
    {"block_ns", "BLOCK", 8, CELL_U64, IN_ALL, 0, 1e3, 1},
    {"device_ns", "DEVICE", 8, CELL_U64, IN_ALL, 0, 1e3, 1},
    {"complete_ns", "COMPL", 8, CELL_U64, IN_ALL, 0, 1e3, 1},
    {"path", "FILE", -1, CELL_STR},
};

static int cmp_total(const void *x, const void *y)
{
	const struct join_uring *a = x, *b = y;
	uint64_t ta = a->cqe_ns - a->submit_ns, tb = b->cqe_ns - b->submit_ns;

	if (ta != tb)
		return ta < tb ? 1 : -1;
	return (a->cqe_ns > b->cqe_ns) - (a->cqe_ns < b->cqe_ns);
}

static void row(struct analysis *a, struct table *t, const struct join_uring *u)
{
	const struct iot_task_entry *e =
	    a->env.task_entry ? a->env.task_entry(a->env.ctx, u->tid) : NULL;
	bool io =
	    u->nr_bios_done && u->first_q_ns >= u->submit_ns && u->last_c_ns <= u->cqe_ns;
	const char *path = a->env.file_path && u->dev && u->ino
			       ? a->env.file_path(a->env.ctx, u->dev, u->ino)
			       : NULL;
	char ob[16];

	table_row(t);
	table_f64(t, u->cqe_ns >= a->env.t0_ns ? (double)(u->cqe_ns - a->env.t0_ns) / 1e9
					       : 0);
	table_u64(t, u->submit_ns);
	table_u64(t, u->cqe_ns);
	table_u64(t, u->pid);
	table_u64(t, u->tid);
	table_str(t, "%s", e && e->comm[0] ? e->comm : "?");
	table_str(t, "%s", iot_uring_op_name(u->opcode, ob));
	table_str(t, "%s", via_names[u->via < 3 ? u->via : 0]);
	table_u64(t, u->user_data);
	table_i64(t, u->res);
	if (u->pos != ~0ull)
		table_i64(t, (int64_t)u->pos);
	else
		table_na(t);
	table_u64(t, u->len);
	if (u->dev)
		table_str(t, "%u:%u", u->dev >> 20, u->dev & 0xfffff);
	else
		table_na(t);
	table_u64(t, u->ino);
	table_u64(t, u->nr_bios_done);
	if (u->nr_bios) {
		table_str(t, "%s", analysis_dev_name(a, u->bio_dev));
		table_u64(t, u->first_sector);
	} else {
		table_na(t);
		table_na(t);
	}
	table_u64(t, u->sectors);
	table_u64(t, u->cqe_ns - u->submit_ns);
	if (io) {
		table_u64(t, u->first_q_ns - u->submit_ns);
		table_u64(t, u->last_c_ns - u->first_q_ns);
		table_u64(t, u->d2c_sum_ns);
		table_u64(t, u->cqe_ns - u->last_c_ns);
	} else {
		for (int k = 0; k < 4; k++)
			table_na(t);
	}
	table_str(t, "%s", path ? path : "");
}

static const struct column op_cols[] = {
    {"op", "OP", -14, CELL_STR},
    {"requests", "REQUESTS", 9, CELL_U64},
    {"with_io", "WITH_IO", 9, CELL_U64},
};

static int finish(struct analysis *a, struct an_output *o)
{
	struct uring_priv *p = o->priv;
	size_t top = a->env.top && a->env.top < p->nr ? a->env.top : p->nr;
	struct table *t, *ops;

	for (int op = 0; op < NR_OPS; op++)
		for (int m = 0; m < NR_M && p->nr_op[op]; m++)
			if (m == M_TOTAL || p->io_op[op])
				an_output_metric(a, o, &p->m[op][m]);
	ops = an_output_table(a, o, "uring_ops", op_cols,
			      sizeof(op_cols) / sizeof(op_cols[0]));
	t = an_output_table(a, o, "uring", cols, sizeof(cols) / sizeof(cols[0]));
	if (!t || !ops)
		return -ENOMEM;
	snprintf(ops->title, sizeof(ops->title),
		 "io_uring requests by opcode (those that queued bios have the "
		 "issue, block, device and complete metrics)");
	for (int op = 0; op < NR_OPS; op++) {
		if (!p->nr_op[op])
			continue;
		table_row(ops);
		table_str(ops, "%s", p->op_names[op]);
		table_u64(ops, p->nr_op[op]);
		table_u64(ops, p->io_op[op]);
	}
	if (!p->nr)
		table_note(ops, "# no io_uring request on a file in this trace (they are "
				"recorded with record --uring, since trace format "
				"1.5)\n");
	if (a->env.top) {
		qsort(p->reqs, p->nr, sizeof(*p->reqs), cmp_total);
		snprintf(t->title, sizeof(t->title),
			 "The %zu slowest io_uring requests: submission to completion "
			 "(us)",
			 top);
	} else {
		t->in = IN_PROGRAMS; /* one row per request: for programs */
		snprintf(t->title, sizeof(t->title), "io_uring requests (us)");
	}
	for (size_t i = 0; i < top; i++)
		row(a, t, &p->reqs[i]);
	return 0;
}

static void release(void *priv)
{
	struct uring_priv *p = priv;

	for (int op = 0; op < NR_OPS; op++)
		for (int m = 0; m < NR_M; m++)
			metric_release(&p->m[op][m]);
	free(p->reqs);
}

const struct analyzer an_uring = {
    .name = "uring",
    .help = "io_uring requests from submission to completion, beside the block "
	    "stages of their bios",
    .priv_size = sizeof(struct uring_priv),
    .metric_unit = "us",
    .init = init,
    .uring = uring,
    .merge = merge,
    .finish = finish,
    .release = release,
};
