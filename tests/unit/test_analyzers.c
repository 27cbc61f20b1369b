// SPDX-License-Identifier: GPL-2.0
/* The analyzer registry, the result model's tables and the sizes, windows
 * and syscall analyzers, driven through the analysis core as the join
 * drives it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/analyzer.h"
#include "analyze/fsync.h"
#include "analyze/overlay.h"
#include "render/render.h"
#include "trace/syscalls.h"

#define LOOP0 (7u << 20)
#define ZRAM0 (252u << 20)

static const char *dev_name(void *ctx, uint32_t dev)
{
	return dev == LOOP0 ? "loop0" : "zram0";
}

static bool bio_based(void *ctx, uint32_t dev)
{
	return dev == ZRAM0;
}

static bool keep_time; /* start()'s env: the series view's */

/* parts_same's layout (NULL elsewhere), and its filesystem: any device,
 * from sector 0 */
static const struct frag_scan *test_layout;

static bool fs_any(void *ctx, uint32_t st_dev, uint64_t *start)
{
	*start = 0;
	return true;
}

static const struct iot_dev_entry *fs_any_entry(void *ctx, uint32_t dev)
{
	static const struct iot_dev_entry loop0 = {
	    .dev = LOOP0, .disk_dev = LOOP0, .name = "loop0"};

	return dev == LOOP0 ? &loop0 : NULL;
}

static void start(struct analysis *a, const char *names, uint64_t window_ns)
{
	struct analysis_env env = {
	    .layout = test_layout,
	    .overlay_file = test_layout ? "d129/f" : NULL,
	    .fs_dev = test_layout ? fs_any : NULL,
	    .dev_entry = test_layout ? fs_any_entry : NULL,
	    /* flows: zram0 as if a loop device over inode 12 on loop0 */
	    .stack = test_layout ? "zram0 252:0 on 7:0 ino 12 offset 0 dio 0" : NULL,
	    .keep_time = keep_time,
	    .t0_ns = 1000000000,
	    .end_ns = 2000000000,
	    .window_ns = window_ns,
	    .syscall_nr = syscall_numbers("x86_64"),
	    .dev_name = dev_name,
	    .is_bio_based = bio_based,
	};
	char buf[128], *save = NULL;
	uint64_t set = 0;

	snprintf(buf, sizeof(buf), "%s", names);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		assert_true(analyzer_index(t) >= 0);
		set |= AN_BIT(analyzer_index(t));
	}
	assert_int_equal(analysis_init(a, set, &env), 0);
}

static struct join_request req(uint32_t dev, uint32_t op, uint32_t sectors, uint64_t q,
			       uint64_t c)
{
	struct join_request r = {.dev = dev,
				 .flags = op,
				 .sector = 2048,
				 .nr_sectors = sectors,
				 .q_ns = q,
				 .c_ns = c};

	if (dev == LOOP0) { /* a request-based device: every stage */
		r.g_ns = q + 1000;
		r.i_ns = q + 2000;
		r.d_ns = q + 3000;
	} else {
		r.bio_only = true;
	}
	return r;
}

static void registry(void **state)
{
	char list[512];

	assert_true(nr_analyzers >= 9);
	for (size_t i = 0; i < nr_analyzers; i++) {
		assert_non_null(analyzers[i]->name);
		assert_non_null(analyzers[i]->help);
		assert_int_equal(analyzer_index(analyzers[i]->name), (int)i);
		for (size_t k = 0; k < i; k++)
			assert_string_not_equal(analyzers[i]->name, analyzers[k]->name);
	}
	assert_int_equal(analyzer_index("nosuch"), -1);
	analyzer_list(list, sizeof(list));
	assert_non_null(strstr(list, "patterns"));
	assert_non_null(strstr(list, "sizes"));
}

/* bitesize's view: request sizes per device and op, in KiB */
static void sizes(void **state)
{
	struct analysis a;
	struct join_sink s;
	const struct an_output *o;

	start(&a, "sizes", 0);
	s = analysis_sink(&a);
	for (int i = 0; i < 90; i++) { /* 90 reads of 4 KiB, 10 of 512 KiB */
		struct join_request r =
		    req(LOOP0, IOT_OP_READ, 8, 1000000000 + i, 1000100000);

		s.request(s.ctx, &r);
	}
	for (int i = 0; i < 10; i++) {
		struct join_request r =
		    req(LOOP0, IOT_OP_READ, 1024, 1000000000, 1000100000);

		s.request(s.ctx, &r);
	}
	{
		struct join_request w =
		    req(ZRAM0, IOT_OP_WRITE, 2, 1000000000, 1000000500);
		struct join_request fl =
		    req(LOOP0, IOT_OP_FLUSH, 0, 1000000000, 1000000500);

		s.request(s.ctx, &w);
		s.request(s.ctx, &fl); /* no size: not counted */
	}
	assert_int_equal(analysis_finish(&a), 0);
	o = analysis_output(&a, "sizes");
	assert_non_null(o);
	assert_int_equal(o->nr_metrics, 2); /* loop0 read, zram0 write */
	assert_string_equal(o->metrics[0]->scope, "loop0 read");
	assert_string_equal(o->metrics[0]->unit, "KiB");
	assert_int_equal(o->metrics[0]->st.count, 100);
	assert_int_equal(o->metrics[0]->st.p50, 4);
	assert_int_equal(o->metrics[0]->st.p99, 512);
	assert_int_equal(o->metrics[0]->hist.slot[2], 90); /* 4 KiB in [4, 8) */
	assert_int_equal(o->metrics[0]->hist.slot[9], 10);
	assert_string_equal(o->metrics[1]->scope, "zram0 write");
	assert_int_equal(o->metrics[1]->st.max, 1);
	analysis_release(&a);
}

static char *render(const struct analysis *a, const char *name)
{
	struct report_info ri = {
	    .path = "t", .mode = "events", .t0_ns = 1000000000, .stop_reason = "command"};
	struct render_opts ro = {.view = keep_time ? VIEW_SERIES : VIEW_STATS};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	if (!strcmp(name, "csv"))
		render_csv(f, &ri, a, &ro);
	else if (!strcmp(name, "json"))
		render_json(f, &ri, a, &ro);
	else
		render_text(f, &ri, a, &ro);
	fclose(f);
	return buf;
}

