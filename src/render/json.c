// SPDX-License-Identifier: GPL-2.0
/*
 * JSON renderer. The schema is stable and documented in docs/FORMAT.md
 * ("report JSON"); fields are only ever added.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "../trace/reader.h"
#include "../util/json_writer.h"
#include "render.h"

static void stage_fields(struct json_writer *w, const struct metric *m)
{
	const struct metric_stats *s = &m->st;

	jw_uint_field(w, "count", s->count);
	jw_uint_field(w, "min_ns", s->min);
	jw_float_field(w, "avg_ns", s->avg);
	jw_uint_field(w, "p50_ns", s->p50);
	jw_uint_field(w, "p90_ns", s->p90);
	jw_uint_field(w, "p99_ns", s->p99);
	jw_uint_field(w, "p999_ns", s->p999);
	jw_uint_field(w, "max_ns", s->max);
	if (s->rel_err > 0) /* kept in buckets (metric.h) */
		jw_float_field(w, "percentiles_within_pct", s->rel_err * 100);
}

static void stage_obj(struct json_writer *w, const struct metric *m)
{
	jw_start_object(w);
	stage_fields(w, m);
	jw_end_object(w);
}

static void stage_obj_from(struct json_writer *w, const struct metric *m,
			   const char *from)
{
	jw_start_object(w);
	stage_fields(w, m);
	jw_string_field(w, "from", from);
	jw_end_object(w);
}

static void cell(struct json_writer *w, const struct table *t, size_t r, size_t c)
{
	const union cell *v = table_cell(t, r, c);
	const struct column *col = &t->cols[c];

	jw_name(w, col->json_key ? col->json_key : col->key);
	if (table_is_na(t, r, c)) {
		jw_float(w, NAN); /* null */
		return;
	}
	switch (col->type) {
	case CELL_STR:
		jw_string(w, table_cell_str(t, r, c));
		break;
	case CELL_U64:
		jw_uint(w, v->u);
		break;
	case CELL_I64:
		jw_int(w, v->i);
		break;
	case CELL_F64:
		jw_float(w, v->d);
		break;
	}
}

/* a row as an object; consecutive columns of one json_group as an object
 * inside it */
static void row(struct json_writer *w, const struct table *t, size_t r)
{
	const char *group = NULL;

	jw_start_object(w);
	for (size_t c = 0; c < t->nr_cols; c++) {
		const struct column *col = &t->cols[c];

		if (!table_in(col->in, IN_JSON))
			continue;
		if (group && (!col->json_group || strcmp(group, col->json_group))) {
			jw_end_object(w);
			group = NULL;
		}
		if (col->json_group && !group) {
			group = col->json_group;
			jw_name(w, group);
			jw_start_object(w);
		}
		cell(w, t, r, c);
	}
	if (group)
		jw_end_object(w);
	jw_end_object(w);
}

static void table(struct json_writer *w, const struct table *t)
{
	if (!table_in(t->in, IN_JSON))
		return;
	jw_name(w, t->name);
	if (t->json_by[0]) {
		char by[sizeof(t->json_by)], *save = NULL;

		snprintf(by, sizeof(by), "%s", t->json_by);
		jw_start_object(w);
		jw_name(w, "by");
		jw_start_array(w);
		for (char *k = strtok_r(by, ",", &save); k;
		     k = strtok_r(NULL, ",", &save))
			jw_string(w, k);
		jw_end_array(w);
		jw_name(w, "rows");
		jw_start_array(w);
		for (size_t r = 0; r < t->nr_rows; r++)
			row(w, t, r);
		jw_end_array(w);
		jw_end_object(w);
		return;
	}
	if (t->json_object) {
		if (t->nr_rows)
			row(w, t, 0);
		else
			jw_start_object(w), jw_end_object(w);
		return;
	}
	jw_start_array(w);
	for (size_t r = 0; r < t->nr_rows; r++)
		row(w, t, r);
	jw_end_array(w);
}

