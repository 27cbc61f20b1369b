// SPDX-License-Identifier: GPL-2.0
/*
 * The views of iotrail frag (out.h), as self-contained SVG:
 *   block map: the filesystem in block order, 256 cells a row, each cell
 *     N blocks (said in the title: a 1 TB filesystem is 64k cells of 4096
 *     blocks); a cell takes the colour of what owns its blocks (a file, a
 *     kind of system block, free; grey when several files share it), and a
 *     red mark where a file's fragment starts (its first one excepted);
 *   file order: one file's extents, logical block against physical block,
 *     each fragment a segment, a jump between them a dashed line.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../layout/grid.h"
#include "../util/xml.h"
#include "out.h"

#define COLS	  256
#define MAX_CELLS (COLS * 256)
#define CELL_PX	  4

static const char *sys_color(uint32_t kind)
{
	switch (kind) {
	case FRAG_SYS_SUPER:
		return "#000000";
	case FRAG_SYS_BITMAP:
		return "#444444";
	case FRAG_SYS_ITABLE:
		return "#6b6b6b";
	case FRAG_SYS_JOURNAL:
		return "#7b3fa0";
	case FRAG_SYS_DIR:
		return "#1f5fbf";
	default:
		return "#999999";
	}
}

static void file_color(size_t idx, char *buf, size_t len)
{
	/* golden-angle hues: neighbours in the scan differ */
	snprintf(buf, len, "hsl(%.0f,70%%,55%%)",
		 (double)((idx * 137508) % 360000) / 1000.0);
}

/* The blocks the map covers (the filesystem, or up to the last block of the
 * scanned files), blocks per cell and cells. */
static uint64_t map_shape(const struct frag_scan *s, uint64_t *bpc, uint64_t *cells)
{
	uint64_t blocks = s->has_fs ? s->fs.blocks : 0;

	for (size_t i = 0; !s->has_fs && i < s->nr_files; i++)
		for (size_t k = 0; k < s->files[i].nr_ext; k++)
			if (s->files[i].ext[k].physical + s->files[i].ext[k].len > blocks)
				blocks =
				    s->files[i].ext[k].physical + s->files[i].ext[k].len;
	if (!blocks)
		blocks = 1;
	*bpc = (blocks + MAX_CELLS - 1) / MAX_CELLS;
	*cells = (blocks + *bpc - 1) / *bpc;
	return blocks;
}

/* title, rows of cells, gap, three rows of legend */
static double map_height(uint64_t cells)
{
	return 24 + (double)((cells + COLS - 1) / COLS) * CELL_PX + 16 + 3 * 18;
}