/* a stage a device does not have is not applicable, never 0 */
static void windows_not_applicable(void **state)
{
	struct analysis a;
	struct join_sink s;
	struct join_request z = req(ZRAM0, IOT_OP_READ, 8, 1000000000, 1000004000);
	struct join_request l = req(LOOP0, IOT_OP_READ, 8, 1200000000, 1200010000);
	char *csv, *json, *text;

	start(&a, "windows", 100000000); /* 100 ms */
	s = analysis_sink(&a);
	s.request(s.ctx, &z);
	s.request(s.ctx, &l);
	assert_int_equal(analysis_finish(&a), 0);
	csv = render(&a, "csv");
	/* window 0: zram0's read, Q2C 4 µs, no kernel/driver/device stage */
	assert_non_null(strstr(csv, "window_start_s,requests,bytes,q2c_avg_ns,"
				    "kernel_avg_ns,driver_avg_ns,device_avg_ns\n"));
	assert_non_null(strstr(csv, "0.000000,1,4096,4000.0,,,\n"));
	assert_non_null(strstr(csv, "0.100000,0,0,,,,\n"));
	assert_non_null(strstr(csv, "0.200000,1,4096,10000.0,1000.0,2000.0,7000.0\n"));
	json = render(&a, "json");
	assert_non_null(strstr(json, "\"kernel_sum_ns\": 0"));
	assert_null(strstr(json, "\"kernel_avg_ns\"")); /* JSON has the sums */
	text = render(&a, "text");
	assert_non_null(
	    strstr(text, "     0.000         1         4096        4.0          -"));
	free(csv);
	free(json);
	free(text);
	analysis_release(&a);
}

static void table_cells(void **state)
{
	static const struct column cols[] = {
	    {"name", "NAME", -6, CELL_STR},
	    {"ns", "US", 8, CELL_U64, IN_ALL, 0, 1e3, 1},
	    {"x", "", 0, CELL_F64, IN_CSV, 2},
	};
	struct table t;
	char buf[64];

	table_init(&t, "t", cols, 3);
	table_row(&t);
	table_str(&t, "a,%d", 1);
	table_u64(&t, 1500);
	table_na(&t);
	table_row(&t);
	table_str(&t, "b");
	table_u64(&t, 2);
	table_f64(&t, 0.125);
	table_u64(&t, 9); /* one cell too many: an error, not an overrun */
	assert_int_equal(t.nr_rows, 2);
	assert_int_not_equal(t.err, 0);
	render_cell(&t, 0, 0, buf, sizeof(buf));
	assert_string_equal(buf, "a,1");
	render_cell(&t, 0, 1, buf, sizeof(buf));
	assert_string_equal(buf, "1.5");
	render_cell(&t, 0, 2, buf, sizeof(buf));
	assert_string_equal(buf, "-");
	render_cell(&t, 1, 2, buf, sizeof(buf));
	assert_string_equal(buf, "0.12");
	table_release(&t);
}

static void syscall_numbers_by_arch(void **state)
{
	const uint32_t *x = syscall_numbers("x86_64"), *a = syscall_numbers("aarch64");

	assert_int_equal(x[SK_READ], 0);
	assert_int_equal(x[SK_FDATASYNC], 75);
	assert_int_equal(a[SK_READ], 63);
	assert_int_equal(a[SK_PREAD64], 67);
	assert_true(syscall_is_read(a, 65));  /* readv */
	assert_false(syscall_is_read(a, 64)); /* write */
	assert_int_equal(syscall_kind(a, 83), SK_FDATASYNC);
	assert_null(syscall_numbers("sparc"));
}

/* an aarch64 trace's read (63) counts as a read, an x86_64 number does not */
static void syscall_analyzer_uses_trace_arch(void **state)
{
	struct analysis a;
	struct analysis_env env = {.syscall_nr = syscall_numbers("aarch64"),
				   .dev_name = dev_name};
	struct join_syscall rd = {.nr = 63, .enter_ns = 10, .exit_ns = 5010};
	struct join_syscall x86_read = {.nr = 0, .enter_ns = 10, .exit_ns = 20};
	struct join_sink s;
	const struct an_output *o;

	assert_int_equal(analysis_init(&a, AN_BIT(analyzer_index("syscall")), &env), 0);
	s = analysis_sink(&a);
	s.syscall(s.ctx, &rd);
	s.syscall(s.ctx, &x86_read);
	assert_int_equal(analysis_finish(&a), 0);
	o = analysis_output(&a, "syscall");
	assert_int_equal(o->nr_metrics, 1);
	assert_string_equal(o->metrics[0]->name, "read");
	assert_int_equal(o->metrics[0]->st.count, 1);
	assert_int_equal(o->metrics[0]->st.max, 5000);
	analysis_release(&a);
}

static const struct iot_dev_entry loop0p1 = {
    .dev = (259u << 20) | 1, .disk_dev = LOOP0, .start_sector = 2048, .name = "loop0p1"};

static bool fs_dev(void *ctx, uint32_t st_dev, uint64_t *start)
{
	*start = 2048;
	return st_dev == loop0p1.dev;
}

static const struct iot_dev_entry *dev_entry(void *ctx, uint32_t dev)
{
	return dev == loop0p1.dev ? &loop0p1 : NULL;
}

/* figure 3-15: the file's read bios, as blocks, against its layout */
static void overlay(void **state)
{
	static struct frag_extent ext[] = {{0, 100, 4, 0}, {4, 300, 4, 0}};
	static uint64_t meta[] = {50};
	struct frag_file file = {.path = "/mnt/E/f00",
				 .ino = 12,
				 .ext = ext,
				 .nr_ext = 2,
				 .meta = meta,
				 .nr_meta = 1};
	struct frag_scan layout = {.files = &file, .nr_files = 1, .block_size = 4096};
	struct analysis_env env = {.t0_ns = 0,
				   .syscall_nr = syscall_numbers("x86_64"),
				   .layout = &layout,
				   .overlay_file = "E/f00",
				   .dev_name = dev_name,
				   .fs_dev = fs_dev,
				   .dev_entry = dev_entry};
	struct join_syscall rd = {
	    .nr = 0, .dev = loop0p1.dev, .ino = 12, .enter_ns = 1, .exit_ns = 9};
	struct join_request r = {.dev = LOOP0, .flags = IOT_OP_READ, .c_ns = 10};
	/* queue order: the mapping block, blocks 300-303 (file 4-7), then
	 * 100-101 (file 0-1) and one block elsewhere */
	struct join_bio b[] = {
	    {.q_ns = 3, .sector = 2048 + 300 * 8, .nr_sectors = 32, .ino = 12},
	    {.q_ns = 2, .sector = 2048 + 50 * 8, .nr_sectors = 8, .ino = 12},
	    {.q_ns = 4, .sector = 2048 + 100 * 8, .nr_sectors = 16, .ino = 12},
	    {.q_ns = 5, .sector = 2048 + 999 * 8, .nr_sectors = 8, .ino = 12},
	    {.q_ns = 5,
	     .sector = 2048 + 7 * 8,
	     .nr_sectors = 8,
	     .ino = 13}, /* another file */
	};
	const struct overlay_priv *p;
	struct analysis a;
	struct join_sink s;

	assert_int_equal(analysis_init(&a, AN_BIT(analyzer_index("overlay")), &env), 0);
	s = analysis_sink(&a);
	s.syscall(s.ctx, &rd);
	for (size_t i = 0; i < sizeof(b) / sizeof(b[0]); i++)
		s.bio(s.ctx, &r, &b[i]);
	assert_int_equal(analysis_finish(&a), 0);
	p = analysis_output(&a, "overlay")->priv;
	assert_int_equal(p->nr_acc, 8);
	assert_int_equal(p->acc[0].file_block, OVERLAY_MAPPING);
	assert_int_equal(p->acc[1].block, 300);
	assert_int_equal(p->acc[1].file_block, 4);
	assert_int_equal(p->acc[4].file_block, 7);
	assert_int_equal(p->acc[5].file_block, 0);
	assert_int_equal(p->acc[7].file_block, OVERLAY_ELSEWHERE);
	assert_int_equal(p->where, 7);
	assert_int_equal(p->file_blocks, 8);
	assert_string_equal(p->fs_name, "loop0p1");
	analysis_release(&a);

	env.overlay_file = "nowhere";
	assert_int_not_equal(analysis_init(&a, AN_BIT(analyzer_index("overlay")), &env),
			     0);
	assert_non_null(strstr(a.errmsg, "nowhere: not (or not once) among the 1 files"));
	analysis_release(&a);
}

