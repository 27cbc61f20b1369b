// SPDX-License-Identifier: GPL-2.0
/*
 * iotrail report: reader -> join -> analyzers -> renderer, in one pass over
 * the trace with memory bounded by the in-flight requests (plus the samples
 * the chosen views keep).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analyze/analysis.h"
#include "../join/join.h"
#include "../render/render.h"
#include "../trace/reader.h"
#include "../util/parse.h"
#include "cli.h"

static void report_usage(FILE *f)
{
	fprintf(f,
		"usage: iotrail report [-i FILE] [--analyzer NAME]... [--view "
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
		"  -r, --requests        list every request with its stage times\n");
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
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	struct render_opts ro = {.view = VIEW_STATS, .format = FMT_TEXT};
	const char *input = "iotrail.iot";
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
			if (parse_time(optarg, &window_ns))
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
	if (!ro.analyzers)
		ro.analyzers = AN_LATENCY;

	err = trace_reader_open(&rd, input, errbuf, sizeof(errbuf));
	if (err) {
		fprintf(stderr, "iotrail: %s\n", errbuf);
		return 1;
	}
	names.r = &rd;
	analysis_init(&an, ro.analyzers, ro.view == VIEW_SERIES, rd.hdr.start_mono_ns,
		      window_ns, ro.requests, dev_name, &names);
	an.want_stage_all = ro.format == FMT_JSON;
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
	switch (ro.format) {
	case FMT_TEXT:
		render_text(stdout, &ri, &an, &ro);
		break;
	case FMT_CSV:
		render_csv(stdout, &ri, &an, &ro);
		break;
	case FMT_JSON:
		render_json(stdout, &ri, &an, &ro);
		break;
	}
	if (fflush(stdout) != 0) {
		perror("iotrail: stdout");
		goto cleanup;
	}
	/* a damaged file still gets its report, but says so in the status */
	ret = rd.warning[0] ? 3 : 0;
cleanup:
	join_release(&jn);
cleanup_an:
	analysis_release(&an);
	trace_reader_release(&rd);
	return ret;
}
