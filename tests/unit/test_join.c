// SPDX-License-Identifier: GPL-2.0
/* The request join, one transition of the state machine (join.c) per test. */
#include <stdlib.h>

#include "helpers.h"
#include "join/join.h"
#include "join/parallel.h"

#define MAXOUT 16
static struct join_request reqs[MAXOUT];
static struct join_bio bios[MAXOUT];
static struct join_syscall sys[MAXOUT];
static struct join_commit commits[MAXOUT];
static struct join_uring urings[MAXOUT];
static int nreq, nbio, nsys, ncommit, nuring;
static bool bio_based;

/* what the join emits, the first MAXOUT of each (the random streams
 * reset the counts; a request there can carry many bios) */
static void on_req(void *c, const struct join_request *r)
{
	if (nreq < MAXOUT)
		reqs[nreq] = *r;
	nreq++;
}
static void on_bio(void *c, const struct join_request *r, const struct join_bio *b)
{
	if (nbio < MAXOUT)
		bios[nbio] = *b;
	nbio++;
}
static void on_sys(void *c, const struct join_syscall *s)
{
	if (nsys < MAXOUT)
		sys[nsys] = *s;
	nsys++;
}
static void on_commit(void *c, const struct join_commit *jc)
{
	if (ncommit < MAXOUT)
		commits[ncommit] = *jc;
	ncommit++;
}
static void on_uring(void *c, const struct join_uring *u)
{
	if (nuring < MAXOUT)
		urings[nuring] = *u;
	nuring++;
}
static bool is_bio_based(void *c, uint32_t dev)
{
	return bio_based;
}

static struct join j;

/* requests the join handed over as never finished, by first sector */
static uint64_t unf_sector[8];
static int nunf;

static void on_unf(void *ctx, const struct join_request *r)
{
	(void)ctx;
	if (nunf < 8)
		unf_sector[nunf] = r->sector;
	nunf++;
}

static int setup(void **state)
{
	struct join_sink sink = {NULL, on_req, on_bio, on_sys, on_commit, on_uring};

	sink.unfinished = on_unf;
	nreq = nbio = nsys = ncommit = nuring = nunf = 0;
	bio_based = false;
	return join_init(&j, &sink, is_bio_based, NULL);
}

static int teardown(void **state)
{
	join_release(&j);
	return 0;
}

static void feed(struct iot_rec r)
{
	assert_int_equal(join_feed(&j, &r), 0);
}

/* rq_complete's id2: sectors left before this completion << 32 | error */
#define LEFT(n) ((uint64_t)(n) << 32)
#define A	0xa000
#define B	0xb000
#define R	0x1000
#define R2	0x2000

static void simple_request(void **state)
{
	feed(mkrec(IOT_EV_BIO_QUEUE, 100, A, 0, 0, 8));
	feed(mkrec(IOT_EV_GETRQ, 110, A, 0, 0, 8));
	feed(mkrec(IOT_EV_RQ_INSERT, 120, R, A, 0, 8));
	feed(mkrec(IOT_EV_RQ_ISSUE, 130, R, A, 0, 8));
	assert_int_equal(nreq, 0);
	feed(mkrec(IOT_EV_RQ_COMPLETE, 200, R, LEFT(8), 0, 8));
	assert_int_equal(nreq, 1);
	assert_int_equal(reqs[0].q_ns, 100);
	assert_int_equal(reqs[0].g_ns, 110);
	assert_int_equal(reqs[0].i_ns, 120);
	assert_int_equal(reqs[0].d_ns, 130);
	assert_int_equal(reqs[0].c_ns, 200);
	assert_int_equal(reqs[0].nr_sectors, 8);
	assert_int_equal(reqs[0].nr_bios, 1);
	assert_int_equal(nbio, 1);
	assert_int_equal(bios[0].q_ns, 100);
	assert_int_equal(j.st.orphan_completions, 0);
}

static void backmerge(void **state)
{
	feed(mkrec(IOT_EV_BIO_QUEUE, 100, A, 0, 0, 8));
	feed(mkrec(IOT_EV_GETRQ, 110, A, 0, 0, 8));
	feed(mkrec(IOT_EV_BIO_QUEUE, 115, B, 0, 8, 8));
	feed(mkrec(IOT_EV_BIO_BACKMERGE, 116, B, 0, 8, 8));
	feed(mkrec(IOT_EV_RQ_INSERT, 120, R, A, 0, 16));
	feed(mkrec(IOT_EV_RQ_ISSUE, 130, R, A, 0, 16));
	feed(mkrec(IOT_EV_RQ_COMPLETE, 200, R, LEFT(16), 0, 16));
	assert_int_equal(nreq, 1);
	assert_int_equal(reqs[0].nr_bios, 2);
	assert_int_equal(reqs[0].nr_sectors, 16);
	assert_int_equal(nbio, 2);
	assert_int_equal(bios[0].q_ns, 100);
	assert_int_equal(bios[1].q_ns, 115);
	assert_int_equal(j.st.unmatched_merges, 0);
}

static void frontmerge(void **state)
{
	feed(mkrec(IOT_EV_BIO_QUEUE, 100, A, 0, 8, 8));
	feed(mkrec(IOT_EV_GETRQ, 110, A, 0, 8, 8));
	feed(mkrec(IOT_EV_BIO_QUEUE, 115, B, 0, 0, 8));
	feed(mkrec(IOT_EV_BIO_FRONTMERGE, 116, B, 0, 0, 8));
	/* the request's first bio is now B */
	feed(mkrec(IOT_EV_RQ_ISSUE, 130, R, B, 0, 16));
	feed(mkrec(IOT_EV_RQ_COMPLETE, 200, R, LEFT(16), 0, 16));
	assert_int_equal(nreq, 1);
	assert_int_equal(reqs[0].sector, 0);
	assert_int_equal(reqs[0].nr_bios, 2);
	assert_int_equal(reqs[0].q_ns, 100);
	assert_int_equal(reqs[0].i_ns, 0); /* no scheduler: no I */
}

static void merge_into_unknown_request(void **state)
{
	feed(mkrec(IOT_EV_BIO_QUEUE, 115, B, 0, 8, 8));
	feed(mkrec(IOT_EV_BIO_BACKMERGE, 116, B, 0, 8, 8));
	assert_int_equal(j.st.unmatched_merges, 1);
	assert_int_equal(j.bio_by_ptr.n, 0); /* not leaked */
}

static void partial_completion(void **state)
{
	feed(mkrec(IOT_EV_BIO_QUEUE, 100, A, 0, 0, 16));
	feed(mkrec(IOT_EV_GETRQ, 110, A, 0, 0, 16));
	feed(mkrec(IOT_EV_RQ_ISSUE, 130, R, A, 0, 16));
	feed(mkrec(IOT_EV_RQ_COMPLETE, 200, R, LEFT(16), 0, 8));
	assert_int_equal(nreq, 0);
	feed(mkrec(IOT_EV_RQ_COMPLETE, 210, R, LEFT(8), 8, 8));
	assert_int_equal(nreq, 1);
	assert_int_equal(reqs[0].c_ns, 210);
	assert_int_equal(reqs[0].nr_sectors, 16);
}

static void requeue(void **state)
{
	feed(mkrec(IOT_EV_BIO_QUEUE, 100, A, 0, 0, 8));
	feed(mkrec(IOT_EV_GETRQ, 110, A, 0, 0, 8));
	feed(mkrec(IOT_EV_RQ_INSERT, 120, R, A, 0, 8));
	feed(mkrec(IOT_EV_RQ_ISSUE, 130, R, A, 0, 8));
	feed(mkrec(IOT_EV_RQ_REQUEUE, 140, R, A, 0, 8));
	feed(mkrec(IOT_EV_RQ_INSERT, 145, R, A, 0, 8));
	feed(mkrec(IOT_EV_RQ_ISSUE, 150, R, A, 0, 8));
	feed(mkrec(IOT_EV_RQ_COMPLETE, 200, R, LEFT(8), 0, 8));
	assert_int_equal(nreq, 1);
	assert_int_equal(reqs[0].nr_requeues, 1);
	assert_int_equal(reqs[0].i_ns, 120); /* first insert */
	assert_int_equal(reqs[0].d_ns, 150); /* last dispatch */
}

static void bio_based_device(void **state)
{
	bio_based = true;
	feed(mkrec(IOT_EV_BIO_QUEUE, 100, A, 0, 0, 8));
	feed(mkrec(IOT_EV_BIO_COMPLETE, 150, A, 0, 0, 8));
	assert_int_equal(nreq, 1);
	assert_true(reqs[0].bio_only);
	assert_int_equal(reqs[0].q_ns, 100);
	assert_int_equal(reqs[0].c_ns, 150);
	assert_int_equal(nbio, 1);
}

/* On a request-based device a bio's own completion follows its request's:
 * it must not count again. */
static void bio_complete_after_request(void **state)
{
	feed(mkrec(IOT_EV_BIO_QUEUE, 100, A, 0, 0, 8));
	feed(mkrec(IOT_EV_GETRQ, 110, A, 0, 0, 8));
	feed(mkrec(IOT_EV_RQ_ISSUE, 130, R, A, 0, 8));
	feed(mkrec(IOT_EV_RQ_COMPLETE, 200, R, LEFT(8), 0, 8));
	feed(mkrec(IOT_EV_BIO_COMPLETE, 201, A, 0, 0, 8));
	assert_int_equal(nreq, 1);
	/* a bio that merged into a request the trace never saw */
	feed(mkrec(IOT_EV_BIO_QUEUE, 300, B, 0, 64, 8));
	feed(mkrec(IOT_EV_BIO_COMPLETE, 350, B, 0, 64, 8));
	assert_int_equal(nreq, 1);
	assert_int_equal(j.bio_by_ptr.n, 0);
}

static void orphan_completion(void **state)
{
	feed(mkrec(IOT_EV_RQ_COMPLETE, 200, R, LEFT(8), 0, 8));
	assert_int_equal(nreq, 1);
	assert_int_equal(reqs[0].q_ns, 0);
	assert_int_equal(reqs[0].c_ns, 200);
	assert_int_equal(reqs[0].nr_sectors, 8);
	assert_int_equal(j.st.orphan_completions, 1);
}

static void request_merge(void **state)
{
	feed(mkrec(IOT_EV_BIO_QUEUE, 100, A, 0, 0, 8));
	feed(mkrec(IOT_EV_GETRQ, 101, A, 0, 0, 8));
	feed(mkrec(IOT_EV_RQ_INSERT, 102, R, A, 0, 8));
	feed(mkrec(IOT_EV_BIO_QUEUE, 103, B, 0, 8, 8));
	feed(mkrec(IOT_EV_GETRQ, 104, B, 0, 8, 8));
	feed(mkrec(IOT_EV_RQ_INSERT, 105, R2, B, 8, 8));
	feed(mkrec(IOT_EV_RQ_MERGE, 106, R2, B, 8, 8));
	feed(mkrec(IOT_EV_RQ_ISSUE, 130, R, A, 0, 16));
	feed(mkrec(IOT_EV_RQ_COMPLETE, 200, R, LEFT(16), 0, 16));
	assert_int_equal(nreq, 1);
	assert_int_equal(reqs[0].nr_bios, 2);
	assert_int_equal(reqs[0].nr_sectors, 16);
	assert_int_equal(nbio, 2);
	assert_int_equal(j.rq_by_ptr.n, 0);
}

