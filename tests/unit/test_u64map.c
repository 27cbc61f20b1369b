// SPDX-License-Identifier: GPL-2.0
/* The join's hash map against a brute-force model under random churn. */
#include <stdlib.h>

#include "helpers.h"
#include "util/u64map.h"

#define NKEYS 5000

static void basic(void **state)
{
	struct u64map m;

	assert_int_equal(u64map_init(&m, 4), 0);
	assert_null(u64map_get(&m, 42));
	assert_int_equal(u64map_put(&m, 42, 7), 0);
	assert_int_equal(*u64map_get(&m, 42), 7);
	assert_int_equal(u64map_put(&m, 42, 8), 0);
	assert_int_equal(*u64map_get(&m, 42), 8);
	assert_int_equal(m.n, 1);
	u64map_del(&m, 42);
	assert_null(u64map_get(&m, 42));
	u64map_del(&m, 42); /* absent: no-op */
	assert_int_equal(m.n, 0);
	u64map_release(&m);
}

/* Random puts and deletes, many colliding home slots (small table, many
 * keys): every lookup must agree with a plain array. */
static void churn(void **state)
{
	static uint32_t model[NKEYS]; /* 0 = absent, else value + 1 */
	struct u64map m;

	srand(1);
	memset(model, 0, sizeof(model));
	assert_int_equal(u64map_init(&m, 16), 0);
	for (int step = 0; step < 200000; step++) {
		uint64_t k = (uint64_t)(rand() % NKEYS);

		if (rand() % 3) {
			uint32_t v = rand();

			assert_int_equal(u64map_put(&m, k * 0x1000 + 1, v), 0);
			model[k] = v + 1;
		} else {
			u64map_del(&m, k * 0x1000 + 1);
			model[k] = 0;
		}
		if (step % 997 == 0) {
			size_t n = 0;

			for (uint64_t i = 0; i < NKEYS; i++) {
				uint32_t *v = u64map_get(&m, i * 0x1000 + 1);

				if (model[i]) {
					assert_non_null(v);
					assert_int_equal(*v, model[i] - 1);
					n++;
				} else {
					assert_null(v);
				}
			}
			assert_int_equal(m.n, n);
		}
	}
	u64map_release(&m);
}

/* key 0 (the empty marker) is a key like any other */
static void zero_key(void **state)
{
	struct u64map m;

	assert_int_equal(u64map_init(&m, 4), 0);
	assert_null(u64map_get(&m, 0));
	assert_int_equal(u64map_put(&m, 0, 7), 0);
	assert_int_equal(u64map_put(&m, 5, 8), 0);
	assert_int_equal(m.n, 2);
	assert_int_equal(*u64map_get(&m, 0), 7);
	assert_int_equal(u64map_put(&m, 0, 9), 0);
	assert_int_equal(m.n, 2);
	for (uint64_t k = 1; k < 100; k++) /* grows: key 0 survives */
		assert_int_equal(u64map_put(&m, k << 12, (uint32_t)k), 0);
	assert_int_equal(*u64map_get(&m, 0), 9);
	assert_int_equal(m.n, 101);
	u64map_del(&m, 0);
	assert_null(u64map_get(&m, 0));
	assert_int_equal(m.n, 100);
	u64map_del(&m, 0);
	assert_int_equal(m.n, 100);
	assert_int_equal(*u64map_get(&m, 5), 8);
	u64map_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(basic),
	    cmocka_unit_test(churn),
	    cmocka_unit_test(zero_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
