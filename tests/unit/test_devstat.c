// SPDX-License-Identifier: GPL-2.0
/* iotrail stat's parsing and iostat's arithmetic (src/devstat/). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "helpers.h"
#include "devstat/devstat.h"

static char ds_path[64], up_path[64];

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	snprintf(ds_path, sizeof(ds_path), "/tmp/iotrail-ds-%d", (int)getpid());
	snprintf(up_path, sizeof(up_path), "/tmp/iotrail-up-%d", (int)getpid());
	write_file(up_path, "100.25 180.50\n");
	return 0;
}

static int teardown(void **state)
{
	unlink(ds_path);
	unlink(up_path);
	return 0;
}

static void parses_every_layout(void **state)
{
	struct devstat_sample s = {0};
	const struct devstat_dev *d;
	char err[256];

	/* 6.x (17 counters), 4.18 (15: no flushes), 2.6 (11) */
	write_file(ds_path,
		   "   7       0 loop0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n"
		   " 253       0 vda 10 0 80 5 0 0 0 0 0 5 5 1 0 8 1\n"
		   "   8       0 sda 4 0 32 2 1 0 8 1 0 3 3\n");
	assert_int_equal(devstat_read(&s, ds_path, up_path, err, sizeof(err)), 0);
	assert_int_equal(s.uptime_cs, 10025);
	assert_int_equal(s.nr, 3);
	d = devstat_find(&s, "loop0");
	assert_non_null(d);
	assert_int_equal(d->major, 7);
	assert_int_equal(d->f[DS_RD_IOS], 1);
	assert_int_equal(d->f[DS_FL_TICKS], 17);
	d = devstat_find(&s, "vda");
	assert_int_equal(d->f[DS_DC_SECTORS], 8);
	assert_int_equal(d->f[DS_FL_IOS], 0);
	d = devstat_find(&s, "sda");
	assert_int_equal(d->f[DS_RQ_TICKS], 3);
	assert_int_equal(d->f[DS_DC_IOS], 0);
	assert_null(devstat_find(&s, "sdb"));
	devstat_release(&s);
}

static void names_the_bad_line(void **state)
{
	struct devstat_sample s = {0};
	char err[256];

	write_file(ds_path, "7 0 loop0 1 2\nnonsense\n");
	assert_int_equal(devstat_read(&s, ds_path, up_path, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, ":2:"));
	write_file(ds_path, "7 0 loop0 99999999999999999999999 2\n");
	assert_int_equal(devstat_read(&s, ds_path, up_path, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, ":1: counter 1"));
	write_file(up_path, "garbage\n");
	assert_int_equal(devstat_read(&s, ds_path, up_path, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, up_path));
	devstat_release(&s);
}