static void block_map(FILE *f, const struct frag_scan *s, double y0, double *height)
{
	struct block_grid g;
	uint64_t bpc, cells, blocks = map_shape(s, &bpc, &cells), rows;
	char col[64];

	if (block_grid_init(&g, 0, blocks, MAX_CELLS)) {
		*height = 0;
		return;
	}
	rows = (g.cells + COLS - 1) / COLS;
	for (size_t i = 0; i < s->nr_files; i++)
		block_grid_file(&g, &s->files[i], (int32_t)i, true);
	for (size_t i = 0; s->has_fs && i < s->fs.nr_sys; i++)
		block_grid_sys(&g, &s->fs.sys[i]);
	fprintf(
	    f,
	    "<text x=\"10\" y=\"%.0f\" font-size=\"14\">Block map, block order: %" PRIu64
	    " blocks of %u bytes; 1 cell = %" PRIu64 " block%s (%" PRIu64
	    " KiB), %d cells a row</text>\n",
	    y0 + 14, blocks, s->block_size, g.bpc, g.bpc > 1 ? "s" : "",
	    g.bpc * s->block_size / 1024, COLS);
	y0 += 24;
	for (uint64_t c = 0; c < g.cells; c++) {
		int32_t o = g.owner[c];
		const char *fill = s->has_fs ? "#f2f2f2" : "#ffffff";

		if (o >= 0) {
			file_color((size_t)o, col, sizeof(col));
			fill = col;
		} else if (o == GRID_MIXED) {
			fill = "#b0b0b0";
		} else if (o == GRID_MAPPING) {
			fill = "#ff8c00";
		} else if (o <= GRID_SYS(0)) {
			fill = sys_color(GRID_SYS_KIND(o));
		}
		if (o == GRID_FREE && !s->has_fs)
			continue;
		fprintf(f,
			"<rect x=\"%" PRIu64
			"\" y=\"%.0f\" width=\"%d\" height=\"%d\" fill=\"%s\"/>",
			10 + (c % COLS) * CELL_PX, y0 + (double)(c / COLS) * CELL_PX,
			CELL_PX, CELL_PX, fill);
		if (g.mark[c])
			fprintf(f,
				"<rect x=\"%" PRIu64
				"\" y=\"%.0f\" width=\"1\" height=\"%d\" "
				"fill=\"#e00000\"/>",
				10 + (c % COLS) * CELL_PX,
				y0 + (double)(c / COLS) * CELL_PX, CELL_PX);
		if (c % COLS == COLS - 1)
			fputc('\n', f);
	}
	y0 += (double)rows * CELL_PX + 16;
	{
		static const struct {
			const char *color, *label;
		} legend[] = {
		    {"hsl(20,70%,55%)", "a file (one colour each)"},
		    {"#b0b0b0", "several files in one cell"},
		    {"#ff8c00", "mapping blocks (indirect, extent tree)"},
		    {"#000000", "superblock, group descriptors"},
		    {"#444444", "bitmaps"},
		    {"#6b6b6b", "inode tables"},
		    {"#7b3fa0", "journal"},
		    {"#1f5fbf", "directories"},
		    {"#f2f2f2", "free"},
		    {"#e00000", "fragment boundary"},
		};

		for (size_t i = 0; i < sizeof(legend) / sizeof(legend[0]); i++) {
			double x = 10 + (i % 4) * 260, y = y0 + (i / 4) * 18;

			fprintf(f,
				"<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"12\" "
				"fill=\"%s\" stroke=\"#333\" stroke-width=\"0.5\"/><text "
				"x=\"%.0f\" "
				"y=\"%.0f\" font-size=\"12\">%s</text>\n",
				x, y, legend[i].color, x + 18, y + 11, legend[i].label);
		}
		y0 += 3 * 18;
	}
	*height = map_height(g.cells);
	block_grid_release(&g);
}

/* One file: logical block (x) against physical block (y). */
static void file_order(FILE *f, const struct frag_file *x, double y0)
{
	const double W = 900, H = 300, L = 80;
	uint64_t lmax = 1, pmin = UINT64_MAX, pmax = 0;

	for (size_t k = 0; k < x->nr_ext; k++) {
		const struct frag_extent *e = &x->ext[k];

		if (e->flags & (FRAG_INLINE | FRAG_DELALLOC))
			continue;
		if (e->logical + e->len > lmax)
			lmax = e->logical + e->len;
		if (e->physical < pmin)
			pmin = e->physical;
		if (e->physical + e->len > pmax)
			pmax = e->physical + e->len;
	}
	if (pmin >= pmax) {
		pmin = 0;
		pmax = 1;
	}
	fprintf(f, "<text x=\"10\" y=\"%.0f\" font-size=\"14\">File order: ", y0 + 14);
	xml_escape(f, x->path);
	fprintf(
	    f, " (%" PRIu64 " fragments, %" PRIu64 " gaps, %" PRIu64 " reverse)</text>\n",
	    x->st.fragments, x->st.gaps, x->st.reverse);
	y0 += 24;
	fprintf(
	    f,
	    "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" "
	    "stroke=\"#333\"/>\n",
	    L, y0, W, H);
	fprintf(
	    f,
	    "<text x=\"%.0f\" y=\"%.0f\" font-size=\"12\" text-anchor=\"middle\">logical "
	    "block in the file (0 to %" PRIu64 ")</text>\n",
	    L + W / 2, y0 + H + 28, lmax);
	fprintf(f,
		"<text x=\"14\" y=\"%.0f\" font-size=\"12\" transform=\"rotate(-90 14 "
		"%.0f)\" "
		"text-anchor=\"middle\">physical block</text>\n",
		y0 + H / 2, y0 + H / 2);
	fprintf(
	    f,
	    "<text x=\"%.0f\" y=\"%.0f\" font-size=\"10\" text-anchor=\"end\">%" PRIu64
	    "</text><text x=\"%.0f\" y=\"%.0f\" font-size=\"10\" "
	    "text-anchor=\"end\">%" PRIu64 "</text>\n",
	    L - 4, y0 + H, pmin, L - 4, y0 + 10, pmax);
#define PX(l) (L + W * (double)(l) / (double)lmax)
#define PY(p) (y0 + H - H * (double)((p)-pmin) / (double)(pmax - pmin))
	for (size_t k = 0; k < x->nr_ext; k++) {
		const struct frag_extent *e = &x->ext[k];

		if (e->flags & (FRAG_INLINE | FRAG_DELALLOC))
			continue;
		if (k)
			fprintf(f,
				"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
				"stroke=\"#e00000\" stroke-dasharray=\"3,3\"/>",
				PX(e->logical),
				PY(x->ext[k - 1].physical + x->ext[k - 1].len),
				PX(e->logical), PY(e->physical));
		fprintf(f,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			"stroke=\"#1f5fbf\" "
			"stroke-width=\"2\"/>\n",
			PX(e->logical), PY(e->physical), PX(e->logical + e->len),
			PY(e->physical + e->len));
	}
#undef PX
#undef PY
}

