// SPDX-License-Identifier: GPL-2.0
/*
 * Trace file reader and per-CPU merge.
 *
 * Merge protocol (after perf's FINISHED_ROUND, tools/perf/util/session.c):
 * the recorder drains every CPU, then writes ROUND{mark_ns} where mark_ns was
 * read before that drain began. A record with ts < mark_ns(k) was reserved
 * before drain k began, so it is in drain k, or in drain k + 1 if its writer
 * was still filling the slot when the drain passed it. Hence:
 *
 *   read chunks up to ROUND k+1  ==>  every record with ts < mark_ns(k)
 *                                     is known and may be emitted
 *
 * so memory is bounded by about two rounds of records. Inside one CPU's
 * stream, records are in reservation order; an interrupt nesting between
 * reservation and timestamp can invert neighbours, which a sorted window of
 * READER_REORDER records per CPU undoes.
 *
 * A speculative trace (SPEC chunk) breaks the round invariant on purpose:
 * a request's records reach the buffer when it completes, with the older
 * timestamps of its Q, I and D. Such files hold only the committed
 * requests, so they are read through an index of every record sorted by
 * time (8 bytes per record) instead.
 */
#include "reader.h"
#include "ahead.h"
#include "pack.h"
#include "../util/grow.h"

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* An aligned copy of n bytes of the file (kept until release), or NULL. */
static void *copy_of(struct trace_reader *r, uint64_t offset, uint64_t n)
{
	void *p;

	if (GROW(r->copies, r->nr_copies + 1, r->cap_copies) || !(p = malloc(n ?: 1)))
		return NULL;
	memcpy(p, r->map + offset, n);
	r->copies[r->nr_copies++] = p;
	return p;
}

/* a chunk of whole records: a CPU's, the markers' or the repair's */
static bool has_recs(uint32_t type)
{
	return type == IOT_CHUNK_EVENTS || type == IOT_CHUNK_MARKS ||
	       type == IOT_CHUNK_REPAIR;
}

static int add_chunk(struct trace_reader *r, struct reader_chunk *c, size_t *cap)
{
	if (has_recs(c->type) && !c->recs && !c->packed_bytes) {
		/* records are read in place where the file keeps them 8-byte
		 * aligned, as iotrail's writer does; elsewhere from a copy */
		c->recs = c->offset % 8 ? copy_of(r, c->offset, c->size)
					: (const void *)(r->map + c->offset);
		if (!c->recs)
			return -ENOMEM;
	}
	if (GROW(r->chunks, r->nr_chunks + 1, *cap))
		return -ENOMEM;
	r->chunks[r->nr_chunks++] = *c;
	return 0;
}

