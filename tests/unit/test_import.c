// SPDX-License-Identifier: GPL-2.0
/* iotrail import blktrace's decoding and linking (src/import/): a split,
 * a back merge and a partial completion, in both byte orders; the ftrace
 * stream; damage. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "import/blktrace.h"
#include "trace/reader.h"

#define R_ (1u << 16)
#define QU (1u << 20)
#define IS (1u << 22)
#define CO (1u << 23)

static size_t put_rec(uint8_t *p, bool be, uint32_t seq, uint64_t t, uint64_t sector,
		      uint32_t bytes, uint32_t action, const void *pdu, uint16_t pdu_len)
{
	uint32_t v32[] = {0x65617407, seq};
	uint64_t v64[] = {t, sector};
	uint32_t w32[] = {bytes, action, 42, 7u << 20, 0};
	uint16_t v16[] = {0, pdu_len};
	size_t o = 0;

#define PUT(x, n)                                                                        \
	do {                                                                             \
		for (int b = 0; b < (n); b++)                                            \
			p[o + b] = (uint8_t)((x) >> (8 * (be ? (n)-1 - b : b)));         \
		o += (n);                                                                \
	} while (0)
	PUT(v32[0], 4);
	PUT(v32[1], 4);
	PUT(v64[0], 8);
	PUT(v64[1], 8);
	for (int i = 0; i < 5; i++)
		PUT(w32[i], 4);
	PUT(v16[0], 2);
	PUT(v16[1], 2);
#undef PUT
	if (pdu_len)
		memcpy(p + o, pdu, pdu_len);
	return o + pdu_len;
}

/* Q 2048+128, X at 2112, G, Q 2176+8 merged at the back, I, D, two
 * partial C of 32 sectors each */
static size_t capture(uint8_t *buf, bool be)
{
	static const uint8_t split[8] = {0, 0, 0, 0, 0, 0, 0x08, 0x40}; /* 2112, BE */
	size_t n = 0;
	uint32_t s = 1;

	n += put_rec(buf + n, be, s++, 1000, 2048, 65536, 1 | R_ | QU, NULL, 0);
	n += put_rec(buf + n, be, s++, 1010, 2048, 32768, 13 | R_, split, 8);
	n += put_rec(buf + n, be, s++, 1020, 2048, 32768, 4 | R_ | QU, NULL, 0);
	n += put_rec(buf + n, be, s++, 1030, 2112, 4096, 1 | R_ | QU, NULL, 0);
	n += put_rec(buf + n, be, s++, 1040, 2112, 4096, 2 | R_ | QU, NULL, 0);
	n += put_rec(buf + n, be, s++, 1050, 2048, 36864, 12 | R_ | QU, NULL, 0);
	n += put_rec(buf + n, be, s += 2, 1060, 2048, 36864, 7 | R_ | IS, NULL, 0);
	n += put_rec(buf + n, be, s++, 2000, 2048, 16384, 8 | R_ | CO, NULL, 0);
	n += put_rec(buf + n, be, s++, 2100, 2080, 20480, 8 | R_ | CO, NULL, 0);
	return n;
}

static void import_buf(const uint8_t *buf, size_t n, const char *out, int want)
{
	char in[] = "/tmp/iotrail-import-unit.XXXXXX";
	int fd = mkstemp(in);
	struct bt_import im;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, n), (ssize_t)n);
	close(fd);
	bt_import_init(&im);
	assert_int_equal(bt_import_file(&im, in), want);
	if (want >= 0)
		assert_int_equal(bt_import_write(&im, out, "unit"), 0);
	bt_import_release(&im);
	unlink(in);
}

static void linked(bool be)
{
	char out[] = "/tmp/iotrail-import-unit-out.XXXXXX", err[256];
	uint8_t buf[4096];
	struct trace_reader rd;
	const struct iot_rec *r, *recs[16];
	int n = 0, fd = mkstemp(out);

	close(fd);
	import_buf(buf, capture(buf, be), out, 0);
	assert_int_equal(trace_reader_open(&rd, out, err, sizeof(err)), 0);
	while (n < 16 && trace_reader_next(&rd, &r) == 1)
		recs[n++] = r;
	assert_int_equal(n, 9);
	/* the split: the front is a new bio, the parent goes on at 2112 */
	assert_int_equal(recs[1]->type, IOT_EV_SPLIT);
	assert_int_equal(recs[1]->id2, 2112);
	assert_true(recs[1]->id != recs[0]->id);
	/* G takes the front; the merged bio is the second Q's */
	assert_int_equal(recs[2]->id, recs[1]->id);
	assert_int_equal(recs[4]->type, IOT_EV_BIO_BACKMERGE);
	assert_int_equal(recs[4]->id, recs[3]->id);
	/* I and D: one request, its head the front bio */
	assert_int_equal(recs[5]->id2, recs[1]->id);
	assert_int_equal(recs[6]->id, recs[5]->id);
	/* two missing sequence numbers before D */
	assert_int_equal(recs[6]->seq, recs[5]->seq + 3);
	/* two partial completions: 72 sectors left, then 40 */
	assert_int_equal(recs[7]->id, recs[5]->id);
	assert_int_equal(recs[8]->id, recs[5]->id);
	assert_int_equal(recs[7]->id2 >> 32, 72);
	assert_int_equal(recs[8]->id2 >> 32, 40);
	assert_int_equal(rd.nr_gaps, 2);
	trace_reader_release(&rd);
	unlink(out);
}

static void little_endian(void **state)
{
	(void)state;
	linked(false);
}

static void big_endian(void **state)
{
	(void)state;
	linked(true);
}

/* a record cut short: what precedes it is kept (1); noise: nothing (-1) */
static void damage(void **state)
{
	char out[] = "/tmp/iotrail-import-unit-out.XXXXXX";
	uint8_t buf[4096];
	size_t n = capture(buf, false);
	int fd = mkstemp(out);

	(void)state;
	close(fd);
	import_buf(buf, n - 10, out, 1);
	memset(buf, 0x5a, 128);
	import_buf(buf, 128, out, -1);
	unlink(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(little_endian),
	    cmocka_unit_test(big_endian),
	    cmocka_unit_test(damage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