/* Merged away as the scheduler inserts it (mq-deadline's insert merge):
 * the request never had its I, so the join knows it by its head bio only;
 * its bio moves to the neighbour all the same (io_uring SQPOLL bursts). */
static void request_merge_before_insert(void **state)
{
	feed(mkrec(IOT_EV_BIO_QUEUE, 100, A, 0, 0, 8));
	feed(mkrec(IOT_EV_GETRQ, 101, A, 0, 0, 8));
	feed(mkrec(IOT_EV_RQ_INSERT, 102, R, A, 0, 8));
	feed(mkrec(IOT_EV_BIO_QUEUE, 103, B, 0, 8, 8));
	feed(mkrec(IOT_EV_GETRQ, 104, B, 0, 8, 8));
	feed(mkrec(IOT_EV_RQ_MERGE, 105, R2, B, 8, 8));
	feed(mkrec(IOT_EV_RQ_ISSUE, 130, R, A, 0, 16));
	feed(mkrec(IOT_EV_RQ_COMPLETE, 200, R, LEFT(16), 0, 16));
	assert_int_equal(nreq, 1);
	assert_int_equal(reqs[0].nr_bios, 2);
	assert_int_equal(reqs[0].nr_sectors, 16);
	assert_int_equal(nbio, 2);
	assert_int_equal(j.bio_by_ptr.n, 0);
}

static void split(void **state)
{
	const uint64_t S = 0x5000;

	feed(mkrec(IOT_EV_BIO_QUEUE, 100, A, 0, 0, 16));
	/* front half becomes bio S; A keeps sectors 8.. */
	feed(mkrec(IOT_EV_SPLIT, 105, S, 8, 0, 8));
	feed(mkrec(IOT_EV_GETRQ, 110, S, 0, 0, 8));
	feed(mkrec(IOT_EV_RQ_ISSUE, 120, R, S, 0, 8));
	feed(mkrec(IOT_EV_GETRQ, 111, A, 0, 8, 8));
	feed(mkrec(IOT_EV_RQ_ISSUE, 121, R2, A, 8, 8));
	feed(mkrec(IOT_EV_RQ_COMPLETE, 200, R, LEFT(8), 0, 8));
	feed(mkrec(IOT_EV_RQ_COMPLETE, 201, R2, LEFT(8), 8, 8));
	assert_int_equal(nreq, 2);
	assert_int_equal(bios[0].q_ns, 100); /* inherited */
	assert_int_equal(bios[1].q_ns, 100);
	assert_int_equal(bios[1].sector, 8);
	assert_int_equal(j.st.splits, 1);
}

static void syscall_attribution(void **state)
{
	struct iot_rec se = mkrec(IOT_EV_SYS_ENTER, 90, 4096, 12, 17, 4096);
	struct iot_rec sx = mkrec(IOT_EV_SYS_EXIT, 210, 0, 0, 4096, 0);

	se.flags = 3;  /* fd */
	sx.flags = 17; /* pread64 */
	feed(se);
	feed(mkrec(IOT_EV_BIO_QUEUE, 100, A, 0, 0, 8));
	feed(mkrec(IOT_EV_GETRQ, 110, A, 0, 0, 8));
	feed(mkrec(IOT_EV_RQ_INSERT, 120, R, A, 0, 8));
	feed(mkrec(IOT_EV_RQ_ISSUE, 150, R, A, 0, 8));
	feed(mkrec(IOT_EV_RQ_COMPLETE, 200, R, LEFT(8), 0, 8));
	feed(sx);
	assert_int_equal(nsys, 1);
	assert_int_equal(sys[0].nr, 17);
	assert_int_equal(sys[0].fd, 3);
	assert_int_equal(sys[0].pos, 4096);
	assert_int_equal(sys[0].ino, 12);
	assert_int_equal(sys[0].ret, 4096);
	assert_int_equal(sys[0].exit_ns - sys[0].enter_ns, 120);
	assert_int_equal(sys[0].nr_bios, 1);
	assert_int_equal(sys[0].nr_bios_done, 1);
	assert_int_equal(sys[0].bio_q2c_sum_ns, 100);
	assert_int_equal(sys[0].i2d_sum_ns, 30);
	/* the bio and its request carry the call's inode (patterns, groups.h) */
	assert_int_equal(nbio, 1);
	assert_int_equal(bios[0].ino, 12);
	assert_int_equal(reqs[0].ino, 12);
	/* a bio from another thread is not this call's */
	assert_int_equal(j.sys_by_tid.n, 0);
}

/* A bio outlives the call that queued it (read-ahead, aio): a later call
 * of another task that takes the same slot of the join's table is not
 * charged with its completion. */
static void bio_outlives_its_call(void **state)
{
	struct iot_rec se = mkrec(IOT_EV_SYS_ENTER, 90, 4096, 12, 17, 4096);
	struct iot_rec sx = mkrec(IOT_EV_SYS_EXIT, 110, 0, 0, 4096, 0);
	struct iot_rec se2 = se, sx2 = sx;

	se.flags = sx.flags = 17;
	feed(se);
	feed(mkrec(IOT_EV_BIO_QUEUE, 100, A, 0, 0, 8));
	feed(sx);
	se2.flags = sx2.flags = 17;
	se2.tid = sx2.tid = 101;
	se2.ts_ns = 120;
	sx2.ts_ns = 300;
	feed(se2);
	feed(mkrec(IOT_EV_GETRQ, 130, A, 0, 0, 8));
	feed(mkrec(IOT_EV_RQ_ISSUE, 150, R, A, 0, 8));
	feed(mkrec(IOT_EV_RQ_COMPLETE, 200, R, LEFT(8), 0, 8));
	feed(sx2);
	assert_int_equal(nsys, 2);
	assert_int_equal(sys[0].nr_bios, 1);
	assert_int_equal(sys[1].tid, 101);
	assert_int_equal(sys[1].nr_bios, 0);
	assert_int_equal(sys[1].nr_bios_done, 0);
	assert_int_equal(sys[1].bio_q2c_sum_ns, 0);
}

static void bio_outside_a_syscall_has_no_inode(void **state)
{
	feed(mkrec(IOT_EV_BIO_QUEUE, 100, A, 0, 0, 8));
	feed(mkrec(IOT_EV_GETRQ, 110, A, 0, 0, 8));
	feed(mkrec(IOT_EV_RQ_ISSUE, 150, R, A, 0, 8));
	feed(mkrec(IOT_EV_RQ_COMPLETE, 200, R, LEFT(8), 0, 8));
	assert_int_equal(nreq, 1);
	assert_int_equal(reqs[0].ino, 0);
	assert_int_equal(bios[0].ino, 0);
}

static void summary_record(void **state)
{
	struct iot_summary s;

	memset(&s, 0, sizeof(s));
	s.type = IOT_EV_SUMMARY;
	s.c_ns = 500;
	s.q_ns = 100;
	s.g_delta_ns = 10;
	s.i_delta_ns = 20;
	s.d_delta_ns = 30;
	s.nr = 8;
	s.dev = 7u << 20;
	s.flags = IOT_OP_WRITE;
	assert_int_equal(join_feed(&j, (const struct iot_rec *)&s), 0);
	assert_int_equal(nreq, 1);
	assert_int_equal(reqs[0].g_ns, 110);
	assert_int_equal(reqs[0].i_ns, 120);
	assert_int_equal(reqs[0].d_ns, 130);
	assert_int_equal(reqs[0].c_ns, 500);
	assert_int_equal(reqs[0].flags, IOT_OP_WRITE);
	assert_int_equal(nbio, 1);
}

/* Summaries of requests whose completion no program saw: a lost one is
 * counted and left out; an unfinished one is counted at once and handed
 * over as never finished, and join_end adds the events' open requests to
 * it rather than replacing it. */
static void summary_lost_unfinished(void **state)
{
	struct iot_summary s;

	memset(&s, 0, sizeof(s));
	s.type = IOT_EV_SUMMARY;
	s.c_ns = 500;
	s.q_ns = 100;
	s.d_delta_ns = 30;
	s.sector = 64;
	s.nr = 8;
	s.flags = IOT_OP_READ | IOT_SUMMARY_F_LOST;
	assert_int_equal(join_feed(&j, (const struct iot_rec *)&s), 0);
	s.sector = 128;
	s.flags = IOT_OP_WRITE | IOT_SUMMARY_F_UNFINISHED;
	assert_int_equal(join_feed(&j, (const struct iot_rec *)&s), 0);
	s.sector = 256;
	s.flags = IOT_OP_READ;
	assert_int_equal(join_feed(&j, (const struct iot_rec *)&s), 0);
	assert_int_equal(nreq, 1);
	assert_int_equal(reqs[0].sector, 256);
	assert_int_equal(nbio, 1);
	assert_int_equal(j.st.lost_completions, 1);
	assert_int_equal(j.st.unfinished, 1);
	assert_int_equal(nunf, 1);
	assert_int_equal(unf_sector[0], 128);
	/* an events request left open */
	feed(mkrec(IOT_EV_BIO_QUEUE, 600, A, 0, 512, 8));
	feed(mkrec(IOT_EV_GETRQ, 610, A, 0, 512, 8));
	feed(mkrec(IOT_EV_RQ_ISSUE, 620, R, A, 512, 8));
	join_end(&j);
	assert_int_equal(j.st.unfinished, 2);
	assert_int_equal(nunf, 2);
	assert_int_equal(unf_sector[1], 512);
	assert_int_equal(nreq, 1);
}

/* Addresses are reused by the kernel: many sequential requests reusing one
 * bio and one request address must neither leak nor cross-link. */
static void address_reuse(void **state)
{
	for (int i = 0; i < 1000; i++) {
		uint64_t t = 1000 * i;

		feed(mkrec(IOT_EV_BIO_QUEUE, t + 1, A, 0, 8 * i, 8));
		feed(mkrec(IOT_EV_GETRQ, t + 2, A, 0, 8 * i, 8));
		feed(mkrec(IOT_EV_RQ_INSERT, t + 3, R, A, 8 * i, 8));
		feed(mkrec(IOT_EV_RQ_ISSUE, t + 4, R, A, 8 * i, 8));
		feed(mkrec(IOT_EV_RQ_COMPLETE, t + 9, R, LEFT(8), 8 * i, 8));
		if (nreq == MAXOUT)
			nreq = nbio = 0;
	}
	assert_int_equal(j.bio_by_ptr.n, 0);
	assert_int_equal(j.rq_by_ptr.n, 0);
	assert_int_equal(j.req_by_end.n, 0);
	assert_int_equal(j.bio_by_start.n, 0);
	assert_true(j.nr_reqs <= 2);
}

/* The completion of R is lost (a drop); the kernel then reuses both the bio
 * and the request address for the next I/O. The next I/O must be joined
 * on its own, and the lists must stay acyclic. */
