// SPDX-License-Identifier: GPL-2.0
/*
 * report --html: one self-contained page (no script, no network) with seed
 * 000's figures as SVG, from the result model only:
 *   fig-3-5      fragments per file by pattern (the layout)
 *   fig-3-1      block maps of each pattern's files, with the legend (3-4)
 *   fig-3-6      read throughput by pattern
 *   fig-3-7-P    syscall, bio and scheduler time over elapsed time, with
 *                the sector difference on the right axis (3-12 to 3-14)
 *   fig-3-10/11  syscall time against bio / scheduler time, avg/max/min
 *   fig-3-15     one file's traced block order against its layout order
 *   fig-stages-D, fig-hist-D   per device: Q2G/G2I/I2D/D2C and Q2C log2
 * and the tables: patterns, windows, drops. Every chart is aggregated
 * (bins, log2 buckets, runs of blocks), so its size does not grow with the
 * number of requests. The page is well-formed XML; `page.html#fig-3-6`
 * shows that figure alone (for screenshots).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"
#include "render.h"

#define C_SYS	"#d62728"
#define C_BIO	"#1f77b4"
#define C_ELV	"#2ca02c"
#define C_DEV	"#9467bd"
#define C_SDIFF "#c8c8c8"
#define C_Q2G	"#8c564b"

static double avg_or_nan(const struct tally *t)
{
	return t->n ? (double)t->sum / (double)t->n : NAN;
}

/* ---- page ------------------------------------------------------------------ */

static const char css[] =
    "body{font-family:sans-serif;margin:24px;color:#222;max-width:1100px}"
    "h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ccc}"
    "table{border-collapse:collapse;font-size:13px;margin:8px 0}"
    "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}"
    "th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}"
    "figure{margin:16px 0}figcaption{font-size:13px;color:#555;max-width:900px}"
    ".meta{font-size:13px;color:#444}.warn{color:#b00000}"
    /* page.html#fig-x: that figure alone */
    "body:has(figure:target)>*:not(figure:target){display:none}";

static void head(FILE *f, const struct report_info *ri)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
	      "<title>iotrail report: ",
	      f);
	xml_escape(f, ri->path);
	fprintf(
	    f, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>iotrail report: ", css);
	xml_escape(f, ri->path);
	fputs("</h1>\n<p class=\"meta\">kernel ", f);
	xml_escape(f, ri->kernel && ri->kernel[0] ? ri->kernel : "?");
	fprintf(f,
		", %u CPUs, %.3f s recorded (stopped by %s), %" PRIu64
		" events, mode %s</p>\n",
		ri->nr_cpus, ri->duration_ns / 1e9, ri->stop_reason, ri->events,
		ri->mode);
}

static void drops_table(FILE *f, const struct report_info *ri)
{
	uint64_t lost = 0;

	for (size_t i = 0; i < ri->nr_drops; i++)
		lost += ri->drops[i].drops_full + ri->drops[i].drops_torn +
			ri->drops[i].drops_nostate;
	fputs("<h2 id=\"drops\">Losses</h2>\n", f);
	fprintf(f,
		"<p class=\"%s\">%" PRIu64 " records dropped, %" PRIu64
		" sequence gaps, %" PRIu64
		" events the kernel kept from the tracer, %" PRIu64
		" completions of requests never seen queued.</p>\n",
		lost || ri->gaps || ri->kernel_misses ? "warn" : "meta", lost, ri->gaps,
		ri->kernel_misses, ri->join.orphan_completions);
	if (!lost)
		return;
	fputs("<table id=\"drops-table\"><tr><th>CPU</th><th>records</th><th>dropped "
	      "(full)</th><th>dropped (torn)</th><th>dropped (no state)</th></tr>\n",
	      f);
	for (size_t i = 0; i < ri->nr_drops; i++)
		fprintf(f,
			"<tr><td>%u</td><td>%" PRIu64 "</td><td>%" PRIu64
			"</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td></tr>\n",
			ri->drops[i].cpu, ri->drops[i].records, ri->drops[i].drops_full,
			ri->drops[i].drops_torn, ri->drops[i].drops_nostate);
	fputs("</table>\n", f);
}

/* ---- patterns -------------------------------------------------------------- */

