// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: one input is a trace file, through what turns a trace
 * into other programs' input, what prints it whole and what writes it
 * again: `iotrail export` to CSV and JSON lines (events and requests),
 * Chrome trace JSON and a CTF directory, `iotrail script`, `iotrail flows`
 * in each format (its visitors, the Chrome flows), `iotrail pack` (and
 * --unpack) and `iotrail repair` (and --evaluate), each trace they write
 * read back by `script`. The subcommands run as the command line runs them
 * (src/cli/); their output goes to /dev/null, what they write as files to
 * a temporary directory, emptied after each input.
 */
#include <dirent.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli/cli.h"

static char tmp[] = "/tmp/fuzz_export.XXXXXX";

/* a directory an input made (the CTF trace, the temporary one), emptied
 * and removed */
static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4096];

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			unlink(path);
		}
	if (d)
		closedir(d);
	rmdir(dir);
}

static void remove_tmp(void)
{
	rmdir(tmp);
}

static void run(int (*cmd)(int, char **), const char *const *args)
{
	char *argv[16];
	int argc = 0;

	while (argc < 15 && args[argc]) {
		argv[argc] = (char *)args[argc];
		argc++;
	}
	argv[argc] = NULL;
	optind = 0; /* getopt from scratch: a command does not expect a second run */
	cmd(argc, argv);
	fflush(stdout);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	static char ctf[64], out[64];
	int fd = memfd_create("trace", 0);
	char path[64];

	if (!null) {
		null = fopen("/dev/null", "w");
		stderr = null; /* iotrail's messages; sanitizers write to fd 2 */
		if (!freopen("/dev/null", "w", stdout) || !mkdtemp(tmp))
			abort();
		atexit(remove_tmp);
		snprintf(ctf, sizeof(ctf), "%s/ctf", tmp);
		snprintf(out, sizeof(out), "%s/out.iot", tmp);
	}
	if (fd < 0 || !null)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (write(fd, data, size) == (ssize_t)size) {
		static const char *const to[] = {"csv", "jsonl", "chrome"};
		static const char *const flows_fmt[] = {"text", "csv", "json", "chrome"};

		for (size_t k = 0; k < sizeof(to) / sizeof(to[0]); k++) {
			run(cmd_export,
			    (const char *const[]){"export", "-i", path, "--to", to[k],
						  "-o", "/dev/null", NULL});
			if (k < 2)
				run(cmd_export,
				    (const char *const[]){"export", "-i", path, "--to",
							  to[k], "--requests", "-o",
							  "/dev/null", NULL});
		}
		run(cmd_export, (const char *const[]){"export", "-i", path, "--to", "ctf",
						      "-o", ctf, NULL});
		remove_dir(ctf);
		run(cmd_script, (const char *const[]){"script", "-i", path, NULL});
		for (size_t k = 0; k < sizeof(flows_fmt) / sizeof(flows_fmt[0]); k++)
			run(cmd_flows, (const char *const[]){
					   "flows", "-i", path, "--threads", "1",
					   "--slowest", "all", "-f", flows_fmt[k], NULL});
		/* written again, and what was written read back */
		run(cmd_pack, (const char *const[]){"pack", "-i", path, "-o", out, NULL});
		run(cmd_script, (const char *const[]){"script", "-i", out, NULL});
		unlink(out);
		run(cmd_pack, (const char *const[]){"pack", "-i", path, "-o", out,
						    "--unpack", NULL});
		run(cmd_script, (const char *const[]){"script", "-i", out, NULL});
		unlink(out);
		run(cmd_repair,
		    (const char *const[]){"repair", "-i", path, "-o", out, NULL});
		run(cmd_script, (const char *const[]){"script", "-i", out, NULL});
		unlink(out);
		run(cmd_repair, (const char *const[]){"repair", "--evaluate", "10%", "-i",
						      path, NULL});
	}
	close(fd);
	return 0;
}
