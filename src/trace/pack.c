// SPDX-License-Identifier: GPL-2.0
/* Compact records: packing and unpacking (pack.h). */
#include "pack.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

/* the fields, in the order their mask bits and bytes come */
enum {
	PF_TS,
	PF_SEQ,
	PF_ID,
	PF_ID2,
	PF_SECTOR, /* the 64-bit ones: differences */
	PF_NR,
	PF_DEV,
	PF_PID,
	PF_TID,
	PF_TYPE,
	PF_CPU,
	PF_FLAGS, /* the others: values */
	NR_PF
};
#define NR_PF64 5
_Static_assert(sizeof(((struct iot_packer *)0)->p64) == NR_PF64 * 8 &&
		   sizeof(((struct iot_packer *)0)->p32) == (NR_PF - NR_PF64) * 4,
	       "struct iot_packer holds every field");

static void get64(const struct iot_rec *r, uint64_t v[NR_PF64])
{
	v[PF_TS] = r->ts_ns;
	v[PF_SEQ] = r->seq;
	v[PF_ID] = r->id;
	v[PF_ID2] = r->id2;
	v[PF_SECTOR] = r->sector;
}

static void get32(const struct iot_rec *r, uint32_t v[NR_PF - NR_PF64])
{
	v[PF_NR - NR_PF64] = r->nr;
	v[PF_DEV - NR_PF64] = r->dev;
	v[PF_PID - NR_PF64] = r->pid;
	v[PF_TID - NR_PF64] = r->tid;
	v[PF_TYPE - NR_PF64] = r->type;
	v[PF_CPU - NR_PF64] = r->cpu;
	v[PF_FLAGS - NR_PF64] = r->flags;
}