static int cmp_task(const void *a, const void *b)
{
	const struct iot_task_entry *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

struct task_at {
	struct iot_task_entry e;
	size_t order; /* in the file */
};

static int cmp_task_at(const void *a, const void *b)
{
	const struct task_at *x = a, *y = b;

	if (x->e.tid != y->e.tid)
		return (x->e.tid > y->e.tid) - (x->e.tid < y->e.tid);
	return (x->order > y->order) - (x->order < y->order);
}

/* The task table by tid, one entry a tid: the last the file has. */
static int unique_tasks(struct trace_reader *r)
{
	struct iot_task_entry *t = (void *)r->tasks;
	struct task_at *a;
	size_t n = 0;

	if (r->nr_tasks < 2)
		return 0;
	a = malloc(r->nr_tasks * sizeof(*a));
	if (!a)
		return -ENOMEM;
	for (size_t i = 0; i < r->nr_tasks; i++)
		a[i] = (struct task_at){t[i], i};
	qsort(a, r->nr_tasks, sizeof(*a), cmp_task_at);
	for (size_t i = 0; i < r->nr_tasks; i++)
		if (i + 1 == r->nr_tasks || a[i + 1].e.tid != a[i].e.tid)
			t[n++] = a[i].e;
	r->nr_tasks = n;
	free(a);
	return 0;
}

/* Walk the chunk list once: index it, find the tables, stop at damage. */
static int cmp_file(const void *x, const void *y)
{
	const struct iot_file_entry *a = x, *b = y;

	if (a->ino != b->ino)
		return a->ino < b->ino ? -1 : 1;
	return (a->dev > b->dev) - (a->dev < b->dev);
}

/* A large trace's pages below upto (rounded down to a page) go, in steps
 * of READER_RELEASE_STEP from *from: read again from the file if touched */
static void let_go(const struct trace_reader *r, size_t *from, uint64_t upto)
{
	upto = upto / 4096 * 4096;
	if (r->size > READER_POPULATE_MAX && upto >= *from + READER_RELEASE_STEP) {
		madvise((void *)(r->map + *from), upto - *from, MADV_DONTNEED);
		*from = upto;
	}
}

/* A read's fault maps the pages around it, aligned to this (fault-around):
 * pages let go below a place still to be read stop short of its block */
#define FAULT_AROUND (64u << 10)
/* inside a large trace's packed chunk, pages go in steps of this many
 * bytes behind where it is read: a many-CPU recording's round of large
 * chunks would be held otherwise (16 CPUs' 15 MB chunks: 240 MB) */
#define READER_CHUNK_STEP (512u << 10)
/* a large chunk of records in place, read by one reader, is mapped this
 * many bytes at a time as it is read (populate), not whole */
#define READER_PACE_BYTES (2u << 20)

/* The map's pages from `from` (rounded up) to `to` (rounded down to its
 * fault-around block), both inside one packed chunk, let go if they are
 * READER_CHUNK_STEP or more: where they are let go up to, else from */
static const uint8_t *let_go_in(const uint8_t *from, const uint8_t *to)
{
	uintptr_t a = ((uintptr_t)from + 4095) & ~(uintptr_t)4095,
		  b = (uintptr_t)to & ~(uintptr_t)(FAULT_AROUND - 1);

	if (b < a + READER_CHUNK_STEP)
		return from;
	madvise((void *)a, b - a, MADV_DONTNEED);
	return (const uint8_t *)b;
}

/* After a packed chunk's records (payload[0..used)): the writer's zeros to
 * a multiple of 8 (up to 7; 8 zeros have always been let pass). */
static bool padding_ok(const uint8_t *payload, size_t used, size_t bytes)
{
	if (bytes - used > 8)
		return false;
	for (size_t k = used; k < bytes; k++)
		if (payload[k])
			return false;
	return true;
}

/*
 * An EVENTS_PACKED chunk of `have` bytes at off (its header's offset),
 * indexed as the EVENTS chunk it stands for; the merge unpacks it when it
 * reaches it (packed_bytes) and frees it behind it, so a packed trace's
 * records never all sit in memory. Every record is checked here, so damage
 * is found (and said) when the file is opened, as for every other chunk,
 * unless the check is deferred (threads) or left to the unpacking
 * (unchecked). A chunk the file cut short gives the whole records before
 * the cut. 0 to read on, 1 to stop at damage (said in r->warning), or
 * -ENOMEM.
 */
static int add_packed(struct trace_reader *r, uint64_t off, struct reader_chunk *rc,
		      uint64_t have, bool cut, size_t *cap)
{
	const uint8_t *in = r->map + rc->offset;
	struct iot_packed h = {0};
	size_t got, used = 0;
	uint64_t bytes;
	int err;

	if (have >= sizeof(h))
		memcpy(&h, in, sizeof(h));
	bytes = have >= sizeof(h) ? have - sizeof(h) : 0;
	/* a record takes 2 bytes at least: a count beyond that is damage,
	 * not an allocation to try */
	if (rc->cpu >= r->hdr.nr_cpus || (have < sizeof(h) && !cut) ||
	    (!cut && h.nr_recs > bytes / 2)) {
		snprintf(r->warning, sizeof(r->warning),
			 "%s: offset %llu: malformed packed events chunk (cpu %u, %llu "
			 "bytes, %llu records); stopped there",
			 r->path, (unsigned long long)off, rc->cpu,
			 (unsigned long long)have, (unsigned long long)h.nr_recs);
		return 1;
	}
	if (h.nr_recs > bytes / 2)
		h.nr_recs = bytes / 2; /* cut: at most what the bytes hold */
	/* indexed as the header says: not checked at all (its bytes checked
	 * as they are unpacked), or checked after the walk, in parallel
	 * (check_deferred). A chunk of no records is checked here: its
	 * payload may be no bytes at all, which a deferred chunk's
	 * packed_bytes (nonzero until checked) cannot say. */
	if (!cut && h.nr_recs && (r->unchecked || r->check_threads > 1)) {
		if (!r->unchecked) {
			if (GROW(r->deferred, r->nr_deferred + 1, r->cap_deferred))
				return -ENOMEM;
			r->deferred[r->nr_deferred++] = r->nr_chunks;
		}
		rc->type = IOT_CHUNK_EVENTS;
		rc->recs = NULL;
		/* unchecked: the whole payload (2 bytes a record at least, so
		 * never 0); deferred: set to the exact bytes then */
		rc->packed_bytes = bytes;
		rc->size = h.nr_recs * IOT_REC_SIZE;
		r->nr_records += h.nr_recs;
		return add_chunk(r, rc, cap);
	}
	got = iot_unpack_some(in + sizeof(h), bytes, NULL, h.nr_recs, &used);
	if (!cut && (got < h.nr_recs || !padding_ok(in + sizeof(h), used, bytes))) {
		snprintf(
		    r->warning, sizeof(r->warning),
		    "%s: offset %llu: packed events chunk damaged at offset %llu "
		    "(record %zu of %llu); read the records before it, stopped there",
		    r->path, (unsigned long long)off,
		    (unsigned long long)(rc->offset + sizeof(h) + used), got,
		    (unsigned long long)h.nr_recs);
		cut = true; /* what decoded is kept; nothing after it */
	}
	rc->type = IOT_CHUNK_EVENTS;
	rc->recs = NULL;
	rc->packed_bytes = used;
	rc->size = got * IOT_REC_SIZE;
	r->nr_records += got;
	err = add_chunk(r, rc, cap);
	return err ? err : cut;
}

struct deferred_check {
	struct trace_reader *r;
	size_t next; /* the next of r->deferred to take (atomic) */
	bool bad;    /* one failed: the file is indexed again */
};

static void *check_some(void *arg)
{
	struct deferred_check *dc = arg;
	struct trace_reader *r = dc->r;
	size_t k;

	while ((k = __atomic_fetch_add(&dc->next, 1, __ATOMIC_RELAXED)) <
		   r->nr_deferred &&
	       !__atomic_load_n(&dc->bad, __ATOMIC_RELAXED)) {
		struct reader_chunk *ch = &r->chunks[r->deferred[k]];
		size_t used;

		const uint8_t *in = r->map + ch->offset + sizeof(struct iot_packed);

		/* as add_packed checks it */
		if (iot_unpack_some(in, ch->packed_bytes, NULL, ch->size / IOT_REC_SIZE,
				    &used) == ch->size / IOT_REC_SIZE &&
		    padding_ok(in, used, ch->packed_bytes))
			ch->packed_bytes = used;
		else
			__atomic_store_n(&dc->bad, true, __ATOMIC_RELAXED);
		if (r->size > READER_POPULATE_MAX) {
			/* a trace larger than memory: its pages go as they are
			 * checked (those it shares with the chunks beside stay) */
			uint64_t from = (ch->offset + 4095) / 4096 * 4096,
				 to = (ch->offset + sizeof(struct iot_packed) +
				       ch->packed_bytes) /
				      4096 * 4096;

			if (to > from)
				madvise((void *)(r->map + from), to - from,
					MADV_DONTNEED);
		}
	}
	return NULL;
}

/* fn(arg) on n threads, this one among them (at most 64; fewer if the
 * system gives fewer: the others take their share) */
static void on_threads(void *(*fn)(void *), void *arg, unsigned int n)
{
	pthread_t th[64];
	unsigned int started = 0;

	if (n > 64)
		n = 64;
	for (; started + 1 < n; started++)
		if (pthread_create(&th[started], NULL, fn, arg))
			break;
	fn(arg);
	for (unsigned int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
}

/* The deferred chunks checked on r->check_threads threads. 0, or 1 when
 * one is damaged. */
static int check_deferred(struct trace_reader *r)
{
	struct deferred_check dc = {.r = r};
	unsigned int n = r->check_threads;

	if (n > r->nr_deferred)
		n = (unsigned int)r->nr_deferred;
	on_threads(check_some, &dc, n);
	return dc.bad ? 1 : 0;
}

/* The chunk header at off. A large trace's is read with pread: through
 * the map, each header's page fault would map (and the walk then let go)
 * the 64 KB around it, a quarter of a trace of 256 KB chunks. */
static void chunk_header(const struct trace_reader *r, int fd, uint64_t off,
			 struct iot_chunk *c)
{
	if (r->size > READER_POPULATE_MAX &&
	    pread(fd, c, sizeof(*c), (off_t)off) == (ssize_t)sizeof(*c))
		return;
	memcpy(c, r->map + off, sizeof(*c));
}

/* dev_order: the devices by dev_t, each dev's entries in file order (a
 * crafted table may name one twice; the first is the one found), for
 * trace_reader_dev's binary search: a server's table lists every block
 * device, and `who` asks once per readahead page. */
static int cmp_dev_order(const void *a, const void *b, void *devs)
{
	const struct iot_dev_entry *d = devs;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (d[x].dev != d[y].dev)
		return d[x].dev < d[y].dev ? -1 : 1;
	return (x > y) - (x < y);
}

static int index_devs(struct trace_reader *r)
{
	uint32_t *o = malloc((r->nr_devs ?: 1) * sizeof(*o));

	if (!o)
		return -ENOMEM;
	for (size_t i = 0; i < r->nr_devs; i++)
		o[i] = (uint32_t)i;
	qsort_r(o, r->nr_devs, sizeof(*o), cmp_dev_order, (void *)r->devs);
	free(r->dev_order);
	r->dev_order = o;
	return 0;
}

/* A DROPS_AT entry: CPU cpu had lost `all` by at->to_ns, the counts being
 * its totals. What grew since its last entry is a stretch of its own, or
 * the end of its last one when that one ended where this one begins (the
 * drain before): a CPU that drops at every drain for an hour is one
 * stretch, not 180,000 at 50 Hz. */
static int add_drops(struct trace_reader *r, const struct iot_drops_at *at, uint32_t cpu,
		     uint64_t all)
{
	struct drop_last *dl = &r->drop_last[cpu];
	uint64_t grew = all > dl->total ? all - dl->total : 0;
	struct iot_drop_stretch *last =
	    dl->last ? &r->drop_stretches[dl->last - 1] : NULL;

	dl->total = all;
	/* lost before the CPU's next chunk of records (gaps.h) */
	if (grew) {
		if (GROW(r->drop_pend, r->nr_drop_pend + 1, r->cap_drop_pend))
			return -ENOMEM;
		r->drop_pend[r->nr_drop_pend++] = (struct drop_pending){
		    .chunk = r->nr_chunks, .cpu = cpu, .lost = grew};
	}
	if (last && grew && last->drops && last->to_ns == at->from_ns &&
	    at->to_ns >= at->from_ns) {
		last->to_ns = at->to_ns;
		last->drains++;
		last->drops += grew;
		last->total = all;
		return 0;
	}
	if (GROW(r->drop_stretches, r->nr_drop_stretches + 1, r->cap_drop_stretches))
		return -ENOMEM;
	r->drop_stretches[r->nr_drop_stretches++] = (struct iot_drop_stretch){
	    .from_ns = at->from_ns,
	    .to_ns = at->to_ns,
	    .cpu = cpu,
	    .drains = 1,
	    .drops = grew,
	    .total = all,
	};
	dl->last = r->nr_drop_stretches;
	return 0;
}

/* drop_stretches' order: by CPU, then time; the file's order among equals
 * (a damaged file's) does not matter, as they are equal */
static int cmp_drops(const void *a, const void *b)
{
	const struct iot_drop_stretch *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->from_ns != y->from_ns)
		return x->from_ns < y->from_ns ? -1 : 1;
	if (x->to_ns != y->to_ns)
		return x->to_ns < y->to_ns ? -1 : 1;
	return x->drops < y->drops ? -1 : x->drops > y->drops;
}

const struct iot_drop_stretch *trace_cpu_drops(const struct iot_drop_stretch *st,
					       size_t nr, uint32_t cpu, size_t *n)
{
	size_t lo = 0, hi = nr, end;

	while (lo < hi) { /* the first of cpu or after */
		size_t mid = lo + (hi - lo) / 2;

		if (st[mid].cpu < cpu)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < nr && st[end].cpu == cpu; end++)
		;
	*n = end - lo;
	return *n ? &st[lo] : NULL;
}

static int index_chunks(struct trace_reader *r, int fd)
{
	uint64_t off = r->hdr.header_size;
	size_t walked = 0;
	size_t cap = 0;
	int err;

	while (off < r->size) {
		struct iot_chunk c;
		struct reader_chunk rc = {0};

		/* the pages each header's fault mapped around it go as the
		 * walk passes them */
		let_go(r, &walked, off);

		if (r->size - off < sizeof(c)) {
			snprintf(
			    r->warning, sizeof(r->warning),
			    "%s: offset %llu: truncated chunk header, %llu bytes ignored",
			    r->path, (unsigned long long)off,
			    (unsigned long long)(r->size - off));
			break;
		}
		chunk_header(r, fd, off, &c);
		if (!c.type || c.type > IOT_CHUNK_TYPE_MAX) {
			/* zeros, or garbage: nothing after it can be trusted */
			snprintf(r->warning, sizeof(r->warning),
				 "%s: offset %llu: not a chunk (type %u); %llu bytes "
				 "ignored",
				 r->path, (unsigned long long)off, c.type,
				 (unsigned long long)(r->size - off));
			break;
		}
		rc.type = c.type;
		rc.cpu = c.cpu;
		rc.offset = off + sizeof(c);
		rc.size = c.size;
		if (c.size > r->size - rc.offset) {
			uint64_t have = r->size - rc.offset;

			if (c.type == IOT_CHUNK_EVENTS_PACKED) {
				uint64_t upto = rc.offset;
				size_t before = r->nr_chunks;

				err = add_packed(r, off, &rc, have, true, &cap);
				if (err < 0)
					return err;
				if (r->nr_chunks == before)
					return 0; /* malformed: said there */
				/* its whole records end where decoding stopped */
				if (rc.packed_bytes)
					upto +=
					    sizeof(struct iot_packed) + rc.packed_bytes;
				snprintf(
				    r->warning, sizeof(r->warning),
				    "%s: offset %llu: chunk of %llu bytes cut short at "
				    "%llu; read up to offset %llu",
				    r->path, (unsigned long long)off,
				    (unsigned long long)c.size,
				    (unsigned long long)r->size,
				    (unsigned long long)upto);
				return 0;
			}

			if ((c.type == IOT_CHUNK_EVENTS && c.cpu < r->hdr.nr_cpus) ||
			    c.type == IOT_CHUNK_MARKS || c.type == IOT_CHUNK_REPAIR)
				rc.size = have - have % IOT_REC_SIZE;
			else
				rc.size = 0;
			if (c.type == IOT_CHUNK_MARKS)
				rc.cpu = r->hdr.nr_cpus; /* the markers' stream */
			if (c.type == IOT_CHUNK_REPAIR)
				rc.cpu = r->hdr.nr_cpus + 1; /* the repair's */
			snprintf(r->warning, sizeof(r->warning),
				 "%s: offset %llu: chunk of %llu bytes cut short at "
				 "%llu; read up to offset %llu",
				 r->path, (unsigned long long)off,
				 (unsigned long long)c.size, (unsigned long long)r->size,
				 (unsigned long long)(rc.offset + rc.size));
			if (rc.size) {
				err = add_chunk(r, &rc, &cap);
				if (err)
					return err;
				r->nr_records += rc.size / IOT_REC_SIZE;
			}
			break;
		}
		switch (c.type) {
		case IOT_CHUNK_EVENTS_PACKED:
			err = add_packed(r, off, &rc, c.size, false, &cap);
			if (err)
				return err < 0 ? err : 0;
			off = rc.offset + c.size;
			continue;
		case IOT_CHUNK_EVENTS:
			if (c.size % IOT_REC_SIZE || c.cpu >= r->hdr.nr_cpus) {
				snprintf(r->warning, sizeof(r->warning),
					 "%s: offset %llu: malformed events chunk (cpu "
					 "%u, %llu bytes); stopped there",
					 r->path, (unsigned long long)off, c.cpu,
					 (unsigned long long)c.size);
				return 0;
			}
			r->nr_records += c.size / IOT_REC_SIZE;
			break;
		case IOT_CHUNK_MARKS:  /* a stream after the CPUs' */
		case IOT_CHUNK_REPAIR: /* and the last, after the markers' */
			if (c.size % IOT_REC_SIZE) {
				snprintf(r->warning, sizeof(r->warning),
					 "%s: offset %llu: malformed %s chunk (%llu "
					 "bytes); stopped there",
					 r->path, (unsigned long long)off,
					 c.type == IOT_CHUNK_MARKS ? "markers" : "repair",
					 (unsigned long long)c.size);
				return 0;
			}
			rc.cpu = r->hdr.nr_cpus + (c.type == IOT_CHUNK_REPAIR);
			r->nr_records += c.size / IOT_REC_SIZE;
			break;
		case IOT_CHUNK_DEVICES: {
			/* a copy whose names are NUL-terminated whatever the
			 * file says */
			struct iot_dev_entry *d = malloc(c.size ?: 1);

			if (!d)
				return -ENOMEM;
			memcpy(d, r->map + rc.offset, c.size);
			r->nr_devs = c.size / sizeof(*d);
			for (size_t i = 0; i < r->nr_devs; i++)
				d[i].name[sizeof(d[i].name) - 1] = 0;
			free((void *)r->devs);
			r->devs = d;
			if (index_devs(r))
				return -ENOMEM;
			break;
		}
		case IOT_CHUNK_TASKS: {
			/* several: the recorder writes tasks as it meets them,
			 * and the whole table at the stop; appended here, sorted
			 * and made unique (the last entry of a tid) at the end */
			size_t n = c.size / sizeof(struct iot_task_entry);
			struct iot_task_entry *t = realloc(
			    (void *)r->tasks, (r->nr_tasks + n ?: 1) * sizeof(*t));

			if (!t)
				return -ENOMEM;
			memcpy(t + r->nr_tasks, r->map + rc.offset, n * sizeof(*t));
			for (size_t i = r->nr_tasks; i < r->nr_tasks + n; i++)
				t[i].comm[sizeof(t[i].comm) - 1] = 0;
			r->tasks = t;
			r->nr_tasks += n;
			break;
		}
		case IOT_CHUNK_CGROUPS: {
			size_t n = c.size / sizeof(struct iot_cgroup_entry);
			struct iot_cgroup_entry *g = copy_of(r, rc.offset, c.size);

			if (!g)
				return -ENOMEM;
			for (size_t i = 0; i < n; i++)
				g[i].path[sizeof(g[i].path) - 1] = 0;
			r->cgroups = g;
			r->nr_cgroups = n;
			break;
		}
		case IOT_CHUNK_FILES: {
			size_t n = c.size / sizeof(struct iot_file_entry);
			struct iot_file_entry *fe = copy_of(r, rc.offset, c.size);

			if (!fe)
				return -ENOMEM;
			for (size_t i = 0; i < n; i++) {
				/* what the recorder found at the stop, said in
				 * the name (our copy) */
				const char *say =
				    fe[i].flags & IOT_FILE_REUSED    ? " (inode reused)"
				    : fe[i].flags & IOT_FILE_DELETED ? " (deleted)"
								     : "";
				size_t room = sizeof(fe[i].path) - strlen(say) - 1;

				fe[i].path[sizeof(fe[i].path) - 1] = 0;
				if (say[0] && strlen(fe[i].path) > room)
					fe[i].path[room] = 0;
				if (say[0])
					strcat(fe[i].path, say);
			}
			qsort(fe, n, sizeof(*fe), cmp_file);
			r->files = fe;
			r->nr_files = n;
			break;
		}
		case IOT_CHUNK_DROPS_AT: {
			struct iot_drops_at at;
			size_t n =
			    c.size >= sizeof(at)
				? (c.size - sizeof(at)) / sizeof(struct iot_drop_entry)
				: 0;

			if (!n)
				break;
			memcpy(&at, r->map + rc.offset, sizeof(at));
			for (size_t i = 0; i < n; i++) {
				struct iot_drop_entry e;
				uint64_t all;

				memcpy(&e,
				       r->map + rc.offset + sizeof(at) + i * sizeof(e),
				       sizeof(e));
				all = iot_drop_total(&e);
				if (e.cpu >= r->hdr.nr_cpus)
					continue; /* damage */
				if (!r->drop_last &&
				    !(r->drop_last =
					  calloc(r->hdr.nr_cpus, sizeof(*r->drop_last))))
					return -ENOMEM;
				err = add_drops(r, &at, e.cpu, all);
				if (err)
					return err;
			}
			break;
		}
		case IOT_CHUNK_DROPS:
			r->drops = copy_of(r, rc.offset, c.size);
			if (!r->drops)
				return -ENOMEM;
			r->nr_drops = c.size / sizeof(struct iot_drop_entry);
			r->has_drops = true;
			break;
		case IOT_CHUNK_META:
			r->meta = (const char *)(r->map + rc.offset);
			r->meta_len = c.size;
			break;
		case IOT_CHUNK_AGG: {
			struct reader_chunk *n =
			    realloc(r->agg_list, (r->nr_aggs + 1) * sizeof(*n));

			if (!n)
				return -ENOMEM;
			r->agg_list = n;
			r->agg_list[r->nr_aggs++] = rc;
			r->aggs = r->agg_list;
			if (c.size >= sizeof(struct iot_agg_header)) {
				struct iot_agg_header h;

				memcpy(&h, r->map + rc.offset, sizeof(h));
				r->agg_lost += h.lost;
			}
			break;
		}
		case IOT_CHUNK_SPEC:
			if (c.size >= sizeof(r->spec)) {
				memcpy(&r->spec, r->map + rc.offset, sizeof(r->spec));
				r->has_spec = true;
			}
			break;
		case IOT_CHUNK_STOP:
			if (c.size >= sizeof(r->stop)) {
				memcpy(&r->stop, r->map + rc.offset, sizeof(r->stop));
				r->has_stop = true;
			}
			break;
		case IOT_CHUNK_END:
			/* 16 bytes in 1.0, trailing fields added since */
			if (c.size >= 16) {
				memcpy(&r->end, r->map + rc.offset,
				       c.size < sizeof(r->end) ? c.size : sizeof(r->end));
				r->has_end = true;
			}
			break;
		default:
			break; /* a newer minor version's chunk: skip */
		}
		if (c.type == IOT_CHUNK_ROUND && c.size >= sizeof(struct iot_round)) {
			struct iot_round rd;

			memcpy(&rd, r->map + rc.offset, sizeof(rd));
			if (rd.mark_ns > r->last_mark_ns)
				r->last_mark_ns = rd.mark_ns;
		}
		if (has_recs(c.type) || c.type == IOT_CHUNK_ROUND) {
			err = add_chunk(r, &rc, &cap);
			if (err)
				return err;
		}
		off = rc.offset + c.size;
	}
	if (r->nr_drop_stretches > 1)
		qsort(r->drop_stretches, r->nr_drop_stretches, sizeof(*r->drop_stretches),
		      cmp_drops);
	if (!r->has_end && !r->warning[0])
		snprintf(r->warning, sizeof(r->warning),
			 "%s: offset %llu: no end record (recording interrupted?); read "
			 "up to there",
			 r->path, (unsigned long long)r->size);
	return 0;
}

/* The tree's leaves: the streams that have records (at least one, so
 * that the tree has a winner). 0 or -ENOMEM. */
static int find_leaves(struct trace_reader *r)
{
	uint32_t n = 0;

	r->leaves = malloc(r->nr_streams * sizeof(*r->leaves));
	r->leaf_of = malloc(r->nr_streams * sizeof(*r->leaf_of));
	if (!r->leaves || !r->leaf_of)
		return -ENOMEM;
	memset(r->leaf_of, 0xff, r->nr_streams * sizeof(*r->leaf_of));
	for (size_t i = 0; i < r->nr_chunks; i++) {
		const struct reader_chunk *c = &r->chunks[i];

		if (has_recs(c->type) && c->cpu < r->nr_streams)
			r->leaf_of[c->cpu] = 0;
	}
	for (uint32_t s = 0; s < r->nr_streams; s++)
		if (!r->leaf_of[s]) {
			r->leaf_of[s] = n;
			r->leaves[n++] = s;
		}
	if (!n) {
		r->leaf_of[0] = 0;
		r->leaves[n++] = 0;
	}
	r->nr_leaves = n;
	return 0;
}

/* The merge's state for r->nr_streams streams, empty: 0 or -ENOMEM (what
 * was had is freed by free_merge) */
static int alloc_merge(struct trace_reader *r)
{
	r->cpus = calloc(r->nr_streams, sizeof(*r->cpus));
	r->key = calloc(r->nr_streams, sizeof(*r->key));
	/* build_tree's winners of every node */
	r->tree = calloc(2 * (size_t)r->nr_streams + 1, sizeof(*r->tree));
	r->node = calloc(r->nr_streams, sizeof(*r->node));
	r->next_seq = malloc(r->nr_streams * sizeof(*r->next_seq));
	r->stream_gaps = calloc(r->nr_streams, sizeof(*r->stream_gaps));
	if (!r->cpus || !r->key || !r->tree || !r->node || !r->next_seq ||
	    !r->stream_gaps)
		return -ENOMEM;
	memset(r->next_seq, 0xff, r->nr_streams * sizeof(*r->next_seq));
	return 0;
}

static void free_merge(struct trace_reader *r)
{
	if (r->cpus)
		for (uint32_t i = 0; i < r->nr_streams; i++) {
			free(r->cpus[i].spans);
			free(r->cpus[i].pool);
		}
	free(r->cpus);
	free(r->key);
	free(r->tree);
	free(r->node);
	free(r->next_seq);
	free(r->stream_gaps);
	free(r->degrades);
	trace_gaps_release(&r->gaps);
}

/* A records chunk's first record (a packed one's unpacked alone); false
 * when it does not unpack */
static bool chunk_first(const struct trace_reader *r, const struct reader_chunk *ch,
			struct iot_rec *first)
{
	size_t used;

	if (!ch->packed_bytes) {
		memcpy(first, ch->recs, sizeof(*first));
		return true;
	}
	return iot_unpack_some(r->map + ch->offset + sizeof(struct iot_packed),
			       ch->packed_bytes, first, 1, &used) == 1;
}

/* Each DROPS_AT entry's drops as a gap at its CPU's first record in a
 * chunk after it (gaps.h): a packed chunk's first record is unpacked for
 * it (alone). One pass over the chunks, the entries in file order. */
static int list_dropped(struct trace_reader *r)
{
	uint64_t *lost = NULL;
	size_t next = 0, walked = 0;
	int err = 0;

	if (!r->nr_drop_pend)
		return 0;
	lost = calloc(r->hdr.nr_cpus, sizeof(*lost));
	if (!lost)
		return -ENOMEM;
	for (size_t k = 0; k < r->nr_chunks && !err; k++) {
		const struct reader_chunk *ch = &r->chunks[k];
		struct iot_rec first;

		let_go(r, &walked, ch->offset); /* as index_chunks does */
		for (; next < r->nr_drop_pend && r->drop_pend[next].chunk <= k; next++)
			lost[r->drop_pend[next].cpu] += r->drop_pend[next].lost;
		if (!has_recs(ch->type) || ch->cpu >= r->hdr.nr_cpus || !ch->size ||
		    !lost[ch->cpu])
			continue;
		if (!chunk_first(r, ch, &first))
			continue; /* damage: the merge says so */
		err = trace_gaps_add_dropped(&r->gaps, ch->cpu, first.seq, first.ts_ns,
					     lost[ch->cpu]);
		lost[ch->cpu] = 0;
	}
	free(lost);
	free(r->drop_pend);
	r->drop_pend = NULL;
	r->nr_drop_pend = r->cap_drop_pend = 0;
	return err;
}

/* trace_reader_open_threads; 1 when a chunk checked after the walk is
 * damaged (nothing kept: the caller opens again on one thread) */
static int open_indexed(struct trace_reader *r, const char *path, unsigned int threads,
			bool unchecked, char *errbuf, size_t errlen)
{
	struct stat st;
	void *map = MAP_FAILED;
	int fd, err;

	memset(r, 0, sizeof(*r));
	r->check_threads = threads;
	r->ahead_max = READER_AHEAD_MAX_BYTES;
	r->unchecked = unchecked;
	r->path = strdup(path);
	if (!r->path)
		return -ENOMEM;
	/* O_NONBLOCK: a FIFO must not block the open; only regular files pass */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		err = -errno;
		snprintf(errbuf, errlen, "%s: %s", path, strerror(errno));
		goto cleanup;
	}
	if (fstat(fd, &st) < 0) {
		err = -errno;
		snprintf(errbuf, errlen, "%s: %s", path, strerror(errno));
		goto cleanup;
	}
	if (!S_ISREG(st.st_mode)) {
		err = -EINVAL;
		snprintf(errbuf, errlen, "%s: not a regular file", path);
		goto cleanup;
	}
	if ((size_t)st.st_size < sizeof(r->hdr)) {
		err = -EINVAL;
		snprintf(errbuf, errlen,
			 "%s: not an iotrail trace (%lld bytes, shorter than the "
			 "%zu-byte header)",
			 path, (long long)st.st_size, sizeof(r->hdr));
		goto cleanup;
	}
	/* populated at once: the whole file is read anyway, and one batch of
	 * mappings is cheaper than a page fault every few pages; but not a
	 * trace larger than READER_POPULATE_MAX, which may be larger than
	 * memory: its pages are mapped as read and let go behind the merge
	 * (release_behind) */
	map = mmap(NULL, st.st_size, PROT_READ,
		   MAP_PRIVATE |
		       ((uint64_t)st.st_size <= READER_POPULATE_MAX ? MAP_POPULATE : 0),
		   fd, 0);
	if (map == MAP_FAILED) {
		err = -errno;
		snprintf(errbuf, errlen, "%s: mmap: %s", path, strerror(errno));
		goto cleanup;
	}
	madvise(map, st.st_size, MADV_SEQUENTIAL);
	r->map = map;
	r->size = st.st_size;
	memcpy(&r->hdr, map, sizeof(r->hdr));
	if (memcmp(r->hdr.magic, IOT_MAGIC, 8) != 0) {
		err = -EINVAL;
		snprintf(errbuf, errlen, "%s: not an iotrail trace (offset 0: bad magic)",
			 path);
		goto cleanup;
	}
	if (r->hdr.version_major != IOT_VERSION_MAJOR) {
		err = -EINVAL;
		snprintf(errbuf, errlen,
			 "%s: trace format version %u.%u; this iotrail reads %u.x", path,
			 (unsigned int)r->hdr.version_major,
			 (unsigned int)r->hdr.version_minor,
			 (unsigned int)IOT_VERSION_MAJOR);
		goto cleanup;
	}
	if (r->hdr.header_size < sizeof(r->hdr) || r->hdr.header_size > r->size ||
	    r->hdr.rec_size != IOT_REC_SIZE || !r->hdr.nr_cpus ||
	    r->hdr.nr_cpus > IOT_MAX_CPUS) {
		err = -EINVAL;
		snprintf(errbuf, errlen,
			 "%s: offset 8: corrupt header (header_size %u, rec_size %u, "
			 "nr_cpus %u)",
			 path, r->hdr.header_size, r->hdr.rec_size, r->hdr.nr_cpus);
		goto cleanup;
	}
	/* the streams' gaps: the drains that found drops are listed as the
	 * chunks are indexed */
	if (trace_gaps_init(&r->gaps, r->hdr.nr_cpus + 2)) {
		err = -ENOMEM;
		snprintf(errbuf, errlen, "%s: out of memory", path);
		goto cleanup;
	}
	err = index_chunks(r, fd);
	if (!err && r->nr_deferred && (err = check_deferred(r)) > 0)
		goto cleanup; /* damage: indexed again, on one thread */
	if (!err)
		err = unique_tasks(r);
	if (!err)
		err = list_dropped(r);
	if (err) {
		snprintf(errbuf, errlen, "%s: %s", path, strerror(-err));
		goto cleanup;
	}
	/* the walk over the chunks' headers mapped a few pages around each
	 * (fault-around): a large trace lets them go until the merge needs
	 * them, so what stays mapped is what release_behind leaves */
	if (r->size > READER_POPULATE_MAX)
		madvise((void *)r->map, r->size, MADV_DONTNEED);
	/* the CPUs, then the markers, then the repair's estimates */
	r->nr_streams = r->hdr.nr_cpus + 2;
	if (find_leaves(r) || alloc_merge(r)) {
		err = -ENOMEM;
		snprintf(errbuf, errlen, "%s: out of memory", path);
		goto cleanup;
	}
	close(fd);
	return 0;
cleanup:
	if (fd >= 0)
		close(fd);
	trace_reader_release(r);
	return err;
}