static void device(struct json_writer *w, const struct dev_result *d)
{
	char dev[24];

	snprintf(dev, sizeof(dev), "%u:%u", d->dev >> 20, d->dev & 0xfffff);
	jw_start_object(w);
	jw_string_field(w, "name", d->name);
	jw_string_field(w, "dev", dev);
	jw_uint_field(w, "requests", d->requests[OPG_READ] + d->requests[OPG_WRITE]);
	jw_uint_field(w, "sectors", d->sectors[OPG_READ] + d->sectors[OPG_WRITE]);
	jw_uint_field(w, "flushes", d->flushes);
	jw_uint_field(w, "discards", d->discards);
	jw_uint_field(w, "errors", d->errors);
	for (int s = 0; s < NR_STAGES; s++) {
		jw_name(w, stage_names[s]);
		stage_obj(w, &d->stage_all[s]);
	}
	/* as /proc/diskstats' flush fields: from the kernel's start of the
	 * flush request ("start"), or from its issue in older traces */
	jw_name(w, "flush");
	stage_obj_from(w, &d->flush,
		       d->flush_from_issue ? (d->flush_from_issue == d->flush.st.count
						  ? "issue"
						  : "start, issue where unknown")
					   : "start");
	for (int o = 0; o < NR_OPG; o++) {
		jw_name(w, opg_names[o]);
		jw_start_object(w);
		jw_uint_field(w, "requests", d->requests[o]);
		jw_uint_field(w, "sectors", d->sectors[o]);
		for (int s = 0; s < NR_STAGES; s++) {
			jw_name(w, stage_names[s]);
			stage_obj(w, &d->stage[s][o]);
		}
		jw_end_object(w);
	}
	jw_end_object(w);
}

