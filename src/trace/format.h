/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The iotrail trace file (.iot), byte by byte: the only header that knows the
 * layout. The writer (writer.c) and the reader (reader.c) both use it, so they
 * cannot disagree. docs/FORMAT.md is the prose version of this file.
 *
 * File = struct iot_file_header, then chunks until end of file. A chunk is a
 * struct iot_chunk followed by `size` payload bytes. Little-endian.
 *
 * Version rule: version_major changes when an existing field or chunk
 * changes meaning; readers refuse a major they do not know. version_minor
 * changes when chunk types or trailing fields are added; readers skip chunk
 * types they do not know and ignore bytes past the fields they know.
 */
#ifndef IOTRAIL_TRACE_FORMAT_H
#define IOTRAIL_TRACE_FORMAT_H

#include <stdint.h>

#include "../bpf/events.h"

#define IOT_MAGIC	  "IOTRAIL" /* 8 bytes with the terminating NUL */
#define IOT_VERSION_MAJOR 1
#define IOT_VERSION_MINOR 10
/* What a file without EVENTS_PACKED chunks says: a 1.9 reader skips chunk
 * types it does not know, and would lose their records without a word, so
 * only a file that holds packed records says 1.10. */
#define IOT_VERSION_MINOR_UNPACKED 9

struct iot_file_header {
	char magic[8];		    /* "IOTRAIL\0" */
	uint32_t header_size;	    /* bytes of this header: 64 in version 1.0 */
	uint16_t version_major;	    /* IOT_VERSION_MAJOR */
	uint16_t version_minor;	    /* IOT_VERSION_MINOR */
	uint32_t rec_size;	    /* bytes per event record: 64 */
	uint32_t nr_cpus;	    /* possible CPUs when recorded */
	uint64_t start_realtime_ns; /* CLOCK_REALTIME at start */
	uint64_t start_mono_ns;	    /* CLOCK_MONOTONIC at the same instant */
	uint32_t clock_id;	    /* clock of every ts_ns: 1 = CLOCK_MONOTONIC */
	/* the repair note (since 1.8; 0 in a trace never repaired): which
	 * method `iotrail repair` used (enum repair_method + 1), the values it
	 * estimated, and its mean absolute error when it hid as many
	 * completions of this trace's own and estimated them (docs/REPAIR.md) */
	uint32_t repair_method;
	uint64_t repair_estimated;
	uint64_t repair_mae_ns;
};

enum iot_chunk_type {
	IOT_CHUNK_EVENTS = 1,	      /* whole struct iot_rec of one CPU, in seq order */
	IOT_CHUNK_ROUND = 2,	      /* struct iot_round: merge barrier */
	IOT_CHUNK_META = 3,	      /* "key=value\n" text: options, variants, host */
	IOT_CHUNK_DEVICES = 4,	      /* struct iot_dev_entry[] */
	IOT_CHUNK_TASKS = 5,	      /* struct iot_task_entry[] */
	IOT_CHUNK_DROPS = 6,	      /* struct iot_drop_entry[], one per CPU */
	IOT_CHUNK_END = 7,	      /* struct iot_end: last chunk of a complete file */
	IOT_CHUNK_AGG = 9,	      /* struct iot_agg_header + iot_agg_entry[]: the
					 --aggregate histograms of one interval; since 1.1 */
	IOT_CHUNK_STOP = 8,	      /* struct iot_stop: why the kernel side stopped
					 (fill full, ring trigger); since 1.1 */
	IOT_CHUNK_SPEC = 10,	      /* struct iot_spec_info: --speculate's setting
					 and counts; since 1.2. Its presence says the
					 EVENTS are committed speculations, in
					 completion order rather than time order */
	IOT_CHUNK_CGROUPS = 11,	      /* struct iot_cgroup_entry[]: every cgroup at
					 the stop, for IOT_EV_BIO_INFO's ids; since 1.3 */
	IOT_CHUNK_MARKS = 13,	      /* struct iot_rec[] of type IOT_EV_MARK: the user
					 markers (include/iotrail/marker.h) drained
					 since the last ROUND, in time order, their
					 seq gapless across chunks; since 1.6 */
	IOT_CHUNK_FILES = 12,	      /* struct iot_file_entry[]: the paths of the
					 inodes records name; since 1.4 */
	IOT_CHUNK_REPAIR = 14,	      /* struct iot_rec[] that `iotrail repair`
					 estimated (flags IOT_F_ESTIMATED), in time
					 order, seq gapless across chunks, each before
					 the first ROUND whose mark is at or after it;
					 since 1.8 */
	IOT_CHUNK_DROPS_AT = 15,      /* struct iot_drops_at + iot_drop_entry[]: the
					 CPUs whose drops grew between two drains,
					 with their counts at the second; since 1.9 */
	IOT_CHUNK_EVENTS_PACKED = 16, /* struct iot_packed + the records of one
					 CPU in seq order, packed (trace/pack.h);
					 read as an EVENTS chunk; since 1.10 */
};
/* Chunk types above this are never written, by this version or a later
 * one (which adds types from 11 up): a reader stops there, as at garbage.
 * Type 0 is never written either. */