/* Each instant of the call to the highest part covering it, clipped to
 * the call; what none covers is other. */
static void fsync_split_priority(void **state)
{
	const struct fsync_iv iv[] = {
	    {90, 150, FSYNC_DATA},     /* begins before the call */
	    {140, 180, FSYNC_JOURNAL}, /* overlaps data, holds the flush */
	    {170, 175, FSYNC_FLUSH},
	    {190, 260, FSYNC_WAKE},  /* ends after */
	    {120, 120, FSYNC_FLUSH}, /* empty */
	    {300, 400, FSYNC_DATA},  /* outside */
	    {100, 200, 9},	     /* no such part */
	};
	uint64_t part[NR_FSYNC_PARTS], other;

	assert_int_equal(
	    fsync_split(100, 200, iv, sizeof(iv) / sizeof(iv[0]), part, &other), 0);
	assert_int_equal(part[FSYNC_DATA], 40);	   /* 100-140 */
	assert_int_equal(part[FSYNC_JOURNAL], 35); /* 140-170, 175-180 */
	assert_int_equal(part[FSYNC_FLUSH], 5);
	assert_int_equal(part[FSYNC_WAKE], 10);
	assert_int_equal(other, 10); /* 180-190 */
	/* nothing: all other; an empty call: nothing at all */
	assert_int_equal(fsync_split(100, 200, iv, 0, part, &other), 0);
	assert_int_equal(other, 100);
	assert_int_equal(fsync_split(200, 100, iv, 3, part, &other), 0);
	assert_int_equal(other + part[FSYNC_DATA] + part[FSYNC_FLUSH], 0);
}

static size_t col_of(const struct table *t, const char *key)
{
	for (size_t c = 0; c < t->nr_cols; c++)
		if (!strcmp(t->cols[c].key, key))
			return c;
	fail_msg("no column %s", key);
	return 0;
}

/* The analyzer picks the call's own I/O: its file's and its task's writes,
 * the commits of its filesystem, the flushes of its disk; not another
 * file's writes nor another disk's flushes. */
static void fsync_analyzer(void **state)
{
	struct analysis a;
	struct join_sink s;
	const struct an_output *o;
	const struct table *t;
	struct join_request data = req(LOOP0, IOT_OP_WRITE, 8, 1100, 1300),
			    other_file = req(LOOP0, IOT_OP_WRITE, 8, 1000, 1900),
			    flush = {.dev = LOOP0,
				     .flags = IOT_OP_FLUSH,
				     .start_ns = 1700,
				     .d_ns = 1710,
				     .c_ns = 1800},
			    far_flush = {.dev = ZRAM0,
					 .flags = IOT_OP_FLUSH,
					 .start_ns = 1000,
					 .d_ns = 1010,
					 .c_ns = 1950};
	struct join_bio
	    db = {.q_ns = 1100,
		  .nr_sectors = 8,
		  .tid = 77,
		  .why = {.known = true, .cause = IOT_CAUSE_WRITEBACK, .ino = 12}},
	    ob = {.q_ns = 1000,
		  .nr_sectors = 8,
		  .tid = 78,
		  .why = {.known = true, .cause = IOT_CAUSE_WRITEBACK, .ino = 13}};
	struct join_commit c = {.dev = LOOP0, .tid = 5, .start_ns = 1400, .end_ns = 1850},
			   far_c = {
			       .dev = ZRAM0, .tid = 9, .start_ns = 1000, .end_ns = 1990};
	struct join_syscall call = {.pid = 77,
				    .tid = 77,
				    .nr = 75 /* fdatasync */,
				    .dev = LOOP0,
				    .ino = 12,
				    .enter_ns = 1000,
				    .exit_ns = 2000,
				    .wake_ns = 1900};

	start(&a, "fsync", 0);
	s = analysis_sink(&a);
	s.request(s.ctx, &other_file);
	s.bio(s.ctx, &other_file, &ob);
	s.request(s.ctx, &data);
	s.bio(s.ctx, &data, &db);
	s.request(s.ctx, &flush);
	s.request(s.ctx, &far_flush);
	s.commit(s.ctx, &c);
	s.commit(s.ctx, &far_c);
	s.syscall(s.ctx, &call);
	assert_int_equal(analysis_finish(&a), 0);
	o = analysis_output(&a, "fsync");
	assert_non_null(o);
	assert_int_equal(o->nr_tables, 1);
	t = o->tables[0];
	assert_int_equal(t->nr_rows, 1);
	assert_string_equal(table_cell_str(t, 0, col_of(t, "call")), "fdatasync");
	assert_int_equal(table_cell(t, 0, col_of(t, "total_ns"))->u, 1000);
	assert_int_equal(table_cell(t, 0, col_of(t, "data_ns"))->u, 200); /* 1100-1300 */
	assert_int_equal(table_cell(t, 0, col_of(t, "journal_ns"))->u,
			 350);						   /* 1400-1850 */
	assert_int_equal(table_cell(t, 0, col_of(t, "flush_ns"))->u, 100); /* 1700-1800 */
	assert_int_equal(table_cell(t, 0, col_of(t, "wake_ns"))->u, 100);
	assert_int_equal(table_cell(t, 0, col_of(t, "other_ns"))->u, 250);
	assert_int_equal(table_cell(t, 0, col_of(t, "data_bytes"))->u, 4096);
	/* metrics: scope fdatasync, one sample each */
	assert_int_equal(o->nr_metrics, 6);
	assert_string_equal(o->metrics[0]->scope, "fdatasync");
	assert_string_equal(o->metrics[0]->name, "total");
	analysis_release(&a);
}