static void patterns_table(FILE *f, const struct groups *gs)
{
	fputs(
	    "<h2>Patterns</h2>\n<table id=\"patterns\"><tr><th>pattern</th><th>files</th>"
	    "<th>fragments per file</th><th>read MB</th><th>MB/s</th><th>syscall avg "
	    "µs</th><th>bio avg µs</th><th>scheduler avg µs</th><th>device avg "
	    "µs</th><th>seeks %</th><th>sector diff avg</th></tr>\n",
	    f);
	for (size_t i = 0; i < gs->nr; i++) {
		const struct file_group *g = &gs->g[i];

		fputs("<tr><td>", f);
		xml_escape(f, g->name);
		fprintf(
		    f,
		    "</td><td>%zu</td><td>%.2f</td><td>%.1f</td><td>%.1f</td><td>%.1f</"
		    "td>"
		    "<td>%.1f</td><td>%.1f</td><td>%.1f</td><td>%.1f</td><td>%.0f</td>"
		    "</tr>\n",
		    g->nr_files, group_frags_per_file(g), (double)g->bytes / 1e6,
		    group_mbps(g), tally_avg(&g->sys) / 1e3, tally_avg(&g->bio) / 1e3,
		    tally_avg(&g->elv) / 1e3, tally_avg(&g->dev) / 1e3,
		    g->sdiff.n ? 100.0 * (double)g->seeks / (double)g->sdiff.n : 0.0,
		    tally_avg(&g->sdiff));
	}
	fputs("</table>\n<p class=\"meta\">Reads grouped by the inode their system call "
	      "names; bios by the read that queued them, requests by their first bio. "
	      "Throughput is the bytes the reads returned over the time from the first "
	      "read's entry to the last read's exit. A seek is a dispatch that does not "
	      "start where the previous one on its device ended; the sector difference "
	      "is the distance.</p>\n",
	      f);
}

/* bars by pattern: value, and optional whiskers (min/max) */
static void pattern_bars(FILE *f, const struct groups *gs, const char *id,
			 const char *title, const char *ylabel, const double *v,
			 const double *lo, const double *hi, const char *fmt,
			 const char *color, const char *caption)
{
	struct chart c;
	double max = 0, slot;
	char buf[64];

	chart_begin(&c, f, id, title, 640, 360, false);
	for (size_t i = 0; i < gs->nr; i++)
		max = fmax(max, hi ? hi[i] : v[i]);
	c.x = (struct axis){.min = 0,
			    .max = (double)gs->nr,
			    .unit = AX_CATEGORY,
			    .label = "pattern (the layout's directories)"};
	c.y = (struct axis){
	    .min = 0, .max = nice_ceil(max * 1.1), .unit = AX_PLAIN, .label = ylabel};
	chart_axes(&c);
	slot = (c.right - c.left) / (double)(gs->nr ? gs->nr : 1);
	for (size_t i = 0; i < gs->nr; i++) {
		double x = c.left + slot * ((double)i + 0.5);

		snprintf(buf, sizeof(buf), fmt, v[i]);
		fprintf(f, "<g data-pattern=\"");
		xml_escape(f, gs->g[i].name);
		fputs("\">", f);
		chart_bar(&c, &c.y, x, slot * 0.6, v[i], color, buf, gs->g[i].name);
		if (hi) {
			fprintf(f,
				"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
				"stroke=\"#000\"/>",
				x, chart_y(&c, &c.y, lo[i]), x, chart_y(&c, &c.y, hi[i]));
		}
		fprintf(f,
			"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
			"font-size=\"11\">%s</text></g>\n"
			"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
			x, chart_y(&c, &c.y, v[i]) - 4, buf, x, c.bottom + 18);
		xml_escape(f, gs->g[i].name);
		fputs("</text>\n", f);
	}
	chart_legend(&c, ylabel, color, false);
	if (hi)
		chart_legend(&c, "min to max", "#000", true);
	chart_end(&c, caption);
}

static void fig_frags_and_throughput(FILE *f, const struct groups *gs)
{
	double *v = calloc(3 * (gs->nr ? gs->nr : 1), sizeof(double)), *lo, *hi;

	if (!v)
		return;
	lo = v + gs->nr;
	hi = lo + gs->nr;
	if (gs->by_layout) {
		for (size_t i = 0; i < gs->nr; i++) {
			v[i] = group_frags_per_file(&gs->g[i]);
			lo[i] = (double)gs->g[i].frags_min;
			hi[i] = (double)gs->g[i].frags_max;
		}
		pattern_bars(
		    f, gs, "fig-3-5", "Figure 3-5: fragments per file by pattern",
		    "fragments per file", v, lo, hi, "%.2f", C_BIO,
		    "Average fragments per file of each pattern, filefrag's rule "
		    "(holes are not fragments); the whisker spans the least and the "
		    "most fragmented file.");
	}
	for (size_t i = 0; i < gs->nr; i++)
		v[i] = group_mbps(&gs->g[i]);
	pattern_bars(
	    f, gs, "fig-3-6", "Figure 3-6: read throughput by pattern", "MB/s", v, NULL,
	    NULL, "%.1f", C_ELV,
	    "Bytes the read system calls returned, over the time from the first "
	    "read's entry to the last read's exit, per pattern (MB = 10^6 bytes).");
	free(v);
}

