// SPDX-License-Identifier: GPL-2.0
/*
 * blktrace captures into iotrail traces (blktrace.h, docs/IMPORT.md).
 *
 * Reading: a file is blktrace's (a struct blk_io_trace at offset 0, its
 * magic in either byte order: the whole file is read in that order) or an
 * ftrace "bin" stream (the magic at offset 16, behind ftrace's {pid, cpu,
 * ts} header; host order). Every record is decoded into a bt_rec; notify
 * records give task names and the wall clock; a per-CPU sequence number
 * that jumps counts the records blktrace lost there.
 *
 * Linking: the records, sorted by time, go through a small state machine
 * keyed by (device, sector), as btt links them: Q makes a bio; X moves the
 * parent to the remainder and makes the front; M and F hand a bio to the
 * request that ends or starts beside it; G makes a request with its bio as
 * head; I, D and C find the request by where it starts (a partial
 * completion moves it on). Made-up addresses name them in the records
 * written, so the join sees what it sees in a recording.
 */
#include "blktrace.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/blktrace_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../trace/writer.h"
#include "../util/grow.h"
#include "../util/u64map.h"

#define BT_SIZE	     48u /* sizeof(struct blk_io_trace) */
#define FTRACE_HDR   16u /* int pid, int cpu, u64 ts */
#define BIO_BASE     0xb10b00000000ull
#define RQ_BASE	     0x7e9000000000ull
#define FLUSH_KEY    (1ull << 55) /* data-less requests: their own keys */
#define CHUNK_EVENTS 65536u

struct bt_rec {
	uint64_t time, sector;
	uint64_t aux;	/* split: the remainder's sector; remap: the old
			   sector; unplug: the requests it flushed */
	uint64_t order; /* input order: ties keep it */
	uint32_t bytes, action, pid, dev, cpu;
	uint32_t old_dev; /* remap */
	uint32_t gap;	  /* records missing before it on its CPU */
	uint16_t error;
};

void bt_import_init(struct bt_import *im)
{
	memset(im, 0, sizeof(*im));
}

static uint32_t sw32(uint32_t v, bool swap)
{
	return swap ? __builtin_bswap32(v) : v;
}

static uint64_t sw64(uint64_t v, bool swap)
{
	return swap ? __builtin_bswap64(v) : v;
}

static uint64_t be64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static bool is_magic(uint32_t m)
{
	return (m & 0xffffff00u) == BLK_IO_TRACE_MAGIC;
}

static int dev_seen(struct bt_import *im, uint32_t dev)
{
	struct iot_dev_entry *d;

	for (size_t i = 0; i < im->nr_devs; i++)
		if (im->devs[i].dev == dev)
			return 0;
	if (GROW(im->devs, im->nr_devs + 1, im->cap_devs))
		return -ENOMEM;
	d = &im->devs[im->nr_devs++];
	memset(d, 0, sizeof(*d));
	d->dev = d->disk_dev = dev;
	d->logical_block_size = 512;
	d->flags = IOT_DEV_FILTERED;
	if (im->name_hint[0])
		snprintf(d->name, sizeof(d->name), "%s", im->name_hint);
	else
		snprintf(d->name, sizeof(d->name), "%u:%u", dev >> 20, dev & 0xfffff);
	return 0;
}

static int task_name(struct bt_import *im, uint32_t pid, const uint8_t *comm, size_t len)
{
	struct iot_task_entry *t = NULL;

	for (size_t i = 0; i < im->nr_tasks; i++)
		if (im->tasks[i].tid == pid)
			t = &im->tasks[i];
	if (!t) {
		if (GROW(im->tasks, im->nr_tasks + 1, im->cap_tasks))
			return -ENOMEM;
		t = &im->tasks[im->nr_tasks++];
		memset(t, 0, sizeof(*t));
		t->pid = t->tid = pid;
	}
	if (len > sizeof(t->comm) - 1)
		len = sizeof(t->comm) - 1;
	memset(t->comm, 0, sizeof(t->comm));
	memcpy(t->comm, comm, strnlen((const char *)comm, len));
	return 0;
}

