// SPDX-License-Identifier: GPL-2.0
/* iotrail record: option parsing; the work is in src/record/ (record.c). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bpf/events.h"
#include "../record/record.h"
#include "../util/parse.h"
#include "cli.h"

static void record_usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: iotrail record [-o FILE] [-d DEV]... [-p PID]... [--duration TIME]\n"
	    "                      [--max-size SIZE [--max-files N]] [-b SIZE]\n"
	    "                      [--switchrate RATE]\n"
	    "                      [--summary] [--accounting]\n"
	    "                      [--no-pack] [--uring] [--flow NAME[,NAME]]\n"
	    "                      [--flow-file FILE]\n"
	    "                      [-- COMMAND ...]\n"
	    "\n"
	    "  -o, --output FILE     trace file (default iotrail.iot)\n"
	    "  -d, --device DEV      block events of DEV only (loop0, /dev/vda1, 7:0);\n"
	    "                        a partition selects its disk's events inside it;\n"
	    "                        up to 1024 of them\n"
	    "  -p, --pid PID         syscall events of PID and its children only\n"
	    "  -D, --duration TIME   stop after TIME (10s, 500ms, 2m)\n"
	    "      --max-size SIZE   stop once the file reaches SIZE (100m, 2g); the\n"
	    "                        last drain and the tables go after it. Without\n"
	    "                        it, the recording stops, its file whole, when\n"
	    "                        the file system has no room for twice the\n"
	    "                        buffers and 4m more, which it keeps allocated\n"
	    "                        ahead (status 1)\n"
	    "      --max-files N     at --max-size go on in a new file, keeping the\n"
	    "                        newest N: FILE.YYYYmmddHHMMSSmmm, each a whole\n"
	    "                        trace from its start\n"
	    "  -b, --bufsize SIZE    per-CPU buffer (default 4m; k/m/g suffixes)\n"
	    "      --switchrate RATE how often buffers are drained (default 50hz;\n"
	    "                        more often, up to switchmax, while a buffer\n"
	    "                        is over 1/8 full at a drain)\n"
	    "      --summary         one record per request with all stage times\n"
	    "      --no-pack         whole 64-byte records (format 1.9), not packed\n"
	    "                        against the one before (about 14 bytes a record,\n"
	    "                        format 1.10, docs/FORMAT.md: the default)\n"
	    "      --accounting      also block_io_start/block_io_done (I/O accounting)\n"
	    "  user markers (iotrail/marker.h) of COMMAND and its children are merged\n"
	    "  into the trace; for other processes set IOTRAIL_MARKERS "
	    "(docs/MARKERS.md)\n"
	    "      --uring           also every io_uring request on a file: submission,\n"
	    "                        completion, the io-wq worker that ran it (report\n"
	    "                        -a uring; two records more per request)\n"
	    "      --flow NAME[,...] only the events of these flows, decided in the\n"
	    "                        kernel where each starts (built in: command,\n"
	    "                        reads, writes, sync, writeback, journal;\n"
	    "                        docs/FLOWS.md)\n"
	    "      --flow-file FILE  more flow definitions ([name] start = ... lines)\n"
	    "      --bufpolicy POL   switch (default): drained at RATE, what does not\n"
	    "                        fit summarised or dropped (--backpressure);\n"
	    "                        fill: stop at the first full CPU; ring: keep the\n"
	    "                        newest, written at the stop (DTrace's policies)\n"
	    "      --backpressure summary|drop  switch, events mode: a CPU whose\n"
	    "                        buffer is half full writes the requests queued on\n"
	    "                        it as --summary records, and nothing else, until\n"
	    "                        it is down to 1/4 (summary, the default), or\n"
	    "                        drops what does not fit (drop)\n"
	    "      --bufresize auto|manual  halve a buffer that cannot be had, or fail\n"
	    "      --trigger T       ring: stop when a request's Q2C reaches T (10ms),\n"
	    "                        or 'error' when one fails; both: 10ms,error\n"
	    "  -x KEY=VALUE          bufpolicy, backpressure, bufsize, switchrate,\n"
	    "                        bufresize, as above;\n"
	    "                        switchmax (the fastest drain rate, default\n"
	    "                        1khz; switchmax=50hz: always at switchrate),\n"
	    "                        specsize (default 1k per speculation), nspec "
	    "(4096),\n"
	    "                        aggsize (histogram bytes per CPU: 5904 a disk\n"
	    "                        and 3280 the system calls; default, one slot\n"
	    "                        a disk, 90k at least),\n"
	    "                        settle (after COMMAND exits, how long to wait\n"
	    "                        for the devices' requests in flight, default\n"
	    "                        1s; 0: stop at the exit)\n"
	    "      --nice N          the recorder's priority (default -10; the command\n"
	    "                        keeps its own): a late recorder drops records\n"
	    "      --threads N       threads that drain the buffers, each its share of\n"
	    "                        the CPUs (default one per 4 CPUs, at most 8;\n"
	    "                        1 with --no-pack)\n"
	    "      --aggregate       log2 histograms per device, op and stage kept in\n"
	    "                        the kernel; no per-event records\n"
	    "      --syscalls        --aggregate: and per I/O system call (hooks every\n"
	    "                        system call on the machine: costs more than the\n"
	    "                        block layer's histograms)\n"
	    "      --interval TIME   --aggregate: write the histograms out every TIME\n"
	    "      --speculate T     keep every record of the requests whose Q2C "
	    "reaches\n"
	    "                        T (or that fail), drop the others' (specsize, "
	    "nspec)\n"
	    "\n"
	    "Stops when COMMAND exits (once the requests it left in flight are\n"
	    "done, settle=), TIME passes, or on SIGINT/SIGTERM.\n");
}

/* One buffer option, from --NAME VALUE or -x NAME=VALUE. Returns 0, or 2
 * after an error naming the key. */
