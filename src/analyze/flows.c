// SPDX-License-Identifier: GPL-2.0
/*
 * flows: one I/O followed from what asked for it to every device that
 * served it, the devices stacked below included (`iotrail flows`,
 * `report -a flows`; docs/FLOWS.md).
 *
 * A flow starts at a system call (the bios its task queued between its
 * enter and exit: the join's tie), an io_uring request (its io_kiocb), or,
 * for I/O no traced call asked for, at the request itself with the cause
 * its bio's BIO_INFO names (readahead, writeback, the journal, ...).
 * Every request of a flow carries it; a request on a loop device hands it
 * on to the requests of the disk below that read or wrote the loop's
 * backing file at the pages the upper request maps to: the kernel's
 * page -> inode identity of the lower bio (BIO_INFO), queued while the
 * upper request was in the loop driver (between its D and C). A loop with
 * direct I/O reads into the upper request's own pages, which are not
 * recorded: its lower requests are not followed, and the output says so.
 *
 * Everything is kept until the end (a flow's parts complete in any order):
 * memory grows with the requests of the trace, about 290 bytes each
 * (bench/flows_analyzer.sh; report --time analyses a window of a long
 * trace, what ended in it alone). So on the join's segments a part only keeps
 * its outputs too, and the merge appends them; all the linking is done
 * once, at finish. What crosses a part's start is a task's pages made
 * dirty before its next call: a part keeps the first call of each task
 * that it has no other reason to keep, and the merge drops those whose
 * task dirtied nothing in the parts before.
 */
#include <stdlib.h>
#include <string.h>

#include "../trace/cause.h"
#include "../util/grow.h"
#include "../util/u64map.h"
#include "analyzer.h"
#include "flows.h"

#define PAGE_SECTORS 8ull /* a 4 KiB page in 512-byte sectors */
#define NO_IDX	     UINT32_MAX
#define MAX_STACK    32
#define MAX_SEG	     12 /* the call, then 2 per device down a stack of 5 */

struct fl_bio {
	uint64_t q_ns, sys_enter, uring, ino, index, sector;
	uint32_t tid, pid, nr;
	uint32_t flow; /* its flow's index, set at the end */
	uint16_t cpu;
	uint8_t host, cause, known;
	bool by_pages; /* flow: the first call that dirtied its pages */
};

struct fl_req {
	struct join_request r;
	uint32_t bio0, nbio;	  /* its bios in fl_priv.bios */
	uint32_t up;		  /* the upper request it serves, or NO_IDX */
	uint32_t mem0, nr_mem;	  /* its flows in fl_priv.mems: every flow whose
				     bios were merged into it */
	uint32_t crit;		  /* the lower request it waited for that completed
				     last, NO_IDX */
	uint32_t link0, nr_links; /* its links in fl_priv.links */
};

/* an upper request and a lower request that read or wrote its pages */
struct fl_link {
	uint32_t up, lo;
	bool waited; /* the lower request was still in flight at the upper's
			issue: the upper waited for it; else the pages were
			in the backing file's page cache by then */
};

/* a lower bio of a backing file: its pages */
struct fl_page_run {
	uint64_t first, last; /* pages [first, last) */
	uint64_t q_ns;
	uint32_t lo;
};

/* a loop device and its backing file (META stack=) */
struct fl_stack {
	uint32_t dev, disk; /* the loop; the disk under its backing file */
	uint64_t ino, offset;
	bool dio, known_disk;
};

enum fl_kind { FK_SYSCALL, FK_URING, FK_FAULT, FK_CAUSE };

struct fl_uring {
	struct join_uring u;
};

/* a task's pages made dirty since its last call (the next call made
 * them); in a part, whether a call of it was seen there */
struct fl_task {
	uint64_t tid;
	uint32_t pages;
	bool called;
};

/* a page a traced task made dirty (one per page) */
struct fl_dirty {
	uint64_t ino, index, ts;
	uint32_t tid;
};

/* a traced task's page fault on a file's page (not fault-around) */
struct fl_fault {
	uint64_t ts, ino, index;
	uint32_t tid, pid, dev;
};

/* a request's flow */
struct fl_mem {
	uint32_t flow;
	uint32_t pages; /* by dirtied pages: how many of the request's (else 0) */
};

struct flow {
	uint8_t kind;
	uint32_t root; /* syscall, uring or (FK_CAUSE) request index */
	uint32_t tid, pid;
	uint64_t start, end;
	uint64_t bytes;
	uint32_t nr_reqs, nr_lower;
	uint32_t first_req; /* the first of its top requests (in reqs order) */
	uint32_t bio;	    /* its first bio there, NO_IDX when it has none */
	uint32_t nr_shared; /* its requests that carry other flows too */
	uint32_t crit;	    /* the top request that completed last */
	/* where the time went on its critical path: fl_priv.segs */
	uint32_t seg0;
	uint8_t nr_seg;
};

/* a part of a flow's critical path */
struct fl_seg {
	uint64_t ns;
	uint32_t dev;
	uint8_t layer;
};

enum fl_layer {
	FL_SYSCALL,
	FL_FAULT,
	FL_CACHE,
	FL_QUEUE,
	FL_DEVICE,
	FL_LOOP,
	NR_FL_LAYERS
};
static const char *const layer_names[NR_FL_LAYERS] = {"syscall", "fault",  "cache",
						      "queue",	 "device", "loop"};

struct fl_priv {
	struct fl_req *reqs;
	size_t nr_reqs, cap_reqs;
	struct fl_bio *bios;
	size_t nr_bios, cap_bios;
	struct join_syscall *sys;
	size_t nr_sys, cap_sys;
	struct fl_uring *urings;
	size_t nr_urings, cap_urings;
	struct flow *flows;
	size_t nr_flows, cap_flows;
	struct fl_link *links;
	size_t nr_links, cap_links;
	struct fl_mem *mems; /* the flows of each top request (fl_req.mem0) */
	size_t nr_mems, cap_mems;
	struct fl_seg *segs; /* the flows' parts, each flow's together */
	size_t nr_segs, cap_segs;
	bool nomem;
	struct fl_dirty *dirty;
	size_t nr_dirty, cap_dirty;
	struct fl_fault *faults;
	size_t nr_faults, cap_faults;
	struct fl_task *tasks;
	size_t nr_tasks, cap_tasks;
	struct u64map task_of; /* tid -> its index in tasks */
	/* a part: the calls in sys kept only for pages their task may have
	 * dirtied before the part (ascending indices) */
	uint32_t *maybe;
	size_t nr_maybe, cap_maybe;
	uint32_t lead; /* a part: its bios before its first request */
	uint32_t *sel; /* the chosen flows, in the flows table's order */
	size_t nr_sel;
	struct fl_stack stack[MAX_STACK];
	int nr_stack;
	uint64_t lower_linked, lower_unlinked, dio_unfollowed, no_disk;
	/* requests never completed (the join's, at the trace's end) */
	struct join_request *unf;
	size_t nr_unf, cap_unf;
};

/* META stack=: "loop1 7:1 on 7:0 ino 12 offset 0 dio 0; ..." */
static void parse_stack(struct analysis *a, struct fl_priv *p)
{
	const char *s = a->env.stack;

	while (s && *s && p->nr_stack < MAX_STACK) {
		struct fl_stack *st = &p->stack[p->nr_stack];
		unsigned int ma, mi, fma, fmi;
		unsigned long long ino, off;
		int dio, n = 0;
		const struct iot_dev_entry *e;

		if (sscanf(s, "%*s %u:%u on %u:%u ino %llu offset %llu dio %d%n", &ma,
			   &mi, &fma, &fmi, &ino, &off, &dio, &n) == 7 &&
		    n) {
			st->dev = ma << 20 | mi;
			st->ino = ino;
			st->offset = off;
			st->dio = dio;
			e = a->env.dev_entry
				? a->env.dev_entry(a->env.ctx, fma << 20 | fmi)
				: NULL;
			st->known_disk = e != NULL;
			st->disk = e ? e->disk_dev : 0;
			p->nr_stack++;
		}
		s = strchr(s, ';');
		if (s)
			s++;
	}
}

static int init(struct analysis *a, struct an_output *o)
{
	struct fl_priv *p = o->priv;

	parse_stack(a, p);
	return u64map_init(&p->task_of, 64);
}

static void request(struct analysis *a, void *priv, struct dev_result *d,
		    const struct join_request *r)
{
	struct fl_priv *p = priv;

	(void)d;
	if (GROW(p->reqs, p->nr_reqs + 1, p->cap_reqs)) {
		analysis_note_err(a, -ENOMEM);
		return;
	}
	p->reqs[p->nr_reqs++] = (struct fl_req){.r = *r,
						.bio0 = (uint32_t)p->nr_bios,
						.up = NO_IDX,
						.mem0 = NO_IDX,
						.crit = NO_IDX,
						.link0 = NO_IDX};
}

