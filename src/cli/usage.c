// SPDX-License-Identifier: GPL-2.0
/* The subcommands' shared argument helpers (cli.h): apart from main.c, so
 * that a harness can link a subcommand without the command table. */
#include <stdarg.h>
#include <stdio.h>

#include <getopt.h>

#include "../util/parse.h"
#include "cli.h"

int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("iotrail: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

int parse_interval_count(int argc, char **argv, uint64_t *interval_ns, uint64_t *count)
{
	uint64_t n;

	*count = 0;
	if (optind < argc) {
		/* iostat's interval is seconds; 500ms and 2s are taken too */
		if (!parse_count(argv[optind], &n) && n)
			*interval_ns = n * 1000000000ull;
		else if (parse_time(argv[optind], interval_ns) || !*interval_ns)
			return usage_error(
			    "interval %s: not a positive time (1, 500ms, 2s)",
			    argv[optind]);
		optind++;
	}
	if (optind < argc) {
		if (parse_count(argv[optind], count) || !*count)
			return usage_error("count %s: not a positive count",
					   argv[optind]);
		optind++;
	}
	if (optind < argc)
		return usage_error("%s: unexpected argument", argv[optind]);
	return 0;
}
