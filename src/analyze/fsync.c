// SPDX-License-Identifier: GPL-2.0
/*
 * fsync: where each fsync(2) and fdatasync(2) call spent its time
 * (`report -a fsync`), split into
 *   flush    cache flushes of the file's disk (the flush machinery's flush
 *            request from the kernel's start of it, and data-less PREFLUSH
 *            requests from their queueing) that the call overlapped;
 *   journal  the journal commits of the file's filesystem (jbd2_start_commit
 *            .. jbd2_end_commit, IOT_EV_COMMIT) and the journal's own
 *            requests on its disk, outside the flushes;
 *   data     the writes of the file's pages (the bio's first page belongs to
 *            the file's inode) and the writes the calling task queued in
 *            the call, outside the above;
 *   wake     from the caller's last wakeup in the call (sched_waking,
 *            IOT_EV_WAKEUP) to its return: the wait for a CPU and the way
 *            out, after every I/O it waited for;
 *   other    the rest: CPU, locks, the gaps between the waits.
 * Each instant of the call counts once, for the first of wake, flush,
 * journal, data that covers it (fsync_split). The evidence is the kernel's: inode of
 * the bio's pages, the queueing task, the journal's device; the call and
 * the journal's work meet only in time and device, since a commit serves
 * every task that waits for it (docs/ATTRIBUTION.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../trace/cause.h"
#include "../util/grow.h"
#include "analyzer.h"
#include "fsync.h"

/* a span kept for the calls to come: I/O and commits complete in time order,
 * so spans are sorted by end; those older than this are dropped */
#define HORIZON_NS (60ull * 1000000000ull)

enum span_kind { S_DATA, S_JOURNAL, S_FLUSH, S_COMMIT };

struct span {
	uint64_t start, end;
	uint64_t ino;  /* S_DATA: the inode of its pages, 0 none */
	uint32_t dev;  /* the disk; S_COMMIT: the filesystem */
	uint32_t tid;  /* S_DATA: the queueing task */
	uint32_t kind; /* enum span_kind */
	uint32_t sectors;
};

struct call {
	uint64_t enter_ns, exit_ns;
	uint64_t wake_ns; /* its last wakeup; 0: no wakeup record, WAKE unknown */
	uint64_t part[NR_FSYNC_PARTS];
	uint64_t ino, data_bytes;
	uint32_t pid, tid, dev;
	int64_t ret;
	bool datasync;
	/* in a part, not yet split: the part's spans pushed before it */
	size_t after_spans;
};

enum { M_TOTAL, M_DATA, M_JOURNAL, M_FLUSH, M_WAKE, M_OTHER, NR_M };
static const char *const m_names[NR_M] = {"total", "data", "journal",
					  "flush", "wake", "other"};

/* A part of the outputs (analysis.whole set) cannot split a call: the spans
 * of the parts before it are elsewhere. It keeps every span and its calls
 * unsplit, each with the number of spans before it, and the merge pushes
 * them and splits the calls in that order, as one pass would have. */
struct fsync_priv {
	struct span *spans;
	size_t head, nr, cap; /* live spans: [head, nr) (a part's: all) */
	struct call *calls;
	size_t nr_calls, cap_calls;
	struct fsync_iv *ivs;
	size_t cap_ivs;
	struct metric m[2][NR_M]; /* fsync, fdatasync */
	bool any_commit;
};

/* ---- the split ------------------------------------------------------------------ */

struct sweep_pt {
	uint64_t t;
	int part, delta;
};

static int cmp_pt(const void *x, const void *y)
{
	const struct sweep_pt *a = x, *b = y;

	return (a->t > b->t) - (a->t < b->t);
}

