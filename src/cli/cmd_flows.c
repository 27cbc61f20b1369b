// SPDX-License-Identifier: GPL-2.0
/*
 * iotrail flows [-i TRACE] [--id N] [--slowest N|all] [--time FROM,TO]
 *               [-f text|csv|json|chrome]:
 * `iotrail report -a flows` and its options (docs/FLOWS.md), as git runs
 * an alias: one analysis path, one set of renderers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cmd_flows(int argc, char **argv)
{
	char **av = calloc((size_t)argc + 3, sizeof(*av));
	int ret;

	if (!av) {
		perror("iotrail");
		return 1;
	}
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf(
			    "usage: iotrail flows [-i FILE] [--id N] [--slowest N|all] "
			    "[--where layer=L[@DEV]]\n                     "
			    "[--time FROM,TO] [-f text|csv|json|chrome]\n"
			    "\n"
			    "Each I/O followed from what asked for it (a system call, an "
			    "io_uring\nrequest, readahead, writeback, the journal) to "
			    "every device that served\nit, the disks below loop devices "
			    "included: where the time went per layer,\nthe slowest flows "
			    "and their timelines. Any `iotrail report` option\napplies; "
			    "see docs/FLOWS.md.\n");
			free(av);
			return 0;
		}
	av[0] = "report";
	av[1] = "-a";
	av[2] = "flows";
	for (int i = 1; i < argc; i++)
		av[i + 2] = argv[i];
	ret = cmd_report(argc + 2, av);
	free(av);
	return ret;
}
