// SPDX-License-Identifier: GPL-2.0
/* A log of the join's outputs (outlog.h). */
#include "outlog.h"

#include <stdlib.h>
#include <string.h>

#include "../util/grow.h"

struct outlog_ent *outlog_put(struct outlog *l, enum outlog_type t, uint32_t aux,
			      const void *x, size_t n)
{
	size_t need = (sizeof(struct outlog_ent) + n + 7) & ~(size_t)7;
	struct outlog_ent *e;

	if (GROW(l->buf, l->len + need, l->cap)) {
		l->err = true;
		return NULL;
	}
	e = (struct outlog_ent *)(l->buf + l->len);
	memset(e, 0, sizeof(*e));
	e->type = (uint16_t)t;
	e->size = (uint32_t)need;
	e->aux = aux;
	memcpy(e + 1, x, n);
	l->len += need;
	l->last_src = NULL;
	return e;
}

void outlog_request(struct outlog *l, uint32_t aux, const struct join_request *r)
{
	size_t off = l->len;

	if (outlog_put(l, OUTLOG_REQUEST, aux, r, sizeof(*r))) {
		l->last_src = r;
		l->last_req = off;
	}
}

void outlog_bio(struct outlog *l, uint32_t aux, const struct join_request *r,
		const struct join_bio *b)
{
	struct outlog_ent *e;

	if (outlog_needs_req(l, r)) {
		size_t off = l->len;

		if (!outlog_put(l, OUTLOG_BIO_REQ, aux, r, sizeof(*r)))
			return;
		l->last_req = off;
	}
	e = outlog_put(l, OUTLOG_BIO, aux, b, sizeof(*b));
	if (e)
		e->req = l->last_req;
	l->last_src = r; /* the next bio of the same request follows */
}

void outlog_clear(struct outlog *l)
{
	l->len = 0;
	l->last_src = NULL;
	l->err = false;
}

void outlog_release(struct outlog *l)
{
	free(l->buf);
	memset(l, 0, sizeof(*l));
}

void outlog_replay(const struct outlog *l, size_t from, size_t to,
		   const struct join_sink *k)
{
	for (size_t off = from; off < to;) {
		const struct outlog_ent *e = outlog_at(l, off);
		const void *x = outlog_data(e);

		switch (e->type) {
		case OUTLOG_REQUEST:
			k->request(k->ctx, x);
			break;
		case OUTLOG_BIO:
			k->bio(k->ctx, outlog_bio_req(l, e), x);
			break;
		case OUTLOG_SYSCALL:
			k->syscall(k->ctx, x);
			break;
		case OUTLOG_COMMIT:
			k->commit(k->ctx, x);
			break;
		case OUTLOG_URING:
			k->uring(k->ctx, x);
			break;
		case OUTLOG_FAULT:
			k->fault(k->ctx, x);
			break;
		case OUTLOG_DIRTY:
			k->dirty(k->ctx, x);
			break;
		case OUTLOG_MARK:
			k->mark(k->ctx, x);
			break;
		case OUTLOG_UNFINISHED:
			k->unfinished(k->ctx, x);
			break;
		case OUTLOG_FLOOR:
			if (k->floor)
				k->floor(k->ctx, outlog_floor_ns(e));
			break;
		default: /* OUTLOG_BIO_REQ */
			break;
		}
		off += e->size;
	}
}

static void log_request(void *ctx, const struct join_request *r)
{
	outlog_request(ctx, 0, r);
}

static void log_bio(void *ctx, const struct join_request *r, const struct join_bio *b)
{
	outlog_bio(ctx, 0, r, b);
}

#define LOG_OUTPUT(name, type, TYPE)                                                     \
	static void log_##name(void *ctx, type x)                                        \
	{                                                                                \
		outlog_put(ctx, TYPE, 0, x, sizeof(*x));                                 \
	}
LOG_OUTPUT(syscall, const struct join_syscall *, OUTLOG_SYSCALL)
LOG_OUTPUT(commit, const struct join_commit *, OUTLOG_COMMIT)
LOG_OUTPUT(uring, const struct join_uring *, OUTLOG_URING)
LOG_OUTPUT(fault, const struct join_fault *, OUTLOG_FAULT)
LOG_OUTPUT(dirty, const struct join_dirty *, OUTLOG_DIRTY)
LOG_OUTPUT(mark, const struct join_mark *, OUTLOG_MARK)
LOG_OUTPUT(unfinished, const struct join_request *, OUTLOG_UNFINISHED)

static void log_floor(void *ctx, uint64_t ns)
{
	outlog_put(ctx, OUTLOG_FLOOR, 0, &ns, sizeof(ns));
}

struct join_sink outlog_sink(struct outlog *l, const struct join_sink *real)
{
	return (struct join_sink){
	    .ctx = l,
	    .request = real->request ? log_request : NULL,
	    .bio = real->bio ? log_bio : NULL,
	    .syscall = real->syscall ? log_syscall : NULL,
	    .commit = real->commit ? log_commit : NULL,
	    .uring = real->uring ? log_uring : NULL,
	    .fault = real->fault ? log_fault : NULL,
	    .dirty = real->dirty ? log_dirty : NULL,
	    .mark = real->mark ? log_mark : NULL,
	    .unfinished = real->unfinished ? log_unfinished : NULL,
	    .floor = real->floor ? log_floor : NULL,
	};
}
