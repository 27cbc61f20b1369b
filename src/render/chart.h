/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small SVG charts for `report --html`: a plot area with a bottom axis, a
 * left axis and optionally a right one, each linear or log10, labelled with
 * its unit; lines, bars, segments and a legend. Values are data units
 * (nanoseconds for time axes); the chart maps them to pixels. Nothing here
 * knows about I/O.
 */
#ifndef IOTRAIL_RENDER_CHART_H
#define IOTRAIL_RENDER_CHART_H

#include <stdbool.h>
#include <stdio.h>

#include "../util/nice.h"
#include "../util/xml.h"

enum axis_unit {
	AX_PLAIN,    /* numbers, with k/M/G */
	AX_NS,	     /* nanoseconds shown as ns/µs/ms/s */
	AX_CATEGORY, /* the caller labels the ticks (bars by name) */
};

struct axis {
	double min, max;
	bool log; /* log10; min must be > 0 */
	enum axis_unit unit;
	const char *label; /* with its unit, e.g. "elapsed (ms)" */
};

struct chart {
	FILE *f;
	double w, h;			 /* whole SVG */
	double left, right, top, bottom; /* plot area edges, pixels */
	struct axis x, y, y2;
	bool has_y2;
	double legend_x; /* where the next legend entry goes */
	bool figure;	 /* inside an HTML <figure> (else a standalone SVG) */
};

/* Opens <figure id=ID> with an <svg> of w x h pixels and a title; with id
 * NULL, a standalone SVG document (a .svg file). */
void chart_begin(struct chart *c, FILE *f, const char *id, const char *title, double w,
		 double h, bool has_y2);
/* Frame, ticks and axis labels (call after setting x, y, y2). Category
 * axes get no ticks here. */
void chart_axes(struct chart *c);
double chart_x(const struct chart *c, double v);
double chart_y(const struct chart *c, const struct axis *a, double v);
/* A polyline through the points whose y is finite and (log) positive
 * (NAN: no sample there), with a dot at each point when they are few;
 * dash may be NULL. */
void chart_line(struct chart *c, const struct axis *ya, const double *xs,
		const double *ys, size_t n, const char *color, const char *dash,
		const char *name);
/* A bar from the axis floor to v, centred at x, w pixels wide; data-v
 * carries the value as printed in the tables (fmt applied to v). */
void chart_bar(struct chart *c, const struct axis *ya, double x, double w, double v,
	       const char *color, const char *datav, const char *tip);
void chart_legend(struct chart *c, const char *name, const char *color, bool line);
/* A horizontal bar from x0 to x1 (data units) at pixel row y, h pixels
 * high (a span on a time line), at least one pixel wide; tip may be NULL. */
void chart_span(struct chart *c, double x0, double x1, double y, double h,
		const char *color, const char *tip);
/* A dot at each point. */
void chart_dots(struct chart *c, const struct axis *ya, const double *xs,
		const double *ys, size_t n, const char *color);
/* Closes the svg, adds the caption, closes the figure. */
void chart_end(struct chart *c, const char *caption);

/* "1.5 ms", "20 µs", "3 s"; "2k", "1.5M" for AX_PLAIN */
void chart_fmt(enum axis_unit u, double v, char *buf, size_t len);

#endif