int fsync_split(uint64_t enter, uint64_t exit, const struct fsync_iv *iv, size_t n,
		uint64_t part[NR_FSYNC_PARTS], uint64_t *other)
{
	struct sweep_pt *pt;
	size_t k = 0;
	int cover[NR_FSYNC_PARTS] = {0};
	uint64_t covered = 0, at = enter;

	memset(part, 0, sizeof(uint64_t) * NR_FSYNC_PARTS);
	*other = exit > enter ? exit - enter : 0;
	if (!n || exit <= enter)
		return 0;
	pt = malloc(2 * n * sizeof(*pt));
	if (!pt)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		uint64_t s = iv[i].start > enter ? iv[i].start : enter;
		uint64_t e = iv[i].end < exit ? iv[i].end : exit;

		if (s >= e || iv[i].part < 0 || iv[i].part >= NR_FSYNC_PARTS)
			continue;
		pt[k++] = (struct sweep_pt){s, iv[i].part, 1};
		pt[k++] = (struct sweep_pt){e, iv[i].part, -1};
	}
	qsort(pt, k, sizeof(*pt), cmp_pt);
	for (size_t i = 0; i < k; i++) {
		/* [at, pt[i].t) belongs to the highest part covering it */
		if (pt[i].t > at) {
			for (int p = NR_FSYNC_PARTS - 1; p >= 0; p--) {
				if (cover[p]) {
					part[p] += pt[i].t - at;
					covered += pt[i].t - at;
					break;
				}
			}
			at = pt[i].t;
		}
		cover[pt[i].part] += pt[i].delta;
	}
	free(pt);
	*other -= covered;
	return 0;
}

/* ---- the hooks ------------------------------------------------------------------ */

static int init(struct analysis *a, struct an_output *o)
{
	struct fsync_priv *p = o->priv;

	for (int c = 0; c < 2; c++)
		for (int m = 0; m < NR_M; m++)
			metric_init(&p->m[c][m], c ? "fdatasync" : "fsync", m_names[m],
				    "ns", a->env.keep_time);
	return 0;
}

static void push(struct analysis *a, struct fsync_priv *p, const struct span *s)
{
	/* drop what no call can still need (a part: what its merge will
	 * push in order) */
	while (!a->whole && p->head < p->nr &&
	       p->spans[p->head].end + HORIZON_NS < s->end)
		p->head++;
	if (p->head > 4096 && p->head * 2 > p->nr) {
		memmove(p->spans, p->spans + p->head,
			(p->nr - p->head) * sizeof(*p->spans));
		p->nr -= p->head;
		p->head = 0;
	}
	if (GROW(p->spans, p->nr + 1, p->cap)) {
		analysis_note_err(a, -ENOMEM);
		return;
	}
	p->spans[p->nr++] = *s;
}

static bool is_flush(const struct join_request *r)
{
	return join_is_flush_rq(r) || (!r->nr_sectors && (r->flags & IOT_F_PREFLUSH) &&
				       (r->flags & IOT_OP_MASK) == IOT_OP_WRITE);
}

static void request(struct analysis *a, void *priv, struct dev_result *d,
		    const struct join_request *r)
{
	struct fsync_priv *p = priv;
	uint64_t from;

	if (!is_flush(r))
		return;
	from = r->start_ns && r->start_ns <= r->c_ns ? r->start_ns
	       : r->q_ns			     ? r->q_ns
	       : r->i_ns			     ? r->i_ns
						     : r->d_ns;
	if (from && from <= r->c_ns)
		push(a, p,
		     &(struct span){
			 .start = from, .end = r->c_ns, .dev = r->dev, .kind = S_FLUSH});
}

static void bio(struct analysis *a, void *priv, struct dev_result *d,
		const struct join_request *r, const struct join_bio *b)
{
	struct fsync_priv *p = priv;
	uint64_t from = b->q_ns ? b->q_ns : r->q_ns ? r->q_ns : r->d_ns;
	bool journal = b->why.known && b->why.cause == IOT_CAUSE_JOURNAL;

	if ((r->flags & IOT_OP_MASK) != IOT_OP_WRITE || !b->nr_sectors || !from ||
	    from > r->c_ns)
		return;
	push(a, p,
	     &(struct span){.start = from,
			    .end = r->c_ns,
			    .ino = journal			? 0
				   : b->why.known && b->why.ino ? b->why.ino
								: b->ino,
			    .dev = r->dev,
			    .tid = b->tid,
			    .kind = journal ? S_JOURNAL : S_DATA,
			    .sectors = b->nr_sectors});
}

