// SPDX-License-Identifier: GPL-2.0
/*
 * iotrail overlay: the traced reads of one file set against its layout
 * (seed 000, figure 3-15). The reads of FILE are the bios a thread queued
 * while inside a read system call on FILE's inode; their sectors become
 * filesystem blocks with
 *     P_B = (P_S - partition start) / (block size / sector size)
 * using the trace's device table, and each block is looked up in FILE's
 * block map from the layout: the traced access order against the file's
 * block order, and the share of traced blocks that fall where the layout
 * says they are.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../trace/syscalls.h"
#include "../layout/layout_json.h"
#include "../util/u64map.h"
#include "../trace/reader.h"
#include "../util/xml.h"
#include "cli.h"

struct access {
	uint64_t ts_ns, block;
	int64_t file_block; /* FILE's block; MAPPING: one of its mapping blocks
			       (indirect, extent tree); ELSEWHERE */
};

#define MAPPING	  (-2)
#define ELSEWHERE (-1)

static int64_t file_block(const struct frag_file *f, uint64_t blk)
{
	for (size_t k = 0; k < f->nr_ext; k++)
		if (blk >= f->ext[k].physical && blk < f->ext[k].physical + f->ext[k].len)
			return (int64_t)(f->ext[k].logical + (blk - f->ext[k].physical));
	for (size_t k = 0; k < f->nr_meta; k++)
		if (f->meta[k] == blk)
			return MAPPING;
	return ELSEWHERE;
}

static const char *where_name(int64_t fb)
{
	return fb >= 0 ? "data" : fb == MAPPING ? "mapping" : "elsewhere";
}

static const struct frag_file *find_file(const struct frag_scan *s, const char *name)
{
	const struct frag_file *hit = NULL;
	size_t n = strlen(name);

	for (size_t i = 0; i < s->nr_files; i++) {
		const char *p = s->files[i].path;
		size_t m = strlen(p);

		/* either may carry a longer prefix (mount point, image root) */
		if (!strcmp(p, name) ||
		    (m > n && !strcmp(p + m - n, name) && p[m - n - 1] == '/') ||
		    (n > m && !strcmp(name + n - m, p) &&
		     (p[0] == '/' || name[n - m - 1] == '/'))) {
			if (hit)
				return NULL;
			hit = &s->files[i];
		}
	}
	return hit;
}

static void svg(FILE *f, const char *name, const struct access *a, size_t n,
		uint64_t lmax)
{
	const double W = 800, H = 400, L = 70, T = 40;

	fprintf(
	    f,
	    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
	    "font-family=\"sans-serif\"><rect width=\"100%%\" height=\"100%%\" "
	    "fill=\"#fff\"/>\n<text x=\"10\" y=\"20\" font-size=\"14\">Traced read order "
	    "against file block order: ",
	    W + L + 30, H + T + 70);
	xml_escape(f, name);
	fputs("</text>\n", f);
	fprintf(
	    f,
	    "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" "
	    "stroke=\"#333\"/>\n<text x=\"%.0f\" y=\"%.0f\" font-size=\"12\" "
	    "text-anchor=\"middle\">traced access order (blocks, 0 to %zu)</text>\n"
	    "<text x=\"14\" y=\"%.0f\" font-size=\"12\" transform=\"rotate(-90 14 "
	    "%.0f)\" "
	    "text-anchor=\"middle\">block in the file (layout)</text>\n",
	    L, T, W, H, L + W / 2, T + H + 30, n, T + H / 2, T + H / 2);
	for (size_t i = 0; i < n; i += 1 + n / 4000) { /* at most ~4000 dots */
		double x = L + W * (double)i / (double)(n ? n : 1);
		double y =
		    a[i].file_block < 0
			? T + H
			: T + H - H * (double)a[i].file_block / (double)(lmax ? lmax : 1);

		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"1.5\" fill=\"%s\"/>", x,
			y, a[i].file_block < 0 ? "#e00000" : "#1f5fbf");
	}
	fprintf(
	    f,
	    "\n<circle cx=\"%.0f\" cy=\"%.0f\" r=\"4\" fill=\"#1f5fbf\"/><text "
	    "x=\"%.0f\" "
	    "y=\"%.0f\" font-size=\"12\">where the layout says</text><circle cx=\"%.0f\" "
	    "cy=\"%.0f\" r=\"4\" fill=\"#e00000\"/><text x=\"%.0f\" y=\"%.0f\" "
	    "font-size=\"12\">elsewhere (bottom edge)</text>\n</svg>\n",
	    L, T + H + 50, L + 10, T + H + 54, L + 200, T + H + 50, L + 210, T + H + 54);
}