static bool has_blocks(const struct frag_extent *e)
{
	return e->len && !(e->flags & (FRAG_INLINE | FRAG_DELALLOC));
}

/* Figures 3-1 to 3-4: each pattern's files on the disk, one row of cells
 * per pattern spanning its blocks, coloured by file. */
static void fig_block_maps(FILE *f, const struct groups *gs, const struct frag_scan *lay)
{
	enum { COLS = 128, ROWS = 6, CELL = 6 };
	const double row_h = ROWS * CELL + 34, w = COLS * CELL + 100;
	double h = 50 + row_h * (double)gs->nr + 40;
	int32_t *own = malloc(COLS * ROWS * sizeof(*own));
	uint8_t *mark = malloc(COLS * ROWS);

	if (!own || !mark)
		goto cleanup;
	fprintf(
	    f,
	    "<figure class=\"chart\" id=\"fig-3-1\">\n<svg "
	    "xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
	    "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" "
	    "font-size=\"12\">\n<rect width=\"%.0f\" height=\"%.0f\" fill=\"#fff\"/>\n"
	    "<text x=\"20\" y=\"22\" font-size=\"15\" font-weight=\"bold\">Figures 3-1 "
	    "to "
	    "3-4: where each pattern's files lie</text>\n",
	    w, h, w, h, w, h);
	for (size_t gi = 0; gi < gs->nr; gi++) {
		uint64_t lo = UINT64_MAX, hi = 0, bpc;
		double y0 = 40 + row_h * (double)gi;
		size_t idx = 0;

		for (size_t i = 0; i < lay->nr_files; i++) {
			const struct frag_file *x = &lay->files[i];

			if (groups_of_inode(gs, x->ino) != (int)gi)
				continue;
			for (size_t k = 0; k < x->nr_ext; k++) {
				if (!has_blocks(&x->ext[k]))
					continue;
				lo = x->ext[k].physical < lo ? x->ext[k].physical : lo;
				if (x->ext[k].physical + x->ext[k].len > hi)
					hi = x->ext[k].physical + x->ext[k].len;
			}
		}
		if (hi <= lo)
			continue;
		bpc = (hi - lo + COLS * ROWS - 1) / (COLS * ROWS);
		for (size_t c = 0; c < COLS * ROWS; c++)
			own[c] = -1, mark[c] = 0;
		for (size_t i = 0; i < lay->nr_files; i++) {
			const struct frag_file *x = &lay->files[i];

			if (groups_of_inode(gs, x->ino) != (int)gi)
				continue;
			for (size_t k = 0; k < x->nr_ext; k++) {
				uint64_t c0, c1;

				if (!has_blocks(&x->ext[k]))
					continue;
				c0 = (x->ext[k].physical - lo) / bpc;
				c1 = (x->ext[k].physical + x->ext[k].len - 1 - lo) / bpc;
				if (k && !frag_continues(&x->ext[k - 1], &x->ext[k]))
					mark[c0] = 1;
				for (uint64_t c = c0; c <= c1 && c < COLS * ROWS; c++)
					own[c] = own[c] == -1 || own[c] == (int32_t)idx
						     ? (int32_t)idx
						     : -2;
			}
			idx++;
		}
		fprintf(f, "<text x=\"20\" y=\"%.1f\">pattern ", y0 + 12);
		xml_escape(f, gs->g[gi].name);
		fprintf(f,
			": %zu files, %.2f fragments per file; blocks %" PRIu64
			" to %" PRIu64 ", %" PRIu64 " a cell</text>\n",
			gs->g[gi].nr_files, group_frags_per_file(&gs->g[gi]), lo, hi - 1,
			bpc);
		/* background once, then runs of one owner along a row */
		fprintf(f,
			"<rect x=\"20\" y=\"%.0f\" width=\"%d\" height=\"%d\" "
			"fill=\"#eeeeee\"/>",
			y0 + 18, COLS * CELL, ROWS * CELL);
		for (size_t c = 0; c < COLS * ROWS;) {
			size_t e = c + 1;
			double x = 20 + (double)(c % COLS) * CELL;
			double y = y0 + 18 + (double)(c / COLS) * CELL;

			while (e < COLS * ROWS && e % COLS && own[e] == own[c])
				e++;
			if (own[c] >= 0)
				fprintf(f,
					"<rect x=\"%.0f\" y=\"%.0f\" width=\"%zu\" "
					"height=\"%d\" "
					"fill=\"hsl(%.0f,70%%,55%%)\"/>",
					x, y, (e - c) * CELL, CELL,
					(double)(((size_t)own[c] * 137508) % 360000) /
					    1000.0);
			else if (own[c] == -2)
				fprintf(f,
					"<rect x=\"%.0f\" y=\"%.0f\" width=\"%zu\" "
					"height=\"%d\" "
					"fill=\"#777\"/>",
					x, y, (e - c) * CELL, CELL);
			c = e;
		}
		for (size_t c = 0; c < COLS * ROWS; c++)
			if (mark[c])
				fprintf(f,
					"<rect x=\"%.0f\" y=\"%.0f\" width=\"2\" "
					"height=\"%d\" "
					"fill=\"#e00000\"/>",
					20 + (double)(c % COLS) * CELL,
					y0 + 18 + (double)(c / COLS) * CELL, CELL);
		fputc('\n', f);
	}
	/* figure 3-4: the legend */
	fprintf(
	    f,
	    "<text x=\"20\" y=\"%.0f\">Legend (figure 3-4):</text>"
	    "<rect x=\"150\" y=\"%.0f\" width=\"12\" height=\"12\" "
	    "fill=\"hsl(0,70%%,55%%)\"/><rect x=\"162\" y=\"%.0f\" width=\"12\" "
	    "height=\"12\" fill=\"hsl(137.5,70%%,55%%)\"/><text x=\"180\" y=\"%.0f\">a "
	    "file (one colour each)</text><rect x=\"340\" y=\"%.0f\" width=\"12\" "
	    "height=\"12\" fill=\"#777\"/><text x=\"358\" y=\"%.0f\">several "
	    "files</text><rect x=\"450\" y=\"%.0f\" width=\"12\" height=\"12\" "
	    "fill=\"#eeeeee\" stroke=\"#ccc\"/><text x=\"468\" y=\"%.0f\">other (free, "
	    "system, other files)</text><rect x=\"660\" y=\"%.0f\" width=\"3\" "
	    "height=\"12\" fill=\"#e00000\"/><text x=\"668\" y=\"%.0f\">fragment "
	    "starts</text>\n</svg>\n",
	    h - 20, h - 30, h - 30, h - 20, h - 30, h - 20, h - 30, h - 20, h - 30,
	    h - 20);
	fputs(
	    "<figcaption>Each row is one pattern's blocks, from its first to its last, "
	    "in block order (DAV's view); a cell takes the colour of the file that owns "
	    "its blocks.</figcaption>\n</figure>\n",
	    f);
cleanup:
	free(own);
	free(mark);
}