static void commit(struct analysis *a, void *priv, const struct join_commit *c)
{
	struct fsync_priv *p = priv;

	p->any_commit = true;
	if (c->end_ns >= c->start_ns)
		push(a, p,
		     &(struct span){.start = c->start_ns,
				    .end = c->end_ns,
				    .dev = c->dev,
				    .kind = S_COMMIT});
}

/* The disk under a filesystem's st_dev: the device table knows partitions. */
static uint32_t disk_of(const struct analysis *a, uint32_t dev)
{
	const struct iot_dev_entry *e =
	    dev && a->env.dev_entry ? a->env.dev_entry(a->env.ctx, dev) : NULL;

	return e && e->disk_dev ? e->disk_dev : dev;
}

/* The call's time split over the spans pushed before it */
static void split(struct analysis *a, struct fsync_priv *p, const struct call *in)
{
	uint32_t disk;
	struct call *c;
	uint64_t other;
	size_t n = 0;

	if (GROW(p->calls, p->nr_calls + 1, p->cap_calls)) {
		analysis_note_err(a, -ENOMEM);
		return;
	}
	c = &p->calls[p->nr_calls++];
	*c = *in;
	disk = disk_of(a, c->dev);
	if (c->wake_ns >= c->enter_ns && c->wake_ns <= c->exit_ns) {
		if (GROW(p->ivs, n + 1, p->cap_ivs)) {
			analysis_note_err(a, -ENOMEM);
			return;
		}
		p->ivs[n++] = (struct fsync_iv){c->wake_ns, c->exit_ns, FSYNC_WAKE};
	}
	/* newest first; spans end in time order */
	for (size_t i = p->nr; i-- > p->head && p->spans[i].end > c->enter_ns;) {
		const struct span *sp = &p->spans[i];
		bool on_disk = !c->dev || sp->dev == disk;
		int part = -1;

		switch (sp->kind) {
		case S_FLUSH:
			part = on_disk ? FSYNC_FLUSH : -1;
			break;
		case S_COMMIT:
			part = !c->dev || sp->dev == c->dev ? FSYNC_JOURNAL : -1;
			break;
		case S_JOURNAL:
			part = on_disk ? FSYNC_JOURNAL : -1;
			break;
		case S_DATA:
			if ((sp->tid == c->tid && sp->start >= c->enter_ns) ||
			    (c->ino && sp->ino == c->ino && on_disk)) {
				part = FSYNC_DATA;
				c->data_bytes += (uint64_t)sp->sectors * 512;
			}
			break;
		default:
			break;
		}
		if (part < 0)
			continue;
		if (GROW(p->ivs, n + 1, p->cap_ivs)) {
			analysis_note_err(a, -ENOMEM);
			return;
		}
		p->ivs[n++] = (struct fsync_iv){sp->start, sp->end, part};
	}
	analysis_note_err(
	    a, fsync_split(c->enter_ns, c->exit_ns, p->ivs, n, c->part, &other));
	{
		struct metric *m = p->m[c->datasync];
		uint64_t t = c->exit_ns;

		analysis_note_err(a,
				  metric_add(&m[M_TOTAL], t, c->exit_ns - c->enter_ns));
		analysis_note_err(a, metric_add(&m[M_DATA], t, c->part[FSYNC_DATA]));
		analysis_note_err(a,
				  metric_add(&m[M_JOURNAL], t, c->part[FSYNC_JOURNAL]));
		analysis_note_err(a, metric_add(&m[M_FLUSH], t, c->part[FSYNC_FLUSH]));
		if (c->wake_ns)
			analysis_note_err(a,
					  metric_add(&m[M_WAKE], t, c->part[FSYNC_WAKE]));
		analysis_note_err(a, metric_add(&m[M_OTHER], t, other));
	}
}

