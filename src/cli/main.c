// SPDX-License-Identifier: GPL-2.0
/* iotrail: the command table. Each subcommand lives in its own cmd_*.c. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} commands[] = {
    {"record", cmd_record, "trace I/O requests from syscall to device into a file"},
    {"report", cmd_report, "analyze a trace: latency by layer, histograms, windows"},
    {"flows", cmd_flows, "each I/O from its cause to every device below (loop too)"},
    {"script", cmd_script, "print every event of a trace in time order"},
    {"serve", cmd_serve, "Prometheus / OpenMetrics endpoint: the kernel's histograms"},
    {"import", cmd_import, "a blktrace capture as an iotrail trace"},
    {"export", cmd_export, "a trace as CSV, JSON lines, Chrome trace JSON or CTF"},
    {"frag", cmd_frag, "file fragmentation and filesystem layout (FIEMAP, libext2fs)"},
    {"overlay", cmd_overlay, "a trace's reads of one file against its layout"},
    {"callers", cmd_callers, "kernel stacks at a tracepoint, counted in the kernel"},
    {"sched", cmd_sched, "switches, migrations, run-queue latency per task and CPU"},
    {"pack", cmd_pack, "a trace's records packed to about 14 bytes, or unpacked"},
    {"repair", cmd_repair, "estimate a trace's lost completions; --evaluate the methods"},
    {"top", cmd_top, "live view: per device and process, rates and stage latencies"},
    {"pin", cmd_pin, "spread a process's tasks over the CPUs (sched_setaffinity)"},
    {"stat", cmd_stat, "iostat's device statistics from /proc/diskstats (-x, JSON)"},
    {"demo", cmd_demo, "record a built-in workload on a loop device and report"},
};

static void usage(FILE *f)
{
	fprintf(f, "usage: iotrail COMMAND [OPTIONS]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n'iotrail COMMAND --help' for a command's options.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("iotrail 0.1\n");
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	usage_error("'%s' is not an iotrail command", argv[1]);
	usage(stderr);
	return 2;
}
