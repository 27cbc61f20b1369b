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
#include <sys/stat.h>

#include "../analyze/analyzer.h"
#include "../analyze/flows.h"
#include "../export/export.h"
#include "../layout/layout_json.h"
#include "../join/join.h"
#include "../render/render.h"
#include "../trace/reader.h"
#include "../util/parse.h"
#include "../repair/repair.h"
#include "cli.h"
#include "pipeline.h"

static void report_usage(FILE *f)
{
	char list[256];

	analyzer_list(list, sizeof(list));
	fprintf(
	    f,
	    "usage: iotrail report [-i FILE] [--analyzer NAME]... [--view "
	    "stats|hist|series]\n"
	    "                      [--window TIME|auto] [--format text|csv|json] "
	    "[--requests]\n"
	    "                      [--time FROM,TO]\n"
	    "                      [--layout LAYOUT.json] [--html FILE] [--out-dir "
	    "DIR]\n"
	    "\n"
	    "  -i, --input FILE      trace file (default iotrail.iot)\n"
	    "  -a, --analyzer NAME   repeat or comma-separate; latency is the default\n"
	    "                        (patterns with --layout):\n");
	for (size_t i = 0; i < nr_analyzers; i++)
		fprintf(f, "                          %-10s %s\n", analyzers[i]->name,
			analyzers[i]->help);
	fprintf(
	    f,
	    "  -v, --view VIEW       stats (default), hist (log2), series (CSV)\n"
	    "  -w, --window TIME     per-window records (100ms, 1s, or auto: about\n"
	    "                        50 windows); the windows analyzer\n"
	    "  -f, --format FMT      text (default), csv, json; chrome with the flows\n"
	    "                        analyzer alone (Perfetto, chrome://tracing)\n"
	    "  -r, --requests        list every request with its stage times\n"
	    "      --measured-only   leave out requests with a time `iotrail repair`\n"
	    "                        estimated (they are counted either way)\n"
	    "      --time FROM,TO    analyse what ended between FROM and TO after\n"
	    "                        the trace's start (2s,4s; 1m,; ,500ms): a\n"
	    "                        request by its completion, a call by its exit\n"
	    "                        (the flows of a long trace in less memory)\n"
	    "      --layout FILE     a layout from `iotrail frag -f json`: the\n"
	    "                        patterns analyzer groups reads by its\n"
	    "                        directories; --html adds the seed's figures\n"
	    "      --html FILE       write one self-contained HTML page with SVG\n"
	    "                        charts (stages and latency per device, stages\n"
	    "                        over time, losses; the seed's figures with a\n"
	    "                        layout) instead of the text report\n"
	    "      --out-dir DIR     every format from one analysis: report.txt,\n"
	    "                        report.json, report.html and ANALYZER.csv\n"
	    "      --file FILE       the overlay analyzer's file (with --layout)\n"
	    "      --by KEYS         the who analyzer's rows: task, cgroup, file,\n"
	    "                        cause, or several (--by cgroup,cause)\n"
	    "      --top N           the who analyzer's N rows with the most bytes;\n"
	    "                        fsync's longest calls, uring's slowest requests\n"
	    "      --slowest N|all   the flows analyzer's N slowest flows with their\n"
	    "                        timelines (default 20)\n"
	    "      --id N            the flows analyzer's flow N alone\n"
	    "      --where layer=L[@DEV]  the flows with time in layer L (syscall,\n"
	    "                        queue, device, loop), at DEV, most first\n"
	    "      --threads N       1: one thread; 2: the trace is read in a\n"
	    "                        thread of its own, beside the join; 3: the\n"
	    "                        analyzers get a thread of their own; 4 and\n"
	    "                        more: the join runs on the threads past two\n"
	    "                        (segments stitched where their states meet;\n"
	    "                        read there too where the trace is in time\n"
	    "                        order but for neighbours),\n"
	    "                        the analyzers on half of them when there are\n"
	    "                        2 or more; they finish on N (the same output;\n"
	    "                        default: the CPUs, the join on at most 8, or\n"
	    "                        16 where the trace is read in segments)\n"
	    "  analyzers: %s\n",
	    list);
}

/* --time FROM,TO: either side empty (the start, the end) or 0, TO after
 * FROM. 0 or -EINVAL. */
