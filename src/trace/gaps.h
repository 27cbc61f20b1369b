/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where records are missing from a trace's CPU streams, for the join to
 * ask whether a system call's enter and exit have records of their CPU
 * lost between them (join.c), which would make the exit another call's.
 * Each gap is kept by the record after it, its sequence number and time,
 * with the stream's records lost up to there; per stream in sequence
 * order. Two lists of them:
 *
 * - skipped: the kernel numbers each CPU's records (seq) as it reserves
 *   them, so a jump is records reserved and never read (a torn slot, a
 *   damaged file). The reader lists them as records enter its merge
 *   (reader.c), the plan as it looks at the chunks.
 * - dropped: a full buffer drops records without numbering them; the
 *   DROPS_AT chunk the recorder writes after a drain says its drops grew.
 *   Those were lost after every record that drain wrote and before the
 *   CPU's first record in a later chunk (drops while its buffer fills
 *   again before the count is read, after that chunk's records, go on
 *   into the next drain's count, and so to the chunk after). Listed at
 *   the open, whole.
 *
 * A list filled by one thread while others read it (a reader thread ahead
 * of the join's) is `shared`: then reads and appends of skipped gaps take
 * the lock. A stream without gaps is answered without it.
 */
#ifndef IOTRAIL_TRACE_GAPS_H
#define IOTRAIL_TRACE_GAPS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct trace_gap {
	uint64_t seq;	/* of the record after the gap */
	uint64_t ts_ns; /* its time */
	uint64_t lost;	/* the list's records lost up to it, this gap's too */
};

struct trace_gap_list {
	struct trace_gap *g;
	size_t n, cap; /* n: atomic where shared */
};

struct trace_gaps {
	struct trace_gap_stream {
		struct trace_gap_list skipped, dropped;
	} * s; /* per stream */
	uint32_t nr_streams;
	bool any; /* a gap listed (atomic) */
	bool shared;
	pthread_mutex_t mu;
};

/* Whether any stream has a gap listed: nearly every trace has none */
static inline bool trace_gaps_any(const struct trace_gaps *gs)
{
	return gs && __atomic_load_n(&gs->any, __ATOMIC_ACQUIRE);
}

/* For nr_streams streams: 0 or -ENOMEM */
int trace_gaps_init(struct trace_gaps *gs, uint32_t nr_streams);
void trace_gaps_release(struct trace_gaps *gs);
/* The skipped gaps forgotten (a rewind), the memory kept */
void trace_gaps_clear(struct trace_gaps *gs);
/* lost records skipped before the record (seq, ts_ns) of stream s, after
 * its last gap (sequence order). 0 or -ENOMEM. */
int trace_gaps_add(struct trace_gaps *gs, uint32_t s, uint64_t seq, uint64_t ts_ns,
		   uint64_t lost);
/* lost records dropped before that record, as the open finds them (not
 * shared). 0 or -ENOMEM. */
int trace_gaps_add_dropped(struct trace_gaps *gs, uint32_t s, uint64_t seq,
			   uint64_t ts_ns, uint64_t lost);
/* dst's dropped gaps those of src (dst made for as many streams) */
int trace_gaps_copy_dropped(struct trace_gaps *dst, const struct trace_gaps *src);
/* The records of stream s lost after sequence number a and before b (a
 * gap whose next record is in (a, b]) */
uint64_t trace_gaps_between(struct trace_gaps *gs, uint32_t s, uint64_t a, uint64_t b);
/* Whether a system call entered (stream e, sequence number, time) and
 * exited (stream x, ...) lost its own exit, the one given another call's:
 * then that call's enter was lost too, two records of the thread's at
 * least. So: two records or more lost between the two where both are on
 * one stream (one lost record, a torn slot or a removed completion, leaves
 * the pairing right); where the thread moved, two or more in all in the
 * gaps of e after the enter whose next records are before the exit and
 * those of x before the exit whose next records are after the enter
 * (join.c, repair.c). */
bool trace_gaps_lost_between(struct trace_gaps *gs, uint32_t e, uint64_t e_seq,
			     uint64_t e_ns, uint32_t x, uint64_t x_seq, uint64_t x_ns);
/* The time of the record after stream s's first gap past sequence number
 * a: by when what was lost there was lost (UINT64_MAX: none listed) */
uint64_t trace_gaps_next_ts(struct trace_gaps *gs, uint32_t s, uint64_t a);

#endif