int trace_reader_open_threads(struct trace_reader *r, const char *path,
			      unsigned int threads, char *errbuf, size_t errlen)
{
	int err = open_indexed(r, path, threads, false, errbuf, errlen);

	return err > 0 ? open_indexed(r, path, 1, false, errbuf, errlen) : err;
}

int trace_reader_open_unchecked(struct trace_reader *r, const char *path,
				unsigned int threads, char *errbuf, size_t errlen)
{
	int err = open_indexed(r, path, threads, true, errbuf, errlen);

	return err > 0 ? open_indexed(r, path, 1, true, errbuf, errlen) : err;
}

int trace_reader_open(struct trace_reader *r, const char *path, char *errbuf,
		      size_t errlen)
{
	return open_indexed(r, path, 1, false, errbuf, errlen);
}

/* packed chunk ch's records into out (room for all): false on damage,
 * or when the file changed under us */
static bool unpack_into(const struct trace_reader *r, const struct reader_chunk *ch,
			struct iot_rec *out)
{
	uint64_t n = ch->size / IOT_REC_SIZE;
	const uint8_t *in = r->map + ch->offset + sizeof(struct iot_packed);
	size_t used;

	return iot_unpack_some(in, ch->packed_bytes, out, n, &used) == n &&
	       /* checked at the open (every chunk of no record too): used
		* is packed_bytes */
	       (!r->unchecked || !n || padding_ok(in, used, ch->packed_bytes));
}

struct iot_rec *trace_reader_unpack(const struct trace_reader *r,
				    const struct reader_chunk *ch)
{
	uint64_t n = ch->size / IOT_REC_SIZE;
	struct iot_rec *recs = malloc((n ?: 1) * sizeof(*recs));

	if (recs && !unpack_into(r, ch, recs)) {
		free(recs);
		recs = NULL;
	}
	return recs;
}

/* Workers to unpack the packed chunks ahead of the merge, if threads are to
 * be had: started when the merge reaches the first (chunk k) */
static void start_ahead(struct trace_reader *r, size_t k)
{
	unsigned int w = r->check_threads >= 4 ? r->check_threads - 2 : 0;
	uint64_t largest = 0; /* a packed chunk's records, unpacked */
	size_t *todo, n = 0;

	r->ahead_tried = true;
	for (size_t i = k; i < r->nr_chunks; i++)
		if (has_recs(r->chunks[i].type) && r->chunks[i].packed_bytes &&
		    r->chunks[i].size > largest)
			largest = r->chunks[i].size;
	/* whole only where few streams' are in the merge at once */
	r->lazy = r->nr_leaves >= READER_LAZY_STREAMS || largest > READER_WHOLE_MAX;
	if (w > READER_AHEAD_MAX_WORKERS)
		w = READER_AHEAD_MAX_WORKERS;
	/* ahead, chunks are held whole: measured, about five a stream (the
	 * rounds the merge holds, and what the arenas keep of those freed),
	 * and two a worker */
	if (!w || (5 * (uint64_t)r->nr_leaves + 2 * w) * largest > r->ahead_max)
		return;
	todo = malloc((r->nr_chunks - k) * sizeof(*todo));
	if (!todo)
		return;
	/* the merge's own test, in its order */
	for (size_t i = k; i < r->nr_chunks; i++)
		if (has_recs(r->chunks[i].type) && r->chunks[i].packed_bytes)
			todo[n++] = i;
	r->ahead = ahead_start(r, todo, n, w);
}

