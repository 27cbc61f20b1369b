/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The join on several threads: the record stream cut into segments, each
 * joined from an empty state on a thread of its own, and stitched so that
 * the sink sees the very calls, in the very order, of one join over the
 * whole stream (parallel.c says how).
 */
#ifndef IOTRAIL_JOIN_PARALLEL_H
#define IOTRAIL_JOIN_PARALLEL_H

#include <stddef.h>
#include <stdint.h>

#include "join.h"

/* records a segment, unless told otherwise */
#define JOIN_PAR_SEGMENT 65536

struct join_par_config {
	unsigned int workers;  /* joining threads, at least 1 */
	uint64_t seg_recs;     /* records a segment, 0: JOIN_PAR_SEGMENT */
	struct join_sink sink; /* called from one thread of its own, in order
				  (unless part_sink) */
	bool (*is_bio_based)(void *ctx, uint32_t dev);
	void *dev_ctx;
	const uint32_t *syscall_nr;
	bool bi_elided;
	struct trace_gaps *gaps; /* join.gaps: the whole list, or the reader's
				    as it reads (shared) */
	/* The segments read on the joining threads instead of pulled in
	 * order (trace_reader_plan): nr_segs of them. fill puts segment k's
	 * records in *recs (of *cap, grown as GROW does), on any thread,
	 * several at once; in_order is then called for each segment, in
	 * order, one at a time. fill NULL: pulled. */
	uint64_t nr_segs;
	int (*fill)(void *ctx, uint64_t k, struct iot_rec **recs, size_t *n, size_t *cap);
	void (*in_order)(void *ctx, uint64_t k);
	void *src_ctx;
	/* Optional: each segment's outputs, once its log is whole, through a
	 * sink of their own on a worker (part_sink gives part `slot`'s, slot
	 * below join_par_slots(workers); several at once, each slot on one
	 * thread at a time), and the parts then merged in segment order on
	 * the replay thread (part_merge), instead of every output through
	 * sink: what the sink does is then done on every core (the
	 * analyzers on segments, analysis_merge). A slot is not used again
	 * before its part is merged. part_sink: 0 or -errno. */
	int (*part_sink)(void *ctx, unsigned int slot, struct join_sink *out);
	/* optional: part `slot` has all its outputs (on the worker) */
	void (*part_end)(void *ctx, unsigned int slot);
	void (*part_merge)(void *ctx, unsigned int slot);
	void *part_ctx;
};

/* The parts (cfg->part_sink) a run on that many workers uses at most. */
unsigned int join_par_slots(unsigned int workers);

struct join_par_result {
	struct join_stats st; /* as one join over the stream counts them */
	/* segments; of which taken up where their state met the join that
	 * came from the start; of which joined again by that join (its
	 * state never met theirs); and the records joined twice */
	uint64_t segments, stitched, rejoined, overlap;
	uint64_t parts; /* segments whose outputs went through a part */
	/* CPU time (ns) of the reading thread, of the replay, and of the
	 * workers (summed, and the busiest): where the time of a report on
	 * many cores goes (IOTRAIL_DEBUG) */
	uint64_t cpu_read_ns, cpu_replay_ns, cpu_workers_ns, cpu_worker_max_ns;
};

/* pull: up to max records into buf, in order; how many (0: the end) or a
 * negative errno. It runs in the calling thread, which reads while the
 * segments are joined (with cfg->fill, pull is not called and the calling
 * thread is one of the workers). 0, or -ENOMEM (or pull's error): the sink has then
 * seen some prefix of the outputs. */
int join_par_run(const struct join_par_config *cfg,
		 int64_t (*pull)(void *ctx, struct iot_rec *buf, size_t max), void *ctx,
		 struct join_par_result *res);

#endif