/* flows: a read of loop1 (over a file on loop0's partition) followed to the
 * loop0 request that read the backing file's page, by that page's inode and
 * index, not by time; a second read of the same page served from the cache
 * names it; requests of other pages or files are flows of their own. */
#define LOOP1 ((7u << 20) | 1)
static const char *stack_dev_name(void *ctx, uint32_t dev)
{
	return dev == LOOP0 ? "loop0" : dev == LOOP1 ? "loop1" : "?";
}

static void flows_stacked(void **state)
{
	struct analysis a;
	struct analysis_env env = {
	    .t0_ns = 0,
	    .syscall_nr = syscall_numbers("x86_64"),
	    .dev_name = stack_dev_name,
	    .dev_entry = dev_entry,
	    /* the backing file: inode 12 on loop0p1, at 1 MiB */
	    .stack = "loop1 7:1 on 259:1 ino 12 offset 1048576 dio 0",
	    .flow_slowest = SIZE_MAX,
	};
	struct join_sink s;
	const struct an_output *o;
	const struct table *tf, *te;
	/* sector 16 of loop1: byte 1 MiB + 8 KiB of the file, page 258 */
	struct join_request up = {.dev = LOOP1,
				  .flags = IOT_OP_READ,
				  .sector = 16,
				  .nr_sectors = 8,
				  .q_ns = 1000,
				  .g_ns = 2000,
				  .i_ns = 3000,
				  .d_ns = 4000,
				  .c_ns = 20000},
			    up2 = {.dev = LOOP1,
				   .flags = IOT_OP_READ,
				   .sector = 24,
				   .nr_sectors = 8,
				   .q_ns = 26000,
				   .d_ns = 30000,
				   .c_ns = 31000},
			    lo = {.dev = LOOP0,
				  .flags = IOT_OP_READ,
				  .sector = 9000,
				  .nr_sectors = 32,
				  .q_ns = 6000,
				  .d_ns = 8000,
				  .c_ns = 18000},
			    other_page = lo, other_file = lo;
	struct join_bio ub = {.q_ns = 1000,
			      .nr_sectors = 8,
			      .tid = 77,
			      .pid = 77,
			      .sys_enter_ns = 500},
			ub2 = {.q_ns = 26000,
			       .nr_sectors = 8,
			       .tid = 77,
			       .pid = 77,
			       .sys_enter_ns = 25000},
			/* pages 256-259 of inode 12: the read ahead the upper
			 * request waited for */
	    lb = {.q_ns = 6000,
		  .nr_sectors = 32,
		  .tid = 90,
		  .why = {.known = true,
			  .cause = IOT_CAUSE_READAHEAD,
			  .host = IOT_HOST_REG,
			  .ino = 12,
			  .index = 256}},
			pb = lb, fb = lb;
	struct join_syscall call = {.pid = 77,
				    .tid = 77,
				    .nr = 17 /* pread64 */,
				    .enter_ns = 500,
				    .exit_ns = 21000,
				    .nr_bios = 1},
			    call2 = {.pid = 77,
				     .tid = 77,
				     .nr = 17,
				     .enter_ns = 25000,
				     .exit_ns = 32000,
				     .nr_bios = 1};
	size_t cache_rows = 0, lower_q = 0;

	lo.c_cpu = 1; /* the CPU of each stamp reaches the timeline */
	other_page.sector = 20000;
	pb.why.index = 300; /* pages 300-303: nobody's */
	other_file.sector = 30000;
	fb.why.ino = 13; /* page 256 of another file */
	assert_int_equal(analysis_init(&a, AN_BIT(analyzer_index("flows")), &env), 0);
	s = analysis_sink(&a);
	s.request(s.ctx, &lo); /* completion order */
	s.bio(s.ctx, &lo, &lb);
	s.request(s.ctx, &other_page);
	s.bio(s.ctx, &other_page, &pb);
	s.request(s.ctx, &other_file);
	s.bio(s.ctx, &other_file, &fb);
	s.request(s.ctx, &up);
	s.bio(s.ctx, &up, &ub);
	s.syscall(s.ctx, &call);
	s.request(s.ctx, &up2);
	s.bio(s.ctx, &up2, &ub2);
	s.syscall(s.ctx, &call2);
	{ /* issued, never completed: listed as such, in no flow */
		struct join_request never = up2;

		never.sector = 4096;
		never.c_ns = 0;
		s.unfinished(s.ctx, &never);
	}
	assert_int_equal(analysis_finish(&a), 0);
	o = analysis_output(&a, "flows");
	assert_non_null(o);
	assert_int_equal(o->nr_tables, 4);
	assert_string_equal(o->tables[3]->name, "flows_unfinished");
	assert_int_equal(o->tables[3]->nr_rows, 1);
	assert_int_equal(table_cell(o->tables[3], 0, col_of(o->tables[3], "sector"))->u,
			 4096);
	assert_string_equal(table_cell_str(o->tables[3], 0, col_of(o->tables[3], "last")),
			    "D");
	tf = o->tables[1];
	te = o->tables[2];
	assert_string_equal(tf->name, "flows");
	/* two reads and the two lower requests nobody asked for; slowest first */
	assert_int_equal(tf->nr_rows, 4);
	assert_string_equal(table_cell_str(tf, 0, col_of(tf, "cause")), "pread64");
	assert_string_equal(table_cell_str(tf, 0, col_of(tf, "devices")), "loop1>loop0");
	assert_int_equal(table_cell(tf, 0, col_of(tf, "total_ns"))->u, 20500);
	assert_int_equal(table_cell(tf, 0, col_of(tf, "lower_requests"))->u, 1);
	/* the critical path: call 1500, queue 3000, loop 4000 (to the lower
	 * request and back), loop0's queue 2000 and device 10000 */
	assert_string_equal(table_cell_str(tf, 0, col_of(tf, "dominant")),
			    "device@loop0");
	assert_int_equal(table_cell(tf, 0, col_of(tf, "dominant_ns"))->u, 10000);
	for (size_t r = 1; r < tf->nr_rows; r++)
		if (strcmp(table_cell_str(tf, r, col_of(tf, "cause")), "pread64"))
			assert_string_equal(table_cell_str(tf, r, col_of(tf, "cause")),
					    "readahead");
	for (size_t r = 0; r < te->nr_rows; r++) {
		const char *ev = table_cell_str(te, r, col_of(te, "event")),
			   *det = table_cell_str(te, r, col_of(te, "detail"));

		if (!strcmp(ev, "C") &&
		    !strcmp(table_cell_str(te, r, col_of(te, "device")), "loop0") &&
		    table_cell(te, r, col_of(te, "flow"))->u ==
			table_cell(tf, 0, col_of(tf, "flow"))->u)
			assert_int_equal(table_cell(te, r, col_of(te, "cpu"))->u, 1);
		if (!strcmp(ev, "cache")) {
			cache_rows++;
			assert_non_null(strstr(det, "read earlier by loop0 9000+32"));
		}
		if (!strcmp(ev, "Q") &&
		    !strcmp(table_cell_str(te, r, col_of(te, "device")), "loop0") &&
		    table_cell(te, r, col_of(te, "flow"))->u ==
			table_cell(tf, 0, col_of(tf, "flow"))->u) {
			lower_q++;
			assert_non_null(strstr(det, "ino 12 page 256"));
			/* 6000 - 500: from the call's enter */
			assert_int_equal(table_cell(te, r, col_of(te, "elapsed_ns"))->i,
					 5500);
		}
	}
	assert_int_equal(cache_rows, 1);
	assert_int_equal(lower_q, 1);
	analysis_release(&a);
}

