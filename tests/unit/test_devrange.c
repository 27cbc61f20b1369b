// SPDX-License-Identifier: GPL-2.0
/* -d's ranges: merged in user space (devrange_merge), searched by the
 * programs (bpf/devfilter.h: the same header is compiled here). */
#include "helpers.h"

#include <stdlib.h>

#include "bpf/devfilter.h"
#include "record/devices.h"

#define SDA  KDEV(8, 0)
#define SDB  KDEV(8, 16)
#define LOOP KDEV(7, 3)
#define ALL  UINT64_MAX

static struct dev_range rng(uint32_t dev, uint64_t start, uint64_t end)
{
	return (struct dev_range){.dev = dev, .start = start, .end = end};
}

/* the merged ranges, split into the programs' three arrays */
struct filter {
	__u32 dev[IOT_MAX_FILTER_DEVS];
	__u64 start[IOT_MAX_FILTER_DEVS], end[IOT_MAX_FILTER_DEVS];
	__u32 n;
};

static void load(struct filter *f, struct dev_range *r, size_t n)
{
	f->n = (__u32)devrange_merge(r, n);
	for (__u32 i = 0; i < f->n; i++) {
		f->dev[i] = r[i].dev;
		f->start[i] = r[i].start;
		f->end[i] = r[i].end;
	}
}

static int has(const struct filter *f, uint32_t dev, uint64_t sector)
{
	return iot_devfilter_has(f->dev, f->start, f->end, f->n, dev, sector);
}

static void merge(void **state)
{
	struct dev_range r[] = {
	    rng(SDB, 2048, 4096),   /* sdb1 */
	    rng(SDA, 100, 200),	    /* a partition inside sda, given below */
	    rng(LOOP, 0, ALL),	    /* a whole disk */
	    rng(SDB, 10000, 20000), /* sdb3: a gap after sdb1 */
	    rng(SDB, 2048, 4096),   /* sdb1 twice */
	    rng(SDA, 0, ALL),	    /* sda whole */
	    rng(SDB, 4096, 6000),   /* sdb2 touches sdb1 */
	};
	size_t n = devrange_merge(r, sizeof(r) / sizeof(r[0]));

	(void)state;
	assert_int_equal(n, 4);
	assert_int_equal(r[0].dev, LOOP);
	assert_true(r[0].start == 0 && r[0].end == ALL);
	assert_int_equal(r[1].dev, SDA);
	assert_true(r[1].start == 0 && r[1].end == ALL);
	assert_int_equal(r[2].dev, SDB);
	assert_true(r[2].start == 2048 && r[2].end == 6000);
	assert_int_equal(r[3].dev, SDB);
	assert_true(r[3].start == 10000 && r[3].end == 20000);
	assert_int_equal(devrange_merge(r, 0), 0);
}

/* n ranges: 3 that the checks ask about, and disks that sort before
 * and after them, for a scan (n up to IOT_FILTER_SCAN) or a search */
static void search_n(size_t n)
{
	struct dev_range r[] = {rng(SDB, 2048, 4096),	 rng(SDB, 10000, 20000),
				rng(LOOP, 0, ALL),	 rng(KDEV(1, 0), 0, ALL),
				rng(KDEV(300, 0), 0, 8), rng(KDEV(2, 5), 7, 9)};
	static struct filter f;

	load(&f, r, n);
	assert_true(has(&f, LOOP, 0));
	assert_true(has(&f, LOOP, 123456789));
	assert_true(has(&f, SDB, 2048));
	assert_true(has(&f, SDB, 4095));
	assert_false(has(&f, SDB, 4096)); /* end is not in */
	assert_false(has(&f, SDB, 2047));
	assert_false(has(&f, SDB, 0));
	assert_true(has(&f, SDB, 10000));
	assert_false(has(&f, SDB, 20000));
	assert_false(has(&f, SDB, 9999));
	/* a flush without a sector passes on a disk with any range */
	assert_true(has(&f, SDB, ~0ull));
	assert_false(has(&f, SDA, ~0ull));
	assert_false(has(&f, SDA, 0));
	assert_false(has(&f, KDEV(7, 2), 0)); /* before the first disk */
	assert_false(has(&f, KDEV(259, 0), 0));
	assert_false(has(&f, KDEV(400, 0), 0)); /* after the last */
	f.n = 0; /* nothing selected: nothing found (dev_wanted passes all) */
	assert_false(has(&f, LOOP, 0));
}

static void search(void **state)
{
	(void)state;
	search_n(3); /* scanned */
	search_n(6); /* searched */
	assert_true(6 > IOT_FILTER_SCAN);
}

/* The most ranges: each found, the gaps between them not, in at most
 * IOT_FILTER_STEPS halvings. */
static void many(void **state)
{
	static struct dev_range r[IOT_MAX_FILTER_DEVS];
	static struct filter f;
	size_t misses = 0;

	(void)state;
	/* 512 disks with two partitions each, given in falling order */
	for (uint32_t i = 0; i < IOT_MAX_FILTER_DEVS; i++) {
		uint32_t disk = (IOT_MAX_FILTER_DEVS - 1 - i) / 2;
		uint64_t part = (IOT_MAX_FILTER_DEVS - 1 - i) % 2;

		r[i] = rng(KDEV(8 + disk / 16, disk % 16 * 16), 1000 + part * 3000,
			   3000 + part * 3000);
	}
	load(&f, r, IOT_MAX_FILTER_DEVS);
	assert_int_equal(f.n, IOT_MAX_FILTER_DEVS);
	for (uint32_t disk = 0; disk < IOT_MAX_FILTER_DEVS / 2; disk++) {
		uint32_t d = KDEV(8 + disk / 16, disk % 16 * 16);

		assert_true(has(&f, d, 1000));
		assert_true(has(&f, d, 2999));
		assert_true(has(&f, d, 4000));
		assert_true(has(&f, d, 5999));
		assert_true(has(&f, d, ~0ull));
		misses += !has(&f, d, 999) + !has(&f, d, 3000) + !has(&f, d, 3999) +
			  !has(&f, d, 6000) + !has(&f, d + 1, 1000);
	}
	assert_int_equal(misses, 5 * IOT_MAX_FILTER_DEVS / 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(merge),
	    cmocka_unit_test(search),
	    cmocka_unit_test(many),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