/* The records of packed chunk k, for the merge: the caller's to free */
static struct iot_rec *unpack_at(struct trace_reader *r, size_t k)
{
	if (!r->ahead_tried)
		start_ahead(r, k);
	return r->ahead ? ahead_take(r->ahead, k) : trace_reader_unpack(r, &r->chunks[k]);
}

/* The buffers of packed chunks the merge has left behind: no window and no
 * span of their stream points into them. */
static void free_behind(struct trace_reader *r)
{
	for (size_t k = 0; k < r->nr_live;) {
		const struct reader_unpacked *u = &r->live[k];
		const struct reader_cpu *c = &r->cpus[u->stream];
		bool used = false;

		for (unsigned int w = 0; w < c->win_count && !used; w++) {
			const struct iot_rec *p =
			    c->win[(c->win_start + w) % READER_REORDER];

			used = p >= u->recs && p < u->recs + u->n;
		}
		for (size_t sp = c->first_span; sp < c->nr_spans && !used; sp++)
			used =
			    c->spans[sp].p >= u->recs && c->spans[sp].p < u->recs + u->n;
		if (used) {
			k++;
			continue;
		}
		free(u->recs);
		r->live[k] = r->live[--r->nr_live];
	}
}

static void free_live(struct trace_reader *r)
{
	for (size_t k = 0; k < r->nr_live; k++)
		free(r->live[k].recs);
	r->nr_live = 0;
}

/* Every slot of c's pool free, nothing staged */
static void pool_reset(struct reader_cpu *c)
{
	for (unsigned int k = 0; k < READER_POOL; k++)
		c->free_slot[k] = (uint8_t)k;
	c->nr_free = READER_POOL;
	c->stage_at = c->stage_n = 0;
}

void trace_reader_rewind(struct trace_reader *r)
{
	for (uint32_t i = 0; i < r->nr_streams; i++) {
		struct reader_cpu *c = &r->cpus[i];

		c->nr_spans = c->first_span = 0;
		c->win_start = c->win_count = 0;
		if (c->pool)
			pool_reset(c);
	}
	r->nr_held = 0;
	r->lazy_err = 0;
	r->released = 0;
	r->tree_ok = false;
	free_live(r);
	if (r->ahead)
		ahead_reset(r->ahead);
	memset(r->next_seq, 0xff, r->nr_streams * sizeof(*r->next_seq));
	r->next_chunk = 0;
	r->limit_ns = r->prev_mark_ns = 0;
	r->nr_degrades = 0;
	r->nr_summaries = 0;
	if (!r->sorted) { /* the sorted index counted them once and for all */
		r->nr_gaps = 0;
		memset(r->stream_gaps, 0, r->nr_streams * sizeof(*r->stream_gaps));
		trace_gaps_clear(&r->gaps);
	}
	r->next_sorted = 0;
}

static int cmp_rec_ptr(const void *a, const void *b)
{
	const struct iot_rec *x = *(const struct iot_rec *const *)a;
	const struct iot_rec *y = *(const struct iot_rec *const *)b;

	if (x->ts_ns != y->ts_ns)
		return x->ts_ns < y->ts_ns ? -1 : 1;
	return (x > y) - (x < y); /* file order: stable */
}

/* The sorted index of a speculative trace, gaps counted per CPU as the
 * merge would. Built once; a rewind keeps it. */
static int build_sorted(struct trace_reader *r)
{
	uint64_t n = 0, gaps = 0;

	r->sorted = malloc((r->nr_records ?: 1) * sizeof(*r->sorted));
	if (!r->sorted)
		return -ENOMEM;
	for (size_t i = 0; i < r->nr_chunks; i++) {
		struct reader_chunk *ch = &r->chunks[i];
		const struct iot_rec *p;

		if (!has_recs(ch->type))
			continue;
		if (ch->packed_bytes) { /* every pointer is kept: unpacked for good */
			struct iot_rec *u = trace_reader_unpack(r, ch);

			if (!u || GROW(r->copies, r->nr_copies + 1, r->cap_copies)) {
				free(u);
				return -ENOMEM;
			}
			r->copies[r->nr_copies++] = u;
			ch->recs = u;
			ch->packed_bytes = 0;
		}
		p = ch->recs;
		for (uint64_t k = 0; k < ch->size / IOT_REC_SIZE && n < r->nr_records;
		     k++) {
			uint64_t *next = &r->next_seq[ch->cpu];

			if (*next != UINT64_MAX && p[k].seq > *next) {
				gaps += p[k].seq - *next;
				r->stream_gaps[ch->cpu] += p[k].seq - *next;
				if (trace_gaps_add(&r->gaps, ch->cpu, p[k].seq,
						   p[k].ts_ns, p[k].seq - *next))
					return -ENOMEM;
			}
			*next = p[k].seq + 1;
			r->sorted[n++] = &p[k];
		}
	}
	qsort(r->sorted, n, sizeof(*r->sorted), cmp_rec_ptr);
	r->nr_sorted = n;
	r->nr_gaps = gaps;
	return 0;
}

/* A new span at the end of c's queue (room made), or NULL out of memory */
static struct reader_span *span_new(struct reader_cpu *c)
{
	if (c->first_span == c->nr_spans)
		c->first_span = c->nr_spans = 0;
	if (c->nr_spans == c->cap_spans) {
		if (c->first_span) { /* compact before growing */
			memmove(c->spans, c->spans + c->first_span,
				(c->nr_spans - c->first_span) * sizeof(*c->spans));
			c->nr_spans -= c->first_span;
			c->first_span = 0;
		}
		if (GROW(c->spans, c->nr_spans + 1, c->cap_spans))
			return NULL;
	}
	return &c->spans[c->nr_spans++];
}

static int push_span(struct reader_cpu *c, const struct iot_rec *p, uint64_t n)
{
	struct reader_span *s;

	if (!n) /* an empty chunk: nothing to read, maybe not even mapped */
		return 0;
	if (!(s = span_new(c)))
		return -ENOMEM;
	*s = (struct reader_span){.p = p, .n = n};
	return 0;
}

/* A large trace's chunk, mapped in one call as it joins the merge: the
 * page faults of reading it would cost more (a small trace is mapped
 * whole at the open). Best effort: a kernel without MADV_POPULATE_READ
 * (5.14) leaves it to the faults. */
static void populate(const struct iot_rec *p, uint64_t size)
{
	uintptr_t from = (uintptr_t)p & ~(uintptr_t)4095;
	uintptr_t to = (uintptr_t)p + size;

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
	madvise((void *)from, to - from, MADV_POPULATE_READ);
}

/* A large trace's chunk of records in place, for one reader: mapped
 * READER_PACE_BYTES at a time as the merge reads it, its pages let go
 * behind (pace), so that a round of large chunks (16 CPUs' 60 MB) is not
 * held whole. 0 or -ENOMEM. */
static int push_paced(struct reader_cpu *c, const struct iot_rec *p, uint64_t n)
{
	const uint64_t step = READER_PACE_BYTES / IOT_REC_SIZE;
	struct reader_span *s;

	if (push_span(c, p, n))
		return -ENOMEM;
	if (!n)
		return 0;
	s = &c->spans[c->nr_spans - 1];
	s->pop = p + (n < step ? n : step);
	populate(p, (uint64_t)(s->pop - p) * IOT_REC_SIZE);
	s->kept = (const uint8_t *)p;
	s->edge = n > step ? p + step / 2 : NULL;
	return 0;
}

/* Span s of records in place reached its edge at x: the next step mapped,
 * the pages behind let go but for the window's and the caller's records
 * (READER_REORDER + READER_BATCH_MAX, well within the 64 KB kept) */
static void __attribute__((noinline)) pace(struct reader_span *s, const struct iot_rec *x)
{
	const uint64_t step = READER_PACE_BYTES / IOT_REC_SIZE;
	const struct iot_rec *end = x + s->n;
	uint64_t more = (uint64_t)(end - s->pop) < step ? (uint64_t)(end - s->pop) : step;

	populate(s->pop, more * IOT_REC_SIZE);
	s->pop += more;
	s->edge = s->pop < end ? s->pop - step / 2 : NULL;
	s->kept =
	    let_go_in(s->kept, (const uint8_t *)(x - READER_REORDER - READER_BATCH_MAX));
}

/* Packed chunk ch's records to be unpacked as the merge reaches them (its
 * stream's pool made at its first): from the record after cp (NULL: the
 * first), those in [from, to) when filtered. 0 or -ENOMEM. */
static int push_packed(const struct trace_reader *r, struct reader_cpu *c,
		       const struct reader_chunk *ch, const struct reader_cp *cp,
		       bool filtered, uint64_t from, uint64_t to)
{
	uint64_t n = ch->size / IOT_REC_SIZE, off = cp ? cp->off : 0;
	struct reader_span *s;

	if (cp && cp->idx >= n)
		return 0;
	if (!n)
		return 0;
	if (!c->pool) {
		c->pool = malloc((READER_POOL + READER_STAGE) * sizeof(*c->pool));
		if (!c->pool)
			return -ENOMEM;
		c->stage = c->pool + READER_POOL;
		pool_reset(c);
	}
	if (!(s = span_new(c)))
		return -ENOMEM;
	*s = (struct reader_span){
	    .n = n - (cp ? cp->idx : 0),
	    .in = r->map + ch->offset + sizeof(struct iot_packed) + off,
	    .len = ch->packed_bytes - off,
	    .kept = r->map + ch->offset + sizeof(struct iot_packed) + off,
	    .filtered = filtered,
	    .tail = UINT_MAX,
	    .from = from,
	    .to = to};
	if (cp)
		s->u = cp->u;
	else
		iot_unpack_begin(&s->u);
	return 0;
}

/* c's next staged record, copied into a free slot of its pool */
static inline __attribute__((always_inline)) struct iot_rec *
take_staged(struct reader_cpu *c)
{
	struct iot_rec *slot = &c->pool[c->free_slot[--c->nr_free]];

	*slot = c->stage[c->stage_at++];
	return slot;
}

/* The next record of packed span s, unpacked into a slot of c's pool; NULL
 * at the end of a filtered span (the rest outside its stretch), or, with
 * r->lazy_err set, when it does not unpack: damage the open did not check
 * for (trace_reader_open_unchecked), found here as by a whole unpacking.
 * unpack_next is the common case, inlined in the merge's refill: a record
 * staged, the span whole, a slot free (a call a record was 19 of the
 * merge's 190 instructions a record, 16 CPUs' zram trace). */
static __attribute__((noinline)) const struct iot_rec *
unpack_next_slow(struct trace_reader *r, struct reader_cpu *c, struct reader_span *s)
{
	const struct iot_rec *x;

	for (;;) {
		if (c->stage_at == c->stage_n) { /* s->n left, none staged */
			unsigned int k =
			    s->n < READER_STAGE ? (unsigned int)s->n : READER_STAGE;
			size_t used;

			if (!k)
				return NULL; /* a filtered span's end */
			if (iot_unpack_more(&s->u, s->in, s->len, c->stage, k, &used) !=
			    k) {
				r->lazy_err = -EINVAL;
				return NULL;
			}
			s->in += used;
			s->len -= used;
			/* one reader: the chunk's pages behind it go (the
			 * segments' go as they are done) */
			if (!s->filtered && r->size > READER_POPULATE_MAX &&
			    (size_t)(s->in - s->kept) > READER_CHUNK_STEP + FAULT_AROUND)
				s->kept = let_go_in(s->kept, s->in);
			if (k == s->n && r->unchecked && !padding_ok(s->in, 0, s->len)) {
				r->lazy_err = -EINVAL; /* bytes after the last record */
				return NULL;
			}
			c->stage_at = 0;
			c->stage_n = k;
		}
		x = &c->stage[c->stage_at];
		if (!s->filtered || (x->ts_ns >= s->from && x->ts_ns < s->to))
			break;
		/* outside the segment's stretch: passed over (counted from the
		 * first at to or later, only these: the records of the stretch
		 * after it are fewer than READER_REORDER, so READER_REORDER
		 * passed over are past them all) */
		c->stage_at++;
		s->n--;
		if (x->ts_ns >= s->to && s->tail == UINT_MAX)
			s->tail = READER_REORDER;
		if (s->tail != UINT_MAX && (!s->tail-- || !s->n)) {
			c->stage_at = c->stage_n; /* the rest are all later */
			s->n = 0;
			return NULL;
		}
		if (!s->n)
			return NULL;
	}
	if (!c->nr_free) { /* more held than a window and a batch */
		r->lazy_err = -ENOMEM;
		return NULL;
	}
	return take_staged(c);
}

static inline __attribute__((always_inline)) const struct iot_rec *
unpack_next(struct trace_reader *r, struct reader_cpu *c, struct reader_span *s)
{
	if (c->stage_at == c->stage_n || s->filtered || !c->nr_free)
		return unpack_next_slow(r, c, s);
	return take_staged(c);
}

/* The slots of the records returned by the last call free again */
static void release_held(struct trace_reader *r)
{
	for (unsigned int k = 0; k < r->nr_held; k++) {
		struct reader_cpu *c = &r->cpus[r->held[k].stream];

		c->free_slot[c->nr_free++] = (uint8_t)r->held[k].slot;
	}
	r->nr_held = 0;
}