/* "sda.blktrace.0" names its device */
static void name_hint(struct bt_import *im, const char *path)
{
	const char *base = strrchr(path, '/'), *dot;

	base = base ? base + 1 : path;
	dot = strstr(base, ".blktrace.");
	im->name_hint[0] = 0;
	if (dot && dot > base && (size_t)(dot - base) < sizeof(im->name_hint))
		snprintf(im->name_hint, sizeof(im->name_hint), "%.*s", (int)(dot - base),
			 base);
}

static int fail(struct bt_import *im, const char *path, uint64_t off, const char *what)
{
	snprintf(im->err, sizeof(im->err), "%s: offset %llu: %s", path,
		 (unsigned long long)off, what);
	return -1;
}

/* one record at p (len bytes left); its size, 0 when damaged (err set) */
static size_t decode(struct bt_import *im, const char *path, uint64_t off,
		     const uint8_t *p, size_t len, bool ftrace, bool swap,
		     uint32_t *last_seq)
{
	struct blk_io_trace t;
	const uint8_t *pdu;
	size_t hdr = ftrace ? FTRACE_HDR : 0, pdu_len;
	uint32_t act;
	struct bt_rec *r;

	if (len < hdr + BT_SIZE) {
		fail(im, path, off, "a record cut short (the capture ended inside it)");
		return 0;
	}
	memcpy(&t, p + hdr, BT_SIZE);
	t.magic = sw32(t.magic, swap);
	if (!is_magic(t.magic)) {
		char what[96];

		snprintf(what, sizeof(what), "bad magic %#x (not a blk_io_trace record)",
			 t.magic);
		fail(im, path, off, what);
		return 0;
	}
	t.sequence = sw32(t.sequence, swap);
	t.time = sw64(t.time, swap);
	t.sector = sw64(t.sector, swap);
	t.bytes = sw32(t.bytes, swap);
	t.action = sw32(t.action, swap);
	t.pid = sw32(t.pid, swap);
	t.device = sw32(t.device, swap);
	t.cpu = sw32(t.cpu, swap);
	t.error = swap ? __builtin_bswap16(t.error) : t.error;
	t.pdu_len = swap ? __builtin_bswap16(t.pdu_len) : t.pdu_len;
	pdu_len = t.pdu_len;
	if (len < hdr + BT_SIZE + pdu_len) {
		fail(im, path, off,
		     "a record's payload cut short (the capture ended inside it)");
		return 0;
	}
	if (t.cpu >= IOT_MAX_CPUS) {
		char what[64];

		snprintf(what, sizeof(what), "CPU %u (iotrail reads %u at most)", t.cpu,
			 IOT_MAX_CPUS);
		fail(im, path, off, what);
		return 0;
	}
	pdu = p + hdr + BT_SIZE;
	im->records++;
	if (swap)
		im->big_endian++;
	if (ftrace)
		im->ftrace++;
	act = t.action & 0xffff;
	/* a record from a cgroup carries its id first */
	if (act & __BLK_TA_CGROUP) {
		if (pdu_len < 8) {
			fail(im, path, off, "a cgroup record without its cgroup id");
			return 0;
		}
		pdu += 8;
		pdu_len -= 8;
		act &= ~__BLK_TA_CGROUP;
	}
	if ((t.action >> BLK_TC_SHIFT) & BLK_TC_NOTIFY) {
		im->notify++;
		if (act == __BLK_TN_PROCESS && pdu_len &&
		    task_name(im, t.pid, pdu, pdu_len))
			return 0;
		if (act == __BLK_TN_TIMESTAMP && pdu_len >= 8 && !im->realtime_ns) {
			uint32_t w[2];

			memcpy(w, pdu, 8);
			im->realtime_ns =
			    (uint64_t)sw32(w[0], swap) * 1000000000ull + sw32(w[1], swap);
			im->realtime_at = t.time;
		}
		return hdr + BT_SIZE + t.pdu_len;
	}
	if (act < __BLK_TA_QUEUE || act > __BLK_TA_DRV_DATA || act == __BLK_TA_SLEEPRQ ||
	    act == __BLK_TA_BOUNCE || act == __BLK_TA_ABORT || act == __BLK_TA_DRV_DATA) {
		im->skipped++;
		return hdr + BT_SIZE + t.pdu_len;
	}
	if (GROW(im->recs, im->nr + 1, im->cap) || dev_seen(im, t.device)) {
		fail(im, path, off, "out of memory");
		return 0;
	}
	r = &im->recs[im->nr];
	memset(r, 0, sizeof(*r));
	r->time = t.time;
	r->sector = t.sector;
	r->bytes = t.bytes;
	r->action = (t.action & 0xffff0000u) | act;
	r->pid = t.pid;
	r->dev = t.device;
	r->cpu = t.cpu;
	r->error = t.error;
	r->order = im->nr;
	/* payloads are big-endian whatever the record's order */
	if ((act == __BLK_TA_SPLIT || act == __BLK_TA_UNPLUG_IO ||
	     act == __BLK_TA_UNPLUG_TIMER) &&
	    pdu_len >= 8)
		r->aux = be64(pdu);
	if (act == __BLK_TA_REMAP && pdu_len >= 16) {
		r->old_dev = be32(pdu);
		r->aux = be64(pdu + 8);
	}
	/* blktrace numbers each CPU's records from 1; ftrace's stream
	 * leaves them 0 */
	if (t.sequence && last_seq[t.cpu] && t.sequence > last_seq[t.cpu] + 1) {
		r->gap = t.sequence - last_seq[t.cpu] - 1;
		im->gaps += r->gap;
	}
	if (t.sequence)
		last_seq[t.cpu] = t.sequence;
	if (t.cpu + 1 > im->nr_cpus)
		im->nr_cpus = t.cpu + 1;
	im->nr++;
	return hdr + BT_SIZE + t.pdu_len;
}

