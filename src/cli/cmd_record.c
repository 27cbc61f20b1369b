// SPDX-License-Identifier: GPL-2.0
/* iotrail record: option parsing; the work is in src/record/record.c. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../record/record.h"
#include "../util/parse.h"
#include "cli.h"

static void record_usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: iotrail record [-o FILE] [-d DEV]... [-p PID]... [--duration TIME]\n"
	    "                      [-b SIZE] [--switchrate RATE] [--summary] "
	    "[--accounting]\n"
	    "                      [-- COMMAND ...]\n"
	    "\n"
	    "  -o, --output FILE     trace file (default iotrail.iot)\n"
	    "  -d, --device DEV      block events of DEV only (loop0, /dev/vda1, 7:0);\n"
	    "                        a partition selects its disk's events inside it\n"
	    "  -p, --pid PID         syscall events of PID and its children only\n"
	    "  -D, --duration TIME   stop after TIME (10s, 500ms, 2m)\n"
	    "  -b, --bufsize SIZE    per-CPU buffer (default 4m; k/m/g suffixes)\n"
	    "      --switchrate RATE how often buffers are drained (default 50hz)\n"
	    "      --summary         one record per request with all stage times\n"
	    "      --accounting      also block_io_start/block_io_done (I/O accounting)\n"
	    "\n"
	    "Stops when COMMAND exits, TIME passes, or on SIGINT/SIGTERM.\n");
}

int cmd_record(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"device", required_argument, NULL, 'd'},
	    {"pid", required_argument, NULL, 'p'},
	    {"duration", required_argument, NULL, 'D'},
	    {"bufsize", required_argument, NULL, 'b'},
	    {"switchrate", required_argument, NULL, 'S'},
	    {"summary", no_argument, NULL, 's'},
	    {"accounting", no_argument, NULL, 'A'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	struct record_opts o = {
	    .output = "iotrail.iot",
	    .bufsize = RECORD_DEFAULT_BUFSIZE,
	    .switch_ns = RECORD_DEFAULT_SWITCH_NS,
	};
	const char *devs[64];
	pid_t pids[64];
	char cmdline[1024] = "";
	int c, ret;

	for (int i = 0, n = 0; i < argc && n < (int)sizeof(cmdline) - 1; i++)
		n += snprintf(cmdline + n, sizeof(cmdline) - n, "%s%s", i ? " " : "",
			      argv[i]);
	o.cmdline = cmdline;
	o.devs = devs;
	o.pids = pids;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+o:d:p:D:b:h", longopts, NULL)) != -1) {
		char *end;
		long v;

		switch (c) {
		case 'o':
			o.output = optarg;
			break;
		case 'd':
			if (o.nr_devs == 64)
				return usage_error("-d: at most 64 devices");
			devs[o.nr_devs++] = optarg;
			break;
		case 'p':
			v = strtol(optarg, &end, 10);
			if (*end || v <= 0 || v > 0x3fffffff)
				return usage_error("-p %s: not a process id", optarg);
			if (o.nr_pids == 64)
				return usage_error("-p: at most 64 processes");
			pids[o.nr_pids++] = (pid_t)v;
			break;
		case 'D':
			if (parse_time(optarg, &o.duration_ns))
				return usage_error(
				    "--duration %s: not a time (try 10s, 500ms, 2m)",
				    optarg);
			break;
		case 'b':
			if (parse_size(optarg, &o.bufsize))
				return usage_error("-b %s: not a size (try 4m, 512k, 1g)",
						   optarg);
			break;
		case 'S':
			if (parse_rate(optarg, &o.switch_ns))
				return usage_error(
				    "--switchrate %s: not a rate (try 50hz, 20ms)",
				    optarg);
			break;
		case 's':
			o.summary = true;
			break;
		case 'A':
			o.accounting = true;
			break;
		case 'h':
			record_usage(stdout);
			return 0;
		default:
			record_usage(stderr);
			return 2;
		}
	}
	if (optind < argc)
		o.argv = argv + optind;
	ret = record_run(&o);
	return ret;
}
