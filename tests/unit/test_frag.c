// SPDX-License-Identifier: GPL-2.0
/* Fragment arithmetic (src/frag/stats.c): filefrag's rule, gaps and
 * reverse breaks, holes, and the derived figures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "layout/layout.h"

static void contiguous_and_dense(void **state)
{
	/* ext4 splits a long run into 32768-block extents: still one fragment */
	struct frag_extent e[] = {{0, 1000, 32768, 0}, {32768, 33768, 100, 0}};
	struct frag_stats st;

	frag_stats(e, 2, &st);
	assert_int_equal(st.extents, 2);
	assert_int_equal(st.fragments, 1);
	assert_int_equal(st.gaps + st.reverse, 0);
	assert_int_equal(st.blocks, 32868);
	assert_int_equal(st.largest_blocks, 32868);
	assert_true(st.contiguity == 1.0);
}

static void holes_are_not_fragments(void **state)
{
	/* blocks 0-9 at 500, hole of 10, blocks 20-29 at 520: where they would
	 * be had the hole been written */
	struct frag_extent e[] = {{0, 500, 10, 0}, {20, 520, 10, 0}};
	struct frag_stats st;

	frag_stats(e, 2, &st);
	assert_int_equal(st.fragments, 1);
	assert_int_equal(st.blocks, 20);
}

static void gaps_and_reverse(void **state)
{
	/* 0-3 at 100, 4-7 at 200 (gap), 8-9 at 50 (reverse), 10-11 at 52 */
	struct frag_extent e[] = {
	    {0, 100, 4, 0}, {4, 200, 4, 0}, {8, 50, 2, 0}, {10, 52, 2, 0}};
	struct frag_stats st;

	frag_stats(e, 4, &st);
	assert_int_equal(st.extents, 4);
	assert_int_equal(st.fragments, 3);
	assert_int_equal(st.gaps, 1);
	assert_int_equal(st.reverse, 1);
	assert_int_equal(st.largest_blocks, 4);
	assert_true(st.avg_blocks == 12.0 / 3);
	assert_true(st.contiguity == 1.0 - 2.0 / 11);
}

static void indirect_block_breaks(void **state)
{
	/* ext3: an indirect block between data runs is a 1-block forward gap */
	struct frag_extent e[] = {{0, 1000, 12, 0}, {12, 1013, 1024, 0}};
	struct frag_stats st;

	frag_stats(e, 2, &st);
	assert_int_equal(st.fragments, 2);
	assert_int_equal(st.gaps, 1);
}

static void inline_and_empty(void **state)
{
	struct frag_extent e[] = {{0, 0, 0, FRAG_INLINE}};
	struct frag_stats st;

	frag_stats(e, 1, &st);
	assert_int_equal(st.extents, 1);
	assert_int_equal(st.fragments, 0);
	assert_int_equal(st.blocks, 0);
	frag_stats(NULL, 0, &st);
	assert_int_equal(st.fragments, 0);
	assert_true(st.contiguity == 1.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(contiguous_and_dense),
	    cmocka_unit_test(holes_are_not_fragments),
	    cmocka_unit_test(gaps_and_reverse),
	    cmocka_unit_test(indirect_block_breaks),
	    cmocka_unit_test(inline_and_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
