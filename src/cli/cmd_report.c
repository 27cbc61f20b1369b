// SPDX-License-Identifier: GPL-2.0
/*
 * iotrail report: reader -> join -> analyzers -> renderer, in one pass over
 * the trace with memory bounded by the in-flight requests (plus the samples
 * the chosen views keep).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analyze/analysis.h"
#include "../layout/layout_json.h"
#include "../join/join.h"
#include "../render/chart.h"
#include "../render/render.h"
#include "../trace/reader.h"
#include "../util/parse.h"
#include "cli.h"

static void report_usage(FILE *f)
{
	fprintf(
	    f, "usage: iotrail report [-i FILE] [--analyzer NAME]... [--view "
	       "stats|hist|series]\n"
	       "                      [--window TIME] [--format text|csv|json] "
	       "[--requests]\n"
	       "\n"
	       "  -i, --input FILE      trace file (default iotrail.iot)\n"
	       "  -a, --analyzer NAME   latency (default), syscall, biotime, elvtime,\n"
	       "                        iosector, correlate; repeat or comma-separate\n"
	       "  -v, --view VIEW       stats (default), hist (log2), series (CSV)\n"
	       "  -w, --window TIME     per-window records (100ms, 1s)\n"
	       "  -f, --format FMT      text (default), csv, json\n"
	       "  -r, --requests        list every request with its stage times\n"
	       "      --layout FILE     a layout from `iotrail frag -f json`: the\n"
	       "                        patterns analyzer groups reads by its\n"
	       "                        directories; --html adds the layout figures\n"
	       "      --html FILE       write one self-contained HTML page with SVG\n"
	       "                        charts (seed 000's figures, latency per device,\n"
	       "                        windows, drops) instead of the text report\n"
	       "  TIME may be 'auto' for --window: about 50 windows over the trace\n");
}

struct names {
	const struct trace_reader *r;
	char buf[32];
};

static const char *dev_name(void *ctx, uint32_t dev)
{
	struct names *n = ctx;
	const struct iot_dev_entry *e = trace_reader_dev(n->r, dev);

	if (e)
		return e->name;
	snprintf(n->buf, sizeof(n->buf), "%u:%u", dev >> 20, dev & 0xfffff);
	return n->buf;
}

static bool is_bio_based(void *ctx, uint32_t dev)
{
	struct names *n = ctx;
	const struct iot_dev_entry *e = trace_reader_dev(n->r, dev);

	return e ? (e->flags & IOT_DEV_BIO_BASED) != 0 : true;
}

/* A filesystem's st_dev: traced (in the device table), and where its
 * partition starts. */
static bool fs_dev(void *ctx, uint32_t st_dev, uint64_t *part_start)
{
	struct names *n = ctx;
	const struct iot_dev_entry *e = trace_reader_dev(n->r, st_dev);

	if (!e)
		return false;
	*part_start = e->start_sector;
	return true;
}

static const char *comm_of(void *ctx, uint32_t tid)
{
	struct names *n = ctx;
	const struct iot_task_entry *t = trace_reader_task(n->r, tid);

	return t ? t->comm : "?";
}

