// SPDX-License-Identifier: GPL-2.0
/* Trace file writer: header and chunks, buffered through stdio. */
#include "writer.h"
#include "pack.h"

#include <errno.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define WRITER_BUF_BYTES    (1u << 20)
#define WRITER_DIRECT_BYTES (64u << 10)
/* flushed by the writer before stdio would flush on its own: a failure
 * then meets the file at a point the writer knows (w->durable) */
#define WRITER_FLUSH_BYTES (WRITER_BUF_BYTES / 2)

static int note_chunk(struct trace_writer *w, uint64_t end, uint64_t nr_recs,
		      uint32_t cpu);

int trace_writer_open(struct trace_writer *w, const char *path,
		      const struct iot_file_header *hdr)
{
	int err;

	memset(w, 0, sizeof(*w));
	w->lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
	if (!path) { /* a writer that keeps nothing (trace_writer.h) */
		w->discard = true;
		return 0;
	}
	w->path = strdup(path);
	w->iobuf = malloc(WRITER_BUF_BYTES);
	if (!w->path || !w->iobuf) {
		err = -ENOMEM;
		goto cleanup;
	}
	{
		/* not truncated before the lock: a second recorder on the same
		 * file is refused instead of interleaving into it */
		int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

		if (fd < 0) {
			err = -errno;
			goto cleanup;
		}
		if (flock(fd, LOCK_EX | LOCK_NB)) {
			err = errno == EWOULDBLOCK ? -EBUSY : -errno;
			close(fd);
			goto cleanup;
		}
		if (ftruncate(fd, 0) || !(w->f = fdopen(fd, "wb"))) {
			err = -errno;
			close(fd);
			goto cleanup;
		}
	}
	setvbuf(w->f, w->iobuf, _IOFBF, WRITER_BUF_BYTES);
	if (fwrite(hdr, sizeof(*hdr), 1, w->f) != 1) {
		err = -errno ?: -EIO;
		goto cleanup;
	}
	w->offset = sizeof(*hdr);
	/* the header is the first whole piece a failure keeps */
	if ((err = note_chunk(w, w->offset, 0, 0)))
		goto cleanup;
	return 0;
cleanup:
	if (w->f)
		fclose(w->f);
	w->f = NULL;
	free(w->path);
	free(w->iobuf);
	free(w->notes);
	w->path = NULL;
	w->iobuf = NULL;
	w->notes = NULL;
	return err;
}

/* writev() until everything is written; 0 or -errno */
static int write_all(int fd, struct iovec *iov, int n)
{
	while (n) {
		ssize_t w = writev(fd, iov, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		while (n && (size_t)w >= iov->iov_len) {
			w -= iov->iov_len;
			iov++;
			n--;
		}
		if (n) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= w;
		}
	}
	return 0;
}

static bool is_events(uint32_t type)
{
	return type == IOT_CHUNK_EVENTS || type == IOT_CHUNK_EVENTS_PACKED;
}

static void count_lost(struct trace_writer *w, uint32_t cpu, uint64_t n)
{
	if (!n || cpu >= IOT_MAX_CPUS)
		return;
	if (cpu >= w->nr_lost) {
		uint32_t nr = cpu + 1 > 2 * w->nr_lost ? cpu + 1 : 2 * w->nr_lost;
		uint64_t *p = realloc(w->lost, nr * sizeof(*p));

		if (!p)
			return; /* the count is lost, not the file */
		memset(p + w->nr_lost, 0, (nr - w->nr_lost) * sizeof(*p));
		w->lost = p;
		w->nr_lost = nr;
	}
	w->lost[cpu] += n;
}

/* The event records of a chunk about to be written (0 for other types). */
static uint64_t chunk_recs(uint32_t type, const void *p1, size_t n1, size_t n2)
{
	struct iot_packed h;

	if (type == IOT_CHUNK_EVENTS)
		return (n1 + n2) / IOT_REC_SIZE;
	if (type == IOT_CHUNK_EVENTS_PACKED && n1 >= sizeof(h)) {
		memcpy(&h, p1, sizeof(h));
		return h.nr_recs;
	}
	return 0;
}