static void lost_completion_then_reuse(void **state)
{
	feed(mkrec(IOT_EV_BIO_QUEUE, 100, A, 0, 0, 8));
	feed(mkrec(IOT_EV_GETRQ, 110, A, 0, 0, 8));
	feed(mkrec(IOT_EV_RQ_INSERT, 120, R, A, 0, 8));
	feed(mkrec(IOT_EV_RQ_ISSUE, 130, R, A, 0, 8));
	/* C lost */
	feed(mkrec(IOT_EV_BIO_QUEUE, 300, A, 0, 64, 8));
	feed(mkrec(IOT_EV_GETRQ, 310, A, 0, 64, 8));
	feed(mkrec(IOT_EV_RQ_INSERT, 320, R, A, 64, 8));
	feed(mkrec(IOT_EV_RQ_ISSUE, 330, R, A, 64, 8));
	feed(mkrec(IOT_EV_RQ_COMPLETE, 400, R, LEFT(8), 64, 8));
	assert_int_equal(nreq, 1);
	assert_int_equal(reqs[0].q_ns, 300);
	assert_int_equal(reqs[0].sector, 64);
	assert_int_equal(reqs[0].nr_bios, 1);
	assert_int_equal(j.st.lost_completions, 1);
	assert_int_equal(nbio, 1);
	join_end(&j);
	assert_int_equal(j.st.unfinished, 0);
}

/* The completion of the request holding split bio S is lost; the kernel
 * then makes the next split's front bio at S's address. That bio is new:
 * it keeps its parent's Q (and the old request is counted lost when its
 * address comes back), not the dead bio's state. */
static void lost_completion_then_split_reuse(void **state)
{
	const uint64_t S = 0x5000;

	feed(mkrec(IOT_EV_BIO_QUEUE, 100, A, 0, 0, 16));
	feed(mkrec(IOT_EV_SPLIT, 105, S, 8, 0, 8));
	feed(mkrec(IOT_EV_GETRQ, 110, S, 0, 0, 8));
	feed(mkrec(IOT_EV_RQ_ISSUE, 120, R, S, 0, 8));
	/* R's C lost; A's remainder completes on its own */
	feed(mkrec(IOT_EV_GETRQ, 111, A, 0, 8, 8));
	feed(mkrec(IOT_EV_RQ_ISSUE, 121, R2, A, 8, 8));
	feed(mkrec(IOT_EV_RQ_COMPLETE, 201, R2, LEFT(8), 8, 8));
	assert_int_equal(nreq, 1);
	/* the next read: bio B split, its front part at S again, into R */
	feed(mkrec(IOT_EV_BIO_QUEUE, 300, B, 0, 64, 16));
	feed(mkrec(IOT_EV_SPLIT, 305, S, 72, 64, 8));
	feed(mkrec(IOT_EV_GETRQ, 310, S, 0, 64, 8));
	feed(mkrec(IOT_EV_RQ_ISSUE, 320, R, S, 64, 8));
	feed(mkrec(IOT_EV_RQ_COMPLETE, 400, R, LEFT(8), 64, 8));
	assert_int_equal(nreq, 2);
	assert_int_equal(reqs[1].sector, 64);
	assert_int_equal(reqs[1].q_ns, 300); /* B's, not lost */
	assert_int_equal(reqs[1].g_ns, 310);
	assert_int_equal(reqs[1].nr_bios, 1);
	assert_int_equal(bios[1].q_ns, 300);
	assert_int_equal(j.st.lost_completions, 1);
	feed(mkrec(IOT_EV_GETRQ, 311, B, 0, 72, 8));
	feed(mkrec(IOT_EV_RQ_ISSUE, 321, R2, B, 72, 8));
	feed(mkrec(IOT_EV_RQ_COMPLETE, 401, R2, LEFT(8), 72, 8));
	assert_int_equal(nreq, 3);
	assert_int_equal(reqs[2].q_ns, 300);
	join_end(&j);
	assert_int_equal(j.st.unfinished, 0);
	assert_int_equal(j.bio_by_ptr.n, 0);
}

/* Requests still open at the trace's end (in flight as it stopped, or a
 * completion lost whose address never came back) are counted at
 * join_end(), not emitted; a completed one is not counted. */
static void unfinished_at_end(void **state)
{
	feed(mkrec(IOT_EV_BIO_QUEUE, 100, A, 0, 0, 8));
	feed(mkrec(IOT_EV_GETRQ, 110, A, 0, 0, 8));
	feed(mkrec(IOT_EV_RQ_ISSUE, 130, R, A, 0, 8));
	feed(mkrec(IOT_EV_BIO_QUEUE, 200, A + 0x100, 0, 64, 8));
	feed(mkrec(IOT_EV_GETRQ, 210, A + 0x100, 0, 64, 8));
	feed(mkrec(IOT_EV_RQ_ISSUE, 230, R + 0x100, A + 0x100, 64, 8));
	feed(mkrec(IOT_EV_RQ_COMPLETE, 240, R + 0x100, LEFT(8), 64, 8));
	feed(mkrec(IOT_EV_BIO_QUEUE, 300, A + 0x200, 0, 128, 8)); /* no request yet */
	feed(mkrec(IOT_EV_GETRQ, 310, A + 0x200, 0, 128, 8));
	join_end(&j);
	assert_int_equal(nreq, 1);
	assert_int_equal(reqs[0].sector, 64);
	assert_int_equal(j.st.unfinished, 2);
	/* and each is handed over, once, as it stood */
	assert_int_equal(nunf, 2);
	assert_true((unf_sector[0] == 0 && unf_sector[1] == 128) ||
		    (unf_sector[0] == 128 && unf_sector[1] == 0));
}

/* the event types of the random streams below */
static const uint16_t types[] = {
    IOT_EV_BIO_QUEUE,	IOT_EV_GETRQ,	     IOT_EV_RQ_INSERT,	   IOT_EV_RQ_ISSUE,
    IOT_EV_RQ_COMPLETE, IOT_EV_BIO_COMPLETE, IOT_EV_BIO_BACKMERGE, IOT_EV_BIO_FRONTMERGE,
    IOT_EV_RQ_MERGE,	IOT_EV_SPLIT,	     IOT_EV_BIO_REMAP,	   IOT_EV_RQ_REQUEUE,
    IOT_EV_SYS_ENTER,	IOT_EV_SYS_EXIT,
};
#define NR_TYPES (sizeof(types) / sizeof(types[0]))

/* Random, damaged streams: never crash, loop or leak without bound. */
static void random_streams(void **state)
{
	srand(3);
	for (int i = 0; i < 300000; i++) {
		struct iot_rec r =
		    mkrec(types[rand() % NR_TYPES], i, 0x1000 + (rand() % 6) * 0x100, 0,
			  (rand() % 8) * 8, 8);

		r.id2 = (rand() % 2) ? 0x1000 + (uint64_t)(rand() % 6) * 0x100 : LEFT(8);
		r.tid = 100 + rand() % 3;
		bio_based = rand() % 2;
		assert_int_equal(join_feed(&j, &r), 0);
		if (nreq >= MAXOUT - 1 || nbio >= MAXOUT - 4 || nsys >= MAXOUT - 1)
			nreq = nbio = nsys = 0;
	}
	/* six addresses of each kind: the live state stays small */
	assert_true(j.bio_by_ptr.n <= 6);
	assert_true(j.rq_by_ptr.n <= 6);
}

/* A damaged or crafted trace: ids, tids and head bios of 0 (the maps'
 * empty marker), exits without entries, completions of nothing; the join
 * neither crashes nor grows without bound. */
static void zero_ids(void **state)
{
	feed(mkrec(IOT_EV_SYS_EXIT, 1, 0, 0, 0, 0)); /* tid 100, no entry */
	{
		struct iot_rec r = mkrec(IOT_EV_SYS_EXIT, 2, 0, 0, 0, 0);

		r.tid = 0;
		feed(r);
		r.type = IOT_EV_SYS_ENTER;
		feed(r);
		r.type = IOT_EV_BIO_QUEUE; /* bio 0, queued by tid 0 in a call */
		feed(r);
		r.type = IOT_EV_RQ_COMPLETE;
		r.id2 = LEFT(8);
		feed(r);
		r.type = IOT_EV_SYS_EXIT;
		feed(r);
	}
	feed(mkrec(IOT_EV_BIO_COMPLETE, 3, 0, 0, 0, 8));
	feed(mkrec(IOT_EV_RQ_COMPLETE, 4, 0, LEFT(8), 0, 8));
	srand(5);
	for (int i = 0; i < 200000; i++) {
		struct iot_rec r =
		    mkrec(types[rand() % NR_TYPES], 10 + i, (rand() % 4) * 0x100,
			  (rand() % 4) * 0x100, (rand() % 4) * 8, rand() % 16);

		if (rand() % 3 == 0)
			r.id2 = LEFT(rand() % 16);
		r.tid = rand() % 3;
		bio_based = rand() % 2;
		assert_int_equal(join_feed(&j, &r), 0);
		if (nreq >= MAXOUT - 1 || nbio >= MAXOUT - 4 || nsys >= MAXOUT - 1)
			nreq = nbio = nsys = 0;
	}
	assert_true(j.bio_by_ptr.n <= 4);
	assert_true(j.rq_by_ptr.n <= 4);
	assert_true(j.sys_by_tid.n <= 3);
	assert_true(j.st.invalid > 0); /* the zero addresses, counted as damage */
}

/* The flush machinery's request (no bio) gets the kernel's start from its
 * RQ_INFO; the PREFLUSH write it served (Q, G, no I or D) joins its bio by
 * the RQ_INFO before its C instead of being seen first at completion. */
static void flush_requests(void **state)
{
	struct iot_rec q = mkrec(IOT_EV_BIO_QUEUE, 100, A, 0, 0, 0);

	q.flags = IOT_OP_WRITE | IOT_F_PREFLUSH;
	feed(q);
	q.type = IOT_EV_GETRQ;
	q.ts_ns = 101;
	feed(q);
	{
		struct iot_rec d = mkrec(IOT_EV_RQ_ISSUE, 110, R2, 0, ~0ull, 0);

		d.flags = IOT_OP_FLUSH | IOT_F_PREFLUSH;
		feed(d);
		d.type = IOT_EV_RQ_INFO;
		d.ts_ns = 150;
		d.sector = 105; /* rq->start_time_ns */
		feed(d);
		d.type = IOT_EV_RQ_COMPLETE;
		d.id2 = 0;
		feed(d);
	}
	assert_int_equal(nreq, 1);
	assert_true(join_is_flush_rq(&reqs[0]));
	assert_int_equal(reqs[0].start_ns, 105);
	assert_int_equal(reqs[0].d_ns, 110);
	assert_int_equal(reqs[0].c_ns, 150);
	{
		struct iot_rec i = mkrec(IOT_EV_RQ_INFO, 151, R, A, 102, 0);

		i.flags = IOT_OP_WRITE | IOT_F_PREFLUSH;
		feed(i);
		i.type = IOT_EV_RQ_COMPLETE;
		i.id2 = 0;
		feed(i);
	}
	assert_int_equal(nreq, 2);
	assert_false(join_is_flush_rq(&reqs[1]));
	assert_int_equal(reqs[1].q_ns, 100);
	assert_int_equal(reqs[1].g_ns, 101);
	assert_int_equal(reqs[1].d_ns, 0);
	assert_int_equal(reqs[1].nr_bios, 1);
	assert_int_equal(j.st.orphan_completions, 0);
}

/* Writeback charged to the dirtier: DIRTY of pages 0..3 of inode 12 by
 * task 300, then a kworker's writeback bio of page 2 with its BIO_INFO. */
