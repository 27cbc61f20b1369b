// SPDX-License-Identifier: GPL-2.0
/* Compact records (src/trace/pack.h): every run packs and unpacks to the
 * same bytes; every bad input is refused, at its offset, without reading
 * past the end. */
#include <stdlib.h>

#include "helpers.h"
#include "trace/pack.h"

#define N 3000

static uint64_t rnd64(void)
{
	return (uint64_t)rand() << 62 ^ (uint64_t)rand() << 31 ^ (uint64_t)rand();
}

/* records like a CPU's: mostly small steps, with extremes mixed in */
static void fill(struct iot_rec *r, size_t n)
{
	static const uint64_t edge[] = {0, 1, UINT64_MAX, UINT64_MAX - 1, 1ull << 63};

	memset(r, 0, n * sizeof(*r));
	for (size_t i = 0; i < n; i++) {
		int k = rand() % 10;

		r[i].ts_ns =
		    i ? r[i - 1].ts_ns + (uint64_t)(rand() % 5000) - 100 : rnd64();
		r[i].seq = i ? r[i - 1].seq + 1 + (k == 0) : 7;
		r[i].id =
		    k == 1 ? edge[rand() % 5] : 0xffff888100000000ull + rnd64() % 4096;
		r[i].id2 = k == 2 ? rnd64() : (i ? r[i - 1].id2 : 0);
		r[i].sector = k == 3 ? edge[rand() % 5] : (uint64_t)(rand() % 100000);
		r[i].nr = k == 4 ? UINT32_MAX : 8;
		r[i].dev = 7u << 20 | (unsigned)(rand() % 3);
		r[i].pid = (uint32_t)(1000 + rand() % 3);
		r[i].tid = r[i].pid + (uint32_t)(rand() % 2);
		r[i].type = (uint16_t)(k == 5 ? UINT16_MAX : rand() % 30);
		r[i].cpu = (uint16_t)(k == 6 ? UINT16_MAX : 1);
		r[i].flags = k == 7 ? UINT32_MAX : (uint32_t)(rand() % 4);
	}
}

static void round_trip(void **state)
{
	struct iot_rec *r = malloc(N * sizeof(*r)), *back = malloc(N * sizeof(*back));
	uint8_t *buf = malloc(N * IOT_PACK_MAX);
	size_t len;

	(void)state;
	srand(3);
	fill(r, N);
	len = iot_pack(r, N, buf);
	assert_true(len < N * sizeof(*r) / 2); /* they are small steps */
	assert_int_equal(iot_unpack(buf, len, back, N, NULL), 0);
	assert_memory_equal(r, back, N * sizeof(*r));
	/* any 64 bytes: random garbage as records */
	for (size_t i = 0; i < N; i++)
		for (size_t b = 0; b < sizeof(r[i]); b++)
			((uint8_t *)&r[i])[b] = (uint8_t)rand();
	len = iot_pack(r, N, buf);
	assert_true(len <= N * IOT_PACK_MAX);
	assert_int_equal(iot_unpack(buf, len, back, N, NULL), 0);
	assert_memory_equal(r, back, N * sizeof(*r));
	/* numbers of every length, 1 to 10 bytes, at each length's bounds
	 * (the decoder takes 2 to 8 bytes in one load) */
	memset(r, 0, N * sizeof(*r));
	for (size_t i = 0; i < 64 * 3; i++) {
		uint64_t v = (1ull << (i / 3)) - 1 + i % 3;

		r[i].seq = i;
		r[i].id = v;
		r[i].nr = (uint32_t)v;
		r[i].ts_ns = i & 1 ? v : ~v; /* differences both ways */
	}
	len = iot_pack(r, 64 * 3, buf);
	assert_int_equal(iot_unpack(buf, len, back, 64 * 3, NULL), 0);
	assert_memory_equal(r, back, 64 * 3 * sizeof(*r));
	/* nothing */
	assert_int_equal(iot_pack(r, 0, buf), 0);
	assert_int_equal(iot_unpack(buf, 0, back, 0, NULL), 0);
	free(r);
	free(back);
	free(buf);
}

/* the worst case fits IOT_PACK_MAX */
static void worst(void **state)
{
	struct iot_rec r[2];
	uint8_t buf[2 * IOT_PACK_MAX];

	(void)state;
	memset(&r[0], 0, sizeof(r[0]));
	memset(&r[1], 0xff, sizeof(r[1]));
	r[1].seq = 1ull << 63; /* the largest difference from 0 + 1 */
	r[1].ts_ns = r[1].id = r[1].id2 = r[1].sector = 1ull << 63;
	assert_true(iot_pack(r, 2, buf) <= 2 * IOT_PACK_MAX);
	assert_true(iot_pack(&r[1], 1, buf) <= IOT_PACK_MAX);
}

/* The first record of the n bytes at b with room after them (zeros): the
 * decoder's path that checks no bound within a record. 1 or 0 (bad). */
static size_t far(const uint8_t *b, size_t n, struct iot_rec *out)
{
	uint8_t room[2 + 10 * 12 + 64] = {0};
	size_t used;

	assert_true(n <= sizeof(room));
	memcpy(room, b, n);
	return iot_unpack_some(room, sizeof(room), out, 1, &used);
}

