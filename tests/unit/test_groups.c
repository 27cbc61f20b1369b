// SPDX-License-Identifier: GPL-2.0
/* Seed 000's patterns (src/analyze/groups.c): grouping by the layout's
 * directories, throughput, per-layer tallies, sector differences in
 * dispatch order, the time bins, and figure 3-15's block runs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/patterns.h"

/* x86_64: read is 0, write 1 */
static const uint32_t *reads;

/* the filesystem of every test: dev 7:0, partition starting at sector 2048 */
static bool fs_dev(void *ctx, uint32_t st_dev, uint64_t *start)
{
	(void)ctx;
	*start = 2048;
	return st_dev == (7u << 20);
}

static struct frag_extent ext_a0[] = {{0, 100, 10, 0}};
static struct frag_extent ext_a1[] = {{0, 200, 10, 0}};
/* two fragments: blocks 0-4 at 300, 5-9 at 400 */
static struct frag_extent ext_b0[] = {{0, 300, 5, 0}, {5, 400, 5, 0}};

static void layout(struct frag_scan *s)
{
	static struct frag_file f[3];

	memset(s, 0, sizeof(*s));
	memset(f, 0, sizeof(f));
	f[0] =
	    (struct frag_file){.path = "./B/f00", .ino = 30, .ext = ext_b0, .nr_ext = 2};
	f[1] =
	    (struct frag_file){.path = "./A/f00", .ino = 10, .ext = ext_a0, .nr_ext = 1};
	f[2] =
	    (struct frag_file){.path = "./A/f01", .ino = 11, .ext = ext_a1, .nr_ext = 1};
	for (int i = 0; i < 3; i++)
		frag_stats(f[i].ext, f[i].nr_ext, &f[i].st);
	s->files = f;
	s->nr_files = 3;
	s->block_size = 4096;
}

static struct join_syscall rd(uint64_t ino, uint64_t enter, uint64_t exit, int64_t ret)
{
	return (struct join_syscall){.nr = 0,
				     .dev = 7u << 20,
				     .ino = ino,
				     .enter_ns = enter,
				     .exit_ns = exit,
				     .ret = ret};
}

static void groups_by_directory(void **state)
{
	struct frag_scan s;
	struct groups gs;

	layout(&s);
	assert_int_equal(groups_init(&gs, &s, reads, fs_dev, NULL), 0);
	assert_int_equal(gs.nr, 2);
	assert_string_equal(gs.g[0].name, "A"); /* name order */
	assert_string_equal(gs.g[1].name, "B");
	assert_int_equal(gs.g[0].nr_files, 2);
	assert_int_equal(gs.g[0].frags_sum, 2);
	assert_int_equal(gs.g[1].frags_sum, 2);
	assert_int_equal(gs.g[1].frags_max, 2);
	/* figure 3-15: the most fragmented file of the last group */
	assert_non_null(gs.file);
	assert_int_equal(gs.file->ino, 30);
	assert_int_equal(gs.nr_laid, 2);
	groups_release(&gs);
}

static void throughput_and_filters(void **state)
{
	struct frag_scan s;
	struct groups gs;
	struct join_syscall x;

	layout(&s);
	assert_int_equal(groups_init(&gs, &s, reads, fs_dev, NULL), 0);
	x = rd(10, 1000000000, 1001000000, 1000000);
	groups_syscall(&gs, &x);
	x = rd(11, 1001000000, 1002000000, 1000000);
	groups_syscall(&gs, &x);
	x = rd(11, 1002000000, 1002000100, 0); /* EOF */
	groups_syscall(&gs, &x);
	/* not counted: another filesystem's inode 10, a write, a failed read,
	 * a file not in the layout */
	x = rd(10, 1003000000, 1004000000, 4096);
	x.dev = 8u << 20;
	groups_syscall(&gs, &x);
	x = rd(10, 1003000000, 1004000000, 4096);
	x.nr = 1;
	groups_syscall(&gs, &x);
	x = rd(10, 1003000000, 1004000000, -5);
	groups_syscall(&gs, &x);
	x = rd(99, 1003000000, 1004000000, 4096);
	groups_syscall(&gs, &x);
	assert_int_equal(groups_finish(&gs), 0);
	assert_int_equal(gs.g[0].reads, 3);
	assert_int_equal(gs.g[0].bytes, 2000000);
	assert_int_equal(gs.g[0].last_ns - gs.g[0].first_ns, 2000100);
	/* 2 MB in 2.0001 ms */
	assert_true(gs.g[0].mbps > 999.9 && gs.g[0].mbps < 1000.0);
	assert_int_equal(gs.g[0].sys.n, 3);
	assert_int_equal(gs.g[0].sys.max, 1000000);
	assert_int_equal(gs.g[0].sys.min, 100);
	assert_int_equal(gs.g[1].reads, 0);
	assert_true(gs.g[1].mbps == 0.0);
	/* bins: 100 over 2.0001 ms; the first read in bin 0, the EOF read
	 * (entered at +2 ms) in the last */
	assert_int_equal(gs.g[0].bin_ns, (2000100 + GROUP_BINS - 1) / GROUP_BINS);
	assert_int_equal(gs.g[0].bin[0].sys.n, 1);
	assert_int_equal(gs.g[0].bin[GROUP_BINS - 1].sys.n, 1);
	groups_release(&gs);
}

