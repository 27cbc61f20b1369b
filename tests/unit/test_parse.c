// SPDX-License-Identifier: GPL-2.0
/* Option value parsing: sizes, times, rates, and what must be refused. */
#include "helpers.h"
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(sizes), cmocka_unit_test(bad_sizes),
	    cmocka_unit_test(times), cmocka_unit_test(bad_times),
	    cmocka_unit_test(rates), cmocka_unit_test(counts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