#define IOT_CHUNK_TYPE_MAX 0xffff

struct iot_chunk {
	uint32_t type; /* enum iot_chunk_type */
	uint32_t cpu;  /* EVENTS: the CPU of every record; else 0 */
	uint64_t size; /* payload bytes that follow */
};

/* EVENTS_PACKED: nr_recs records follow, packed as one run (iot_pack) in
 * the rest of the chunk's payload */
struct iot_packed {
	uint64_t nr_recs;
};

/*
 * Written after each drain of every CPU. mark_ns was read before the drain
 * started: every record with ts_ns < mark_ns of round k is in the file before
 * the ROUND chunk of round k + 1 (see reader.c for why one round of slack).
 */
struct iot_round {
	uint64_t mark_ns; /* CLOCK_MONOTONIC ns */
};

struct iot_dev_entry {
	uint32_t dev;		     /* kernel dev_t: major << 20 | minor */
	uint32_t disk_dev;	     /* the whole disk's dev_t (== dev for a disk) */
	uint64_t start_sector;	     /* partition start on its disk, 512-byte units */
	uint64_t nr_sectors;	     /* size, 512-byte units */
	uint32_t logical_block_size; /* bytes */
	uint32_t flags;		     /* IOT_DEV_* */
	char name[32];		     /* "loop0", "vda1" */
	char scheduler[32];	     /* active I/O scheduler, "" when none */
};
#define IOT_DEV_PARTITION (1u << 0)
#define IOT_DEV_FILTERED  (1u << 1) /* selected with -d */
#define IOT_DEV_BIO_BASED (1u << 2) /* no request queue (zram, brd): bios only */

struct iot_task_entry {
	uint32_t pid;	    /* tgid */
	uint32_t tid;	    /* thread id */
	uint64_t cgroup_id; /* cgroup v2 id (inode of its directory), 0 unknown */
	char comm[16];
	char cgroup[96]; /* cgroup v2 path, truncated */
};

/* A cgroup: its id (the inode number of its directory; the kernel's
 * cgroup id on 64-bit machines) and "controller:/path" for cgroup v1
 * hierarchies ("blkio:/a/b"), "/path" for v2. */
struct iot_cgroup_entry {
	uint64_t id;
	char path[120];
};

/* A file's path as it was when a record first named its inode
 * (src/record/files.h). */
struct iot_file_entry {
	uint32_t dev;	/* its filesystem's st_dev, kernel encoding */
	uint32_t flags; /* IOT_FILE_* */
	uint64_t ino;
	char path[240]; /* absolute, in the recorder's mount namespace */
};
#define IOT_FILE_DELETED (1u << 0) /* gone at the stop */
#define IOT_FILE_REUSED                                                                  \
	(1u << 1) /* at the stop the number named another                                \
		       file: path is "first | then" */

/* IOT_CHUNK_DROPS_AT: the drops of the entries that follow it grew after
 * from_ns and by to_ns (CLOCK_MONOTONIC, when the recorder read them) */
struct iot_drops_at {
	uint64_t from_ns, to_ns;
};

struct iot_drop_entry {
	uint32_t cpu;
	uint32_t flags;		/* IOT_DROP_*; 0 in files written before them */
	uint64_t records;	/* records written for this CPU */
	uint64_t drops_full;	/* lost: buffer full */
	uint64_t drops_torn;	/* lost: slot reserved but never committed */
	uint64_t drops_nostate; /* lost (--summary): no slot for a request's state */
};

/* iot_drop_entry.flags: the CPU had no buffer, being offline when the
 * recording began; every record it made is in drops_full */
#define IOT_DROP_NO_BUFFER 1u
/* drops_full counts records the recorder could not write too: the file
 * system refused a write (full, a quota, the file size limit), and what
 * the buffers held then went nowhere (since 1.10, no version bump) */
#define IOT_DROP_UNWRITTEN 2u

/* Everything a CPU lost: full (or no) buffer, torn slots, no state */
static inline uint64_t iot_drop_total(const struct iot_drop_entry *e)
{
	return e->drops_full + e->drops_torn + e->drops_nostate;
}

/* What a CPU lost from from_ns to to_ns, as the reader gives it (not
 * stored so): a DROPS_AT entry, or several of consecutive drains (each
 * one's from_ns the last one's to_ns) that each saw the CPU's drops grow */
struct iot_drop_stretch {
	uint64_t from_ns, to_ns;
	uint32_t cpu;
	uint32_t drains; /* DROPS_AT entries merged into it */
	uint64_t drops;	 /* lost in the stretch */
	uint64_t total;	 /* lost by its end */
};

/* A back-pressure stretch (IOT_EV_DEGRADE records) as the reader gives it
 * (not stored so): from_ns to to_ns the requests queued on the CPU were
 * recorded as SUMMARY records and its other events not written */
struct iot_degrade_stretch {
	uint64_t from_ns, to_ns; /* to_ns 0: still on when the recording ended */
	uint64_t skipped;	 /* records not written (known at the end) */
	uint32_t cpu;
};

