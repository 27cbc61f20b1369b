/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A streaming JSON writer in the shape of bpftool's json_writer.h: it tracks
 * nesting and puts the commas itself, so callers only say what comes next.
 */
#ifndef IOTRAIL_UTIL_JSON_WRITER_H
#define IOTRAIL_UTIL_JSON_WRITER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JW_MAX_DEPTH 32

struct json_writer {
	FILE *f;
	int depth;
	bool first[JW_MAX_DEPTH]; /* nothing written yet at this level */
	bool pretty;
	bool pending_name; /* a name was written, its value comes next */
};

void jw_init(struct json_writer *w, FILE *f, bool pretty);
void jw_name(struct json_writer *w, const char *name);
void jw_start_object(struct json_writer *w);
void jw_end_object(struct json_writer *w);
void jw_start_array(struct json_writer *w);
void jw_end_array(struct json_writer *w);
void jw_string(struct json_writer *w, const char *s);
void jw_uint(struct json_writer *w, uint64_t v);
void jw_int(struct json_writer *w, int64_t v);
void jw_float(struct json_writer *w, double v);
void jw_float9(struct json_writer *w, double v); /* nine decimals: seconds */
/* v / 10^decimals, exactly (ns as us: decimals 3) */
void jw_scaled(struct json_writer *w, uint64_t v, unsigned int decimals);
void jw_null(struct json_writer *w);
void jw_bool(struct json_writer *w, bool v);
/* name + value in one call */
void jw_string_field(struct json_writer *w, const char *name, const char *s);
void jw_uint_field(struct json_writer *w, const char *name, uint64_t v);
void jw_int_field(struct json_writer *w, const char *name, int64_t v);
void jw_float_field(struct json_writer *w, const char *name, double v);

#endif