/* fsync on parts: 5,000 writes of a file, an fsync over them, then a write
 * 70 s later, past the 60 s after which one thread lets the 5,000 go, and
 * an fsync over it. A part keeps every span (its merge pushes them in
 * order, as one thread would): one analysis, one part or two, the same
 * JSON, the first call's time the writes'. */
static char *fsync_far(unsigned int parts)
{
	struct analysis a, part;
	struct join_sink sink;
	char *json;

	start(&a, "fsync", 0);
	sink = analysis_sink(&a);
	if (parts) {
		assert_int_equal(analysis_part_init(&part, &a), 0);
		sink = analysis_sink(&part);
	}
	for (uint32_t i = 0; i <= 5000; i++) {
		uint64_t q = i < 5000 ? 1000000000ull + i * 1000 : 71000000000ull;
		struct join_request w = req(LOOP0, IOT_OP_WRITE, 8, q, q + 900000);
		struct join_bio b = {.q_ns = q, .nr_sectors = 8, .tid = 77, .ino = 12};
		struct join_syscall fs = {.pid = 77,
					  .tid = 77,
					  .nr = syscall_numbers("x86_64")[SK_FSYNC],
					  .dev = LOOP0,
					  .ino = 12,
					  .enter_ns = q - 100000,
					  .exit_ns = q + 1000000};

		w.tid = w.pid = 77;
		sink.request(sink.ctx, &w);
		sink.bio(sink.ctx, &w, &b);
		if (i == 4999 || i == 5000) {
			fs.enter_ns = i == 5000 ? fs.enter_ns : 1000000000ull;
			sink.syscall(sink.ctx, &fs);
		}
		if (parts == 2 && i == 4999) {
			assert_int_equal(analysis_merge(&a, &part), 0);
			assert_int_equal(analysis_part_init(&part, &a), 0);
		}
	}
	if (parts)
		assert_int_equal(analysis_merge(&a, &part), 0);
	assert_int_equal(analysis_finish(&a), 0);
	json = render(&a, "json");
	analysis_release(&a);
	return json;
}

static void fsync_parts_horizon(void **state)
{
	char *one = fsync_far(0);

	/* the first call: 5,999,000 ns of writes, 1 ms of nothing known */
	assert_non_null(
	    strstr(one, "\"total_ns\": 5999000,\n      \"data_ns\": 5899000,"));
	for (unsigned int parts = 1; parts <= 2; parts++) {
		char *cut = fsync_far(parts);

		assert_string_equal(one, cut);
		free(cut);
	}
	free(one);
}

/* One analysis of 30,000 requests (2,000 of them before the second device
 * appears), their bios, system calls (fsync among them), journal commits,
 * cache flushes, marks, pages made dirty and written back, and the lower
 * requests of zram0 (flows), with the hooks here and in
 * 3 fan-out threads (finishing in 3): the same JSON. The log's batches are
 * handed on many times; a bio handed to the sink after other outputs than
 * its request's (the join does not, the sink's contract allows it: here
 * one of the request before) takes a copy of its request into the log.
 * Or (parts) its outputs cut into that many stretches, each into an
 * analysis of its own (analysis_part_init), merged in order
 * (analysis_merge): the analyzers on the join's segments. */