static void writeback_dirtier(void **state)
{
	struct iot_rec d = mkrec(IOT_EV_DIRTY, 50, 12, 0, 0, 4);
	struct iot_rec bi;

	bio_based = true; /* bios complete on their own: no requests needed */
	d.pid = d.tid = 300;
	feed(d);
	feed(mkrec(IOT_EV_BIO_QUEUE, 100, A, 0, 80, 8));
	bi = mkrec(IOT_EV_BIO_INFO, 100, A, 12, 2, 7);
	bi.flags = IOT_CAUSE_WRITEBACK | IOT_WB_BACKGROUND << 8 | IOT_HOST_REG << 16;
	feed(bi);
	/* a second bio of a page nobody was seen dirtying */
	feed(mkrec(IOT_EV_BIO_QUEUE, 101, B, 0, 200, 8));
	bi.id = B;
	bi.sector = 9;
	feed(bi);
	feed(mkrec(IOT_EV_BIO_COMPLETE, 200, A, 0, 80, 8));
	feed(mkrec(IOT_EV_BIO_COMPLETE, 201, B, 0, 200, 8));
	assert_int_equal(nbio, 2);
	assert_true(bios[0].why.known);
	assert_int_equal(bios[0].why.cause, IOT_CAUSE_WRITEBACK);
	assert_int_equal(bios[0].why.wb, IOT_WB_BACKGROUND);
	assert_int_equal(bios[0].why.cgroup, 7);
	assert_int_equal(bios[0].why.ino, 12);
	assert_int_equal(bios[0].why.dirtier_tid, 300);
	assert_int_equal(bios[0].why.dirtier_pid, 300);
	assert_int_equal(bios[0].pid, 100); /* the kworker queued it */
	assert_int_equal(bios[1].why.dirtier_tid, 0);
	assert_int_equal(j.st.wb_dirtier_found, 1);
	assert_int_equal(j.st.wb_dirtier_unseen, 1);
}

/* One bio queued inside a system call of the same task, with the cause
 * the kernel side gave it; returns the cause and reason the join says. */
static struct join_why in_call(uint32_t nr, uint32_t op, uint32_t cause, uint32_t wb,
			       uint32_t host)
{
	struct iot_rec se = mkrec(IOT_EV_SYS_ENTER, 10, ~0ull, 12, nr, 0);
	struct iot_rec sx = mkrec(IOT_EV_SYS_EXIT, 90, 0, 0, 0, 0);
	struct iot_rec q = mkrec(IOT_EV_BIO_QUEUE, 20, A, 0, 80, 8);
	struct iot_rec bi = mkrec(IOT_EV_BIO_INFO, 20, A, 12, 0, 1);

	nbio = 0;
	sx.flags = nr;
	q.flags = op;
	bi.flags = cause | wb << 8 | host << 16;
	feed(se);
	feed(q);
	feed(bi);
	feed(mkrec(IOT_EV_BIO_COMPLETE, 50, A, 0, 80, 8));
	feed(sx);
	assert_int_equal(nbio, 1);
	return bios[0].why;
}

/* The causes the join adds from the call a bio was queued in (x86_64
 * numbers: read 0, write 1, pread64 17, fdatasync 75). */
static void causes_in_syscall(void **state)
{
	struct join_why w;

	bio_based = true;
	j.syscall_nr = syscall_numbers("x86_64");
	w = in_call(17, IOT_OP_READ, IOT_CAUSE_OTHER, 0, IOT_HOST_ANON);
	assert_int_equal(w.cause, IOT_CAUSE_DIRECT);
	w = in_call(0, IOT_OP_READ, IOT_CAUSE_READAHEAD, 0, IOT_HOST_REG);
	assert_int_equal(w.cause, IOT_CAUSE_READ);
	w = in_call(75, IOT_OP_WRITE, IOT_CAUSE_WRITEBACK, IOT_WB_TASK, IOT_HOST_REG);
	assert_int_equal(w.cause, IOT_CAUSE_WRITEBACK);
	assert_int_equal(w.wb, IOT_WB_FSYNC);
	w = in_call(1, IOT_OP_WRITE, IOT_CAUSE_WRITEBACK, IOT_WB_TASK, IOT_HOST_REG);
	assert_int_equal(w.wb, IOT_WB_WRITE_SYNC);
	/* a read's writes (O_DIRECT flushing its range): the task's own */
	w = in_call(0, IOT_OP_WRITE, IOT_CAUSE_WRITEBACK, IOT_WB_TASK, IOT_HOST_REG);
	assert_int_equal(w.cause, IOT_CAUSE_WRITEBACK);
	assert_int_equal(w.wb, IOT_WB_TASK);
	/* what the kernel side knew better stays */
	w = in_call(75, IOT_OP_WRITE, IOT_CAUSE_JOURNAL, IOT_WB_JOURNAL, IOT_HOST_BLK);
	assert_int_equal(w.cause, IOT_CAUSE_JOURNAL);
	w = in_call(1, IOT_OP_WRITE, IOT_CAUSE_FLUSH, 0, IOT_HOST_NONE);
	assert_int_equal(w.cause, IOT_CAUSE_FLUSH);
	/* without the trace's numbers, nothing is added */
	j.syscall_nr = NULL;
	w = in_call(17, IOT_OP_READ, IOT_CAUSE_OTHER, 0, IOT_HOST_ANON);
	assert_int_equal(w.cause, IOT_CAUSE_OTHER);
}

/* A recorder since format 1.4 leaves out a BIO_INFO equal to the last
 * plain one (cause other, no file) of its CPU for the same task: the join
 * repeats it from its copy of the slot, per CPU; a BIO_INFO that differs
 * is written and replaces the slot. */
static void plain_bio_info_repeated(void **state)
{
	struct iot_rec bi = mkrec(IOT_EV_BIO_INFO, 20, A, 0, 0, 7);
	struct iot_rec q;

	bio_based = true;
	j.bi_elided = true;
	bi.flags = IOT_CAUSE_OTHER | IOT_HOST_ANON << 16;
	feed(mkrec(IOT_EV_BIO_QUEUE, 20, A, 0, 80, 8));
	feed(bi);
	feed(mkrec(IOT_EV_BIO_COMPLETE, 30, A, 0, 80, 8));
	/* the same task on the same CPU: left out */
	feed(mkrec(IOT_EV_BIO_QUEUE, 40, B, 0, 96, 8));
	feed(mkrec(IOT_EV_BIO_COMPLETE, 50, B, 0, 96, 8));
	/* another CPU: nothing to repeat there */
	q = mkrec(IOT_EV_BIO_QUEUE, 60, A, 0, 120, 8);
	q.cpu = 1;
	feed(q);
	feed(mkrec(IOT_EV_BIO_COMPLETE, 70, A, 0, 120, 8));
	/* another task on CPU 0: nothing either */
	q = mkrec(IOT_EV_BIO_QUEUE, 80, B, 0, 160, 8);
	q.tid = 101;
	feed(q);
	feed(mkrec(IOT_EV_BIO_COMPLETE, 90, B, 0, 160, 8));
	assert_int_equal(nbio, 4);
	assert_true(bios[1].why.known);
	assert_int_equal(bios[1].why.cgroup, 7);
	assert_int_equal(bios[1].why.host, IOT_HOST_ANON);
	assert_int_equal(bios[1].why.cause, IOT_CAUSE_OTHER);
	assert_false(bios[2].why.known);
	assert_false(bios[3].why.known);
	/* a written one that differs (another cgroup) takes the slot */
	bi.ts_ns = 100;
	bi.nr = 8;
	feed(mkrec(IOT_EV_BIO_QUEUE, 100, A, 0, 200, 8));
	feed(bi);
	feed(mkrec(IOT_EV_BIO_COMPLETE, 110, A, 0, 200, 8));
	feed(mkrec(IOT_EV_BIO_QUEUE, 120, B, 0, 240, 8));
	feed(mkrec(IOT_EV_BIO_COMPLETE, 130, B, 0, 240, 8));
	assert_int_equal(nbio, 6);
	assert_int_equal(bios[5].why.cgroup, 8);
}

/* Outside a system call, a read of the file the task last faulted on is
 * the fault's when it holds the faulting page (or is no read-ahead); the
 * rest of the read-ahead stays readahead; another file's read is not the
 * fault's. */
static void fault_reads(void **state)
{
	struct iot_rec pf = mkrec(IOT_EV_FAULT, 10, 12, 40, 0, 0);
	struct iot_rec bi = mkrec(IOT_EV_BIO_INFO, 20, A, 12, 32, 1);
	struct {
		uint64_t ino, index;
		uint32_t cause;
	} b[] = {
	    {12, 32, IOT_CAUSE_READAHEAD}, /* pages 32..47: holds page 40 */
	    {12, 48, IOT_CAUSE_READAHEAD}, /* 48..63: read ahead */
	    {12, 64, IOT_CAUSE_OTHER},	   /* a plain read of the file */
	    {13, 40, IOT_CAUSE_OTHER},	   /* another file */
	};
	const uint32_t want[] = {IOT_CAUSE_FAULT, IOT_CAUSE_READAHEAD, IOT_CAUSE_FAULT,
				 IOT_CAUSE_OTHER};

	bio_based = true;
	j.syscall_nr = syscall_numbers("x86_64");
	feed(pf);
	for (size_t i = 0; i < 4; i++) {
		nbio = 0;
		feed(mkrec(IOT_EV_BIO_QUEUE, 20 + i, A, 0, 800 + 128 * i, 128));
		bi.ts_ns = 20 + i;
		bi.id2 = b[i].ino;
		bi.sector = b[i].index;
		bi.flags = b[i].cause | IOT_HOST_REG << 16;
		feed(bi);
		feed(mkrec(IOT_EV_BIO_COMPLETE, 30 + i, A, 0, 800 + 128 * i, 128));
		assert_int_equal(nbio, 1);
		assert_int_equal(bios[0].why.cause, want[i]);
	}
}

/* A commit's start and end pair by journal and transaction, interleaved
 * with another journal's; an end without its start is counted. */
static void journal_commits(void **state)
{
	struct iot_rec s1 = mkrec(IOT_EV_COMMIT, 100, 7, 0, 0, 0),
		       s2 = mkrec(IOT_EV_COMMIT, 110, 7, 0, 0, 0),
		       e2 = mkrec(IOT_EV_COMMIT, 150, 7, 0, 0, 0),
		       e1 = mkrec(IOT_EV_COMMIT, 180, 7, 0, 0, 0),
		       lone = mkrec(IOT_EV_COMMIT, 190, 8, 0, 0, 0);

	s2.dev = e2.dev = (8u << 20) | 1; /* sda1, same transaction number */
	e2.flags = e1.flags = lone.flags = 1;
	feed(s1);
	feed(s2);
	feed(e2);
	feed(e1);
	feed(lone);
	assert_int_equal(ncommit, 2);
	assert_int_equal(commits[0].dev, (8u << 20) | 1);
	assert_int_equal(commits[0].start_ns, 110);
	assert_int_equal(commits[0].end_ns, 150);
	assert_int_equal(commits[1].dev, 7u << 20);
	assert_int_equal(commits[1].tid, 7);
	assert_int_equal(commits[1].end_ns - commits[1].start_ns, 80);
	assert_int_equal(j.st.commits, 2);
	assert_int_equal(j.st.commit_ends_unmatched, 1);
	assert_int_equal(j.nr_open_commits, 0);
}

/* The last wakeup of a task inside its call is the call's; one of another
 * task, or outside any call, is not. */
/* A back-pressure stretch begins on CPU 1: the call entered there and
 * still open is left out, counted, and its thread's exit after the
 * stretch pairs with nothing; a call entered on another CPU goes on, and
 * so do calls entered after. */