static void syscall(struct analysis *a, void *priv, const struct join_syscall *s)
{
	struct fsync_priv *p = priv;
	int kind = analysis_syscall_kind(a, s->nr);
	struct call c;

	if ((kind != SK_FSYNC && kind != SK_FDATASYNC) || s->exit_ns < s->enter_ns)
		return;
	c = (struct call){.enter_ns = s->enter_ns,
			  .exit_ns = s->exit_ns,
			  .wake_ns = s->wake_ns,
			  .ino = s->ino,
			  .pid = s->pid,
			  .tid = s->tid,
			  .dev = s->dev,
			  .ret = s->ret,
			  .datasync = kind == SK_FDATASYNC,
			  .after_spans = p->nr};
	if (!a->whole)
		split(a, p, &c);
	else if (APPEND(p->calls, p->nr_calls, p->cap_calls, &c, 1))
		analysis_note_err(a, -ENOMEM);
}

static int merge(struct analysis *a, void *priv, const struct analysis *src,
		 void *src_priv, const size_t *devmap)
{
	struct fsync_priv *p = priv;
	const struct fsync_priv *x = src_priv;
	size_t k = 0;

	p->any_commit |= x->any_commit;
	for (size_t i = 0; i < x->nr_calls; i++) {
		for (; k < x->calls[i].after_spans; k++)
			push(a, p, &x->spans[k]);
		split(a, p, &x->calls[i]);
	}
	for (; k < x->nr; k++)
		push(a, p, &x->spans[k]);
	return a->err;
}

/* ---- the result ----------------------------------------------------------------- */

static const struct column cols[] = {
    {"time_s", "TIME(s)", 10, CELL_F64, IN_PEOPLE, 6, 1, 6},
    {"enter_ns", "ENTER", 0, CELL_U64, IN_PROGRAMS},
    {"exit_ns", "EXIT", 0, CELL_U64, IN_PROGRAMS},
    {"pid", "PID", 7, CELL_U64},
    {"tid", "TID", 7, CELL_U64, IN_PROGRAMS},
    {"comm", "COMM", -16, CELL_STR},
    {"call", "CALL", -9, CELL_STR},
    {"dev", "DEV", -8, CELL_STR},
    {"inode", "INODE", 9, CELL_U64},
    {"ret", "RET", 4, CELL_I64},
    {"total_ns", "TOTAL", 9, CELL_U64, IN_ALL, 0, 1e3, 1},
    {"data_ns", "DATA", 9, CELL_U64, IN_ALL, 0, 1e3, 1},
    {"journal_ns", "JOURNAL", 9, CELL_U64, IN_ALL, 0, 1e3, 1},
    {"flush_ns", "FLUSH", 9, CELL_U64, IN_ALL, 0, 1e3, 1},
    {"wake_ns", "WAKE", 9, CELL_U64, IN_ALL, 0, 1e3, 1},
    {"other_ns", "OTHER", 9, CELL_U64, IN_ALL, 0, 1e3, 1},
    {"data_bytes", "DATA_KB", 8, CELL_U64, IN_ALL, 0, 1024, 0},
    {"path", "FILE", -1, CELL_STR},
};

static int cmp_total(const void *x, const void *y)
{
	const struct call *a = x, *b = y;
	uint64_t ta = a->exit_ns - a->enter_ns, tb = b->exit_ns - b->enter_ns;

	if (ta != tb)
		return ta < tb ? 1 : -1;
	return (a->exit_ns > b->exit_ns) - (a->exit_ns < b->exit_ns);
}

