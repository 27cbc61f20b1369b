// SPDX-License-Identifier: GPL-2.0
/* CSV renderer: the metrics as one table, then each analyzer table, each
 * with its own header line and a blank line between. Times in nanoseconds,
 * names stable (docs/FORMAT.md lists them). */
#include <inttypes.h>
#include <string.h>

#include "../util/esc.h"
#include "render.h"

static void table(FILE *f, const struct table *t)
{
	bool first = true;

	for (size_t c = 0; c < t->nr_cols; c++) {
		if (!table_in(t->cols[c].in, IN_CSV))
			continue;
		fprintf(f, "%s%s", first ? "" : ",", t->cols[c].key);
		first = false;
	}
	fputc('\n', f);
	for (size_t r = 0; r < t->nr_rows; r++) {
		first = true;
		for (size_t c = 0; c < t->nr_cols; c++) {
			const struct column *col = &t->cols[c];
			const union cell *v = table_cell(t, r, c);

			if (!table_in(col->in, IN_CSV))
				continue;
			if (!first)
				fputc(',', f);
			first = false;
			if (table_is_na(t, r, c))
				continue; /* empty: not applicable */
			switch (col->type) {
			case CELL_STR:
				csv_field(f, table_cell_str(t, r, c));
				break;
			case CELL_U64:
				fprintf(f, "%" PRIu64, v->u);
				break;
			case CELL_I64:
				fprintf(f, "%" PRId64, v->i);
				break;
			case CELL_F64:
				fprintf(f, "%.*f", col->prec, v->d);
				break;
			}
		}
		fputc('\n', f);
	}
}

/* the metric table's header, by view */
static const char *const heads[] = {
    [VIEW_STATS] = "analyzer,scope,metric,unit,count,min,avg,p50,p90,p99,p999,max",
    [VIEW_HIST] = "analyzer,scope,metric,unit,low,high,count",
    [VIEW_SERIES] = "time_s,scope,metric,value,unit",
};

static void metric_rows(FILE *f, const struct analyzer *an, const struct metric *m,
			enum view view)
{
	const struct metric_stats *s = &m->st;

	if (view == VIEW_STATS) {
		fprintf(f, "%s,", an->name);
		csv_field(f, m->scope);
		fprintf(f,
			",%s,%s,%" PRIu64 ",%" PRIu64 ",%.1f,%" PRIu64 ",%" PRIu64
			",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n",
			m->name, m->unit, s->count, s->min, s->avg, s->p50, s->p90,
			s->p99, s->p999, s->max);
		return;
	}
	for (int b = 0; b <= m->hist.max_slot; b++) {
		fprintf(f, "%s,", an->name);
		csv_field(f, m->scope);
		fprintf(f, ",%s,%s,%llu,%llu,%" PRIu64 "\n", m->name, m->unit,
			b ? 1ull << b : 0ull, (2ull << b) - 1, m->hist.slot[b]);
	}
}

/* an analyzer's metric rows (under the metric header) */
static void output_metrics(FILE *f, const struct report_info *ri,
			   const struct an_output *o, enum view view)
{
	for (size_t k = 0; k < o->nr_metrics; k++)
		if (view == VIEW_SERIES)
			render_series(f, ri, o->metrics[k]);
		else
			metric_rows(f, o->an, o->metrics[k], view);
}

/* an analyzer's CSV tables, a blank line before each but the first output */
static void output_tables(FILE *f, const struct an_output *o, bool *first)
{
	for (size_t k = 0; k < o->nr_tables; k++) {
		if (!table_in(o->tables[k]->in, IN_CSV))
			continue;
		if (!*first)
			fputc('\n', f);
		table(f, o->tables[k]);
		*first = false;
	}
}

void render_csv(FILE *f, const struct report_info *ri, const struct analysis *a,
		const struct render_opts *ro)
{
	bool first = true;

	for (size_t i = 0; i < a->nr_out && first; i++)
		if (a->out[i].an->metric_unit) {
			fprintf(f, "%s\n", heads[ro->view]);
			first = false;
		}
	for (size_t i = 0; i < a->nr_out; i++)
		output_metrics(f, ri, &a->out[i], ro->view);
	for (size_t i = 0; i < a->nr_out; i++)
		output_tables(f, &a->out[i], &first);
	if (ro->requests) {
		struct row_names nm = render_report_names(ri, a);

		fputc('\n', f);
		render_request_head(f);
		for (size_t i = 0; i < a->nr_reqs; i++)
			render_request_csv(f, &a->reqs[i], &nm);
	}
}

void render_csv_output(FILE *f, const struct report_info *ri, const struct an_output *o,
		       const struct render_opts *ro)
{
	bool first = true;

	if (o->an->metric_unit) {
		fprintf(f, "%s\n", heads[ro->view]);
		first = false;
	}
	output_metrics(f, ri, o, ro->view);
	output_tables(f, o, &first);
}
