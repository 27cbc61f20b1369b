// SPDX-License-Identifier: GPL-2.0
/* iotrail export's writers (src/export/, src/render/rows.c): Chrome's
 * lanes, CTF's packets, the rows' arithmetic. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export/export.h"
#include "helpers.h"

static const char *name_dev(void *ctx, uint32_t dev)
{
	return "loop0";
}

static struct join_request req(uint64_t q, uint64_t d, uint64_t c)
{
	struct join_request r = {0};

	r.rq = 0xffff1000;
	r.dev = 7u << 20;
	r.sector = 2048;
	r.nr_sectors = 8;
	r.q_ns = q;
	r.g_ns = q + 10;
	r.i_ns = q + 20;
	r.d_ns = d;
	r.c_ns = c;
	r.nr_bios = 1;
	return r;
}

/* the tid of the request slice (cat) that starts at ts_us */
static int tid_at(json_t *ev, const char *cat, double ts_us)
{
	size_t i;
	json_t *e;

	json_array_foreach(ev, i, e)
	{
		json_t *c = json_object_get(e, "cat");

		if (c && !strcmp(json_string_value(c), cat) &&
		    json_number_value(json_object_get(e, "ts")) == ts_us)
			return (int)json_integer_value(json_object_get(e, "tid"));
	}
	return -1;
}

/* completion order: A [100, 1000], B [200, 1500], C [1100, 2000]: A takes
 * lane 1, B lane 2 (A is still there at 200), C lane 1 again (A ended at
 * 1000); at the device (A from 500, B from 300) A, completed first,
 * takes the first lane, B the second, and C the first again */
static void chrome_lanes(void **state)
{
	struct row_names nm = {0, name_dev, NULL, NULL, NULL};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct chrome c;
	struct join_request a = req(100000, 500000, 1000000);
	struct join_request b = req(200000, 300000, 1500000);
	struct join_request d = req(1100000, 1200000, 2000000);
	json_error_t err;
	json_t *root, *ev;

	(void)state;
	assert_int_equal(chrome_open(&c, f, &nm, NULL), 0);
	assert_int_equal(chrome_request(&c, &a), 0);
	assert_int_equal(chrome_request(&c, &b), 0);
	assert_int_equal(chrome_request(&c, &d), 0);
	chrome_close(&c, "unit");
	fclose(f);
	root = json_loads(buf, 0, &err);
	assert_non_null(root);
	ev = json_object_get(root, "traceEvents");
	assert_int_equal(tid_at(ev, "request", 100.0), 1);
	assert_int_equal(tid_at(ev, "request", 200.0), 2);
	assert_int_equal(tid_at(ev, "request", 1100.0), 1);
	assert_int_equal(tid_at(ev, "device", 500.0), 100000);
	assert_int_equal(tid_at(ev, "device", 300.0), 100001);
	assert_int_equal(tid_at(ev, "device", 1200.0), 100000);
	/* Q2G of A: 10 ns, at the nanosecond */
	{
		size_t i;
		json_t *e;
		int found = 0;

		json_array_foreach(ev, i, e)
		{
			const char *n = json_string_value(json_object_get(e, "name"));

			if (n && !strcmp(n, "Q2G") &&
			    json_number_value(json_object_get(e, "ts")) == 100.0) {
				assert_true(
				    json_number_value(json_object_get(e, "dur")) == 0.01);
				found++;
			}
		}
		assert_int_equal(found, 1);
	}
	json_decref(root);
	free(buf);
}

