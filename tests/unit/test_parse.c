// SPDX-License-Identifier: GPL-2.0
/* Option value parsing: sizes, times, rates, and what must be refused. */
#include "helpers.h"
#include "util/most.h"
#include "util/parse.h"

static void sizes(void **state)
{
	uint64_t b;

	assert_int_equal(parse_size("4096", &b), 0);
	assert_int_equal(b, 4096);
	assert_int_equal(parse_size("64k", &b), 0);
	assert_int_equal(b, 65536);
	assert_int_equal(parse_size("4m", &b), 0);
	assert_int_equal(b, 4u << 20);
	assert_int_equal(parse_size("1G", &b), 0);
	assert_int_equal(b, 1u << 30);
	assert_int_equal(parse_size("2kb", &b), 0);
	assert_int_equal(b, 2048);
	assert_int_equal(parse_size("1.5m", &b), 0);
	assert_int_equal(b, 3u << 19);
}

static void bad_sizes(void **state)
{
	static const char *bad[] = {"",	 "k",  "-1",	"4x", "4mm",
				    "0", "m4", "1e999", " 4", NULL};
	uint64_t b;

	for (int i = 0; bad[i]; i++)
		assert_int_equal(parse_size(bad[i], &b), -EINVAL);
}

static void times(void **state)
{
	uint64_t ns;

	assert_int_equal(parse_time("10", &ns), 0);
	assert_int_equal(ns, 10000000000ull);
	assert_int_equal(parse_time("100ms", &ns), 0);
	assert_int_equal(ns, 100000000ull);
	assert_int_equal(parse_time("250us", &ns), 0);
	assert_int_equal(ns, 250000ull);
	assert_int_equal(parse_time("5000ns", &ns), 0);
	assert_int_equal(ns, 5000ull);
	assert_int_equal(parse_time("2m", &ns), 0);
	assert_int_equal(ns, 120000000000ull);
	assert_int_equal(parse_time("1.5s", &ns), 0);
	assert_int_equal(ns, 1500000000ull);
}

static void bad_times(void **state)
{
	static const char *bad[] = {"", "s", "10q", "-5s", "0", "0.1ns", "ms10", NULL};
	uint64_t ns;

	for (int i = 0; bad[i]; i++)
		assert_int_equal(parse_time(bad[i], &ns), -EINVAL);
}

static void rates(void **state)
{
	uint64_t ns;

	assert_int_equal(parse_rate("10hz", &ns), 0);
	assert_int_equal(ns, 100000000ull);
	assert_int_equal(parse_rate("50Hz", &ns), 0);
	assert_int_equal(ns, 20000000ull);
	assert_int_equal(parse_rate("100ms", &ns), 0);
	assert_int_equal(ns, 100000000ull);
	assert_int_equal(parse_rate("0hz", &ns), -EINVAL);
	assert_int_equal(parse_rate("hz", &ns), -EINVAL);
	assert_int_equal(parse_rate("10khz", &ns), -EINVAL);
}

static void counts(void **state)
{
	uint64_t n;

	assert_int_equal(parse_count("4096", &n), 0);
	assert_int_equal(n, 4096);
	assert_int_equal(parse_count("0", &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(parse_count("18446744073709551615", &n), 0);
	assert_true(n == UINT64_MAX);
	assert_int_equal(parse_count("18446744073709551616", &n), -EINVAL);
	assert_int_equal(parse_count("", &n), -EINVAL);
	assert_int_equal(parse_count("-1", &n), -EINVAL);
	assert_int_equal(parse_count("4k", &n), -EINVAL);
	assert_int_equal(parse_count(" 4", &n), -EINVAL);
}

static void cpulists(void **state)
{
	bool set[16];
	const char *bad[] = {"x",  "0-",   "-1",  "3-1",  "0,",	 ",0",	 "0-3,,5",
			     "16", "0-16", "1 2", "0\n1", "0;1", "0--1", "99999999999"};

	(void)state;
	assert_int_equal(parse_cpulist("0-3,8,10-11\n", set, 16), 7);
	assert_true(set[0] && set[3] && set[8] && set[10] && set[11]);
	assert_false(set[4] || set[7] || set[9] || set[12]);
	assert_int_equal(parse_cpulist("15", set, 16), 1);
	assert_true(set[15] && !set[0]);
	assert_int_equal(parse_cpulist("0-1,1,0-2", set, 16), 3); /* overlaps once */
	assert_int_equal(parse_cpulist("\n", set, 16), 0);	  /* /sys's empty list */
	assert_int_equal(parse_cpulist("", set, 16), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(parse_cpulist(bad[i], set, 16), -EINVAL);
}

/* the CPUs that get a line of their own: the `most` largest, ties to the
 * first; all of them when no more than `most` */
static void most_lines(void **state)
{
	const uint64_t key[] = {5, 9, 1, 9, 7, 0, 9};
	bool show[7];

	(void)state;
	pick_most(key, show, 7, 3);
	assert_true(!show[0] && show[1] && !show[2] && show[3] && !show[4] && !show[5] &&
		    show[6]);
	pick_most(key, show, 7, 4);
	assert_true(show[4] && !show[0]);
	pick_most(key, show, 3, 3);
	assert_true(show[0] && show[1] && show[2]);
	pick_most(key, show, 7, 0);
	for (size_t i = 0; i < 7; i++)
		assert_false(show[i]);
	pick_most(key, show, 0, 8); /* nothing to mark */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(sizes),	cmocka_unit_test(bad_sizes),
	    cmocka_unit_test(times),	cmocka_unit_test(bad_times),
	    cmocka_unit_test(rates),	cmocka_unit_test(counts),
	    cmocka_unit_test(cpulists), cmocka_unit_test(most_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