/* min and max over positive values (for a log axis) */
static void positive_range(const double *v, size_t n, double *lo, double *hi)
{
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]) && v[i] > 0) {
			*lo = fmin(*lo, v[i]);
			*hi = fmax(*hi, v[i]);
		}
}

static void log_axis(struct axis *a, double lo, double hi, const char *label)
{
	if (!(hi > 0) || !isfinite(lo)) {
		lo = 1000;
		hi = 1e6;
	}
	a->min = pow(10, floor(log10(lo)));
	a->max = pow(10, ceil(log10(hi)));
	if (a->max <= a->min)
		a->max = a->min * 10;
	a->log = true;
	a->unit = AX_NS;
	a->label = label;
}

static void fig_time(FILE *f, const struct file_group *g)
{
	double xs[GROUP_BINS], sys[GROUP_BINS], bio[GROUP_BINS], elv[GROUP_BINS];
	double sdiff[GROUP_BINS], lo = INFINITY, hi = 0, smax = 0;
	char id[96], title[160];
	struct chart c;

	if (!g->reads)
		return;
	for (int b = 0; b < GROUP_BINS; b++) {
		xs[b] = ((double)b + 0.5) * (double)g->bin_ns;
		sys[b] = avg_or_nan(&g->bin[b].sys);
		bio[b] = avg_or_nan(&g->bin[b].bio);
		elv[b] = avg_or_nan(&g->bin[b].elv);
		sdiff[b] = avg_or_nan(&g->bin[b].sdiff);
		if (isfinite(sdiff[b]))
			smax = fmax(smax, sdiff[b]);
	}
	positive_range(sys, GROUP_BINS, &lo, &hi);
	positive_range(bio, GROUP_BINS, &lo, &hi);
	positive_range(elv, GROUP_BINS, &lo, &hi);
	snprintf(id, sizeof(id), "fig-3-7-%s", g->name);
	for (char *p = id; *p; p++)
		if (!(*p >= 'a' && *p <= 'z') && !(*p >= 'A' && *p <= 'Z') &&
		    !(*p >= '0' && *p <= '9') && *p != '-')
			*p = '_';
	snprintf(title, sizeof(title),
		 "Figures 3-7 to 3-9, 3-12 to 3-14: pattern %s, time per layer", g->name);
	chart_begin(&c, f, id, title, 900, 380, true);
	c.x = (struct axis){.min = 0,
			    .max = (double)g->bin_ns * GROUP_BINS,
			    .unit = AX_NS,
			    .label = "elapsed since the pattern's first read"};
	log_axis(&c.y, lo, hi, "time per operation (log)");
	c.y2 = (struct axis){.min = 0,
			     .max = nice_ceil(smax > 0 ? smax * 1.05 : 8),
			     .unit = AX_PLAIN,
			     .label = "sector difference (sectors)"};
	chart_axes(&c);
	for (int b = 0; b < GROUP_BINS; b++)
		if (isfinite(sdiff[b]) && sdiff[b] > 0)
			chart_bar(&c, &c.y2, chart_x(&c, xs[b]),
				  (c.right - c.left) / GROUP_BINS * 0.8, sdiff[b],
				  C_SDIFF, NULL, NULL);
	chart_line(&c, &c.y, xs, sys, GROUP_BINS, C_SYS, NULL, "syscall");
	chart_line(&c, &c.y, xs, bio, GROUP_BINS, C_BIO, NULL, "bio");
	chart_line(&c, &c.y, xs, elv, GROUP_BINS, C_ELV, NULL, "scheduler");
	chart_legend(&c, "read syscall (avg)", C_SYS, true);
	chart_legend(&c, "bio Q2C (avg)", C_BIO, true);
	chart_legend(&c, "scheduler I2D (avg)", C_ELV, true);
	chart_legend(&c, "sector difference (avg, right)", C_SDIFF, false);
	{
		char cap[512];

		snprintf(cap, sizeof(cap),
			 "%" PRIu64 " reads, %" PRIu64 " bios, %" PRIu64
			 " requests in %d bins of %.3f ms: averages per bin. Sector "
			 "difference: "
			 "the distance between the end of one dispatched request and the "
			 "start "
			 "of the next (0: sequential).",
			 g->sys.n, g->bio.n, g->elv.n, GROUP_BINS,
			 (double)g->bin_ns / 1e6);
		chart_end(&c, cap);
	}
}

