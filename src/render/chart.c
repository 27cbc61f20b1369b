// SPDX-License-Identifier: GPL-2.0
/* Small SVG charts (chart.h). */
#include "chart.h"

#include <math.h>
#include <string.h>

static void trim(char *buf)
{
	char *dot = strchr(buf, '.');

	if (!dot)
		return;
	for (char *e = buf + strlen(buf) - 1; e > dot && *e == '0'; e--)
		*e = 0;
	if (dot[1] == 0)
		*dot = 0;
}

void chart_fmt(enum axis_unit u, double v, char *buf, size_t len)
{
	static const char *const ns_units[] = {"ns", "µs", "ms", "s"};
	static const char *const plain_units[] = {"", "k", "M", "G", "T"};
	char num[32];
	int k = 0;
	double a = fabs(v);

	if (v == 0) {
		snprintf(buf, len, "0");
		return;
	}
	if (u == AX_NS) {
		while (a >= 1000 && k < 3)
			a /= 1000, v /= 1000, k++;
		snprintf(num, sizeof(num), "%.2f", v);
		trim(num);
		snprintf(buf, len, "%s %s", num, ns_units[k]);
		return;
	}
	while (a >= 1000 && k < 4)
		a /= 1000, v /= 1000, k++;
	snprintf(num, sizeof(num), "%.2f", v);
	trim(num);
	snprintf(buf, len, "%s%s", num, plain_units[k]);
}

void chart_begin(struct chart *c, FILE *f, const char *id, const char *title, double w,
		 double h, bool has_y2)
{
	memset(c, 0, sizeof(*c));
	c->f = f;
	c->w = w;
	c->h = id ? h : h + 22; /* standalone: a row for the caption */
	c->left = 80;
	c->right = w - (has_y2 ? 80 : 20);
	c->top = 40;
	c->bottom = h - 70;
	c->has_y2 = has_y2;
	c->figure = id != NULL;
	if (id) {
		fputs("<figure class=\"chart\" id=\"", f);
		xml_escape(f, id);
		fputs("\">\n", f);
	}
	fprintf(
	    f,
	    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
	    "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n"
	    "<rect width=\"%.0f\" height=\"%.0f\" fill=\"#fff\"/>\n"
	    "<text x=\"%.0f\" y=\"22\" font-size=\"15\" font-weight=\"bold\">",
	    w, c->h, w, c->h, w, c->h, c->left);
	xml_escape(f, title);
	fputs("</text>\n", f);
}

double chart_x(const struct chart *c, double v)
{
	double lo = c->x.log ? log10(c->x.min) : c->x.min;
	double hi = c->x.log ? log10(c->x.max) : c->x.max;
	double t = c->x.log ? (v > 0 ? log10(v) : lo) : v;

	if (hi <= lo)
		hi = lo + 1;
	return c->left + (c->right - c->left) * (t - lo) / (hi - lo);
}

double chart_y(const struct chart *c, const struct axis *a, double v)
{
	double lo = a->log ? log10(a->min) : a->min;
	double hi = a->log ? log10(a->max) : a->max;
	double t = a->log ? (v > 0 ? log10(v) : lo) : v;

	if (hi <= lo)
		hi = lo + 1;
	if (t < lo)
		t = lo;
	if (t > hi)
		t = hi;
	return c->bottom - (c->bottom - c->top) * (t - lo) / (hi - lo);
}

/* Tick values of an axis: decades for log axes, 1-2-5 steps for linear. */
static size_t ticks(const struct axis *a, double *out, size_t max)
{
	size_t n = 0;

	if (a->unit == AX_CATEGORY)
		return 0;
	if (a->log) {
		for (double d = pow(10, ceil(log10(a->min) - 1e-9));
		     d <= a->max * (1 + 1e-9) && n < max; d *= 10)
			out[n++] = d;
		return n;
	}
	{
		double span = a->max - a->min, step = nice_ceil(span / 6);

		if (step > span / 3)
			step /= 2;
		if (!(step > 0))
			return 0;
		for (double v = ceil(a->min / step) * step;
		     v <= a->max + step * 1e-9 && n < max; v += step)
			out[n++] = fabs(v) < step * 1e-9 ? 0 : v;
	}
	return n;
}

static void y_axis(struct chart *c, const struct axis *a, bool right)
{
	double t[32], xe = right ? c->right : c->left;
	size_t n = ticks(a, t, 32);
	char buf[32];

	for (size_t i = 0; i < n; i++) {
		double y = chart_y(c, a, t[i]);

		chart_fmt(a->unit, t[i], buf, sizeof(buf));
		if (!right)
			fprintf(c->f,
				"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
				"stroke=\"#e4e4e4\"/>",
				c->left, y, c->right, y);
		fprintf(c->f,
			"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" "
			"fill=\"#333\">%s</text>\n",
			right ? xe + 6 : xe - 6, y + 4, right ? "start" : "end", buf);
	}
	fprintf(
	    c->f,
	    "<text transform=\"translate(%.1f %.1f) rotate(-90)\" text-anchor=\"middle\" "
	    "fill=\"#333\">",
	    right ? c->w - 14 : 16, (c->top + c->bottom) / 2);
	xml_escape(c->f, a->label ? a->label : "");
	fputs("</text>\n", c->f);
}