static int set_option(struct record_opts *o, const char *key, const char *val)
{
	if (!strcmp(key, "bufpolicy")) {
		if (!strcmp(val, "switch"))
			o->policy = IOT_POLICY_SWITCH;
		else if (!strcmp(val, "fill"))
			o->policy = IOT_POLICY_FILL;
		else if (!strcmp(val, "ring"))
			o->policy = IOT_POLICY_RING;
		else
			return usage_error("bufpolicy=%s: not switch, fill or ring", val);
	} else if (!strcmp(key, "backpressure")) {
		if (!strcmp(val, "summary"))
			o->backpressure = RECORD_BP_SUMMARY;
		else if (!strcmp(val, "drop"))
			o->backpressure = RECORD_BP_DROP;
		else
			return usage_error("backpressure=%s: not summary or drop", val);
	} else if (!strcmp(key, "bufsize")) {
		if (parse_size(val, &o->bufsize))
			return usage_error("bufsize=%s: not a size (try 4m, 512k, 1g)",
					   val);
	} else if (!strcmp(key, "switchrate")) {
		if (parse_rate(val, &o->switch_ns))
			return usage_error(
			    "switchrate=%s: not a rate (try 50hz, 20ms, 1s)", val);
	} else if (!strcmp(key, "switchmax")) {
		if (parse_rate(val, &o->switchmax_ns))
			return usage_error(
			    "switchmax=%s: not a rate (try 1khz, 1ms, 50hz)", val);
	} else if (!strcmp(key, "settle")) {
		if (!strcmp(val, "0"))
			o->settle_ns = 0;
		else if (parse_time(val, &o->settle_ns))
			return usage_error("settle=%s: not a time (try 1s, 200ms, 0)",
					   val);
	} else if (!strcmp(key, "bufresize")) {
		if (!strcmp(val, "auto"))
			o->bufresize_manual = false;
		else if (!strcmp(val, "manual"))
			o->bufresize_manual = true;
		else
			return usage_error("bufresize=%s: not auto or manual", val);
	} else if (!strcmp(key, "specsize")) {
		if (parse_size(val, &o->specsize))
			return usage_error("specsize=%s: not a size (try 1k, 4k)", val);
		if (o->specsize < IOT_REC_SIZE || o->specsize > 64 * 1024)
			return usage_error(
			    "specsize=%s: from %u bytes (one record) to 64k", val,
			    IOT_REC_SIZE);
	} else if (!strcmp(key, "nspec")) {
		uint64_t n;

		if (parse_count(val, &n) || !n || n > 1u << 20)
			return usage_error("nspec=%s: not a count from 1 to 1048576",
					   val);
		o->nspec = (uint32_t)n;
	} else if (!strcmp(key, "aggsize")) {
		if (parse_size(val, &o->aggsize))
			return usage_error("aggsize=%s: not a size (try 390k, 1m)", val);
		if (o->aggsize < RECORD_AGG_BYTES(2))
			return usage_error(
			    "aggsize=%s: smaller than the histograms of one device and "
			    "the system calls (%llu bytes per CPU)",
			    val, (unsigned long long)RECORD_AGG_BYTES(2));
	} else {
		return usage_error(
		    "-x %s: unknown option (bufpolicy, backpressure, bufsize, "
		    "switchrate, switchmax, bufresize, specsize, nspec, aggsize, "
		    "settle)",
		    key);
	}
	return 0;
}

