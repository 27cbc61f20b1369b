// SPDX-License-Identifier: GPL-2.0
/* The recorder's drain period (record_next_period): halved while a buffer
 * fills past 1/8 between drains, doubled back under 1/32, held between
 * switchmax and switchrate. */
#include "helpers.h"
#include "record/record.h"

#define MS    1000000ull
#define SLOTS 65536ull /* a 4 MB buffer */

static void shrinks_and_grows(void **state)
{
	(void)state;
	/* past 1/8: half */
	assert_int_equal(record_next_period(20 * MS, SLOTS / 8 + 1, SLOTS, MS, 20 * MS),
			 10 * MS);
	/* at 1/8 and at 1/32: held */
	assert_int_equal(record_next_period(10 * MS, SLOTS / 8, SLOTS, MS, 20 * MS),
			 10 * MS);
	assert_int_equal(record_next_period(10 * MS, SLOTS / 32, SLOTS, MS, 20 * MS),
			 10 * MS);
	/* under 1/32: twice */
	assert_int_equal(record_next_period(5 * MS, SLOTS / 32 - 1, SLOTS, MS, 20 * MS),
			 10 * MS);
}

static void bounded(void **state)
{
	(void)state;
	/* never past switchmax's period, however full */
	assert_int_equal(record_next_period(MS, SLOTS, SLOTS, MS, 20 * MS), MS);
	assert_int_equal(record_next_period(1500000, SLOTS, SLOTS, MS, 20 * MS), MS);
	/* never slower than switchrate's, however empty */
	assert_int_equal(record_next_period(20 * MS, 0, SLOTS, MS, 20 * MS), 20 * MS);
	assert_int_equal(record_next_period(15 * MS, 0, SLOTS, MS, 20 * MS), 20 * MS);
	/* switchmax at switchrate: fixed */
	assert_int_equal(record_next_period(20 * MS, SLOTS, SLOTS, 20 * MS, 20 * MS),
			 20 * MS);
}

/* A steady fill rate: the period settles where a drain finds between
 * 1/32 and 1/8 of the buffer in use, and stays there. */
static void settles(void **state)
{
	/* 6M IOPS on 16 CPUs at ~6 records a request: ~2.3M records a
	 * second per CPU, 2.3 records per microsecond */
	const uint64_t per_us = 23; /* tenths */
	uint64_t p = 20 * MS, last = 0;

	(void)state;
	for (int i = 0; i < 20; i++) {
		uint64_t fill = p / 1000 * per_us / 10;

		last = p;
		p = record_next_period(p, fill, SLOTS, MS, 20 * MS);
	}
	assert_int_equal(p, last);
	assert_true(p / 1000 * per_us / 10 <= SLOTS / 8);
	assert_true(p / 1000 * per_us / 10 >= SLOTS / 32);
	assert_int_equal(p, 2500000); /* 20 -> 10 -> 5 -> 2.5 ms */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(shrinks_and_grows),
	    cmocka_unit_test(bounded),
	    cmocka_unit_test(settles),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