/* A back-pressure mark of a CPU's, taken in that CPU's order: a stretch
 * begins, or the CPU's open one ends. The list is kept sorted by (begin,
 * CPU), so that it is the same whatever order the CPUs' marks come in (the
 * merge's windows, or the plan's chunks: trace_reader_plan); a CPU's
 * stretches begin in time order, so its open one is its last. Out of
 * memory, the stretch is not listed (the marks stay in the trace). */
static void note_degrade_in(struct iot_degrade_stretch **v, size_t *nr, size_t *cap,
			    uint32_t cpu, const struct iot_rec *x)
{
	size_t i = *nr;

	if (x->flags == IOT_DEGRADE_BEGIN) {
		if (GROW(*v, *nr + 1, *cap))
			return;
		/* from the back: nearly always zero steps */
		while (i > 0 &&
		       ((*v)[i - 1].from_ns > x->ts_ns ||
			((*v)[i - 1].from_ns == x->ts_ns && (*v)[i - 1].cpu > cpu)))
			i--;
		memmove(*v + i + 1, *v + i, (*nr - i) * sizeof(**v));
		(*v)[i] = (struct iot_degrade_stretch){.from_ns = x->ts_ns, .cpu = cpu};
		(*nr)++;
		return;
	}
	while (i-- > 0)
		if ((*v)[i].cpu == cpu) {
			if (!(*v)[i].to_ns) {
				(*v)[i].to_ns = x->ts_ns;
				(*v)[i].skipped = x->id2;
			}
			return;
		}
}

static void note_degrade(struct trace_reader *r, uint32_t cpu, const struct iot_rec *x)
{
	note_degrade_in(&r->degrades, &r->nr_degrades, &r->cap_degrades, cpu, x);
}

/* Fill the CPU's sorted window from its spans (inlined: after the first
 * fill it takes one record per record returned). */
static inline __attribute__((always_inline)) void
refill(struct trace_reader *r, struct reader_cpu *c, uint32_t cpu)
{
	while (c->win_count < READER_REORDER && c->first_span < c->nr_spans) {
		struct reader_span *s = &c->spans[c->first_span];
		const struct iot_rec *x = s->p;
		unsigned int i = c->win_count;

		if (x) {
			/* 16 streams interleaved are more than the hardware
			 * prefetcher follows: 4 records ahead (tried 4 to 16) */
			__builtin_prefetch(x + 4);
			if (__builtin_expect(x == s->edge, 0))
				pace(s, x);
			s->p++;
		} else if (!(x = unpack_next(r, c, s))) {
			if (!r->lazy_err) { /* a segment's span: the rest later */
				c->first_span++;
				continue;
			}
			c->first_span = c->nr_spans; /* damaged: the stream ends */
			break;
		}
		/* a gap before a CPU's first record is no loss: a ring
		 * recording starts where the oldest kept record starts */
		if (x->seq > r->next_seq[cpu] && r->next_seq[cpu] != UINT64_MAX) {
			r->nr_gaps += x->seq - r->next_seq[cpu];
			r->stream_gaps[cpu] += x->seq - r->next_seq[cpu];
			/* out of memory, the gap goes unlisted: a call across
			 * it is paired as though nothing were lost */
			trace_gaps_add(&r->gaps, cpu, x->seq, x->ts_ns,
				       x->seq - r->next_seq[cpu]);
		}
		r->next_seq[cpu] = x->seq + 1;
		if (x->type == IOT_EV_SUMMARY)
			r->nr_summaries++;
		else if (x->type == IOT_EV_DEGRADE)
			note_degrade(r, cpu, x);
		/* insertion from the back: nearly always zero steps */
		while (i > 0) {
			const struct iot_rec *prev =
			    c->win[(c->win_start + i - 1) % READER_REORDER];
			if (prev->ts_ns <= x->ts_ns)
				break;
			c->win[(c->win_start + i) % READER_REORDER] = prev;
			i--;
		}
		c->win[(c->win_start + i) % READER_REORDER] = x;
		c->win_count++;
		if (--s->n == 0)
			c->first_span++;
	}
}

/* A trace larger than READER_POPULATE_MAX: the pages of the file behind
 * every record still to be returned are let go (MADV_DONTNEED), so the
 * process holds about two rounds of the file, whatever its size. A page
 * let go is read again from the file if touched again (the tables, a
 * pointer the caller kept): never wrong, only slower. */
static void release_behind(struct trace_reader *r)
{
	const uint8_t *low = r->next_chunk < r->nr_chunks
				 ? r->map + r->chunks[r->next_chunk].offset
				 : r->map + r->size;
	if (r->size <= READER_POPULATE_MAX)
		return;
	for (uint32_t j = 0; j < r->nr_leaves; j++) {
		const struct reader_cpu *c = &r->cpus[r->leaves[j]];

		for (unsigned int k = 0; k < c->win_count; k++) {
			const uint8_t *p =
			    (const uint8_t *)c->win[(c->win_start + k) % READER_REORDER];

			if (p >= r->map && p < low)
				low = p;
		}
		if (c->first_span < c->nr_spans) {
			const struct reader_span *s = &c->spans[c->first_span];
			/* records in place, or the packed bytes still to read */
			const uint8_t *p = s->p ? (const uint8_t *)s->p : s->in;

			if (p >= r->map && p < low)
				low = p;
		}
	}
	let_go(r, &r->released, (uint64_t)(low - r->map));
}

/* Stream i's key: its first record's time, UINT64_MAX when it has none
 * (a record of that time is never returned: nothing is before the limit) */
static inline uint64_t head_key(const struct trace_reader *r, uint32_t i)
{
	const struct reader_cpu *c = &r->cpus[i];

	return c->win_count ? c->win[c->win_start]->ts_ns : UINT64_MAX;
}

/* Whether stream a, whose key is ka, goes before stream b: by time, then
 * the lower stream */
static inline bool before(uint64_t ka, uint32_t a, uint64_t kb, uint32_t b)
{
	return ka < kb || (ka == kb && a < b);
}

/* Every stream's window filled from its spans, and the tree played from
 * the leaves up: after the open, a rewind, or a round's new spans. */
static void build_tree(struct trace_reader *r)
{
	uint32_t k = r->nr_leaves, *win = r->tree; /* win[1, 2k): node n's winner */

	for (uint32_t j = 0; j < k; j++) {
		uint32_t i = r->leaves[j];

		refill(r, &r->cpus[i], i);
		r->key[i] = head_key(r, i);
		win[k + j] = i; /* the leaves */
	}
	for (uint32_t n = k; n-- > 1;) {
		uint32_t a = win[2 * n], b = win[2 * n + 1];
		bool b_wins = before(r->key[b], b, r->key[a], a);
		uint32_t l = b_wins ? a : b;

		win[n] = b_wins ? b : a;
		r->node[n] = (struct reader_node){.key = r->key[l], .s = l};
	}
	r->node[0] = (struct reader_node){.key = r->key[win[1]], .s = win[1]};
	r->tree_ok = true;
}

/* Stream s's key changed (it gave its first record): its matches played
 * again, from its leaf to the root. With a branch: selects were slower,
 * even where the CPUs' records interleave one by one (ARCHITECTURE). */
static inline void replay(struct trace_reader *r, uint32_t s)
{
	uint64_t kw = head_key(r, s);
	uint32_t w = s;

	for (uint32_t n = (r->leaf_of[s] + r->nr_leaves) >> 1; n; n >>= 1) {
		struct reader_node *x = &r->node[n];
		uint64_t kl = x->key;
		uint32_t l = x->s;
		if (before(kl, l, kw, w)) { /* it wins; the winner stays here */
			x->key = kw;
			x->s = w;
			kw = kl;
			w = l;
		}
	}
	r->node[0].key = kw;
	r->node[0].s = w;
}

/* The winner's first record (stream i's, before the limit) taken */
static inline __attribute__((always_inline)) const struct iot_rec *
take_head(struct trace_reader *r, uint32_t i)
{
	struct reader_cpu *c = &r->cpus[i];
	const struct iot_rec *x = c->win[c->win_start];

	/* a slot of the pool: held until the next call (nr_held stays below
	 * READER_BATCH_MAX: a call returns no more) */
	if (c->pool && x >= c->pool && x < c->pool + READER_POOL)
		r->held[r->nr_held++] = (struct reader_held){i, (uint32_t)(x - c->pool)};
	c->win_start = (c->win_start + 1) % READER_REORDER;
	c->win_count--;
	refill(r, c, i);
	replay(r, i);
	return x;
}

int trace_reader_next(struct trace_reader *r, const struct iot_rec **rec)
{
	if (r->nr_held)
		release_held(r);
	if (r->lazy_err)
		return r->lazy_err;
	if (r->has_spec) {
		if (!r->sorted && build_sorted(r))
			return -ENOMEM;
		if (r->next_sorted >= r->nr_sorted)
			return 0;
		*rec = r->sorted[r->next_sorted++];
		return 1;
	}
	for (;;) {
		if (!r->tree_ok)
			build_tree(r);
		if (r->node[0].key < r->limit_ns) {
			*rec = take_head(r, r->node[0].s);
			return 1;
		}
		if (r->next_chunk >= r->nr_chunks) {
			if (r->limit_ns == UINT64_MAX)
				return r->lazy_err; /* 0: the end */
			r->limit_ns = UINT64_MAX;
			continue;
		}
		/* nothing may be emitted yet: read on to the next round */
		while (r->next_chunk < r->nr_chunks) {
			const struct reader_chunk *ch = &r->chunks[r->next_chunk++];

			if (has_recs(ch->type)) {
				const struct iot_rec *p = ch->recs;

				if (ch->packed_bytes && !r->ahead_tried)
					start_ahead(r, r->next_chunk - 1);
				if (ch->packed_bytes && !r->ahead && r->lazy) {
					if (push_packed(r, &r->cpus[ch->cpu], ch, NULL,
							false, 0, 0))
						return -ENOMEM;
					r->tree_ok = false;
					continue;
				}
				if (ch->packed_bytes) {
					struct iot_rec *u =
					    unpack_at(r, r->next_chunk - 1);

					if (!u ||
					    GROW(r->live, r->nr_live + 1, r->cap_live)) {
						free(u);
						return -ENOMEM;
					}
					r->live[r->nr_live++] = (struct reader_unpacked){
					    u, ch->size / IOT_REC_SIZE, ch->cpu};
					p = u;
				} else if (r->size > READER_POPULATE_MAX) {
					if (push_paced(&r->cpus[ch->cpu], p,
						       ch->size / IOT_REC_SIZE))
						return -ENOMEM;
					r->tree_ok = false;
					continue;
				}
				if (push_span(&r->cpus[ch->cpu], p,
					      ch->size / IOT_REC_SIZE))
					return -ENOMEM;
				r->tree_ok = false;
			} else if (ch->type == IOT_CHUNK_ROUND &&
				   ch->size >= sizeof(struct iot_round)) {
				struct iot_round rd;

				memcpy(&rd, r->map + ch->offset, sizeof(rd));
				r->limit_ns = r->prev_mark_ns;
				r->prev_mark_ns = rd.mark_ns;
				release_behind(r);
				free_behind(r);
				break;
			}
		}
	}
}

int trace_reader_next_batch(struct trace_reader *r, const struct iot_rec **recs,
			    unsigned int max)
{
	unsigned int n = 0;

	if (r->nr_held)
		release_held(r);
	if (r->lazy_err)
		return r->lazy_err;
	if (max > READER_BATCH_MAX) /* what the pool holds */
		max = READER_BATCH_MAX;
	/* the records before the limit, in the windows already: no call
	 * and no round to read per record */
	if (!r->has_spec && r->tree_ok)
		while (n < max && r->node[0].key < r->limit_ns)
			recs[n++] = take_head(r, r->node[0].s);
	if (n || !max)
		return (int)n;
	return trace_reader_next(r, &recs[0]); /* 1, 0 or < 0 */
}

void trace_reader_meta(const struct trace_reader *r, const char *key, char *out,
		       size_t outlen)
{
	size_t klen = strlen(key);
	const char *p = r->meta, *end;

	out[0] = 0;
	if (!p)
		return;
	end = p + r->meta_len;
	while (p && p < end) {
		const char *nl = memchr(p, '\n', end - p);
		const char *le = nl ? nl : end;

		if ((size_t)(le - p) > klen && !memcmp(p, key, klen) && p[klen] == '=') {
			size_t n = le - p - klen - 1;

			if (n >= outlen)
				n = outlen - 1;
			memcpy(out, p + klen + 1, n);
			out[n] = 0;
			return;
		}
		p = le + 1;
	}
}

const struct iot_dev_entry *trace_reader_dev(const struct trace_reader *r, uint32_t dev)
{
	size_t lo = 0, hi = r->nr_devs;

	while (lo < hi) { /* the first entry of dev */
		size_t mid = lo + (hi - lo) / 2;

		if (r->devs[r->dev_order[mid]].dev < dev)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < r->nr_devs && r->devs[r->dev_order[lo]].dev == dev)
		return &r->devs[r->dev_order[lo]];
	return NULL;
}

