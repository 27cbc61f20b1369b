// SPDX-License-Identifier: GPL-2.0
/*
 * iotrail export: a trace for other tools (docs/EXPORT.md), in one pass
 * with memory bounded by the requests in flight, whatever the trace's
 * size: CSV or JSON lines per event or per request (--requests), Chrome's
 * trace-event JSON (requests, stages, system calls, markers), CTF 1.8 for
 * babeltrace2 and Trace Compass.
 *
 * A file given with -o is written beside itself and renamed into place
 * at the end, so a failed export leaves what was there before
 * (util/outfile.h; a device such as /dev/null is written in place).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../export/export.h"
#include "../render/render.h"
#include "../util/outfile.h"
#include "../util/progress.h"
#include "cli.h"
#include "pipeline.h"

enum to { TO_NONE, TO_CSV, TO_JSONL, TO_CHROME, TO_CTF };

struct export
{
	enum to to;
	bool requests;
	FILE *f;
	struct json_writer w;
	struct row_names nm;
	struct pipeline *pl;
	struct chrome chrome;
	struct ctf ctf;
	struct progress prog;
	uint64_t n, rows;
	uint64_t *next_seq, *said; /* ctf, per CPU and one for the rest: gaps() */
	int err;
};

static void progress(struct export *x)
{
	if ((++x->n & 0xffff) == 0)
		progress_update(&x->prog, x->n);
}

/* the reader's gaps of a CPU, or (cpu = nr_cpus) of the other streams */
static uint64_t stream_gaps(const struct trace_reader *rd, uint32_t cpu)
{
	uint64_t n = 0;

	if (cpu < rd->hdr.nr_cpus)
		return rd->stream_gaps[cpu];
	for (uint32_t i = rd->hdr.nr_cpus; i < rd->nr_streams; i++)
		n += rd->stream_gaps[i];
	return n;
}

/* Records lost on r's CPU before r (CTF's events_discarded): the reader
 * counts a stream's missing sequence numbers as its records enter the
 * merge, a few records ahead; they are said at the first record of that
 * CPU whose sequence number jumps, so the packet ends where they were
 * lost, and the rest at the end (ctf_close) */
static int gaps(struct export *x, const struct iot_rec *r)
{
	const struct trace_reader *rd = &x->pl->rd;
	uint32_t cpu = r->cpu < rd->hdr.nr_cpus ? r->cpu : rd->hdr.nr_cpus;
	uint64_t counted = stream_gaps(rd, cpu);

	if (r->seq > x->next_seq[cpu] && x->next_seq[cpu] != UINT64_MAX &&
	    counted > x->said[cpu]) {
		if (ctf_discarded(&x->ctf, cpu, counted - x->said[cpu]))
			return 1;
		x->said[cpu] = counted;
	}
	if (x->next_seq[cpu] == UINT64_MAX || r->seq >= x->next_seq[cpu])
		x->next_seq[cpu] = r->seq + 1;
	return 0;
}

/* one event: a row, or a CTF event */
static int on_record(void *ctx, const struct iot_rec *r)
{
	struct export *x = ctx;

	progress(x);
	switch (x->to) {
	case TO_CSV:
		render_event_csv(x->f, r, &x->nm);
		break;
	case TO_JSONL:
		jw_init(&x->w, x->f, false);
		render_event_json(&x->w, r, &x->nm);
		fputc('\n', x->f);
		break;
	case TO_CTF: {
		uint32_t tid = r->type == IOT_EV_SUMMARY
				   ? ((const struct iot_summary *)r)->tid
				   : r->tid;
		uint32_t dev = r->type == IOT_EV_SUMMARY
				   ? ((const struct iot_summary *)r)->dev
				   : r->dev;
		if (gaps(x, r))
			return 1;
		if (ctf_event(&x->ctf, r, pipeline_comm(x->pl, tid),
			      x->nm.dev(x->pl, dev)))
			return 1;
		break;
	}
	default:
		break;
	}
	x->rows++;
	return ferror(x->f) ? 1 : 0;
}

static void on_request(void *ctx, const struct join_request *r)
{
	struct export *x = ctx;

	if (x->err)
		return;
	switch (x->to) {
	case TO_CSV:
		render_request_csv(x->f, r, &x->nm);
		break;
	case TO_JSONL:
		jw_init(&x->w, x->f, false);
		render_request_json(&x->w, r, &x->nm);
		fputc('\n', x->f);
		break;
	case TO_CHROME:
		x->err = chrome_request(&x->chrome, r);
		break;
	default:
		return;
	}
	x->rows++;
}

