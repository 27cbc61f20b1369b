/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The user markers' shared memory (include/iotrail/marker.h): one file per
 * process, $IOTRAIL_MARKERS/PID.mk, made by the process's first mark and
 * read by the recorder at every drain. A ring of fixed slots: a writer
 * reserves one by advancing head (never past tail + nr_slots: a full ring
 * drops and counts), fills it and commits it by writing seq = index + 1
 * last; the recorder takes committed slots from tail on and advances tail.
 */
#ifndef IOTRAIL_MARKER_ABI_H
#define IOTRAIL_MARKER_ABI_H

#include <stdint.h>

#define IOT_MARK_MAGIC	 0x31765f4b52414d54ull /* "TMARK_v1" */
#define IOT_MARK_SLOTS	 16384u		       /* 896 KiB of 56-byte slots */
#define IOT_MARK_NAMELEN 16

enum iot_mark_kind { IOT_MARK_POINT = 0, IOT_MARK_BEGIN = 1, IOT_MARK_END = 2 };

struct iot_mark_hdr {
	uint64_t magic; /* written last by the creator */
	uint32_t nr_slots, slot_size;
	uint32_t pid, pad0;
	uint64_t head;	  /* next index to reserve (writers) */
	uint64_t tail;	  /* first index not yet read (the recorder) */
	uint64_t dropped; /* marks that found the ring full */
	uint64_t pad1[2];
};

struct iot_mark_slot {
	uint64_t ts_ns; /* CLOCK_MONOTONIC: the trace's clock */
	uint64_t id;
	uint32_t tid;
	uint32_t kind;		     /* enum iot_mark_kind */
	char name[IOT_MARK_NAMELEN]; /* not NUL-terminated when full */
	uint64_t seq;		     /* index + 1 when committed */
	uint64_t pad;
};

#endif