void chart_axes(struct chart *c)
{
	double t[32];
	size_t n = ticks(&c->x, t, 32);
	char buf[32];

	y_axis(c, &c->y, false);
	if (c->has_y2)
		y_axis(c, &c->y2, true);
	for (size_t i = 0; i < n; i++) {
		double x = chart_x(c, t[i]);

		chart_fmt(c->x.unit, t[i], buf, sizeof(buf));
		fprintf(
		    c->f,
		    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		    "stroke=\"#555\"/>"
		    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#333\">%s"
		    "</text>\n",
		    x, c->bottom, x, c->bottom + 5, x, c->bottom + 18, buf);
	}
	fprintf(
	    c->f,
	    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
	    "stroke=\"#555\"/>\n<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
	    "fill=\"#333\">",
	    c->left, c->top, c->right - c->left, c->bottom - c->top,
	    (c->left + c->right) / 2, c->bottom + 36);
	xml_escape(c->f, c->x.label ? c->x.label : "");
	fputs("</text>\n", c->f);
}

void chart_line(struct chart *c, const struct axis *ya, const double *xs,
		const double *ys, size_t n, const char *color, const char *dash,
		const char *name)
{
	size_t pts = 0;

	/* one polyline through every drawable point: an empty bin is no gap in
	 * the measurement, only in the sampling */
	fprintf(c->f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\"",
		color);
	if (dash)
		fprintf(c->f, " stroke-dasharray=\"%s\"", dash);
	fputs(" data-series=\"", c->f);
	xml_escape(c->f, name);
	fputs("\" points=\"", c->f);
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(ys[i]) || !isfinite(xs[i]) || (ya->log && ys[i] <= 0))
			continue;
		fprintf(c->f, "%.1f,%.1f ", chart_x(c, xs[i]), chart_y(c, ya, ys[i]));
		pts++;
	}
	fputs("\"/>\n", c->f);
	if (pts > 150 || dash)
		return;
	for (size_t i = 0; i < n; i++)
		if (isfinite(ys[i]) && isfinite(xs[i]) && (!ya->log || ys[i] > 0))
			fprintf(c->f,
				"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.2\" fill=\"%s\"/>",
				chart_x(c, xs[i]), chart_y(c, ya, ys[i]), color);
	fputc('\n', c->f);
}

void chart_bar(struct chart *c, const struct axis *ya, double x, double w, double v,
	       const char *color, const char *datav, const char *tip)
{
	double y0 = chart_y(c, ya, ya->log ? ya->min : (ya->min > 0 ? ya->min : 0));
	double y1 = chart_y(c, ya, v);

	if (y1 > y0) {
		double t = y0;

		y0 = y1;
		y1 = t;
	}
	fprintf(c->f,
		"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"",
		x - w / 2, y1, w, y0 - y1, color);
	if (datav) {
		fputs(" data-v=\"", c->f);
		xml_escape(c->f, datav);
		fputs("\"", c->f);
	}
	fputs(">", c->f);
	if (tip) {
		fputs("<title>", c->f);
		xml_escape(c->f, tip);
		fputs("</title>", c->f);
	}
	fputs("</rect>\n", c->f);
}

void chart_legend(struct chart *c, const char *name, const char *color, bool line)
{
	/* a row under the x axis label, each entry as wide as its text */
	double x = c->left + 10 + c->legend_x;
	double y = (c->figure ? c->h : c->h - 22) - 16;

	c->legend_x += 34 + 6.5 * (double)strlen(name);
	if (line)
		fprintf(
		    c->f,
		    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
		    "stroke-width=\"3\"/>",
		    x, y - 4, x + 18, y - 4, color);
	else
		fprintf(c->f,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"10\" "
			"fill=\"%s\"/>",
			x + 2, y - 9, color);
	fprintf(c->f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#222\">", x + 24, y);
	xml_escape(c->f, name);
	fputs("</text>\n", c->f);
}

void chart_end(struct chart *c, const char *caption)
{
	if (!c->figure) { /* a standalone SVG: the caption inside it */
		fprintf(c->f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"12\">", c->left,
			c->h - 4);
		xml_escape(c->f, caption);
		fputs("</text>\n</svg>\n", c->f);
		return;
	}
	fputs("</svg>\n<figcaption>", c->f);
	xml_escape(c->f, caption);
	fputs("</figcaption>\n</figure>\n", c->f);
}

void chart_dots(struct chart *c, const struct axis *ya, const double *xs,
		const double *ys, size_t n, const char *color)
{
	for (size_t i = 0; i < n; i++)
		fprintf(c->f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"1.5\" fill=\"%s\"/>",
			chart_x(c, xs[i]), chart_y(c, ya, ys[i]), color);
	if (n)
		fputc('\n', c->f);
}

void chart_span(struct chart *c, double x0, double x1, double y, double h,
		const char *color, const char *tip)
{
	double a = chart_x(c, x0), b = chart_x(c, x1);

	fprintf(c->f,
		"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		"fill=\"%s\">",
		a, y, b - a > 1 ? b - a : 1, h, color);
	if (tip) {
		fputs("<title>", c->f);
		xml_escape(c->f, tip);
		fputs("</title>", c->f);
	}
	fputs("</rect>\n", c->f);
}
