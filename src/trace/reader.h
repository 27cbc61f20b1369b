/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reads a trace file: validates the header, indexes its chunks, exposes the
 * tables (devices, tasks, drops, meta, end) and yields every event record in
 * global time order, merging the per-CPU streams with bounded memory.
 *
 * A damaged file is read up to its last whole record; what was cut is named
 * by byte offset in r->warning (and the reader carries on).
 */
#ifndef IOTRAIL_TRACE_READER_H
#define IOTRAIL_TRACE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format.h"
#include "gaps.h"
#include "pack.h"

#define READER_REORDER 16 /* per-CPU reorder window: deeper than any nesting */
/* a trace up to this size is mapped populated and kept; a larger one is
 * let go behind the merge in steps of READER_RELEASE_STEP bytes */
#define READER_POPULATE_MAX (256ull << 20)
#define READER_RELEASE_STEP (32ull << 20)
/* packed chunks, with trace_reader_open_threads' threads of 4 or more:
 * unpacked ahead of the merge on threads - 2 workers, at most this many
 * (ahead.h) */
#define READER_AHEAD_MAX_WORKERS 4u

struct reader_chunk {
	uint32_t type;
	uint32_t cpu;
	uint64_t offset; /* of the payload */
	uint64_t size;	 /* payload bytes present in the file; a packed
			    chunk's: its records' bytes once unpacked */
	/* EVENTS: the records, in the map, or an aligned copy of a chunk
	 * that a writer other than ours left unaligned, or a packed chunk's
	 * records unpacked at the open; NULL for a packed chunk unpacked when
	 * the merge reaches it (packed_bytes, below) */
	const struct iot_rec *recs;
	uint64_t packed_bytes; /* such a chunk's packed records (after struct
				  iot_packed), or 0 */
};

/* A packed chunk's records, unpacked for the merge, freed once behind it */
struct reader_unpacked {
	struct iot_rec *recs;
	uint64_t n;
	uint32_t stream;
};

/* A packed chunk's records are unpacked as the merge reaches each, into a
 * slot of its stream's pool, rather than a whole round's chunks at once
 * (16 CPUs of 4 MB buffers: 128 MB for two rounds). A slot is held while
 * its record is in the window, and after it is returned until the next
 * call (trace_reader_next, _next_batch: at most READER_BATCH_MAX records
 * a call): a pool of the window and a batch never runs out. */
#define READER_BATCH_MAX 64
#define READER_POOL	 (READER_REORDER + READER_BATCH_MAX + 16)
#define READER_STAGE	 16
/* From this many streams with records: with fewer, a stream's records come
 * in long runs, and a chunk unpacked whole is read in order (a 2-CPU zram
 * recording: 0.64 s whole, 0.74 s each as reached; 4 CPUs of mktrace
 * --busy: 0.71 and 0.72 s, 263 and 234 MB; 16 CPUs: 2.07 and 2.12 s, 166
 * and 43 MB) */
#define READER_LAZY_STREAMS 4
/* Nor a chunk of more records than this, unpacked, whatever the streams
 * (--no-pack's chunks are the buffer's: at most 64 MB) */
#define READER_WHOLE_MAX (64ull << 20)
/* Unpacked ahead (ahead.h), chunks are held whole: not where that would
 * hold more than this (16 CPUs of 14 MB chunks, as -b 16m allows: 1.05-1.25
 * GB resident where the join on one reader took 4-16 threads, against
 * 152-299 MB as the merge reaches each record; 4 CPUs of 15 MB chunks:
 * 374-442 MB against 118-130 MB) */
#define READER_AHEAD_MAX_BYTES (192ull << 20)

/* n records of a stream: at p (records in place), or, p NULL, packed
 * (len bytes at in, u the record before). A segment's packed span
 * (filtered) gives only those of its stretch [from, to), and ends once
 * tail records from the first at to or later are passed over (those after
 * are later still: the plan checked it) */