static uint64_t le(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* 5000 block events on CPU 0 (more than one 64 KiB packet), 7 records
 * lost before event 3000: the packets' sizes, times and losses */
static void ctf_packets(void **state)
{
	char dir[] = "/tmp/iotrail-ctf-unit.XXXXXX", path[64];
	struct ctf c;
	struct iot_rec r = {0};
	uint8_t *buf;
	long size;
	FILE *f;
	uint64_t off = 0, events_bits = 0, packets = 0, prev_end = 0, lost_at = 0;

	(void)state;
	assert_non_null(mkdtemp(dir));
	rmdir(dir); /* ctf_open makes it */
	assert_int_equal(
	    ctf_open(&c, dir, 2, 5000000000ull, 1000000000ull, "unit", "h", "k"), 0);
	for (int i = 0; i < 5000; i++) {
		r.type = IOT_EV_RQ_ISSUE;
		r.ts_ns = 1000000000ull + (uint64_t)i * 1000;
		r.cpu = 0;
		r.sector = (uint64_t)i * 8;
		r.nr = 8;
		r.id = 0xffff0000 + (uint64_t)i;
		if (i == 3000)
			assert_int_equal(ctf_discarded(&c, 0, 7), 0);
		assert_int_equal(ctf_event(&c, &r, "dd", "loop0"), 0);
	}
	assert_int_equal(ctf_close(&c, true), 0);

	snprintf(path, sizeof(path), "%s/stream_0", dir);
	f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	buf = malloc((size_t)size);
	assert_int_equal(fread(buf, 1, (size_t)size, f), (size_t)size);
	fclose(f);
	while (off < (uint64_t)size) {
		const uint8_t *p = buf + off;
		uint64_t content = le(p + 40, 8), psize = le(p + 48, 8);

		assert_int_equal(le(p, 4), 0xC1FC1FC1u);
		assert_true(psize <= 65536 * 8 && content <= psize && content % 8 == 0);
		assert_true(le(p + 24, 8) >= prev_end && le(p + 32, 8) >= le(p + 24, 8));
		if (le(p + 56, 8) == 7 && !lost_at)
			lost_at = le(p + 24, 8); /* the first packet after the loss */
		assert_int_equal(le(p + 64, 4), 0);
		prev_end = le(p + 32, 8);
		events_bits += content - 68 * 8;
		off += psize / 8;
		packets++;
	}
	assert_int_equal(off, (uint64_t)size);
	assert_true(packets >= 3);
	/* the loss is at the packet that starts with event 3000 */
	assert_int_equal(lost_at, 1000000000ull + 3000ull * 1000);
	/* each event: header 10, tid 4, pid 4, "dd\0", dev 4, "loop0\0",
	 * "R\0", sector 8, nr 4, flags 4, id 8, id2 8 */
	assert_int_equal(events_bits / 8,
			 5000ull * (10 + 8 + 3 + 4 + 6 + 2 + 8 + 4 + 4 + 8 + 8));
	free(buf);
	unlink(path);
	snprintf(path, sizeof(path), "%s/metadata", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	{
		char text[16384];
		size_t n = fread(text, 1, sizeof(text) - 1, f);

		text[n] = 0;
		assert_non_null(strstr(text, "/* CTF 1.8 */"));
		/* realtime - monotonic = 4 s */
		assert_non_null(strstr(text, "offset_s = 4;"));
		assert_non_null(strstr(text, "name = \"block_rq_issue\";"));
	}
	fclose(f);
	unlink(path);
	assert_int_equal(rmdir(dir), 0); /* nothing else was written */
}

/* a directory that holds a CTF trace is refused and left as it was */
static void ctf_refuses_a_trace(void **state)
{
	char dir[] = "/tmp/iotrail-ctf-unit.XXXXXX", path[64];
	struct ctf c;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/metadata", dir);
	f = fopen(path, "w");
	fputs("keep", f);
	fclose(f);
	assert_int_equal(ctf_open(&c, dir, 1, 0, 0, "u", "h", "k"), -1);
	assert_non_null(strstr(c.err, dir));
	ctf_close(&c, false);
	f = fopen(path, "r");
	assert_non_null(f);
	fclose(f);
	unlink(path);
	assert_int_equal(rmdir(dir), 0);
}

/* stage lengths: empty where an end is missing; times to the ns */
static void request_rows(void **state)
{
	struct row_names nm = {1000, name_dev, NULL, NULL, NULL};
	struct join_request r = req(2000, 5000, 9000);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	r.i_ns = 0; /* no scheduler */
	render_request_csv(f, &r, &nm);
	fclose(f);
	assert_string_equal(buf,
			    "0.000008000,loop0,R,2048,8,0,0,,2000,2010,0,5000,9000,1,0,0,"
			    "7340032,0xffff1000,10,,,4000,7000,0,,,,,0,0\n");
	free(buf);
}

static void scaled(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json_writer w;

	(void)state;
	jw_init(&w, f, false);
	jw_start_array(&w);
	jw_scaled(&w, 1234567, 3);
	jw_scaled(&w, 5, 3);
	jw_scaled(&w, 42, 0);
	jw_end_array(&w);
	fclose(f);
	assert_string_equal(buf, "[1234.567,0.005,42]");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(chrome_lanes),
	    cmocka_unit_test(ctf_packets),
	    cmocka_unit_test(ctf_refuses_a_trace),
	    cmocka_unit_test(request_rows),
	    cmocka_unit_test(scaled),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