const char *trace_reader_file(const struct trace_reader *r, uint32_t dev, uint64_t ino)
{
	size_t lo = 0, hi = r->nr_files;
	const char *path = NULL;

	while (lo < hi) { /* the first entry of ino */
		size_t mid = lo + (hi - lo) / 2;

		if (r->files[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < r->nr_files && r->files[lo].ino == ino; lo++) {
		const struct iot_file_entry *f = &r->files[lo];
		const struct iot_dev_entry *d = trace_reader_dev(r, f->dev);

		if (f->dev != dev && !(d && d->disk_dev == dev))
			continue;
		if (path && strcmp(path, f->path))
			return NULL; /* the inode number on two filesystems */
		path = f->path;
	}
	return path;
}

const char *trace_reader_cgroup(const struct trace_reader *r, uint32_t id)
{
	/* the low 32 bits (IOT_EV_BIO_INFO's): the kernel's ids differ there */
	for (size_t i = 0; i < r->nr_cgroups; i++)
		if ((uint32_t)r->cgroups[i].id == id)
			return r->cgroups[i].path;
	return NULL;
}

const struct iot_task_entry *trace_reader_task(const struct trace_reader *r, uint32_t tid)
{
	struct iot_task_entry key = {.tid = tid};

	if (!r->nr_tasks)
		return NULL;
	return bsearch(&key, r->tasks, r->nr_tasks, sizeof(key), cmp_task);
}

void trace_reader_exec(struct trace_reader *r, const struct iot_rec *rec)
{
	struct iot_task_entry *t =
	    (struct iot_task_entry *)trace_reader_task(r, rec->tid);

	if (!t)
		return;
	memcpy(t->comm, &rec->id, 8);
	memcpy(t->comm + 8, &rec->id2, 8);
	t->comm[sizeof(t->comm) - 1] = 0;
}

const struct reader_chunk *trace_reader_chunk_at(const struct trace_reader *r, size_t *k,
						 uint64_t offset)
{
	while (*k < r->nr_chunks && r->chunks[*k].offset < offset)
		(*k)++;
	return *k < r->nr_chunks && r->chunks[*k].offset == offset ? &r->chunks[*k]
								   : NULL;
}

void trace_reader_release(struct trace_reader *r)
{
	if (r->ahead) /* its workers read the map */
		ahead_stop(r->ahead);
	if (r->map)
		munmap((void *)r->map, r->size);
	free_merge(r);
	free_live(r);
	free(r->live);
	free(r->deferred);
	free(r->drop_stretches);
	free(r->drop_last);
	free(r->drop_pend);
	free(r->chunks);
	free(r->leaves);
	free(r->leaf_of);
	free(r->agg_list);
	free(r->sorted);
	free((void *)r->tasks);
	free((void *)r->devs);
	free(r->dev_order);
	for (size_t i = 0; i < r->nr_copies; i++)
		free(r->copies[i]);
	free(r->copies);
	free(r->path);
	memset(r, 0, sizeof(*r));
}

void trace_reader_aggs(const struct trace_reader *r,
		       void (*fn)(void *ctx, const struct iot_agg_entry *e), void *ctx)
{
	for (size_t i = 0; i < r->nr_aggs; i++) {
		const struct reader_chunk *ch = &r->aggs[i];
		struct iot_agg_header h;

		if (ch->size < sizeof(h))
			continue;
		memcpy(&h, r->map + ch->offset, sizeof(h));
		for (uint64_t k = 0;
		     k < h.nr_entries &&
		     sizeof(h) + (k + 1) * sizeof(struct iot_agg_entry) <= ch->size;
		     k++) {
			struct iot_agg_entry e;

			memcpy(&e, r->map + ch->offset + sizeof(h) + k * sizeof(e),
			       sizeof(e));
			fn(ctx, &e);
		}
	}
}

const char *trace_reader_stop_reason(const struct trace_reader *r)
{
	static const char *const names[] = {
	    [IOT_STOP_COMMAND] = "command", [IOT_STOP_DURATION] = "duration",
	    [IOT_STOP_SIGNAL] = "signal",   [IOT_STOP_ERROR] = "error",
	    [IOT_STOP_FILL] = "fill",	    [IOT_STOP_TRIGGER] = "trigger",
	    [IOT_STOP_SIZE] = "size",	    [IOT_STOP_SPACE] = "space",
	};

	if (!r->has_end || r->end.reason >= sizeof(names) / sizeof(names[0]) ||
	    !names[r->end.reason])
		return "unknown";
	return names[r->end.reason];
}

uint64_t trace_reader_duration_ns(const struct trace_reader *r)
{
	return r->has_end && r->end.end_mono_ns > r->hdr.start_mono_ns
		   ? r->end.end_mono_ns - r->hdr.start_mono_ns
		   : 0;
}

/* ---- reading in segments ------------------------------------------------
 *
 * A trace whose records never come into the merge behind a limit it
 * already passed (each at or after the highest mark the merge had gone by
 * when its chunk was read), and whose streams are each in time order but
 * for neighbours fewer than READER_REORDER apart (each record at or after
 * every record of its stream READER_REORDER or more before it: what the
 * window sorts), is merged into one order that is the records sorted by
 * (time, stream), each stream's in its own order: nothing in the merge
 * above depends on the rounds then. The records of any stretch of time
 * are then read by a merge of their own (a cursor: the same code, over the
 * parts of the chunks that hold that stretch), on any thread, and the
 * stretches put end to end are the trace's merge. trace_reader_plan
 * checks that on threads, counts what the merge would have counted (gaps,
 * summaries), and cuts the time into segments (cut_time). */

#define W READER_REORDER

/* what a chunk's records say, for the plan (one per chunk with records;
 * a ROUND's mark in min_ts) */
struct chunk_look {
	uint64_t min_ts, max_ts, first_seq, last_seq;
	uint64_t summaries;	   /* inside the chunk */
	uint64_t head[W], tail[W]; /* the times of its first and last W */
	uint64_t min_past_head;	   /* the least time past its first W */
	uint64_t max_before_tail;  /* the greatest before its last W (or 0) */
	bool ok; /* in order but for neighbours; nothing the plan leaves out */
	struct iot_rec *degrades; /* its back-pressure marks, in its order */
	size_t nr_degrades, cap_degrades;
	struct trace_gap *gapv; /* its gaps (lost: this one's alone) */
	size_t nr_gapv, cap_gapv;
};

/* look_at over a chunk's n records given a part at a time (a packed
 * chunk's, as they are unpacked) */
struct look_run {
	uint64_t n, i;	   /* the chunk's records; those looked at */
	uint64_t next_seq; /* the last one's seq + 1 */
	uint64_t behind;   /* the greatest time W or more back */
	uint64_t last[W];  /* the times of the last W: record i's at i % W */
};

static void look_begin(struct chunk_look *c, struct look_run *lr, uint64_t n)
{
	memset(lr, 0, sizeof(*lr));
	lr->n = n;
	lr->next_seq = UINT64_MAX;
	c->ok = true;
	c->summaries = 0;
	c->min_ts = c->min_past_head = UINT64_MAX;
	c->max_ts = c->max_before_tail = 0;
}

static void look_more(const struct iot_rec *p, uint64_t m, struct chunk_look *c,
		      struct look_run *lr)
{
	for (uint64_t j = 0; j < m; j++, lr->i++) {
		const struct iot_rec *x = &p[j];
		uint64_t i = lr->i, n = lr->n;

		if (i >= W) {
			if (lr->last[i % W] > lr->behind)
				lr->behind = lr->last[i % W];
			if (x->ts_ns < c->min_past_head)
				c->min_past_head = x->ts_ns;
		}
		lr->last[i % W] = x->ts_ns;
		/* a time of UINT64_MAX is never returned (head_key); a
		 * BIO_INFO of tid UINT32_MAX writes a seed fact a segment's
		 * could not tell from none */
		if (x->ts_ns < lr->behind || x->ts_ns == UINT64_MAX ||
		    (x->type == IOT_EV_BIO_INFO && x->tid == UINT32_MAX))
			c->ok = false;
		/* a back-pressure mark is noted by the plan (few of them) */
		if (x->type == IOT_EV_DEGRADE &&
		    APPEND(c->degrades, c->nr_degrades, c->cap_degrades, x, 1))
			c->ok = false;
		if (x->ts_ns < c->min_ts)
			c->min_ts = x->ts_ns;
		if (x->ts_ns > c->max_ts)
			c->max_ts = x->ts_ns;
		if (i + W < n && x->ts_ns > c->max_before_tail)
			c->max_before_tail = x->ts_ns;
		if (i < W)
			c->head[i] = x->ts_ns;
		if (i + W >= n)
			c->tail[i + W - n] = x->ts_ns;
		if (i && x->seq > lr->next_seq && lr->next_seq != UINT64_MAX) {
			struct trace_gap g = {x->seq, x->ts_ns, x->seq - lr->next_seq};

			if (APPEND(c->gapv, c->nr_gapv, c->cap_gapv, &g, 1))
				c->ok = false;
		}
		lr->next_seq = x->seq + 1;
		c->summaries += x->type == IOT_EV_SUMMARY;
		if (!i)
			c->first_seq = x->seq;
		c->last_seq = x->seq;
	}
}

/* A stream's records so far, for the order check: the times of its last
 * W (oldest first) and the greatest time before them */
struct stream_look {
	uint64_t last[W];
	unsigned int nr_last;
	uint64_t before;
};

static void stream_push(struct stream_look *s, uint64_t ts)
{
	if (s->nr_last == W) {
		if (s->last[0] > s->before)
			s->before = s->last[0];
		memmove(s->last, s->last + 1, (W - 1) * sizeof(s->last[0]));
		s->nr_last--;
	}
	s->last[s->nr_last++] = ts;
}

/* Whether the n records of chunk c go after the stream's records so far,
 * each at or after every record W or more before it; then they are its */
static bool stream_take(struct stream_look *s, const struct chunk_look *c, uint64_t n)
{
	uint64_t all = s->before;

	for (unsigned int k = 0; k < s->nr_last; k++)
		if (s->last[k] > all)
			all = s->last[k];
	/* past its first W, each record is W or more after every earlier
	 * one of the stream's (its own were looked at in look_at) */
	if (n > W && c->min_past_head < all)
		return false;
	for (uint64_t j = 0; j < n && j < W; j++) {
		uint64_t back = s->before; /* the greatest W or more back */

		/* last[k] is nr_last - k records before record j */
		for (unsigned int k = 0; k + W <= s->nr_last; k++)
			if (s->last[k] > back)
				back = s->last[k];
		if (c->head[j] < back)
			return false;
		stream_push(s, c->head[j]);
	}
	if (n > W) { /* its last W, and the greatest before them */
		if (all > s->before)
			s->before = all;
		if (c->max_before_tail > s->before)
			s->before = c->max_before_tail;
		memcpy(s->last, c->tail, sizeof(s->last));
		s->nr_last = W;
	}
	return true;
}

#define LOOK_THREADS 64
/* a look thread tries to let the map go after this many bytes of it */
#define LOOK_RELEASE_BYTES (4u << 20)

struct plan_look {
	const struct trace_reader *r;
	struct reader_plan *plan;
	struct chunk_look *looks;
	size_t next;		 /* the next chunk to look at (atomic) */
	unsigned int nr_at;	 /* threads begun (atomic) */
	size_t at[LOOK_THREADS]; /* each one's chunk (atomic), SIZE_MAX: none */
	size_t released;	 /* bytes of the map let go */
	bool releasing;		 /* a thread lets pages go (atomic) */
};

/* A large trace's pages are let go below the first chunk still to be
 * read, in steps (let_go), and not chunk by chunk: a read's fault maps
 * the pages around it (fault-around: up to 64 KB, aligned), those of the
 * chunk before let go included, which would stay. So what is let go
 * stops RELEASE_GUARD short of that chunk; all of it once none is left. */
#define RELEASE_GUARD (128u << 10)

static void release_below(const struct trace_reader *r, size_t *released, size_t k)
{
	uint64_t upto;

	if (r->size <= READER_POPULATE_MAX)
		return;
	if (k >= r->nr_chunks) {
		if (*released < r->size)
			madvise((void *)(r->map + *released), r->size - *released,
				MADV_DONTNEED);
		*released = r->size;
		return;
	}
	upto = r->chunks[k].offset;
	if (upto > RELEASE_GUARD)
		let_go(r, released, upto - RELEASE_GUARD);
}

static bool in_map(const struct trace_reader *r, const struct reader_chunk *ch)
{
	return (const uint8_t *)ch->recs >= r->map &&
	       (const uint8_t *)ch->recs < r->map + r->size;
}

/* Packed chunk k looked at as it is unpacked, READER_STAGE records at a
 * time (no chunk is held unpacked), each part's state kept where the
 * plan's cuts (the times cut_time estimated) fall in it: cut c's is that
 * of the part in which a record first reaches cuts[c] (every one before
 * is earlier), so that the segment from there unpacks its stretch, and
 * not the chunk from its start. The least record is among the first
 * READER_STAGE (each is at or after every one that many before it, or
 * the plan is given up): cuts at or before it need none. 0, -EINVAL (it
 * does not unpack), -ENOMEM. */
static int look_packed(const struct trace_reader *r, struct reader_plan *pl, size_t k,
		       struct chunk_look *c)
{
	const struct reader_chunk *ch = &r->chunks[k];
	const uint8_t *in0 = r->map + ch->offset + sizeof(struct iot_packed);
	struct reader_cps *cps = &pl->cps[k];
	uint64_t n = ch->size / IOT_REC_SIZE, i = 0, hi = 0;
	struct iot_rec stage[READER_STAGE];
	struct iot_unpacker u;
	struct look_run lr;
	size_t at = 0, next = 0, cap = 0; /* bytes read; the next cut */

	_Static_assert(READER_STAGE >= READER_REORDER, "the least is in the first part");
	iot_unpack_begin(&u);
	look_begin(c, &lr, n);
	while (i < n) {
		struct reader_cp cp = {.u = u, .off = at, .idx = i};
		unsigned int want =
		    n - i < READER_STAGE ? (unsigned int)(n - i) : READER_STAGE;
		uint64_t lo = UINT64_MAX;
		size_t used;

		if (iot_unpack_more(&u, in0 + at, ch->packed_bytes - at, stage, want,
				    &used) != want)
			return -EINVAL;
		at += used;
		look_more(stage, want, c, &lr);
		for (unsigned int j = 0; j < want; j++) {
			if (stage[j].ts_ns > hi)
				hi = stage[j].ts_ns;
			if (stage[j].ts_ns < lo)
				lo = stage[j].ts_ns;
		}
		if (!i) { /* the first cut after the least record */
			size_t a = 1, b = pl->nr_segs;

			while (a < b) {
				size_t mid = a + (b - a) / 2;

				if (pl->cuts[mid] <= lo)
					a = mid + 1;
				else
					b = mid;
			}
			cps->seg0 = next = a;
		}
		for (; next < pl->nr_segs && pl->cuts[next] <= hi; next++) {
			if (GROW(cps->v, cps->n + 1, cap))
				return -ENOMEM;
			cps->v[cps->n++] = cp;
		}
		i += want;
	}
	/* a damaged end the unchecked open left to the read */
	if (r->unchecked && !padding_ok(in0, at, ch->packed_bytes))
		return -EINVAL;
	return 0;
}

/* A chunk of records in place looked at; a large trace's mapped and let
 * go READER_PACE_BYTES at a time (a round of large chunks on every look
 * thread would be held otherwise) */
static void look_in_place(const struct trace_reader *r, const struct reader_chunk *ch,
			  struct chunk_look *c)
{
	const uint64_t step = READER_PACE_BYTES / IOT_REC_SIZE,
		       n = ch->size / IOT_REC_SIZE;
	bool large = r->size > READER_POPULATE_MAX && in_map(r, ch);
	const uint8_t *kept = (const uint8_t *)ch->recs;
	struct look_run lr;

	look_begin(c, &lr, n);
	for (uint64_t i = 0; i < n; i += step) {
		uint64_t m = n - i < step ? n - i : step;

		if (large)
			populate(ch->recs + i, m * IOT_REC_SIZE);
		look_more(ch->recs + i, m, c, &lr);
		if (large)
			kept = let_go_in(kept, (const uint8_t *)(ch->recs + i + m));
	}
}

static void *look_some(void *arg)
{
	struct plan_look *pl = arg;
	const struct trace_reader *r = pl->r;
	unsigned int me = __atomic_fetch_add(&pl->nr_at, 1, __ATOMIC_RELAXED);
	uint64_t looked = 0; /* bytes of the map read since this thread let go */
	size_t k;

	for (;;) {
		/* the chunks are taken in file order: below the least one a
		 * thread has, the map is read */
		__atomic_store_n(&pl->at[me], r->nr_chunks, __ATOMIC_RELAXED);
		k = __atomic_fetch_add(&pl->next, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&pl->at[me], k, __ATOMIC_RELEASE);
		if (k >= r->nr_chunks)
			break;
		const struct reader_chunk *ch = &r->chunks[k];
		uint64_t n = ch->size / IOT_REC_SIZE;

		if (ch->type == IOT_CHUNK_ROUND && ch->size >= sizeof(struct iot_round)) {
			struct iot_round rd; /* read here, where its page goes */

			memcpy(&rd, r->map + ch->offset, sizeof(rd));
			pl->looks[k].min_ts = rd.mark_ns;
			continue;
		}
		if (!has_recs(ch->type) || !n)
			continue;
		looked += ch->packed_bytes ? ch->packed_bytes : ch->size;
		if (ch->packed_bytes) { /* unpacked as the merge reaches it */
			if (look_packed(r, pl->plan, k, &pl->looks[k])) {
				pl->looks[k].ok = false; /* read in order, then */
				continue;
			}
		} else {
			look_in_place(r, ch, &pl->looks[k]);
		}
		/* by bytes, not chunks: one round of a many-CPU recording's
		 * large chunks is a good part of memory */
		if (r->size > READER_POPULATE_MAX && looked >= LOOK_RELEASE_BYTES &&
		    !__atomic_exchange_n(&pl->releasing, true, __ATOMIC_ACQUIRE)) {
			size_t low = k;
			unsigned int nr = __atomic_load_n(&pl->nr_at, __ATOMIC_ACQUIRE);

			for (unsigned int t = 0; t < nr && t < LOOK_THREADS; t++) {
				size_t a = __atomic_load_n(&pl->at[t], __ATOMIC_ACQUIRE);

				if (a < low)
					low = a;
			}
			release_below(r, &pl->released, low);
			__atomic_store_n(&pl->releasing, false, __ATOMIC_RELEASE);
			looked = 0;
		}
	}
	return NULL;
}

/* Any times cut the merge of a trace the plan takes: the cuts are where
 * about seg_recs records lie between, each chunk's records counted as
 * spread evenly over its span of time (est_spans). */
struct chunk_span {
	uint64_t min_ts, max_ts;
};

/* Each chunk's span, before its records are looked at (look_packed keeps
 * the chunks' states at the cuts): from its first record to the first of
 * its stream's next chunk, or to the second ROUND mark after it, when
 * earlier (a drain's records are written before the mark after the
 * next); the last ones to the trace's end. A packed chunk's first record
 * is unpacked alone. -EINVAL: one did not unpack. */
static int est_spans(const struct trace_reader *r, struct chunk_span *sp)
{
	uint64_t *next = malloc(r->nr_streams * sizeof(*next)), end = 0;
	uint64_t marks[2] = {UINT64_MAX, UINT64_MAX}; /* the next two ROUNDs' */
	size_t walked = 0;
	int err = 0;

	if (!next)
		return -ENOMEM;
	for (size_t k = 0; k < r->nr_chunks && !err; k++) {
		const struct reader_chunk *ch = &r->chunks[k];
		struct iot_rec first;

		/* each first record's fault maps the pages around it
		 * (fault-around: 64 KB): a large trace lets them go as the walk
		 * passes, or 8,240 chunks of 16 CPUs held 527 MB at once */
		let_go(r, &walked, ch->offset);
		sp[k].min_ts = sp[k].max_ts = 0;
		if (ch->type == IOT_CHUNK_ROUND && ch->size >= sizeof(struct iot_round)) {
			struct iot_round rd;

			memcpy(&rd, r->map + ch->offset, sizeof(rd));
			if (rd.mark_ns > end)
				end = rd.mark_ns;
			sp[k].min_ts = rd.mark_ns;
			continue;
		}
		if (!has_recs(ch->type) || !ch->size)
			continue;
		if (!chunk_first(r, ch, &first)) {
			err = -EINVAL;
			break;
		}
		sp[k].min_ts = first.ts_ns;
		if (first.ts_ns > end)
			end = first.ts_ns;
	}
	release_below(r, &walked, r->nr_chunks); /* and the rest */
	if (trace_reader_duration_ns(r) &&
	    r->hdr.start_mono_ns + trace_reader_duration_ns(r) > end)
		end = r->hdr.start_mono_ns + trace_reader_duration_ns(r);
	for (uint32_t i = 0; i < r->nr_streams; i++)
		next[i] = end;
	for (size_t k = r->nr_chunks; k-- > 0 && !err;) {
		const struct reader_chunk *ch = &r->chunks[k];

		if (ch->type == IOT_CHUNK_ROUND && ch->size >= sizeof(struct iot_round)) {
			marks[1] = marks[0];
			marks[0] = sp[k].min_ts;
			sp[k].min_ts = 0;
			continue;
		}
		if (!has_recs(ch->type) || !ch->size)
			continue;
		sp[k].max_ts = next[ch->cpu] < marks[1] ? next[ch->cpu] : marks[1];
		if (sp[k].max_ts < sp[k].min_ts)
			sp[k].max_ts = sp[k].min_ts;
		next[ch->cpu] = sp[k].min_ts;
	}
	free(next);
	return err;
}
struct cut_ev {
	uint64_t t;
	double slope; /* records per ns from t on, added */
	double step;  /* records at t */
};

static int cmp_cut_ev(const void *a, const void *b)
{
	const struct cut_ev *x = a, *y = b;

	return x->t < y->t ? -1 : x->t > y->t;
}

static int cut_time(const struct trace_reader *r, struct reader_plan *pl,
		    const struct chunk_span *looks, uint64_t seg_recs)
{
	struct cut_ev *ev = malloc((2 * r->nr_chunks + 1) * sizeof(*ev));
	size_t n = 0;
	double slope = 0, f = 0, want = (double)seg_recs;
	uint64_t at = 0;

	if (!ev)
		return -ENOMEM;
	for (size_t k = 0; k < r->nr_chunks; k++) {
		const struct chunk_span *c = &looks[k];
		double recs = (double)(r->chunks[k].size / IOT_REC_SIZE);

		if (!has_recs(r->chunks[k].type) || !recs)
			continue;
		if (c->max_ts == c->min_ts) {
			ev[n++] = (struct cut_ev){c->min_ts, 0, recs};
			continue;
		}
		double s = recs / (double)(c->max_ts - c->min_ts);

		ev[n++] = (struct cut_ev){c->min_ts, s, 0};
		ev[n++] = (struct cut_ev){c->max_ts, -s, 0};
	}
	qsort(ev, n, sizeof(*ev), cmp_cut_ev);
	pl->cuts[0] = 0;
	pl->nr_segs = 1;
	for (size_t i = 0; i < n; i++) {
		/* records up to ev[i].t: f + slope * (ev[i].t - at) */
		double upto = f + slope * (double)(ev[i].t - at);

		while (want <= upto) {
			/* want below f: inside a step (records at one time,
			 * at), which the cuts before did not take whole */
			uint64_t t = slope <= 0	 ? ev[i].t
				     : want <= f ? at
						 : at + (uint64_t)((want - f) / slope);

			if (t > pl->cuts[pl->nr_segs - 1] && t < UINT64_MAX) {
				if (GROW(pl->cuts, pl->nr_segs + 2, pl->cap_cuts)) {
					free(ev);
					return -ENOMEM;
				}
				pl->cuts[pl->nr_segs++] = t;
			}
			want += (double)seg_recs;
		}
		f = upto + ev[i].step;
		slope += ev[i].slope;
		if (slope < 0) /* rounding */
			slope = 0;
		at = ev[i].t;
	}
	pl->cuts[pl->nr_segs] = UINT64_MAX;
	free(ev);
	return 0;
}

/* the segment whose stretch holds time t */
static size_t seg_of(const struct reader_plan *pl, uint64_t t)
{
	size_t lo = 0, hi = pl->nr_segs; /* cuts[lo] <= t < cuts[hi] */

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (pl->cuts[mid] <= t)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* The chunks of each segment (those whose time span meets its stretch),
 * in file order, and how many segments read each chunk */
static int list_chunks(const struct trace_reader *r, struct reader_plan *pl,
		       const struct chunk_look *looks)
{
	size_t total = 0;

	pl->seg_first = calloc(pl->nr_segs + 1, sizeof(*pl->seg_first));
	pl->users = calloc(r->nr_chunks, sizeof(*pl->users));
	pl->seg_done = calloc(pl->nr_segs, 1);
	if (!pl->seg_first || !pl->users || !pl->seg_done)
		return -ENOMEM;
	for (size_t k = 0; k < r->nr_chunks; k++) {
		if (!has_recs(r->chunks[k].type) || !r->chunks[k].size)
			continue;
		size_t a = seg_of(pl, looks[k].min_ts), b = seg_of(pl, looks[k].max_ts);

		pl->users[k] = (uint32_t)(b - a + 1);
		pl->cps[k].low = a;
		total += b - a + 1;
		for (size_t s = a; s <= b; s++)
			pl->seg_first[s + 1]++;
	}
	for (size_t s = 0; s < pl->nr_segs; s++)
		pl->seg_first[s + 1] += pl->seg_first[s];
	pl->seg_chunks = malloc((total ?: 1) * sizeof(*pl->seg_chunks));
	pl->seg_at = calloc(total ?: 1, sizeof(*pl->seg_at));
	if (!pl->seg_chunks || !pl->seg_at)
		return -ENOMEM;
	size_t *at = malloc((pl->nr_segs ?: 1) * sizeof(*at));

	if (!at)
		return -ENOMEM;
	memcpy(at, pl->seg_first, pl->nr_segs * sizeof(*at));
	for (size_t k = 0; k < r->nr_chunks; k++) {
		if (!has_recs(r->chunks[k].type) || !r->chunks[k].size)
			continue;
		size_t a = seg_of(pl, looks[k].min_ts), b = seg_of(pl, looks[k].max_ts);

		for (size_t s = a; s <= b; s++)
			pl->seg_chunks[at[s]++] = k;
	}
	free(at);
	return 0;
}

int trace_reader_plan(const struct trace_reader *r, uint64_t seg_recs,
		      unsigned int threads, struct reader_plan *pl)
{
	struct plan_look look = {.r = r};
	uint64_t limit = 0, prev = 0, high = 0;
	uint64_t *next_seq = NULL;
	struct stream_look *seen = NULL;
	struct chunk_span *spans = NULL;
	int ret = 0;

	memset(pl, 0, sizeof(*pl));
	pl->seg_recs = seg_recs;
	if (r->has_spec || !r->nr_records || !seg_recs) {
		snprintf(pl->why, sizeof(pl->why), "%s",
			 r->has_spec ? "a speculative trace (its sorted index)"
				     : "no records");
		return 0;
	}
	for (size_t k = 0; k < r->nr_chunks; k++)
		if (has_recs(r->chunks[k].type) && r->chunks[k].size &&
		    ((!r->chunks[k].recs && !r->chunks[k].packed_bytes) ||
		     r->chunks[k].cpu >= r->nr_streams)) {
			snprintf(pl->why, sizeof(pl->why),
				 "chunk %zu: records the plan cannot cut", k);
			return 0;
		}
	look.plan = pl;
	look.looks = calloc(r->nr_chunks, sizeof(*look.looks));
	pl->stream_gaps = calloc(r->nr_streams, sizeof(*pl->stream_gaps));
	pl->cuts = malloc(2 * sizeof(*pl->cuts));
	pl->cps = calloc(r->nr_chunks, sizeof(*pl->cps));
	pl->nr_chunks = r->nr_chunks;
	spans = malloc(r->nr_chunks * sizeof(*spans));
	if (!pl->cps || !spans || !pl->cuts) {
		ret = -ENOMEM;
		goto out;
	}
	/* the cuts first, from each chunk's first record: the look keeps the
	 * chunks' states there */
	ret = est_spans(r, spans);
	if (ret) {
		if (ret == -EINVAL) {
			ret = 0; /* damaged: read in order */
			snprintf(pl->why, sizeof(pl->why), "damaged");
		}
		goto out;
	}
	ret = cut_time(r, pl, spans, seg_recs);
	if (ret || pl->nr_segs < 2) {
		if (!ret)
			snprintf(pl->why, sizeof(pl->why), "one segment");
		goto out; /* one segment: the merge as it is */
	}
	if (trace_gaps_init(&pl->gap_at, r->nr_streams) ||
	    trace_gaps_copy_dropped(&pl->gap_at, &r->gaps)) {
		ret = -ENOMEM;
		goto out;
	}
	next_seq = malloc(r->nr_streams * sizeof(*next_seq));
	seen = calloc(r->nr_streams, sizeof(*seen));
	if (!look.looks || !pl->stream_gaps || !pl->cuts || !next_seq || !seen) {
		ret = -ENOMEM;
		goto out;
	}
	memset(next_seq, 0xff, r->nr_streams * sizeof(*next_seq));
	for (unsigned int t = 0; t < LOOK_THREADS; t++)
		look.at[t] = SIZE_MAX;
	on_threads(look_some, &look, threads < LOOK_THREADS ? threads : LOOK_THREADS);
	release_below(r, &look.released, r->nr_chunks);
	/* the merge's walk over the chunks, as trace_reader_next makes it */
	for (size_t k = 0; k < r->nr_chunks; k++) {
		const struct reader_chunk *ch = &r->chunks[k];

		if (has_recs(ch->type) && ch->size) {
			const struct chunk_look *c = &look.looks[k];
			uint32_t s = ch->cpu;

			/* not in one order by time: said for IOTRAIL_DEBUG, as
			 * one record committed late turns a large trace's
			 * segments off */
			if (!c->ok) {
				snprintf(pl->why, sizeof(pl->why),
					 "chunk %zu (stream %u): its records out of "
					 "order past the reorder window",
					 k, s);
				goto out;
			}
			if (c->min_ts < high) {
				snprintf(pl->why, sizeof(pl->why),
					 "chunk %zu (stream %u): a record %.6f s before "
					 "the time the rounds before it were read to "
					 "(committed late)",
					 k, s, (double)(high - c->min_ts) / 1e9);
				goto out;
			}
			if (!stream_take(&seen[s], c, ch->size / IOT_REC_SIZE)) {
				snprintf(pl->why, sizeof(pl->why),
					 "chunk %zu (stream %u): records before its "
					 "stream's chunk before, past the reorder window",
					 k, s);
				goto out;
			}
			if (next_seq[s] != UINT64_MAX && c->first_seq > next_seq[s]) {
				pl->stream_gaps[s] += c->first_seq - next_seq[s];
				if (trace_gaps_add(&pl->gap_at, s, c->first_seq,
						   c->head[0],
						   c->first_seq - next_seq[s])) {
					ret = -ENOMEM;
					goto out;
				}
			}
			for (size_t i = 0; i < c->nr_gapv; i++) {
				pl->stream_gaps[s] += c->gapv[i].lost;
				if (trace_gaps_add(&pl->gap_at, s, c->gapv[i].seq,
						   c->gapv[i].ts_ns, c->gapv[i].lost)) {
					ret = -ENOMEM;
					goto out;
				}
			}
			pl->summaries += c->summaries;
			for (size_t i = 0; i < c->nr_degrades; i++)
				note_degrade_in(&pl->degrades, &pl->nr_degrades,
						&pl->cap_degrades, s, &c->degrades[i]);
			next_seq[s] = c->last_seq + 1;
		} else if (ch->type == IOT_CHUNK_ROUND &&
			   ch->size >= sizeof(struct iot_round)) {
			limit = prev;
			prev = look.looks[k].min_ts; /* its mark */
			if (limit > high)
				high = limit;
		}
	}
	for (uint32_t s = 0; s < r->nr_streams; s++)
		pl->gaps += pl->stream_gaps[s];
	ret = list_chunks(r, pl, look.looks);
	if (!ret)
		ret = 1;
out:
	free(spans);
	for (size_t k = 0; look.looks && k < r->nr_chunks; k++) {
		free(look.looks[k].degrades);
		free(look.looks[k].gapv);
	}
	free(look.looks);
	free(next_seq);
	free(seen);
	if (ret != 1)
		reader_plan_release(pl);
	return ret;
}

void reader_plan_release(struct reader_plan *pl)
{
	char why[sizeof(pl->why)];

	free(pl->cuts);
	free(pl->stream_gaps);
	free(pl->seg_first);
	free(pl->seg_chunks);
	free(pl->users);
	free(pl->seg_done);
	free(pl->seg_at);
	free(pl->degrades);
	trace_gaps_release(&pl->gap_at);
	for (size_t k = 0; pl->cps && k < pl->nr_chunks; k++)
		free(pl->cps[k].v);
	free(pl->cps);
	memcpy(why, pl->why, sizeof(why)); /* what trace_reader_plan said */
	memset(pl, 0, sizeof(*pl));
	memcpy(pl->why, why, sizeof(why));
}

/* In n records each at or after every one W or more before it (the plan
 * checked that): an index i where p[i - 1] is before t and p[i] is not (or
 * 0, or n), found by halving. Every record before i - W is before t: the
 * first record at t or later, m, is at most W before any such i (every
 * record from m + W on is at t or later), and those before m are before t. */
static uint64_t edge(const struct iot_rec *p, uint64_t n, uint64_t t)
{
	uint64_t lo = 0, hi = n;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (p[mid].ts_ns >= t)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

int trace_reader_segment(const struct trace_reader *r, const struct reader_plan *pl,
			 size_t seg, struct trace_reader *cur)
{
	uint64_t from = pl->cuts[seg], to = pl->cuts[seg + 1];

	/* the tables and chunks are the reader's, the merge the cursor's */
	*cur = *r;
	cur->degrades = NULL;
	cur->nr_degrades = cur->cap_degrades = 0;
	memset(&cur->gaps, 0, sizeof(cur->gaps));
	cur->live = NULL;
	cur->nr_live = cur->cap_live = 0;
	cur->ahead = NULL;
	cur->nr_held = 0; /* its own streams' pools (none: spans in place) */
	cur->lazy_err = 0;
	cur->sorted = NULL;
	cur->tree_ok = false;
	cur->next_chunk = r->nr_chunks; /* nothing more to read: */
	cur->limit_ns = UINT64_MAX;	/* every record it holds may go */
	if (alloc_merge(cur))
		return -ENOMEM;
	for (size_t i = pl->seg_first[seg]; i < pl->seg_first[seg + 1]; i++) {
		size_t k = pl->seg_chunks[i];
		const struct reader_chunk *ch = &r->chunks[k];
		const struct iot_rec *p = ch->recs;
		uint64_t n = ch->size / IOT_REC_SIZE;

		if (ch->packed_bytes) {
			/* from the state kept where its stretch begins (none:
			 * its first segment, or the chunk's start) */
			const struct reader_cps *cps = &pl->cps[k];
			const struct reader_cp *cp =
			    seg >= cps->seg0 && seg - cps->seg0 < cps->n
				? &cps->v[seg - cps->seg0]
				: NULL;

			if (push_packed(r, &cur->cpus[ch->cpu], ch, cp, true, from, to))
				return -ENOMEM;
			continue;
		}
		/* the runs of its records in the stretch (in time order but for
		 * neighbours: one run, or a few at its ends), looked for
		 * between the ends' searches (a chunk may span many segments) */
		uint64_t a = edge(p, n, from), b, lim = edge(p, n, to) + W;

		a = a > W ? a - W : 0;
		if (lim > n)
			lim = n;
		/* where it begins, for the pages let go behind the segments
		 * (let_go_done); a large trace's stretch mapped, not the chunk */
		__atomic_store_n(&pl->seg_at[i], a * IOT_REC_SIZE, __ATOMIC_RELAXED);
		if (r->size > READER_POPULATE_MAX && in_map(r, ch) && lim > a)
			populate(p + a, (lim - a) * IOT_REC_SIZE);
		while (a < lim) {
			while (a < lim && (p[a].ts_ns < from || p[a].ts_ns >= to))
				a++;
			for (b = a; b < lim && p[b].ts_ns >= from && p[b].ts_ns < to; b++)
				;
			if (b > a && push_span(&cur->cpus[ch->cpu], p + a, b - a))
				return -ENOMEM;
			a = b;
		}
	}
	return 0;
}

/* Packed chunk k's pages below where the first of its segments not done
 * begins to read it (the state the plan kept), or all of them when every
 * one is done; with pl->releasing held */
static void let_go_done(const struct trace_reader *r, struct reader_plan *pl, size_t k)
{
	const struct reader_chunk *ch = &r->chunks[k];
	struct reader_cps *cps = &pl->cps[k];
	const uint8_t *in = ch->packed_bytes
				? r->map + ch->offset + sizeof(struct iot_packed)
				: (const uint8_t *)ch->recs;
	size_t first = cps->low;
	uint64_t upto = UINT64_MAX;

	if (!ch->packed_bytes && !in_map(r, ch))
		return;
	while (cps->low < pl->nr_segs &&
	       __atomic_load_n(&pl->seg_done[cps->low], __ATOMIC_ACQUIRE))
		cps->low++;
	if (!__atomic_load_n(&pl->users[k], __ATOMIC_ACQUIRE))
		upto = ch->packed_bytes ? ch->packed_bytes : ch->size;
	else if (ch->packed_bytes) {
		if (cps->low >= cps->seg0 && cps->low - cps->seg0 < cps->n)
			upto = cps->v[cps->low - cps->seg0].off;
	} else if (cps->low > first) {
		/* records in place: where the one before it began (done, so
		 * known; a later segment begins at or after it) */
		size_t s = cps->low - 1;

		for (size_t i = pl->seg_first[s]; i < pl->seg_first[s + 1]; i++)
			if (pl->seg_chunks[i] == k)
				upto = __atomic_load_n(&pl->seg_at[i], __ATOMIC_RELAXED);
	}
	if (upto != UINT64_MAX)
		cps->kept = (uint64_t)(let_go_in(in + cps->kept, in + upto) - in);
}

void trace_reader_segment_done(const struct trace_reader *r, struct reader_plan *pl,
			       size_t seg, struct trace_reader *cur)
{
	free_merge(cur);
	free_live(cur);
	free(cur->live);
	memset(cur, 0, sizeof(*cur));
	__atomic_store_n(&pl->seg_done[seg], 1, __ATOMIC_RELEASE);
	for (size_t i = pl->seg_first[seg]; i < pl->seg_first[seg + 1]; i++) {
		size_t k = pl->seg_chunks[i];

		__atomic_sub_fetch(&pl->users[k], 1, __ATOMIC_ACQ_REL);
	}
	/* a large trace's pages let go below the first chunk a segment still
	 * reads (the segments are read in about file order), and inside the
	 * packed chunks this one read, below where the first of their
	 * segments not done begins */
	if (r->size > READER_POPULATE_MAX &&
	    !__atomic_exchange_n(&pl->releasing, true, __ATOMIC_ACQUIRE)) {
		while (pl->low < r->nr_chunks &&
		       !__atomic_load_n(&pl->users[pl->low], __ATOMIC_ACQUIRE))
			pl->low++;
		release_below(r, &pl->released, pl->low);
		for (size_t i = pl->seg_first[seg]; i < pl->seg_first[seg + 1]; i++)
			let_go_done(r, pl, pl->seg_chunks[i]);
		__atomic_store_n(&pl->releasing, false, __ATOMIC_RELEASE);
	}
}

void trace_reader_plan_apply(struct trace_reader *r, struct reader_plan *pl)
{
	release_below(r, &pl->released, r->nr_chunks);
	r->nr_gaps = pl->gaps;
	memcpy(r->stream_gaps, pl->stream_gaps, r->nr_streams * sizeof(*r->stream_gaps));
	r->nr_summaries = pl->summaries;
	free(r->degrades);
	r->degrades = pl->degrades;
	r->nr_degrades = pl->nr_degrades;
	r->cap_degrades = pl->cap_degrades;
	pl->degrades = NULL;
	pl->nr_degrades = pl->cap_degrades = 0;
	trace_gaps_release(&r->gaps);
	r->gaps = pl->gap_at;
	memset(&pl->gap_at, 0, sizeof(pl->gap_at));
	r->next_chunk = r->nr_chunks;
	r->limit_ns = UINT64_MAX;
}
