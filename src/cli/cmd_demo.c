// SPDX-License-Identifier: GPL-2.0
/* iotrail demo: runs the built-in workload script shipped beside the binary. */
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

int cmd_demo(int argc, char **argv)
{
	char self[PATH_MAX], script[PATH_MAX + 32], *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *args[64];
	int i;

	if (n < 0)
		return usage_error("demo: cannot find my own path");
	self[n] = 0;
	slash = strrchr(self, '/');
	if (slash)
		*slash = 0;
	/* a build tree (build/iotrail, build/asan/iotrail), then an install */
	static const char *const where[] = {"../scripts", "../../scripts",
					    "../share/iotrail"};

	for (size_t k = 0; k < sizeof(where) / sizeof(where[0]); k++) {
		snprintf(script, sizeof(script), "%s/%s/demo.sh", self, where[k]);
		if (!access(script, R_OK))
			break;
	}
	args[0] = "bash";
	args[1] = script;
	for (i = 1; i < argc && i < 60; i++)
		args[i + 1] = argv[i];
	args[i + 1] = NULL;
	{
		char bin[PATH_MAX + 16];

		snprintf(bin, sizeof(bin), "%s/iotrail", self);
		setenv("IOTRAIL", bin, 1);
	}
	execvp("bash", args);
	perror("iotrail: demo: bash");
	return 1;
}
