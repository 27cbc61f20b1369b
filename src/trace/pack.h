/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Compact records (issue "Big machines"): a run of struct iot_rec of one
 * stream packed field by field against the record before it, and unpacked
 * back to the same bytes. Per record:
 *
 *   u16 mask    little-endian, bit k: field k differs from the record
 *               before (the first record of a run: from all zeros; seq:
 *               from the record before's seq + 1)
 *   fields      those whose bit is set, in the order of enum below: the
 *               64-bit ones (ts, seq, id, id2, sector) as the zigzag LEB128
 *               of their difference from the record before's, the others
 *               as the LEB128 of their value
 *
 * Lossless for any 64 bytes (a --summary record included), at most
 * IOT_PACK_MAX bytes per record. `record --pack` and `iotrail pack` write
 * EVENTS_PACKED chunks with it (docs/FORMAT.md); bench/packsize measures
 * what it saves on a trace.
 */
#ifndef IOTRAIL_TRACE_PACK_H
#define IOTRAIL_TRACE_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "../bpf/events.h"

/* 2 bytes of mask, 5 fields of at most 10 bytes, 7 of at most 5 */
#define IOT_PACK_MAX 87u

/* The record before, for a run packed in several calls. */
struct iot_packer {
	uint64_t p64[5];
	uint32_t p32[7];
};

/* Packs n records into out (room for n * IOT_PACK_MAX bytes); returns the
 * bytes written. */
size_t iot_pack(const struct iot_rec *r, size_t n, uint8_t *out);
/* The same, as one run over several calls: begin, then more for each part. */
void iot_pack_begin(struct iot_packer *st);
size_t iot_pack_more(struct iot_packer *st, const struct iot_rec *r, size_t n,
		     uint8_t *out);

/* Unpacks n records from the len bytes at in. 0, or -EINVAL when the bytes
 * end early, a number runs past its 10 bytes or past the end, a value does
 * not fit its field, or bytes are left over (the offset of the fault in
 * *bad when bad is not NULL). */
int iot_unpack(const uint8_t *in, size_t len, struct iot_rec *out, size_t n, size_t *bad);
/* Unpacks the whole records at the front of in, at most n: returns how many,
 * and in *used the bytes they took (a record cut short or malformed, and
 * what follows it, are left). With out NULL, only checks them. */
size_t iot_unpack_some(const uint8_t *in, size_t len, struct iot_rec *out, size_t n,
		       size_t *used);

/* The record before, for a run unpacked a few records at a time (the
 * merge's, which would otherwise hold every chunk of a round unpacked
 * whole): begin, then more, each call going on from the last one's
 * record; iot_unpack_more() as iot_unpack_some() from there. */
struct iot_unpacker {
	uint64_t v64[5], v32[7];
};
void iot_unpack_begin(struct iot_unpacker *u);
size_t iot_unpack_more(struct iot_unpacker *u, const uint8_t *in, size_t len,
		       struct iot_rec *out, size_t n, size_t *used);

#endif
