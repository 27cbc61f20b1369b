// SPDX-License-Identifier: GPL-2.0
/*
 * iotrail import blktrace FILE|DIR... -o TRACE: blktrace captures as
 * iotrail traces (docs/IMPORT.md), so every analyzer, report and export
 * works on them. The trace is written beside itself and renamed at the
 * end: a failed import leaves what was at -o.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../import/blktrace.h"
#include "../util/outfile.h"
#include "cli.h"

static int usage(FILE *f)
{
	fprintf(f,
		"usage: iotrail import blktrace [-o TRACE] FILE|DIR...\n"
		"  FILE   blktrace's per-CPU files (DEV.blktrace.N, either byte order),\n"
		"         or the stream of ftrace's blk tracer with option bin (read\n"
		"         from trace_pipe); a DIR: its *.blktrace.* files\n"
		"  -o, --output TRACE   the iotrail trace (default iotrail.iot)\n"
		"Records carry no kernel addresses: requests are linked by device and\n"
		"sector, as btt links them; the trace says so (identity=sector).\n");
	return f == stdout ? 0 : 2;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int want(const struct dirent *d)
{
	return strstr(d->d_name, ".blktrace.") != NULL;
}

/* 0 read, 1 read up to damage, -1 nothing (said) */
static int add_path(struct bt_import *im, const char *path, bool *damaged)
{
	struct dirent **list;
	struct stat st;
	int n, ret = 0;

	if (stat(path, &st)) {
		fprintf(stderr, "iotrail: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		int r = bt_import_file(im, path);

		if (r < 0) {
			fprintf(stderr, "iotrail: %s\n", im->err);
			return -1;
		}
		if (r > 0) {
			fprintf(stderr, "iotrail: %s (what precedes it is imported)\n",
				im->err);
			*damaged = true;
		}
		return 0;
	}
	n = scandir(path, &list, want, by_name);
	if (n < 0) {
		fprintf(stderr, "iotrail: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!n) {
		fprintf(stderr, "iotrail: %s: no *.blktrace.* file in it\n", path);
		ret = -1;
	}
	for (int i = 0; i < n; i++) {
		char file[4096];

		snprintf(file, sizeof(file), "%s/%s", path, list[i]->d_name);
		if (!ret && add_path(im, file, damaged))
			ret = -1;
		free(list[i]);
	}
	free(list);
	return ret;
}

int cmd_import(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	const char *output = "iotrail.iot";
	struct bt_import im;
	bool damaged = false;
	struct outfile out;
	char source[256] = "";
	int c, err;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 'h':
			return usage(stdout);
		default:
			return usage(stderr);
		}
	}
	if (optind >= argc)
		return usage_error("import: what? iotrail import blktrace FILE|DIR...");
	if (strcmp(argv[optind], "blktrace"))
		return usage_error("import: '%s': iotrail imports blktrace captures "
				   "(iotrail import blktrace FILE|DIR...)",
				   argv[optind]);
	if (++optind >= argc)
		return usage_error("import blktrace: which files? FILE|DIR...");

	bt_import_init(&im);
	for (int i = optind; i < argc; i++) {
		if (add_path(&im, argv[i], &damaged)) {
			bt_import_release(&im);
			return 1;
		}
		snprintf(source + strlen(source), sizeof(source) - strlen(source), "%s%s",
			 i > optind ? "," : "", argv[i]);
	}
	for (char *s = source; *s; s++)
		if (*s == '\n')
			*s = ' ';
	if (!im.nr) {
		fprintf(stderr, "iotrail: no block I/O record in %s\n", source);
		bt_import_release(&im);
		return 1;
	}

	err = outfile_reserve(&out, output);
	if (err) {
		fprintf(stderr, "iotrail: %s: cannot write: %s\n", output,
			err == -EINVAL ? "not a regular file" : strerror(-err));
		bt_import_release(&im);
		return 1;
	}
	if (bt_import_write(&im, out.tmp, source)) {
		fprintf(stderr, "iotrail: %s\n", im.err);
		outfile_commit(&out, false);
		bt_import_release(&im);
		return 1;
	}
	err = outfile_commit(&out, true);
	if (err) {
		fprintf(stderr, "iotrail: %s: %s\n", output, strerror(-err));
		bt_import_release(&im);
		return 1;
	}
	fprintf(stderr,
		"iotrail: %s: %llu records from %llu file%s (%u CPU%s, %zu device%s); "
		"requests linked by device and sector\n",
		output, (unsigned long long)im.records, (unsigned long long)im.files,
		im.files == 1 ? "" : "s", im.nr_cpus, im.nr_cpus == 1 ? "" : "s",
		im.nr_devs, im.nr_devs == 1 ? "" : "s");
	if (im.gaps)
		fprintf(
		    stderr,
		    "iotrail: %s: %llu records missing from blktrace's sequence: lost "
		    "by blktrace\n",
		    output, (unsigned long long)im.gaps);
	if (im.unmatched)
		fprintf(stderr,
			"iotrail: %s: %llu records of a bio or request begun before the "
			"capture (or lost)\n",
			output, (unsigned long long)im.unmatched);
	if (im.ftrace)
		fprintf(
		    stderr,
		    "iotrail: %s: ftrace's stream has no sequence numbers: records its "
		    "ring lost cannot be counted\n",
		    output);
	bt_import_release(&im);
	return damaged ? 3 : 0;
}