static char *analysis_json(const char *names, unsigned int threads, unsigned int parts,
			   size_t *nreq)
{
	struct analysis a, part;
	struct join_sink sink;
	char *json;
	uint64_t x = 88172645463325252ull;

	start(&a, names, 0);
	if (threads)
		assert_int_equal(analysis_fanout_start(&a, threads), 0);
	a.threads = threads; /* and finish in as many */
	assert_true(!threads || a.fan);
	sink = analysis_sink(&a);
	if (parts) {
		assert_true(analysis_can_part(&a));
		assert_int_equal(analysis_part_init(&part, &a), 0);
		sink = analysis_sink(&part);
	}
	for (uint32_t i = 0; i < 30000; i++) {
		uint64_t t = 1000000000ull + i * 20000ull;
		uint32_t dev = i < 2000 || i % 3 ? LOOP0 : ZRAM0;
		struct join_request r;
		struct join_bio b = {0};
		static struct join_request prev;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		r = req(dev, i % 5 ? IOT_OP_READ : IOT_OP_WRITE, 8 * (1 + x % 64), t,
			t + 5000 + x % 4000000);
		r.tid = r.pid = 100 + i % 7;
		r.nr_bios = 1 + x % 3;
		r.ino = dev == LOOP0 && i % 2 == 0 ? 7 + i % 3 : 0;
		if (dev == LOOP0 && i % 2) { /* the NVMe driver layer's stamps */
			r.hwq = i % 3;
			r.drv_submit_ns = r.d_ns + 100 + x % 50;
			r.drv_cqe_ns = r.c_ns - 200;
		}
		sink.request(sink.ctx, &r);
		for (uint32_t k = 0; k < r.nr_bios; k++) {
			b.q_ns = t + k * 100;
			b.sector = r.sector + k * 8;
			b.nr_sectors = 8;
			b.tid = b.pid = r.tid;
			/* pages of 3 files, read ahead (a read in 5)
			 * or read, 64 of each: who's pages read ahead and
			 * used later, or read again */
			b.why = (struct join_why){0};
			if (r.flags == IOT_OP_READ && dev == LOOP0 && i % 2 == 0) {
				b.why.known = true;
				b.why.host = IOT_HOST_REG;
				b.why.cause =
				    i % 5 == 2 ? IOT_CAUSE_READAHEAD : IOT_CAUSE_READ;
				b.why.ino = 7 + i % 3;
				b.why.index = (x >> 8) % 64 + k;
			}
			b.ino = b.why.ino;
			sink.bio(sink.ctx, &r, &b);
		}
		if (i % 3 == 0) { /* an io_uring read whose bio it was: after
				   * the request's bios, as the join gives them */
			struct join_uring u = {.req = 0x1000 + i,
					       .opcode = 22,
					       .pid = r.pid,
					       .tid = r.tid,
					       .submit_ns = t - 100 - x % 300,
					       .cqe_ns = r.c_ns + 300,
					       .nr_bios = 1,
					       .nr_bios_done = 1,
					       .first_q_ns = t,
					       .last_c_ns = r.c_ns,
					       .d2c_sum_ns = r.c_ns - t};

			sink.uring(sink.ctx, &u);
		}
		if (i % 7 == 0) { /* a fault on one of them, or fault-around */
			struct join_fault f = {.pid = r.pid,
					       .tid = r.tid,
					       .dev = LOOP0,
					       .ino = 7 + (x >> 20) % 3,
					       .index = (x >> 24) % 64,
					       .pages = 1 + i % 3,
					       .around = i % 2,
					       .ts_ns = t};

			sink.fault(sink.ctx, &f);
		}
		if (i % 4 == 0) {
			struct join_syscall sc = {
			    .pid = r.pid,
			    .tid = r.tid,
			    .nr = syscall_numbers("x86_64")[SK_PREAD64],
			    .count = 4096,
			    .ret = 4096,
			    .dev = LOOP0,
			    /* (10: a file first read late, in a later part) */
			    .ino = i >= 20000 && i % 8 == 0 ? 10 : 7 + (x >> 12) % 3,
			    .pos = (x >> 16) % 64 * 4096,
			    .enter_ns = t - 500,
			    .exit_ns = r.c_ns + 700,
			    .nr_bios_done = 1,
			    .bio_q2c_sum_ns = r.c_ns - t,
			    .i2d_sum_ns = dev == LOOP0 ? 1000 + x % 5000 : 0,
			    .nr_i2d = dev == LOOP0};

			sink.syscall(sink.ctx, &sc);
			if (i) { /* the last request's, on its device, after this one */
				b.q_ns = prev.q_ns + 50;
				sink.bio(sink.ctx, &prev, &b);
			}
		}
		if (i % 40 == 20) { /* a journal commit, and a cache flush */
			struct join_commit cm = {.dev = LOOP0,
						 .tid = i,
						 .start_ns = t - 300000 - x % 200000,
						 .end_ns = t - 1000};
			struct join_request fl = req(LOOP0, IOT_OP_WRITE | IOT_F_PREFLUSH,
						     0, t - 90000, t - 500);

			fl.sector = UINT64_MAX;
			sink.commit(sink.ctx, &cm);
			sink.request(sink.ctx, &fl);
		}
		if (i % 40 == 39) { /* fsync or fdatasync of one of the files,
				     * over the last 40 requests' bios */
			struct join_syscall fs = {
			    .pid = r.pid,
			    .tid = r.tid,
			    .nr = syscall_numbers(
				"x86_64")[i % 80 == 39 ? SK_FSYNC : SK_FDATASYNC],
			    .dev = LOOP0,
			    .ino = 7 + (x >> 4) % 3,
			    .enter_ns = t - 700000 - x % 300000,
			    .exit_ns = t + 3000,
			    .wake_ns = i % 3 ? t - 2000 : 0};

			sink.syscall(sink.ctx, &fs);
		}
		if (i % 6 == 1 || i % 6 == 3) {
			/* a writer's call that made pages dirty: the pages at
			 * its step, the call at its exit 2 steps later (in a
			 * later part, at times), written back at the next */
			uint32_t tid = 200 + i / 6 % 3;
			struct join_dirty d = {.pid = 200,
					       .tid = tid,
					       .dev = LOOP0,
					       .ino = 11,
					       .index = i / 6 * 5 % 64,
					       .pages = 2,
					       .ts_ns = t};
			struct join_syscall w = {
			    .pid = 200,
			    .tid = tid,
			    .nr = syscall_numbers("x86_64")[SK_PWRITE64],
			    .count = 8192,
			    .ret = 8192,
			    .dev = LOOP0,
			    .ino = 11,
			    .enter_ns = t - 40500,
			    .exit_ns = t};

			if (i % 6 == 1)
				sink.dirty(sink.ctx, &d);
			else
				sink.syscall(sink.ctx, &w);
			w.tid = 203; /* and a call of a task that dirties none */
			if (i % 6 == 3)
				sink.syscall(sink.ctx, &w);
		}
		if (i % 2000 == 700 && i < 12000) {
			/* pages a long call made dirty in the first parts,
			 * none in the next ones, the call's exit at the end */
			struct join_dirty d = {.pid = 200,
					       .tid = 204,
					       .dev = LOOP0,
					       .ino = 13,
					       .index = i / 2000,
					       .pages = 1,
					       .ts_ns = t};

			sink.dirty(sink.ctx, &d);
		}
		if (i == 29000) {
			struct join_syscall w = {
			    .pid = 200,
			    .tid = 204,
			    .nr = syscall_numbers("x86_64")[SK_PWRITE64],
			    .count = 4096,
			    .ret = 4096,
			    .dev = LOOP0,
			    .ino = 13,
			    .enter_ns = 999999000,
			    .exit_ns = t};

			sink.syscall(sink.ctx, &w);
		}
		if (i % 6 == 4 || i % 9 == 2 || (i % 2000 == 701 && i < 12000)) {
			/* writeback of those pages, or zram0's lower read */
			bool wb = i % 6 == 4 || i % 2000 == 701;
			bool late = i % 2000 == 701;
			struct join_request l =
			    req(LOOP0, wb ? IOT_OP_WRITE : IOT_OP_READ, 16, t, t + 40000);
			struct join_bio lb = {
			    .q_ns = t,
			    .sector = 9000 + i,
			    .nr_sectors = 16,
			    .tid = 300,
			    .pid = 300,
			    .why = {.known = true,
				    .host = IOT_HOST_REG,
				    .cause = wb ? IOT_CAUSE_WRITEBACK : IOT_CAUSE_READ,
				    .ino = late ? 13
					   : wb ? 11
						: 12,
				    .index = late ? i / 2000
					     : wb ? i / 6 * 5 % 64
						  : 256 + i / 9 % 16}};

			l.tid = l.pid = 300;
			l.nr_bios = 1;
			l.sector = lb.sector;
			sink.request(sink.ctx, &l);
			sink.bio(sink.ctx, &l, &lb);
		}
		prev = r;
		if (i % 1000 == 0) {
			struct join_mark m = {
			    .ts_ns = t, .pid = 1, .tid = 1, .kind = 1 + (i / 1000) % 2};

			snprintf(m.name, sizeof(m.name), "phase");
			sink.mark(sink.ctx, &m);
		}
		if (i % 7 == 0 && i % 1400 == 350 + 700 * (i / 7000 % 2)) {
			/* pid 100's steps, over its requests, a begin and its
			 * end 9800 requests apart (across parts), a point
			 * beside each, an end without its begin at first */
			struct join_mark m = {.ts_ns = t,
					      .pid = 100,
					      .tid = 100,
					      .id = i / 14000,
					      .kind = i < 1000 ? 2 : 1 + (i / 7000) % 2};

			snprintf(m.name, sizeof(m.name), "step");
			sink.mark(sink.ctx, &m);
			m.kind = 0;
			snprintf(m.name, sizeof(m.name), "point");
			sink.mark(sink.ctx, &m);
		}
		/* the join's floor now and then (iosector's): every request to
		 * come has its times after its t but for the cache flushes,
		 * 90 us before theirs (join_sink.floor) */
		if (sink.floor && i % 97 == 96)
			sink.floor(sink.ctx, 1000000000ull + (i + 1) * 20000ull - 100000);
		/* stretches of unequal lengths, the first before zram0 */
		if (parts && (i + 1) % (30000 / parts + 7) == 0) {
			assert_int_equal(analysis_merge(&a, &part), 0);
			assert_int_equal(analysis_part_init(&part, &a), 0);
		}
	}
	{ /* in flight as the trace ended */
		struct join_request u = req(LOOP0, IOT_OP_READ, 8, 1600000000, 0);

		sink.unfinished(sink.ctx, &u);
		u.sector = 4096;
		sink.unfinished(sink.ctx, &u);
	}
	if (parts)
		assert_int_equal(analysis_merge(&a, &part), 0);
	analysis_fanout_end(&a);
	assert_null(a.fan);
	assert_int_equal(analysis_finish(&a), 0);
	*nreq = a.requests_total;
	/* the series view: every value and its time, as CSV; or the JSON
	 * and then the text (the tables' notes) */
	json = render(&a, keep_time ? "csv" : "json");
	if (!keep_time) {
		char *text = render(&a, "text"), *both = NULL;

		assert_true(asprintf(&both, "%s%s", json, text) > 0);
		free(json);
		free(text);
		json = both;
	}
	analysis_release(&a);
	return json;
}