static void bad(void **state)
{
	struct iot_rec r[4], back[4];
	uint8_t buf[4 * IOT_PACK_MAX + 8];
	size_t len, at;

	(void)state;
	srand(5);
	fill(r, 4);
	len = iot_pack(r, 4, buf);
	/* every cut short: refused, the fault at or before the cut */
	for (size_t cut = 0; cut < len; cut++) {
		at = SIZE_MAX;
		assert_int_equal(iot_unpack(buf, cut, back, 4, &at), -EINVAL);
		assert_true(at <= cut);
	}
	/* bytes left over */
	buf[len] = 0;
	assert_int_equal(iot_unpack(buf, len + 1, back, 4, &at), -EINVAL);
	assert_int_equal(at, len);
	/* a mask bit no field has */
	buf[0] = 0;
	buf[1] = 0x10;
	assert_int_equal(iot_unpack(buf, 2, back, 1, &at), -EINVAL);
	assert_int_equal(at, 0);
	/* a number of 11 bytes */
	buf[0] = 1; /* ts */
	buf[1] = 0;
	memset(buf + 2, 0x80, 10);
	buf[12] = 0;
	assert_int_equal(iot_unpack(buf, 13, back, 1, &at), -EINVAL);
	assert_int_equal(far(buf, 13, back), 0);
	/* 64 bits and more in the tenth byte */
	memset(buf + 2, 0xff, 9);
	buf[11] = 2;
	assert_int_equal(iot_unpack(buf, 12, back, 1, &at), -EINVAL);
	assert_int_equal(far(buf, 12, back), 0);
	/* the longest number there is: 64 bits, the tenth byte 1 */
	buf[11] = 1;
	assert_int_equal(iot_unpack(buf, 12, back, 1, &at), 0);
	assert_int_equal(back[0].ts_ns, 1ull << 63); /* zigzag of 2^64 - 1 */
	memset(back, 0, sizeof(back[0]));
	assert_int_equal(far(buf, 12, back), 1);
	assert_int_equal(back[0].ts_ns, 1ull << 63);
	/* every field in ten bytes (zeros written long): 122 bytes, past
	 * the longest record packed, and still the record of zeros */
	{
		uint8_t z[2 + 10 * 12];

		z[0] = 0xff;
		z[1] = 0x0f;
		for (int f = 0; f < 12; f++) {
			memset(z + 2 + 10 * f, 0x80, 9);
			z[2 + 10 * f + 9] = 0;
		}
		assert_int_equal(iot_unpack(z, sizeof(z), back, 1, &at), 0);
		assert_int_equal(back[0].ts_ns, 0);
		assert_int_equal(back[0].seq, 0);
		assert_int_equal(back[0].flags, 0);
		assert_int_equal(far(z, sizeof(z), back), 1);
		assert_int_equal(back[0].tid, 0);
		/* cut anywhere: refused, no byte past the cut read (in a
		 * buffer of just those bytes, for AddressSanitizer) */
		for (size_t cut = 0; cut < sizeof(z); cut++) {
			uint8_t *c = malloc(cut ?: 1);

			assert_non_null(c);
			memcpy(c, z, cut);
			assert_int_equal(iot_unpack(c, cut, back, 1, &at), -EINVAL);
			free(c);
		}
	}
	/* a type past 16 bits */
	buf[0] = 0;
	buf[1] = 1u << (9 - 8); /* PF_TYPE */
	buf[2] = 0x80;
	buf[3] = 0x80;
	buf[4] = 0x04; /* 65536 */
	assert_int_equal(iot_unpack(buf, 5, back, 1, &at), -EINVAL);
	assert_int_equal(far(buf, 5, back), 0);
	buf[4] = 0x03; /* 49152: fits */
	assert_int_equal(iot_unpack(buf, 5, back, 1, &at), 0);
	assert_int_equal(back[0].type, 49152);
	assert_int_equal(far(buf, 5, back), 1);
	assert_int_equal(back[0].type, 49152);
}

/* A run packed in parts is the run packed at once; a run cut anywhere
 * gives back its whole records before the cut, and no more. */
static void parts_and_prefix(void **state)
{
	struct iot_rec r[64], back[64];
	uint8_t one[64 * IOT_PACK_MAX], two[64 * IOT_PACK_MAX];
	struct iot_packer st;
	size_t len, len2, ends[65];

	(void)state;
	srand(7);
	fill(r, 64);
	len = iot_pack(r, 64, one);
	for (size_t split = 0; split <= 64; split += 7) {
		iot_pack_begin(&st);
		len2 = iot_pack_more(&st, r, split, two);
		len2 += iot_pack_more(&st, r + split, 64 - split, two + len2);
		assert_int_equal(len2, len);
		assert_memory_equal(one, two, len);
	}
	/* where each record ends: the packed lengths of the prefixes */
	for (size_t i = 0; i <= 64; i++)
		ends[i] = iot_pack(r, i, two);
	for (size_t cut = 0; cut <= len; cut++) {
		size_t used, want = 0, got;

		while (want < 64 && ends[want + 1] <= cut)
			want++;
		got = iot_unpack_some(one, cut, back, 64, &used);
		assert_int_equal(got, want);
		assert_int_equal(used, ends[want]);
		assert_memory_equal(back, r, want * sizeof(r[0]));
	}
	/* at most n, even with bytes for more */
	assert_int_equal(iot_unpack_some(one, len, back, 10, &len2), 10);
	assert_int_equal(len2, ends[10]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(round_trip),
	    cmocka_unit_test(worst),
	    cmocka_unit_test(bad),
	    cmocka_unit_test(parts_and_prefix),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