int cmd_overlay(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"input", required_argument, NULL, 'i'},
	    {"layout", required_argument, NULL, 'l'},
	    {"format", required_argument, NULL, 'f'},
	    {"svg", required_argument, NULL, 'S'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	const char *input = "iotrail.iot", *layout = NULL, *format = "text",
		   *svgpath = NULL;
	struct frag_scan s = {0};
	struct trace_reader rd = {0};
	const struct frag_file *file;
	const struct iot_dev_entry *fsdev = NULL;
	const struct iot_rec *r;
	const uint32_t *sysnr;
	struct u64map inread = {0};
	struct access *acc = NULL;
	size_t n = 0, cap = 0, where = 0;
	uint64_t lmax = 0, per_block;
	char err[512];
	int c, ret = 2;
	bool opened = false;

	optind = 1;
	while ((c = getopt_long(argc, argv, "i:l:f:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			input = optarg;
			break;
		case 'l':
			layout = optarg;
			break;
		case 'f':
			if (strcmp(optarg, "text") && strcmp(optarg, "csv"))
				return usage_error("--format %s: not text or csv",
						   optarg);
			format = optarg;
			break;
		case 'S':
			svgpath = optarg;
			break;
		case 'h':
			printf("usage: iotrail overlay -i TRACE --layout LAYOUT.json [-f "
			       "text|csv] "
			       "[--svg FILE] FILE\n");
			return 0;
		default:
			return 2;
		}
	}
	if (!layout || optind != argc - 1)
		return usage_error("overlay: -i TRACE --layout LAYOUT FILE (one file)");
	if (frag_layout_load(layout, &s, err, sizeof(err))) {
		fprintf(stderr, "iotrail: %s\n", err);
		return 2;
	}
	file = find_file(&s, argv[optind]);
	if (!file) {
		fprintf(stderr,
			"iotrail: %s: not (or not once) among the %zu files of %s\n",
			argv[optind], s.nr_files, layout);
		goto cleanup;
	}
	if (trace_reader_open(&rd, input, err, sizeof(err))) {
		fprintf(stderr, "iotrail: %s\n", err);
		goto cleanup;
	}
	opened = true;
	if (rd.warning[0])
		fprintf(stderr, "iotrail: warning: %s\n", rd.warning);
	if (u64map_init(&inread, 64)) {
		fprintf(stderr, "iotrail: out of memory\n");
		goto cleanup;
	}
	{
		char arch[32];

		trace_reader_meta(&rd, "arch", arch, sizeof(arch));
		sysnr = syscall_numbers(arch[0] ? arch : "x86_64");
		if (!sysnr) {
			fprintf(stderr,
				"iotrail: %s: recorded on %s, whose system call "
				"numbers iotrail does not know\n",
				input, arch);
			goto cleanup;
		}
	}
	per_block = s.block_size / 512;
	for (size_t k = 0; k < file->nr_ext; k++)
		if (file->ext[k].logical + file->ext[k].len > lmax)
			lmax = file->ext[k].logical + file->ext[k].len;
	while (trace_reader_next(&rd, &r) == 1) {
		if (r->type == IOT_EV_SYS_ENTER && r->id2 == file->ino &&
		    syscall_is_read(sysnr, (uint32_t)r->sector)) {
			/* the file's filesystem: its device in the trace's table */
			if (!fsdev)
				fsdev = trace_reader_dev(&rd, r->dev);
			if (u64map_put(&inread, r->tid, 1))
				goto cleanup;
		} else if (r->type == IOT_EV_SYS_EXIT) {
			u64map_del(&inread, r->tid);
		} else if (r->type == IOT_EV_BIO_QUEUE &&
			   (r->flags & IOT_OP_MASK) == IOT_OP_READ &&
			   u64map_get(&inread, r->tid) && fsdev &&
			   r->dev == fsdev->disk_dev) {
			uint64_t first = (r->sector - fsdev->start_sector) / per_block;
			uint64_t last =
			    (r->sector + r->nr - 1 - fsdev->start_sector) / per_block;

			for (uint64_t b = first; r->nr && b <= last; b++) {
				if (n == cap) {
					struct access *na;

					cap = cap ? 2 * cap : 4096;
					na = realloc(acc, cap * sizeof(*na));
					if (!na)
						goto cleanup;
					acc = na;
				}
				acc[n].ts_ns = r->ts_ns;
				acc[n].block = b;
				acc[n].file_block = file_block(file, b);
				where += acc[n].file_block != ELSEWHERE;
				n++;
			}
		}
	}
	if (!n) {
		fprintf(stderr,
			"iotrail: %s: no traced reads of inode %" PRIu64
			" (%s); record with system calls, while the file is read\n",
			input, file->ino, file->path);
		goto cleanup;
	}
	if (!strcmp(format, "csv")) {
		printf("order,time_s,fs_block,file_block,where\n");
		for (size_t i = 0; i < n; i++)
			printf("%zu,%.9f,%" PRIu64 ",%" PRId64 ",%s\n", i,
			       (acc[i].ts_ns - rd.hdr.start_mono_ns) / 1e9, acc[i].block,
			       acc[i].file_block, where_name(acc[i].file_block));
	} else {
		printf("# %s: reads of %s (inode %" PRIu64
		       ") on %s, partition start %" PRIu64
		       ", %u-byte blocks: P_B = (P_S - %" PRIu64 ") / %" PRIu64 "\n",
		       input, file->path, file->ino, fsdev->name, fsdev->start_sector,
		       s.block_size, fsdev->start_sector, per_block);
		printf("%8s %14s %12s %12s\n", "ORDER", "TIME_S", "FS_BLOCK",
		       "FILE_BLOCK");
		for (size_t i = 0; i < n; i++) {
			if (i && acc[i].file_block == acc[i - 1].file_block + 1 &&
			    i + 1 < n && acc[i + 1].file_block == acc[i].file_block + 1)
				continue; /* inside a sequential run: its ends say it */
			printf("%8zu %14.6f %12" PRIu64 " %12" PRId64 "%s\n", i,
			       (acc[i].ts_ns - rd.hdr.start_mono_ns) / 1e9, acc[i].block,
			       acc[i].file_block,
			       acc[i].file_block == MAPPING	? "  its mapping block"
			       : acc[i].file_block == ELSEWHERE ? "  not in the layout"
								: "");
		}
	}
	fprintf(
	    stderr,
	    "iotrail: %zu traced blocks of %s, %zu (%.1f%%) where the layout says (its "
	    "data or mapping blocks)\n",
	    n, file->path, where, 100.0 * where / n);
	if (svgpath) {
		FILE *f = fopen(svgpath, "we");

		if (!f) {
			fprintf(stderr, "iotrail: %s: %s\n", svgpath, strerror(errno));
			goto cleanup;
		}
		svg(f, file->path, acc, n, lmax);
		if (fclose(f)) {
			fprintf(stderr, "iotrail: %s: %s\n", svgpath, strerror(errno));
			goto cleanup;
		}
	}
	ret = 0;
cleanup:
	free(acc);
	u64map_release(&inread);
	if (opened)
		trace_reader_release(&rd);
	frag_scan_release(&s);
	return ret;
}