/* --trigger 10ms | error | 10ms,error */
static int set_trigger(struct record_opts *o, const char *arg)
{
	char buf[128], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "error"))
			o->trigger_error = true;
		else if (parse_time(tok, &o->trigger_ns) || !o->trigger_ns)
			return usage_error(
			    "--trigger %s: not a latency (10ms) or 'error'", tok);
	}
	if (!o->trigger_ns && !o->trigger_error) /* "", "," */
		return usage_error("--trigger '%s': not a latency (10ms) or 'error'",
				   arg);
	return 0;
}

/* --flow a,b with --flow-file: the definitions, copied into flows[] */
static int select_flows(struct record_opts *o, struct flowdef *flows, const char *names,
			const char *file)
{
	struct flowdefs defs = {0};
	char err[512], buf[256], *save = NULL, *tok;
	int n = 0, ret = 0;

	if (flowdefs_builtin(&defs, err, sizeof(err)) ||
	    (file && flowdefs_load(&defs, file, err, sizeof(err)))) {
		fprintf(stderr, "iotrail record: --flow-file %s\n", err);
		flowdefs_release(&defs);
		return 2;
	}
	snprintf(buf, sizeof(buf), "%s", names);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const struct flowdef *f = flowdefs_find(&defs, tok);

		if (!f) {
			char known[300] = "";

			for (size_t i = 0; i < defs.n; i++)
				snprintf(known + strlen(known),
					 sizeof(known) - strlen(known), "%s%s",
					 i ? ", " : "", defs.v[i].name);
			ret = usage_error("--flow %s: no such flow (%s)", tok, known);
			break;
		}
		if (n == IOT_FLOW_MAX) {
			ret = usage_error("--flow: at most %u flows", IOT_FLOW_MAX);
			break;
		}
		flows[n++] = *f;
		/* an io_uring start needs the io_uring tracepoints */
		if (f->d.starts & IOT_FLOW_START_URING)
			o->uring = true;
	}
	if (!ret && !n)
		ret = usage_error("--flow '%s': no flow named", names);
	flowdefs_release(&defs);
	o->flows = flows;
	o->nr_flows = n;
	return ret;
}