struct reader_span {
	const struct iot_rec *p;
	uint64_t n;
	const uint8_t *in;
	size_t len;
	const uint8_t *kept; /* a large trace's pages below are let go */
	/* records in place, of a large chunk read by one reader: reaching
	 * edge maps the next READER_PACE_BYTES from pop and lets go behind */
	const struct iot_rec *edge, *pop;
	struct iot_unpacker u;
	bool filtered;
	unsigned int tail;
	uint64_t from, to;
};

struct reader_cpu {
	struct reader_span *spans; /* queue of unread spans */
	size_t nr_spans, first_span, cap_spans;
	const struct iot_rec *win[READER_REORDER]; /* sorted by ts, ring */
	unsigned int win_start, win_count;
	struct iot_rec *pool; /* READER_POOL slots (packed spans), or NULL */
	uint8_t free_slot[READER_POOL];
	unsigned int nr_free;
	/* the first span's records unpacked READER_STAGE at a time (the
	 * unpacker's state in registers for as many), then each copied into
	 * a slot as the window takes it */
	struct iot_rec *stage;
	unsigned int stage_at, stage_n;
};

/* A CPU's drops so far, and its last stretch (index + 1, 0 none), while the
 * DROPS_AT chunks are read */
struct drop_last {
	uint64_t total;
	size_t last;
};

struct trace_reader {
	char *path;
	const uint8_t *map;
	size_t size;
	struct iot_file_header hdr;

	struct reader_chunk *chunks;
	size_t nr_chunks;

	const struct iot_dev_entry *devs;
	size_t nr_devs;
	uint32_t *dev_order; /* devs' indexes by dev_t, file order among equals */
	const struct iot_task_entry *tasks;
	size_t nr_tasks;
	const struct iot_cgroup_entry *cgroups;
	size_t nr_cgroups;
	const struct iot_file_entry *files; /* sorted by inode, then dev */
	size_t nr_files;
	const struct iot_drop_entry *drops; /* a copy */
	size_t nr_drops;
	bool has_drops; /* a DROPS chunk: absent when the recording was killed */
	/* where in time records were dropped (DROPS_AT chunks, since 1.9):
	 * a CPU lost drops records after from_ns and by to_ns; consecutive
	 * drains of a CPU's merged into one stretch; sorted by CPU, then time
	 * (trace_cpu_drops finds a CPU's) */
	struct iot_drop_stretch *drop_stretches;
	size_t nr_drop_stretches, cap_drop_stretches;
	struct drop_last *drop_last; /* per CPU, while reading them */
	/* and each one's drops, to be listed among the gaps once the chunks
	 * after it are known (gaps.h) */
	struct drop_pending {
		size_t chunk; /* the chunks before it */
		uint32_t cpu;
		uint64_t lost;
	} * drop_pend;
	size_t nr_drop_pend, cap_drop_pend;
	const char *meta; /* not NUL-terminated: meta_len bytes */
	size_t meta_len;
	struct iot_end end;
	bool has_end;
	const struct reader_chunk *aggs; /* AGG chunks (--aggregate), in order */
	size_t nr_aggs;
	uint64_t agg_lost; /* the AGG chunks' lost, summed */
	struct reader_chunk *agg_list;
	void **copies; /* aligned copies of unaligned chunks and tables */
	size_t nr_copies, cap_copies;
	struct iot_stop stop; /* why the kernel side stopped (fill, trigger) */
	bool has_stop;
	struct iot_spec_info spec; /* --speculate */
	bool has_spec;