static void on_bio(void *ctx, const struct join_request *r, const struct join_bio *b) {}

static void on_syscall(void *ctx, const struct join_syscall *s)
{
	struct export *x = ctx;

	if (x->to == TO_CHROME && !x->err)
		x->err = chrome_syscall(&x->chrome, s);
}

static void on_mark(void *ctx, const struct join_mark *m)
{
	struct export *x = ctx;

	if (x->to == TO_CHROME && !x->err)
		x->err = chrome_mark(&x->chrome, m);
}

/* in the joined formats the records only count for the progress line */
static int count_record(void *ctx, const struct iot_rec *r)
{
	progress(ctx);
	return 0;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static int usage(FILE *f)
{
	fprintf(
	    f, "usage: iotrail export [-i TRACE] --to csv|jsonl|chrome|ctf [-o PATH] "
	       "[--requests]\n"
	       "  -i, --input FILE   the trace (default iotrail.iot)\n"
	       "  -t, --to FORMAT    csv, jsonl: a row per event (or per request with\n"
	       "                     --requests); chrome: trace-event JSON for Perfetto\n"
	       "                     and chrome://tracing; ctf: a CTF 1.8 directory for\n"
	       "                     babeltrace2 and Trace Compass\n"
	       "  -o, --output PATH  the file (default: standard output), or for ctf\n"
	       "                     the directory to create (required)\n"
	       "  -r, --requests     csv, jsonl: one row per request, its stages\n");
	return f == stdout ? 0 : 2;
}

int cmd_export(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"input", required_argument, NULL, 'i'},
	    {"to", required_argument, NULL, 't'},
	    {"output", required_argument, NULL, 'o'},
	    {"requests", no_argument, NULL, 'r'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	const char *input = "iotrail.iot", *output = NULL;
	struct analysis_env env = {0};
	struct pipeline *pl;
	struct export x = {0};
	struct outfile out = {0};
	char host[128], kernel[128];
	int c, ret = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "i:t:o:rh", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			input = optarg;
			break;
		case 't':
			if (!strcmp(optarg, "csv"))
				x.to = TO_CSV;
			else if (!strcmp(optarg, "jsonl"))
				x.to = TO_JSONL;
			else if (!strcmp(optarg, "chrome"))
				x.to = TO_CHROME;
			else if (!strcmp(optarg, "ctf"))
				x.to = TO_CTF;
			else
				return usage_error(
				    "export: --to '%s': csv, jsonl, chrome or "
				    "ctf",
				    optarg);
			break;
		case 'o':
			output = optarg;
			break;
		case 'r':
			x.requests = true;
			break;
		case 'h':
			return usage(stdout);
		default:
			return usage(stderr);
		}
	}
	if (optind < argc)
		return usage_error("export: unexpected argument '%s'", argv[optind]);
	if (x.to == TO_NONE)
		return usage_error(
		    "export: which format? --to csv, jsonl, chrome or ctf");
	if (x.to == TO_CTF && !output)
		return usage_error(
		    "export: --to ctf writes a directory: name it with -o");
	if (x.requests && (x.to == TO_CHROME || x.to == TO_CTF))
		return usage_error("export: --requests is for csv and jsonl (chrome "
				   "always draws requests, ctf always holds events)");

	pl = calloc(1, sizeof(*pl));
	if (!pl)
		return 1;
	if (pipeline_open(pl, input, &env)) {
		free(pl);
		return 1;
	}
	x.pl = pl;
	x.nm = (struct row_names){pl->rd.hdr.start_mono_ns, env.dev_name, pipeline_comm,
				  pl, pl};
	x.f = stdout;
	if (output && x.to != TO_CTF) {
		int err = outfile_open(&out, output);

		if (err) {
			fprintf(stderr, "iotrail: %s: cannot write: %s\n", output,
				strerror(-err));
			pipeline_release(pl);
			free(pl);
			return 1;
		}
		x.f = out.f;
	}
	if (x.to == TO_CTF) {
		x.next_seq = malloc((pl->rd.hdr.nr_cpus + 1) * sizeof(*x.next_seq));
		x.said = calloc(pl->rd.hdr.nr_cpus + 1, sizeof(*x.said));
		if (!x.next_seq || !x.said) {
			fprintf(stderr, "iotrail: out of memory\n");
			free(x.next_seq);
			free(x.said);
			pipeline_release(pl);
			free(pl);
			return 1;
		}
		memset(x.next_seq, 0xff, (pl->rd.hdr.nr_cpus + 1) * sizeof(*x.next_seq));
		trace_reader_meta(&pl->rd, "host", host, sizeof(host));
		trace_reader_meta(&pl->rd, "kernel", kernel, sizeof(kernel));
		if (ctf_open(&x.ctf, output, pl->rd.hdr.nr_cpus,
			     pl->rd.hdr.start_realtime_ns, pl->rd.hdr.start_mono_ns,
			     base_name(input), host, kernel)) {
			fprintf(stderr, "iotrail: %s\n", x.ctf.err);
			ctf_close(&x.ctf, false);
			pipeline_release(pl);
			free(pl);
			return 1;
		}
	}
	if (x.to == TO_CHROME && chrome_open(&x.chrome, x.f, &x.nm, env.syscall_nr)) {
		fprintf(stderr, "iotrail: out of memory\n");
		ret = 1;
		goto out;
	}
	progress_init(&x.prog, "export", pl->rd.nr_records);

	if (x.to == TO_CTF ||
	    (x.to != TO_CHROME && !x.requests)) { /* events, one by one */
		const struct iot_rec *r;
		int err;

		if (x.to == TO_CSV)
			render_event_head(x.f);
		while ((err = trace_reader_next(&pl->rd, &r)) == 1) {
			if (r->type == IOT_EV_EXEC)
				trace_reader_exec(&pl->rd, r);
			if (on_record(&x, r)) {
				ret = 1;
				break;
			}
		}
		if (err < 0) {
			fprintf(stderr, "iotrail: %s: out of memory\n", input);
			ret = 1;
		}
		/* ctf: gaps not yet said, then what the buffers dropped: at
		 * the end, the recorder knowing no time for it */
		for (uint32_t k = 0; x.to == TO_CTF && k <= pl->rd.hdr.nr_cpus && !ret;
		     k++) {
			uint64_t counted = stream_gaps(&pl->rd, k);

			if (counted > x.said[k] &&
			    ctf_discarded(&x.ctf, k, counted - x.said[k]))
				ret = 1;
		}
		for (size_t i = 0; x.to == TO_CTF && i < pl->rd.nr_drops && !ret; i++) {
			uint64_t n =
			    pl->rd.drops[i].drops_full + pl->rd.drops[i].drops_nostate;

			if (n && ctf_discarded(&x.ctf, pl->rd.drops[i].cpu, n))
				ret = 1;
		}
	} else {
		struct join_sink sink = {
		    .ctx = &x,
		    .request = on_request,
		    .bio = on_bio,
		    .syscall = on_syscall,
		    .mark = on_mark,
		};

		if (x.to == TO_CSV)
			render_request_head(x.f);
		if (pipeline_join(pl, input, &sink, count_record, &x))
			ret = 1;
		if (x.err) {
			fprintf(stderr, "iotrail: %s\n",
				x.err == -ENOMEM ? "out of memory" : strerror(-x.err));
			ret = 1;
		}
	}
	if (x.to == TO_CHROME)
		chrome_close(&x.chrome, input);
	progress_done(&x.prog);
out:
	if (x.to == TO_CTF) {
		if (ret && x.ctf.err[0])
			fprintf(stderr, "iotrail: %s\n", x.ctf.err);
		if (ctf_close(&x.ctf, !ret)) {
			fprintf(stderr, "iotrail: %s\n", x.ctf.err);
			ret = 1;
		}
	} else if (output) {
		int err = outfile_commit(&out, !ret);

		if (err) {
			fprintf(stderr, "iotrail: %s: %s\n", output, strerror(-err));
			ret = 1;
		}
	} else if (fflush(x.f) || ferror(x.f)) {
		fprintf(stderr, "iotrail: standard output: %s\n",
			strerror(errno ? errno : EIO));
		ret = 1;
	}
	if (!ret && pl->rd.warning[0])
		fprintf(stderr, "iotrail: warning: %s\n", pl->rd.warning);
	if (!ret && pl->rd.nr_gaps)
		fprintf(stderr, "iotrail: %s: %llu records missing from the sequence\n",
			input, (unsigned long long)pl->rd.nr_gaps);
	free(x.next_seq);
	free(x.said);
	pipeline_release(pl);
	free(pl);
	return ret;
}
