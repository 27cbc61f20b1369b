// SPDX-License-Identifier: GPL-2.0
/* Streaming JSON writer: commas, nesting, string escaping. */
#include "json_writer.h"

#include "esc.h"

#include <inttypes.h>
#include <math.h>

void jw_init(struct json_writer *w, FILE *f, bool pretty)
{
	w->f = f;
	w->depth = 0;
	w->first[0] = true;
	w->pretty = pretty;
	w->pending_name = false;
}

static void indent(struct json_writer *w)
{
	if (!w->pretty)
		return;
	fputc('\n', w->f);
	for (int i = 0; i < w->depth; i++)
		fputs("  ", w->f);
}

/* Before any value or name: the comma and the line break it needs. */
static void sep(struct json_writer *w)
{
	if (w->pending_name) {
		w->pending_name = false;
		return;
	}
	if (!w->first[w->depth])
		fputc(',', w->f);
	if (w->depth)
		indent(w);
	w->first[w->depth] = false;
}

/* JSON text is UTF-8: a byte that is not part of valid UTF-8, and the
 * backslash, become \\xNN (esc.h); control characters are escaped. */
static void put_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', f);
	while (*s) {
		unsigned char c = *s;
		size_t n, run = 0;

		/* printable ASCII but the quote and the backslash: as it is,
		 * in one write */
		while (s[run] >= 0x20 && s[run] < 0x7f && s[run] != '"' && s[run] != '\\')
			run++;
		if (run) {
			fwrite(s, 1, run, f);
			s += run;
			continue;
		}
		n = utf8_seq(s);
		if (!n || c == '\\') {
			fprintf(f, "\\\\x%02x", c);
			s++;
			continue;
		}
		switch (c) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (c < 0x20 || c == 0x7f)
				fprintf(f, "\\u%04x", c);
			else
				fwrite(s, 1, n, f);
		}
		s += n;
	}
	fputc('"', f);
}

void jw_name(struct json_writer *w, const char *name)
{
	sep(w);
	put_string(w->f, name);
	fputs(w->pretty ? ": " : ":", w->f);
	w->pending_name = true;
}

static void open_(struct json_writer *w, char c)
{
	sep(w);
	fputc(c, w->f);
	if (w->depth + 1 < JW_MAX_DEPTH)
		w->depth++;
	w->first[w->depth] = true;
}

static void close_(struct json_writer *w, char c)
{
	bool empty = w->first[w->depth];

	if (w->depth)
		w->depth--;
	if (!empty)
		indent(w);
	fputc(c, w->f);
	if (!w->depth && w->pretty)
		fputc('\n', w->f);
}

void jw_start_object(struct json_writer *w)
{
	open_(w, '{');
}
void jw_end_object(struct json_writer *w)
{
	close_(w, '}');
}
void jw_start_array(struct json_writer *w)
{
	open_(w, '[');
}
void jw_end_array(struct json_writer *w)
{
	close_(w, ']');
}

void jw_string(struct json_writer *w, const char *s)
{
	sep(w);
	put_string(w->f, s);
}

void jw_uint(struct json_writer *w, uint64_t v)
{
	sep(w);
	fprintf(w->f, "%" PRIu64, v);
}

void jw_int(struct json_writer *w, int64_t v)
{
	sep(w);
	fprintf(w->f, "%" PRId64, v);
}

void jw_float(struct json_writer *w, double v)
{
	sep(w);
	if (isfinite(v))
		fprintf(w->f, "%.3f", v);
	else
		fputs("null", w->f);
}

void jw_float9(struct json_writer *w, double v)
{
	sep(w);
	if (isfinite(v))
		fprintf(w->f, "%.9f", v);
	else
		fputs("null", w->f);
}

void jw_scaled(struct json_writer *w, uint64_t v, unsigned int decimals)
{
	uint64_t div = 1;

	for (unsigned int i = 0; i < decimals; i++)
		div *= 10;
	sep(w);
	if (decimals)
		fprintf(w->f, "%" PRIu64 ".%0*" PRIu64, v / div, (int)decimals, v % div);
	else
		fprintf(w->f, "%" PRIu64, v);
}

void jw_null(struct json_writer *w)
{
	sep(w);
	fputs("null", w->f);
}

void jw_bool(struct json_writer *w, bool v)
{
	sep(w);
	fputs(v ? "true" : "false", w->f);
}

void jw_string_field(struct json_writer *w, const char *name, const char *s)
{
	jw_name(w, name);
	jw_string(w, s);
}

void jw_uint_field(struct json_writer *w, const char *name, uint64_t v)
{
	jw_name(w, name);
	jw_uint(w, v);
}

void jw_int_field(struct json_writer *w, const char *name, int64_t v)
{
	jw_name(w, name);
	jw_int(w, v);
}

void jw_float_field(struct json_writer *w, const char *name, double v)
{
	jw_name(w, name);
	jw_float(w, v);
}
