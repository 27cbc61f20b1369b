// SPDX-License-Identifier: GPL-2.0
/* Trace file writer: header and chunks, buffered through stdio. */
#include "writer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WRITER_BUF_BYTES (1u << 20)

int trace_writer_open(struct trace_writer *w, const char *path,
		      const struct iot_file_header *hdr)
{
	int err;

	memset(w, 0, sizeof(*w));
	w->path = strdup(path);
	w->iobuf = malloc(WRITER_BUF_BYTES);
	if (!w->path || !w->iobuf) {
		err = -ENOMEM;
		goto cleanup;
	}
	w->f = fopen(path, "wb");
	if (!w->f) {
		err = -errno;
		goto cleanup;
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

int trace_writer_chunk(struct trace_writer *w, uint32_t type, uint32_t cpu,
		       const void *p1, size_t n1, const void *p2, size_t n2)
{
	struct iot_chunk c = {.type = type, .cpu = cpu, .size = n1 + n2};

	if (!w->f)
		return -EBADF;
	if (fwrite(&c, sizeof(c), 1, w->f) != 1 ||
	    (n1 && fwrite(p1, 1, n1, w->f) != n1) ||
	    (n2 && fwrite(p2, 1, n2, w->f) != n2))
		return -errno ?: -EIO;
	w->offset += sizeof(c) + n1 + n2;
	return 0;
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
	w->path = NULL;
	w->iobuf = NULL;
	return err;
}