static void fig_corr(FILE *f, const struct analysis *a, bool elv)
{
	double xs[LOG2_SLOTS], avg[LOG2_SLOTS], mx[LOG2_SLOTS], mn[LOG2_SLOTS];
	double lo = INFINITY, hi = 0, xlo = INFINITY, xhi = 0;
	size_t n = 0;
	struct chart c;

	for (int k = 0; k < LOG2_SLOTS; k++) {
		const struct corr_bucket *b = &a->corr[k];
		uint64_t cnt = elv ? b->elv_n : b->syscalls;

		if (!cnt)
			continue;
		/* the bucket [2^k, 2^(k+1)) µs, drawn at its geometric middle */
		xs[n] = (k ? (double)(1ull << k) : 0.5) * 1.414 * 1000;
		avg[n] = (double)(elv ? b->elv_sum_ns : b->bio_sum_ns) / (double)cnt;
		mx[n] = (double)(elv ? b->elv_max_ns : b->bio_max_ns);
		mn[n] = (double)(elv ? b->elv_min_ns : b->bio_min_ns);
		xlo = fmin(xlo, xs[n]);
		xhi = fmax(xhi, xs[n]);
		n++;
	}
	if (!n)
		return;
	positive_range(avg, n, &lo, &hi);
	positive_range(mx, n, &lo, &hi);
	positive_range(mn, n, &lo, &hi);
	chart_begin(&c, f, elv ? "fig-3-11" : "fig-3-10",
		    elv ? "Figure 3-11: read syscall time against scheduler time"
			: "Figure 3-10: read syscall time against bio time",
		    640, 380, false);
	log_axis(&c.x, xlo / 1.5, xhi * 1.5, "read syscall time (log2 buckets)");
	log_axis(&c.y, lo, hi, elv ? "scheduler time I2D (log)" : "bio time Q2C (log)");
	chart_axes(&c);
	chart_line(&c, &c.y, xs, mx, n, elv ? C_ELV : C_BIO, "5,3", "max");
	chart_line(&c, &c.y, xs, avg, n, elv ? C_ELV : C_BIO, NULL, "avg");
	chart_line(&c, &c.y, xs, mn, n, elv ? C_ELV : C_BIO, "1,3", "min");
	chart_legend(&c, "max", elv ? C_ELV : C_BIO, true);
	chart_legend(&c, "avg", elv ? C_ELV : C_BIO, true);
	chart_legend(&c, "min", elv ? C_ELV : C_BIO, true);
	chart_end(&c,
		  elv ? "Per read system call: the average scheduler time (I2D) of "
			"the requests its bios joined; avg, max and min over the "
			"reads of each syscall-time bucket."
		      : "Per read system call: the average Q2C of the bios it queued "
			"that completed before it returned; avg, max and min over the "
			"reads of each syscall-time bucket.");
}