static void backpressure_cuts_calls(void **state)
{
	struct iot_rec a = mkrec(IOT_EV_SYS_ENTER, 10, ~0ull, 12, 17, 0);
	struct iot_rec b = a, x = mkrec(IOT_EV_SYS_EXIT, 500, 0, 0, 0, 0);
	struct iot_rec bp = mkrec(IOT_EV_DEGRADE, 20, 0, 0, 0, 0);

	a.cpu = 1;
	b.cpu = 2;
	b.tid = 101;
	b.ts_ns = 12;
	bp.cpu = 1;
	bp.flags = IOT_DEGRADE_BEGIN;
	x.flags = 17;
	x.cpu = 1;
	feed(a);
	feed(b);
	feed(bp);
	assert_int_equal(j.st.bp_cut_syscalls, 1);
	bp.ts_ns = 400; /* its end; and another CPU's begin, with no call */
	bp.flags = IOT_DEGRADE_END;
	feed(bp);
	bp.cpu = 3;
	bp.flags = IOT_DEGRADE_BEGIN;
	feed(bp);
	assert_int_equal(j.st.bp_cut_syscalls, 1);
	feed(x); /* tid 100's: its call was left out */
	assert_int_equal(nsys, 0);
	x.tid = 101;
	x.cpu = 2;
	x.ts_ns = 510;
	feed(x);
	assert_int_equal(nsys, 1);
	assert_int_equal(sys[0].tid, 101);
	assert_int_equal(sys[0].enter_ns, 12);
	a.ts_ns = 600;
	x.ts_ns = 610;
	x.tid = 100;
	feed(a);
	feed(x);
	assert_int_equal(nsys, 2);
	assert_int_equal(sys[1].enter_ns, 600);
	assert_int_equal(j.st.lost_syscall_exits, 0);
}

/* Records lost between a call's enter and exit (gaps.h): two or more,
 * and its exit is most likely another call's (this one's and that one's
 * enter lost), so the call is left out, counted; one alone (a torn slot,
 * a removed completion) leaves it. On one CPU by the numbers; where the
 * thread moved, the gaps after the enter on its CPU (before the exit's
 * time) and before the exit on its CPU (after the enter's time). */
static void lost_records_cut_calls(void **state)
{
	struct trace_gaps g;
	struct iot_rec a = mkrec(IOT_EV_SYS_ENTER, 100, ~0ull, 12, 17, 0);
	struct iot_rec x = mkrec(IOT_EV_SYS_EXIT, 500, 0, 0, 0, 0);
	int cut = 0, out = 0;

	assert_int_equal(trace_gaps_init(&g, 4), 0);
	j.gaps = &g;
	a.cpu = x.cpu = 1;
	a.seq = 10;
	x.seq = 15;
	x.flags = 17;
#define CALL(want_cut)                                                                   \
	do {                                                                             \
		feed(a);                                                                 \
		feed(x);                                                                 \
		(want_cut) ? cut++ : out++;                                              \
		assert_int_equal(j.st.lost_cut_syscalls, cut);                           \
		assert_int_equal(nsys, out);                                             \
	} while (0)
	CALL(false);						/* no gap */
	assert_int_equal(trace_gaps_add(&g, 1, 10, 100, 4), 0); /* before the enter */
	CALL(false);
	assert_int_equal(trace_gaps_add(&g, 1, 12, 200, 1), 0); /* one record between */
	CALL(false);
	assert_int_equal(trace_gaps_add(&g, 1, 13, 300, 1), 0); /* and another */
	CALL(true);
	a.seq = 13; /* the enter the record after that gap: one between */
	CALL(false);
	assert_int_equal(trace_gaps_add(&g, 1, 15, 500, 2), 0); /* just before the exit */
	CALL(true);
	a.seq = 15;
	x.seq = 20;
	CALL(false);
	/* the thread moved: enter on 2, exit on 3 */
	a.cpu = 2;
	x.cpu = 3;
	a.seq = 40;
	x.seq = 70;
	assert_int_equal(trace_gaps_add(&g, 2, 45, 600, 3), 0); /* after the exit */
	CALL(false);
	assert_int_equal(trace_gaps_add(&g, 3, 60, 90, 3), 0); /* before the enter */
	CALL(false);
	assert_int_equal(trace_gaps_add(&g, 3, 65, 200, 1), 0); /* one in the call */
	CALL(false);
	assert_int_equal(trace_gaps_add(&g, 3, 67, 300, 1), 0); /* two */
	CALL(true);
	x.seq = 66; /* the second after the exit */
	CALL(false);
	a.seq = 30; /* 2's first gap after it is still the one after the exit */
	assert_int_equal(trace_gaps_add(&g, 0, 5, 200, 1), 0); /* another CPU's */
	CALL(false);
	a.cpu = 0; /* one after the enter on its CPU, one before the exit on 3 */
	a.seq = 1;
	CALL(true);
	/* an exit `iotrail repair` estimated is its call's */
	x.flags = 17 | IOT_F_ESTIMATED;
	CALL(false);
#undef CALL
	j.gaps = NULL;
	trace_gaps_release(&g);
}

static void wakeup_in_call(void **state)
{
	struct iot_rec se = mkrec(IOT_EV_SYS_ENTER, 90, ~0ull, 12, 75, 0);
	struct iot_rec sx = mkrec(IOT_EV_SYS_EXIT, 300, 0, 0, 0, 0);

	sx.flags = 75;
	feed(mkrec(IOT_EV_WAKEUP, 80, 100, 0, 0, 0)); /* before the call */
	feed(se);
	feed(mkrec(IOT_EV_WAKEUP, 150, 100, 0, 0, 0));
	feed(mkrec(IOT_EV_WAKEUP, 250, 100, 0, 0, 0));
	feed(mkrec(IOT_EV_WAKEUP, 260, 101, 0, 0, 0)); /* another task */
	feed(sx);
	assert_int_equal(nsys, 1);
	assert_int_equal(sys[0].wake_ns, 250);
}

/* A FUA write on a device without FUA: its data completes, the post-flush
 * runs, and the flush machinery ends the request with no bytes (after an
 * RQ_INFO): one request, ending there, as /proc/diskstats counts it. A
 * request issued with its FUA (no sequence) ends at its data. */
static void flush_sequence_end(void **state)
{
	for (int fua_kept = 0; fua_kept < 2; fua_kept++) {
		struct iot_rec q = mkrec(IOT_EV_BIO_QUEUE, 100, A, 0, 80, 8);
		struct iot_rec bi = mkrec(IOT_EV_BIO_INFO, 100, A, 0, 0, 1);
		struct iot_rec d = mkrec(IOT_EV_RQ_ISSUE, 120, R, A, 80, 8);

		nreq = nbio = 0;
		q.flags = IOT_OP_WRITE | IOT_F_FUA;
		d.flags = IOT_OP_WRITE | (fua_kept ? IOT_F_FUA : 0);
		bi.flags = IOT_CAUSE_JOURNAL | IOT_HOST_BLK << 16;
		feed(q);
		feed(bi);
		feed(mkrec(IOT_EV_GETRQ, 101, A, 0, 80, 8));
		feed(mkrec(IOT_EV_RQ_INSERT, 110, R, A, 80, 8));
		feed(d);
		feed(mkrec(IOT_EV_RQ_COMPLETE, 200, R, LEFT(8), 80, 8));
		assert_int_equal(nreq, fua_kept);
		if (fua_kept)
			continue;
		feed(mkrec(IOT_EV_RQ_INFO, 300, R, A, 99, 0)); /* sector: start_ns */
		feed(mkrec(IOT_EV_RQ_COMPLETE, 301, R, 0, 80, 0));
		assert_int_equal(nreq, 1);
		assert_int_equal(reqs[0].sector, 80);
		assert_int_equal(reqs[0].nr_sectors, 8);
		assert_int_equal(reqs[0].d_ns, 120);
		assert_int_equal(reqs[0].c_ns, 301);
		assert_int_equal(nbio, 1);
		assert_int_equal(bios[0].why.cause, IOT_CAUSE_JOURNAL);
	}
	/* without its last end (a device without a cache): at the stream's end */
	nreq = 0;
	feed(mkrec(IOT_EV_BIO_QUEUE, 400, B, 0, 160, 8));
	feed(mkrec(IOT_EV_GETRQ, 401, B, 0, 160, 8));
	{
		struct iot_rec q = mkrec(IOT_EV_BIO_QUEUE, 402, B + 1, 0, 240, 8);

		q.flags = IOT_OP_WRITE | IOT_F_PREFLUSH;
		feed(q);
	}
	feed(mkrec(IOT_EV_GETRQ, 403, B + 1, 0, 240, 8));
	feed(mkrec(IOT_EV_RQ_ISSUE, 410, R2, B + 1, 240, 8));
	feed(mkrec(IOT_EV_RQ_COMPLETE, 420, R2, LEFT(8), 240, 8));
	assert_int_equal(nreq, 0);
	join_end(&j);
	assert_int_equal(nreq, 1);
	assert_int_equal(reqs[0].c_ns, 420);
}

/* In a read(2) of pages 32..63 (pos 128 KiB, 128 KiB): a read-ahead bio
 * of pages it asked for is its miss (read); one wholly beyond them is the
 * read-ahead it set off (readahead), counted on the call. A split's
 * remainder starts at the page the split left it. */
static void readahead_in_read(void **state)
{
	const struct {
		uint64_t index;
		uint32_t nr;
		uint32_t cause;
	} b[] = {
	    {32, 256, IOT_CAUSE_READ},	    /* pages 32..63 */
	    {64, 256, IOT_CAUSE_READAHEAD}, /* 64..95: beyond */
	    {0, 512, IOT_CAUSE_READ},	    /* 0..63: holds some */
	    {16, 128, IOT_CAUSE_READAHEAD}, /* 16..31: before */
	};
	struct iot_rec se = mkrec(IOT_EV_SYS_ENTER, 10, 128 << 10, 12, 0, 128 << 10);
	struct iot_rec sx = mkrec(IOT_EV_SYS_EXIT, 90, 0, 0, 128 << 10, 0);

	bio_based = true;
	j.syscall_nr = syscall_numbers("x86_64");
	feed(se);
	for (size_t i = 0; i < 4; i++) {
		struct iot_rec q =
		    mkrec(IOT_EV_BIO_QUEUE, 20 + i, A + i, 0, 800 * i, b[i].nr);
		struct iot_rec bi =
		    mkrec(IOT_EV_BIO_INFO, 20 + i, A + i, 12, b[i].index, 1);

		q.flags = IOT_OP_READ | IOT_F_RAHEAD;
		bi.flags = IOT_CAUSE_READAHEAD | IOT_HOST_REG << 16;
		feed(q);
		feed(bi);
		nbio = 0;
		feed(mkrec(IOT_EV_BIO_COMPLETE, 30 + i, A + i, 0, 800 * i, b[i].nr));
		assert_int_equal(nbio, 1);
		assert_int_equal(bios[0].why.cause, b[i].cause);
	}
	feed(sx);
	assert_int_equal(nsys, 1);
	assert_int_equal(sys[0].nr_ra_bios, 2);
	/* a split of a bio of pages 100..163: the remainder starts at 132 */
	{
		struct iot_rec q = mkrec(IOT_EV_BIO_QUEUE, 100, B, 0, 4000, 512);
		struct iot_rec bi = mkrec(IOT_EV_BIO_INFO, 100, B, 12, 100, 1);

		q.flags = IOT_OP_READ;
		bi.flags = IOT_CAUSE_OTHER | IOT_HOST_REG << 16;
		feed(q);
		feed(bi);
		feed(mkrec(IOT_EV_SPLIT, 101, B + 1, 4256, 4000, 256));
		nbio = 0;
		feed(mkrec(IOT_EV_BIO_COMPLETE, 110, B + 1, 0, 4000, 256));
		feed(mkrec(IOT_EV_BIO_COMPLETE, 111, B, 0, 4256, 256));
		assert_int_equal(nbio, 2);
		assert_int_equal(bios[0].why.index, 100);
		assert_int_equal(bios[1].why.index, 132);
	}
}