	/* packed chunks are unpacked by the merge as it reaches them and
	 * freed behind it, so memory stays bounded */
	struct reader_unpacked *live; /* unpacked by the merge, still in use */
	size_t nr_live, cap_live;
	/* their unpacking ahead of the merge, begun at the first of them */
	struct reader_ahead *ahead;
	bool ahead_tried;
	bool lazy; /* without it: each unpacked as the merge reaches it */
	/* without it: each unpacked as the merge reaches its records (struct
	 * reader_span); the slots returned since the last call, to be freed
	 * at the next, and a chunk found damaged there (-EINVAL) */
	struct reader_held {
		uint32_t stream;
		uint32_t slot;
	} held[READER_BATCH_MAX];
	unsigned int nr_held;
	int lazy_err;
	/* trace_reader_open_threads: the packed chunks are indexed as their
	 * headers say and checked after the walk, on this many threads
	 * (chunks[deferred[k]]) */
	unsigned int check_threads;
	/* what the chunks unpacked ahead may hold (start_ahead): by
	 * default READER_AHEAD_MAX_BYTES */
	uint64_t ahead_max;
	size_t *deferred;
	size_t nr_deferred, cap_deferred;
	/* trace_reader_open_unchecked: those chunks are not checked at all
	 * (packed_bytes: the whole payload, padding included) */
	bool unchecked;

	uint64_t nr_records;   /* records present in the file */
	uint64_t last_mark_ns; /* the latest ROUND mark: near the end of a cut-short
				  recording */
	uint64_t nr_gaps;      /* sequence numbers missing between records */
	/* back-pressure stretches (IOT_EV_DEGRADE), sorted by begin time,
	 * then CPU, and the SUMMARY records of an events-mode recording: both
	 * noted as records enter the merge (complete once every record was
	 * read) */
	struct iot_degrade_stretch *degrades;
	size_t nr_degrades, cap_degrades;
	uint64_t nr_summaries;
	char warning[256]; /* "" or what was cut, with the byte offset */

	/* merge state */
	struct reader_cpu *cpus; /* per stream: each CPU's, then the markers' */
	uint32_t nr_streams;
	size_t next_chunk;
	uint64_t limit_ns, prev_mark_ns;
	size_t released;    /* bytes of the map let go (release_behind) */
	uint64_t *next_seq; /* per CPU, for gap counting */
	/* nr_gaps per stream (the CPUs, the markers, the repair's), counted
	 * as records enter the merge: up to READER_REORDER records of that
	 * stream before the first one after the gap is returned */
	uint64_t *stream_gaps;
	/* and where each gap is (gaps.h), listed as the counts are (a
	 * segment's cursor lists none: the plan has them all) */
	struct trace_gaps gaps;
	/* The merge: a tournament (loser) tree over the streams on (the time
	 * of the window's first record, UINT64_MAX when it is empty; the
	 * stream's number: ties go to the lower). The next
	 * record costs log2(streams) comparisons along one path, not a look
	 * at every stream (sixteen CPUs and more), nor a heap's two per level. */
	uint64_t *key;	/* per stream, for building the tree */
	uint32_t *tree; /* room for building it: each node's winner */
	/* [0] the winner, [1, nr_leaves) each match's loser (node n's
	 * children 2n and 2n + 1; node nr_leaves + j is leaf j), each with
	 * its key: a match looks at one node, not a node and a key */
	struct reader_node {
		uint64_t key;
		uint32_t s, pad;
	} * node;
	/* the tree's leaves: the streams with records in the file, ascending
	 * (a host may count thousands of possible CPUs and have two online:
	 * the others cost no level of the tree and no look at each round),
	 * found at the open and shared with the segments' cursors */
	uint32_t *leaves, nr_leaves;
	uint32_t *leaf_of; /* per stream: its leaf, UINT32_MAX for none */
	bool tree_ok;	   /* false: built again before the next record */
	/* a speculative trace (has_spec) is read through a sorted index */
	const struct iot_rec **sorted;
	uint64_t nr_sorted, next_sorted;
};

/* Opens and indexes path. 0, or -errno with a message in errbuf. */
int trace_reader_open(struct trace_reader *r, const char *path, char *errbuf,
		      size_t errlen);
/* The same, the packed chunks checked on `threads` threads; the reader is
 * the same, warning included (damage found there: the file is indexed
 * again as trace_reader_open does, which says where). */