void render_json(FILE *f, const struct report_info *ri, const struct analysis *a,
		 const struct render_opts *o)
{
	struct json_writer w;

	jw_init(&w, f, true);
	jw_start_object(&w);
	jw_string_field(&w, "trace", ri->path);
	jw_string_field(&w, "mode", ri->mode);
	/* --aggregate: "block" or "block,syscall"; "" in the other modes */
	jw_string_field(&w, "aggregate_layers", ri->agg_layers ? ri->agg_layers : "");
	jw_uint_field(&w, "nr_cpus", ri->nr_cpus);
	jw_uint_field(&w, "duration_ns", ri->duration_ns);
	jw_name(&w, "complete");
	jw_bool(&w, ri->complete);
	jw_name(&w, "drops_known");
	jw_bool(&w, ri->drops_known);
	jw_uint_field(&w, "events", ri->events);
	jw_uint_field(&w, "gaps", ri->gaps);
	jw_uint_field(&w, "kernel_misses", ri->kernel_misses);
	/* user marks the trace is without (docs/MARKERS.md) */
	jw_uint_field(&w, "marks_dropped", ri->marks_dropped);
	jw_uint_field(&w, "marks_torn", ri->marks_torn);
	jw_uint_field(&w, "marks_bad_rings", ri->marks_bad_rings);
	/* how the requests were linked: by the kernel's addresses, or (an
	 * imported blktrace capture) by device and sector */
	jw_string_field(&w, "identity", ri->imported ? "sector" : "address");
	/* devices that were models (iotrail-hdd), with their parameters */
	jw_string_field(&w, "device_models", ri->models ? ri->models : "");
	/* record --flow: the flows recorded, "" when everything was */
	jw_string_field(&w, "flows_recorded", ri->flows ? ri->flows : "");
	if (ri->imported)
		jw_string_field(&w, "imported", ri->imported);
	if (ri->repair_method) {
		jw_name(&w, "repair");
		jw_start_object(&w);
		jw_string_field(&w, "method", ri->repair_method);
		jw_uint_field(&w, "estimated", ri->repair_estimated);
		jw_uint_field(&w, "expected_mae_ns", ri->repair_mae_ns);
		jw_uint_field(&w, "requests_estimated", ri->requests_estimated);
		jw_uint_field(&w, "requests_excluded", ri->requests_excluded);
		jw_uint_field(&w, "syscalls_estimated", ri->syscalls_estimated);
		jw_uint_field(&w, "syscalls_excluded", ri->syscalls_excluded);
		jw_end_object(&w);
	}
	jw_string_field(&w, "stop_reason", ri->stop_reason);
	if (ri->stop) {
		jw_name(&w, "stop");
		jw_start_object(&w);
		jw_uint_field(&w, "cpu", ri->stop->cpu);
		jw_uint_field(&w, "time_ns", ri->stop->ts_ns - ri->t0_ns);
		if (ri->stop->reason == IOT_STOP_REASON_TRIGGER) {
			jw_uint_field(&w, "trigger_q2c_ns", ri->stop->trig_q2c_ns);
			jw_uint_field(&w, "trigger_sector", ri->stop->trig_sector);
			jw_uint_field(&w, "trigger_dev", ri->stop->trig_dev);
			jw_int_field(&w, "trigger_error", ri->stop->trig_error);
		}
		jw_end_object(&w);
	}
	if (ri->spec) {
		jw_name(&w, "speculation");
		jw_start_object(&w);
		jw_uint_field(&w, "threshold_ns", ri->spec->threshold_ns);
		jw_uint_field(&w, "nspec", ri->spec->nspec);
		jw_uint_field(&w, "specsize", ri->spec->specsize);
		jw_uint_field(&w, "committed", ri->spec->committed);
		jw_uint_field(&w, "discarded", ri->spec->discarded);
		jw_uint_field(&w, "unavailable", ri->spec->unavailable);
		jw_uint_field(&w, "drops", ri->spec->drops);
		jw_end_object(&w);
	}
	jw_name(&w, "drops");
	jw_start_array(&w);
	for (size_t i = 0; i < ri->nr_drops; i++) {
		jw_start_object(&w);
		jw_uint_field(&w, "cpu", ri->drops[i].cpu);
		jw_uint_field(&w, "records", ri->drops[i].records);
		jw_uint_field(&w, "drops", iot_drop_total(&ri->drops[i]));
		jw_uint_field(&w, "drops_full", ri->drops[i].drops_full);
		jw_uint_field(&w, "drops_torn", ri->drops[i].drops_torn);
		jw_uint_field(&w, "drops_nostate", ri->drops[i].drops_nostate);
		/* the entry's flags (false in files from before them): the CPU
		 * was offline at the start */
		jw_name(&w, "no_buffer");
		jw_bool(&w, (ri->drops[i].flags & IOT_DROP_NO_BUFFER) != 0);
		/* drops_full counts records a failed write of the file cost */
		jw_name(&w, "unwritten");
		jw_bool(&w, (ri->drops[i].flags & IOT_DROP_UNWRITTEN) != 0);
		/* where in time (since 1.9): the drains that saw them grow,
		 * consecutive ones as one stretch */
		jw_name(&w, "stretches");
		jw_start_array(&w);
		size_t ns;
		const struct iot_drop_stretch *st = trace_cpu_drops(
		    ri->drop_stretches, ri->nr_drop_stretches, ri->drops[i].cpu, &ns);

		for (size_t k = 0; k < ns; k++) {
			if (!st[k].drops)
				continue;
			jw_start_object(&w);
			jw_uint_field(&w, "from_ns", st[k].from_ns);
			jw_uint_field(&w, "to_ns", st[k].to_ns);
			jw_uint_field(&w, "drops", st[k].drops);
			jw_uint_field(&w, "drains", st[k].drains);
			jw_end_object(&w);
		}
		jw_end_array(&w);
		jw_end_object(&w);
	}
	jw_end_array(&w);
	/* back-pressure (since 1.9): where CPUs recorded summaries */
	jw_name(&w, "backpressure");
	jw_start_object(&w);
	jw_uint_field(&w, "summaries", ri->summaries);
	jw_name(&w, "stretches");
	jw_start_array(&w);
	for (size_t k = 0; k < ri->nr_degrades; k++) {
		const struct iot_degrade_stretch *st = &ri->degrades[k];

		jw_start_object(&w);
		jw_uint_field(&w, "cpu", st->cpu);
		jw_uint_field(&w, "from_ns", st->from_ns);
		jw_uint_field(&w, "to_ns", st->to_ns);
		jw_uint_field(&w, "skipped", st->skipped);
		jw_end_object(&w);
	}
	jw_end_array(&w);
	jw_end_object(&w);
	jw_name(&w, "join");
	jw_start_object(&w);
	jw_uint_field(&w, "requests", a->requests_total);
	jw_uint_field(&w, "bios", a->bios_total);
	jw_uint_field(&w, "syscalls", a->syscalls_total);
	jw_uint_field(&w, "orphan_completions", ri->join.orphan_completions);
	jw_uint_field(&w, "lost_completions", ri->join.lost_completions);
	jw_uint_field(&w, "unfinished", ri->join.unfinished);
	jw_uint_field(&w, "unmatched_merges", ri->join.unmatched_merges);
	jw_uint_field(&w, "lost_syscall_exits", ri->join.lost_syscall_exits);
	jw_uint_field(&w, "invalid_records", ri->join.invalid);
	jw_uint_field(&w, "uring_requests", ri->join.uring_done);
	jw_uint_field(&w, "uring_unsubmitted", ri->join.uring_unsubmitted);
	jw_uint_field(&w, "uring_lost_completions", ri->join.uring_lost);
	jw_uint_field(&w, "driver_unmatched", ri->join.drv_unmatched);
	jw_uint_field(&w, "estimated_completions", ri->join.estimated_completions);
	jw_uint_field(&w, "estimated_issues", ri->join.estimated_issues);
	jw_uint_field(&w, "estimated_queues", ri->join.estimated_queues);
	jw_uint_field(&w, "estimated_exits", ri->join.estimated_exits);
	jw_uint_field(&w, "backpressure_cut_syscalls", ri->join.bp_cut_syscalls);
	jw_uint_field(&w, "lost_cut_syscalls", ri->join.lost_cut_syscalls);
	jw_end_object(&w);
	/* where a metric's percentiles come from buckets: how many values a
	 * metric keeps as such, at most (each such metric says by how much
	 * its percentiles may be off: percentiles_within_pct) */
	if (a->bucketed)
		jw_uint_field(&w, "bucketed_above", metric_exact_max());
	/* --time: what ended in [from_ns, to_ns) alone (to_ns null: the end) */
	if (analysis_windowed(a)) {
		jw_name(&w, "time_window");
		jw_start_object(&w);
		jw_uint_field(&w, "from_ns", a->env.from_ns);
		jw_name(&w, "to_ns");
		if (a->env.to_ns == UINT64_MAX)
			jw_float(&w, NAN);
		else
			jw_uint(&w, a->env.to_ns);
		jw_end_object(&w);
	}
	jw_name(&w, "devices");
	jw_start_array(&w);
	for (size_t i = 0; i < a->nr_devs; i++)
		device(&w, &a->devs[i]);
	jw_end_array(&w);

	jw_name(&w, "metrics");
	jw_start_array(&w);
	for (size_t i = 0; i < a->nr_out; i++) {
		for (size_t k = 0; k < a->out[i].nr_metrics; k++) {
			const struct metric *m = a->out[i].metrics[k];
			const struct metric_stats *s = &m->st;

			jw_start_object(&w);
			jw_string_field(&w, "analyzer", a->out[i].an->name);
			jw_string_field(&w, "scope", m->scope);
			jw_string_field(&w, "metric", m->name);
			jw_string_field(&w, "unit", m->unit);
			jw_uint_field(&w, "count", s->count);
			jw_uint_field(&w, "min", s->min);
			jw_float_field(&w, "avg", s->avg);
			jw_uint_field(&w, "p50", s->p50);
			jw_uint_field(&w, "p90", s->p90);
			jw_uint_field(&w, "p99", s->p99);
			jw_uint_field(&w, "p999", s->p999);
			jw_uint_field(&w, "max", s->max);
			if (s->rel_err > 0)
				jw_float_field(&w, "percentiles_within_pct",
					       s->rel_err * 100);
			if (o->view == VIEW_HIST) {
				jw_name(&w, "log2_hist");
				jw_start_array(&w);
				for (int b = 0; b <= m->hist.max_slot; b++)
					jw_uint(&w, m->hist.slot[b]);
				jw_end_array(&w);
			}
			jw_end_object(&w);
		}
	}
	jw_end_array(&w);
	for (size_t i = 0; i < a->nr_out; i++)
		for (size_t k = 0; k < a->out[i].nr_tables; k++)
			table(&w, a->out[i].tables[k]);
	if (o->requests) {
		struct row_names nm = render_report_names(ri, a);

		jw_name(&w, "requests");
		jw_start_array(&w);
		for (size_t i = 0; i < a->nr_reqs; i++)
			render_request_json(&w, &a->reqs[i], &nm);
		jw_end_array(&w);
	}
	jw_end_object(&w);
}