enum iot_stop_reason {
	IOT_STOP_COMMAND = 1,  /* the traced command exited */
	IOT_STOP_DURATION = 2, /* --duration elapsed */
	IOT_STOP_SIGNAL = 3,   /* SIGINT or SIGTERM */
	IOT_STOP_ERROR = 4,    /* the recorder failed; the file is still valid */
	IOT_STOP_FILL = 5,     /* bufpolicy=fill: a CPU's buffer was full */
	IOT_STOP_TRIGGER = 6,  /* bufpolicy=ring: --trigger fired */
	IOT_STOP_SIZE = 7,     /* --max-size reached */
	IOT_STOP_SPACE = 8,    /* the file system had no room left to keep */
};

struct iot_end {
	uint64_t end_mono_ns;	/* CLOCK_MONOTONIC at stop */
	uint32_t reason;	/* enum iot_stop_reason */
	int32_t command_status; /* wait status of COMMAND, -1 without one */
	uint64_t kernel_misses; /* events the kernel kept from a program already
				   running on that CPU (BPF recursion guard);
				   since 1.1 */
	uint64_t unfinished;	/* --aggregate: requests issued and not complete
				   at the stop, in no histogram; 0 in files
				   written before it was counted (24-byte END) */
	/* user markers (docs/MARKERS.md) the file is without: dropped by a
	 * full ring, reserved and never committed, and the rings left out
	 * as damaged; 0 in a 32-byte END, written before they were said */
	uint64_t marks_dropped, marks_torn;
	uint32_t marks_bad_rings, pad;
};

/* --speculate: what was asked and what came of it (sums over CPUs). */
struct iot_spec_info {
	uint64_t threshold_ns; /* commit when Q2C >= this (or on an error) */
	uint32_t nspec;	       /* speculation buffers */
	uint32_t specsize;     /* bytes per speculation buffer */
	uint64_t committed;    /* bio speculations committed */
	uint64_t discarded;    /* bio speculations discarded */
	uint64_t unavailable;  /* bios not traced: every buffer busy at Q */
	uint64_t drops;	       /* records lost: a buffer full (specsize) */
};

/* --aggregate: one AGG chunk per interval, the histograms' growth in it. */
struct iot_agg_header {
	uint64_t start_ns;   /* interval start, CLOCK_MONOTONIC ns */
	uint64_t end_ns;     /* interval end */
	uint32_t nr_entries; /* struct iot_agg_entry that follow */
	uint32_t lost;	     /* requests found in it issued with no completion seen
				(their slot claimed again, or reaped after a minute):
				not in the histograms;
				0 in files written before it was counted */
};

struct iot_agg_entry {
	uint32_t dev;	/* disk dev_t; 0 for system calls */
	uint8_t op;	/* 0 read, 1 write, 2 other */
	uint8_t metric; /* IOT_AGG_Q2G ... IOT_AGG_SYSCALL + kind */
	uint16_t reserved;
	uint64_t sum; /* of the values: ns, or bytes for IOT_AGG_SIZE */
	uint64_t buckets[IOT_AGG_BUCKETS]; /* log2: [2^k, 2^(k+1)), 0..1 in 0 */
};

/* The sizes docs/FORMAT.md promises. */
_Static_assert(sizeof(struct iot_file_header) == 64, "file header");
_Static_assert(sizeof(struct iot_chunk) == 16, "chunk header");
_Static_assert(sizeof(struct iot_rec) == IOT_REC_SIZE, "event record");
_Static_assert(sizeof(struct iot_summary) == IOT_REC_SIZE, "summary record");
_Static_assert(sizeof(struct iot_dev_entry) == 96, "device entry");
_Static_assert(sizeof(struct iot_task_entry) == 128, "task entry");
_Static_assert(sizeof(struct iot_drop_entry) == 40, "drop entry");
_Static_assert(sizeof(struct iot_cgroup_entry) == 128, "cgroup entry");
_Static_assert(sizeof(struct iot_file_entry) == 256, "file entry");
_Static_assert(sizeof(struct iot_end) == 56, "end record");
_Static_assert(sizeof(struct iot_stop) == 48, "stop record");
_Static_assert(sizeof(struct iot_agg_header) == 24, "agg header");
_Static_assert(sizeof(struct iot_spec_info) == 48, "spec info");
_Static_assert(sizeof(struct iot_agg_entry) == 528, "agg entry");
_Static_assert(__builtin_offsetof(struct iot_summary, type) ==
		   __builtin_offsetof(struct iot_rec, type),
	       "summary and event records share the type offset");

/* whether r is an estimate `iotrail repair` wrote (a REPAIR chunk's): the
 * flag counts only on the types it writes; on others (a system call's
 * enter) those bits are an argument */
static inline int iot_rec_estimated(const struct iot_rec *r)
{
	switch (r->type) {
	case IOT_EV_BIO_QUEUE:
	case IOT_EV_RQ_ISSUE:
	case IOT_EV_RQ_COMPLETE:
	case IOT_EV_BIO_COMPLETE:
	case IOT_EV_SYS_EXIT:
		return (r->flags & IOT_F_ESTIMATED) != 0;
	default:
		return 0;
	}
}

#endif /* IOTRAIL_TRACE_FORMAT_H */