/* io_uring: a bio its submitting thread queues after io_uring_submit_req,
 * inside the same io_uring_enter, is the request's; after the call's exit
 * the thread's bios are not; an io-wq worker's bio names its request. */
#define UREQ  0xf000
#define UREQ2 0xf100
static struct iot_rec uring_rec(uint16_t type, uint64_t ts, uint64_t req, uint64_t id2,
				uint32_t nr, uint32_t tid)
{
	struct iot_rec r = mkrec(type, ts, req, id2, 0, nr);

	r.tid = tid;
	r.flags = 22; /* IORING_OP_READ */
	return r;
}

static void io_uring_requests(void **state)
{
	struct iot_rec r;

	bio_based = true;
	j.syscall_nr = syscall_numbers("x86_64");
	r = mkrec(IOT_EV_SYS_ENTER, 10, ~0ull, 0, 426, 0); /* io_uring_enter */
	feed(r);
	feed(uring_rec(IOT_EV_URING_SUBMIT, 20, UREQ, 4096, 4096, 100));
	feed(mkrec(IOT_EV_BIO_QUEUE, 30, A, 0, 8, 8));
	r = mkrec(IOT_EV_SYS_EXIT, 40, 0, 0, 0, 0);
	r.flags = 426;
	feed(r);
	/* after the call: the same thread's bio is no request's */
	feed(mkrec(IOT_EV_BIO_QUEUE, 45, B, 0, 64, 8));
	/* io-wq: a worker (tid 200) runs a request submitted before */
	feed(uring_rec(IOT_EV_URING_SUBMIT, 50, UREQ2, 8192, 4096, 100));
	r = mkrec(IOT_EV_BIO_QUEUE, 60, A + 1, 0, 16, 8);
	r.tid = 200;
	feed(r);
	feed(uring_rec(IOT_EV_URING_WORK, 61, A + 1, UREQ2, 0, 200));
	feed(mkrec(IOT_EV_BIO_COMPLETE, 100, A, 0, 8, 8));
	feed(mkrec(IOT_EV_BIO_COMPLETE, 110, B, 0, 64, 8));
	feed(mkrec(IOT_EV_BIO_COMPLETE, 120, A + 1, 0, 16, 8));
	assert_int_equal(nbio, 3);
	assert_int_equal(bios[0].uring_req, UREQ);
	assert_int_equal(bios[1].uring_req, 0);
	assert_int_equal(bios[2].uring_req, UREQ2);
	feed(uring_rec(IOT_EV_URING_COMPLETE, 130, UREQ, 0x1234, 4096, 100));
	feed(uring_rec(IOT_EV_URING_COMPLETE, 140, UREQ2, 0x5678, 4096, 100));
	/* a completion whose submission the trace does not hold */
	feed(uring_rec(IOT_EV_URING_COMPLETE, 150, 0xdead00, 1, 0, 100));
	assert_int_equal(nuring, 2);
	assert_int_equal(urings[0].user_data, 0x1234);
	assert_int_equal(urings[0].pos, 4096);
	assert_int_equal(urings[0].via, JOIN_URING_INLINE);
	assert_int_equal(urings[0].nr_bios_done, 1);
	assert_int_equal(urings[0].first_q_ns, 30);
	assert_int_equal(urings[0].last_c_ns, 100);
	assert_int_equal(urings[0].submit_ns, 20);
	assert_int_equal(urings[0].cqe_ns, 130);
	assert_int_equal(urings[0].first_sector, 8);
	assert_int_equal(urings[1].via, JOIN_URING_IO_WQ);
	assert_int_equal(urings[1].nr_bios_done, 1);
	assert_int_equal(urings[1].tid, 100); /* the submitter, not the worker */
	assert_int_equal(urings[1].first_sector, 16);
	assert_int_equal(j.st.uring_done, 2);
	assert_int_equal(j.st.uring_unsubmitted, 1);
}

/* A request address submitted again before its completion: the first
 * completion was lost, its bios stay unattributed to the second. */
static void io_uring_lost_completion(void **state)
{
	bio_based = true;
	feed(uring_rec(IOT_EV_URING_SUBMIT, 20, UREQ, 0, 4096, 100));
	feed(mkrec(IOT_EV_BIO_QUEUE, 30, A, 0, 8, 8));
	feed(uring_rec(IOT_EV_URING_SUBMIT, 40, UREQ, 0, 4096, 101));
	feed(mkrec(IOT_EV_BIO_COMPLETE, 50, A, 0, 8, 8));
	assert_int_equal(nbio, 1);
	assert_int_equal(bios[0].uring_req, 0);
	feed(uring_rec(IOT_EV_URING_COMPLETE, 60, UREQ, 7, 4096, 101));
	assert_int_equal(nuring, 1);
	assert_int_equal(urings[0].nr_bios, 0);
	assert_int_equal(urings[0].tid, 101);
	assert_int_equal(j.st.uring_lost, 1);
}

/* ---- the join on threads (join/parallel.c): one join's outputs ---------- */

struct outbuf {
	unsigned char *b;
	size_t n, cap;
};

static void out_put(struct outbuf *o, const void *p, size_t n)
{
	if (o->n + n > o->cap) {
		o->cap = (o->n + n) * 2;
		o->b = realloc(o->b, o->cap);
		assert_non_null(o->b);
	}
	memcpy(o->b + o->n, p, n);
	o->n += n;
}

/* field by field: the structures' padding is no output */
static void out_u64(struct outbuf *o, uint64_t v)
{
	out_put(o, &v, sizeof(v));
}
#define PUT(o, v) out_u64((o), (uint64_t)(v))

static void ser_req(struct outbuf *o, int tag, const struct join_request *r)
{
	PUT(o, tag);
	PUT(o, r->rq), PUT(o, r->dev), PUT(o, r->flags), PUT(o, r->sector);
	PUT(o, r->nr_sectors), PUT(o, r->pid), PUT(o, r->tid), PUT(o, r->ino);
	PUT(o, r->q_ns), PUT(o, r->g_ns), PUT(o, r->i_ns), PUT(o, r->d_ns),
	    PUT(o, r->c_ns);
	PUT(o, r->q_cpu), PUT(o, r->g_cpu), PUT(o, r->i_cpu), PUT(o, r->d_cpu);
	PUT(o, r->c_cpu), PUT(o, r->start_ns), PUT(o, r->nr_bios), PUT(o, r->nr_requeues);
	PUT(o, r->error), PUT(o, r->bio_only), PUT(o, r->drv_submit_ns);
	PUT(o, r->drv_cqe_ns), PUT(o, r->drv_done_ns), PUT(o, r->hwq),
	    PUT(o, r->estimated);
}

static void o_req(void *c, const struct join_request *r)
{
	ser_req(c, 1, r);
}

static void o_bio(void *c, const struct join_request *r, const struct join_bio *b)
{
	ser_req(c, 2, r);
	PUT(c, b->q_ns), PUT(c, b->sector), PUT(c, b->nr_sectors), PUT(c, b->tid);
	PUT(c, b->ino), PUT(c, b->pid), PUT(c, b->uring_req), PUT(c, b->cpu);
	PUT(c, b->sys_enter_ns), PUT(c, b->why.known), PUT(c, b->why.cause);
	PUT(c, b->why.wb), PUT(c, b->why.host), PUT(c, b->why.cgroup), PUT(c, b->why.ino);
	PUT(c, b->why.index), PUT(c, b->why.dirtier_pid), PUT(c, b->why.dirtier_tid);
}

static void o_sys(void *c, const struct join_syscall *s)
{
	PUT(c, 3), PUT(c, s->pid), PUT(c, s->tid), PUT(c, s->nr), PUT(c, s->fd);
	PUT(c, s->rwf), PUT(c, s->dev), PUT(c, s->ino), PUT(c, s->pos), PUT(c, s->count);
	PUT(c, s->ret), PUT(c, s->enter_ns), PUT(c, s->exit_ns), PUT(c, s->enter_cpu);
	PUT(c, s->exit_cpu), PUT(c, s->wake_ns), PUT(c, s->nr_bios),
	    PUT(c, s->nr_ra_bios);
	PUT(c, s->nr_bios_done), PUT(c, s->bio_q2c_sum_ns), PUT(c, s->bio_q2c_min_ns);
	PUT(c, s->bio_q2c_max_ns), PUT(c, s->i2d_sum_ns), PUT(c, s->nr_i2d);
}

static void o_commit(void *c, const struct join_commit *x)
{
	PUT(c, 4), PUT(c, x->dev), PUT(c, x->tid), PUT(c, x->start_ns), PUT(c, x->end_ns);
}

static void o_uring(void *c, const struct join_uring *u)
{
	PUT(c, 5), PUT(c, u->req), PUT(c, u->user_data), PUT(c, u->pos), PUT(c, u->len);
	PUT(c, u->opcode), PUT(c, u->via), PUT(c, u->submit_seen), PUT(c, u->tid);
	PUT(c, u->ino), PUT(c, u->res), PUT(c, u->submit_ns), PUT(c, u->cqe_ns);
	PUT(c, u->nr_bios), PUT(c, u->nr_bios_done), PUT(c, u->sectors);
	PUT(c, u->first_sector), PUT(c, u->first_q_ns), PUT(c, u->last_c_ns);
	PUT(c, u->d2c_sum_ns);
}

static void o_fault(void *c, const struct join_fault *f)
{
	PUT(c, 6), PUT(c, f->tid), PUT(c, f->ino), PUT(c, f->index), PUT(c, f->ts_ns);
}

static void o_dirty(void *c, const struct join_dirty *d)
{
	PUT(c, 7), PUT(c, d->tid), PUT(c, d->ino), PUT(c, d->index), PUT(c, d->pages);
}

static void o_mark(void *c, const struct join_mark *m)
{
	PUT(c, 8), PUT(c, m->ts_ns), PUT(c, m->id), PUT(c, m->kind);
}

static void o_unf(void *c, const struct join_request *r)
{
	ser_req(c, 9, r);
}

static void o_floor(void *c, uint64_t ns)
{
	PUT(c, 10), PUT(c, ns);
}

static struct join_sink out_sink(struct outbuf *o)
{
	return (struct join_sink){o,	   o_req,   o_bio,  o_sys, o_commit, o_uring,
				  o_fault, o_dirty, o_mark, o_unf, o_floor};
}

/* out_sink's outputs, each request and bio checked against the floors
 * before it (join_sink.floor): none of its times below the highest */
struct floor_check {
	struct outbuf *o;
	uint64_t floor, nr;
	bool late; /* the stream has records that came late: not checked */
};

static void fc_times(const struct floor_check *fc, const struct join_request *r)
{
	const uint64_t t[] = {r->q_ns, r->g_ns, r->i_ns, r->d_ns, r->c_ns};

	for (size_t k = 0; k < sizeof(t) / sizeof(t[0]) && !fc->late; k++)
		if (t[k])
			assert_true(t[k] >= fc->floor);
}

