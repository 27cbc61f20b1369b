// SPDX-License-Identifier: GPL-2.0
/*
 * who: requests, bytes and latency by task, cgroup, file and cause
 * (`report -a who --by task,cgroup,file,cause`, any of them, in the order
 * given). Each bio counts for its row (docs/ATTRIBUTION.md):
 *   task    the task on whose behalf it was done: for writeback of a file's
 *           pages, the task that dirtied its first page while recording
 *           (IOT_EV_DIRTY; "(dirtied unseen)" when that was before the
 *           recording or by a task not traced); else the task that queued it;
 *   cgroup  the bio's blkcg (what the kernel's blkio / io counters charge);
 *   file    the inode of its first page, or of the system call that queued
 *           it (direct I/O); "metadata" (a block device's buffer cache) and
 *           "journal" where that is what it is;
 *   cause   IOT_CAUSE_* and the writeback reason.
 * A request counts once, for its first bio's row; Q2C is per bio, D2C per
 * request, syscall latency per task (with --by task alone).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../layout/layout.h"
#include "../trace/cause.h"
#include "../util/grow.h"
#include "../util/u64map.h"
#include "analyzer.h"
#include "who.h"

enum who_key { K_TASK, K_CGROUP, K_FILE, K_CAUSE, NR_KEYS };
static const char *const key_names[NR_KEYS] = {"task", "cgroup", "file", "cause"};

struct who_row {
	uint32_t pid, tid; /* 0: unseen dirtier */
	uint32_t cgroup;
	uint32_t dev;
	uint64_t ino;
	uint8_t host, cause, wb; /* file kind, cause */
	uint64_t bytes[NR_OPG], requests[NR_OPG], flushes;
	/* --by task: the bytes its read calls returned, and how many of the
	 * calls waited for a bio of their own */
	uint64_t call_read_bytes, read_calls, read_calls_io;
	bool calls; /* a row of calls (--by task, file or both) */
	/* pages read ahead (cause readahead) into the page cache for this
	 * row, and of those: read by a read call or faulted in later, or
	 * mapped by fault-around (touched or not: unknown) */
	uint64_t ra_pages, ra_used, ra_mapped;
	struct metric q2c, d2c, sys;
};

/* A part's (analysis.h) use or read again of a page it did not read ahead
 * itself: for its merge, to apply to the pages read ahead before it */
struct ra_op {
	uint64_t key;
	enum { RA_USED, RA_MAPPED, RA_REREAD } what;
};

/* In a part's ra: a page it read ahead, then used or read again. Its
 * merge then takes the page read ahead before it off too (the part's read
 * took its place). */
#define RA_GONE UINT32_MAX

struct who_priv {
	enum who_key keys[NR_KEYS];
	int nr_keys;
	bool any_info; /* some bio had a BIO_INFO */
	uint64_t bios;
	struct u64map rows_by_key; /* hash of the keys -> row + 1 */
	struct who_row *rows;
	size_t nr, cap;
	const struct join_request *cur; /* the request whose bios follow */
	/* pages read ahead and not yet used: (disk, inode, index) -> row */
	struct u64map ra;
	struct ra_op *ops; /* a part's, in order */
	size_t nr_ops, cap_ops;
	struct column *cols;
	size_t nr_cols;
};

static bool has_key(const struct who_priv *p, enum who_key k)
{
	for (int i = 0; i < p->nr_keys; i++)
		if (p->keys[i] == k)
			return true;
	return false;
}

