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
	RM_ZERO,     /* reference, "nothing": the completion at the issue */
	RM_MEAN,     /* the device's mean D2C of the same operation */
	RM_KNN,	     /* seed 003: the mean D2C of the k nearest in time */
	RM_EVIDENCE, /* ours, the default (docs/REPAIR.md) */
	NR_RM
};
extern const char *const repair_method_names[NR_RM];
/* by name, or -1 */
int repair_method_find(const char *name);

/* A request at the device: a struct request from its issue (D) to its
 * completion (C), or on a bio-based device (zram, brd) a bio from its
 * queueing (Q) to its completion. */
struct rreq {
	uint64_t rq;	   /* struct request address (bio-based: the bio's) */
	uint64_t d_ns;	   /* its issue (bio-based: its Q) */
	uint64_t c_ns;	   /* its completion; 0: none in the trace */
	uint64_t q_ns;	   /* its first bio's queueing, 0 unknown */
	uint64_t exit_ns;  /* the exit of the waiting syscall its first bio was
			      queued in, 0 none (docs/REPAIR.md) */
	uint64_t reuse_ns; /* the next issue of the same struct request, 0 none */
	uint64_t sector;
	uint32_t dev, nr, flags;
	uint32_t tid, sys_nr; /* the queueing thread and its syscall */
	uint16_t cpu;	      /* the D's */
	bool bio;	      /* a bio-based device's bio */
	bool missing;	      /* its C was lost (or removed, to evaluate) */
};

struct repair_set {
	struct rreq *r; /* by device, then issue time (repair_scan sorts) */
	size_t n, cap;
	uint64_t end_ns;    /* the recording's end (or last record) */
	uint64_t lost;	    /* completions missing (the struct request issued
			       again, or none long before the end) */
	uint64_t in_flight; /* issued near the end without a C: not lost */
	uint64_t orphan_c;  /* completions of no issue seen (a lost D) */
	uint64_t requeued;  /* issues again after a requeue: not a loss */
};

/* Reads every record of rd. 0, or -ENOMEM. */
int repair_scan(struct trace_reader *rd, struct repair_set *s);
void repair_set_release(struct repair_set *s);

/* Estimates the completion time of every missing request of s into est[i]
 * (0: refused, no evidence to estimate from: a device with no completion
 * left). Returns how many were refused. */
size_t repair_estimate(const struct repair_set *s, enum repair_method m, uint64_t *est);

/* The evaluation: on the complete requests of s, hide a share rate of the
 * completions (uniformly, or in bursts of consecutive requests), estimate
 * them with m and compare with the truth. */
struct repair_eval {
	double rate;
	bool burst;
	enum repair_method method;
	uint64_t hidden, estimated, refused;
	double mae_ns, p99_ns;
};
int repair_evaluate(struct repair_set *s, double rate, bool burst, uint64_t seed,
		    enum repair_method m, struct repair_eval *out);

#endif