static void fc_req(void *c, const struct join_request *r)
{
	struct floor_check *fc = c;

	fc_times(fc, r);
	o_req(fc->o, r);
}

static void fc_bio(void *c, const struct join_request *r, const struct join_bio *b)
{
	struct floor_check *fc = c;

	fc_times(fc, r);
	if (b->q_ns && !fc->late)
		assert_true(b->q_ns >= fc->floor);
	o_bio(fc->o, r, b);
}

static void fc_floor(void *c, uint64_t ns)
{
	struct floor_check *fc = c;

	if (ns > fc->floor)
		fc->floor = ns;
	fc->nr++;
	o_floor(fc->o, ns);
}

#define FC(name, type)                                                                   \
	static void fc_##name(void *c, type x)                                           \
	{                                                                                \
		o_##name(((struct floor_check *)c)->o, x);                               \
	}
FC(sys, const struct join_syscall *)
FC(commit, const struct join_commit *)
FC(uring, const struct join_uring *)
FC(fault, const struct join_fault *)
FC(dirty, const struct join_dirty *)
FC(mark, const struct join_mark *)
FC(unf, const struct join_request *)

static struct join_sink floor_check_sink(struct floor_check *fc)
{
	return (struct join_sink){fc,	     fc_req,   fc_bio,	 fc_sys,
				  fc_commit, fc_uring, fc_fault, fc_dirty,
				  fc_mark,   fc_unf,   fc_floor};
}

/* a stream: requests on 6 addresses each of bios and requests, calls of
 * 3 threads, and every other record the join keeps state for, with
 * dirtied pages (whose dirtier map lives long) or without */
static struct iot_rec *mixed_stream(size_t n, bool dirty)
{
	static const uint16_t more[] = {
	    IOT_EV_BIO_INFO,	 IOT_EV_BIO_INFO,	IOT_EV_FAULT,
	    IOT_EV_URING_SUBMIT, IOT_EV_URING_COMPLETE, IOT_EV_URING_WORK,
	    IOT_EV_COMMIT,	 IOT_EV_WAKEUP,		IOT_EV_MARK,
	    IOT_EV_RQ_INFO,	 IOT_EV_DRV_SUBMIT,	IOT_EV_DRV_DONE,
	    IOT_EV_DIRTY,
	};
	struct iot_rec *v = calloc(n, sizeof(*v));

	assert_non_null(v);
	for (size_t i = 0; i < n; i++) {
		bool block = rand() % 3;
		uint16_t t =
		    block ? types[rand() % NR_TYPES]
			  : more[rand() % (sizeof(more) / sizeof(more[0]) - !dirty)];
		struct iot_rec *r = &v[i];

		*r = mkrec(t, i + 1, 0x1000 + (rand() % 6) * 0x100, 0, (rand() % 8) * 8,
			   8);
		r->id2 = (rand() % 2) ? 0x1000 + (uint64_t)(rand() % 6) * 0x100 : LEFT(8);
		r->tid = 100 + rand() % 3;
		r->cpu = rand() % 4;
		if (t ==
		    IOT_EV_BIO_INFO) { /* a plain one (cause other, no inode) or not */
			r->flags = rand() % 2 ? IOT_CAUSE_OTHER | IOT_HOST_REG << 16
					      : IOT_CAUSE_READAHEAD | IOT_HOST_REG << 16;
			r->id2 = rand() % 2 ? 0 : 12;
			r->nr = 7;
		} else if (t == IOT_EV_FAULT || t == IOT_EV_DIRTY) {
			r->id = 12;
			r->id2 = rand() % 4;
			r->nr = 1;
		} else if (t == IOT_EV_URING_SUBMIT || t == IOT_EV_URING_COMPLETE) {
			r->id = 0x9000 + (rand() % 3) * 0x100;
		} else if (t == IOT_EV_URING_WORK) {
			r->id2 = 0x9000 + (rand() % 3) * 0x100;
		} else if (t == IOT_EV_SYS_ENTER || t == IOT_EV_SYS_EXIT) {
			r->sector = 17;
			r->flags = 17;
			r->id2 = 12;
		} else if (t == IOT_EV_COMMIT) {
			r->id = rand() % 3;
			r->flags = rand() % 2;
		}
	}
	return v;
}

static void same_map(const struct u64map *a, const struct u64map *b)
{
	assert_int_equal(a->n, b->n);
	assert_int_equal(a->has_zero, b->has_zero);
	for (size_t i = 0; i <= a->mask; i++) {
		uint64_t k = a->slots[i].key;
		const uint32_t *v = k ? u64map_get(b, k) : NULL;

		if (k) {
			assert_non_null(v);
			assert_int_equal(*v, a->slots[i].val);
		}
	}
}

/* The facts of a stream fed whole are those of its parts, each fed from
 * empty, merged in order (reading in segments: join_seed_merge) */
static void seed_merge_same(void **state)
{
	for (int round = 0; round < 20; round++) {
		size_t n = 2000, at = 0;
		struct iot_rec *v;
		struct join_seed all, run, part;

		srand(round + 1);
		v = mixed_stream(n, true);
		for (size_t i = 0; i < n; i++) /* more tasks, so parts differ */
			v[i].tid = 100 + rand() % 9;
		assert_int_equal(join_seed_init(&all), 0);
		assert_int_equal(join_seed_init(&run), 0);
		for (size_t i = 0; i < n; i++)
			assert_int_equal(join_seed_feed(&all, &v[i], true), 0);
		while (at < n) {
			size_t len = 1 + rand() % 300;

			if (len > n - at)
				len = n - at;
			assert_int_equal(join_seed_init(&part), 0);
			for (size_t i = at; i < at + len; i++)
				assert_int_equal(join_seed_feed(&part, &v[i], true), 0);
			assert_int_equal(join_seed_merge(&run, &part), 0);
			join_seed_release(&part);
			at += len;
		}
		assert_int_equal(run.nr_plain, all.nr_plain);
		assert_memory_equal(run.plain, all.plain,
				    all.nr_plain * sizeof(*all.plain));
		assert_true(all.fault.n > 3 && all.tgid.n > 3); /* facts were fed */
		same_map(&all.fault, &run.fault);
		same_map(&all.fault_index, &run.fault_index);
		same_map(&all.tgid, &run.tgid);
		join_seed_release(&all);
		join_seed_release(&run);
		free(v);
	}
}

/* a well-formed stream: 6 tasks on 4 CPUs, each in a loop of a pread64
 * that queues one bio (its BIO_INFO plain, and left out as the recorder
 * leaves out a repeated one) through G, I, D and C, with page faults */
static struct iot_rec *tidy_stream(size_t n)
{
	struct iot_rec *v = calloc(n, sizeof(*v));
	unsigned int step[6] = {0}, iter[6] = {0};

	assert_non_null(v);
	for (size_t i = 0; i < n;) {
		unsigned int k = rand() % 6;
		uint64_t bio = 0x10000 + k * 0x100 + (iter[k] % 4) * 0x10;
		uint64_t rq = 0x80000 + k * 0x100 + (iter[k] % 4) * 0x10;
		uint64_t sector = k * 1000000ull + iter[k] * 8ull;
		struct iot_rec r = mkrec(IOT_EV_NONE, i + 1, bio, 0, sector, 8);

		r.tid = r.pid = 200 + k;
		r.cpu = k % 4;
		switch (step[k]++) {
		case 0:
			r.type = IOT_EV_SYS_ENTER;
			r.sector = 17;
			r.flags = 3;
			r.id = 4096;
			r.id2 = 12;
			break;
		case 1:
			r.type = IOT_EV_BIO_QUEUE;
			break;
		case 2: /* the plain one once per task and CPU, then left out */
			r.type = iter[k] ? IOT_EV_NONE : IOT_EV_BIO_INFO;
			r.flags = IOT_CAUSE_OTHER | IOT_HOST_REG << 16;
			r.nr = 7;
			break;
		case 3:
			r.type = IOT_EV_GETRQ;
			break;
		case 4:
			r.type = IOT_EV_RQ_INSERT;
			r.id = rq, r.id2 = bio;
			break;
		case 5:
			r.type = rand() % 8 ? IOT_EV_RQ_ISSUE : IOT_EV_FAULT;
			r.id = rq, r.id2 = bio;
			if (r.type == IOT_EV_FAULT) {
				r.id = 12, r.id2 = iter[k] % 16, r.nr = 1;
				step[k]--;
			}
			break;
		case 6:
			r.type = IOT_EV_RQ_COMPLETE;
			r.id = rq, r.id2 = LEFT(8);
			break;
		default:
			r.type = IOT_EV_SYS_EXIT;
			r.sector = 4096;
			r.flags = 17;
			step[k] = 0;
			iter[k]++;
			break;
		}
		if (r.type != IOT_EV_NONE)
			v[i++] = r;
	}
	return v;
}

struct pull_src {
	const struct iot_rec *v;
	size_t n, next;
};

static int64_t pull_some(void *ctx, struct iot_rec *buf, size_t max)
{
	struct pull_src *s = ctx;
	size_t k = s->n - s->next < max ? s->n - s->next : max;

	k = k > 97 ? 97 : k; /* pulls of odd sizes */
	memcpy(buf, s->v + s->next, k * sizeof(*buf));
	s->next += k;
	return (int64_t)k;
}

/* parts (join_par_config.part_sink): an outbuf a slot, appended to the
 * whole at each merge; a slot must not be used again before its merge,
 * nor get outputs after its end (part_end), which comes before it */
struct parts {
	struct outbuf slot[16];
	bool busy[16], ended[16];
	size_t at_end[16];
	unsigned int nr;
	struct outbuf *whole;
	uint64_t merged, ends;
};

static int parts_sink(void *ctx, unsigned int slot, struct join_sink *out)
{
	struct parts *ps = ctx;

	assert_true(slot < ps->nr);
	assert_false(ps->busy[slot]);
	ps->busy[slot] = true;
	*out = out_sink(&ps->slot[slot]);
	return 0;
}

static void parts_end(void *ctx, unsigned int slot)
{
	struct parts *ps = ctx;

	assert_true(ps->busy[slot]);
	assert_false(ps->ended[slot]);
	ps->ended[slot] = true;
	ps->at_end[slot] = ps->slot[slot].n;
	__atomic_fetch_add(&ps->ends, 1, __ATOMIC_RELAXED);
}

static void parts_merge(void *ctx, unsigned int slot)
{
	struct parts *ps = ctx;

	assert_true(ps->busy[slot]);
	assert_true(ps->ended[slot]);
	assert_int_equal(ps->slot[slot].n, ps->at_end[slot]);
	ps->ended[slot] = false;
	if (ps->slot[slot].n) /* a segment with no outputs has no buffer */
		out_put(ps->whole, ps->slot[slot].b, ps->slot[slot].n);
	ps->slot[slot].n = 0;
	ps->busy[slot] = false;
	ps->merged++;
}

/* kind 0: tidy_stream; 1, 2: mixed_stream without and with dirtied pages */
/* The tidy stream under back-pressure: every 4000 records a stretch of
 * 2500 on CPU (k % 4), with its marks, in which that CPU's system call
 * records are not written (its block records stay, as in a stretch the
 * requests queued before it keep theirs). *n: the records left. */
static struct iot_rec *stretched(struct iot_rec *v, size_t *n)
{
	struct iot_rec *w = calloc(*n + 2 * (*n / 4000 + 1), sizeof(*w));
	size_t m = 0;