static int finish(struct analysis *a, struct an_output *o)
{
	struct fsync_priv *p = o->priv;
	size_t top = a->env.top && a->env.top < p->nr_calls ? a->env.top : p->nr_calls;
	struct table *t;

	for (int c = 0; c < 2; c++)
		for (int m = 0; m < NR_M; m++)
			an_output_metric(a, o, &p->m[c][m]);
	t = an_output_table(a, o, "fsync", cols, sizeof(cols) / sizeof(cols[0]));
	if (!t)
		return -ENOMEM;
	if (a->env.top) {
		qsort(p->calls, p->nr_calls, sizeof(*p->calls), cmp_total);
		snprintf(t->title, sizeof(t->title),
			 "The %zu longest fsync and fdatasync calls: where the time went "
			 "(us)",
			 top);
	} else {
		snprintf(t->title, sizeof(t->title),
			 "fsync and fdatasync calls: where the time went (us)");
	}
	for (size_t i = 0; i < top; i++) {
		const struct call *c = &p->calls[i];
		const struct iot_task_entry *e =
		    a->env.task_entry ? a->env.task_entry(a->env.ctx, c->tid) : NULL;
		uint64_t total = c->exit_ns - c->enter_ns, known = 0;
		const char *path;

		for (int k = 0; k < NR_FSYNC_PARTS; k++)
			known += c->part[k];
		table_row(t);
		table_f64(t, c->exit_ns >= a->env.t0_ns
				 ? (double)(c->exit_ns - a->env.t0_ns) / 1e9
				 : 0);
		table_u64(t, c->enter_ns);
		table_u64(t, c->exit_ns);
		table_u64(t, c->pid);
		table_u64(t, c->tid);
		table_str(t, "%s", e && e->comm[0] ? e->comm : "?");
		table_str(t, "%s", c->datasync ? "fdatasync" : "fsync");
		if (c->dev)
			table_str(t, "%u:%u", c->dev >> 20, c->dev & 0xfffff);
		else
			table_str(t, "-");
		table_u64(t, c->ino);
		if (c->ret == IOT_RET_UNKNOWN) /* an estimated exit */
			table_na(t);
		else
			table_i64(t, c->ret);
		table_u64(t, total);
		table_u64(t, c->part[FSYNC_DATA]);
		table_u64(t, c->part[FSYNC_JOURNAL]);
		table_u64(t, c->part[FSYNC_FLUSH]);
		if (c->wake_ns)
			table_u64(t, c->part[FSYNC_WAKE]);
		else
			table_na(t);
		table_u64(t, total - known);
		table_u64(t, c->data_bytes);
		path = a->env.file_path && c->dev && c->ino
			   ? a->env.file_path(a->env.ctx, c->dev, c->ino)
			   : NULL;
		table_str(t, "%s", path ? path : "");
	}
	if (!p->nr_calls)
		table_note(t, "# no fsync or fdatasync call in this trace (system calls "
			      "are recorded for the command, -p tasks, or every task "
			      "without either; not with --summary or --aggregate)\n");
	else if (!p->any_commit)
		table_note(t,
			   "# no journal commit in this trace (none ran, the "
			   "filesystem has no jbd2 journal, or it was recorded before "
			   "trace format 1.4): journal time is that of the journal's own "
			   "requests\n");
	else
		table_note(t, "# flush: cache flushes of the file's disk; journal: "
			      "the commits of its filesystem and the journal's writes; "
			      "data: its pages' writes and the caller's; wake: from the "
			      "caller's last wakeup to its return (waiting for a CPU); "
			      "other: the rest. Each instant counts once, in the order "
			      "wake, flush, journal, data.\n");
	return 0;
}

static void release(void *priv)
{
	struct fsync_priv *p = priv;

	for (int c = 0; c < 2; c++)
		for (int m = 0; m < NR_M; m++)
			metric_release(&p->m[c][m]);
	free(p->spans);
	free(p->calls);
	free(p->ivs);
}

const struct analyzer an_fsync = {
    .name = "fsync",
    .help = "each fsync and fdatasync call split into data, journal, flush "
	    "and other time",
    .priv_size = sizeof(struct fsync_priv),
    .metric_unit = "us",
    .init = init,
    .request = request,
    .bio = bio,
    .syscall = syscall,
    .commit = commit,
    .merge = merge,
    .finish = finish,
    .release = release,
};