static void fanout_same(void **state)
{
	const char *names =
	    "latency,syscall,biotime,elvtime,iosector,sizes,tasks,who,windows,marks";
	size_t n1, n3;
	char *one = analysis_json(names, 0, 0, &n1),
	     *three = analysis_json(names, 3, 0, &n3);

	/* iosector's floors through the fan-out's log, where they came: none
	 * passed a request before it came */
	assert_null(strstr(one, "iosector_late"));
	/* a flush in 40, writeback, lower reads */
	assert_int_equal(n1, 30000 + 750 + 8334 + 6);
	assert_int_equal(n3, 30000 + 750 + 8334 + 6);
	assert_non_null(strstr(one, "\"zram0\""));
	assert_string_equal(one, three);
	free(one);
	free(three);
}

/* iosector: each device's requests in issue order (by D, ties as they
 * came), whatever order their completions come in: a queue's depth apart,
 * one held back long, or all of them backwards (past what is put in place
 * as it comes: sorted at finish); in one analysis or in parts merged in
 * order. The series view lists each sector with its time, in that order,
 * and the seek from the request before (start less its end). */
#define IO_N 3000
/* floors (join_sink.floor): 0 none; 1 every 50 requests, the least D of
 * those still to come (what the join gives); 2 those, and one past every
 * request after the 1,500th (as if they came late) */
static void iosector_feed(struct analysis *a, const uint32_t *order, unsigned int parts,
			  int floors)
{
	struct analysis part;
	struct join_sink sink = analysis_sink(a);

	assert_non_null(sink.floor);

	if (parts) {
		assert_int_equal(analysis_part_init(&part, a), 0);
		sink = analysis_sink(&part);
	}
	for (uint32_t k = 0; k < IO_N; k++) {
		uint32_t i = order[k];
		/* pairs issued at one time (i and i ^ 1, i / 2 apart) */
		struct join_request r =
		    req(LOOP0, IOT_OP_READ, 8, 1000000000 + i / 2 * 1000, 1500000000 + k);

		r.sector = (uint64_t)(i * 7919u % 100000u) * 8;
		sink.request(sink.ctx, &r);
		if (floors && k % 50 == 49) {
			uint64_t least = UINT64_MAX;

			for (uint32_t j = k + 1; j < IO_N; j++)
				if (1000000000 + order[j] / 2 * 1000 < least)
					least = 1000000000 + order[j] / 2 * 1000;
			sink.floor(sink.ctx, least);
		}
		if (floors == 2 && k == IO_N / 2 - 1)
			sink.floor(sink.ctx, 2000000000);
		if (parts && (k + 1) % (IO_N / parts + 13) == 0) {
			assert_int_equal(analysis_merge(a, &part), 0);
			assert_int_equal(analysis_part_init(&part, a), 0);
		}
	}
	if (parts)
		assert_int_equal(analysis_merge(a, &part), 0);
}

