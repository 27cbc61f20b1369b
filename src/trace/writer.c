// SPDX-License-Identifier: GPL-2.0
/* Trace file writer: header and chunks, buffered through stdio. */
#include "writer.h"
#include "pack.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/uio.h>
#include <unistd.h>

#define WRITER_BUF_BYTES    (1u << 20)
#define WRITER_DIRECT_BYTES (64u << 10)

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
	return 0;
cleanup:
	if (w->f)
		fclose(w->f);
	w->f = NULL;
	free(w->path);
	free(w->iobuf);
	w->path = NULL;
	w->iobuf = NULL;
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

static int chunk_locked(struct trace_writer *w, uint32_t type, uint32_t cpu,
			const void *p1, size_t n1, const void *p2, size_t n2)
{
	struct iot_chunk c = {.type = type, .cpu = cpu, .size = n1 + n2};
	int err;

	if (w->discard) {
		w->offset += sizeof(c) + n1 + n2;
		return 0;
	}
	if (!w->f)
		return -EBADF;
	if (n1 + n2 >= WRITER_DIRECT_BYTES) {
		/* large payloads (a CPU's drained records) go straight from
		 * where they are, without a copy through the stdio buffer */
		struct iovec iov[3] = {
		    {&c, sizeof(c)}, {(void *)p1, n1}, {(void *)p2, n2}};

		if (fflush(w->f) != 0)
			return -errno ?: -EIO;
		err = write_all(fileno(w->f), iov, n2 ? 3 : 2);
		if (err)
			return err;
	} else if (fwrite(&c, sizeof(c), 1, w->f) != 1 ||
		   (n1 && fwrite(p1, 1, n1, w->f) != n1) ||
		   (n2 && fwrite(p2, 1, n2, w->f) != n2)) {
		return -errno ?: -EIO;
	}
	w->offset += sizeof(c) + n1 + n2;
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

int trace_writer_close(struct trace_writer *w)
{
	int err = 0;

	if (w->f) {
		if (fflush(w->f) != 0)
			err = -errno ?: -EIO;
		else if (fsync(fileno(w->f)) != 0 && errno != EINVAL)
			err = -errno;
		if (fclose(w->f) != 0 && !err)
			err = -errno ?: -EIO;
	}
	w->f = NULL;
	free(w->path);
	free(w->iobuf);
	trace_pack_room_release(&w->room);
	w->path = NULL;
	w->iobuf = NULL;
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