static struct join_request req(uint64_t ino, uint64_t sector, uint32_t nr, uint64_t i,
			       uint64_t d, uint64_t c)
{
	return (struct join_request){.dev = 7u << 20,
				     .ino = ino,
				     .sector = sector,
				     .nr_sectors = nr,
				     .q_ns = i - 10,
				     .i_ns = i,
				     .d_ns = d,
				     .c_ns = c};
}

static void sector_differences_in_dispatch_order(void **state)
{
	struct frag_scan s;
	struct groups gs;
	struct join_syscall x = rd(10, 100, 10000, 4096);
	struct join_request r;

	layout(&s);
	assert_int_equal(groups_init(&gs, &s, reads, fs_dev, NULL), 0);
	groups_syscall(&gs, &x);
	/* completed out of order; dispatched 1000+8, 1008+8 (diff 0), 5000+8
	 * (diff 3984), 900+8 (diff -4108) */
	r = req(10, 5000, 8, 2800, 3000, 3500);
	groups_request(&gs, &r);
	r = req(10, 1000, 8, 900, 1000, 4000);
	groups_request(&gs, &r);
	r = req(10, 1008, 8, 1900, 2000, 4100);
	groups_request(&gs, &r);
	r = req(10, 900, 8, 3900, 4000, 4200);
	groups_request(&gs, &r);
	/* another device's dispatch in between changes nothing */
	r = req(10, 77777, 8, 2400, 2500, 2600);
	r.dev = 8u << 20;
	groups_request(&gs, &r);
	assert_int_equal(groups_finish(&gs), 0);
	assert_int_equal(gs.g[0].sdiff.n, 3);
	assert_int_equal(gs.g[0].seeks, 2);
	assert_int_equal(gs.g[0].sdiff.sum, 0 + 3984 + 4108);
	assert_int_equal(gs.g[0].sdiff.max, 4108);
	/* scheduler I2D and device D2C */
	assert_int_equal(gs.g[0].elv.n, 5);
	assert_int_equal(gs.g[0].dev.n, 5);
	assert_int_equal(gs.g[0].elv.max, 200);
	groups_release(&gs);
}

static void block_order_runs(void **state)
{
	struct frag_scan s;
	struct groups gs;
	struct join_syscall x = rd(30, 100, 10000, 40960);
	struct join_request r = req(30, 0, 0, 1000, 1100, 5000);
	struct join_bio b;

	layout(&s);
	assert_int_equal(groups_init(&gs, &s, reads, fs_dev, NULL), 0);
	groups_syscall(&gs, &x);
	/* B/f00: blocks 0-4 at 300, 5-9 at 400; P_S = 2048 + 8 * block. Bios
	 * queued in the order 400-404, 300-304, then block 999 (elsewhere) */
	b = (struct join_bio){
	    .q_ns = 300, .sector = 2048 + 8 * 300, .nr_sectors = 40, .ino = 30};
	groups_bio(&gs, &r, &b);
	b = (struct join_bio){
	    .q_ns = 200, .sector = 2048 + 8 * 400, .nr_sectors = 40, .ino = 30};
	groups_bio(&gs, &r, &b);
	b = (struct join_bio){
	    .q_ns = 400, .sector = 2048 + 8 * 999, .nr_sectors = 8, .ino = 30};
	groups_bio(&gs, &r, &b);
	assert_int_equal(groups_finish(&gs), 0);
	assert_int_equal(gs.traced_blocks, 11);
	assert_int_equal(gs.traced_where, 10);
	assert_int_equal(gs.nr_traced, 3);
	assert_int_equal(gs.traced[0].block, 400);
	assert_int_equal(gs.traced[0].order, 0);
	assert_int_equal(gs.traced[1].block, 300);
	assert_int_equal(gs.traced[1].order, 5);
	assert_int_equal(gs.traced[2].block, 999);
	/* bio time: Q2C of each bio of the group */
	assert_int_equal(gs.g[1].bio.n, 3);
	assert_int_equal(gs.g[1].bio.max, 4800);
	groups_release(&gs);
}

static void without_layout_one_group(void **state)
{
	struct groups gs;
	struct join_syscall x = rd(12345, 0, 1000, 10);
	struct join_request r = req(0, 100, 8, 10, 20, 30);

	assert_int_equal(groups_init(&gs, NULL, reads, fs_dev, NULL), 0);
	x.dev = 99; /* any filesystem */
	groups_syscall(&gs, &x);
	groups_request(&gs, &r);
	assert_int_equal(groups_finish(&gs), 0);
	assert_int_equal(gs.nr, 1);
	assert_string_equal(gs.g[0].name, "all");
	assert_int_equal(gs.g[0].bytes, 10);
	assert_int_equal(gs.g[0].elv.n, 1);
	assert_null(gs.file);
	groups_release(&gs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(groups_by_directory),
	    cmocka_unit_test(throughput_and_filters),
	    cmocka_unit_test(sector_differences_in_dispatch_order),
	    cmocka_unit_test(block_order_runs),
	    cmocka_unit_test(without_layout_one_group),
	};

	reads = syscall_numbers("x86_64");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