int trace_reader_open_threads(struct trace_reader *r, const char *path,
			      unsigned int threads, char *errbuf, size_t errlen);
/* The same, but those chunks are not checked: each is decoded once, when
 * it is read, not also at the open. The reader is the same when none is
 * damaged. A damaged one fails the read that reaches it (an error < 0, as
 * out of memory does), with nothing said: the caller, who must not have
 * shown anything yet, opens the file again with trace_reader_open_threads
 * and reads the records before the damage, which it then names. */
int trace_reader_open_unchecked(struct trace_reader *r, const char *path,
				unsigned int threads, char *errbuf, size_t errlen);
/* The next record in time order: 1 with *rec set, 0 at the end, or < 0:
 * -ENOMEM, or -EINVAL for a packed chunk that does not unpack (an unchecked
 * open's: read the trace again, checked). *rec stays valid until the
 * reader is released, but for a record of a packed chunk: until the next
 * call. */
int trace_reader_next(struct trace_reader *r, const struct iot_rec **rec);
/* The next records, up to max of them (at most READER_BATCH_MAX), into
 * recs: how many, 0 at the end, or < 0. Each stays valid as
 * trace_reader_next's do, those of a packed chunk until the next call.
 * The same records as trace_reader_next's, a call for many (the
 * one-thread report's loop). */
int trace_reader_next_batch(struct trace_reader *r, const struct iot_rec **recs,
			    unsigned int max);
/* Back to the first record. */
void trace_reader_rewind(struct trace_reader *r);
/* The META value of key, copied into out ("" when absent). */
void trace_reader_meta(const struct trace_reader *r, const char *key, char *out,
		       size_t outlen);
/* Every histogram of every AGG chunk (--aggregate), in file order; entries
 * past a cut-short chunk's end are left out. */
void trace_reader_aggs(const struct trace_reader *r,
		       void (*fn)(void *ctx, const struct iot_agg_entry *e), void *ctx);
/* "command", "duration", ...: why the recording stopped (END chunk), or
 * "unknown". */
const char *trace_reader_stop_reason(const struct trace_reader *r);
/* The stretches of one CPU in an array sorted as drop_stretches is: the
 * first of them, and how many in *n (0: none). */
const struct iot_drop_stretch *trace_cpu_drops(const struct iot_drop_stretch *st,
					       size_t nr, uint32_t cpu, size_t *n);
/* The recording's length from the header and END chunk, 0 if unknown. */
uint64_t trace_reader_duration_ns(const struct trace_reader *r);
const struct iot_dev_entry *trace_reader_dev(const struct trace_reader *r, uint32_t dev);
const struct iot_task_entry *trace_reader_task(const struct trace_reader *r,
					       uint32_t tid);
/* An IOT_EV_EXEC record: the task's name from then on is the one the
 * kernel gave it at exec (the task table has what /proc said at first
 * sight). Tasks not in the table are left alone. */
/* The path of inode ino on dev, a filesystem's st_dev or a disk (any
 * filesystem on it, partitions included), when the FILES chunk has one and
 * only one; else NULL. */
const char *trace_reader_file(const struct trace_reader *r, uint32_t dev, uint64_t ino);
/* The path of a cgroup by the low 32 bits of its id, or NULL. */
const char *trace_reader_cgroup(const struct trace_reader *r, uint32_t id);
void trace_reader_exec(struct trace_reader *r, const struct iot_rec *rec);

/* Reading in segments (reader.c says when a trace can be): the time cut
 * into stretches, segment k's [cuts[k], cuts[k + 1]), each read by a cursor
 * of its own on any thread, and put end to end the records come in the
 * same order as trace_reader_next's. */