static void bio(struct analysis *a, void *priv, struct dev_result *d,
		const struct join_request *r, const struct join_bio *b)
{
	struct fl_priv *p = priv;

	(void)d;
	(void)r;
	/* a bio is its last request's; a part's first ones, before any
	 * request of its own, the last one of the parts before */
	if ((!p->nr_reqs && !a->whole) || GROW(p->bios, p->nr_bios + 1, p->cap_bios)) {
		analysis_note_err(a, p->nr_reqs || a->whole ? -ENOMEM : 0);
		return;
	}
	p->bios[p->nr_bios++] = (struct fl_bio){.q_ns = b->q_ns,
						.sys_enter = b->sys_enter_ns,
						.uring = b->uring_req,
						.flow = NO_IDX,
						.ino = b->why.ino,
						.index = b->why.index,
						.sector = b->sector,
						.tid = b->tid,
						.pid = b->pid,
						.nr = b->nr_sectors,
						.cpu = b->cpu,
						.host = b->why.host,
						.cause = b->why.cause,
						.known = b->why.known};
	if (p->nr_reqs)
		p->reqs[p->nr_reqs - 1].nbio++;
	else
		p->lead++;
}

/* tid's entry, made when it has none and make is set; NULL when it has
 * none, or out of memory */
static struct fl_task *task_of(struct fl_priv *p, uint64_t tid, bool make)
{
	uint32_t *i = u64map_get(&p->task_of, tid);

	if (i)
		return &p->tasks[*i];
	if (!make || GROW(p->tasks, p->nr_tasks + 1, p->cap_tasks) ||
	    u64map_put(&p->task_of, tid, (uint32_t)p->nr_tasks))
		return NULL;
	p->tasks[p->nr_tasks] = (struct fl_task){.tid = tid};
	return &p->tasks[p->nr_tasks++];
}

static void syscall(struct analysis *a, void *priv, const struct join_syscall *s)
{
	struct fl_priv *p = priv;
	/* a part: every task's first call, for the pages before it */
	struct fl_task *t = task_of(p, s->tid, a->whole != NULL);
	uint32_t n = t ? t->pages : 0;
	bool maybe = a->whole && t && !t->called && !s->nr_bios && !n;

	if (a->whole && !t) {
		analysis_note_err(a, -ENOMEM);
		return;
	}
	if (t) {
		t->pages = 0;
		t->called = true;
	}
	if (!s->nr_bios && !n && !maybe)
		return; /* no I/O of its own, no page made dirty: no flow */
	if (GROW(p->sys, p->nr_sys + 1, p->cap_sys) ||
	    (maybe && GROW(p->maybe, p->nr_maybe + 1, p->cap_maybe))) {
		analysis_note_err(a, -ENOMEM);
		return;
	}
	if (maybe)
		p->maybe[p->nr_maybe++] = (uint32_t)p->nr_sys;
	p->sys[p->nr_sys++] = *s;
}

static void dirty(struct analysis *a, void *priv, const struct join_dirty *d)
{
	struct fl_priv *p = priv;
	struct fl_task *t = task_of(p, d->tid, true);

	if (!t || GROW(p->dirty, p->nr_dirty + d->pages, p->cap_dirty)) {
		analysis_note_err(a, -ENOMEM);
		return;
	}
	t->pages += d->pages;
	for (uint32_t k = 0; k < d->pages; k++)
		p->dirty[p->nr_dirty++] =
		    (struct fl_dirty){d->ino, d->index + k, d->ts_ns, d->tid};
}

/* A part's outputs after priv's (analyzer.h): appended, its bios'
 * indices moved past priv's; of its calls kept for earlier pages, those
 * whose task dirtied pages after its last call before the part. */
static int merge(struct analysis *a, void *priv, const struct analysis *src,
		 void *src_priv, const size_t *devmap)
{
	struct fl_priv *p = priv, *q = src_priv;
	/* the part's first bios: the last request's before it, or none's */
	uint32_t drop = p->nr_reqs ? 0 : q->lead;
	size_t m = 0;

	(void)a;
	(void)src;
	(void)devmap;
	if (p->nr_reqs)
		p->reqs[p->nr_reqs - 1].nbio += q->lead;
	for (size_t i = 0; i < q->nr_reqs; i++)
		q->reqs[i].bio0 = q->reqs[i].bio0 - drop + (uint32_t)p->nr_bios;
	if (APPEND(p->reqs, p->nr_reqs, p->cap_reqs, q->reqs, q->nr_reqs) ||
	    APPEND(p->bios, p->nr_bios, p->cap_bios, q->bios + drop, q->nr_bios - drop) ||
	    GROW(p->sys, p->nr_sys + q->nr_sys, p->cap_sys))
		return -ENOMEM;
	for (size_t i = 0; i < q->nr_sys; i++) {
		if (m < q->nr_maybe && q->maybe[m] == i) {
			const struct fl_task *t = task_of(p, q->sys[i].tid, false);

			m++;
			if (!t || !t->pages)
				continue;
		}
		p->sys[p->nr_sys++] = q->sys[i];
	}
	/* then the pages each task dirtied since its last call */
	for (size_t i = 0; i < q->nr_tasks; i++) {
		const struct fl_task *qt = &q->tasks[i];
		struct fl_task *t = task_of(p, qt->tid, true);

		if (!t)
			return -ENOMEM;
		t->pages = qt->called ? qt->pages : t->pages + qt->pages;
	}
	if (APPEND(p->urings, p->nr_urings, p->cap_urings, q->urings, q->nr_urings) ||
	    APPEND(p->dirty, p->nr_dirty, p->cap_dirty, q->dirty, q->nr_dirty) ||
	    APPEND(p->faults, p->nr_faults, p->cap_faults, q->faults, q->nr_faults) ||
	    APPEND(p->unf, p->nr_unf, p->cap_unf, q->unf, q->nr_unf))
		return -ENOMEM;
	p->nomem |= q->nomem;
	return 0;
}

/* The first element of base[0..n) (sorted by cmp) that sorts after key:
 * the one before it is the last at or before key. */