static int init(struct analysis *a, struct an_output *o)
{
	struct who_priv *p = o->priv;
	const char *by = a->env.who_by ? a->env.who_by : "task";
	char buf[128], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", by);
	for (char *k = strtok_r(buf, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
		int i;

		for (i = 0; i < NR_KEYS && strcmp(k, key_names[i]); i++)
			;
		if (i == NR_KEYS) {
			snprintf(a->errmsg, sizeof(a->errmsg),
				 "--by %s: '%s' is not task, cgroup, file or cause", by,
				 k);
			return -EINVAL;
		}
		if (!has_key(p, (enum who_key)i))
			p->keys[p->nr_keys++] = (enum who_key)i;
	}
	if (!p->nr_keys) {
		snprintf(a->errmsg, sizeof(a->errmsg),
			 "--by '%s': no key (task, cgroup, file, cause)", by);
		return -EINVAL;
	}
	return u64map_init(&p->rows_by_key, 64) || u64map_init(&p->ra, 1024) ? -ENOMEM
									     : 0;
}

/* ---- pages read ahead, and their use ------------------------------------------------
 */

static uint64_t ra_key(uint32_t disk, uint64_t ino, uint64_t index)
{
	uint64_t k = (ino * 0x9e3779b97f4a7c15ull) ^
		     ((index + 1) * 0xc2b2ae3d27d4eb4full) ^
		     ((uint64_t)disk * 0x165667b19e3779f9ull);

	return k ? k : 1;
}

/* The disk a filesystem's st_dev lives on (bios name disks). */
static uint32_t disk_of(const struct analysis *a, uint32_t st_dev)
{
	const struct iot_dev_entry *e =
	    a->env.dev_entry ? a->env.dev_entry(a->env.ctx, st_dev) : NULL;

	return e && e->disk_dev ? e->disk_dev : st_dev;
}

/* A page's entry in ra found (v) or not: its use or read again applied
 * (counted on its row, the entry gone), or in a part, kept for the merge
 * when the page is not one the part read ahead. 0 or -ENOMEM. */
static int ra_apply(const struct analysis *a, struct who_priv *p, uint64_t key,
		    uint32_t *v, int what)
{
	if (!v) {
		if (!a->whole)
			return 0;
		if (GROW(p->ops, p->nr_ops + 1, p->cap_ops))
			return -ENOMEM;
		p->ops[p->nr_ops++] = (struct ra_op){key, what};
		return 0;
	}
	if (*v == RA_GONE)
		return 0;
	if (what == RA_MAPPED)
		p->rows[*v].ra_mapped++;
	else if (what == RA_USED)
		p->rows[*v].ra_used++;
	if (a->whole)
		*v = RA_GONE;
	else
		u64map_del(&p->ra, key);
	return 0;
}

/* A read of pages index .. index + n - 1 of a file, into the page cache: a
 * page read ahead earlier and read again was never used; pages of a bio of
 * cause readahead are read ahead for row ri. */
static void ra_read(struct analysis *a, struct who_priv *p, uint32_t disk, uint64_t ino,
		    uint64_t index, uint64_t n, bool ahead, uint32_t ri)
{
	for (uint64_t k = 0; k < n; k++) {
		uint64_t key = ra_key(disk, ino, index + k);

		if (ahead) {
			if (u64map_put(&p->ra, key, ri)) {
				analysis_note_err(a, -ENOMEM);
				return;
			}
			p->rows[ri].ra_pages++;
		} else if (ra_apply(a, p, key, u64map_get(&p->ra, key), RA_REREAD)) {
			analysis_note_err(a, -ENOMEM);
			return;
		}
	}
}

/* Pages of a file used (read, faulted) or mapped by fault-around. */
static void ra_use(struct analysis *a, struct who_priv *p, uint32_t disk, uint64_t ino,
		   uint64_t index, uint64_t n, bool mapped)
{
	if (!p->ra.n && !a->whole)
		return;
	for (uint64_t k = 0; k < n; k++) {
		uint64_t key = ra_key(disk, ino, index + k);

		if (ra_apply(a, p, key, u64map_get(&p->ra, key),
			     mapped ? RA_MAPPED : RA_USED)) {
			analysis_note_err(a, -ENOMEM);
			return;
		}
	}
}

static void request(struct analysis *a, void *priv, struct dev_result *d,
		    const struct join_request *r)
{
	((struct who_priv *)priv)->cur = r;
}

/* The row's identity for one bio, in a row template. */
static void identify(const struct analysis *a, const struct join_request *r,
		     const struct join_bio *b, struct who_row *w)
{
	const struct join_why *y = &b->why;

	memset(w, 0, sizeof(*w));
	w->cause = y->cause;
	w->wb = y->wb;
	w->cgroup = y->cgroup;
	w->dev = r->dev;
	w->host = y->host;
	if (y->cause == IOT_CAUSE_WRITEBACK && y->host == IOT_HOST_REG) {
		w->pid = y->dirtier_pid;
		w->tid = y->dirtier_tid;
	} else {
		w->pid = b->pid ? b->pid : r->pid;
		w->tid = b->tid;
	}
	if (y->host == IOT_HOST_REG) {
		w->ino = y->ino;
	} else if (y->cause == IOT_CAUSE_DIRECT && b->ino) {
		w->ino = b->ino; /* the caller's pages: the file is the call's */
		w->host = IOT_HOST_REG;
	}
}

static uint64_t row_key(const struct who_priv *p, const struct who_row *w)
{
	uint64_t h = 0x9e3779b97f4a7c15ull;

#define MIX(v) (h = (h ^ (uint64_t)(v)) * 0xff51afd7ed558ccdull, h ^= h >> 31)
	if (has_key(p, K_TASK))
		MIX(w->pid), MIX(w->pid ? 1 : w->tid);
	if (has_key(p, K_CGROUP))
		MIX(w->cgroup);
	if (has_key(p, K_FILE))
		MIX(w->dev), MIX(w->ino), MIX(w->host);
	if (has_key(p, K_CAUSE))
		MIX(w->cause), MIX(w->wb);
#undef MIX
	return h ? h : 1;
}

static struct who_row *row_of(struct analysis *a, struct who_priv *p,
			      const struct who_row *tmpl)
{
	uint64_t k = row_key(p, tmpl);
	uint32_t *v = u64map_get(&p->rows_by_key, k);
	struct who_row *w;

	if (v)
		return &p->rows[*v];
	if (GROW(p->rows, p->nr + 1, p->cap) ||
	    u64map_put(&p->rows_by_key, k, (uint32_t)p->nr)) {
		analysis_note_err(a, -ENOMEM);
		return NULL;
	}
	w = &p->rows[p->nr++];
	*w = *tmpl;
	metric_init(&w->q2c, "who", "q2c", "ns", false);
	metric_init(&w->d2c, "who", "d2c", "ns", false);
	metric_init(&w->sys, "who", "syscall", "ns", false);
	return w;
}

static void bio(struct analysis *a, void *priv, struct dev_result *d,
		const struct join_request *r, const struct join_bio *b)
{
	struct who_priv *p = priv;
	struct who_row tmpl, *w;
	int op = opg_of(r->flags);
	bool first = p->cur == r;

	p->cur = NULL;
	p->bios++;
	p->any_info |= b->why.known;
	identify(a, r, b, &tmpl);
	w = row_of(a, p, &tmpl);
	if (!w)
		return;
	if (op >= 0)
		w->bytes[op] += (uint64_t)b->nr_sectors * 512;
	if (op == OPG_READ && b->why.host == IOT_HOST_REG && b->why.ino)
		ra_read(a, p, r->dev, b->why.ino, b->why.index,
			((uint64_t)b->nr_sectors + 7) / 8,
			b->why.cause == IOT_CAUSE_READAHEAD, (uint32_t)(w - p->rows));
	if (first) {
		if (b->why.cause == IOT_CAUSE_FLUSH ||
		    (r->flags & IOT_OP_MASK) == IOT_OP_FLUSH)
			w->flushes++;
		else if (op >= 0)
			w->requests[op]++;
		if (r->d_ns && r->c_ns >= r->d_ns)
			analysis_note_err(a, metric_add(&w->d2c, 0, r->c_ns - r->d_ns));
	}
	if (b->q_ns && r->c_ns >= b->q_ns)
		analysis_note_err(a, metric_add(&w->q2c, 0, r->c_ns - b->q_ns));
}

static void syscall(struct analysis *a, void *priv, const struct join_syscall *s)
{
	struct who_priv *p = priv;
	struct who_row tmpl = {0}, *w;
	bool rd = analysis_syscall_is_read(a, s->nr) && s->ret > 0;
	uint32_t disk = disk_of(a, s->dev);

	/* the pages it read: read ahead before, now used */
	if (rd && s->ino && s->pos != ~0ull)
		ra_use(a, p, disk, s->ino, s->pos / 4096,
		       (s->pos + (uint64_t)s->ret - 1) / 4096 - s->pos / 4096 + 1, false);
	/* a call has a task and a file: with other keys it has no row */
	if (has_key(p, K_CGROUP) || has_key(p, K_CAUSE) || !s->pid ||
	    (has_key(p, K_FILE) && !s->ino))
		return;
	if (has_key(p, K_TASK)) {
		tmpl.pid = s->pid;
		tmpl.tid = s->tid;
	}
	if (has_key(p, K_FILE)) {
		tmpl.dev = disk;
		tmpl.ino = s->ino;
		tmpl.host = IOT_HOST_REG;
	}
	w = row_of(a, p, &tmpl);
	if (!w)
		return;
	w->calls = true;
	if (s->exit_ns >= s->enter_ns)
		analysis_note_err(a, metric_add(&w->sys, 0, s->exit_ns - s->enter_ns));
	if (analysis_syscall_is_read(a, s->nr) && s->ret >= 0) {
		w->call_read_bytes += (uint64_t)s->ret;
		w->read_calls++;
		w->read_calls_io += s->nr_bios > 0;
	}
}

static void fault(struct analysis *a, void *priv, const struct join_fault *f)
{
	struct who_priv *p = priv;

	ra_use(a, p, disk_of(a, f->dev), f->ino, f->index, f->pages, f->around);
}

/* A later part into this: its rows (new ones after, in its order), then
 * its uses and reads again of pages read ahead before it, then the pages
 * it read ahead itself, still unused (now its rows' here) or gone */
static int merge(struct analysis *a, void *priv, const struct analysis *src,
		 void *src_priv, const size_t *devmap)
{
	struct who_priv *p = priv, *s = src_priv;
	uint32_t *rowmap = malloc((s->nr ? s->nr : 1) * sizeof(*rowmap));

	if (!rowmap)
		return -ENOMEM;
	for (size_t i = 0; i < s->nr; i++) {
		struct who_row *x = &s->rows[i];
		struct who_row tmpl = {.pid = x->pid,
				       .tid = x->tid,
				       .cgroup = x->cgroup,
				       .dev = x->dev,
				       .ino = x->ino,
				       .host = x->host,
				       .cause = x->cause,
				       .wb = x->wb},
			       *w = row_of(a, p, &tmpl);

		if (!w) {
			free(rowmap);
			return -ENOMEM;
		}
		rowmap[i] = (uint32_t)(w - p->rows);
		for (int op = 0; op < NR_OPG; op++) {
			w->bytes[op] += x->bytes[op];
			w->requests[op] += x->requests[op];
		}
		w->flushes += x->flushes;
		w->call_read_bytes += x->call_read_bytes;
		w->read_calls += x->read_calls;
		w->read_calls_io += x->read_calls_io;
		w->calls |= x->calls;
		w->ra_pages += x->ra_pages;
		w->ra_used += x->ra_used;
		w->ra_mapped += x->ra_mapped;
		if (metric_take(&w->q2c, &x->q2c) || metric_take(&w->d2c, &x->d2c) ||
		    metric_take(&w->sys, &x->sys)) {
			free(rowmap);
			return -ENOMEM;
		}
	}
	p->bios += s->bios;
	p->any_info |= s->any_info;
	for (size_t i = 0; i < s->nr_ops; i++) /* p is no part: nothing kept */
		ra_apply(a, p, s->ops[i].key, u64map_get(&p->ra, s->ops[i].key),
			 s->ops[i].what);
	for (size_t i = 0; i <= s->ra.mask; i++) {
		const struct u64slot *e = &s->ra.slots[i];

		if (!e->key) /* ra_key is never 0 */
			continue;
		if (e->val == RA_GONE)
			u64map_del(&p->ra, e->key);
		else if (u64map_put(&p->ra, e->key, rowmap[e->val])) {
			free(rowmap);
			return -ENOMEM;
		}
	}
	free(rowmap);
	return 0;
}

static int cmp_bytes(const void *x, const void *y)
{
	const struct who_row *a = x, *b = y;
	uint64_t ba = a->bytes[0] + a->bytes[1], bb = b->bytes[0] + b->bytes[1];

	if (ba != bb)
		return ba < bb ? 1 : -1;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return (a->ino > b->ino) - (a->ino < b->ino);
}

static const struct column key_cols[][3] = {
    [K_TASK] = {{"pid", "PID", 7, CELL_U64}, {"comm", "COMM", -16, CELL_STR}},
    [K_CGROUP] = {{"cgroup_id", "CGID", 6, CELL_U64},
		  {"cgroup", "CGROUP", -24, CELL_STR}},
    [K_FILE] = {{"dev", "DEV", -8, CELL_STR},
		{"inode", "INODE", 9, CELL_U64},
		{"path", "FILE", -24, CELL_STR}},
    [K_CAUSE] = {{"cause", "CAUSE", -20, CELL_STR}},
};

#define STAGE_COLS(name, head)                                                             \
	{name "_count", head "_N", 7, CELL_U64, IN_PROGRAMS, 0, 0, 0, name, "count"},      \
	    {name "_avg_ns", head "_AVG", 9, CELL_F64, IN_ALL, 1, 1e3, 1, name, "avg_ns"}, \
	    {name "_p50_ns", head "_P50", 9, CELL_U64, IN_PROGRAMS, 0, 1e3, 1,             \
	     name,	     "p50_ns"},                                                    \
	    {name "_p99_ns", head "_P99", 9, CELL_U64, IN_ALL, 0, 1e3, 1, name, "p99_ns"}, \
	{                                                                                  \
		name "_max_ns", head "_MAX", 9, CELL_U64, IN_PROGRAMS, 0, 1e3, 1, name,    \
		    "max_ns"                                                               \
	}

static const struct column value_cols[] = {
    {"read_bytes", "READ_KB", 10, CELL_U64, IN_ALL, 0, 1024, 0},
    {"write_bytes", "WRITE_KB", 10, CELL_U64, IN_ALL, 0, 1024, 0},
    {"read_requests", "READS", 7, CELL_U64},
    {"write_requests", "WRITES", 7, CELL_U64},
    {"flush_requests", "FLUSH", 6, CELL_U64},
    /* --by task: what its read calls got from the page cache */
    {"cache_read_bytes", "CACHE_KB", 9, CELL_U64, IN_ALL, 0, 1024, 0},
    {"read_calls", "RCALLS", 7, CELL_U64},
    {"read_calls_io", "RC_IO", 6, CELL_U64},
    /* pages read ahead for the row, and how many were used */
    {"readahead_bytes", "RA_KB", 8, CELL_U64, IN_ALL, 0, 1024, 0},
    {"readahead_used_bytes", "RA_USED", 8, CELL_U64, IN_ALL, 0, 1024, 0},
    {"readahead_mapped_bytes", "RA_MAP", 7, CELL_U64, IN_ALL, 0, 1024, 0},
    STAGE_COLS("q2c", "Q2C"),
    STAGE_COLS("d2c", "D2C"),
    STAGE_COLS("syscall", "SYS"),
};
#define NR_STAGE_COLS 5

static void stage_cells(struct analysis *a, struct table *t, struct metric *m)
{
	if (!m->n) {
		for (int i = 0; i < NR_STAGE_COLS; i++)
			table_na(t);
		return;
	}
	analysis_note_err(a, metric_finish(m));
	analysis_note_metric(a, m);
	table_u64(t, m->st.count);
	table_f64(t, m->st.avg);
	table_u64(t, m->st.p50);
	table_u64(t, m->st.p99);
	table_u64(t, m->st.max);
}

/* --layout's path of the inode, else the recorder's (the FILES chunk) */
static const char *path_of(const struct analysis *a, uint32_t dev, uint64_t ino)
{
	const struct frag_scan *l = a->env.layout;

	for (size_t i = 0; l && i < l->nr_files; i++)
		if (l->files[i].ino == ino)
			return l->files[i].path;
	return a->env.file_path ? a->env.file_path(a->env.ctx, dev, ino) : NULL;
}

static void key_cells(struct analysis *a, struct table *t, const struct who_priv *p,
		      const struct who_row *w)
{
	for (int k = 0; k < p->nr_keys; k++) {
		switch (p->keys[k]) {
		case K_TASK: {
			/* rows are processes: the process's name (its io_uring
			 * and other worker threads have their own) */
			const struct iot_task_entry *e =
			    w->pid && a->env.task_entry
				? a->env.task_entry(a->env.ctx, w->pid)
				: NULL;

			if ((!e || !e->comm[0]) && w->tid && a->env.task_entry)
				e = a->env.task_entry(a->env.ctx, w->tid);

			table_u64(t, w->pid);
			if (!w->pid && !w->tid)
				table_str(t, "(dirtied unseen)");
			else
				table_str(t, "%s", e && e->comm[0] ? e->comm : "?");
			break;
		}
		case K_CGROUP: {
			const char *path = a->env.cgroup_path
					       ? a->env.cgroup_path(a->env.ctx, w->cgroup)
					       : NULL;

			table_u64(t, w->cgroup);
			table_str(t, "%s", path ? path : w->cgroup ? "?" : "-");
			break;
		}
		case K_FILE: {
			const char *path = w->ino ? path_of(a, w->dev, w->ino) : NULL;

			table_str(t, "%s", analysis_dev_name(a, w->dev));
			table_u64(t, w->ino);
			if (w->cause == IOT_CAUSE_JOURNAL)
				table_str(t, "(journal)");
			else if (w->host == IOT_HOST_BLK || w->host == IOT_HOST_DIR)
				table_str(t, "(metadata)");
			else if (w->host == IOT_HOST_ANON)
				table_str(t, "(anonymous)");
			else if (!w->ino)
				table_str(t, "-");
			else
				table_str(t, "%s", path ? path : "");
			break;
		}
		case K_CAUSE:
			if (w->wb && w->cause == IOT_CAUSE_WRITEBACK)
				table_str(t, "%s/%s", iot_cause_name(w->cause),
					  iot_wb_name(w->wb));
			else
				table_str(t, "%s", iot_cause_name(w->cause));
			break;
		default:
			break;
		}
	}
}

bool who_key_column(const char *key, const char *col)
{
	for (int k = 0; k < NR_KEYS; k++)
		if (!strcmp(key_names[k], key))
			for (int c = 0; c < 3 && key_cols[k][c].key; c++)
				if (!strcmp(key_cols[k][c].key, col))
					return true;
	return false;
}

static int finish(struct analysis *a, struct an_output *o)
{
	struct who_priv *p = o->priv;
	struct table *t;
	size_t n = 0, top = a->env.top ? a->env.top : p->nr;
	char by[64] = "";

	for (int k = 0; k < p->nr_keys; k++)
		for (int c = 0; c < 3 && key_cols[p->keys[k]][c].key; c++)
			n++;
	p->cols =
	    calloc(n + sizeof(value_cols) / sizeof(value_cols[0]), sizeof(*p->cols));
	if (!p->cols)
		return -ENOMEM;
	for (int k = 0; k < p->nr_keys; k++) {
		for (int c = 0; c < 3 && key_cols[p->keys[k]][c].key; c++)
			p->cols[p->nr_cols++] = key_cols[p->keys[k]][c];
		snprintf(by + strlen(by), sizeof(by) - strlen(by), "%s%s", k ? "," : "",
			 key_names[p->keys[k]]);
	}
	memcpy(p->cols + p->nr_cols, value_cols, sizeof(value_cols));
	p->nr_cols += sizeof(value_cols) / sizeof(value_cols[0]);
	t = an_output_table(a, o, "who", p->cols, p->nr_cols);
	if (!t)
		return -ENOMEM;
	snprintf(t->json_by, sizeof(t->json_by), "%s", by);
	snprintf(t->title, sizeof(t->title),
		 "Who: bytes, requests and latency (us) by %s", by);
	if (p->bios && !p->any_info) {
		/* a trace without BIO_INFO: no row would be right */
		t->note = strdup(
		    "# this trace has no cause records (recorded before "
		    "trace format 1.3, or with --summary/--aggregate/--speculate): "
		    "who cannot say task, file, cgroup or cause\n");
		return 0;
	}
	if (p->nr)
		qsort(p->rows, p->nr, sizeof(*p->rows), cmp_bytes);
	/* the index map points at unsorted rows: not used from here on */
	for (size_t i = 0; i < p->nr && i < top; i++) {
		struct who_row *w = &p->rows[i];

		if (!w->bytes[OPG_READ] && !w->bytes[OPG_WRITE] &&
		    !w->requests[OPG_READ] && !w->requests[OPG_WRITE] && !w->flushes &&
		    !w->call_read_bytes)
			continue; /* no I/O at all: neither a disk nor the cache */
		table_row(t);
		key_cells(a, t, p, w);
		table_u64(t, w->bytes[OPG_READ]);
		table_u64(t, w->bytes[OPG_WRITE]);
		table_u64(t, w->requests[OPG_READ]);
		table_u64(t, w->requests[OPG_WRITE]);
		table_u64(t, w->flushes);
		if (w->calls) {
			/* what the calls returned beyond what the device read
			 * for the task (direct, read, read-ahead, faults) */
			table_u64(t, w->call_read_bytes > w->bytes[OPG_READ]
					 ? w->call_read_bytes - w->bytes[OPG_READ]
					 : 0);
			table_u64(t, w->read_calls);
			table_u64(t, w->read_calls_io);
		} else {
			table_na(t);
			table_na(t);
			table_na(t);
		}
		table_u64(t, w->ra_pages * 4096);
		table_u64(t, w->ra_used * 4096);
		table_u64(t, w->ra_mapped * 4096);
		stage_cells(a, t, &w->q2c);
		stage_cells(a, t, &w->d2c);
		stage_cells(a, t, &w->sys);
	}
	return 0;
}

static void release(void *priv)
{
	struct who_priv *p = priv;

	for (size_t i = 0; i < p->nr; i++) {
		metric_release(&p->rows[i].q2c);
		metric_release(&p->rows[i].d2c);
		metric_release(&p->rows[i].sys);
	}
	u64map_release(&p->rows_by_key);
	u64map_release(&p->ra);
	free(p->ops);
	free(p->rows);
	free(p->cols);
}

const struct analyzer an_who = {
    .name = "who",
    .help = "bytes, requests and latency by task, cgroup, file and cause "
	    "(--by task,cgroup,file,cause; writeback charged to the dirtier)",
    .priv_size = sizeof(struct who_priv),
    .init = init,
    .request = request,
    .bio = bio,
    .syscall = syscall,
    .fault = fault,
    .merge = merge,
    .finish = finish,
    .release = release,
};
