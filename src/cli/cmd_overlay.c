// SPDX-License-Identifier: GPL-2.0
/*
 * iotrail overlay: the traced reads of one file against its layout (seed
 * 000, figure 3-15): the overlay analyzer (src/analyze/overlay.h) over the
 * trace, printed as text or CSV, and drawn as SVG through render/chart.c.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analyze/overlay.h"
#include "../layout/layout_json.h"
#include "../render/chart.h"
#include "cli.h"
#include "pipeline.h"

/* traced access order (x) against the block in the file (y); a block the
 * layout does not place in the file sits on the bottom edge, in red */
static void svg(FILE *f, const struct overlay_priv *p)
{
	size_t n = p->nr_acc, step = 1 + n / 4000; /* at most ~4000 dots */
	double *xs = malloc(2 * ((n + step - 1) / step + 1) * sizeof(double)), *ys;
	size_t m = 0, k;
	struct chart c;
	char title[512], cap[256];

	if (!xs)
		return;
	ys = xs + (n + step - 1) / step + 1;
	snprintf(title, sizeof(title), "Traced read order against file block order: %s",
		 p->file->path);
	chart_begin(&c, f, NULL, title, 900, 480, false);
	c.x = (struct axis){.min = 0,
			    .max = (double)(n ? n : 1),
			    .unit = AX_PLAIN,
			    .label = "traced access order (blocks)"};
	c.y = (struct axis){.min = 0,
			    .max = (double)(p->file_blocks ? p->file_blocks : 1),
			    .unit = AX_PLAIN,
			    .label = "block in the file (layout)"};
	chart_axes(&c);
	/* the file's blocks; its mapping blocks and blocks elsewhere on the
	 * bottom edge */
	for (int pass = 0; pass < 3; pass++) {
		static const char *const color[] = {"#1f5fbf", "#ff8c00", "#e00000"};

		m = 0;
		for (k = 0; k < n; k += step) {
			int64_t fb = p->acc[k].file_block;

			if (pass != (fb >= 0 ? 0 : fb == OVERLAY_MAPPING ? 1 : 2))
				continue;
			xs[m] = (double)k;
			ys[m++] = fb >= 0 ? (double)fb : 0;
		}
		chart_dots(&c, &c.y, xs, ys, m, color[pass]);
	}
	chart_legend(&c, "a block of the file", "#1f5fbf", false);
	chart_legend(&c, "one of its mapping blocks (bottom edge)", "#ff8c00", false);
	chart_legend(&c, "elsewhere (bottom edge)", "#e00000", false);
	snprintf(cap, sizeof(cap),
		 "%zu traced blocks, %zu (%.1f%%) where the layout says", n, p->where,
		 n ? 100.0 * (double)p->where / (double)n : 0.0);
	chart_end(&c, cap);
	free(xs);
}