	assert_non_null(w);
	for (size_t i = 0; i < *n; i++) {
		uint32_t c = (uint32_t)(i / 4000 % 4);
		bool in = i % 4000 >= 1000 && i % 4000 < 3500;

		if (i % 4000 == 1000 || i % 4000 == 3500) {
			struct iot_rec d = mkrec(IOT_EV_DEGRADE, v[i].ts_ns, 0, 0, 0, 0);

			d.cpu = c;
			d.flags = i % 4000 == 1000 ? IOT_DEGRADE_BEGIN : IOT_DEGRADE_END;
			w[m++] = d;
		}
		if (in && v[i].cpu == c &&
		    (v[i].type == IOT_EV_SYS_ENTER || v[i].type == IOT_EV_SYS_EXIT))
			continue;
		w[m++] = v[i];
	}
	free(v);
	*n = m;
	return w;
}

/* The tidy stream as a recorder whose buffers filled numbers it: each
 * CPU's records in order, runs of them lost (about one in 500 records,
 * 1 to 8 at a time), the gaps listed as a reader lists them (gl) */
static struct iot_rec *lossy(struct iot_rec *v, size_t *n, struct trace_gaps *gl)
{
	uint64_t seq[4] = {0}, next[4];
	size_t m = 0;

	assert_int_equal(trace_gaps_init(gl, 4), 0);
	memset(next, 0xff, sizeof(next));
	for (size_t i = 0; i < *n; i++) {
		uint32_t c = v[i].cpu;

		v[i].seq = seq[c]++;
		if (rand() % 500 == 0)
			seq[c] += 1 + rand() % 8;
		if (rand() % 500 == 0)
			continue; /* this record lost as well */
		if (next[c] != UINT64_MAX && v[i].seq > next[c])
			assert_int_equal(trace_gaps_add(gl, c, v[i].seq, v[i].ts_ns,
							v[i].seq - next[c]),
					 0);
		next[c] = v[i].seq + 1;
		v[m++] = v[i];
	}
	*n = m;
	return v;
}

static void count_floor(void *c, uint64_t ns)
{
	(void)ns;
	(*(int *)c)++;
}

/* Records at the clock's end: the join without a floor hook gives none
 * (a record at 2^64 - 1 called the missing hook); with one, no line past
 * the last (2^64 - 2^24) wraps to give a floor at every record after. */
static void floors_at_clock_end(void **state)
{
	const uint64_t last = UINT64_MAX - (1ull << JOIN_FLOOR_SHIFT) + 1; /* a line */
	const uint64_t ts[] = {last - 5,
			       last - 1,
			       last,
			       last + 1,
			       last + (1ull << 22),
			       last + (1ull << 23),
			       UINT64_MAX - 1,
			       UINT64_MAX,
			       UINT64_MAX};
	int n = 0;
	struct join_sink k = {.ctx = &n, .floor = count_floor};
	struct join jf;

	(void)state;
	feed(mkrec(IOT_EV_BIO_QUEUE, UINT64_MAX - 1, A, 0, 0, 8));
	feed(mkrec(IOT_EV_BIO_QUEUE, UINT64_MAX, B, 0, 8, 8));
	assert_int_equal(join_init(&jf, &k, is_bio_based, NULL), 0);
	for (size_t i = 0; i < sizeof(ts) / sizeof(ts[0]); i++) {
		struct iot_rec r =
		    mkrec(IOT_EV_BIO_QUEUE, ts[i], 0x9000 + i * 0x100, 0, i * 8, 8);

		assert_int_equal(join_feed(&jf, &r), 0);
	}
	assert_int_equal(n, 2); /* the first record's line, the last line */
	join_release(&jf);
}

/* a record every 16 us: the join's floor (2^24 ns) about every 1,000 */
static struct iot_rec *spread(struct iot_rec *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		v[i].ts_ns <<= 14;
	return v;
}

/* 40 records late (two floors back) at each 1,000th: a segment of 50 or
 * 300 records that begins with them has passed fewer floors than the
 * join before it at its first checkpoints, and must not meet it there */
static struct iot_rec *late(struct iot_rec *v, size_t n)
{
	for (size_t i = 3000; i < n; i++) /* past 2 floors: no wrap */
		if (i % 1000 < 40)
			v[i].ts_ns -= 2ull << JOIN_FLOOR_SHIFT;
	return v;
}

/* a bio queued every 60 records whose request never comes: 1,000 held by
 * the end, so that the floors come a line in 2, 4, ... 16 (floor_cross) */
static struct iot_rec *held(struct iot_rec *v, size_t n)
{
	for (size_t i = 30; i < n; i += 60) {
		v[i] = mkrec(IOT_EV_BIO_QUEUE, v[i].ts_ns, 0x7000000 + i * 0x10, 0,
			     900000000 + i * 8, 8);
		v[i].tid = v[i].pid = 300;
	}
	return v;
}

static void one_way_and_parallel(int kind, uint64_t *stitched, uint64_t *rejoined)
{
	size_t n = 60000;
	struct iot_rec *v;
	struct outbuf one = {0};
	struct floor_check fc = {.o = &one};
	struct join_sink k = floor_check_sink(&fc);
	struct join seq;
	static const uint64_t segs[] = {7, 50, 300, 2000, 100000};
	struct trace_gaps gl = {0};

	srand(7 + kind);
	fc.late = kind == 5;
	v = kind == 6	? held(spread(tidy_stream(n), n), n)
	    : kind == 5 ? late(spread(tidy_stream(n), n), n)
	    : kind == 4 ? lossy(spread(tidy_stream(n), n), &n, &gl)
	    : kind == 3 ? stretched(spread(tidy_stream(n), n), &n)
	    : kind	? spread(mixed_stream(n, kind == 2), n)
			: spread(tidy_stream(n), n);
	assert_int_equal(join_init(&seq, &k, is_bio_based, NULL), 0);
	seq.syscall_nr = syscall_numbers("x86_64");
	seq.bi_elided = true;
	seq.gaps = kind == 4 ? &gl : NULL;
	for (size_t i = 0; i < n; i++)
		assert_int_equal(join_feed(&seq, &v[i]), 0);
	join_end(&seq);
	/* a floor each 2^24 ns of the stream's 60000 x 2^14 (kind 3: pinned
	 * at the first stretch's begin, given all the same) */
	if (kind == 6) /* 59 lines, and up to 1,000 held: 12 floors */
		assert_true(fc.nr >= 8 && fc.nr <= 30);
	else
		assert_true(fc.nr >= 55);
	/* and each with parts: the outputs of each segment through a sink
	 * of its own, appended at its merge */
	for (size_t g = 0; g < sizeof(segs) / sizeof(segs[0]); g++)
		for (unsigned int w = 1; w <= 3; w += 2)
			for (int parted = 0; parted < 2; parted++) {
				struct outbuf par = {0}, empty = {0};
				struct pull_src src = {v, n, 0};
				struct parts ps = {.nr = join_par_slots(w),
						   .whole = &par};
				struct join_par_config cfg = {
				    .workers = w,
				    .seg_recs = segs[g],
				    .sink = out_sink(parted ? &empty : &par),
				    .is_bio_based = is_bio_based,
				    .syscall_nr = seq.syscall_nr,
				    .bi_elided = true,
				    .gaps = seq.gaps,
				    .part_sink = parted ? parts_sink : NULL,
				    .part_end = parts_end,
				    .part_merge = parts_merge,
				    .part_ctx = &ps,
				};
				struct join_par_result res;

				assert_true(ps.nr <= 16);
				assert_int_equal(
				    join_par_run(&cfg, pull_some, &src, &res), 0);
				assert_int_equal(par.n, one.n);
				assert_memory_equal(par.b, one.b, one.n);
				assert_memory_equal(&res.st, &seq.st, sizeof(seq.st));
				assert_int_equal(res.segments, (n + segs[g]) / segs[g]);
				/* with parts, the sink saw nothing, and every
				 * segment was merged */
				assert_int_equal(empty.n, 0);
				assert_int_equal(res.parts, parted ? res.segments : 0);
				assert_int_equal(ps.merged, parted ? res.segments : 0);
				assert_int_equal(ps.ends, ps.merged);
				*stitched += res.stitched;
				*rejoined += res.rejoined;
				free(par.b);
				for (unsigned int k = 0; k < 16; k++)
					free(ps.slot[k].b);
			}
	if (kind == 4) /* 300 of some 7,500 calls have records lost between */
		assert_true(seq.st.lost_cut_syscalls >= 100);
	join_release(&seq);
	trace_gaps_release(&gl);
	free(one.b);
	free(v);
}

/* The same outputs, byte for byte, and the same counts, whatever the
 * segments and threads. A well-formed stream's states meet at most
 * boundaries; a damaged one's junk (requests never issued) and pages
 * dirtied keep them apart, and the trace's join joins on itself. */
static void parallel_same(void **state)
{
	uint64_t stitched = 0, rejoined = 0;

	bio_based = false;
	one_way_and_parallel(0, &stitched, &rejoined);
	assert_true(stitched > 400);
	one_way_and_parallel(1, &stitched, &rejoined);
	one_way_and_parallel(2, &stitched, &rejoined);
	assert_true(rejoined > 1000);
	/* back-pressure: the calls a stretch cut are left out at its begin,
	 * where a join begun inside it has none, and the states meet as
	 * often as in the tidy stream (1208 there, 1372 here) */
	stitched = rejoined = 0;
	one_way_and_parallel(3, &stitched, &rejoined);
	assert_true(stitched > 1000); /* 480 when the calls stayed open */
	/* records lost: the calls across them left out, by the gaps alone */
	stitched = rejoined = 0;
	one_way_and_parallel(4, &stitched, &rejoined);
	assert_true(stitched > 1000);
	/* records late: the floors given where one join gives them */
	stitched = rejoined = 0;
	one_way_and_parallel(5, &stitched, &rejoined);
	assert_true(stitched > 1000);
	/* many held: fewer floors, at the same places */
	one_way_and_parallel(6, &stitched, &rejoined);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
	    T(simple_request),
	    T(backmerge),
	    T(frontmerge),
	    T(merge_into_unknown_request),
	    T(partial_completion),
	    T(requeue),
	    T(bio_based_device),
	    T(bio_complete_after_request),
	    T(lost_records_cut_calls),
	    T(orphan_completion),
	    T(request_merge),
	    T(request_merge_before_insert),
	    T(split),
	    T(syscall_attribution),
	    T(bio_outlives_its_call),
	    cmocka_unit_test(parallel_same),
	    T(floors_at_clock_end),
	    cmocka_unit_test(seed_merge_same),
	    T(bio_outside_a_syscall_has_no_inode),
	    T(summary_record),
	    T(address_reuse),
	    T(lost_completion_then_reuse),
	    T(lost_completion_then_split_reuse),
	    T(summary_lost_unfinished),
	    T(unfinished_at_end),
	    T(random_streams),
	    T(zero_ids),
	    T(flush_requests),
	    T(writeback_dirtier),
	    T(journal_commits),
	    T(causes_in_syscall),
	    T(plain_bio_info_repeated),
	    T(fault_reads),
	    T(backpressure_cuts_calls),
	    T(wakeup_in_call),
	    T(flush_sequence_end),
	    T(readahead_in_read),
	    T(io_uring_requests),
	    T(io_uring_lost_completion),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
