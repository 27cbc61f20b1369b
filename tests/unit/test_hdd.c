// SPDX-License-Identifier: GPL-2.0
/* The rotating disk model on its own (src/diskmodel/hdd.h): sequential
 * reads at its media rate, random reads at a seek plus half a turn, the
 * cache, the seek curve, bad parameters. */
#include <stdlib.h>
#include <string.h>

#include "diskmodel/hdd.h"
#include "helpers.h"

static void disk(struct hdd *d)
{
	struct hdd_params p = HDD_DEFAULTS;
	char err[128];

	p.capacity = 16ull << 30;
	assert_int_equal(hdd_init(d, &p, err, sizeof(err)), 0);
}

/* 128 KiB reads one after the other, each asked for as the one before
 * completes: the media rate, within 10% */
static void sequential_at_media_rate(void **state)
{
	struct hdd d;
	uint64_t t = 1000000, t0, sector = 1 << 20, bytes = 256ull << 20;

	(void)state;
	disk(&d);
	t = t0 = hdd_serve(&d, t, sector, 256, false); /* the first one seeks */
	for (uint64_t done = 0; done < bytes; done += 128 << 10) {
		sector += 256;
		t = hdd_serve(&d, t + 20000, sector, 256, false); /* the host: 20 us */
	}
	{
		double rate = (double)bytes / ((double)(t - t0) / 1e9);

		assert_true(rate > 0.9 * d.p.rate && rate < 1.1 * d.p.rate);
	}
}

/* 4 KiB reads at random over the disk: the average seek plus half a turn,
 * within 10% */
static void random_reads(void **state)
{
	struct hdd d;
	uint64_t t = 1000000, sum = 0, x = 88172645463325252ull, n = 4000;

	(void)state;
	disk(&d);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t s, done;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		s = x % (d.p.capacity / 512 - 8) / 8 * 8;
		done = hdd_serve(&d, t, s, 8, false);
		sum += done - t;
		t = done + 50000;
	}
	{
		double want = (double)d.p.avg_seek_ns + (double)d.rot_ns / 2;
		double mean = (double)sum / (double)n;

		assert_true(mean > 0.9 * want && mean < 1.1 * want);
	}
}

/* what was just read is in the cache: the interface only; a write on the
 * way loses the read-ahead */
static void cache(void **state)
{
	struct hdd d;
	uint64_t t, again;

	(void)state;
	disk(&d);
	t = hdd_serve(&d, 1000000, 4096, 8, false);
	again = hdd_serve(&d, t + 1000, 4096, 8, false);
	assert_int_equal(again - (t + 1000), 8 * 512 * 1000000000ull / d.p.bus_rate);
	t = hdd_serve(&d, again, 1 << 24, 8, true);
	again = hdd_serve(&d, t, 4096, 8, false);
	assert_true(again - t > d.p.track_seek_ns); /* back at the platter */
}

/* no seek on the same track; longer the farther, to the full stroke */
static void seek_curve(void **state)
{
	struct hdd d;

	(void)state;
	disk(&d);
	assert_int_equal(hdd_seek_ns(&d, 0), 0);
	assert_true(hdd_seek_ns(&d, 1) >= d.p.track_seek_ns &&
		    hdd_seek_ns(&d, 1) < d.p.track_seek_ns + 100000);
	assert_true(hdd_seek_ns(&d, 1000) < hdd_seek_ns(&d, 100000));
	assert_int_equal(hdd_seek_ns(&d, d.tracks), d.full_seek_ns);
}

static void bad_parameters(void **state)
{
	struct hdd_params p = HDD_DEFAULTS;
	struct hdd d;
	char err[128];

	(void)state;
	p.capacity = 1 << 30;
	p.rpm = 0;
	assert_int_equal(hdd_init(&d, &p, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "rpm 0"));
	p.rpm = 7200;
	p.track_seek_ns = p.avg_seek_ns + 1;
	assert_int_equal(hdd_init(&d, &p, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "track-to-track"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(sequential_at_media_rate),
	    cmocka_unit_test(random_reads),
	    cmocka_unit_test(cache),
	    cmocka_unit_test(seek_curve),
	    cmocka_unit_test(bad_parameters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