struct reader_plan {
	uint64_t *cuts; /* nr_segs + 1 */
	size_t nr_segs, cap_cuts;
	uint64_t seg_recs; /* the records a segment was cut for */
	size_t *seg_first; /* segment k's chunks: seg_chunks[seg_first[k] ..
			      seg_first[k + 1]), in file order */
	size_t *seg_chunks;
	uint32_t *users; /* per chunk: the segments yet to read it */
	size_t low;	 /* the first chunk some segment still reads */
	size_t released; /* bytes of the map let go below it */
	bool releasing;	 /* a thread lets them go (atomic) */
	/* a packed chunk's state where each segment after its first begins
	 * to read it (its records before are all before that segment's
	 * stretch): cps[k].v[seg - cps[k].seg0], found as the plan looks at
	 * the chunk, so that no chunk is unpacked whole for the segments */
	struct reader_cps {
		struct reader_cp {
			struct iot_unpacker u;
			uint64_t off; /* bytes of its packed records before */
			uint64_t idx; /* and records */
		} * v;
		size_t n, seg0;
		/* read in segments, its pages are let go behind the first
		 * of its segments not known to be done (low): the bytes
		 * below kept are */
		size_t low;
		uint64_t kept;
	} * cps;
	uint8_t *seg_done; /* per segment: its cursor is done (atomic) */
	/* per seg_chunks entry of a chunk of records in place: the bytes
	 * before the first its segment reads (set as the segment begins) */
	uint64_t *seg_at;
	size_t nr_chunks;
	/* what trace_reader_next would have counted over every record */
	uint64_t gaps, summaries;
	uint64_t *stream_gaps;
	struct iot_degrade_stretch *degrades; /* and listed */
	size_t nr_degrades, cap_degrades;
	struct trace_gaps gap_at; /* where the gaps are, all of them */
	/* when trace_reader_plan gives 0: why the trace is read in order,
	 * for IOTRAIL_DEBUG (kept by reader_plan_release) */
	char why[192];
};
/* Looks at every record on `threads` threads: 1 with *pl made, segments
 * of about seg_recs records; 0 when the trace is not in one order by time
 * (or is speculative), or is one segment; -ENOMEM. A packed chunk is
 * unpacked to be looked at, and once more, part by part, by the segments
 * that read it. */
int trace_reader_plan(const struct trace_reader *r, uint64_t seg_recs,
		      unsigned int threads, struct reader_plan *pl);
/* A cursor over segment seg: trace_reader_next on it gives that stretch's
 * records (valid while r is, until trace_reader_segment_done), then
 * trace_reader_segment_done, which lets a packed chunk's records go, and a
 * large trace's pages, once no segment needs them. Several at once, on
 * threads. 0 or -ENOMEM (done is still called). */
int trace_reader_segment(const struct trace_reader *r, const struct reader_plan *pl,
			 size_t seg, struct trace_reader *cur);
void trace_reader_segment_done(const struct trace_reader *r, struct reader_plan *pl,
			       size_t seg, struct trace_reader *cur);
/* Once every segment was read: the reader's counts (gaps, summaries) and
 * back-pressure stretches as its own merge would have left them, and its
 * merge at the end */
void trace_reader_plan_apply(struct trace_reader *r, struct reader_plan *pl);
void reader_plan_release(struct reader_plan *pl);
/* The records chunk (EVENTS, EVENTS_PACKED as unpacked, MARKS, REPAIR)
 * or ROUND whose payload is at offset, looked for from chunk *k on (walk
 * the file in order with the same *k), or NULL when the reader kept none
 * there (damage). A packed chunk has recs NULL. */
const struct reader_chunk *trace_reader_chunk_at(const struct trace_reader *r, size_t *k,
						 uint64_t offset);
/* Such a chunk's records (its size / IOT_REC_SIZE, found whole at the
 * open, or, opened unchecked, as its header says), unpacked into memory
 * the caller frees, or NULL (out of memory, damage). */
struct iot_rec *trace_reader_unpack(const struct trace_reader *r,
				    const struct reader_chunk *ch);
void trace_reader_release(struct trace_reader *r);

#endif
