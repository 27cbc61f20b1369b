/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The join's own state, for join.c and canon.c only (the rest of the
 * program sees struct join through join.h).
 */
#ifndef IOTRAIL_JOIN_JOIN_INT_H
#define IOTRAIL_JOIN_JOIN_INT_H

#include "join.h"

#define NONE	     UINT32_MAX
#define PAGE_SECTORS 8 /* 4 KiB pages */

struct join_bio_st {
	uint64_t ptr;
	uint64_t q_ns;
	uint64_t sector;
	uint32_t nr;
	uint32_t dev;
	uint32_t flags;
	uint32_t pid, tid;
	uint32_t req;  /* request index, NONE while queued */
	uint32_t next; /* next bio of the request, or next free */
	uint32_t sys;  /* syscall index or NONE */
	uint32_t sys_gen;
	uint64_t ino;	    /* inode of the syscall that queued it, 0 = none */
	uint64_t sys_enter; /* that syscall's enter time, 0 = none */
	uint16_t cpu;	    /* its Q's */
	struct join_why why;
	uint32_t uring; /* io_uring request index or NONE */
	uint32_t uring_gen;
	bool est_q; /* its Q is `iotrail repair`'s estimate */
};

enum rq_state {
	RQ_GOT,	     /* allocated (G), or first seen at I, D or C */
	RQ_INSERTED, /* in the I/O scheduler (I), or requeued (R) */
	RQ_ISSUED,   /* dispatched (D): no longer mergeable */
};

struct join_req_st {
	struct join_request r;
	uint32_t head, tail;	     /* bio list */
	uint64_t start_key, end_key; /* keys in the merge maps, 0 = none */
	uint64_t left;		     /* sectors not yet completed */
	uint32_t next_free;
	enum rq_state state;
	/* its data completed inside the flush machinery's sequence: it ends
	 * (and /proc/diskstats counts it) at the machinery's last completion
	 * of the same request, with no bytes, after the post-flush */
	bool held;
	uint32_t next_held;
};

struct join_sys_st {
	struct join_syscall s;
	uint64_t enter_seq; /* its enter's sequence number on its CPU */
	uint32_t gen;
	uint32_t next_free;
	bool open;
};

struct join_uring_st {
	struct join_uring u;
	uint32_t gen;
	uint32_t next_free;
	bool open;
};

#endif