static void iostat_arithmetic(void **state)
{
	struct devstat_dev a = {.name = "vda"}, b = {.name = "vda"};
	struct devstat_rates r;

	/* over 2 s (200 cs): 400 reads of 3200 sectors, 100 merged, 800 ms
	 * reading; 100 writes of 1600 sectors, 300 ms; 10 discards of 2048
	 * sectors; 4 flushes taking 8 ms; busy 1500 ms; queue 2400 ms */
	b.f[DS_RD_IOS] = 400, b.f[DS_RD_MERGES] = 100, b.f[DS_RD_SECTORS] = 3200;
	b.f[DS_RD_TICKS] = 800;
	b.f[DS_WR_IOS] = 100, b.f[DS_WR_SECTORS] = 1600, b.f[DS_WR_TICKS] = 300;
	b.f[DS_DC_IOS] = 10, b.f[DS_DC_SECTORS] = 2048;
	b.f[DS_FL_IOS] = 4, b.f[DS_FL_TICKS] = 8;
	b.f[DS_IO_TICKS] = 1500, b.f[DS_RQ_TICKS] = 2400;
	devstat_rates(&a, &b, 200, &r);
	assert_float_equal(r.r_s, 200, 1e-9);
	assert_float_equal(r.rkb_s, 800, 1e-9);
	assert_float_equal(r.rrqm_s, 50, 1e-9);
	assert_float_equal(r.rrqm_pct, 20, 1e-9);
	assert_float_equal(r.r_await, 2, 1e-9);
	assert_float_equal(r.rareq_sz, 4, 1e-9);
	assert_float_equal(r.w_s, 50, 1e-9);
	assert_float_equal(r.w_await, 3, 1e-9);
	assert_float_equal(r.wareq_sz, 8, 1e-9);
	assert_float_equal(r.d_s, 5, 1e-9);
	assert_float_equal(r.dareq_sz, 102.4, 1e-9);
	assert_float_equal(r.f_s, 2, 1e-9);
	assert_float_equal(r.f_await, 2, 1e-9);
	assert_float_equal(r.util, 75, 1e-9);
	assert_float_equal(r.aqu_sz, 1.2, 1e-9);
	assert_float_equal(r.tps, 255, 1e-9);
	assert_int_equal(r.kb_read, 1600);
	assert_int_equal(r.kb_dscd, 1024);
	/* no I/O: averages are 0, not NaN; a counter that went back: 0 */
	a = b;
	a.f[DS_IO_TICKS] = 2000;
	devstat_rates(&a, &b, 100, &r);
	assert_float_equal(r.r_await, 0, 0);
	assert_float_equal(r.rrqm_pct, 0, 0);
	assert_float_equal(r.util, 0, 0);
	/* since boot: prev NULL */
	devstat_rates(NULL, &b, 200, &r);
	assert_float_equal(r.r_s, 200, 1e-9);
}

/* two samples of the trace's counters half a second apart */
static void trace_arithmetic(void **state)
{
	struct devstat_trace a = {0}, b = {0};
	struct devstat_trace_rates r;

	(void)state;
	a.ios[DT_READ] = 100;
	a.busy_ns = 1000000;
	a.inflight = 7;	      /* in flight at the first sample: the peak at least */
	b.ios[DT_READ] = 300; /* 200 reads: 100 us before D, 400 us at D */
	b.g2d_ns[DT_READ] = 200 * 100000ull;
	b.d2c_ns[DT_READ] = 200 * 400000ull;
	b.ios[DT_FLUSH] = 10; /* 10 flushes of 2 ms, all at the driver */
	b.d2c_ns[DT_FLUSH] = 10 * 2000000ull;
	b.busy_ns = a.busy_ns + 250000000; /* busy 250 of the 500 ms */
	b.peak = 5;
	b.missed = 1;
	devstat_trace_rates(&a, &b, 500000000, &r);
	assert_float_equal(r.s[DT_READ], 400, 1e-9);
	assert_float_equal(r.sched[DT_READ], 0.1, 1e-9);
	assert_float_equal(r.dev[DT_READ], 0.4, 1e-9);
	assert_float_equal(r.await[DT_READ], 0.5, 1e-9);
	assert_float_equal(r.s[DT_FLUSH], 20, 1e-9);
	assert_float_equal(r.await[DT_FLUSH], 2, 1e-9);
	assert_float_equal(r.s[DT_WRITE], 0, 0); /* no write: 0, not NaN */
	assert_float_equal(r.await[DT_WRITE], 0, 0);
	/* (200 x 0.5 ms + 10 x 2 ms) / 500 ms; (200 x 0.4 + 20) / 500 */
	assert_float_equal(r.aqu_sz, 0.24, 1e-9);
	assert_float_equal(r.dev_qd, 0.2, 1e-9);
	assert_float_equal(r.util, 50, 1e-9);
	assert_int_equal(r.peak, 7);
	assert_int_equal(r.missed, 1);
	/* since the start (300 reads, the same time), over no time */
	devstat_trace_rates(NULL, &b, 0, &r);
	assert_float_equal(r.aqu_sz, 0, 0);
	assert_float_equal(r.await[DT_READ], 100.0 / 300, 1e-9);
	assert_int_equal(r.peak, 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(parses_every_layout, setup, teardown),
	    cmocka_unit_test_setup_teardown(names_the_bad_line, setup, teardown),
	    cmocka_unit_test(iostat_arithmetic),
	    cmocka_unit_test(trace_arithmetic),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