static size_t upper_bound(const void *base, size_t n, size_t size, const void *key,
			  int (*cmp)(const void *, const void *))
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (cmp(key, (const char *)base + mid * size) >= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void fault(struct analysis *a, void *priv, const struct join_fault *f)
{
	struct fl_priv *p = priv;

	if (f->around)
		return; /* mapped pages already cached: no I/O of its own */
	if (GROW(p->faults, p->nr_faults + 1, p->cap_faults)) {
		analysis_note_err(a, -ENOMEM);
		return;
	}
	p->faults[p->nr_faults++] =
	    (struct fl_fault){f->ts_ns, f->ino, f->index, f->tid, f->pid, f->dev};
}

static int cmp_fault(const void *x, const void *y)
{
	const struct fl_fault *a = x, *b = y;

	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	return a->ts < b->ts ? -1 : a->ts > b->ts;
}

/* The fault a bio was read for: one the join named a fault's (it holds the
 * faulting page), or read-ahead its task queued outside a call (the
 * fault's read-ahead, set off by a page it found marked PG_readahead): the
 * task's last fault before its Q, on the same file (p->faults sorted) */
static uint32_t find_fault(const struct fl_priv *p, const struct fl_bio *b)
{
	struct fl_fault key = {.tid = b->tid, .ts = b->q_ns};
	size_t lo;

	if (!b->known || !b->q_ns || b->sys_enter || b->host != IOT_HOST_REG ||
	    (b->cause != IOT_CAUSE_FAULT && b->cause != IOT_CAUSE_READAHEAD))
		return NO_IDX;
	lo = upper_bound(p->faults, p->nr_faults, sizeof(*p->faults), &key, cmp_fault);
	if (lo && p->faults[lo - 1].tid == b->tid && p->faults[lo - 1].ino == b->ino)
		return (uint32_t)(lo - 1);
	return NO_IDX;
}

static void uring(struct analysis *a, void *priv, const struct join_uring *u)
{
	struct fl_priv *p = priv;

	if (!u->nr_bios)
		return;
	if (GROW(p->urings, p->nr_urings + 1, p->cap_urings)) {
		analysis_note_err(a, -ENOMEM);
		return;
	}
	p->urings[p->nr_urings++].u = *u;
}

static uint64_t req_start(const struct fl_req *q)
{
	return q->r.q_ns ? q->r.q_ns : q->r.d_ns ? q->r.d_ns : q->r.c_ns;
}

/* when the request entered the driver: D, or Q on a bio-based device */
static uint64_t req_issue(const struct fl_req *q)
{
	return q->r.d_ns ? q->r.d_ns : req_start(q);
}

static const struct fl_stack *stack_of(const struct fl_priv *p, uint32_t dev)
{
	for (int i = 0; i < p->nr_stack; i++)
		if (p->stack[i].dev == dev)
			return &p->stack[i];
	return NULL;
}

static int cmp_run(const void *x, const void *y)
{
	const struct fl_page_run *a = x, *b = y;

	if (a->first != b->first)
		return a->first < b->first ? -1 : 1;
	return a->q_ns < b->q_ns ? -1 : a->q_ns > b->q_ns;
}

#define MAX_RUN_PAGES 4096 /* a lower bio of at most 16 MiB */

/* The links of upper request u: per page, the lower bio that read it last
 * before u completed (runs sorted by first page). */
static int link_upper(struct fl_priv *p, const struct fl_stack *st, uint32_t ui,
		      const struct fl_page_run *runs, size_t nr_runs)
{
	struct fl_req *u = &p->reqs[ui];
	uint64_t off = st->offset + u->r.sector * 512;
	uint64_t pf = off / 4096, pl = (off + u->r.nr_sectors * 512ull + 4095) / 4096;
	uint64_t covered_by[64]; /* per page of the first 64: the chosen run's q */
	size_t lo = 0, hi = nr_runs;
	uint64_t from = pf > MAX_RUN_PAGES ? pf - MAX_RUN_PAGES : 0;

	memset(covered_by, 0, sizeof(covered_by));
	while (lo < hi) { /* the first run that starts at or after from */
		size_t mid = (lo + hi) / 2;

		if (runs[mid].first < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* per page the latest run before u's completion */
	for (size_t k = lo; k < nr_runs && runs[k].first < pl; k++) {
		const struct fl_page_run *r = &runs[k];

		if (r->last <= pf || r->q_ns > u->r.c_ns)
			continue;
		for (uint64_t pg = r->first > pf ? r->first : pf;
		     pg < r->last && pg < pl && pg - pf < 64; pg++)
			if (covered_by[pg - pf] < r->q_ns + 1)
				covered_by[pg - pf] = r->q_ns + 1;
	}
	for (size_t k = lo; k < nr_runs && runs[k].first < pl; k++) {
		const struct fl_page_run *r = &runs[k];
		struct fl_req *l = &p->reqs[r->lo];
		bool chosen = false, dup = false;

		if (r->last <= pf || r->q_ns > u->r.c_ns)
			continue;
		for (uint64_t pg = r->first > pf ? r->first : pf;
		     pg < r->last && pg < pl && pg - pf < 64; pg++)
			chosen |= covered_by[pg - pf] == r->q_ns + 1;
		for (uint32_t x = u->link0; chosen && x != NO_IDX && x < p->nr_links; x++)
			dup |= p->links[x].lo == r->lo; /* two bios of one request */
		if (!chosen || dup)
			continue;
		if (GROW(p->links, p->nr_links + 1, p->cap_links))
			return -ENOMEM;
		if (u->link0 == NO_IDX)
			u->link0 = (uint32_t)p->nr_links;
		p->links[p->nr_links++] = (struct fl_link){
		    .up = ui, .lo = r->lo, .waited = l->r.c_ns > req_issue(u)};
		u->nr_links++;
		if (l->up == NO_IDX)
			l->up = ui;
		if (l->r.c_ns > req_issue(u) &&
		    (u->crit == NO_IDX || p->reqs[u->crit].r.c_ns < l->r.c_ns))
			u->crit = r->lo;
	}
	return 0;
}

/*
 * The lower requests of every loop device's requests: the requests of the
 * disk under the backing file whose bios read or wrote the backing file's
 * pages that the upper request maps to (the kernel's page -> inode of the
 * lower bio), the last such before the upper request completed.
 */
static int link_stack(struct fl_priv *p)
{
	for (int si = 0; si < p->nr_stack; si++) {
		const struct fl_stack *st = &p->stack[si];
		struct fl_page_run *runs = NULL;
		size_t nr_runs = 0, cap_runs = 0, nr_up = 0;
		int err = 0;

		for (size_t i = 0; i < p->nr_reqs; i++)
			nr_up += p->reqs[i].r.dev == st->dev;
		if (!nr_up)
			continue;
		if (st->dio || !st->known_disk) {
			if (st->dio)
				p->dio_unfollowed += nr_up;
			else
				p->no_disk += nr_up;
			continue;
		}
		for (size_t i = 0; i < p->nr_reqs; i++) {
			const struct fl_req *l = &p->reqs[i];

			if (l->r.dev != st->disk)
				continue;
			for (uint32_t bi = l->bio0; bi < l->bio0 + l->nbio; bi++) {
				const struct fl_bio *b = &p->bios[bi];
				uint64_t n = (b->nr + PAGE_SECTORS - 1) / PAGE_SECTORS;

				if (b->host != IOT_HOST_REG || b->ino != st->ino ||
				    !b->q_ns)
					continue;
				if (GROW(runs, nr_runs + 1, cap_runs)) {
					free(runs);
					return -ENOMEM;
				}
				runs[nr_runs++] = (struct fl_page_run){
				    b->index,
				    b->index + (n < MAX_RUN_PAGES ? n : MAX_RUN_PAGES),
				    b->q_ns, (uint32_t)i};
			}
		}
		if (nr_runs) /* runs is NULL without */
			qsort(runs, nr_runs, sizeof(*runs), cmp_run);
		for (size_t i = 0; i < p->nr_reqs && !err; i++)
			if (p->reqs[i].r.dev == st->dev)
				err = link_upper(p, st, (uint32_t)i, runs, nr_runs);
		for (size_t i = 0; i < p->nr_reqs; i++) {
			const struct fl_req *l = &p->reqs[i];
			bool of_file = false;

			for (uint32_t bi = l->bio0;
			     l->r.dev == st->disk && bi < l->bio0 + l->nbio; bi++)
				of_file |= p->bios[bi].host == IOT_HOST_REG &&
					   p->bios[bi].ino == st->ino;
			if (of_file && l->up != NO_IDX)
				p->lower_linked++;
			else if (of_file)
				p->lower_unlinked++;
		}
		free(runs);
		if (err)
			return err;
	}
	return 0;
}

/* the syscall of (tid, enter), by binary search in p->sys sorted so */
static int cmp_sys(const void *x, const void *y)
{
	const struct join_syscall *a = x, *b = y;

	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	return a->enter_ns < b->enter_ns ? -1 : a->enter_ns > b->enter_ns;
}

static uint32_t find_sys(const struct fl_priv *p, uint32_t tid, uint64_t enter)
{
	struct join_syscall key = {.tid = tid, .enter_ns = enter};
	const struct join_syscall *s =
	    p->nr_sys ? bsearch(&key, p->sys, p->nr_sys, sizeof(*p->sys), cmp_sys) : NULL;

	return s ? (uint32_t)(s - p->sys) : NO_IDX;
}

static int cmp_uring(const void *x, const void *y)
{
	const struct join_uring *a = &((const struct fl_uring *)x)->u,
				*b = &((const struct fl_uring *)y)->u;

	if (a->req != b->req)
		return a->req < b->req ? -1 : 1;
	return a->cqe_ns < b->cqe_ns ? -1 : a->cqe_ns > b->cqe_ns;
}

/* io_kiocb addresses are reused: the request at that address whose
 * completion is the first at or after the bio's Q (p->urings sorted so) */
static uint32_t find_uring(const struct fl_priv *p, const struct fl_bio *b)
{
	size_t lo = 0, hi = p->nr_urings;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct join_uring *u = &p->urings[mid].u;

		if (u->req < b->uring || (u->req == b->uring && u->cqe_ns < b->q_ns))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < p->nr_urings && p->urings[lo].u.req == b->uring &&
	    (!p->urings[lo].u.submit_ns || b->q_ns >= p->urings[lo].u.submit_ns))
		return (uint32_t)lo;
	return NO_IDX;
}

/* a part of flow f's critical path, after those it has (f the last flow
 * to get any) */
static void add_seg(struct fl_priv *p, struct flow *f, int layer, uint32_t dev,
		    uint64_t ns)
{
	if (f->nr_seg >= MAX_SEG)
		return;
	if (GROW(p->segs, p->nr_segs + 1, p->cap_segs)) {
		p->nomem = true;
		return;
	}
	if (!f->nr_seg)
		f->seg0 = (uint32_t)p->nr_segs;
	p->segs[p->nr_segs++] = (struct fl_seg){ns, dev, (uint8_t)layer};
	f->nr_seg++;
}

static uint64_t span(uint64_t from, uint64_t to)
{
	return from && to > from ? to - from : 0;
}

/* A request's time on the critical path from `from` (its upper request's
 * issue, for a lower request already in flight then) to its C, layer by
 * layer, down the lower requests it waited for. */
static void req_segs(struct fl_priv *p, struct flow *f, const struct fl_req *q,
		     uint64_t from, int depth)
{
	const struct fl_req *lo =
	    q->crit != NO_IDX && depth < MAX_STACK ? &p->reqs[q->crit] : NULL;
	uint64_t s = req_start(q) > from ? req_start(q) : from;
	uint64_t i = req_issue(q) > s ? req_issue(q) : s, lo_from, lo_end;

	if (q->r.d_ns)
		add_seg(p, f, FL_QUEUE, q->r.dev, span(s, q->r.d_ns));
	if (!lo) {
		add_seg(p, f, stack_of(p, q->r.dev) ? FL_LOOP : FL_DEVICE, q->r.dev,
			span(i, q->r.c_ns));
		return;
	}
	/* the loop driver's own time: to the lower request, and back */
	lo_from = req_start(lo) > i ? req_start(lo) : i;
	lo_end = lo->r.c_ns < q->r.c_ns ? lo->r.c_ns : q->r.c_ns;
	add_seg(p, f, FL_LOOP, q->r.dev, span(i, q->r.c_ns) - span(lo_from, lo_end));
	req_segs(p, f, lo, lo_from, depth + 1);
}

struct fl_maps {
	struct u64map by_sys, by_uring, by_fault;
};

/* The flow of (kind, root), made when it is new; q is request qi, b its
 * bio bi (NO_IDX: none). NO_IDX when out of memory. */
static uint32_t flow_for(struct fl_priv *p, struct fl_maps *m, uint8_t kind,
			 uint32_t root, uint32_t qi, uint32_t bi)
{
	struct u64map *map = kind == FK_SYSCALL ? &m->by_sys
			     : kind == FK_URING ? &m->by_uring
			     : kind == FK_FAULT ? &m->by_fault
						: NULL;
	const struct fl_bio *b = bi != NO_IDX ? &p->bios[bi] : NULL;
	uint32_t *fv = map ? u64map_get(map, root + 1) : NULL;
	struct flow *f;

	if (fv)
		return *fv;
	if (GROW(p->flows, p->nr_flows + 1, p->cap_flows))
		return NO_IDX;
	f = &p->flows[p->nr_flows];
	*f = (struct flow){
	    .kind = kind, .root = root, .first_req = qi, .bio = bi, .crit = qi};
	if (kind == FK_SYSCALL) {
		f->tid = p->sys[root].tid;
		f->pid = p->sys[root].pid;
		f->start = p->sys[root].enter_ns;
		f->end = p->sys[root].exit_ns;
	} else if (kind == FK_URING) {
		f->tid = p->urings[root].u.tid;
		f->pid = p->urings[root].u.pid;
		f->start = p->urings[root].u.submit_ns;
		f->end = p->urings[root].u.cqe_ns;
	} else if (kind == FK_FAULT) {
		f->tid = p->faults[root].tid;
		f->pid = p->faults[root].pid;
		f->start = p->faults[root].ts;
	} else {
		f->tid = b ? b->tid : p->reqs[qi].r.tid;
		f->pid = b ? b->pid : p->reqs[qi].r.pid;
	}
	if (map && u64map_put(map, root + 1, (uint32_t)p->nr_flows))
		return NO_IDX;
	return (uint32_t)p->nr_flows++;
}

static struct fl_mem *mem_of(const struct fl_priv *p, const struct fl_req *q, uint32_t fi)
{
	for (uint32_t k = 0; k < q->nr_mem; k++)
		if (p->mems[q->mem0 + k].flow == fi)
			return &p->mems[q->mem0 + k];
	return NULL;
}

/* Request qi joins flow fi (once), by pages more of them dirtied */
static int add_member(struct fl_priv *p, uint32_t qi, uint32_t fi, uint32_t pages)
{
	struct fl_req *q = &p->reqs[qi];
	struct fl_mem *m = mem_of(p, q, fi);

	if (m) {
		m->pages += pages;
		return 0;
	}
	if (GROW(p->mems, p->nr_mems + 1, p->cap_mems))
		return -ENOMEM;
	if (!q->nr_mem)
		q->mem0 = (uint32_t)p->nr_mems;
	p->mems[p->nr_mems++] = (struct fl_mem){fi, pages};
	q->nr_mem++;
	return 0;
}

static int cmp_dirty(const void *x, const void *y)
{
	const struct fl_dirty *a = x, *b = y;

	if (a->ino != b->ino)
		return a->ino < b->ino ? -1 : 1;
	if (a->index != b->index)
		return a->index < b->index ? -1 : 1;
	return a->ts < b->ts ? -1 : a->ts > b->ts;
}

/* The call that made page (ino, index) dirty last before ts: NO_IDX none
 * seen (p->dirty and p->sys sorted) */
static uint32_t dirtier_call(const struct fl_priv *p, uint64_t ino, uint64_t index,
			     uint64_t ts)
{
	struct fl_dirty key = {.ino = ino, .index = index, .ts = ts};
	struct join_syscall sk;
	const struct fl_dirty *d;
	size_t lo =
	    upper_bound(p->dirty, p->nr_dirty, sizeof(*p->dirty), &key, cmp_dirty);

	if (!lo)
		return NO_IDX;
	d = &p->dirty[lo - 1];
	if (d->ino != ino || d->index != index)
		return NO_IDX;
	/* the last call of d->tid entered at or before d->ts */
	sk = (struct join_syscall){.tid = d->tid, .enter_ns = d->ts};
	lo = upper_bound(p->sys, p->nr_sys, sizeof(*p->sys), &sk, cmp_sys);
	if (lo && p->sys[lo - 1].tid == d->tid && p->sys[lo - 1].exit_ns >= d->ts)
		return (uint32_t)(lo - 1);
	return NO_IDX;
}

/* The calls that made bio bi's pages dirty: request qi joins their flows.
 * How many of its pages were tied so; *first: the first call's flow. */
static int dirtiers(struct fl_priv *p, struct fl_maps *m, uint32_t qi, uint32_t bi,
		    uint32_t *tied, uint32_t *first)
{
	const struct fl_bio *b = &p->bios[bi];
	uint64_t n = (b->nr + PAGE_SECTORS - 1) / PAGE_SECTORS;
	int err = 0;

	*tied = 0;
	*first = NO_IDX;
	if (b->host != IOT_HOST_REG || !b->q_ns || !p->nr_dirty ||
	    (p->reqs[qi].r.flags & IOT_OP_MASK) != IOT_OP_WRITE)
		return 0;
	for (uint64_t k = 0; k < n && k < MAX_RUN_PAGES && !err; k++) {
		uint32_t root = dirtier_call(p, b->ino, b->index + k, b->q_ns), fi;

		if (root == NO_IDX)
			continue;
		fi = flow_for(p, m, FK_SYSCALL, root, qi, NO_IDX);
		if (fi == NO_IDX)
			return -ENOMEM;
		if (*first == NO_IDX)
			*first = fi;
		(*tied)++;
		err = add_member(p, qi, fi, 1);
	}
	return err;
}

/* The flows of top request qi: one per system call or io_uring request its
 * bios were queued for (a request merged from several carries each), one
 * per system call that made its pages dirty (written back), and one of its
 * own cause for bios none of those explain. */
static int request_flows(struct fl_priv *p, struct fl_maps *m, uint32_t qi)
{
	struct fl_req *q = &p->reqs[qi];
	uint32_t cause_flow = NO_IDX, fi;
	int err = 0;

	if (!q->nbio) {
		fi = flow_for(p, m, FK_CAUSE, qi, qi, NO_IDX);
		return fi == NO_IDX ? -ENOMEM : add_member(p, qi, fi, 0);
	}
	for (uint32_t bi = q->bio0; bi < q->bio0 + q->nbio && !err; bi++) {
		struct fl_bio *x = &p->bios[bi];
		uint32_t root, tied, first;

		if ((err = dirtiers(p, m, qi, bi, &tied, &first)))
			return err;

		/* an io_uring request before the io_uring_enter it was
		 * issued in: the more precise of the two */
		if (x->uring && (root = find_uring(p, x)) != NO_IDX)
			fi = flow_for(p, m, FK_URING, root, qi, bi);
		else if (x->sys_enter &&
			 (root = find_sys(p, x->tid, x->sys_enter)) != NO_IDX)
			fi = flow_for(p, m, FK_SYSCALL, root, qi, bi);
		else if ((root = find_fault(p, x)) != NO_IDX)
			fi = flow_for(p, m, FK_FAULT, root, qi, bi);
		else if (tied && tied >= (x->nr + PAGE_SECTORS - 1) / PAGE_SECTORS) {
			x->flow = first; /* every page: written back for calls */
			x->by_pages = true;
			continue;
		} else
			fi = cause_flow = cause_flow != NO_IDX
					      ? cause_flow
					      : flow_for(p, m, FK_CAUSE, qi, qi, bi);
		if (fi == NO_IDX)
			return -ENOMEM;
		x->flow = fi;
		err = add_member(p, qi, fi, 0);
	}
	return err;
}

/* Whether request q holds bios flow fi queued itself (not only its pages) */
static bool own_bios(const struct fl_priv *p, const struct fl_req *q, uint32_t fi)
{
	const struct fl_mem *m = mem_of(p, q, fi);

	if (m && !m->pages)
		return true;
	for (uint32_t bi = q->bio0; bi < q->bio0 + q->nbio; bi++)
		if (p->bios[bi].flow == fi && !p->bios[bi].by_pages)
			return true;
	return false;
}

/* When flow fi's part of request q began: its first bio's Q when the
 * request was merged from several flows' bios, else the request's start */
static uint64_t own_start(const struct fl_priv *p, const struct fl_req *q, uint32_t fi)
{
	uint64_t t = 0;

	for (uint32_t bi = q->bio0; q->nr_mem > 1 && bi < q->bio0 + q->nbio; bi++)
		if (p->bios[bi].flow == fi && !p->bios[bi].by_pages && p->bios[bi].q_ns &&
		    (!t || p->bios[bi].q_ns < t))
			t = p->bios[bi].q_ns;
	return t ? t : req_start(q);
}

static int make_flows(struct fl_priv *p)
{
	struct fl_maps m;
	int err;

	if (p->nr_sys) /* NULL without: qsort's argument must not be */
		qsort(p->sys, p->nr_sys, sizeof(*p->sys), cmp_sys);
	if (p->nr_urings)
		qsort(p->urings, p->nr_urings, sizeof(*p->urings), cmp_uring);
	if (p->nr_dirty)
		qsort(p->dirty, p->nr_dirty, sizeof(*p->dirty), cmp_dirty);
	if (p->nr_faults)
		qsort(p->faults, p->nr_faults, sizeof(*p->faults), cmp_fault);
	if ((err = u64map_init(&m.by_sys, 1024)))
		return err;
	if ((err = u64map_init(&m.by_uring, 64))) {
		u64map_release(&m.by_sys);
		return err;
	}
	if ((err = u64map_init(&m.by_fault, 64))) {
		u64map_release(&m.by_sys);
		u64map_release(&m.by_uring);
		return err;
	}
	for (size_t i = 0; i < p->nr_reqs && !err; i++) {
		struct fl_req *q = &p->reqs[i];

		if (q->up != NO_IDX)
			continue; /* a lower request: its upper's flow */
		if ((err = request_flows(p, &m, (uint32_t)i)))
			break;
		for (uint32_t k = 0; k < q->nr_mem; k++) {
			const struct fl_mem *mem = &p->mems[q->mem0 + k];
			uint32_t fi = mem->flow;
			struct flow *f = &p->flows[fi];
			uint64_t bytes = 0, from = own_start(p, q, fi);

			/* merged: its own bios' bytes; else the request's */
			for (uint32_t bi = q->bio0;
			     q->nr_mem > 1 && bi < q->bio0 + q->nbio; bi++)
				if (p->bios[bi].flow == fi && !p->bios[bi].by_pages)
					bytes += (uint64_t)p->bios[bi].nr * 512;
			f->nr_reqs++;
			f->nr_shared += q->nr_mem > 1;
			f->nr_lower += q->nr_links;
			bytes += mem->pages * 4096ull; /* written back for it */
			f->bytes +=
			    q->nr_mem > 1 ? bytes : (uint64_t)q->r.nr_sectors * 512;
			if (q->r.c_ns > p->reqs[f->crit].r.c_ns)
				f->crit = (uint32_t)i;
			if (!f->start || from < f->start)
				f->start = from;
			if (q->r.c_ns > f->end)
				f->end = q->r.c_ns;
		}
	}
	u64map_release(&m.by_sys);
	u64map_release(&m.by_uring);
	u64map_release(&m.by_fault);
	if (err)
		return err;
	for (size_t fi = 0; fi < p->nr_flows; fi++) {
		struct flow *f = &p->flows[fi];
		const struct fl_req *c = &p->reqs[f->crit];
		const struct fl_mem *cm = mem_of(p, c, (uint32_t)fi);
		uint64_t io =
		    span(own_start(p, &p->reqs[f->first_req], (uint32_t)fi), c->r.c_ns);

		if (cm && cm->pages && f->kind == FK_SYSCALL &&
		    !own_bios(p, c, (uint32_t)fi)) {
			/* written back: the call, then its pages in the page
			 * cache until the request that wrote them */
			const struct join_syscall *sc = &p->sys[f->root];

			add_seg(p, f, FL_SYSCALL, 0, span(sc->enter_ns, sc->exit_ns));
			add_seg(p, f, FL_CACHE, 0, span(sc->exit_ns, req_start(c)));
		} else if (f->kind != FK_CAUSE) {
			/* the call's own time, outside its I/O (a fault's:
			 * from the fault to its I/O) */
			add_seg(p, f, f->kind == FK_FAULT ? FL_FAULT : FL_SYSCALL, 0,
				f->end - f->start > io ? f->end - f->start - io : 0);
		}
		req_segs(p, f, c, own_start(p, c, (uint32_t)fi), 0);
	}
	return p->nomem ? -ENOMEM : 0;
}

/* ---- output ---- */

static const struct column flow_cols[] = {
    {"flow", "FLOW", 6, CELL_U64},
    {"start_s", "START_S", 11, CELL_F64, IN_ALL, 6},
    {"cause", "CAUSE", -15, CELL_STR},
    {"pid", "PID", 7, CELL_U64},
    {"comm", "COMM", -15, CELL_STR},
    {"file", "FILE", -24, CELL_STR},
    {"bytes", "KB", 7, CELL_U64, IN_ALL, 0, 1024, 0},
    {"requests", "REQS", 5, CELL_U64},
    {"lower_requests", "LOWER", 5, CELL_U64},
    {"merged_requests", "MERGED", 6, CELL_U64},
    {"devices", "DEVICES", -14, CELL_STR},
    {"total_ns", "TOTAL_US", 10, CELL_U64, IN_ALL, 0, 1e3, 1},
    {"dominant", "DOMINANT", -14, CELL_STR},
    {"dominant_ns", "DOM_US", 10, CELL_U64, IN_ALL, 0, 1e3, 1},
};

static const struct column event_cols[] = {
    {"flow", "FLOW", 6, CELL_U64},
    {"elapsed_ns", "ELAPSED_US", 11, CELL_I64, IN_ALL, 0, 1e3, 3},
    {"layer", "LAYER", -8, CELL_STR},
    {"device", "DEVICE", -8, CELL_STR},
    {"cpu", "CPU", 3, CELL_U64},
    {"tid", "TID", 7, CELL_U64},
    {"comm", "TASK", -15, CELL_STR},
    {"event", "EVENT", -6, CELL_STR},
    {"detail", "DETAIL", -40, CELL_STR},
};

static const struct column unf_cols[] = {
    {"device", "DEVICE", -8, CELL_STR},
    {"sector", "SECTOR", 12, CELL_U64},
    {"sectors", "SECTORS", 7, CELL_U64},
    {"op", "OP", -5, CELL_STR},
    {"pid", "PID", 7, CELL_U64},
    {"comm", "TASK", -15, CELL_STR},
    {"last", "LAST", -4, CELL_STR},
    {"last_s", "LAST_S", 11, CELL_F64, IN_ALL, 0, 1, 6},
};

static const struct column layer_cols[] = {
    {"layer", "LAYER", -8, CELL_STR},
    {"device", "DEVICE", -8, CELL_STR},
    {"flows", "FLOWS", 8, CELL_U64},
    {"total_ns", "TOTAL_MS", 10, CELL_U64, IN_ALL, 0, 1e6, 1},
    {"avg_ns", "AVG_US", 9, CELL_F64, IN_ALL, 1, 1e3, 1},
    {"share_pct", "SHARE%", 7, CELL_F64, IN_ALL, 1},
};

static const char *dev_name(struct analysis *a, uint32_t dev)
{
	return dev && a->env.dev_name ? a->env.dev_name(a->env.ctx, dev) : "-";
}

static const char *comm_of(struct analysis *a, uint32_t tid)
{
	const struct iot_task_entry *e =
	    tid && a->env.task_entry ? a->env.task_entry(a->env.ctx, tid) : NULL;

	return e && e->comm[0] ? e->comm : "?";
}

static const char *sys_name(struct analysis *a, uint32_t nr)
{
	int k = analysis_syscall_kind(a, nr);

	return k >= 0 ? syscall_kind_names[k] : "syscall";
}

static void cause_str(struct analysis *a, const struct fl_priv *p, const struct flow *f,
		      char *buf, size_t len)
{
	const struct fl_bio *b = f->bio != NO_IDX ? &p->bios[f->bio] : NULL;
	char op[16];

	if (f->kind == FK_SYSCALL)
		snprintf(buf, len, "%s", sys_name(a, p->sys[f->root].nr));
	else if (f->kind == FK_URING)
		snprintf(buf, len, "io_uring %s",
			 iot_uring_op_name(p->urings[f->root].u.opcode, op));
	else if (f->kind == FK_FAULT)
		snprintf(buf, len, "fault");
	else
		snprintf(buf, len, "%s",
			 b && b->known ? iot_cause_name(b->cause) : "unknown");
}

/* the longest part of f's critical path, NULL none */
static const struct fl_seg *dominant(const struct fl_priv *p, const struct flow *f)
{
	const struct fl_seg *best = NULL;

	for (int i = 0; i < f->nr_seg; i++)
		if (!best || p->segs[f->seg0 + i].ns > best->ns)
			best = &p->segs[f->seg0 + i];
	return best;
}

/* --where layer=L[@DEV]: the flow's time in that layer on its critical
 * path (0: none) */
static uint64_t where_ns(struct analysis *a, const struct fl_priv *p,
			 const struct flow *f)
{
	const char *w = a->env.flow_where, *at = strchr(w, '@');
	size_t llen = at ? (size_t)(at - w) : strlen(w);
	uint64_t ns = 0;

	for (int i = 0; i < f->nr_seg; i++) {
		const struct fl_seg *sg = &p->segs[f->seg0 + i];
		const char *ln = layer_names[sg->layer];

		if (strlen(ln) != llen || strncmp(ln, w, llen))
			continue;
		if (at && (!sg->dev || strcmp(dev_name(a, sg->dev), at + 1)))
			continue;
		ns += sg->ns ? sg->ns : 1; /* present, if for no time */
	}
	return ns;
}

int flows_where_check(const char *where)
{
	size_t llen = strcspn(where, "@");

	for (int k = 0; k < NR_FL_LAYERS; k++)
		if (strlen(layer_names[k]) == llen &&
		    !strncmp(layer_names[k], where, llen))
			return where[llen] == '@' && !where[llen + 1] ? -EINVAL : 0;
	return -EINVAL;
}

struct where_key {
	uint32_t flow;
	uint64_t ns;
};

static int cmp_where(const void *x, const void *y)
{
	const struct where_key *a = x, *b = y;

	if (a->ns != b->ns)
		return a->ns > b->ns ? -1 : 1;
	return a->flow < b->flow ? -1 : 1;
}

static int cmp_total(const void *x, const void *y, void *ctx)
{
	const struct flow *f = ctx;
	const struct flow *a = &f[*(const uint32_t *)x], *b = &f[*(const uint32_t *)y];
	uint64_t ta = a->end - a->start, tb = b->end - b->start;

	if (ta != tb)
		return ta > tb ? -1 : 1;
	return *(const uint32_t *)x < *(const uint32_t *)y ? -1 : 1;
}

/* The want slowest flows into sel, slowest first (cmp_total's order): a
 * heap of the want best so far, its root the one that sorts last, so that
 * a few of many flows cost one pass, not a sort of all of them. */
static size_t slowest(const struct fl_priv *p, uint32_t *sel, size_t want)
{
	size_t n = 0;

	for (size_t i = 0; i < p->nr_flows; i++) {
		uint32_t v = (uint32_t)i;
		size_t k;

		if (n < want) { /* sift up */
			for (k = n++; k && cmp_total(&sel[(k - 1) / 2], &v, p->flows) < 0;
			     k = (k - 1) / 2)
				sel[k] = sel[(k - 1) / 2];
			sel[k] = v;
			continue;
		}
		if (!n || cmp_total(&v, &sel[0], p->flows) >= 0)
			continue;
		for (k = 0;;) { /* replace the root, sift down */
			size_t c = 2 * k + 1;

			if (c >= n)
				break;
			if (c + 1 < n && cmp_total(&sel[c], &sel[c + 1], p->flows) < 0)
				c++;
			if (cmp_total(&v, &sel[c], p->flows) >= 0)
				break;
			sel[k] = sel[c];
			k = c;
		}
		sel[k] = v;
	}
	if (n)
		qsort_r(sel, n, sizeof(*sel), cmp_total, p->flows);
	return n;
}

static void flow_row(struct analysis *a, const struct fl_priv *p, struct table *t,
		     uint32_t fi)
{
	const struct flow *f = &p->flows[fi];
	const struct fl_req *q;
	const struct fl_bio *b = f->bio != NO_IDX ? &p->bios[f->bio] : NULL;
	uint64_t ino = f->kind == FK_SYSCALL	      ? p->sys[f->root].ino
		       : f->kind == FK_URING	      ? p->urings[f->root].u.ino
		       : f->kind == FK_FAULT	      ? p->faults[f->root].ino
		       : b && b->host == IOT_HOST_REG ? b->ino
						      : 0;
	uint32_t fsdev = f->kind == FK_SYSCALL ? p->sys[f->root].dev
			 : f->kind == FK_URING ? p->urings[f->root].u.dev
			 : f->kind == FK_FAULT ? p->faults[f->root].dev
					       : 0;
	const char *path = ino && fsdev && a->env.file_path
			       ? a->env.file_path(a->env.ctx, fsdev, ino)
			       : NULL;
	char cause[48], devs[64];
	const struct fl_seg *d = dominant(p, f);

	cause_str(a, p, f, cause, sizeof(cause));
	q = &p->reqs[f->crit];
	snprintf(devs, sizeof(devs), "%s", dev_name(a, q->r.dev));
	for (int depth = 0; q->crit != NO_IDX && depth < MAX_STACK; depth++) {
		q = &p->reqs[q->crit];
		snprintf(devs + strlen(devs), sizeof(devs) - strlen(devs), ">%s",
			 dev_name(a, q->r.dev));
	}
	table_row(t);
	table_u64(t, fi + 1);
	table_f64(t, (f->start - a->env.t0_ns) / 1e9);
	table_str(t, "%s", cause);
	table_u64(t, f->pid);
	table_str(t, "%s", comm_of(a, f->tid));
	if (path)
		table_str(t, "%s", path);
	else if (ino)
		table_str(t, "ino %llu", (unsigned long long)ino);
	else
		table_na(t);
	table_u64(t, f->bytes);
	table_u64(t, f->nr_reqs);
	table_u64(t, f->nr_lower);
	table_u64(t, f->nr_shared);
	table_str(t, "%s", devs);
	table_u64(t, f->end - f->start);
	if (d) {
		table_str(t, "%s%s%s", layer_names[d->layer], d->dev ? "@" : "",
			  d->dev ? dev_name(a, d->dev) : "");
		table_u64(t, d->ns);
	} else {
		table_na(t);
		table_na(t);
	}
}

#define NO_CPU (-1)
static void ev_row(struct analysis *a, struct table *t, uint32_t fi, uint64_t t0,
		   uint64_t ts, const char *layer, uint32_t dev, int cpu, uint32_t tid,
		   const char *event, const char *detail)
{
	table_row(t);
	table_u64(t, fi + 1);
	table_i64(t, (int64_t)(ts - t0));
	table_str(t, "%s", layer);
	table_str(t, "%s", dev_name(a, dev));
	if (cpu == NO_CPU)
		table_na(t);
	else
		table_u64(t, (uint64_t)cpu);
	if (tid) {
		table_u64(t, tid);
		table_str(t, "%s", comm_of(a, tid));
	} else {
		table_na(t);
		table_na(t);
	}
	table_str(t, "%s", event);
	table_str(t, "%s", detail);
}

/* one request's rows: its bios' Q (of a request merged from several
 * flows, flow fi's only), then G I D C (lower: lower = true) */
static void req_rows(struct analysis *a, const struct fl_priv *p, struct table *t,
		     uint32_t fi, uint64_t t0, const struct fl_req *q, bool lower)
{
	const struct fl_mem *m = lower ? NULL : mem_of(p, q, fi);
	char d[96];

	for (uint32_t bi = q->bio0; bi < q->bio0 + q->nbio; bi++) {
		const struct fl_bio *b = &p->bios[bi];

		if (!b->q_ns || (!lower && q->nr_mem > 1 &&
				 (b->flow != fi || b->by_pages) && !(m && m->pages)))
			continue;
		if (lower && b->host == IOT_HOST_REG)
			snprintf(d, sizeof(d),
				 "%llu+%u, backing file ino %llu page %llu (the "
				 "upper request's)",
				 (unsigned long long)b->sector, b->nr,
				 (unsigned long long)b->ino,
				 (unsigned long long)b->index);
		else
			snprintf(d, sizeof(d), "%llu+%u", (unsigned long long)b->sector,
				 b->nr);
		ev_row(a, t, fi, t0, b->q_ns, "block", q->r.dev, b->cpu, b->tid, "Q", d);
	}
	if (q->r.sector == ~0ull) /* a flush: no sector */
		snprintf(d, sizeof(d), "flush");
	else
		snprintf(d, sizeof(d), "%llu+%u", (unsigned long long)q->r.sector,
			 q->r.nr_sectors);
	if (m && m->pages)
		snprintf(d + strlen(d), sizeof(d) - strlen(d),
			 ", writes back %u page%s it dirtied", m->pages,
			 m->pages == 1 ? "" : "s");
	if (!lower && q->nr_mem > 1)
		snprintf(d + strlen(d), sizeof(d) - strlen(d), ", merged: %u flows",
			 q->nr_mem);
	if (q->r.g_ns)
		ev_row(a, t, fi, t0, q->r.g_ns, "block", q->r.dev, q->r.g_cpu, q->r.tid,
		       "G", d);
	if (q->r.i_ns)
		ev_row(a, t, fi, t0, q->r.i_ns, "block", q->r.dev, q->r.i_cpu, 0, "I", d);
	if (q->r.d_ns)
		ev_row(a, t, fi, t0, q->r.d_ns, "block", q->r.dev, q->r.d_cpu, 0, "D", d);
	if (q->r.error)
		snprintf(d + strlen(d), sizeof(d) - strlen(d), " error %d", q->r.error);
	ev_row(a, t, fi, t0, q->r.c_ns, "block", q->r.dev, q->r.c_cpu, 0, "C", d);
}

/* the rows below request q of flow fi: the lower requests it waited for
 * (whole, and theirs below), those that had read its pages earlier (one
 * row each), or why there are none */
static void lower_rows(struct analysis *a, const struct fl_priv *p, struct table *t,
		       uint32_t fi, uint64_t t0, const struct fl_req *q, int depth)
{
	const struct fl_stack *st = stack_of(p, q->r.dev);
	char d[96];

	for (uint32_t x = q->link0; x != NO_IDX && x < q->link0 + q->nr_links; x++) {
		const struct fl_req *l = &p->reqs[p->links[x].lo];

		if (p->links[x].waited) {
			req_rows(a, p, t, fi, t0, l, true);
			if (depth + 1 < MAX_STACK)
				lower_rows(a, p, t, fi, t0, l, depth + 1);
			continue;
		}
		snprintf(d, sizeof(d),
			 "pages read earlier by %s %llu+%u (its C at %+.3f us)",
			 dev_name(a, l->r.dev), (unsigned long long)l->r.sector,
			 l->r.nr_sectors, ((double)l->r.c_ns - (double)t0) / 1e3);
		ev_row(a, t, fi, t0, req_issue(q), "loop", q->r.dev, NO_CPU, 0, "cache",
		       d);
	}
	if (st && !q->nr_links)
		ev_row(a, t, fi, t0, q->r.c_ns, "loop", q->r.dev, NO_CPU, 0, "-",
		       st->dio ? "lower requests not followed: a direct I/O loop (its "
				 "bios carry this request's pages, not recorded)"
		       : !st->known_disk ? "nothing below: the backing file's filesystem "
					   "is on no block device of the trace"
					 : "no lower request: the backing file's pages "
					   "were cached before the trace");
}

static int cmp_ev(const void *x, const void *y, void *ctx)
{
	const struct table *t = ctx;
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	uint64_t fa = table_cell(t, a, 0)->u, fb = table_cell(t, b, 0)->u;
	int64_t ea = table_cell(t, a, 1)->i, eb = table_cell(t, b, 1)->i;

	if (fa != fb)
		return fa < fb ? -1 : 1;
	if (ea != eb)
		return ea < eb ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* the rows of t in the order of idx (a permutation of its rows) */
static int reorder(struct table *t, const size_t *idx)
{
	size_t n = t->nr_rows * t->nr_cols;
	union cell *c = malloc(n * sizeof(*c));
	uint8_t *na = malloc(n);

	if (!c || !na) {
		free(c);
		free(na);
		return -ENOMEM;
	}
	for (size_t r = 0; r < t->nr_rows; r++) {
		memcpy(&c[r * t->nr_cols], &t->cells[idx[r] * t->nr_cols],
		       t->nr_cols * sizeof(*c));
		memcpy(&na[r * t->nr_cols], &t->na[idx[r] * t->nr_cols], t->nr_cols);
	}
	memcpy(t->cells, c, n * sizeof(*c));
	memcpy(t->na, na, n);
	free(c);
	free(na);
	return 0;
}

static int timeline(struct analysis *a, const struct fl_priv *p, struct table *t,
		    const uint32_t *sel, size_t nr_sel)
{
	size_t *idx;
	char d[96];
	int err;

	/* the chosen flows' requests, by one pass over all of them */
	uint8_t *want = calloc(p->nr_flows, 1);

	if (!want)
		return -ENOMEM;
	for (size_t i = 0; i < nr_sel; i++)
		want[sel[i]] = 1;
	for (size_t i = 0; i < nr_sel; i++) {
		const struct flow *f = &p->flows[sel[i]];

		if (f->kind == FK_SYSCALL) {
			const struct join_syscall *s = &p->sys[f->root];

			snprintf(d, sizeof(d), "fd %u pos %lld count %llu", s->fd,
				 s->pos == ~0ull ? -1ll : (long long)s->pos,
				 (unsigned long long)s->count);
			ev_row(a, t, sel[i], f->start, s->enter_ns, "syscall", 0,
			       s->enter_cpu, s->tid, "enter", d);
			snprintf(d, sizeof(d), "%s = %lld", sys_name(a, s->nr),
				 (long long)s->ret);
			ev_row(a, t, sel[i], f->start, s->exit_ns, "syscall", 0,
			       s->exit_cpu, s->tid, "exit", d);
		} else if (f->kind == FK_URING) {
			const struct join_uring *u = &p->urings[f->root].u;
			char op[16];

			snprintf(d, sizeof(d), "%s pos %lld len %u",
				 iot_uring_op_name(u->opcode, op),
				 u->pos == ~0ull ? -1ll : (long long)u->pos, u->len);
			if (u->submit_ns)
				ev_row(a, t, sel[i], f->start, u->submit_ns, "io_uring",
				       0, NO_CPU, u->tid, "submit", d);
			snprintf(d, sizeof(d), "res %d", u->res);
			ev_row(a, t, sel[i], f->start, u->cqe_ns, "io_uring", 0, NO_CPU,
			       0, "cqe", d);
		} else if (f->kind == FK_FAULT) {
			const struct fl_fault *ft = &p->faults[f->root];

			snprintf(d, sizeof(d), "ino %llu page %llu",
				 (unsigned long long)ft->ino,
				 (unsigned long long)ft->index);
			ev_row(a, t, sel[i], f->start, ft->ts, "fault", 0, NO_CPU,
			       ft->tid, "fault", d);
		}
	}
	for (size_t i = 0; i < p->nr_reqs; i++) {
		const struct fl_req *q = &p->reqs[i];
		uint64_t t0;

		if (q->up != NO_IDX || !q->nr_mem)
			continue; /* lower requests come with their upper ones */
		for (uint32_t k = 0; k < q->nr_mem; k++) {
			uint32_t fi = p->mems[q->mem0 + k].flow;

			if (!want[fi])
				continue;
			t0 = p->flows[fi].start;
			req_rows(a, p, t, fi, t0, q, false);
			lower_rows(a, p, t, fi, t0, q, 0);
		}
	}
	free(want);
	if (t->err || !t->nr_rows) /* no rows: no cells to order */
		return t->err;
	idx = malloc((t->nr_rows ? t->nr_rows : 1) * sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	for (size_t r = 0; r < t->nr_rows; r++)
		idx[r] = r;
	qsort_r(idx, t->nr_rows, sizeof(*idx), cmp_ev, t);
	err = reorder(t, idx);
	free(idx);
	return err;
}

/* A (layer, device) pair's time in the flows, for the layers table */
struct layer_acc {
	uint8_t layer;
	uint32_t dev;
	uint64_t flows, ns;
	size_t first; /* the order of first sight: ties keep it */
};

static int cmp_layer_acc(const void *x, const void *y)
{
	const struct layer_acc *a = x, *b = y;

	if (a->ns != b->ns)
		return a->ns > b->ns ? -1 : 1; /* the most time first */
	return a->first < b->first ? -1 : a->first > b->first;
}

/* Every (layer, device) pair the flows passed: a machine of many disks
 * (a stripe over two dozen) has more than a fixed table would hold. */
static int layers(struct analysis *a, const struct fl_priv *p, struct table *t)
{
	struct layer_acc *acc = NULL;
	size_t n = 0, cap = 0;
	struct u64map at;
	uint64_t all = 0;
	int err = u64map_init(&at, 64);

	for (size_t fi = 0; fi < p->nr_flows && !err; fi++) {
		const struct flow *f = &p->flows[fi];

		for (int s = 0; s < f->nr_seg; s++) {
			const struct fl_seg *sg = &p->segs[f->seg0 + s];
			uint64_t key = ((uint64_t)sg->layer << 32 | sg->dev) + 1;
			uint32_t *v = u64map_get(&at, key), k;

			if (v) {
				k = *v;
			} else {
				if (GROW(acc, n + 1, cap) ||
				    u64map_put(&at, key, (uint32_t)n)) {
					err = -ENOMEM;
					break;
				}
				acc[n] = (struct layer_acc){sg->layer, sg->dev, 0, 0, n};
				k = (uint32_t)n++;
			}
			acc[k].flows++;
			acc[k].ns += sg->ns;
			all += sg->ns;
		}
	}
	u64map_release(&at);
	if (err) {
		free(acc);
		return err;
	}
	if (n)
		qsort(acc, n, sizeof(*acc), cmp_layer_acc);
	for (size_t k = 0; k < n; k++) {
		table_row(t);
		table_str(t, "%s", layer_names[acc[k].layer]);
		table_str(t, "%s", dev_name(a, acc[k].dev));
		table_u64(t, acc[k].flows);
		table_u64(t, acc[k].ns);
		table_f64(t, (double)acc[k].ns / acc[k].flows);
		table_f64(t, all ? 100.0 * acc[k].ns / all : 0);
	}
	free(acc);
	return t->err;
}

static void unfinished(struct analysis *a, void *priv, const struct join_request *r)
{
	struct fl_priv *p = priv;

	if (GROW(p->unf, p->nr_unf + 1, p->cap_unf)) {
		analysis_note_err(a, -ENOMEM);
		return;
	}
	p->unf[p->nr_unf++] = *r;
}

/* The requests that never finished, in the order of their last stage. */
static int cmp_unf(const void *x, const void *y)
{
	const struct join_request *a = x, *b = y;
	uint64_t ta = a->d_ns ?: a->i_ns ?: a->g_ns ?: a->q_ns;
	uint64_t tb = b->d_ns ?: b->i_ns ?: b->g_ns ?: b->q_ns;

	return ta < tb ? -1 : ta > tb;
}

static int unfinished_table(struct analysis *a, struct fl_priv *p, struct table *t)
{
	static const char *const ops[] = {"read", "write", "flush", "discard"};

	snprintf(t->title, sizeof(t->title),
		 "Requests that never finished: %zu (in flight as the trace ended, or "
		 "their completion not shown to the programs)",
		 p->nr_unf);
	if (p->nr_unf)
		qsort(p->unf, p->nr_unf, sizeof(*p->unf), cmp_unf);
	for (size_t i = 0; i < p->nr_unf; i++) {
		const struct join_request *r = &p->unf[i];
		uint32_t op = r->flags & IOT_OP_MASK;
		const char *last = r->d_ns ? "D" : r->i_ns ? "I" : r->g_ns ? "G" : "Q";
		uint64_t at = r->d_ns ?: r->i_ns ?: r->g_ns ?: r->q_ns;

		table_row(t);
		table_str(t, "%s", dev_name(a, r->dev));
		table_u64(t, r->sector);
		table_u64(t, r->nr_sectors);
		table_str(t, "%s", op < 4 ? ops[op] : "other");
		if (r->pid)
			table_u64(t, r->pid);
		else
			table_na(t);
		table_str(t, "%s", r->tid ? comm_of(a, r->tid) : "-");
		table_str(t, "%s", last);
		if (at >= a->env.t0_ns)
			table_f64(t, (at - a->env.t0_ns) / 1e9);
		else
			table_na(t);
	}
	return t->err;
}

static int finish(struct analysis *a, struct an_output *o)
{
	struct fl_priv *p = o->priv;
	struct table *tf, *te, *tl, *tu;
	uint32_t *sel;
	size_t nr_sel = 0, want = a->env.flow_slowest ? a->env.flow_slowest : 20;
	int err;

	if ((err = link_stack(p)) || (err = make_flows(p)))
		return err;
	tl = an_output_table(a, o, "flow_layers", layer_cols,
			     sizeof(layer_cols) / sizeof(layer_cols[0]));
	tf = an_output_table(a, o, "flows", flow_cols,
			     sizeof(flow_cols) / sizeof(flow_cols[0]));
	te = an_output_table(a, o, "flow_events", event_cols,
			     sizeof(event_cols) / sizeof(event_cols[0]));
	tu = an_output_table(a, o, "flows_unfinished", unf_cols,
			     sizeof(unf_cols) / sizeof(unf_cols[0]));
	sel = malloc((p->nr_flows ? p->nr_flows : 1) * sizeof(*sel));
	if (!tf || !te || !tl || !tu || !sel) {
		free(sel);
		return -ENOMEM;
	}
	snprintf(tl->title, sizeof(tl->title),
		 "Where the flows' time went (critical path), %zu flows", p->nr_flows);
	if ((err = layers(a, p, tl))) {
		free(sel);
		return err;
	}
	if (a->env.flow_id) {
		if (a->env.flow_id <= p->nr_flows)
			sel[nr_sel++] = (uint32_t)(a->env.flow_id - 1);
		snprintf(tf->title, sizeof(tf->title), "Flow %llu",
			 (unsigned long long)a->env.flow_id);
	} else if (a->env.flow_where) {
		struct where_key *k =
		    malloc((p->nr_flows ? p->nr_flows : 1) * sizeof(*k));
		size_t n = 0;

		if (!k) {
			free(sel);
			return -ENOMEM;
		}
		for (size_t i = 0; i < p->nr_flows; i++) {
			uint64_t ns = where_ns(a, p, &p->flows[i]);

			if (ns)
				k[n++] = (struct where_key){(uint32_t)i, ns};
		}
		qsort(k, n, sizeof(*k), cmp_where);
		nr_sel = a->env.flow_slowest == SIZE_MAX || want > n ? n : want;
		for (size_t i = 0; i < nr_sel; i++)
			sel[i] = k[i].flow;
		free(k);
		snprintf(
		    tf->title, sizeof(tf->title),
		    "The %zu of %zu flows with the most time in %s on their critical "
		    "path (%zu have some)",
		    nr_sel, p->nr_flows, a->env.flow_where, n);
		if (!n)
			table_note(tf,
				   "no flow spent time in %s (layers: syscall, fault, "
				   "cache, queue, "
				   "device, loop; @ a device of the trace)",
				   a->env.flow_where);
	} else {
		nr_sel =
		    slowest(p, sel, a->env.flow_slowest == SIZE_MAX ? p->nr_flows : want);
		snprintf(tf->title, sizeof(tf->title), "The %zu slowest of %zu flows",
			 nr_sel, p->nr_flows);
	}
	for (size_t i = 0; i < nr_sel; i++)
		flow_row(a, p, tf, sel[i]);
	snprintf(te->title, sizeof(te->title),
		 "Their timelines (elapsed from each flow's start)");
	err = timeline(a, p, te, sel, nr_sel);
	p->sel = sel;
	p->nr_sel = nr_sel;
	if (err)
		return err;
	if (p->nr_stack)
		table_note(
		    tl,
		    "stacked devices, linked by the backing file's pages (page -> "
		    "inode of the lower bio): %llu lower requests read or wrote pages "
		    "of an upper request, %llu of the backing file no upper request "
		    "asked for; upper requests not followed: %llu on direct-I/O "
		    "loops, %llu over a file on no traced block device",
		    (unsigned long long)p->lower_linked,
		    (unsigned long long)p->lower_unlinked,
		    (unsigned long long)p->dio_unfollowed,
		    (unsigned long long)p->no_disk);
	if (a->env.flow_id && a->env.flow_id > p->nr_flows)
		table_note(tf, "no flow %llu: the trace has %zu",
			   (unsigned long long)a->env.flow_id, p->nr_flows);
	if ((err = unfinished_table(a, p, tu)))
		return err;
	return tf->err ? tf->err : te->err ? te->err : tl->err;
}

static void release(void *priv)
{
	struct fl_priv *p = priv;

	free(p->reqs);
	free(p->bios);
	free(p->sys);
	free(p->urings);
	free(p->flows);
	free(p->sel);
	free(p->links);
	free(p->mems);
	free(p->segs);
	free(p->dirty);
	free(p->faults);
	free(p->tasks);
	u64map_release(&p->task_of);
	free(p->maybe);
	free(p->unf);
}

/* a request's number in the trace, for the visitor: its index + 1 */
static int visit_req(const struct fl_priv *p, const struct flows_visitor *v, uint32_t fi,
		     uint32_t qi, uint32_t ui, int depth)
{
	const struct fl_req *q = &p->reqs[qi];
	int err =
	    v->request(v->ctx, fi + 1, qi + 1ull, &q->r, ui == NO_IDX ? 0 : ui + 1ull);

	for (uint32_t x = q->link0;
	     !err && x != NO_IDX && x < q->link0 + q->nr_links && depth + 1 < MAX_STACK;
	     x++)
		if (p->links[x].waited)
			err = visit_req(p, v, fi, p->links[x].lo, qi, depth + 1);
	return err;
}

extern const struct analyzer an_flows;

int flows_visit(const struct an_output *o, const struct flows_visitor *v)
{
	const struct fl_priv *p = o->priv;
	uint8_t *want;
	int err = 0;

	if (o->an != &an_flows)
		return -EINVAL;
	want = calloc(p->nr_flows ? p->nr_flows : 1, 1);
	if (!want)
		return -ENOMEM;
	for (size_t i = 0; i < p->nr_sel; i++)
		want[p->sel[i]] = 1;
	for (size_t i = 0; i < p->nr_sel && !err && v->flow; i++) {
		const struct flow *f = &p->flows[p->sel[i]];
		static const char *const kinds[] = {"syscall", "io_uring", "fault",
						    "cause"};
		uint64_t end = f->kind == FK_SYSCALL ? p->sys[f->root].exit_ns
			       : f->kind == FK_URING ? p->urings[f->root].u.cqe_ns
						     : 0;

		err = v->flow(v->ctx, p->sel[i] + 1, kinds[f->kind], f->start, end);
	}
	for (size_t i = 0; i < p->nr_sel && !err && v->syscall; i++) {
		const struct flow *f = &p->flows[p->sel[i]];

		if (f->kind == FK_SYSCALL)
			err = v->syscall(v->ctx, p->sel[i] + 1, &p->sys[f->root]);
	}
	for (size_t i = 0; i < p->nr_reqs && !err; i++) {
		const struct fl_req *q = &p->reqs[i];

		for (uint32_t k = 0; q->up == NO_IDX && k < q->nr_mem && !err; k++)
			if (want[p->mems[q->mem0 + k].flow])
				err = visit_req(p, v, p->mems[q->mem0 + k].flow,
						(uint32_t)i, NO_IDX, 0);
	}
	free(want);
	return err;
}

const struct analyzer an_flows = {
    .name = "flows",
    .help = "each I/O from its cause (call, io_uring, readahead, writeback) to "
	    "every device below, loop devices included",
    .priv_size = sizeof(struct fl_priv),
    .init = init,
    .merge = merge,
    .request = request,
    .bio = bio,
    .syscall = syscall,
    .uring = uring,
    .dirty = dirty,
    .fault = fault,
    .unfinished = unfinished,
    .finish = finish,
    .release = release,
};