static int note_chunk(struct trace_writer *w, uint64_t end, uint64_t nr_recs,
		      uint32_t cpu)
{
	if (w->nr_notes == w->cap_notes) {
		size_t cap = w->cap_notes ? 2 * w->cap_notes : 256;
		struct trace_chunk_note *p = realloc(w->notes, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		w->notes = p;
		w->cap_notes = cap;
	}
	w->notes[w->nr_notes++] = (struct trace_chunk_note){end, nr_recs, cpu};
	return 0;
}

/*
 * A write failed with err: the file is cut back to its last whole chunk.
 * The chunks noted since durable that the file holds whole stay; the
 * records of the others (the stdio buffer is dropped) are counted lost,
 * but for the last one when it is the call's own (this_noted): a call
 * that fails has written nothing, its caller knows. Returns err.
 */
static int fail_locked(struct trace_writer *w, int err, bool this_noted)
{
	int fd = fileno(w->f);
	uint64_t keep = w->durable;
	bool whole = true;
	struct stat st;

	__fpurge(w->f);
	clearerr(w->f);
	if (fstat(fd, &st))
		st.st_size = 0;
	/* the call's own chunk is neither kept nor counted */
	for (size_t i = 0; i + this_noted < w->nr_notes; i++) {
		const struct trace_chunk_note *n = &w->notes[i];

		whole = whole && n->end <= (uint64_t)st.st_size;
		if (whole)
			keep = n->end;
		else
			count_lost(w, n->cpu, n->nr_recs);
	}
	w->nr_notes = 0;
	if (ftruncate(fd, (off_t)keep) || fseeko(w->f, (off_t)keep, SEEK_SET)) {
		/* past repair: nothing more goes in */
		fclose(w->f);
		w->f = NULL;
	}
	w->offset = w->durable = keep;
	if (!w->failed)
		w->failed = err;
	return err;
}

/* What stdio holds, written: then the file holds everything. A failure
 * cuts the file back (fail_locked, this_noted as there). */
static int flush_locked(struct trace_writer *w, bool this_noted)
{
	if (fflush(w->f) != 0)
		return fail_locked(w, -errno ?: -EIO, this_noted);
	w->durable = w->offset;
	w->nr_notes = 0;
	return 0;
}

static int chunk_locked(struct trace_writer *w, uint32_t type, uint32_t cpu,
			const void *p1, size_t n1, const void *p2, size_t n2)
{
	struct iot_chunk c = {.type = type, .cpu = cpu, .size = n1 + n2};
	uint64_t end = w->offset + sizeof(c) + n1 + n2,
		 nr_recs = chunk_recs(type, p1, n1, n2);
	int err;

	if (w->discard) {
		w->offset = end;
		return 0;
	}
	if (w->failed && is_events(type))
		return w->failed; /* after a hole, no CPU's records go on:
				     their stream would have one inside */
	if (!w->f)
		return -EBADF;
	if (n1 + n2 >= WRITER_DIRECT_BYTES) {
		/* large payloads (a CPU's drained records) go straight from
		 * where they are, without a copy through the stdio buffer */
		struct iovec iov[3] = {
		    {&c, sizeof(c)}, {(void *)p1, n1}, {(void *)p2, n2}};

		if ((err = flush_locked(w, false)))
			return err;
		if ((err = note_chunk(w, end, nr_recs, cpu)))
			return err;
		err = write_all(fileno(w->f), iov, n2 ? 3 : 2);
		if (err)
			return fail_locked(w, err, true);
		w->offset = end;
		return flush_locked(w, true); /* nothing buffered: notes it */
	}
	if ((err = note_chunk(w, end, nr_recs, cpu)))
		return err;
	if (fwrite(&c, sizeof(c), 1, w->f) != 1 ||
	    (n1 && fwrite(p1, 1, n1, w->f) != n1) ||
	    (n2 && fwrite(p2, 1, n2, w->f) != n2))
		return fail_locked(w, -errno ?: -EIO, true);
	w->offset = end;
	/* the call fails with its flush: its chunk is not counted lost */
	if (w->offset - w->durable >= WRITER_FLUSH_BYTES)
		return flush_locked(w, true);
	return 0;
}

int trace_writer_chunk(struct trace_writer *w, uint32_t type, uint32_t cpu,
		       const void *p1, size_t n1, const void *p2, size_t n2)
{
	int err;

	pthread_mutex_lock(&w->lock);
	err = chunk_locked(w, type, cpu, p1, n1, p2, n2);
	pthread_mutex_unlock(&w->lock);
	return err;
}

int trace_writer_packed_in(struct trace_writer *w, struct trace_pack_room *room,
			   uint32_t cpu, const struct iot_rec *r1, size_t n1,
			   const struct iot_rec *r2, size_t n2)
{
	struct iot_packed h = {.nr_recs = n1 + n2};
	size_t need = sizeof(h) + (n1 + n2) * IOT_PACK_MAX + 8, len;
	struct iot_packer st;

	if (need > room->cap) {
		uint8_t *p = realloc(room->p, need);

		if (!p)
			return -ENOMEM;
		room->p = p;
		room->cap = need;
	}
	memcpy(room->p, &h, sizeof(h));
	iot_pack_begin(&st);
	len = sizeof(h) + iot_pack_more(&st, r1, n1, room->p + sizeof(h));
	len += iot_pack_more(&st, r2, n2, room->p + len);
	/* zeros to a multiple of 8: the chunks after stay aligned */
	while (len % 8)
		room->p[len++] = 0;
	return trace_writer_chunk(w, IOT_CHUNK_EVENTS_PACKED, cpu, room->p, len, NULL, 0);
}

int trace_writer_packed(struct trace_writer *w, uint32_t cpu, const struct iot_rec *r1,
			size_t n1, const struct iot_rec *r2, size_t n2)
{
	return trace_writer_packed_in(w, &w->room, cpu, r1, n1, r2, n2);
}

void trace_pack_room_release(struct trace_pack_room *room)
{
	free(room->p);
	room->p = NULL;
	room->cap = 0;
}

/* The blocks of [offset, offset + len) allocated: 0, or -errno. */
static int allocate(struct trace_writer *w, uint64_t len)
{
	if (fallocate(fileno(w->f), FALLOC_FL_KEEP_SIZE, (off_t)w->offset, (off_t)len))
		return -errno;
	w->reserved = w->offset + len;
	return 0;
}

/*
 * Twice the bytes asked, once fewer than them are left ahead: a call per
 * that many bytes written (an allocation over megabytes is no cheap call:
 * 0.1 ms for 20 MB on ext4, 2 vCPUs). Where twice cannot be had, the bytes
 * asked do.
 */
int trace_writer_reserve(struct trace_writer *w, uint64_t bytes)
{
	int err = 0;

	pthread_mutex_lock(&w->lock);
	if (w->f && !w->no_reserve && !w->failed && w->offset + bytes > w->reserved) {
		err = allocate(w, 2 * bytes);
		if (err && err != -EOPNOTSUPP && err != -ENOSYS && err != -EINTR)
			err = allocate(w, bytes);
		if (err == -EOPNOTSUPP || err == -ENOSYS) {
			w->no_reserve = true;
			err = 0;
		} else if (err == -EINTR) { /* at the next call */
			err = 0;
		}
	}
	pthread_mutex_unlock(&w->lock);
	return err;
}

int trace_writer_flush(struct trace_writer *w)
{
	int err = 0;

	pthread_mutex_lock(&w->lock);
	if (w->f)
		err = flush_locked(w, false);
	pthread_mutex_unlock(&w->lock);
	return err;
}

uint64_t trace_writer_lost(const struct trace_writer *w, uint32_t cpu)
{
	return cpu < w->nr_lost ? w->lost[cpu] : 0;
}

int trace_writer_close(struct trace_writer *w)
{
	int err = 0;

	if (w->f)
		err = flush_locked(w, false);
	if (w->f) {
		int fd = fileno(w->f);

		/* the blocks allocated ahead and not written: a punch past
		 * the end does nothing on ext4, a truncate to the same size
		 * nothing on tmpfs */
		if (w->reserved > w->offset) {
			(void)!ftruncate(fd, (off_t)w->offset);
			(void)!fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
					 (off_t)w->offset,
					 (off_t)(w->reserved - w->offset));
		}
		if (!err && !w->no_sync && fsync(fd) != 0 && errno != EINVAL)
			err = -errno;
		if (fclose(w->f) != 0 && !err)
			err = -errno ?: -EIO;
	}
	w->f = NULL;
	free(w->path);
	free(w->iobuf);
	free(w->notes);
	free(w->lost);
	trace_pack_room_release(&w->room);
	w->path = NULL;
	w->iobuf = NULL;
	w->notes = NULL;
	w->lost = NULL;
	w->nr_lost = 0;
	return err;
}