static int add_analyzers(const char *arg, unsigned int *set)
{
	char buf[256], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int an = analyzer_by_name(tok);

		if (an < 0)
			return usage_error("--analyzer %s: unknown (latency, syscall, "
					   "biotime, elvtime, iosector, correlate)",
					   tok);
		*set |= an;
	}
	return 0;
}

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"input", required_argument, NULL, 'i'},
	    {"analyzer", required_argument, NULL, 'a'},
	    {"view", required_argument, NULL, 'v'},
	    {"window", required_argument, NULL, 'w'},
	    {"format", required_argument, NULL, 'f'},
	    {"requests", no_argument, NULL, 'r'},
	    {"layout", required_argument, NULL, 'L'},
	    {"html", required_argument, NULL, 'H'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	struct render_opts ro = {.view = VIEW_STATS, .format = FMT_TEXT};
	const char *input = "iotrail.iot", *layout_path = NULL, *html = NULL;
	struct frag_scan layout = {0};
	struct groups groups;
	bool have_groups = false, window_auto = false;
	FILE *out = stdout;
	struct trace_reader rd;
	struct report_info ri;
	struct analysis an;
	struct join jn;
	struct join_sink sink;
	struct names names;
	uint64_t window_ns = 0;
	char errbuf[512], mode[32], kernel[128];
	const struct iot_rec *rec;
	int c, err, ret = 1;

	optind = 1;
	while ((c = getopt_long(argc, argv, "i:a:v:w:f:rh", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			input = optarg;
			break;
		case 'a':
			if (add_analyzers(optarg, &ro.analyzers))
				return 2;
			break;
		case 'v':
			if (!strcmp(optarg, "stats"))
				ro.view = VIEW_STATS;
			else if (!strcmp(optarg, "hist"))
				ro.view = VIEW_HIST;
			else if (!strcmp(optarg, "series"))
				ro.view = VIEW_SERIES;
			else
				return usage_error("--view %s: not stats, hist or series",
						   optarg);
			break;
		case 'w':
			if (!strcmp(optarg, "auto"))
				window_auto = true;
			else if (parse_time(optarg, &window_ns) || !window_ns)
				return usage_error(
				    "--window %s: not a time (try 100ms, 1s)", optarg);
			ro.windows = true;
			break;
		case 'f':
			if (!strcmp(optarg, "text"))
				ro.format = FMT_TEXT;
			else if (!strcmp(optarg, "csv"))
				ro.format = FMT_CSV;
			else if (!strcmp(optarg, "json"))
				ro.format = FMT_JSON;
			else
				return usage_error("--format %s: not text, csv or json",
						   optarg);
			break;
		case 'r':
			ro.requests = true;
			break;
		case 'L':
			layout_path = optarg;
			break;
		case 'H':
			html = optarg;
			break;
		case 'h':
			report_usage(stdout);
			return 0;
		default:
			report_usage(stderr);
			return 2;
		}
	}
	if (optind < argc)
		return usage_error("report: unexpected argument '%s'", argv[optind]);
	if (html) {
		ro.analyzers |= AN_LATENCY | AN_CORRELATE | AN_PATTERNS;
		if (!ro.windows)
			window_auto = ro.windows = true;
	}
	if (!ro.analyzers)
		ro.analyzers = layout_path ? AN_PATTERNS : AN_LATENCY;
	if (layout_path &&
	    frag_layout_load(layout_path, &layout, errbuf, sizeof(errbuf))) {
		fprintf(stderr, "iotrail: %s\n", errbuf);
		return 2;
	}

	err = trace_reader_open(&rd, input, errbuf, sizeof(errbuf));
	if (err) {
		fprintf(stderr, "iotrail: %s\n", errbuf);
		frag_scan_release(&layout);
		return 1;
	}
	names.r = &rd;
	if (window_auto) {
		/* about 50 windows, a 1-2-5 multiple of a millisecond */
		uint64_t dur = rd.has_end && rd.end.end_mono_ns > rd.hdr.start_mono_ns
				   ? rd.end.end_mono_ns - rd.hdr.start_mono_ns
				   : 0;

		window_ns = (uint64_t)nice_ceil((double)dur / 50 / 1e6) * 1000000ull;
		if (!window_ns)
			window_ns = 1000000;
	}
	analysis_init(&an, ro.analyzers, ro.view == VIEW_SERIES, rd.hdr.start_mono_ns,
		      window_ns, ro.requests, dev_name, &names);
	an.want_stage_all = ro.format == FMT_JSON;
	if (ro.analyzers & AN_PATTERNS) {
		if (groups_init(&groups, layout_path ? &layout : NULL, an.syscall_nr,
				fs_dev, &names)) {
			fprintf(stderr, "iotrail: out of memory\n");
			goto cleanup_an;
		}
		have_groups = true;
		an.groups = &groups;
	}
	sink = analysis_sink(&an);
	if (join_init(&jn, &sink, is_bio_based, &names)) {
		fprintf(stderr, "iotrail: out of memory\n");
		goto cleanup_an;
	}
	while ((err = trace_reader_next(&rd, &rec)) == 1) {
		if (join_feed(&jn, rec)) {
			err = -1;
			break;
		}
	}
	/* --aggregate recordings: the kernel's histograms */
	for (size_t i = 0; i < rd.nr_aggs; i++) {
		const struct reader_chunk *ch = &rd.aggs[i];
		struct iot_agg_header h;

		if (ch->size < sizeof(h))
			continue;
		memcpy(&h, rd.map + ch->offset, sizeof(h));
		for (uint32_t k = 0;
		     k < h.nr_entries &&
		     sizeof(h) + (k + 1) * sizeof(struct iot_agg_entry) <= ch->size;
		     k++) {
			struct iot_agg_entry e;

			memcpy(&e, rd.map + ch->offset + sizeof(h) + k * sizeof(e),
			       sizeof(e));
			analysis_add_agg(&an, e.dev, e.op, e.metric, e.sum, e.buckets);
		}
	}
	if (err < 0 || analysis_finish(&an)) {
		fprintf(stderr, "iotrail: %s: out of memory\n", input);
		goto cleanup;
	}
	if (rd.warning[0])
		fprintf(stderr, "iotrail: warning: %s\n", rd.warning);

	trace_reader_meta(&rd, "mode", mode, sizeof(mode));
	trace_reader_meta(&rd, "kernel", kernel, sizeof(kernel));
	memset(&ri, 0, sizeof(ri));
	ri.path = input;
	ri.mode = mode[0] ? mode : "events";
	ri.kernel = kernel;
	ri.nr_cpus = rd.hdr.nr_cpus;
	ri.events = jn.st.events;
	ri.gaps = rd.nr_gaps;
	ri.kernel_misses = rd.has_end ? rd.end.kernel_misses : 0;
	ri.t0_ns = rd.hdr.start_mono_ns;
	ri.duration_ns = rd.has_end && rd.end.end_mono_ns > rd.hdr.start_mono_ns
			     ? rd.end.end_mono_ns - rd.hdr.start_mono_ns
			     : 0;
	{
		static const char *const reasons[] = {"unknown", "command", "duration",
						      "signal",	 "error",   "fill",
						      "trigger"};

		ri.stop_reason = rd.has_end && rd.end.reason <= IOT_STOP_TRIGGER
				     ? reasons[rd.end.reason]
				     : "unknown";
		ri.stop = rd.has_stop ? &rd.stop : NULL;
		ri.spec = rd.has_spec ? &rd.spec : NULL;
	}
	ri.drops = rd.drops;
	ri.nr_drops = rd.nr_drops;
	ri.join = jn.st;
	ri.comm = comm_of;
	ri.comm_ctx = &names;
	if (html) {
		out = fopen(html, "we");
		if (!out) {
			fprintf(stderr, "iotrail: --html %s: %s\n", html,
				strerror(errno));
			out = stdout;
			goto cleanup;
		}
		render_html(out, &ri, &an, layout_path ? &layout : NULL);
	} else {
		switch (ro.format) {
		case FMT_TEXT:
			render_text(out, &ri, &an, &ro);
			break;
		case FMT_CSV:
			render_csv(out, &ri, &an, &ro);
			break;
		case FMT_JSON:
			render_json(out, &ri, &an, &ro);
			break;
		}
	}
	if (out == stdout ? fflush(out) != 0 : fclose(out) != 0) {
		fprintf(stderr, "iotrail: %s: %s\n", html ? html : "stdout",
			strerror(errno));
		out = stdout;
		goto cleanup;
	}
	out = stdout;
	/* a damaged file still gets its report, but says so in the status */
	ret = rd.warning[0] ? 3 : 0;
cleanup:
	if (out != stdout)
		fclose(out);
	join_release(&jn);
cleanup_an:
	if (have_groups)
		groups_release(&groups);
	analysis_release(&an);
	trace_reader_release(&rd);
	frag_scan_release(&layout);
	return ret;
}