int cmd_record(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"device", required_argument, NULL, 'd'},
	    {"pid", required_argument, NULL, 'p'},
	    {"duration", required_argument, NULL, 'D'},
	    {"max-size", required_argument, NULL, 'M'},
	    {"max-files", required_argument, NULL, 'X'},
	    {"bufsize", required_argument, NULL, 'b'},
	    {"switchrate", required_argument, NULL, 'S'},
	    {"summary", no_argument, NULL, 's'},
	    {"pack", no_argument, NULL, 'K'},
	    {"no-pack", no_argument, NULL, 'Q'},
	    {"accounting", no_argument, NULL, 'A'},
	    {"uring", no_argument, NULL, 'U'},
	    {"bufpolicy", required_argument, NULL, 'P'},
	    {"bufresize", required_argument, NULL, 'R'},
	    {"backpressure", required_argument, NULL, 'B'},
	    {"trigger", required_argument, NULL, 'T'},
	    {"aggregate", no_argument, NULL, 'G'},
	    {"syscalls", no_argument, NULL, 'Y'},
	    {"nice", required_argument, NULL, 'N'},
	    {"threads", required_argument, NULL, 'j'},
	    {"interval", required_argument, NULL, 'I'},
	    {"speculate", required_argument, NULL, 'C'},
	    {"flow", required_argument, NULL, 'F'},
	    {"flow-file", required_argument, NULL, 'L'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	struct record_opts o = {
	    .output = "iotrail.iot",
	    .bufsize = RECORD_DEFAULT_BUFSIZE,
	    .switch_ns = RECORD_DEFAULT_SWITCH_NS,
	    .switchmax_ns = RECORD_DEFAULT_SWITCHMAX_NS,
	    .settle_ns = RECORD_DEFAULT_SETTLE_NS,
	    .nice = RECORD_DEFAULT_NICE,
	    .specsize = RECORD_DEFAULT_SPECSIZE,
	    .nspec = RECORD_DEFAULT_NSPEC,
	    .pack = true,
	};
	const char *devs[RECORD_MAX_DEVS], *flow_names = NULL, *flow_file = NULL;
	struct flowdef flows[IOT_FLOW_MAX];
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
	while ((c = getopt_long(argc, argv, "+o:d:p:D:b:x:h", longopts, NULL)) != -1) {
		char *end;
		long v;

		switch (c) {
		case 'o':
			o.output = optarg;
			break;
		case 'd':
			if (o.nr_devs == RECORD_MAX_DEVS)
				return usage_error("-d: at most %d devices",
						   RECORD_MAX_DEVS);
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
		case 'M':
			if (parse_size(optarg, &o.max_size) || !o.max_size)
				return usage_error(
				    "--max-size %s: not a size (try 100m, 2g)", optarg);
			break;
		case 'X': {
			uint64_t n;

			if (parse_count(optarg, &n) || !n || n > 100000)
				return usage_error(
				    "--max-files %s: not a count from 1 to 100000",
				    optarg);
			o.max_files = (uint32_t)n;
			break;
		}
		case 'P':
			if (set_option(&o, "bufpolicy", optarg))
				return 2;
			break;
		case 'R':
			if (set_option(&o, "bufresize", optarg))
				return 2;
			break;
		case 'B':
			if (set_option(&o, "backpressure", optarg))
				return 2;
			break;
		case 'N':
			v = strtol(optarg, &end, 10);
			if (*end || end == optarg || v < -20 || v > 19)
				return usage_error(
				    "--nice %s: not a priority from -20 to 19", optarg);
			o.nice = (int)v;
			break;
		case 'j':
			v = strtol(optarg, &end, 10);
			if (*end || end == optarg || v < 1 || v > RECORD_MAX_DRAINERS)
				return usage_error(
				    "--threads %s: not a count from 1 to %u", optarg,
				    RECORD_MAX_DRAINERS);
			o.threads = (uint32_t)v;
			break;
		case 'G':
			o.aggregate = true;
			break;
		case 'Y':
			o.agg_syscalls = true;
			break;
		case 'I':
			if (parse_time(optarg, &o.interval_ns))
				return usage_error(
				    "--interval %s: not a time (try 1s, 500ms)", optarg);
			break;
		case 'T':
			if (set_trigger(&o, optarg))
				return 2;
			break;
		case 'C':
			if (parse_time(optarg, &o.speculate_ns) || !o.speculate_ns)
				return usage_error(
				    "--speculate %s: not a latency (try 10ms, 500us)",
				    optarg);
			break;
		case 'x': {
			char key[64];
			const char *eq = strchr(optarg, '=');

			if (!eq || eq == optarg || (size_t)(eq - optarg) >= sizeof(key))
				return usage_error("-x %s: not KEY=VALUE", optarg);
			snprintf(key, sizeof(key), "%.*s", (int)(eq - optarg), optarg);
			if (set_option(&o, key, eq + 1))
				return 2;
			break;
		}
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
		case 'K': /* the default since packed chunks read as fast */
			o.pack = true;
			break;
		case 'Q':
			o.pack = false;
			break;
		case 'A':
			o.accounting = true;
			break;
		case 'U':
			o.uring = true;
			break;
		case 'F':
			flow_names = optarg;
			break;
		case 'L':
			flow_file = optarg;
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
	if (o.aggregate && o.summary)
		return usage_error("--aggregate and --summary: choose one");
	if (o.max_files && !o.max_size)
		return usage_error("--max-files: with --max-size, the size of each file");
	if (o.max_files &&
	    (o.aggregate || o.speculate_ns || o.policy != IOT_POLICY_SWITCH))
		return usage_error("--max-files: events and --summary recordings, "
				   "bufpolicy=switch (not --aggregate nor --speculate)");
	if (o.aggregate)
		o.pack = false; /* no records to pack: the file stays 1.9 */
	if (o.interval_ns && !o.aggregate)
		return usage_error("--interval: only with --aggregate");
	if (o.agg_syscalls && !o.aggregate)
		return usage_error("--syscalls: only with --aggregate (the other modes "
				   "record the system calls as events, or not at all)");
	if (o.speculate_ns && (o.summary || o.aggregate))
		return usage_error("--speculate: not with --%s (it keeps every record of "
				   "the slow requests)",
				   o.summary ? "summary" : "aggregate");
	if (o.speculate_ns && (o.trigger_ns || o.trigger_error))
		return usage_error("--speculate and --trigger: choose one");
	if (o.aggsize && !o.aggregate)
		return usage_error("aggsize: only with --aggregate");
	if ((o.trigger_ns || o.trigger_error) && o.policy != IOT_POLICY_RING)
		return usage_error(
		    "--trigger: only with --bufpolicy ring (a flight recorder)");
	if (flow_file && !flow_names)
		return usage_error("--flow-file %s: only with --flow NAME", flow_file);
	if (flow_names) {
		if (o.summary || o.aggregate || o.speculate_ns)
			return usage_error(
			    "--flow: not with --%s (it keeps the flows' every "
			    "event)",
			    o.summary	  ? "summary"
			    : o.aggregate ? "aggregate"
					  : "speculate");
		ret = select_flows(&o, flows, flow_names, flow_file);
		if (ret)
			return ret;
	}
	if (o.backpressure == RECORD_BP_SUMMARY && !record_degrades(&o))
		return usage_error(
		    "--backpressure summary: only with --bufpolicy switch, in events "
		    "mode (not with --summary, --aggregate, --speculate or --flow)");
	ret = record_run(&o);
	return ret;
}
