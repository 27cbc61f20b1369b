// SPDX-License-Identifier: GPL-2.0
/* Tables of the result model (table.h). */
#include "table.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/grow.h"

void table_init(struct table *t, const char *name, const struct column *cols,
		size_t nr_cols)
{
	memset(t, 0, sizeof(*t));
	t->name = name;
	t->cols = cols;
	t->nr_cols = nr_cols;
}

void table_row(struct table *t)
{
	size_t want = (t->nr_rows + 1) * t->nr_cols;

	if (t->err)
		return;
	if (GROW(t->cells, want, t->cap_cells) || GROW(t->na, want, t->cap_na)) {
		t->err = -ENOMEM;
		return;
	}
	memset(&t->cells[t->nr_rows * t->nr_cols], 0, t->nr_cols * sizeof(*t->cells));
	memset(&t->na[t->nr_rows * t->nr_cols], 0, t->nr_cols);
	t->next = t->nr_rows * t->nr_cols;
	t->nr_rows++;
}

/* the next cell of the current row, or NULL (error, or too many cells) */
static union cell *next_cell(struct table *t, size_t *idx)
{
	if (t->err || !t->nr_rows)
		return NULL;
	if (t->next >= t->nr_rows * t->nr_cols) {
		t->err = -EINVAL;
		return NULL;
	}
	*idx = t->next++;
	return &t->cells[*idx];
}

void table_u64(struct table *t, uint64_t v)
{
	size_t i;
	union cell *c = next_cell(t, &i);

	if (c)
		c->u = v;
}

void table_i64(struct table *t, int64_t v)
{
	size_t i;
	union cell *c = next_cell(t, &i);

	if (c)
		c->i = v;
}

void table_f64(struct table *t, double v)
{
	size_t i;
	union cell *c = next_cell(t, &i);

	if (c)
		c->d = v;
}

void table_na(struct table *t)
{
	size_t i;
	union cell *c = next_cell(t, &i);

	if (c)
		t->na[i] = 1;
}

static int pool_vadd(struct table *t, const char *fmt, va_list ap, size_t *off)
{
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0 || GROW(t->strs, t->strs_len + (size_t)n + 1, t->cap_strs))
		return -ENOMEM;
	vsnprintf(t->strs + t->strs_len, (size_t)n + 1, fmt, ap);
	*off = t->strs_len;
	t->strs_len += (size_t)n + 1;
	return 0;
}

void table_str(struct table *t, const char *fmt, ...)
{
	size_t i, off;
	union cell *c = next_cell(t, &i);
	va_list ap;

	if (!c)
		return;
	va_start(ap, fmt);
	if (pool_vadd(t, fmt, ap, &off))
		t->err = -ENOMEM;
	else
		c->s = off;
	va_end(ap);
}

void table_note(struct table *t, const char *fmt, ...)
{
	size_t old = t->note ? strlen(t->note) : 0;
	va_list ap, aq;
	char *n;
	int len;

	va_start(ap, fmt);
	va_copy(aq, ap);
	len = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	n = len < 0 ? NULL : realloc(t->note, old + (size_t)len + 1);
	if (!n) {
		t->err = -ENOMEM;
	} else {
		vsnprintf(n + old, (size_t)len + 1, fmt, ap);
		t->note = n;
	}
	va_end(ap);
}

void table_release(struct table *t)
{
	free(t->cells);
	free(t->na);
	free(t->strs);
	free(t->note);
	memset(t, 0, sizeof(*t));
}