static void iosector_issue_order(void **state)
{
	static uint32_t order[IO_N];

	keep_time = true;
	for (int how = 0; how < 3; how++) {
		for (uint32_t k = 0; k < IO_N; k++) /* as issued */
			order[k] = how == 2 ? IO_N - 1 - k : k;
		if (how == 0) /* completions out of order within 32 */
			for (uint32_t k = 0; k + 32 <= IO_N; k += 32)
				for (uint32_t j = 0; j < 16; j++) {
					uint32_t x = order[k + j];

					order[k + j] = order[k + 31 - j];
					order[k + 31 - j] = x;
				}
		if (how == 1) { /* the 6th issued completes last */
			memmove(order + 5, order + 6, (IO_N - 6) * sizeof(*order));
			order[IO_N - 1] = 5;
		}
		for (unsigned int parts = 0; parts <= 14; parts += 7) {
			static long long secs[IO_N], seeks[IO_N];
			struct analysis a;
			uint32_t pos[IO_N], ns = 0, nk = 0;
			char *csv, *line, *save = NULL;

			for (uint32_t k = 0; k < IO_N; k++)
				pos[order[k]] = k;
			start(&a, "iosector", 0);
			/* 0 and 7 parts without floors, then 7 with */
			iosector_feed(&a, order, parts ? 7 : 0, parts > 7);
			assert_int_equal(analysis_finish(&a), 0);
			csv = render(&a, "csv"); /* time_s,scope,metric,value,unit */
			for (line = strtok_r(csv, "\n", &save); line;
			     line = strtok_r(NULL, "\n", &save)) {
				long long v;
				char what[16];

				if (sscanf(line, "%*[^,],loop0,%15[^,],%lld,", what,
					   &v) != 2)
					continue;
				if (!strcmp(what, "sector") && ns < IO_N)
					secs[ns++] = v;
				else if (!strcmp(what, "seek") && nk < IO_N)
					seeks[nk++] = v;
			}
			free(csv);
			assert_int_equal(ns, IO_N);
			assert_int_equal(nk, IO_N);
			for (uint32_t n = 0, prev = 0; n < IO_N; n++) {
				/* the n-th issued: of the pair issued at one
				 * time, the one that came first, then the other */
				uint32_t a0 = n & ~1u, a1 = a0 | 1u;
				uint32_t i = (pos[a0] < pos[a1]) == !(n & 1) ? a0 : a1;
				long long sector = (long long)(i * 7919u % 100000u) * 8,
					  before =
					      (long long)(prev * 7919u % 100000u) * 8 + 8;

				assert_int_equal(secs[n], sector);
				assert_int_equal(seeks[n], n ? sector - before : 0);
				prev = i;
			}
			/* no request came late */
			assert_int_equal(a.out[0].nr_tables, 0);
			analysis_release(&a);
		}
	}
	keep_time = false;
	/* floors in one analysis, and among 7 parts (each part's replayed by
	 * the merge where it came): the same JSON; and the 1,500 requests
	 * after a floor past them, counted where they came, said */
	for (uint32_t k = 0; k < IO_N; k++)
		order[k] = k;
	for (int floors = 0; floors <= 2; floors++) {
		char *json[2];

		for (unsigned int parts = 0; parts <= 7; parts += 7) {
			struct analysis a;

			start(&a, "iosector", 0);
			iosector_feed(&a, order, parts, floors);
			assert_int_equal(analysis_finish(&a), 0);
			json[!!parts] = render(&a, "json");
			assert_int_equal(a.out[0].nr_tables, floors == 2);
			if (floors == 2) {
				const struct table *t = a.out[0].tables[0];

				assert_string_equal(t->name, "iosector_late");
				assert_int_equal(t->nr_rows, 1);
				assert_int_equal(table_cell(t, 0, 1)->u, IO_N / 2);
			}
			analysis_release(&a);
		}
		assert_string_equal(json[0], json[1]);
		free(json[0]);
		free(json[1]);
	}
}

/* Every analyzer (each merges: analyzer.h), each part of the outputs into
 * an analysis of its own, merged in order: the same JSON as one analysis
 * of them all (and the same series, every value with its time, in order);
 * with a fan-out, no parts. flows follows zram0 as a loop device over a
 * file on loop0, and pages made dirty by calls that exit in the next part
 * or after several. patterns has a layout
 * of 130 directories of a file, the stream's inodes 7 to 9 in the last
 * three (past the first 64 groups), 9 the most fragmented (figure 3-15)
 * and overlay's file */
static void parts_same(void **state)
{
	const char *names =
	    "latency,syscall,biotime,elvtime,iosector,sizes,tasks,who,uring,"
	    "correlate,windows,driver,patterns,fsync,marks,overlay,flows";
	static struct frag_file files[130];
	static struct frag_extent ext[130][3];
	static char paths[130][32];
	struct frag_scan layout = {.files = files, .nr_files = 130, .block_size = 4096};
	struct analysis a;

	for (uint64_t k = 0; k < 130; k++) {
		size_t n = k == 8 ? 3 : 2;

		snprintf(paths[k], sizeof(paths[k]), "/mnt/d%03u/f",
			 (unsigned int)(k + 121) % 130);
		for (size_t e = 0; e < n; e++)
			ext[k][e] = (struct frag_extent){4 * e, 1000 * k + 10 * e, 4, 0};
		files[k] = (struct frag_file){
		    .path = paths[k], .ino = k + 1, .ext = ext[k], .nr_ext = n};
		frag_stats(ext[k], n, &files[k].st);
	}
	test_layout = &layout;

	for (int kt = 0; kt < 2; kt++) {
		size_t n1, n;
		char *one;

		keep_time = kt;
		one = analysis_json(names, 0, 0, &n1);
		assert_non_null(strstr(one, "zram0"));
		assert_true(strlen(one) > (kt ? 30000 * 20 : 10000));
		/* patterns read every part: the file sets read, the figure's
		 * file's bios, the seeks */
		assert_true(kt || (strstr(one, "\"pattern\": \"d129\"") &&
				   strstr(one, "\"inode\": 9,") &&
				   !strstr(one, "\"traced_blocks\": 0,") &&
				   strstr(one, "\"seek_cost\": [\n    {")));
		/* overlay's file: its read blocks */
		assert_true(kt ||
			    strstr(one, "\"overlay\": [\n    {\n      \"order\": 0,"));
		/* pid 100's step across parts, with its requests in it */
		assert_true(kt ||
			    strstr(one, "     100 span  step                      0   "
					"42000.0    240    32884     60     7576\n"));
		/* fsync's calls split over data, journal, flush and wake */
		assert_true(kt || (strstr(one, "\"call\": \"fdatasync\"") &&
				   strstr(one, "\"flush_ns\": 89500,") &&
				   strstr(one, "\"wake_ns\": 5000,")));
		for (unsigned int parts = 1; parts <= 9; parts += 4) {
			char *cut = analysis_json(names, 0, parts, &n);

			assert_int_equal(n, n1);
			assert_string_equal(one, cut);
			free(cut);
		}
		free(one);
	}
	keep_time = false;
	test_layout = NULL;
	/* every analyzer merges; a fan-out does not */
	for (size_t i = 0; i < nr_analyzers; i++)
		assert_non_null(analyzers[i]->merge);
	start(&a, "latency,flows", 0);
	assert_true(analysis_can_part(&a));
	assert_int_equal(analysis_fanout_start(&a, 2), 0);
	assert_false(analysis_can_part(&a));
	analysis_fanout_end(&a);
	analysis_release(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(registry),
	    cmocka_unit_test(sizes),
	    cmocka_unit_test(windows_not_applicable),
	    cmocka_unit_test(table_cells),
	    cmocka_unit_test(syscall_numbers_by_arch),
	    cmocka_unit_test(syscall_analyzer_uses_trace_arch),
	    cmocka_unit_test(overlay),
	    cmocka_unit_test(fsync_split_priority),
	    cmocka_unit_test(fsync_analyzer),
	    cmocka_unit_test(fsync_parts_horizon),
	    cmocka_unit_test(flows_stacked),
	    cmocka_unit_test(fanout_same),
	    cmocka_unit_test(parts_same),
	    cmocka_unit_test(iosector_issue_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