static int parse_span(const char *arg, uint64_t *from, uint64_t *to)
{
	const char *comma = strchr(arg, ',');
	char a[64];
	size_t n;

	if (!comma || strchr(comma + 1, ','))
		return -EINVAL;
	n = (size_t)(comma - arg);
	if (n >= sizeof(a))
		return -EINVAL;
	memcpy(a, arg, n);
	a[n] = 0;
	*from = *to = 0;
	if (a[0] && strcmp(a, "0") && parse_time(a, from))
		return -EINVAL;
	if (comma[1] && parse_time(comma + 1, to))
		return -EINVAL;
	return *to && *to <= *from ? -EINVAL : 0;
}

static int add_analyzers(const char *arg, uint64_t *set)
{
	char buf[256], list[256], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int i = analyzer_index(tok);

		if (i < 0) {
			analyzer_list(list, sizeof(list));
			return usage_error("--analyzer %s: unknown (%s)", tok, list);
		}
		*set |= AN_BIT(i);
	}
	return 0;
}

/* one file of --out-dir */
static FILE *out_open(const char *dir, const char *name, char *path, size_t len)
{
	FILE *f;

	snprintf(path, len, "%s/%s", dir, name);
	f = fopen(path, "we");
	if (!f)
		fprintf(stderr, "iotrail: %s: %s\n", path, strerror(errno));
	return f;
}

