// SPDX-License-Identifier: GPL-2.0
/* iotrail script: every event of a trace as text, in time order (perf
 * script, blkparse). */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "../render/render.h"
#include "../trace/reader.h"
#include "cli.h"

int cmd_script(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"input", required_argument, NULL, 'i'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	const char *input = "iotrail.iot";
	const struct iot_rec *r;
	struct trace_reader rd;
	char errbuf[512], devbuf[32];
	bool damaged;
	int c, err;

	optind = 1;
	while ((c = getopt_long(argc, argv, "i:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			input = optarg;
			break;
		case 'h':
			printf("usage: iotrail script [-i FILE]\n");
			return 0;
		default:
			return 2;
		}
	}
	if (optind < argc)
		return usage_error("script: unexpected argument '%s'", argv[optind]);
	err = trace_reader_open(&rd, input, errbuf, sizeof(errbuf));
	if (err) {
		fprintf(stderr, "iotrail: %s\n", errbuf);
		return 1;
	}
	while ((err = trace_reader_next(&rd, &r)) == 1) {
		uint32_t dev = r->type == IOT_EV_SUMMARY
				   ? ((const struct iot_summary *)r)->dev
				   : r->dev;
		uint32_t tid = r->type == IOT_EV_SUMMARY
				   ? ((const struct iot_summary *)r)->tid
				   : r->tid;
		const struct iot_dev_entry *d = trace_reader_dev(&rd, dev);
		const struct iot_task_entry *t;

		/* the task's name from its exec on, whenever the recorder read
		 * it from /proc */
		if (r->type == IOT_EV_EXEC)
			trace_reader_exec(&rd, r);
		t = trace_reader_task(&rd, tid);

		if (d)
			snprintf(devbuf, sizeof(devbuf), "%s", d->name);
		else
			snprintf(devbuf, sizeof(devbuf), "%u:%u", dev >> 20,
				 dev & 0xfffff);
		render_event(stdout, r, rd.hdr.start_mono_ns, devbuf, t ? t->comm : "?");
	}
	/* read what the reader says before releasing it */
	damaged = rd.warning[0] != 0;
	if (damaged)
		fprintf(stderr, "iotrail: warning: %s\n", rd.warning);
	if (rd.nr_gaps)
		fprintf(stderr, "iotrail: %s: %llu records missing from the sequence\n",
			input, (unsigned long long)rd.nr_gaps);
	trace_reader_release(&rd);
	if (err < 0) {
		fprintf(stderr, "iotrail: %s: out of memory\n", input);
		return 1;
	}
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "iotrail: standard output: %s\n", strerror(errno));
		return 1;
	}
	return damaged ? 3 : 0;
}