static void runs_lines(FILE *f, const struct chart *c, const struct block_run *r,
		       size_t n, const char *color, double width)
{
	size_t step = n > 20000 ? n / 20000 : 1; /* stay legible with huge traces */

	for (size_t i = 0; i < n; i += step) {
		double x0 = chart_x(c, (double)r[i].order);
		double x1 = chart_x(c, (double)(r[i].order + r[i].len - 1));
		double y0 = chart_y(c, &c->y, (double)r[i].block);
		double y1 = chart_y(c, &c->y, (double)(r[i].block + r[i].len - 1));

		if (x1 - x0 < 1.5 && fabs(y1 - y0) < 1.5)
			fprintf(
			    f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\"/>",
			    x0, y0, width, color);
		else
			fprintf(f,
				"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
				"stroke=\"%s\" stroke-width=\"%.1f\"/>",
				x0, y0, x1, y1, color, width);
	}
	fputc('\n', f);
}

static void fig_block_order(FILE *f, const struct groups *gs)
{
	uint64_t bmin = UINT64_MAX, bmax = 0, omax = 0;
	struct chart c;
	char cap[512];

	if (!gs->file || !gs->nr_laid)
		return;
	for (size_t i = 0; i < gs->nr_laid; i++) {
		bmin = gs->laid[i].block < bmin ? gs->laid[i].block : bmin;
		if (gs->laid[i].block + gs->laid[i].len > bmax)
			bmax = gs->laid[i].block + gs->laid[i].len;
		if (gs->laid[i].order + gs->laid[i].len > omax)
			omax = gs->laid[i].order + gs->laid[i].len;
	}
	for (size_t i = 0; i < gs->nr_traced; i++) {
		bmin = gs->traced[i].block < bmin ? gs->traced[i].block : bmin;
		if (gs->traced[i].block + gs->traced[i].len > bmax)
			bmax = gs->traced[i].block + gs->traced[i].len;
		if (gs->traced[i].order + gs->traced[i].len > omax)
			omax = gs->traced[i].order + gs->traced[i].len;
	}
	chart_begin(&c, f, "fig-3-15",
		    "Figure 3-15: traced block order against the layout's block order",
		    900, 420, false);
	c.x = (struct axis){.min = 0,
			    .max = (double)omax,
			    .unit = AX_PLAIN,
			    .label = "access order (traced) or block order in the file "
				     "(layout), blocks"};
	c.y = (struct axis){.min = (double)bmin,
			    .max = (double)(bmax > bmin ? bmax : bmin + 1),
			    .unit = AX_PLAIN,
			    .label = "block on the filesystem"};
	chart_axes(&c);
	runs_lines(f, &c, gs->laid, gs->nr_laid, C_BIO, 5);
	runs_lines(f, &c, gs->traced, gs->nr_traced, C_SYS, 1.6);
	chart_legend(&c, "layout (iotrail frag)", C_BIO, true);
	chart_legend(&c, "traced reads (P_B from P_S)", C_SYS, true);
	snprintf(cap, sizeof(cap),
		 "%s (inode %" PRIu64 ", %" PRIu64 " fragments): %" PRIu64
		 " traced blocks, %.1f%% of them where the layout says (data or mapping "
		 "blocks). P_B = (P_S - partition start) / (block size / 512).",
		 gs->file->path, gs->file->ino, gs->file->st.fragments, gs->traced_blocks,
		 gs->traced_blocks
		     ? 100.0 * (double)gs->traced_where / (double)gs->traced_blocks
		     : 0.0);
	chart_end(&c, cap);
}

