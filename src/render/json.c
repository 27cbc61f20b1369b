// SPDX-License-Identifier: GPL-2.0
/*
 * JSON renderer. The schema is stable and documented in docs/FORMAT.md
 * ("report JSON"); fields are only ever added.
 */
#include <inttypes.h>
#include <string.h>

#include "../util/json_writer.h"
#include "render.h"

static void stage_obj(struct json_writer *w, struct metric *m)
{
	struct metric_stats s;

	metric_stats(m, &s);
	jw_start_object(w);
	jw_uint_field(w, "count", s.count);
	jw_uint_field(w, "min_ns", s.min);
	jw_float_field(w, "avg_ns", s.avg);
	jw_uint_field(w, "p50_ns", s.p50);
	jw_uint_field(w, "p90_ns", s.p90);
	jw_uint_field(w, "p99_ns", s.p99);
	jw_uint_field(w, "p999_ns", s.p999);
	jw_uint_field(w, "max_ns", s.max);
	jw_end_object(w);
}

static void device(struct json_writer *w, struct dev_result *d)
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

void render_json(FILE *f, const struct report_info *ri, struct analysis *a,
		 const struct render_opts *o)
{
	static const int order[] = {AN_LATENCY, AN_SYSCALL, AN_BIOTIME, AN_ELVTIME,
				    AN_IOSECTOR};
	struct metric *m[1024];
	struct json_writer w;

	jw_init(&w, f, true);
	jw_start_object(&w);
	jw_string_field(&w, "trace", ri->path);
	jw_string_field(&w, "mode", ri->mode);
	jw_uint_field(&w, "nr_cpus", ri->nr_cpus);
	jw_uint_field(&w, "duration_ns", ri->duration_ns);
	jw_uint_field(&w, "events", ri->events);
	jw_uint_field(&w, "gaps", ri->gaps);
	jw_uint_field(&w, "kernel_misses", ri->kernel_misses);
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
		jw_uint_field(&w, "drops",
			      ri->drops[i].drops_full + ri->drops[i].drops_torn +
				  ri->drops[i].drops_nostate);
		jw_uint_field(&w, "drops_full", ri->drops[i].drops_full);
		jw_uint_field(&w, "drops_torn", ri->drops[i].drops_torn);
		jw_uint_field(&w, "drops_nostate", ri->drops[i].drops_nostate);
		jw_end_object(&w);
	}
	jw_end_array(&w);
	jw_name(&w, "join");
	jw_start_object(&w);
	jw_uint_field(&w, "requests", a->requests_total);
	jw_uint_field(&w, "bios", a->bios_total);
	jw_uint_field(&w, "syscalls", a->syscalls_total);
	jw_uint_field(&w, "orphan_completions", ri->join.orphan_completions);
	jw_uint_field(&w, "unmatched_merges", ri->join.unmatched_merges);
	jw_uint_field(&w, "lost_syscall_exits", ri->join.lost_syscall_exits);
	jw_end_object(&w);
	jw_name(&w, "devices");
	jw_start_array(&w);
	for (size_t i = 0; i < a->nr_devs; i++)
		device(&w, &a->devs[i]);
	jw_end_array(&w);

	jw_name(&w, "metrics");
	jw_start_array(&w);
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		size_t n;

		if (!(o->analyzers & order[i]))
			continue;
		n = analysis_metrics(a, order[i], m, 1024);
		for (size_t k = 0; k < n; k++) {
			struct metric_stats s;

			metric_stats(m[k], &s);
			jw_start_object(&w);
			jw_string_field(&w, "analyzer", analyzer_name(order[i]));
			jw_string_field(&w, "scope", m[k]->scope);
			jw_string_field(&w, "metric", m[k]->name);
			jw_string_field(&w, "unit", m[k]->unit);
			jw_uint_field(&w, "count", s.count);
			jw_uint_field(&w, "min", s.min);
			jw_float_field(&w, "avg", s.avg);
			jw_uint_field(&w, "p50", s.p50);
			jw_uint_field(&w, "p90", s.p90);
			jw_uint_field(&w, "p99", s.p99);
			jw_uint_field(&w, "p999", s.p999);
			jw_uint_field(&w, "max", s.max);
			if (o->view == VIEW_HIST) {
				struct log2_hist h;

				metric_hist(m[k], 1, &h);
				jw_name(&w, "log2_hist");
				jw_start_array(&w);
				for (int b = 0; b <= h.max_slot; b++)
					jw_uint(&w, h.slot[b]);
				jw_end_array(&w);
			}
			jw_end_object(&w);
		}
	}
	jw_end_array(&w);

	if (o->windows) {
		jw_name(&w, "windows");
		jw_start_array(&w);
		for (size_t i = 0; i < a->nr_win; i++) {
			struct window *x = &a->win[i];

			jw_start_object(&w);
			jw_uint_field(&w, "start_ns", i * a->window_ns);
			jw_uint_field(&w, "requests", x->requests);
			jw_uint_field(&w, "bytes", x->bytes);
			jw_uint_field(&w, "q2c_sum_ns", x->q2c_sum_ns);
			jw_uint_field(&w, "kernel_sum_ns", x->q2g_sum_ns);
			jw_uint_field(&w, "driver_sum_ns", x->g2d_sum_ns);
			jw_uint_field(&w, "device_sum_ns", x->d2c_sum_ns);
			jw_end_object(&w);
		}
		jw_end_array(&w);
	}
	if (o->analyzers & AN_CORRELATE) {
		jw_name(&w, "correlation");
		jw_start_array(&w);
		for (int k = 0; k < LOG2_SLOTS; k++) {
			struct corr_bucket *c = &a->corr[k];

			if (!c->syscalls)
				continue;
			jw_start_object(&w);
			jw_uint_field(&w, "syscall_low_us", k ? 1ull << k : 0);
			jw_uint_field(&w, "syscall_high_us", (2ull << k) - 1);
			jw_uint_field(&w, "syscalls", c->syscalls);
			jw_uint_field(&w, "bio_avg_ns", c->bio_sum_ns / c->syscalls);
			jw_uint_field(&w, "bio_min_ns", c->bio_min_ns);
			jw_uint_field(&w, "bio_max_ns", c->bio_max_ns);
			jw_uint_field(&w, "elv_avg_ns",
				      c->elv_n ? c->elv_sum_ns / c->elv_n : 0);
			jw_uint_field(&w, "elv_min_ns", c->elv_min_ns);
			jw_uint_field(&w, "elv_max_ns", c->elv_max_ns);
			jw_end_object(&w);
		}
		jw_end_array(&w);
	}
	if ((o->analyzers & AN_PATTERNS) && a->groups)
		render_patterns_json(&w, a->groups);
	if (o->requests) {
		jw_name(&w, "requests");
		jw_start_array(&w);
		for (size_t i = 0; i < a->nr_reqs; i++) {
			const struct join_request *r = &a->reqs[i];
			char rwbs[8];

			render_rwbs(r->flags, rwbs);
			jw_start_object(&w);
			jw_uint_field(&w, "dev", r->dev);
			jw_string_field(&w, "rwbs", rwbs);
			jw_uint_field(&w, "sector", r->sector);
			jw_uint_field(&w, "nr_sectors", r->nr_sectors);
			jw_uint_field(&w, "tid", r->tid);
			jw_uint_field(&w, "q_ns", r->q_ns);
			jw_uint_field(&w, "g_ns", r->g_ns);
			jw_uint_field(&w, "i_ns", r->i_ns);
			jw_uint_field(&w, "d_ns", r->d_ns);
			jw_uint_field(&w, "c_ns", r->c_ns);
			jw_end_object(&w);
		}
		jw_end_array(&w);
	}
	jw_end_object(&w);
}
