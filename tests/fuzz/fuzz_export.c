// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: one input is a trace file, through what turns a trace
 * into other programs' input and what prints it whole: `iotrail export` to
 * CSV and JSON lines (events and requests), Chrome trace JSON and a CTF
 * directory, `iotrail script`, and `iotrail flows` in each format (its
 * visitors, the Chrome flows). The subcommands run as the command line
 * runs them (src/cli/); their output goes to /dev/null, the CTF directory
 * is made in a temporary directory and removed after each input.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli/cli.h"

static char tmp[] = "/tmp/fuzz_export.XXXXXX";

/* the CTF directory an input made, emptied and removed */
static void remove_ctf(const char *dir)
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
	cmd(argc, argv);
	fflush(stdout);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	static char ctf[64];
	int fd = memfd_create("trace", 0);
	char path[64];

	if (!null) {
		null = fopen("/dev/null", "w");
		stderr = null; /* iotrail's messages; sanitizers write to fd 2 */
		if (!freopen("/dev/null", "w", stdout) || !mkdtemp(tmp))
			abort();
		atexit(remove_tmp);
		snprintf(ctf, sizeof(ctf), "%s/ctf", tmp);
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
		remove_ctf(ctf);
		run(cmd_script, (const char *const[]){"script", "-i", path, NULL});
		for (size_t k = 0; k < sizeof(flows_fmt) / sizeof(flows_fmt[0]); k++)
			run(cmd_flows, (const char *const[]){
					   "flows", "-i", path, "--threads", "1",
					   "--slowest", "all", "-f", flows_fmt[k], NULL});
	}
	close(fd);
	return 0;
}