int cmd_overlay(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"input", required_argument, NULL, 'i'},
	    {"layout", required_argument, NULL, 'l'},
	    {"format", required_argument, NULL, 'f'},
	    {"svg", required_argument, NULL, 'S'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	const char *input = "iotrail.iot", *layout = NULL, *format = "text",
		   *svgpath = NULL;
	struct analysis_env env = {0};
	struct frag_scan s = {0};
	const struct overlay_priv *p;
	struct pipeline pl = {0};
	char err[512];
	int c, ret = 2;

	optind = 1;
	while ((c = getopt_long(argc, argv, "i:l:f:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			input = optarg;
			break;
		case 'l':
			layout = optarg;
			break;
		case 'f':
			if (strcmp(optarg, "text") && strcmp(optarg, "csv"))
				return usage_error("--format %s: not text or csv",
						   optarg);
			format = optarg;
			break;
		case 'S':
			svgpath = optarg;
			break;
		case 'h':
			printf(
			    "usage: iotrail overlay -i TRACE --layout LAYOUT.json [-f "
			    "text|csv] [--svg FILE] FILE\n"
			    "\n"
			    "  The bios read while a task was inside a read system call\n"
			    "  on FILE, as filesystem blocks, against FILE's blocks in "
			    "the\n"
			    "  layout (from `iotrail frag -f json`). The same as\n"
			    "  `iotrail report -a overlay --layout LAYOUT --file "
			    "FILE`.\n");
			return 0;
		default:
			return 2;
		}
	}
	if (!layout || optind != argc - 1)
		return usage_error("overlay: -i TRACE --layout LAYOUT FILE (one file)");
	if (frag_layout_load(layout, &s, err, sizeof(err))) {
		fprintf(stderr, "iotrail: %s\n", err);
		return 2;
	}
	if (!frag_scan_find(&s, argv[optind])) {
		fprintf(stderr,
			"iotrail: %s: not (or not once) among the %zu files of %s\n",
			argv[optind], s.nr_files, layout);
		goto cleanup;
	}
	env.layout = &s;
	env.overlay_file = argv[optind];
	ret = pipeline_run(&pl, input, AN_BIT(analyzer_index("overlay")), &env);
	if (ret)
		goto cleanup;
	ret = 1; /* from here on, errors are the run's, not the usage's */
	p = analysis_output(&pl.an, "overlay")->priv;
	if (!p->nr_acc) {
		fprintf(stderr,
			"iotrail: %s: no traced reads of inode %" PRIu64
			" (%s); record with system calls, while the file is read\n",
			input, p->file->ino, p->file->path);
		goto cleanup;
	}
	if (!strcmp(format, "csv")) {
		printf("order,time_s,fs_block,file_block,where\n");
		for (size_t i = 0; i < p->nr_acc; i++)
			printf("%zu,%.9f,%" PRIu64 ",%" PRId64 ",%s\n", i,
			       (double)(p->acc[i].ts_ns - pl.rd.hdr.start_mono_ns) / 1e9,
			       p->acc[i].block, p->acc[i].file_block,
			       p->acc[i].file_block >= 0		 ? "data"
			       : p->acc[i].file_block == OVERLAY_MAPPING ? "mapping"
									 : "elsewhere");
	} else {
		const struct overlay_access *a = p->acc;

		printf("# %s: reads of %s (inode %" PRIu64
		       ") on %s, partition start %" PRIu64
		       ", %u-byte blocks: P_B = (P_S - %" PRIu64 ") / %" PRIu64 "\n",
		       input, p->file->path, p->file->ino, p->fs_name, p->part_start,
		       p->block_size, p->part_start, p->per_block);
		printf("%8s %14s %12s %12s\n", "ORDER", "TIME_S", "FS_BLOCK",
		       "FILE_BLOCK");
		for (size_t i = 0; i < p->nr_acc; i++) {
			if (i && a[i].file_block == a[i - 1].file_block + 1 &&
			    i + 1 < p->nr_acc &&
			    a[i + 1].file_block == a[i].file_block + 1)
				continue; /* inside a sequential run: its ends say it */
			printf("%8zu %14.6f %12" PRIu64 " %12" PRId64 "%s\n", i,
			       (double)(a[i].ts_ns - pl.rd.hdr.start_mono_ns) / 1e9,
			       a[i].block, a[i].file_block,
			       a[i].file_block == OVERLAY_MAPPING ? "  its mapping block"
			       : a[i].file_block == OVERLAY_ELSEWHERE
				   ? "  not in the layout"
				   : "");
		}
	}
	fprintf(
	    stderr,
	    "iotrail: %zu traced blocks of %s, %zu (%.1f%%) where the layout says (its "
	    "data or mapping blocks)\n",
	    p->nr_acc, p->file->path, p->where,
	    100.0 * (double)p->where / (double)p->nr_acc);
	if (svgpath) {
		FILE *f = fopen(svgpath, "we");

		if (!f) {
			fprintf(stderr, "iotrail: %s: %s\n", svgpath, strerror(errno));
			goto cleanup;
		}
		svg(f, p);
		if (fclose(f)) {
			fprintf(stderr, "iotrail: %s: %s\n", svgpath, strerror(errno));
			goto cleanup;
		}
	}
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "iotrail: standard output: %s\n", strerror(errno));
		goto cleanup;
	}
	/* a damaged trace still gets its overlay, but says so in the status */
	ret = pl.rd.warning[0] ? 3 : 0;
cleanup:
	pipeline_release(&pl);
	frag_scan_release(&s);
	return ret;
}
