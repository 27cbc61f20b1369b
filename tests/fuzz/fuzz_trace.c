// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: one input is a trace file. It goes where a trace from
 * another machine goes: the reader, the join, every analyzer (overlay and
 * patterns with a small layout), and every renderer (text in each view, CSV,
 * JSON, HTML), output to /dev/null. And where the reader plans to read it
 * in segments, the segments' records end to end must be the merge's, byte
 * for byte (it traps if not). Built by `make fuzz-bins`.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analyze/analyzer.h"
#include "layout/layout.h"
#include "cli/pipeline.h"
#include "render/render.h"

static struct frag_extent ext[] = {{0, 100, 8, 0}, {8, 300, 8, 0}};
static uint64_t meta[] = {50};
static struct frag_file file = {
    .path = "/E/f00", .ino = 12, .ext = ext, .nr_ext = 2, .meta = meta, .nr_meta = 1};
static struct frag_scan layout = {.files = &file, .nr_files = 1, .block_size = 4096};

#define MAX_RECS 100000

/* trace_reader_plan's promise: its segments read by cursors give the
 * records of trace_reader_next, in its order, and its counts and lists */
static void segments_same(const char *path)
{
	static struct iot_rec merged[MAX_RECS];
	struct trace_reader r, cur;
	struct reader_plan pl;
	const struct iot_rec *rec;
	size_t n = 0, m = 0;
	char err[256];

	if (trace_reader_open(&r, path, err, sizeof(err)))
		return;
	while (trace_reader_next(&r, &rec) == 1 && n < MAX_RECS)
		merged[n++] = *rec;
	if (n < MAX_RECS && trace_reader_plan(&r, 7, 2, &pl) == 1) {
		for (size_t k = 0; k < pl.nr_segs; k++) {
			if (trace_reader_segment(&r, &pl, k, &cur))
				abort(); /* out of memory on a 64 KB input */
			while (trace_reader_next(&cur, &rec) == 1) {
				if (m >= n || memcmp(rec, &merged[m], sizeof(*rec)))
					__builtin_trap();
				m++;
			}
			trace_reader_segment_done(&r, &pl, k, &cur);
		}
		if (m != n || pl.gaps != r.nr_gaps || pl.summaries != r.nr_summaries ||
		    pl.nr_degrades != r.nr_degrades ||
		    (r.nr_degrades && memcmp(pl.degrades, r.degrades,
					     r.nr_degrades * sizeof(*r.degrades))))
			__builtin_trap();
		for (uint32_t c = 0; c < r.nr_streams; c++) { /* and its gaps */
			const struct trace_gap_list *a = &pl.gap_at.s[c].skipped,
						    *b = &r.gaps.s[c].skipped;

			if (a->n != b->n ||
			    (b->n && memcmp(a->g, b->g, b->n * sizeof(*b->g))))
				__builtin_trap();
		}
		reader_plan_release(&pl);
	}
	trace_reader_release(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	int fd = memfd_create("trace", 0);
	char path[64];

	if (!null) {
		null = fopen("/dev/null", "w");
		stderr = null; /* iotrail's messages; sanitizers write to fd 2 */
	}
	if (fd < 0 || !null)
		return 0;
	if (write(fd, data, size) == (ssize_t)size) {
		for (int views = 0; views < 3; views++) {
			struct analysis_env env = {.window_ns = 0,
						   .keep_time = views == 2,
						   .keep_requests = views == 0,
						   .stage_all = true,
						   .layout = &layout,
						   .overlay_file = "E/f00"};
			struct render_opts ro = {.view = (enum view)views,
						 .requests = true};
			struct report_info ri = {
			    .path = "fuzz", .mode = "events", .stop_reason = "unknown"};
			struct pipeline pl;

			snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
			if (!pipeline_run(&pl, path, ~0ull >> (64 - nr_analyzers),
					  &env)) {
				ri.t0_ns = pl.rd.hdr.start_mono_ns;
				ri.drops = pl.rd.drops;
				ri.nr_drops = pl.rd.nr_drops;
				ri.join = pl.jn.st;
				ri.comm = pipeline_comm;
				ri.comm_ctx = &pl;
				render_text(null, &ri, &pl.an, &ro);
				render_csv(null, &ri, &pl.an, &ro);
				render_json(null, &ri, &pl.an, &ro);
				if (views == 1)
					render_html(null, &ri, &pl.an);
			}
			pipeline_release(&pl);
		}
		segments_same(path);
	}
	close(fd);
	return 0;
}
