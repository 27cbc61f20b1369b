/* SPDX-License-Identifier: GPL-2.0 */
/* iotrail frag's outputs: text (people), TSV and JSON (programs; the JSON
 * is what `iotrail overlay` reads back), and the SVG/HTML views. */
#ifndef IOTRAIL_FRAG_OUT_H
#define IOTRAIL_FRAG_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "../layout/layout.h"

struct frag_out_opts {
	const char *scope; /* what was scanned, as given */
	const char *how;   /* "unmounted", "mounted, read after sync", ... */
	double seconds;	   /* scan time */
	bool verbose;	   /* text: every extent */
};

void frag_print_text(FILE *f, const struct frag_scan *s, const struct frag_out_opts *o);
void frag_print_tsv(FILE *f, const struct frag_scan *s);
void frag_print_json(FILE *f, const struct frag_scan *s, const struct frag_out_opts *o);
/* The block map (whole filesystem, or the blocks of the scanned files) and,
 * if file is not NULL, that file's blocks in file order. 0 or -errno. */
int frag_write_svg(FILE *f, const struct frag_scan *s, const struct frag_file *file);
int frag_write_html(FILE *f, const struct frag_scan *s, const struct frag_file *file,
		    const struct frag_out_opts *o);

#endif
