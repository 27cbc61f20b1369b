/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The analysis core's side of the fan-out (analysis_fanout_start): the
 * join's outputs into the log, in the joining thread. Not for analyzers.
 */
#ifndef IOTRAIL_ANALYZE_FANOUT_H
#define IOTRAIL_ANALYZE_FANOUT_H

#include "analysis.h"

/* The device of dev, created (once the threads have caught up: a->devs
 * may move) on first use; NULL out of memory. */
struct dev_result *fanout_dev(struct fanout *f, uint32_t dev);
void fanout_request(struct fanout *f, struct dev_result *d, const struct join_request *r);
void fanout_bio(struct fanout *f, struct dev_result *d, const struct join_request *r,
		const struct join_bio *b);
void fanout_syscall(struct fanout *f, const struct join_syscall *s);
void fanout_commit(struct fanout *f, const struct join_commit *c);
void fanout_uring(struct fanout *f, const struct join_uring *u);
void fanout_mark(struct fanout *f, const struct join_mark *m);
void fanout_unfinished(struct fanout *f, const struct join_request *r);
void fanout_fault(struct fanout *f, const struct join_fault *x);
void fanout_dirty(struct fanout *f, const struct join_dirty *x);
void fanout_floor(struct fanout *f, uint64_t ns);

/* Every analyzer's finish, in up to a->threads threads (this one too): an
 * analyzer's finish reads the trace's tables and the result's devices, and
 * writes its own output. */
void fanout_finish(struct analysis *a);

#endif
