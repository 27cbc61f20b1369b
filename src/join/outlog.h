/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A log of the join's outputs, to be run later, in order, by another
 * thread: each segment's in the join on threads (parallel.c), each batch
 * of the analyzers' fan-out (src/analyze/fanout.c). An entry holds one
 * output as the join gave it, and a number of the writer's (aux: the
 * fan-out's device). A bio names its request's entry, earlier in the same
 * log; where the request's own entry is not there (another log, or cut
 * off by outlog_cut), a copy goes before the bio (OUTLOG_BIO_REQ).
 */
#ifndef IOTRAIL_JOIN_OUTLOG_H
#define IOTRAIL_JOIN_OUTLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "join.h"

enum outlog_type {
	OUTLOG_REQUEST,
	OUTLOG_BIO_REQ, /* a request for the bios after it only */
	OUTLOG_BIO,
	OUTLOG_SYSCALL,
	OUTLOG_COMMIT,
	OUTLOG_URING,
	OUTLOG_FAULT,
	OUTLOG_DIRTY,
	OUTLOG_MARK,
	OUTLOG_UNFINISHED,
	OUTLOG_FLOOR, /* join_sink.floor: a uint64_t */
};

/* An entry's header; the output's bytes follow it */
struct outlog_ent {
	uint16_t type;
	uint16_t pad;
	uint32_t size; /* of the entry, this header included, a multiple of 8 */
	uint32_t aux;  /* the writer's */
	uint32_t pad2;
	uint64_t req; /* OUTLOG_BIO: the offset of its request's entry */
};

struct outlog {
	unsigned char *buf;
	size_t len, cap;
	const void *last_src; /* the join's request the last entry copied */
	size_t last_req;      /* that entry's offset */
	bool err;	      /* an entry was lost: out of memory */
};

/* An entry of x's n bytes; NULL out of memory (and l->err set) */
struct outlog_ent *outlog_put(struct outlog *l, enum outlog_type t, uint32_t aux,
			      const void *x, size_t n);
void outlog_request(struct outlog *l, uint32_t aux, const struct join_request *r);
void outlog_bio(struct outlog *l, uint32_t aux, const struct join_request *r,
		const struct join_bio *b);
/* whether a bio of r written now would first copy its request */
static inline bool outlog_needs_req(const struct outlog *l, const struct join_request *r)
{
	return l->last_src != r;
}
/* Empty again, its memory kept */
void outlog_clear(struct outlog *l);
void outlog_release(struct outlog *l);

/* The entry at off (off < l->len), its output, and a bio's request */
static inline const struct outlog_ent *outlog_at(const struct outlog *l, size_t off)
{
	return (const struct outlog_ent *)(l->buf + off);
}
static inline const void *outlog_data(const struct outlog_ent *e)
{
	return e + 1;
}
static inline const struct join_request *outlog_bio_req(const struct outlog *l,
							const struct outlog_ent *e)
{
	return outlog_data(outlog_at(l, e->req));
}

/* An OUTLOG_FLOOR entry's floor */
static inline uint64_t outlog_floor_ns(const struct outlog_ent *e)
{
	uint64_t ns;

	memcpy(&ns, outlog_data(e), sizeof(ns));
	return ns;
}

/* Entries [from, to) into a join's sink, as the join called it */
void outlog_replay(const struct outlog *l, size_t from, size_t to,
		   const struct join_sink *k);
/* A sink that writes into l the outputs real takes (aux 0) */
struct join_sink outlog_sink(struct outlog *l, const struct join_sink *real);

#endif