/* ---- devices ---------------------------------------------------------------- */

static void fig_stages(FILE *f, struct dev_result *d)
{
	static const int st[] = {ST_Q2G, ST_G2I, ST_I2D, ST_D2C};
	static const char *const col[] = {C_Q2G, "#ff7f0e", C_ELV, C_DEV};
	double avg[NR_OPG][4], max = 0, slot;
	char id[80], title[96], buf[48];
	struct chart c;
	int nops = 0;

	for (int o = 0; o < NR_OPG; o++) {
		double sum = 0;

		for (int s = 0; s < 4; s++) {
			struct metric_stats ms;

			metric_stats(&d->stage[st[s]][o], &ms);
			avg[o][s] = ms.count ? ms.avg : 0;
			sum += avg[o][s];
		}
		max = fmax(max, sum);
		nops += sum > 0;
	}
	if (!nops)
		return;
	snprintf(id, sizeof(id), "fig-stages-%s", d->name);
	snprintf(title, sizeof(title), "%s: where a request's time goes (average)",
		 d->name);
	chart_begin(&c, f, id, title, 640, 340, false);
	c.x = (struct axis){.min = 0, .max = NR_OPG, .unit = AX_CATEGORY, .label = ""};
	c.y = (struct axis){.min = 0,
			    .max = nice_ceil(max * 1.1),
			    .unit = AX_NS,
			    .label = "time per request (avg)"};
	chart_axes(&c);
	slot = (c.right - c.left) / NR_OPG;
	for (int o = 0; o < NR_OPG; o++) {
		double x = c.left + slot * (o + 0.5), base = 0;

		for (int s = 0; s < 4; s++) {
			double y0 = chart_y(&c, &c.y, base),
			       y1 = chart_y(&c, &c.y, base + avg[o][s]);

			chart_fmt(AX_NS, avg[o][s], buf, sizeof(buf));
			fprintf(
			    f,
			    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			    "fill=\"%s\" data-v=\"%.0f\"><title>%s %s: "
			    "%s</title></rect>\n",
			    x - slot * 0.3, y1, slot * 0.6, y0 - y1, col[s], avg[o][s],
			    opg_names[o], stage_names[st[s]], buf);
			base += avg[o][s];
		}
		fprintf(f,
			"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
			x, c.bottom + 18, opg_names[o]);
	}
	for (int s = 0; s < 4; s++)
		chart_legend(&c, stage_names[st[s]], col[s], false);
	chart_end(&c, "btt's breakdown: Q2G (queued to request allocated), G2I (to "
		      "inserted in the scheduler), I2D (scheduler, to dispatched), D2C "
		      "(driver and device, to completed).");
}

static void fig_hist(FILE *f, struct dev_result *d)
{
	struct log2_hist h[NR_OPG];
	uint64_t tot[LOG2_SLOTS] = {0}, max = 0;
	int lo = LOG2_SLOTS, hi = -1;
	char id[80], title[96], buf[48], tip[96];
	struct chart c;
	double slot;

	for (int o = 0; o < NR_OPG; o++) {
		metric_hist(&d->stage[ST_Q2C][o], 1000, &h[o]); /* µs, as biolatency */
		for (int b = 0; b <= h[o].max_slot; b++) {
			tot[b] += h[o].slot[b];
			if (h[o].slot[b]) {
				lo = b < lo ? b : lo;
				hi = b > hi ? b : hi;
			}
		}
	}
	if (hi < 0)
		return;
	for (int b = lo; b <= hi; b++)
		max = tot[b] > max ? tot[b] : max;
	snprintf(id, sizeof(id), "fig-hist-%s", d->name);
	snprintf(title, sizeof(title), "%s: Q2C latency histogram (per bio, log2)",
		 d->name);
	chart_begin(&c, f, id, title, 640, 340, false);
	c.x = (struct axis){.min = 0,
			    .max = 1,
			    .unit = AX_CATEGORY,
			    .label = "Q2C, bucket from low to 2 x low (µs buckets)"};
	c.y = (struct axis){.min = 0,
			    .max = nice_ceil((double)max * 1.1),
			    .unit = AX_PLAIN,
			    .label = "bios"};
	chart_axes(&c);
	slot = (c.right - c.left) / (hi - lo + 1);
	for (int b = lo; b <= hi; b++) {
		double x = c.left + slot * (b - lo + 0.5), base = 0;

		for (int o = 0; o < NR_OPG; o++) {
			double v = (double)(b <= h[o].max_slot ? h[o].slot[b] : 0);
			double y0 = chart_y(&c, &c.y, base),
			       y1 = chart_y(&c, &c.y, base + v);

			if (!v)
				continue;
			chart_fmt(AX_NS, b ? (double)(1ull << b) * 1000 : 0, buf,
				  sizeof(buf));
			snprintf(tip, sizeof(tip), "%s from %s: %.0f", opg_names[o], buf,
				 v);
			fprintf(
			    f,
			    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			    "fill=\"%s\" data-v=\"%.0f\"><title>%s</title></rect>\n",
			    x - slot * 0.4, y1, slot * 0.8, y0 - y1, o ? C_SYS : C_BIO, v,
			    tip);
			base += v;
		}
		if ((b - lo) % (1 + (hi - lo) / 8) == 0) {
			chart_fmt(AX_NS, b ? (double)(1ull << b) * 1000 : 0, buf,
				  sizeof(buf));
			fprintf(f,
				"<text x=\"%.1f\" y=\"%.1f\" "
				"text-anchor=\"middle\">%s</text>\n",
				x, c.bottom + 18, buf);
		}
	}
	chart_legend(&c, "read", C_BIO, false);
	chart_legend(&c, "write", C_SYS, false);
	chart_end(&c, "Bios by queue-to-completion time, in power-of-two buckets (bcc's "
		      "biolatency).");
}