int trace_writer_meta(struct trace_writer *w, const struct trace_meta *m)
{
#define S(x) ((x) ? (x) : "")
	char meta[8192];
	int n = snprintf(
	    meta, sizeof(meta),
	    "tool=iotrail\nhost=%s\nkernel=%s\narch=%s\ncmdline=%s\nmode=%s\n"
	    "speculate_ns=%llu\nbufpolicy=%s\nbufresize=%s\nbufsize=%llu\n"
	    "switch_ns=%llu\nattach=%s\nvariant=%s\nmissing=%s\ndrivers=%s\nmodels=%s\n"
	    "stack=%s\nflows=%s\nbackpressure=%s\naggregate=%s\n",
	    S(m->host), S(m->kernel), S(m->arch), S(m->cmdline), S(m->mode),
	    (unsigned long long)m->speculate_ns, S(m->bufpolicy), S(m->bufresize),
	    (unsigned long long)m->bufsize, (unsigned long long)m->switch_ns,
	    S(m->attach), S(m->variant), S(m->missing), S(m->drivers), S(m->models),
	    S(m->stack), S(m->flows), S(m->backpressure), S(m->aggregate));
#undef S

	if (n < 0)
		return -EINVAL;
	if (n >= (int)sizeof(meta) - 8)
		n = sizeof(meta) - 8;
	while (n % 8) /* keep every later record 8-byte aligned in the file */
		meta[n++] = '\n';
	return trace_writer_chunk(w, IOT_CHUNK_META, 0, meta, (size_t)n, NULL, 0);
}
