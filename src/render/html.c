// SPDX-License-Identifier: GPL-2.0
/*
 * report --html: one self-contained page (no script, no network), SVG
 * charts from the result model only (const: every statistic computed by
 * analysis_finish). It leads with what every trace has:
 *   fig-stages-D, fig-hist-D   per device: Q2G/G2I/I2D/D2C averages and the
 *                Q2C log2 histogram (ns buckets); "not applicable" said for
 *                a bio-based device, never drawn as 0
 *   fig-stages-time            the stages over time (windows analyzer)
 *   the losses
 * then each analyzer in registry order: its figures where this file draws
 * some, and its tables (any analyzer's, as the text report). The seed
 * experiment's figures come with the patterns analyzer and a layout:
 *   fig-3-5, fig-3-6  fragments per file, read throughput by pattern
 *   fig-3-1      block maps of each pattern's files, with the legend (3-4)
 *   fig-3-7-P    syscall, bio and scheduler time over elapsed time, with
 *                the sector difference on the right axis (3-12 to 3-14)
 *   fig-3-15     one file's traced block order against its layout order
 *   fig-3-10/11  (correlate) syscall time against bio / scheduler time
 *   fig-who-K    (who) bytes read and written per value of each --by key
 *                K (task, cgroup, file, cause), the 12 largest
 *   fig-flow-N   (flows) the slowest flows (the first 8 of its table) as
 *                swim lanes: the call, then each device down the stack, a
 *                bar per request (queue, device), at most 400 requests
 * Every chart is aggregated (bins, log2 buckets, runs of blocks), so its
 * size does not grow with the number of requests. The page is well-formed
 * XML; `page.html#fig-3-6` shows that figure alone (for screenshots).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../analyze/correlate.h"
#include "../analyze/flows.h"
#include "../analyze/patterns.h"
#include "../analyze/who.h"
#include "../analyze/windows.h"
#include "../util/grow.h"
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
	return t->n ? t->avg : NAN;
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
	char cpus[64];

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
	      "<title>iotrail report: ",
	      f);
	xml_escape(f, ri->path);
	fprintf(
	    f, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>iotrail report: ", css);
	xml_escape(f, ri->path);
	fputs("</h1>\n", f);
	if (ri->models && ri->models[0]) {
		fputs("<p class=\"warn\">The device was a model, not a disk: ", f);
		xml_escape(f, ri->models);
		fputs("</p>\n", f);
	}
	fputs("<p class=\"meta\">kernel ", f);
	xml_escape(f, ri->kernel && ri->kernel[0] ? ri->kernel : "?");
	render_cpus(ri, cpus, sizeof(cpus));
	if (ri->complete)
		fprintf(f,
			", %s, %.3f s recorded (stopped by %s), %" PRIu64
			" events, mode %s</p>\n",
			cpus, ri->duration_ns / 1e9, ri->stop_reason, ri->events,
			ri->mode);
	else
		fprintf(
		    f,
		    ", %s, %" PRIu64 " events, mode %s</p>\n<p class=\"warn\">The "
		    "recording was cut short (no END chunk): its length and drops are "
		    "unknown.</p>\n",
		    cpus, ri->events, ri->mode);
}

/* the losses table's order: the most drops first, then by CPU */
static int cmp_drop_rows(const void *a, const void *b)
{
	const struct iot_drop_entry *x = *(const struct iot_drop_entry *const *)a,
				    *y = *(const struct iot_drop_entry *const *)b;
	uint64_t dx = iot_drop_total(x), dy = iot_drop_total(y);

	if (dx != dy)
		return dx > dy ? -1 : 1;
	return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

static void drops_table(FILE *f, const struct report_info *ri)
{
	const struct iot_drop_entry **rows;
	uint64_t lost = 0;
	size_t n = 0;

	for (size_t i = 0; i < ri->nr_drops; i++)
		lost += iot_drop_total(&ri->drops[i]);
	fputs("<h2 id=\"drops\">Losses</h2>\n", f);
	if (!ri->drops_known)
		fputs("<p class=\"warn\">No drop counts: the recording was cut "
		      "short.</p>\n",
		      f);
	fprintf(f,
		"<p class=\"%s\">%" PRIu64 " records dropped, %" PRIu64
		" sequence gaps, %" PRIu64
		" events the kernel kept from the tracer, %" PRIu64
		" completions of requests never seen queued.</p>\n",
		lost || ri->gaps || ri->kernel_misses ? "warn" : "meta", lost, ri->gaps,
		ri->kernel_misses, ri->join.orphan_completions);
	if (ri->marks_dropped || ri->marks_torn || ri->marks_bad_rings)
		fprintf(f,
			"<p class=\"warn\">%" PRIu64 " user marks lost (%" PRIu64
			" dropped by a full ring, %" PRIu64 " never committed); %" PRIu64
			" marker ring(s) damaged and left out.</p>\n",
			ri->marks_dropped + ri->marks_torn, ri->marks_dropped,
			ri->marks_torn, ri->marks_bad_rings);
	if (!lost)
		return;
	/* a row for each CPU that dropped, the most first: on a machine of
	 * hundreds of CPUs, not a row for each CPU */
	rows = malloc(ri->nr_drops * sizeof(*rows));
	if (!rows) {
		fputs("<p class=\"warn\">The losses per CPU: out of memory.</p>\n", f);
		return;
	}
	for (size_t i = 0; i < ri->nr_drops; i++)
		if (iot_drop_total(&ri->drops[i]))
			rows[n++] = &ri->drops[i];
	qsort(rows, n, sizeof(*rows), cmp_drop_rows);
	fprintf(f,
		"<p class=\"meta\">%zu of %zu CPUs dropped records, the most "
		"first.</p>\n",
		n, ri->nr_drops);
	fputs("<table id=\"drops-table\"><tr><th>CPU</th><th>records</th><th>dropped "
	      "(full)</th><th>dropped (torn)</th><th>dropped (no state)</th></tr>\n",
	      f);
	for (size_t i = 0; i < n; i++)
		fprintf(f,
			"<tr><td>%u%s</td><td>%" PRIu64 "</td><td>%" PRIu64
			"</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td></tr>\n",
			rows[i]->cpu,
			rows[i]->flags & IOT_DROP_NO_BUFFER
			    ? " (no buffer: offline at the start)"
			: rows[i]->flags & IOT_DROP_UNWRITTEN
			    ? " (some not written: a write of the file failed)"
			    : "",
			rows[i]->records, rows[i]->drops_full, rows[i]->drops_torn,
			rows[i]->drops_nostate);
	fputs("</table>\n", f);
	free(rows);
}

/* ---- patterns -------------------------------------------------------------- */

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

/* " The device was a model, not a disk: loop0: iotrail-hdd rpm=..." for a
 * caption, or "" (docs/DISKMODEL.md) */
static const char *model_note(const struct report_info *ri, char *buf, size_t len)
{
	if (!ri->models || !ri->models[0])
		return "";
	snprintf(buf, len, " The device was a model, not a disk: %s", ri->models);
	return buf;
}

static void fig_frags_and_throughput(FILE *f, const struct groups *gs,
				     const struct report_info *ri)
{
	char caption[1280], note[600];

	double *v = calloc(3 * (gs->nr ? gs->nr : 1), sizeof(double)), *lo, *hi;

	if (!v)
		return;
	lo = v + gs->nr;
	hi = lo + gs->nr;
	if (gs->by_layout) {
		for (size_t i = 0; i < gs->nr; i++) {
			v[i] = gs->g[i].frags_per_file;
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
		v[i] = gs->g[i].mbps;
	snprintf(caption, sizeof(caption),
		 "Bytes the read system calls returned, over the time from the first "
		 "read's entry to the last read's exit, per pattern (MB = 10^6 "
		 "bytes).%s",
		 model_note(ri, note, sizeof(note)));
	pattern_bars(f, gs, "fig-3-6", "Figure 3-6: read throughput by pattern", "MB/s",
		     v, NULL, NULL, "%.1f", C_ELV, caption);
	free(v);
}

/* Figures 3-1 to 3-4: each pattern's files on the disk, one row of cells
 * per pattern spanning its blocks, coloured by file (patterns.h's grids). */
static void fig_block_maps(FILE *f, const struct groups *gs)
{
	enum { COLS = 128, CELL = 6 };
	const double row_h = (GROUP_MAP_CELLS / COLS) * CELL + 34, w = COLS * CELL + 100;
	double h = 50 + row_h * (double)gs->nr + 40;

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
		const struct block_grid *g = &gs->grids[gi];
		double y0 = 40 + row_h * (double)gi;
		uint64_t rows = (g->cells + COLS - 1) / COLS;

		if (!g->cells)
			continue;
		fprintf(f, "<text x=\"20\" y=\"%.1f\">pattern ", y0 + 12);
		xml_escape(f, gs->g[gi].name);
		fprintf(f,
			": %zu files, %.2f fragments per file; blocks %" PRIu64
			" to %" PRIu64 ", %" PRIu64 " a cell</text>\n",
			gs->g[gi].nr_files, gs->g[gi].frags_per_file, g->first,
			g->end - 1, g->bpc);
		/* background once, then runs of one owner along a row */
		fprintf(f,
			"<rect x=\"20\" y=\"%.0f\" width=\"%d\" height=\"%.0f\" "
			"fill=\"#eeeeee\"/>",
			y0 + 18, COLS * CELL, (double)(rows * CELL));
		for (size_t c = 0; c < g->cells;) {
			size_t e = c + 1;
			double x = 20 + (double)(c % COLS) * CELL;
			double y = y0 + 18 + (double)(c / COLS) * CELL;

			while (e < g->cells && e % COLS && g->owner[e] == g->owner[c])
				e++;
			if (g->owner[c] >= 0)
				fprintf(
				    f,
				    "<rect x=\"%.0f\" y=\"%.0f\" width=\"%zu\" "
				    "height=\"%d\" "
				    "fill=\"hsl(%.0f,70%%,55%%)\"/>",
				    x, y, (e - c) * CELL, CELL,
				    (double)(((size_t)g->owner[c] * 137508) % 360000) /
					1000.0);
			else if (g->owner[c] == GRID_MIXED)
				fprintf(f,
					"<rect x=\"%.0f\" y=\"%.0f\" width=\"%zu\" "
					"height=\"%d\" "
					"fill=\"#777\"/>",
					x, y, (e - c) * CELL, CELL);
			c = e;
		}
		for (size_t c = 0; c < g->cells; c++)
			if (g->mark[c])
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
	xml_id(id, sizeof(id), "fig-3-7-", g->name);
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

static void fig_corr(FILE *f, const struct correlate_priv *cp, bool elv)
{
	double xs[LOG2_SLOTS], avg[LOG2_SLOTS], mx[LOG2_SLOTS], mn[LOG2_SLOTS];
	double lo = INFINITY, hi = 0, xlo = INFINITY, xhi = 0;
	size_t n = 0;
	struct chart c;

	for (int k = 0; k < LOG2_SLOTS; k++) {
		const struct corr_bucket *b = &cp->b[k];
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

static void fig_stages(FILE *f, const struct dev_result *d)
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
			const struct metric_stats *ms = &d->stage[st[s]][o].st;

			avg[o][s] = ms->count ? ms->avg : 0;
			sum += avg[o][s];
		}
		max = fmax(max, sum);
		nops += sum > 0;
	}
	if (!nops) {
		fputs("<p class=\"meta\">", f);
		xml_escape(f, d->name);
		fputs(d->bio_based
			  ? ": a bio-based device (no requests, no I/O scheduler): Q2G, "
			    "G2I, I2D and D2C do not apply; its time is Q2C below.</p>\n"
			  : ": no request with stage times in this trace.</p>\n",
		      f);
		return;
	}
	xml_id(id, sizeof(id), "fig-stages-", d->name);
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
		fprintf(
		    f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s%s</text>\n",
		    x, c.bottom + 18, opg_names[o], d->requests[o] ? "" : " (none)");
	}
	for (int s = 0; s < 4; s++)
		chart_legend(&c, stage_names[st[s]], col[s], false);
	chart_end(&c, "btt's breakdown: Q2G (queued to request allocated), G2I (to "
		      "inserted in the scheduler), I2D (scheduler, to dispatched), D2C "
		      "(driver and device, to completed).");
}

/* Q2C per bio in log2 buckets of nanoseconds (bcc's biolatency, finer):
 * only the buckets from the first to the last that has a bio, each bar
 * labelled with its share. */
static void fig_hist(FILE *f, const struct dev_result *d)
{
	const struct log2_hist *h[NR_OPG];
	uint64_t tot[LOG2_SLOTS] = {0}, max = 0, all = 0;
	int lo = LOG2_SLOTS, hi = -1;
	char id[80], title[96], buf[48], tip[128];
	struct chart c;
	double slot;

	for (int o = 0; o < NR_OPG; o++) {
		h[o] = &d->stage[ST_Q2C][o].hist;
		for (int b = 0; b <= h[o]->max_slot; b++) {
			tot[b] += h[o]->slot[b];
			all += h[o]->slot[b];
			if (h[o]->slot[b]) {
				lo = b < lo ? b : lo;
				hi = b > hi ? b : hi;
			}
		}
	}
	if (hi < 0)
		return;
	for (int b = lo; b <= hi; b++)
		max = tot[b] > max ? tot[b] : max;
	xml_id(id, sizeof(id), "fig-hist-", d->name);
	snprintf(title, sizeof(title), "%s: Q2C latency histogram (per bio, log2)",
		 d->name);
	chart_begin(&c, f, id, title, 640, 340, false);
	c.x = (struct axis){.min = 0,
			    .max = 1,
			    .unit = AX_CATEGORY,
			    .label = "Q2C, bucket from its low bound to twice that"};
	c.y = (struct axis){.min = 0,
			    .max = nice_ceil((double)max * 1.1),
			    .unit = AX_PLAIN,
			    .label = "bios"};
	chart_axes(&c);
	slot = (c.right - c.left) / (hi - lo + 1);
	for (int b = lo; b <= hi; b++) {
		double x = c.left + slot * (b - lo + 0.5), base = 0;

		for (int o = 0; o < NR_OPG; o++) {
			double v = (double)(b <= h[o]->max_slot ? h[o]->slot[b] : 0);
			double y0 = chart_y(&c, &c.y, base),
			       y1 = chart_y(&c, &c.y, base + v);

			if (!v)
				continue;
			chart_fmt(AX_NS, b ? (double)(1ull << b) : 0, buf, sizeof(buf));
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
		if (tot[b]) {
			double pct = 100.0 * (double)tot[b] / (double)all;

			fprintf(f,
				"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
				"font-size=\"10\">%s%.0f%%</text>\n",
				x, chart_y(&c, &c.y, base) - 3, pct < 0.5 ? "&lt;" : "",
				pct < 0.5 ? 1.0 : pct);
		}
		if ((b - lo) % (1 + (hi - lo) / 8) == 0) {
			chart_fmt(AX_NS, b ? (double)(1ull << b) : 0, buf, sizeof(buf));
			fprintf(f,
				"<text x=\"%.1f\" y=\"%.1f\" "
				"text-anchor=\"middle\">%s</text>\n",
				x, c.bottom + 18, buf);
		}
	}
	chart_legend(&c, "read", C_BIO, false);
	chart_legend(&c, "write", C_SYS, false);
	chart_end(&c, "Bios by queue-to-completion time, in power-of-two buckets of "
		      "nanoseconds (bcc's biolatency), with each bucket's share of the "
		      "bios.");
}

/* Average Q2C, kernel (Q2G), driver (G2D) and device (D2C) time per window;
 * a stage without samples in a window (or on any device) is not drawn. */
static void fig_windows(FILE *f, const struct windows_priv *wp)
{
	size_t n = wp->nr;
	double *v = n ? calloc(5 * n, sizeof(double)) : NULL;
	double lo = INFINITY, hi = 0, *xs, *q2c, *k, *dr, *dv;
	struct chart c;

	if (!v)
		return;
	xs = v, q2c = v + n, k = v + 2 * n, dr = v + 3 * n, dv = v + 4 * n;
	for (size_t i = 0; i < n; i++) {
		const struct window *w = &wp->win[i];

		xs[i] = ((double)i + 0.5) * (double)wp->window_ns;
		q2c[i] = w->nr_q2c ? (double)w->q2c_sum_ns / (double)w->nr_q2c : NAN;
		k[i] = w->nr_q2g ? (double)w->q2g_sum_ns / (double)w->nr_q2g : NAN;
		dr[i] = w->nr_g2d ? (double)w->g2d_sum_ns / (double)w->nr_g2d : NAN;
		dv[i] = w->nr_d2c ? (double)w->d2c_sum_ns / (double)w->nr_d2c : NAN;
	}
	positive_range(q2c, n, &lo, &hi);
	positive_range(k, n, &lo, &hi);
	positive_range(dr, n, &lo, &hi);
	positive_range(dv, n, &lo, &hi);
	if (hi > 0) {
		chart_begin(&c, f, "fig-stages-time",
			    "Stages over time (average per window)", 900, 360, false);
		c.x = (struct axis){.min = 0,
				    .max = (double)wp->window_ns * (double)n,
				    .unit = AX_NS,
				    .label = "elapsed since the recording started"};
		log_axis(&c.y, lo, hi, "time per request (log)");
		chart_axes(&c);
		chart_line(&c, &c.y, xs, q2c, n, C_BIO, NULL, "q2c");
		chart_line(&c, &c.y, xs, k, n, C_Q2G, NULL, "kernel");
		chart_line(&c, &c.y, xs, dr, n, "#ff7f0e", NULL, "driver");
		chart_line(&c, &c.y, xs, dv, n, C_DEV, NULL, "device");
		chart_legend(&c, "Q2C", C_BIO, true);
		chart_legend(&c, "kernel Q2G", C_Q2G, true);
		chart_legend(&c, "driver G2D", "#ff7f0e", true);
		chart_legend(&c, "device D2C", C_DEV, true);
		chart_end(&c, "Per window of completions: the average of each stage over "
			      "the requests that had it. A stage no request had (a "
			      "bio-based device has Q and C only) is not drawn: not "
			      "applicable, not zero.");
	}
	free(v);
}

/* any analyzer's table, as the text report shows it */
static void html_table(FILE *f, const struct table *t)
{
	size_t n = t->nr_rows < 2000 ? t->nr_rows : 2000;
	char buf[256];

	if (!table_in(t->in, IN_HTML))
		return;
	fputs("<h2>", f);
	xml_escape(f, t->title[0] ? t->title : t->name);
	fputs("</h2>\n<table id=\"", f);
	xml_escape(f, t->name);
	fputs("\"><tr>", f);
	for (size_t c = 0; c < t->nr_cols; c++) {
		if (!table_in(t->cols[c].in, IN_HTML))
			continue;
		fputs("<th>", f);
		xml_escape(f, t->cols[c].head);
		fputs("</th>", f);
	}
	fputs("</tr>\n", f);
	for (size_t r = 0; r < n; r++) {
		fputs("<tr>", f);
		for (size_t c = 0; c < t->nr_cols; c++) {
			if (!table_in(t->cols[c].in, IN_HTML))
				continue;
			render_cell(t, r, c, buf, sizeof(buf));
			fputs("<td>", f);
			xml_escape(f, buf);
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
	if (n < t->nr_rows)
		fprintf(f, "<p class=\"meta\">First %zu of %zu rows.</p>\n", n,
			t->nr_rows);
	if (t->note) {
		fputs("<p class=\"meta\">", f);
		xml_escape(f, t->note);
		fputs("</p>\n", f);
	}
}

/* ---- who ------------------------------------------------------------------- */

#define WHO_BARS 12

struct who_bar {
	char label[96];
	double bytes[2]; /* read, write */
};

static int cmp_who_bar(const void *x, const void *y)
{
	const struct who_bar *a = x, *b = y;
	double ta = a->bytes[0] + a->bytes[1], tb = b->bytes[0] + b->bytes[1];

	return (ta < tb) - (ta > tb);
}

/* One chart for one key: the who rows summed by that key's cells. */
static void fig_who_key(FILE *f, const struct table *t, const char *key)
{
	struct who_bar *bars = calloc(t->nr_rows ? t->nr_rows : 1, sizeof(*bars));
	size_t nb = 0, rd = t->nr_cols, wr = t->nr_cols;
	char id[48], title[96], buf[64];
	double max = 0, slot;
	struct chart c;

	if (!bars)
		return;
	for (size_t k = 0; k < t->nr_cols; k++) {
		if (!strcmp(t->cols[k].key, "read_bytes"))
			rd = k;
		else if (!strcmp(t->cols[k].key, "write_bytes"))
			wr = k;
	}
	for (size_t r = 0; r < t->nr_rows && rd < t->nr_cols && wr < t->nr_cols; r++) {
		struct who_bar b = {.bytes = {(double)table_cell(t, r, rd)->u,
					      (double)table_cell(t, r, wr)->u}};
		size_t i;

		char ino[32] = "";

		for (size_t k = 0; k < t->nr_cols; k++) {
			size_t n = strlen(b.label);

			/* a cgroup by its path (its id only in the table) */
			if (!who_key_column(key, t->cols[k].key) ||
			    !strcmp(t->cols[k].key, "cgroup_id"))
				continue;
			render_cell(t, r, k, buf, sizeof(buf));
			if (!strcmp(t->cols[k].key, "inode")) {
				snprintf(ino, sizeof(ino), "inode %s", buf);
				continue;
			}
			if (!strcmp(t->cols[k].key, "path") && buf[0] != '(') {
				/* a path alone names a file; else its device and
				 * inode; "-": no file (a flush) */
				if (buf[0] && strcmp(buf, "-"))
					snprintf(b.label, sizeof(b.label), "%s", buf);
				else
					snprintf(b.label + n, sizeof(b.label) - n, " %s",
						 buf[0] ? "(no file)" : ino);
				continue;
			}
			if (buf[0])
				snprintf(b.label + n, sizeof(b.label) - n, "%s%s",
					 n ? " " : "", buf);
		}
		for (i = 0; i < nb && strcmp(bars[i].label, b.label); i++)
			;
		if (i == nb)
			bars[nb++] = b;
		else
			bars[i].bytes[0] += b.bytes[0], bars[i].bytes[1] += b.bytes[1];
	}
	qsort(bars, nb, sizeof(*bars), cmp_who_bar);
	if (nb > WHO_BARS)
		nb = WHO_BARS;
	for (size_t i = 0; i < nb; i++)
		max = fmax(max, fmax(bars[i].bytes[0], bars[i].bytes[1]));
	snprintf(id, sizeof(id), "fig-who-%s", key);
	snprintf(title, sizeof(title), "Bytes read and written by %s", key);
	chart_begin(&c, f, id, title, 720, 400, false);
	c.bottom -= 70; /* room for the slanted labels */
	c.x = (struct axis){.min = 0,
			    .max = (double)(nb ? nb : 1),
			    .unit = AX_CATEGORY,
			    .label = NULL}; /* the title names it; the ticks slant */
	c.y = (struct axis){.min = 0,
			    .max = max > 0 ? nice_ceil(max * 1.1) : 1,
			    .unit = AX_PLAIN,
			    .label = "bytes"};
	chart_axes(&c);
	slot = (c.right - c.left) / (double)(nb ? nb : 1);
	for (size_t i = 0; i < nb; i++) {
		double x = c.left + slot * ((double)i + 0.5);

		fputs("<g data-who=\"", f);
		xml_escape(f, bars[i].label);
		fputs("\">", f);
		for (int o = 0; o < 2; o++) {
			snprintf(buf, sizeof(buf), "%.0f", bars[i].bytes[o]);
			chart_bar(&c, &c.y, x + (o ? 1 : -1) * slot * 0.2, slot * 0.38,
				  bars[i].bytes[o], o ? C_SYS : C_BIO, buf,
				  bars[i].label);
		}
		fprintf(f,
			"</g>\n<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" "
			"font-size=\"11\" transform=\"rotate(-30 %.1f %.1f)\">",
			x, c.bottom + 14, x, c.bottom + 14);
		xml_escape(f, bars[i].label);
		fputs("</text>\n", f);
	}
	chart_legend(&c, "read", C_BIO, false);
	chart_legend(&c, "written", C_SYS, false);
	snprintf(title, sizeof(title),
		 "The %zu largest by bytes; rows of the table below summed by %s.", nb,
		 key);
	chart_end(&c, title);
	free(bars);
}

static void who_figures(FILE *f, const struct an_output *o)
{
	const struct table *t = o->nr_tables ? o->tables[0] : NULL;
	char by[64], *save = NULL;

	if (!t || !t->nr_rows || !t->json_by[0])
		return;
	fputs("<h2>Who</h2>\n", f);
	snprintf(by, sizeof(by), "%s", t->json_by);
	for (char *k = strtok_r(by, ",", &save); k; k = strtok_r(NULL, ",", &save))
		fig_who_key(f, t, k);
}

/* why the patterns read as they do: what a request cost the device by how
 * far it was from the one dispatched before, per pattern */
static void fig_seek_cost(FILE *f, const struct groups *gs, const struct report_info *ri)
{
	static const char *const col[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
					  "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};
	double xs[GROUP_SEEK_BUCKETS], lo = INFINITY, hi = 0;
	char caption[1280], note[600];
	struct chart c;
	int last = 0;

	for (size_t i = 0; i < gs->nr; i++)
		for (int k = 0; k < GROUP_SEEK_BUCKETS; k++)
			if (gs->g[i].seek_svc[k].n) {
				double v = gs->g[i].seek_svc[k].avg;

				lo = fmin(lo, v);
				hi = fmax(hi, v);
				last = k > last ? k : last;
			}
	if (!(hi > 0))
		return;
	for (int k = 0; k < GROUP_SEEK_BUCKETS; k++)
		xs[k] = k;
	chart_begin(&c, f, "fig-seek",
		    "Seek cost: service time against seek distance, by pattern", 900, 380,
		    false);
	c.x = (struct axis){
	    .min = 0,
	    .max = last + 1,
	    .unit = AX_PLAIN,
	    .label = "seek distance, log2 sectors (0: none; k: 2^(k-1) to 2^k)"};
	log_axis(&c.y, lo, hi, "service time (avg, log)");
	chart_axes(&c);
	for (size_t i = 0; i < gs->nr; i++) {
		double ys[GROUP_SEEK_BUCKETS];
		const char *color = col[i % (sizeof(col) / sizeof(col[0]))];

		for (int k = 0; k < GROUP_SEEK_BUCKETS; k++)
			ys[k] = avg_or_nan(&gs->g[i].seek_svc[k]);
		chart_line(&c, &c.y, xs, ys, (size_t)last + 1, color, NULL,
			   gs->g[i].name);
		chart_legend(&c, gs->g[i].name, color, true);
	}
	snprintf(caption, sizeof(caption),
		 "The average service time of each pattern's requests (C less the "
		 "later of its D and the C of the request dispatched before: D2C "
		 "without the wait behind the requests ahead of it) by their "
		 "distance from that request (sectors, log2 buckets). On a "
		 "rotating disk it grows with the distance, and fragmented patterns "
		 "have more far requests; on flash or memory it does not.%s",
		 model_note(ri, note, sizeof(note)));
	chart_end(&c, caption);
}

/* ---- flows: swim lanes -------------------------------------------------------- */

#define FLOW_FIGS     8	  /* flows drawn, the first of the flows table */
#define FLOW_FIG_REQS 400 /* requests drawn per flow */
#define LANE_ROWS     6	  /* sub-rows of a lane: overlapping requests */
#define LANE_ROW_PX   11.0

struct lane_req {
	struct join_request r;
	int lane, row;
};

struct lane_flow {
	uint32_t flow;
	const char *start; /* "syscall", "io_uring", "fault"; NULL: a cause */
	uint64_t start_ns, end_ns;
	struct lane_req *reqs;
	size_t nr, cap, not_drawn;
};

struct lane_set {
	struct lane_flow f[FLOW_FIGS];
	size_t nr;
};

static struct lane_flow *lane_flow(struct lane_set *ls, uint32_t flow)
{
	for (size_t i = 0; i < ls->nr; i++)
		if (ls->f[i].flow == flow)
			return &ls->f[i];
	return NULL;
}

static int lane_start_of(void *ctx, uint32_t flow, const char *start, uint64_t start_ns,
			 uint64_t end_ns)
{
	struct lane_flow *lf = lane_flow(ctx, flow);

	if (lf) {
		lf->start = strcmp(start, "cause") ? start : NULL;
		lf->start_ns = start_ns;
		lf->end_ns = end_ns;
	}
	return 0;
}

static int lane_part(void *ctx, uint32_t flow, uint64_t id, const struct join_request *r,
		     uint64_t up_id)
{
	struct lane_flow *lf = lane_flow(ctx, flow);

	(void)id;
	(void)up_id;
	if (!lf)
		return 0;
	if (lf->nr >= FLOW_FIG_REQS) {
		lf->not_drawn++;
		return 0;
	}
	if (GROW(lf->reqs, lf->nr + 1, lf->cap))
		return -ENOMEM;
	lf->reqs[lf->nr++] = (struct lane_req){.r = *r};
	return 0;
}

static uint64_t lane_start(const struct join_request *r)
{
	return r->q_ns ? r->q_ns : r->d_ns ? r->d_ns : r->c_ns;
}

static size_t table_col(const struct table *t, const char *key)
{
	for (size_t k = 0; k < t->nr_cols; k++)
		if (!strcmp(t->cols[k].key, key))
			return k;
	return 0;
}

/* one flow: lane 0 where it started (a call, an io_uring request, a
 * fault), then a lane per device in the order its requests were visited
 * (upper before lower) */
static void fig_flow(FILE *f, const struct analysis *a, struct lane_flow *lf,
		     const char *title)
{
	uint32_t devs[16];
	int nr_lanes = lf->start ? 1 : 0, dev0 = nr_lanes, rows[17] = {0};
	bool crowded = false; /* a 17th device's requests share the last lane */
	uint64_t t0 = lf->start_ns ? lf->start_ns : UINT64_MAX, t1 = lf->end_ns;
	double y, ly[17];
	char id[32], tip[160], caption[640];
	struct chart c;

	if (lf->start)
		rows[0] = 1;
	for (size_t i = 0; i < lf->nr; i++) { /* lanes, and the rows in each */
		struct lane_req *q = &lf->reqs[i];
		int l;

		for (l = dev0; l < nr_lanes && devs[l - dev0] != q->r.dev; l++)
			;
		if (l == nr_lanes && nr_lanes < 17 && nr_lanes - dev0 < 16)
			devs[nr_lanes++ - dev0] = q->r.dev;
		crowded |= l == nr_lanes;
		q->lane = l < nr_lanes ? l : nr_lanes - 1;
		t0 = lane_start(&q->r) < t0 ? lane_start(&q->r) : t0;
		t1 = q->r.c_ns > t1 ? q->r.c_ns : t1;
	}
	for (int l = dev0; l < nr_lanes; l++) { /* greedy rows: no overlap */
		uint64_t end[LANE_ROWS] = {0};

		for (size_t i = 0; i < lf->nr; i++) {
			struct lane_req *q = &lf->reqs[i];
			int r = 0;

			if (q->lane != l)
				continue;
			while (r < LANE_ROWS - 1 && end[r] > lane_start(&q->r))
				r++;
			q->row = r;
			end[r] = q->r.c_ns > end[r] ? q->r.c_ns : end[r];
			rows[l] = r + 1 > rows[l] ? r + 1 : rows[l];
		}
	}
	if (!nr_lanes || t1 <= t0)
		return;
	y = 0;
	for (int l = 0; l < nr_lanes; l++) {
		ly[l] = y;
		y += rows[l] * LANE_ROW_PX + 10;
	}
	snprintf(id, sizeof(id), "fig-flow-%u", lf->flow);
	chart_begin(&c, f, id, title, 900, 40 + y + 70, false);
	c.left = 110;
	c.x = (struct axis){.min = 0,
			    .max = (double)(t1 - t0) * 1.02,
			    .unit = AX_NS,
			    .label = "elapsed from the flow's start"};
	c.y = (struct axis){.min = 0, .max = 1, .unit = AX_CATEGORY, .label = NULL};
	chart_axes(&c);
	for (int l = 0; l < nr_lanes; l++) {
		const char *name =
		    l < dev0 ? lf->start : analysis_dev_name(a, devs[l - dev0]);
		char more[64];

		if (crowded && l == nr_lanes - 1) { /* a device's lane: the 16th */
			snprintf(more, sizeof(more), "%s and more", name);
			name = more;
		}
		fprintf(f,
			"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" "
			"font-size=\"11\" fill=\"#333\">",
			c.left - 6, c.top + ly[l] + 5 + rows[l] * LANE_ROW_PX / 2 + 4);
		xml_escape(f, name);
		fputs("</text>\n", f);
		if (l)
			fprintf(f,
				"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
				"y2=\"%.1f\" stroke=\"#e4e4e4\"/>\n",
				c.left, c.top + ly[l], c.right, c.top + ly[l]);
	}
	if (lf->start) { /* a fault has no end: a mark */
		snprintf(tip, sizeof(tip), "%s: %.1f us", lf->start,
			 lf->end_ns > lf->start_ns ? (lf->end_ns - lf->start_ns) / 1e3
						   : 0.0);
		chart_span(
		    &c, (double)(lf->start_ns - t0),
		    (double)((lf->end_ns > lf->start_ns ? lf->end_ns : lf->start_ns) -
			     t0),
		    c.top + 5, LANE_ROW_PX - 2, C_SYS, tip);
	}
	for (size_t i = 0; i < lf->nr; i++) {
		const struct lane_req *q = &lf->reqs[i];
		double yy = c.top + ly[q->lane] + 5 + q->row * LANE_ROW_PX;
		uint64_t s = lane_start(&q->r), d = q->r.d_ns ? q->r.d_ns : s;

		snprintf(tip, sizeof(tip),
			 "%s %llu+%u: queue (Q to D) %.1f us, device (D to C) %.1f us",
			 analysis_dev_name(a, q->r.dev), (unsigned long long)q->r.sector,
			 q->r.nr_sectors, (double)(d - s) / 1e3,
			 (double)(q->r.c_ns - d) / 1e3);
		if (d > s)
			chart_span(&c, (double)(s - t0), (double)(d - t0), yy,
				   LANE_ROW_PX - 2, C_Q2G, tip);
		chart_span(&c, (double)(d - t0), (double)(q->r.c_ns - t0), yy,
			   LANE_ROW_PX - 2, C_DEV, tip);
	}
	if (lf->start)
		chart_legend(&c, lf->start, C_SYS, false);
	chart_legend(&c, "queue (Q to D)", C_Q2G, false);
	chart_legend(&c, "device (D to C)", C_DEV, false);
	snprintf(caption, sizeof(caption),
		 "A lane per layer: where the flow started (a call, an io_uring "
		 "request, a fault), then each device "
		 "its requests reached, top to bottom (the devices below a loop "
		 "device after it); a bar per request, its queue and device time "
		 "(overlapping requests on rows of their own, at most %d)%s. %zu "
		 "requests%s.",
		 LANE_ROWS,
		 crowded ? "; past 16 devices, the others' requests in the last "
			   "lane (each bar's tip names its device)"
			 : "",
		 lf->nr + lf->not_drawn, lf->not_drawn ? ", the first 400 drawn" : "");
	chart_end(&c, caption);
}

static void flows_figures(FILE *f, const struct analysis *a, const struct an_output *o)
{
	const struct table *t = NULL;
	struct lane_set ls = {0};
	struct flows_visitor v = {
	    .ctx = &ls, .flow = lane_start_of, .request = lane_part};
	size_t cf, cc, cm, ct;
	char title[160];

	for (size_t k = 0; k < o->nr_tables; k++)
		if (!strcmp(o->tables[k]->name, "flows"))
			t = o->tables[k];
	if (!t || !t->nr_rows)
		return;
	cf = table_col(t, "flow");
	cc = table_col(t, "cause");
	cm = table_col(t, "comm");
	ct = table_col(t, "total_ns");
	for (size_t r = 0; r < t->nr_rows && ls.nr < FLOW_FIGS; r++)
		ls.f[ls.nr++].flow = (uint32_t)table_cell(t, r, cf)->u;
	if (!flows_visit(o, &v)) {
		fputs("<h2>The slowest flows, lane by lane</h2>\n", f);
		for (size_t i = 0; i < ls.nr; i++) {
			snprintf(title, sizeof(title), "Flow %u: %s by %s, %.1f us",
				 ls.f[i].flow, table_cell_str(t, i, cc),
				 table_cell_str(t, i, cm),
				 (double)table_cell(t, i, ct)->u / 1e3);
			fig_flow(f, a, &ls.f[i], title);
		}
	}
	for (size_t i = 0; i < ls.nr; i++)
		free(ls.f[i].reqs);
}

/* the seed experiment's figures, with a layout (the demo) */
static void patterns_figures(FILE *f, const struct groups *gs,
			     const struct report_info *ri)
{
	if (!gs->by_layout)
		return;
	fputs("<h2>Layout and throughput</h2>\n", f);
	fig_frags_and_throughput(f, gs, ri);
	fig_seek_cost(f, gs, ri);
	if (gs->grids)
		fig_block_maps(f, gs);
	fputs("<h2>Time per layer over elapsed time</h2>\n", f);
	for (size_t i = 0; i < gs->nr; i++)
		fig_time(f, &gs->g[i]);
	if (gs->file) {
		fputs("<h2>Traced order against the layout</h2>\n", f);
		fig_block_order(f, gs);
	}
}

static void correlate_figures(FILE *f, const struct correlate_priv *cp)
{
	fputs("<h2>System call time against bio and scheduler time</h2>\n", f);
	fig_corr(f, cp, false);
	fig_corr(f, cp, true);
}

void render_html(FILE *f, const struct report_info *ri, const struct analysis *a)
{
	const struct an_output *w = analysis_output(a, "windows");

	head(f, ri);
	fputs("<h2>Devices</h2>\n", f);
	for (size_t i = 0; i < a->nr_devs; i++) {
		fig_stages(f, &a->devs[i]);
		fig_hist(f, &a->devs[i]);
	}
	if (w) {
		fputs("<h2>Stages over time</h2>\n", f);
		fig_windows(f, w->priv);
	}
	drops_table(f, ri);
	/* the analyzers in registry order: their figures, then their tables */
	for (size_t i = 0; i < a->nr_out; i++) {
		const struct an_output *o = &a->out[i];

		if (!strcmp(o->an->name, "patterns"))
			patterns_figures(f, o->priv, ri);
		else if (!strcmp(o->an->name, "correlate"))
			correlate_figures(f, o->priv);
		else if (!strcmp(o->an->name, "who"))
			who_figures(f, o);
		else if (!strcmp(o->an->name, "flows"))
			flows_figures(f, a, o);
		for (size_t k = 0; k < o->nr_tables; k++)
			html_table(f, o->tables[k]);
	}
	fputs(
	    "<p class=\"meta\">Written by iotrail report --html.</p>\n</body>\n</html>\n",
	    f);
}