static uint8_t *put_leb(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* a difference as zigzag: small either way is small */
static uint64_t zig(uint64_t d)
{
	return (d << 1) ^ (d >> 63 ? UINT64_MAX : 0);
}

static uint64_t unzig(uint64_t z)
{
	return (z >> 1) ^ (uint64_t) - (int64_t)(z & 1);
}

void iot_pack_begin(struct iot_packer *st)
{
	memset(st, 0, sizeof(*st));
	st->p64[PF_SEQ] = UINT64_MAX; /* the first record's seq + 1 is seq 0 */
}

size_t iot_pack_more(struct iot_packer *st, const struct iot_rec *r, size_t n,
		     uint8_t *out)
{
	uint64_t v64[NR_PF64];
	uint32_t v32[NR_PF - NR_PF64];
	uint8_t *p = out;

	for (size_t i = 0; i < n; i++) {
		uint8_t *m = p;
		unsigned int mask = 0;

		get64(&r[i], v64);
		get32(&r[i], v32);
		p += 2;
		for (int k = 0; k < NR_PF64; k++) {
			uint64_t want = k == PF_SEQ ? st->p64[k] + 1 : st->p64[k];

			if (v64[k] != want) {
				mask |= 1u << k;
				p = put_leb(p, zig(v64[k] - want));
			}
			st->p64[k] = v64[k];
		}
		for (int k = 0; k < NR_PF - NR_PF64; k++) {
			if (v32[k] != st->p32[k]) {
				mask |= 1u << (k + NR_PF64);
				p = put_leb(p, v32[k]);
			}
			st->p32[k] = v32[k];
		}
		m[0] = (uint8_t)mask;
		m[1] = (uint8_t)(mask >> 8);
	}
	return (size_t)(p - out);
}

size_t iot_pack(const struct iot_rec *r, size_t n, uint8_t *out)
{
	struct iot_packer st;

	iot_pack_begin(&st);
	return iot_pack_more(&st, r, n, out);
}

/* One LEB128 number at *pp, with at least ten bytes (the longest number)
 * left: no bound to check. 0, or -EINVAL. Inlined: it is the reader's
 * inner loop on a packed trace. */
static inline __attribute__((always_inline)) int get_leb_far(const uint8_t **pp,
							     uint64_t *v)
{
	const uint8_t *p = *pp;
	uint64_t x, b = *p++;

	if (b < 0x80) { /* most numbers: one byte */
		*v = b;
		*pp = p;
		return 0;
	}
	x = b & 0x7f;
	for (int shift = 7; shift < 63; shift += 7) {
		b = *p++;
		x |= (b & 0x7f) << shift;
		if (b < 0x80) {
			*v = x;
			*pp = p;
			return 0;
		}
	}
	b = *p++;
	if (b > 1)
		return -EINVAL; /* more than 64 bits */
	*v = x | b << 63;
	*pp = p;
	return 0;
}

/* The same, before end: each byte checked against it when fewer than ten
 * are left. */
static inline __attribute__((always_inline)) int get_leb(const uint8_t **pp,
							 const uint8_t *end, uint64_t *v)
{
	const uint8_t *p = *pp;
	uint64_t x = 0, b;

	if (end - p >= 10)
		return get_leb_far(pp, v);
	for (int shift = 0; shift < 64; shift += 7) {
		if (p >= end)
			return -EINVAL;
		b = *p++;
		if (shift == 63 && b > 1)
			return -EINVAL; /* more than 64 bits */
		x |= (b & 0x7f) << shift;
		if (b < 0x80) {
			*v = x;
			*pp = p;
			return 0;
		}
	}
	return -EINVAL;
}

_Static_assert(sizeof(((struct iot_unpacker *)0)->v64) == NR_PF64 * 8 &&
		   sizeof(((struct iot_unpacker *)0)->v32) == (NR_PF - NR_PF64) * 8,
	       "struct iot_unpacker holds every field");

void iot_unpack_begin(struct iot_unpacker *u)
{
	memset(u, 0, sizeof(*u));
	u->v64[PF_SEQ] = UINT64_MAX; /* the first record's seq + 1 is seq 0 */
}

/* The decoder, inlined in both callers: the state in locals (registers)
 * while it runs, from and back to u */
static inline __attribute__((always_inline)) size_t
unpack_run(struct iot_unpacker *u, const uint8_t *in, size_t len, struct iot_rec *out,
	   size_t n, size_t *used)
{
	static const uint64_t max32[NR_PF - NR_PF64] = {
	    UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX,
	    UINT16_MAX, UINT16_MAX, UINT32_MAX};
	uint64_t v64[NR_PF64], v32[NR_PF - NR_PF64];
	const uint8_t *p = in, *end = in + len, *at = in;
	size_t i;

	memcpy(v64, u->v64, sizeof(v64));
	memcpy(v32, u->v32, sizeof(v32));
	for (i = 0; i < n; i++) {
		unsigned int mask;
		struct iot_rec *r;
		uint64_t z = 0; /* set by every GET that succeeds */
		/* the longest record iot_pack writes is IOT_PACK_MAX, but a
		 * number may take ten bytes in any field (zero bytes with the
		 * high bit set before its last): with room for twelve of
		 * those, no field's bytes need a bound (nearly every record) */
		bool far = end - p >= 2 + 10 * NR_PF;

		at = p; /* where this record starts: the state past a fault
			   does not matter, nothing after it is decoded */
		if (end - p < 2)
			break;
		mask = p[0] | (unsigned int)p[1] << 8;
		if (mask >> NR_PF)
			break; /* a bit no field has */
		p += 2;
		v64[PF_SEQ]++;
		/* field by field, unrolled: each value stays in a register,
		 * and each test is the mask's own bit (a loop over the set
		 * bits mispredicted its end nearly every record); a fault
		 * breaks out of the loop, this record unread (at) */
#define GET(z) (far ? get_leb_far(&p, &(z)) : get_leb(&p, end, &(z)))
#define FIELD64(k)                                                                       \
	if (mask & (1u << (k))) {                                                        \
		if (GET(z))                                                              \
			break;                                                           \
		v64[k] += unzig(z);                                                      \
	}
#define FIELD32(k)                                                                       \
	if (mask & (1u << (k))) {                                                        \
		if (GET(z) || z > max32[(k)-NR_PF64])                                    \
			break;                                                           \
		v32[(k)-NR_PF64] = z;                                                    \
	}
		FIELD64(PF_TS)
		FIELD64(PF_SEQ)
		FIELD64(PF_ID)
		FIELD64(PF_ID2)
		FIELD64(PF_SECTOR)
		FIELD32(PF_NR)
		FIELD32(PF_DEV)
		FIELD32(PF_PID)
		FIELD32(PF_TID)
		FIELD32(PF_TYPE)
		FIELD32(PF_CPU)
		FIELD32(PF_FLAGS)
#undef FIELD32
#undef FIELD64
#undef GET
		if (!out)
			continue; /* checked, not kept */
		r = &out[i];
		r->ts_ns = v64[PF_TS];
		r->seq = v64[PF_SEQ];
		r->id = v64[PF_ID];
		r->id2 = v64[PF_ID2];
		r->sector = v64[PF_SECTOR];
		r->nr = (uint32_t)v32[PF_NR - NR_PF64];
		r->dev = (uint32_t)v32[PF_DEV - NR_PF64];
		r->pid = (uint32_t)v32[PF_PID - NR_PF64];
		r->tid = (uint32_t)v32[PF_TID - NR_PF64];
		r->type = (uint16_t)v32[PF_TYPE - NR_PF64];
		r->cpu = (uint16_t)v32[PF_CPU - NR_PF64];
		r->flags = (uint32_t)v32[PF_FLAGS - NR_PF64];
	}
	*used = (size_t)((i < n ? at : p) - in);
	memcpy(u->v64, v64, sizeof(v64));
	memcpy(u->v32, v32, sizeof(v32));
	return i;
}

size_t iot_unpack_some(const uint8_t *in, size_t len, struct iot_rec *out, size_t n,
		       size_t *used)
{
	struct iot_unpacker u;

	iot_unpack_begin(&u);
	return unpack_run(&u, in, len, out, n, used);
}

size_t iot_unpack_more(struct iot_unpacker *u, const uint8_t *in, size_t len,
		       struct iot_rec *out, size_t n, size_t *used)
{
	return unpack_run(u, in, len, out, n, used);
}

int iot_unpack(const uint8_t *in, size_t len, struct iot_rec *out, size_t n, size_t *bad)
{
	size_t used, got = iot_unpack_some(in, len, out, n, &used);

	if (got == n && used == len)
		return 0;
	if (bad) /* where the record that did not decode starts, or the rest */
		*bad = used;
	return -EINVAL;
}