int bt_import_file(struct bt_import *im, const char *path)
{
	uint32_t *last_seq = NULL;
	const uint8_t *map;
	struct stat st;
	uint64_t off = 0;
	uint32_t m0 = 0, m16 = 0;
	bool ftrace, swap;
	int fd, ret = 0;

	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		snprintf(im->err, sizeof(im->err), "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	/* blktrace leaves an empty file for a CPU that saw no I/O */
	if (S_ISREG(st.st_mode) && st.st_size == 0) {
		close(fd);
		return 0;
	}
	if (!S_ISREG(st.st_mode) || st.st_size < (off_t)BT_SIZE) {
		close(fd);
		return fail(im, path, 0,
			    S_ISREG(st.st_mode) ? "too short for a blktrace record"
						: "not a regular file");
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		snprintf(im->err, sizeof(im->err), "%s: %s", path, strerror(errno));
		return -1;
	}
	memcpy(&m0, map, 4);
	if (st.st_size >= (off_t)(FTRACE_HDR + BT_SIZE))
		memcpy(&m16, map + FTRACE_HDR, 4);
	if (is_magic(m0) || is_magic(__builtin_bswap32(m0))) {
		ftrace = false;
		swap = !is_magic(m0);
	} else if (is_magic(m16)) {
		ftrace = true;
		swap = false;
	} else {
		char what[160];

		munmap((void *)map, (size_t)st.st_size);
		snprintf(what, sizeof(what),
			 "no blktrace magic (%#x at 0, %#x at 16): neither blktrace's "
			 "per-CPU file nor ftrace's blk \"bin\" stream",
			 m0, m16);
		return fail(im, path, 0, what);
	}
	last_seq = calloc(IOT_MAX_CPUS, sizeof(*last_seq));
	if (!last_seq) {
		munmap((void *)map, (size_t)st.st_size);
		return fail(im, path, 0, "out of memory");
	}
	name_hint(im, path);
	im->files++;
	while (off < (uint64_t)st.st_size) {
		size_t n = decode(im, path, off, map + off, (size_t)st.st_size - off,
				  ftrace, swap, last_seq);

		if (!n) {
			ret = 1;
			break;
		}
		off += n;
	}
	free(last_seq);
	munmap((void *)map, (size_t)st.st_size);
	return ret;
}

/* ---- linking ---- */

struct rq_st {
	uint64_t id, head;
	uint32_t left; /* sectors not yet completed */
};

struct linker {
	struct bt_import *im;
	struct u64map bio_at; /* (dev, sector) -> bio number */
	struct u64map rq_at;  /* (dev, sector) -> request slot */
	struct rq_st *rqs;
	size_t nr_rqs, cap_rqs;
	uint32_t *free_rqs;
	size_t nr_free, cap_free;
	uint64_t next_bio, next_rq;
	uint8_t *bio_based; /* per device index */
};

static uint64_t dev_index(const struct bt_import *im, uint32_t dev)
{
	for (size_t i = 0; i < im->nr_devs; i++)
		if (im->devs[i].dev == dev)
			return i;
	return 0;
}

static uint64_t key(const struct linker *l, uint32_t dev, uint64_t sector)
{
	return (dev_index(l->im, dev) + 1) << 56 | (sector & ((1ull << 56) - 1));
}

static int rq_new(struct linker *l, uint64_t k, uint64_t head, uint32_t *out)
{
	uint32_t i;

	if (l->nr_free) {
		i = l->free_rqs[--l->nr_free];
	} else {
		if (GROW(l->rqs, l->nr_rqs + 1, l->cap_rqs))
			return -ENOMEM;
		i = (uint32_t)l->nr_rqs++;
	}
	l->rqs[i].id = RQ_BASE + (l->next_rq++ << 8);
	l->rqs[i].head = head;
	l->rqs[i].left = 0;
	*out = i;
	return u64map_put(&l->rq_at, k, i);
}

static int rq_free(struct linker *l, uint64_t k, uint32_t i)
{
	u64map_del(&l->rq_at, k);
	if (GROW(l->free_rqs, l->nr_free + 1, l->cap_free))
		return -ENOMEM;
	l->free_rqs[l->nr_free++] = i;
	return 0;
}

static uint32_t op_flags(const struct bt_rec *b, bool request)
{
	uint32_t tc = b->action >> BLK_TC_SHIFT, f;

	if (tc & BLK_TC_DISCARD)
		f = IOT_OP_DISCARD;
	else if ((tc & BLK_TC_FLUSH) && !b->bytes && request)
		f = IOT_OP_FLUSH; /* the flush machinery's own request */
	else if (tc & BLK_TC_WRITE)
		f = IOT_OP_WRITE;
	else
		f = IOT_OP_READ;
	if ((tc & BLK_TC_FLUSH) && (f == IOT_OP_WRITE))
		f |= IOT_F_PREFLUSH;
	if (tc & BLK_TC_SYNC)
		f |= IOT_F_SYNC;
	if (tc & BLK_TC_META)
		f |= IOT_F_META;
	if (tc & BLK_TC_FUA)
		f |= IOT_F_FUA;
	if (tc & BLK_TC_AHEAD)
		f |= IOT_F_RAHEAD;
	return f;
}

/* the bio at (dev, sector), or a new one (its Q before the capture) */
static uint64_t bio_at(struct linker *l, uint64_t k, bool take)
{
	uint32_t *v = u64map_get(&l->bio_at, k);
	uint64_t id;

	if (!v) {
		l->im->unmatched++;
		return BIO_BASE + (l->next_bio++ << 8);
	}
	id = BIO_BASE + ((uint64_t)*v << 8);
	if (take)
		u64map_del(&l->bio_at, k);
	return id;
}

static int put_bio(struct linker *l, uint64_t k, uint64_t id)
{
	return u64map_put(&l->bio_at, k, (uint32_t)((id - BIO_BASE) >> 8));
}

/* the request starting at k, made on the spot when its G was not seen */
static int rq_at(struct linker *l, const struct bt_rec *b, uint64_t k, bool make,
		 uint32_t *out)
{
	uint32_t *v = u64map_get(&l->rq_at, k);

	if (v) {
		*out = *v;
		return 0;
	}
	if (!make)
		return -ENOENT;
	/* a request whose G was not seen: its head is the bio queued there */
	return rq_new(l, k, b->bytes ? bio_at(l, k & ~FLUSH_KEY, true) : 0, out);
}

/* b as an iotrail record into out; false when it makes none */
static int link_one(struct linker *l, const struct bt_rec *b, struct iot_rec *o,
		    bool *emit)
{
	uint32_t act = b->action & 0xffff, i;
	uint64_t k = key(l, b->dev, b->sector);
	bool bio_based = l->bio_based[dev_index(l->im, b->dev)];
	int err = 0;

	*emit = true;
	memset(o, 0, sizeof(*o));
	o->ts_ns = b->time;
	o->sector = b->sector;
	o->nr = b->bytes >> 9;
	o->dev = b->dev;
	o->pid = o->tid = b->pid;
	o->cpu = (uint16_t)b->cpu;
	switch (act) {
	case __BLK_TA_QUEUE:
		o->type = IOT_EV_BIO_QUEUE;
		o->flags = op_flags(b, false);
		o->id = BIO_BASE + (l->next_bio++ << 8);
		return put_bio(l, k, o->id);
	case __BLK_TA_SPLIT: {
		/* the front is a new bio; the parent goes on at the remainder */
		uint64_t parent = bio_at(l, k, true);

		o->type = IOT_EV_SPLIT;
		o->flags = op_flags(b, false);
		o->id = BIO_BASE + (l->next_bio++ << 8);
		o->id2 = b->aux;
		err = put_bio(l, k, o->id);
		if (!err)
			err = put_bio(l, key(l, b->dev, b->aux), parent);
		return err;
	}
	case __BLK_TA_REMAP:
		o->type = IOT_EV_BIO_REMAP;
		o->id = bio_at(l, key(l, b->old_dev, b->aux), true);
		o->id2 = b->aux;
		o->flags = b->old_dev; /* as recorded: the old device for the op */
		return put_bio(l, k, o->id);
	case __BLK_TA_BACKMERGE:
	case __BLK_TA_FRONTMERGE:
		o->type = act == __BLK_TA_BACKMERGE ? IOT_EV_BIO_BACKMERGE
						    : IOT_EV_BIO_FRONTMERGE;
		o->flags = op_flags(b, false);
		o->id = bio_at(l, k, true);
		if (act == __BLK_TA_FRONTMERGE) {
			/* the request now starts at this bio */
			uint64_t old = key(l, b->dev, b->sector + o->nr);
			uint32_t *v = u64map_get(&l->rq_at, old);

			if (v) {
				i = *v;
				u64map_del(&l->rq_at, old);
				l->rqs[i].head = o->id;
				err = u64map_put(&l->rq_at, k, i);
			}
		}
		return err;
	case __BLK_TA_GETRQ:
		o->type = IOT_EV_GETRQ;
		o->flags = op_flags(b, false);
		o->id = bio_at(l, k, true);
		if (bio_based)
			return put_bio(l, k, o->id);
		return rq_new(l, k, o->id, &i);
	case __BLK_TA_INSERT:
	case __BLK_TA_ISSUE:
	case __BLK_TA_REQUEUE:
		if (!b->bytes)
			k |= FLUSH_KEY;
		err = rq_at(l, b, k, true, &i);
		if (err)
			return err;
		o->type = act == __BLK_TA_INSERT  ? IOT_EV_RQ_INSERT
			  : act == __BLK_TA_ISSUE ? IOT_EV_RQ_ISSUE
						  : IOT_EV_RQ_REQUEUE;
		o->flags = op_flags(b, true);
		o->id = l->rqs[i].id;
		o->id2 = l->rqs[i].head;
		if (act != __BLK_TA_REQUEUE)
			l->rqs[i].left = o->nr;
		return 0;
	case __BLK_TA_COMPLETE:
		if (bio_based) {
			o->type = IOT_EV_BIO_COMPLETE;
			o->flags = op_flags(b, false);
			o->id = bio_at(l, k, true);
			o->id2 = b->error;
			return 0;
		}
		if (!b->bytes)
			k |= FLUSH_KEY;
		if (rq_at(l, b, k, false, &i)) {
			/* issued before the capture began */
			l->im->unmatched++;
			err = rq_at(l, b, k, true, &i);
			if (err)
				return err;
			l->rqs[i].left = o->nr;
		}
		o->type = IOT_EV_RQ_COMPLETE;
		o->flags = op_flags(b, true);
		o->id = l->rqs[i].id;
		o->id2 = (uint64_t)l->rqs[i].left << 32 | b->error;
		if (l->rqs[i].left > o->nr && o->nr) {
			/* a partial completion: the rest starts further on */
			l->rqs[i].left -= o->nr;
			u64map_del(&l->rq_at, k);
			return u64map_put(&l->rq_at, key(l, b->dev, b->sector + o->nr),
					  i);
		}
		return rq_free(l, k, i);
	case __BLK_TA_PLUG:
		o->type = IOT_EV_PLUG;
		return 0;
	case __BLK_TA_UNPLUG_IO:
	case __BLK_TA_UNPLUG_TIMER:
		o->type = IOT_EV_UNPLUG;
		o->nr = (uint32_t)b->aux;
		o->sector = 0;
		o->flags = act == __BLK_TA_UNPLUG_IO;
		return 0;
	default:
		*emit = false;
		return 0;
	}
}

static int cmp_rec(const void *a, const void *b)
{
	const struct bt_rec *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

struct out_cpu {
	struct iot_rec *r;
	size_t n, cap;
	uint64_t seq;
};

static int flush_all(struct trace_writer *w, struct out_cpu *oc, uint32_t nr_cpus,
		     uint64_t mark)
{
	struct iot_round rd = {.mark_ns = mark};
	int err = 0;

	for (uint32_t c = 0; c < nr_cpus && !err; c++) {
		if (oc[c].n)
			err =
			    trace_writer_chunk(w, IOT_CHUNK_EVENTS, c, oc[c].r,
					       oc[c].n * sizeof(struct iot_rec), NULL, 0);
		oc[c].n = 0;
	}
	if (!err)
		err = trace_writer_chunk(w, IOT_CHUNK_ROUND, 0, &rd, sizeof(rd), NULL, 0);
	return err;
}

static int write_trace(struct bt_import *im, struct linker *l, const char *path,
		       const char *source)
{
	struct iot_file_header h = {.magic = IOT_MAGIC};
	struct trace_writer w;
	struct out_cpu *oc;
	uint64_t first = im->nr ? im->recs[0].time : 0, last = first, pending = 0;
	char meta[512];
	int err, n;

	oc = calloc(im->nr_cpus ? im->nr_cpus : 1, sizeof(*oc));
	if (!oc)
		return -ENOMEM;
	h.header_size = sizeof(h);
	h.version_major = IOT_VERSION_MAJOR;
	h.version_minor = IOT_VERSION_MINOR_UNPACKED;
	h.rec_size = IOT_REC_SIZE;
	h.nr_cpus = im->nr_cpus ? im->nr_cpus : 1;
	h.clock_id = 1;
	h.start_mono_ns = first;
	/* a TIMESTAMP notify ties the capture's clock to the wall clock */
	h.start_realtime_ns =
	    im->realtime_ns ? im->realtime_ns - (im->realtime_at - first) : 0;
	err = trace_writer_open(&w, path, &h);
	if (err) {
		free(oc);
		return err;
	}
	n = snprintf(
	    meta, sizeof(meta),
	    "tool=iotrail import\nmode=events\nimport=blktrace\nidentity=sector\n"
	    "import_source=%s\ndrivers=none (imported)\n",
	    source);
	while (n % 8)
		meta[n++] = '\n';
	err = trace_writer_chunk(&w, IOT_CHUNK_META, 0, meta, (size_t)n, NULL, 0);
	for (size_t i = 0; i < im->nr && !err; i++) {
		const struct bt_rec *b = &im->recs[i];
		struct out_cpu *c = &oc[b->cpu];
		struct iot_rec o;
		bool emit;

		/* a CPU's records lost show as missing sequence numbers */
		c->seq += b->gap;
		err = link_one(l, b, &o, &emit);
		if (err || !emit)
			continue;
		o.seq = c->seq++;
		if (GROW(c->r, c->n + 1, c->cap)) {
			err = -ENOMEM;
			break;
		}
		c->r[c->n++] = o;
		last = b->time;
		if (++pending == CHUNK_EVENTS) {
			err = flush_all(&w, oc, h.nr_cpus, last + 1);
			pending = 0;
		}
	}
	if (!err)
		err = flush_all(&w, oc, h.nr_cpus, last + 1);
	if (!err)
		err = trace_writer_chunk(&w, IOT_CHUNK_DEVICES, 0, im->devs,
					 im->nr_devs * sizeof(*im->devs), NULL, 0);
	if (!err && im->nr_tasks)
		err = trace_writer_chunk(&w, IOT_CHUNK_TASKS, 0, im->tasks,
					 im->nr_tasks * sizeof(*im->tasks), NULL, 0);
	if (!err) {
		struct iot_end end = {.end_mono_ns = last, .reason = IOT_STOP_COMMAND};

		err =
		    trace_writer_chunk(&w, IOT_CHUNK_END, 0, &end, sizeof(end), NULL, 0);
	}
	if (trace_writer_close(&w) && !err)
		err = -EIO;
	for (uint32_t c = 0; c < h.nr_cpus; c++)
		free(oc[c].r);
	free(oc);
	return err;
}

int bt_import_write(struct bt_import *im, const char *path, const char *source)
{
	struct linker l = {.im = im};
	int err;

	qsort(im->recs, im->nr, sizeof(*im->recs), cmp_rec);
	l.bio_based = calloc(im->nr_devs + 1, 1);
	if (!l.bio_based || u64map_init(&l.bio_at, 1024) || u64map_init(&l.rq_at, 1024)) {
		free(l.bio_based);
		snprintf(im->err, sizeof(im->err), "%s: out of memory", path);
		return -1;
	}
	/* a device without G, I or D completes bios: zram, brd, dm */
	for (size_t d = 0; d < im->nr_devs; d++)
		l.bio_based[d] = 1;
	for (size_t i = 0; i < im->nr; i++) {
		uint32_t act = im->recs[i].action & 0xffff;

		if (act == __BLK_TA_GETRQ || act == __BLK_TA_INSERT ||
		    act == __BLK_TA_ISSUE)
			l.bio_based[dev_index(im, im->recs[i].dev)] = 0;
	}
	for (size_t d = 0; d < im->nr_devs; d++)
		if (l.bio_based[d])
			im->devs[d].flags |= IOT_DEV_BIO_BASED;
	err = write_trace(im, &l, path, source);
	if (err)
		snprintf(im->err, sizeof(im->err), "%s: %s", path, strerror(-err));
	u64map_release(&l.bio_at);
	u64map_release(&l.rq_at);
	free(l.rqs);
	free(l.free_rqs);
	free(l.bio_based);
	return err ? -1 : 0;
}

void bt_import_release(struct bt_import *im)
{
	free(im->recs);
	free(im->tasks);
	free(im->devs);
	memset(im, 0, sizeof(*im));
}
