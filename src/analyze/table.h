/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A table of the result model: what an analyzer hands the renderers besides
 * its metrics. Columns say how each format shows them (text header, width
 * and unit; CSV and JSON names, which are stable: docs/FORMAT.md), so every
 * renderer prints any analyzer's tables without knowing the analyzer, and
 * all of them print the same numbers.
 */
#ifndef IOTRAIL_ANALYZE_TABLE_H
#define IOTRAIL_ANALYZE_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum cell_type { CELL_STR, CELL_U64, CELL_I64, CELL_F64 };

/* where a column (or a table) shows */
#define IN_TEXT	    (1u << 0)
#define IN_CSV	    (1u << 1)
#define IN_JSON	    (1u << 2)
#define IN_HTML	    (1u << 3)
#define IN_ALL	    (IN_TEXT | IN_CSV | IN_JSON | IN_HTML)
#define IN_PEOPLE   (IN_TEXT | IN_HTML)
#define IN_PROGRAMS (IN_CSV | IN_JSON)

struct column {
	const char *key;  /* CSV header and JSON key */
	const char *head; /* text and HTML header */
	int width;	  /* text width; negative: left-aligned */
	enum cell_type type;
	unsigned int in; /* IN_*; 0 means IN_ALL */
	int prec;	 /* CELL_F64: decimals in CSV (and text) */
	/* text and HTML show value / text_div with text_prec decimals when
	 * text_div is set (ns as µs: 1e3, 1) */
	double text_div;
	int text_prec;
	const char *json_group; /* JSON: inside this object of the row */
	const char *json_key;	/* JSON name when it differs from key */
};

union cell {
	uint64_t u;
	int64_t i;
	double d;
	size_t s; /* CELL_STR: offset in the table's string pool */
	bool na;  /* set through table_na(): not applicable */
};

struct table {
	const char *name; /* JSON key and HTML id */
	char title[160];  /* text and HTML heading */
	unsigned int in;  /* IN_*; 0 means IN_ALL */
	bool json_object; /* JSON: the one row as an object, not an array */
	char json_by[64]; /* JSON: {"by": [these, comma-separated], "rows": [...]} */
	const struct column *cols;
	size_t nr_cols;
	union cell *cells; /* row-major */
	uint8_t *na;	   /* per cell: not applicable (shown "-", null, empty) */
	size_t nr_rows, cap_cells, cap_na;
	size_t next; /* the cell the next table_*() call fills */
	char *strs;  /* string pool */
	size_t strs_len, cap_strs;
	char *note; /* text and HTML: lines after the table, or NULL */
	int err;
};

static inline bool table_in(unsigned int in, unsigned int where)
{
	return !in || (in & where);
}

void table_init(struct table *t, const char *name, const struct column *cols,
		size_t nr_cols);
/* Starts a row; the cells follow in column order. */
void table_row(struct table *t);
void table_u64(struct table *t, uint64_t v);
void table_i64(struct table *t, int64_t v);
void table_f64(struct table *t, double v);
void table_str(struct table *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A cell that does not apply (a stage a device does not have). */
void table_na(struct table *t);
void table_note(struct table *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void table_release(struct table *t);

static inline const union cell *table_cell(const struct table *t, size_t row, size_t col)
{
	return &t->cells[row * t->nr_cols + col];
}
static inline bool table_is_na(const struct table *t, size_t row, size_t col)
{
	return t->na[row * t->nr_cols + col];
}
static inline const char *table_cell_str(const struct table *t, size_t row, size_t col)
{
	return t->strs + table_cell(t, row, col)->s;
}

#endif