static int out_close(FILE *f, const char *path)
{
	if (fclose(f)) {
		fprintf(stderr, "iotrail: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int write_out_dir(const char *dir, const struct report_info *ri,
			 const struct analysis *a, const struct render_opts *ro)
{
	char path[4096], name[64];
	FILE *f;

	if (mkdir(dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "iotrail: --out-dir %s: %s\n", dir, strerror(errno));
		return -1;
	}
	if (!(f = out_open(dir, "report.txt", path, sizeof(path))))
		return -1;
	render_text(f, ri, a, ro);
	if (out_close(f, path) || !(f = out_open(dir, "report.json", path, sizeof(path))))
		return -1;
	render_json(f, ri, a, ro);
	if (out_close(f, path) || !(f = out_open(dir, "report.html", path, sizeof(path))))
		return -1;
	render_html(f, ri, a);
	if (out_close(f, path))
		return -1;
	for (size_t i = 0; i < a->nr_out; i++) {
		snprintf(name, sizeof(name), "%s.csv", a->out[i].an->name);
		if (!(f = out_open(dir, name, path, sizeof(path))))
			return -1;
		render_csv_output(f, ri, &a->out[i], ro);
		if (out_close(f, path))
			return -1;
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
	    {"measured-only", no_argument, NULL, 'M'},
	    {"time", required_argument, NULL, 't'},
	    {"layout", required_argument, NULL, 'L'},
	    {"html", required_argument, NULL, 'H'},
	    {"out-dir", required_argument, NULL, 'O'},
	    {"file", required_argument, NULL, 'F'},
	    {"by", required_argument, NULL, 'B'},
	    {"top", required_argument, NULL, 'T'},
	    {"id", required_argument, NULL, 'D'},
	    {"slowest", required_argument, NULL, 'S'},
	    {"where", required_argument, NULL, 'W'},
	    {"threads", required_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	struct render_opts ro = {.view = VIEW_STATS};
	enum out_format format = FMT_TEXT;
	const char *input = "iotrail.iot", *layout_path = NULL, *html = NULL,
		   *out_dir = NULL;
	struct frag_scan layout = {0};
	struct analysis_env env = {0};
	uint64_t set = 0;
	bool windows = false, chrome = false;
	FILE *out = stdout;
	struct pipeline pl;
	struct report_info ri;
	char imported[32], models[512], flows[2048];
	uint64_t window_ns = 0; /* 0 with windows: auto */
	char errbuf[512], mode[32], kernel[128], layers[64];
	int c, ret = 1;

	optind = 1;
	while ((c = getopt_long(argc, argv, "i:a:v:w:f:rh", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			input = optarg;
			break;
		case 'a':
			if (add_analyzers(optarg, &set))
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
			if (strcmp(optarg, "auto") &&
			    (parse_time(optarg, &window_ns) || !window_ns))
				return usage_error(
				    "--window %s: not a time (try 100ms, 1s, auto)",
				    optarg);
			windows = true;
			break;
		case 'f':
			if (!strcmp(optarg, "text"))
				format = FMT_TEXT;
			else if (!strcmp(optarg, "csv"))
				format = FMT_CSV;
			else if (!strcmp(optarg, "json"))
				format = FMT_JSON;
			else if (!strcmp(optarg, "chrome"))
				chrome = true;
			else
				return usage_error(
				    "--format %s: not text, csv or json (or chrome, with "
				    "the flows analyzer)",
				    optarg);
			break;
		case 'r':
			ro.requests = true;
			break;
		case 'M':
			env.measured_only = true;
			break;
		case 't':
			if (parse_span(optarg, &env.time_from, &env.time_to))
				return usage_error(
				    "--time %s: not FROM,TO (times after the "
				    "trace's start, TO after FROM: 2s,4s; "
				    "1m,; ,500ms)",
				    optarg);
			break;
		case 'L':
			layout_path = optarg;
			break;
		case 'H':
			html = optarg;
			break;
		case 'O':
			out_dir = optarg;
			break;
		case 'F':
			env.overlay_file = optarg;
			break;
		case 'B':
			env.who_by = optarg;
			set |= AN_BIT(analyzer_index("who"));
			break;
		case 'T': {
			char *end;
			unsigned long long n = strtoull(optarg, &end, 10);

			if (*end || end == optarg || !n || optarg[0] == '-')
				return usage_error("--top %s: not a positive count",
						   optarg);
			env.top = n;
			break;
		}
		case 'j': {
			char *end;
			long n = strtol(optarg, &end, 10);

			if (*end || end == optarg || n < 1 || n > 1024)
				return usage_error(
				    "--threads %s: not a count from 1 to 1024", optarg);
			pipeline_set_threads((int)n);
			break;
		}
		case 'D':
		case 'S': {
			uint64_t n = 0;

			if (c == 'S' && !strcmp(optarg, "all")) {
				env.flow_slowest = SIZE_MAX;
			} else if (parse_count(optarg, &n) || !n) {
				return usage_error("--%s %s: not a positive count%s",
						   c == 'D' ? "id" : "slowest", optarg,
						   c == 'S' ? " or all" : "");
			} else if (c == 'D') {
				env.flow_id = n;
			} else {
				env.flow_slowest = n;
			}
			set |= AN_BIT(analyzer_index("flows"));
			break;
		}
		case 'W':
			if (strncmp(optarg, "layer=", 6))
				return usage_error("--where %s: not layer=LAYER[@DEV]",
						   optarg);
			if (flows_where_check(optarg + 6))
				return usage_error("--where %s: not a layer (syscall, "
						   "fault, cache, queue, "
						   "device, loop), or @ without a device",
						   optarg);
			env.flow_where = optarg + 6;
			set |= AN_BIT(analyzer_index("flows"));
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
	if (!set)
		set = AN_BIT(analyzer_index(layout_path ? "patterns" : "latency"));
	if (chrome && set != AN_BIT(analyzer_index("flows")))
		return usage_error("--format chrome: the flows analyzer's alone (iotrail "
				   "flows -f chrome)");
	if (chrome && (html || out_dir || ro.requests))
		return usage_error("--format chrome: not with --html, --out-dir or "
				   "--requests");
	if (html || out_dir) {
		/* what every trace has; the seed's figures with a layout */
		set |= AN_BIT(analyzer_index("latency"));
		windows = true;
		if (layout_path)
			set |= AN_BIT(analyzer_index("correlate")) |
			       AN_BIT(analyzer_index("patterns"));
	}
	if (windows)
		set |= AN_BIT(analyzer_index("windows"));
	if ((set & AN_BIT(analyzer_index("overlay"))) &&
	    !(layout_path && env.overlay_file))
		return usage_error(
		    "--analyzer overlay: needs --layout LAYOUT and --file FILE");
	if (layout_path &&
	    frag_layout_load(layout_path, &layout, errbuf, sizeof(errbuf))) {
		fprintf(stderr, "iotrail: %s\n", errbuf);
		return 2;
	}

	env.window_ns = window_ns;
	env.keep_time = ro.view == VIEW_SERIES;
	env.keep_requests = ro.requests;
	env.stage_all = format == FMT_JSON || out_dir;
	env.layout = layout_path ? &layout : NULL;
	ret = pipeline_run(&pl, input, set, &env);
	if (ret)
		goto cleanup;
	ret = 1;

	trace_reader_meta(&pl.rd, "mode", mode, sizeof(mode));
	trace_reader_meta(&pl.rd, "kernel", kernel, sizeof(kernel));
	memset(&ri, 0, sizeof(ri));
	ri.path = input;
	ri.mode = mode[0] ? mode : "events";
	/* an --aggregate recording without the key timed the system calls */
	trace_reader_meta(&pl.rd, "aggregate", layers, sizeof(layers));
	if (!layers[0] && !strcmp(ri.mode, "aggregate"))
		snprintf(layers, sizeof(layers), "block,syscall");
	ri.agg_layers = layers;
	ri.kernel = kernel;
	ri.nr_cpus = pl.rd.hdr.nr_cpus;
	ri.events = pl.jn.st.events;
	ri.gaps = pl.rd.nr_gaps;
	ri.kernel_misses = pl.rd.has_end ? pl.rd.end.kernel_misses : 0;
	if (pl.rd.has_end) {
		ri.marks_dropped = pl.rd.end.marks_dropped;
		ri.marks_torn = pl.rd.end.marks_torn;
		ri.marks_bad_rings = pl.rd.end.marks_bad_rings;
	}
	ri.t0_ns = pl.rd.hdr.start_mono_ns;
	ri.duration_ns = trace_reader_duration_ns(&pl.rd);
	ri.complete = pl.rd.has_end;
	ri.drops_known = pl.rd.has_drops;
	ri.stop_reason = trace_reader_stop_reason(&pl.rd);
	ri.stop = pl.rd.has_stop ? &pl.rd.stop : NULL;
	ri.spec = pl.rd.has_spec ? &pl.rd.spec : NULL;
	ri.drops = pl.rd.drops;
	ri.nr_drops = pl.rd.nr_drops;
	ri.drop_stretches = pl.rd.drop_stretches;
	ri.nr_drop_stretches = pl.rd.nr_drop_stretches;
	ri.degrades = pl.rd.degrades;
	ri.nr_degrades = pl.rd.nr_degrades;
	ri.summaries = pl.rd.nr_summaries;
	ri.join = pl.jn.st;
	/* --aggregate: requests issued with no completion seen, as the
	 * events' lost completions */
	ri.join.lost_completions += pl.rd.agg_lost;
	ri.join.unfinished += pl.rd.has_end ? pl.rd.end.unfinished : 0;
	ri.comm = pipeline_comm;
	if (pl.rd.hdr.repair_method) {
		ri.repair_method = pl.rd.hdr.repair_method - 1 < NR_RM
				       ? repair_method_names[pl.rd.hdr.repair_method - 1]
				       : "unknown";
		ri.repair_estimated = pl.rd.hdr.repair_estimated;
		ri.repair_mae_ns = pl.rd.hdr.repair_mae_ns;
	}
	ri.requests_estimated = pl.an.requests_estimated;
	ri.requests_excluded = pl.an.requests_excluded;
	ri.syscalls_estimated = pl.an.syscalls_estimated;
	ri.syscalls_excluded = pl.an.syscalls_excluded;
	ri.comm_ctx = &pl;
	/* an imported capture's requests are linked by sector (docs/IMPORT.md) */
	trace_reader_meta(&pl.rd, "import", imported, sizeof(imported));
	trace_reader_meta(&pl.rd, "models", models, sizeof(models));
	ri.models = models;
	trace_reader_meta(&pl.rd, "flows", flows, sizeof(flows));
	ri.flows = flows;
	ri.imported = imported[0] ? imported : NULL;
	if (out_dir && write_out_dir(out_dir, &ri, &pl.an, &ro))
		goto cleanup;
	if (html) {
		out = fopen(html, "we");
		if (!out) {
			fprintf(stderr, "iotrail: --html %s: %s\n", html,
				strerror(errno));
			out = stdout;
			goto cleanup;
		}
		render_html(out, &ri, &pl.an);
	} else if (out_dir) {
		/* the files say it all */
	} else if (chrome) {
		struct row_names nm = render_report_names(&ri, &pl.an);
		struct chrome ch;
		int err = chrome_open(&ch, out, &nm, env.syscall_nr);

		if (!err) { /* closed whatever the flows gave: it frees ch */
			err = chrome_flows(&ch, analysis_output(&pl.an, "flows"));
			chrome_close(&ch, input);
		}
		if (err) {
			fprintf(stderr, "iotrail: chrome: %s\n", strerror(-err));
			goto cleanup;
		}
	} else {
		switch (format) {
		case FMT_TEXT:
			render_text(out, &ri, &pl.an, &ro);
			break;
		case FMT_CSV:
			render_csv(out, &ri, &pl.an, &ro);
			break;
		case FMT_JSON:
			render_json(out, &ri, &pl.an, &ro);
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
	if (pl.jn.st.invalid)
		fprintf(
		    stderr,
		    "iotrail: %s: %llu block records without a kernel address ignored "
		    "(damaged trace)\n",
		    input, (unsigned long long)pl.jn.st.invalid);
	/* a damaged file still gets its report, but says so in the status */
	ret = pl.rd.warning[0] || pl.jn.st.invalid ? 3 : 0;
cleanup:
	if (out != stdout)
		fclose(out);
	pipeline_release(&pl);
	frag_scan_release(&layout);
	return ret;
}