static void windows_table(FILE *f, const struct analysis *a)
{
	size_t n = a->nr_win < 2000 ? a->nr_win : 2000;

	if (!a->window_ns || !a->nr_win)
		return;
	fprintf(
	    f,
	    "<h2>Windows of %.3f s (seed 003's records)</h2>\n<table "
	    "id=\"windows\"><tr><th>start s</th><th>requests</th><th>bytes</th><th>Q2C "
	    "avg µs</th><th>kernel avg µs</th><th>driver avg µs</th><th>device avg "
	    "µs</th></tr>\n",
	    a->window_ns / 1e9);
	for (size_t i = 0; i < n; i++) {
		const struct window *w = &a->win[i];

		fprintf(
		    f,
		    "<tr><td>%.3f</td><td>%" PRIu64 "</td><td>%" PRIu64
		    "</td><td>%.1f</td><td>%.1f</td><td>%.1f</td><td>%.1f</td></tr>\n",
		    i * a->window_ns / 1e9, w->requests, w->bytes,
		    w->nr_q2c ? w->q2c_sum_ns / 1e3 / w->nr_q2c : 0.0,
		    w->nr_q2g ? w->q2g_sum_ns / 1e3 / w->nr_q2g : 0.0,
		    w->nr_g2d ? w->g2d_sum_ns / 1e3 / w->nr_g2d : 0.0,
		    w->nr_d2c ? w->d2c_sum_ns / 1e3 / w->nr_d2c : 0.0);
	}
	fputs("</table>\n", f);
	if (n < a->nr_win)
		fprintf(f, "<p class=\"meta\">First %zu of %zu windows.</p>\n", n,
			a->nr_win);
}

void render_html(FILE *f, const struct report_info *ri, struct analysis *a,
		 const struct frag_scan *layout)
{
	const struct groups *gs = a->groups;

	head(f, ri);
	if (gs) {
		patterns_table(f, gs);
		fputs("<h2>Layout and throughput</h2>\n", f);
		fig_frags_and_throughput(f, gs);
		if (layout && gs->by_layout)
			fig_block_maps(f, gs, layout);
		fputs("<h2>Time per layer over elapsed time</h2>\n", f);
		for (size_t i = 0; i < gs->nr; i++)
			fig_time(f, &gs->g[i]);
	}
	fputs("<h2>System call time against bio and scheduler time</h2>\n", f);
	fig_corr(f, a, false);
	fig_corr(f, a, true);
	if (gs && gs->file) {
		fputs("<h2>Traced order against the layout</h2>\n", f);
		fig_block_order(f, gs);
	}
	fputs("<h2>Devices</h2>\n", f);
	for (size_t i = 0; i < a->nr_devs; i++) {
		fig_stages(f, &a->devs[i]);
		fig_hist(f, &a->devs[i]);
	}
	windows_table(f, a);
	drops_table(f, ri);
	fputs(
	    "<p class=\"meta\">Written by iotrail report --html.</p>\n</body>\n</html>\n",
	    f);
}
