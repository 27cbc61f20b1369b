/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The flows analyzer's chosen flows (--id, --slowest), part by part, for
 * the formats that draw them (src/export/chrome.c: `iotrail flows -f
 * chrome`). docs/FLOWS.md.
 */
#ifndef IOTRAIL_ANALYZE_FLOWS_H
#define IOTRAIL_ANALYZE_FLOWS_H

#include "analysis.h"

struct flows_visitor {
	void *ctx;
	/* optional, first, for each chosen flow: where it started (start: a
	 * system call, io_uring, fault; else its cause), when, and when that
	 * start ended (the call's exit, the CQE; 0 for a fault and a cause) */
	int (*flow)(void *ctx, uint32_t flow, const char *start, uint64_t start_ns,
		    uint64_t end_ns);
	/* the system call a flow started at (not called for other flows) */
	int (*syscall)(void *ctx, uint32_t flow, const struct join_syscall *s);
	/* each request of a flow, upper ones before the lower ones they
	 * waited for; up_id: the upper request's number (0 for a top one).
	 * id numbers the request in the trace (from 1): a lower
	 * request serving several flows is given once per flow. 0 or the
	 * first error, which ends the visit. */
	int (*request)(void *ctx, uint32_t flow, uint64_t id,
		       const struct join_request *r, uint64_t up_id);
};

/* Visits the flows chosen in o (the flows analyzer's output, after
 * analysis_finish): their system calls, then their requests in completion
 * order. 0 or the visitor's error; -EINVAL when o is not the flows
 * analyzer's. */
int flows_visit(const struct an_output *o, const struct flows_visitor *v);

/* --where's value: "LAYER" or "LAYER@DEV", LAYER one of syscall, fault, cache, queue,
 * device, loop. 0 or -EINVAL. */
int flows_where_check(const char *where);

#endif
