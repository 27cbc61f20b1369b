/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Lost-event repair (`iotrail repair`, docs/REPAIR.md): the requests of a
 * trace with their issue (D) and completion (C), the evidence around each
 * (the syscall its first bio was queued in, the next issue of the same
 * struct request), which completions are missing, and the methods that
 * estimate a missing completion's time. The estimates are written as
 * estimated records (IOT_F_ESTIMATED in a REPAIR chunk), never as
 * measurements.
 *
 * This keeps a request table of its own rather than the join's: it needs
 * the requests the join gives up on (an address used again without a C),
 * and nothing the join adds (bios, merges, causes).
 */
#ifndef IOTRAIL_REPAIR_REPAIR_H
#define IOTRAIL_REPAIR_REPAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../trace/reader.h"

enum repair_method {
	RM_ZERO,     /* reference, "nothing": the stage before it took no time */
	RM_MEAN,     /* the device's mean of that stage for the operation */
	RM_KNN,	     /* seed 003: the mean of that stage over the k nearest */
	RM_EVIDENCE, /* ours, the default (docs/REPAIR.md) */
	NR_RM
};
extern const char *const repair_method_names[NR_RM];
/* by name, or -1 */
int repair_method_find(const char *name);

/* the event a request lost (--event) */
enum repair_event {
	RE_COMPLETE, /* its C (bio-based: its bio's completion) */
	RE_ISSUE,    /* its D */
	RE_QUEUE,    /* its first bio's Q */
	RE_EXIT,     /* a system call's exit (the table's calls, not requests) */
	NR_RE
};
extern const char *const repair_event_names[NR_RE];
int repair_event_find(const char *name);

/* A request at the device: a struct request from its issue (D) to its
 * completion (C), or on a bio-based device (zram, brd) a bio from its
 * queueing (Q) to its completion. */
struct rreq {
	uint64_t rq;	    /* struct request address (bio-based: the bio's) */
	uint64_t d_ns;	    /* its issue (bio-based: its Q); 0: lost (miss_d) */
	uint64_t c_ns;	    /* its completion; 0: none in the trace */
	uint64_t q_ns;	    /* its first bio's queueing, 0 unknown */
	uint64_t g_ns;	    /* its first bio's request allocation (G), 0 unknown */
	uint64_t i_ns;	    /* its insertion in the scheduler (I), 0 unknown */
	uint64_t enter_ns;  /* the enter of the syscall its first bio was queued
			       in, 0 none */
	uint64_t exit_ns;   /* the exit of that syscall if it waits for its I/O,
			       0 none (docs/REPAIR.md) */
	uint64_t reuse_ns;  /* the next issue of the same struct request, 0 none */
	uint64_t prev_c_ns; /* the completion before of the same struct request:
			       its issue comes after it; 0 none */
	uint64_t key_ns;    /* the order of the table (repair_order) */
	uint64_t bio;	    /* its first bio's address, 0 unknown */
	uint64_t sector;
	uint32_t dev, nr, flags;
	uint32_t tid, pid, sys_nr; /* the queueing thread and its syscall */
	uint32_t bio_nr;	   /* its first bio's sectors */
	uint16_t cpu;		   /* the D's (a lost D: the C's) */
	bool bio_based;		   /* a bio-based device's bio */
	bool missing;		   /* its C was lost (or removed, to evaluate) */
	bool miss_d;		   /* its D was lost (or removed) */
	bool miss_q;		   /* its first bio's Q was lost (or removed) */
	bool by_sector;		   /* a lost D without an I: its bio found by sector */
};

/* A traced system call, from its enter to its exit. */
struct rsys {
	uint64_t enter_ns;
	uint64_t exit_ns;   /* 0: lost (missing) */
	uint64_t next_ns;   /* the task's next enter, or the record after the
			       records of its CPU lost after it: its exit came
			       before it; 0 none */
	uint64_t enter_seq; /* its enter's sequence number on its CPU */
	uint64_t last_c_ns; /* the last completion of the requests its task
			       queued in it, when calls of its number wait for
			       their I/O; 0 none */
	uint32_t tid, pid, nr;
	uint32_t count; /* bytes asked */
	uint16_t cpu;	/* the enter's */
	bool missing;	/* its exit was lost (or removed, to evaluate) */
};

struct repair_set {
	struct rreq *r; /* by device, then key_ns (repair_order) */
	size_t n, cap;
	struct rsys *sys; /* by task, then enter; for RE_EXIT by number, then
			     enter (repair_order) */
	size_t nsys, capsys;
	uint64_t end_ns;    /* the recording's end (or last record) */
	uint64_t lost;	    /* completions missing (the struct request issued
			       again, or none long before the end) */
	uint64_t lost_d;    /* issues missing (a C of an inserted or allocated
			       request never issued) */
	uint64_t lost_q;    /* queueings missing (a bio allocated a request
			       with no Q) */
	uint64_t lost_exit; /* system call exits missing (the task entered
			       another first) */
	uint64_t in_flight; /* issued near the end without a C: not lost */
	uint64_t orphan_c;  /* completions of no issue nor bio seen */
	uint64_t requeued;  /* issues again after a requeue: not a loss */
};

/* Reads every record of rd, and orders the table for RE_COMPLETE. 0, or
 * -ENOMEM. */
int repair_scan(struct trace_reader *rd, struct repair_set *s);
void repair_set_release(struct repair_set *s);

/* Orders the table for estimating event e: by device, then by issue
 * (RE_COMPLETE) or completion time (RE_ISSUE, RE_QUEUE: what is known of
 * the requests that lost those); for RE_EXIT the calls by number, then
 * enter. */
void repair_order(struct repair_set *s, enum repair_event e);

/* Estimates the time of event e of every request of s that lost it into
 * est[i] (0: none lost, or refused: no evidence to estimate from, such as a
 * device with no such event left); for RE_EXIT of every call, s->sys[i].
 * The table must be ordered for e. Returns how many were refused. */
size_t repair_estimate(const struct repair_set *s, enum repair_event e,
		       enum repair_method m, uint64_t *est);

/* how many requests (RE_EXIT: calls) of s have event e and what bounds
 * it: what the evaluation can hide */
size_t repair_hideable(const struct repair_set *s, enum repair_event e);

/* The evaluation: on the requests of s that have event e and what bounds
 * it, hide a share rate of those events (uniformly, or in bursts of
 * consecutive requests), estimate them with m and compare with the truth.
 * Orders the table for e. */
struct repair_eval {
	double rate;
	bool burst;
	enum repair_event event;
	enum repair_method method;
	uint64_t hidden, estimated, refused;
	double mae_ns, p99_ns;
};
int repair_evaluate(struct repair_set *s, enum repair_event e, double rate, bool burst,
		    uint64_t seed, enum repair_method m, struct repair_eval *out);

#endif