int frag_write_svg(FILE *f, const struct frag_scan *s, const struct frag_file *file)
{
	uint64_t bpc, cells;
	double h;

	map_shape(s, &bpc, &cells);
	h = map_height(cells) + (file ? 24 + 300 + 50 : 0) + 20;
	fprintf(f,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%.0f\" "
		"font-family=\"sans-serif\">\n<rect width=\"100%%\" height=\"100%%\" "
		"fill=\"#ffffff\"/>\n",
		COLS * CELL_PX + 40 > 1000 ? COLS * CELL_PX + 40 : 1000, h);
	block_map(f, s, 0, &h);
	if (file)
		file_order(f, file, h + 10);
	fprintf(f, "</svg>\n");
	return ferror(f) ? -EIO : 0;
}

int frag_write_html(FILE *f, const struct frag_scan *s, const struct frag_file *file,
		    const struct frag_out_opts *o)
{
	fprintf(f, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>iotrail "
		   "frag: ");
	xml_escape(f, o->scope);
	fprintf(f,
		"</title>\n<style>body{font-family:sans-serif;margin:20px}"
		"table{border-collapse:collapse}td,th{padding:2px 8px;border-bottom:1px "
		"solid #ddd;text-align:right}td:first-child{text-align:left}</style>"
		"</head><body>\n<h1>Layout of ");
	xml_escape(f, o->scope);
	fprintf(f, "</h1>\n<p>%s, %s; %zu files.</p>\n", s->method, o->how, s->nr_files);
	frag_write_svg(f, s, file);
	fprintf(f, "<h2>Files</h2>\n<table><tr><th>path</th><th>size (bytes)</th>"
		   "<th>blocks</th><th>extents</th><th>fragments</th><th>gaps</th>"
		   "<th>reverse</th><th>contiguity</th></tr>\n");
	for (size_t i = 0; i < s->nr_files && i < 1000; i++) {
		const struct frag_file *x = &s->files[i];

		fprintf(f, "<tr><td>");
		xml_escape(f, x->path);
		fprintf(f,
			"</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td><td>%" PRIu64
			"</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td><td>%" PRIu64
			"</td><td>%.3f</td></tr>\n",
			x->size_bytes, x->st.blocks, x->st.extents, x->st.fragments,
			x->st.gaps, x->st.reverse, x->st.contiguity);
	}
	fprintf(f, "</table>%s\n</body></html>\n",
		s->nr_files > 1000 ? "<p>(first 1000 files; the TSV has all)</p>" : "");
	return ferror(f) ? -EIO : 0;
}
