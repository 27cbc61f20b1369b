// SPDX-License-Identifier: GPL-2.0
/* CSV renderer: one table per section, each with its own header line.
 * Times in nanoseconds, names stable (docs/FORMAT.md lists them). */
#include <inttypes.h>
#include <string.h>

#include "render.h"

void render_csv(FILE *f, const struct report_info *ri, struct analysis *a,
		const struct render_opts *o)
{
	static const int order[] = {AN_LATENCY, AN_SYSCALL, AN_BIOTIME, AN_ELVTIME,
				    AN_IOSECTOR};
	struct metric *m[1024];
	bool first = true;

	if (!(o->analyzers &
	      (AN_LATENCY | AN_SYSCALL | AN_BIOTIME | AN_ELVTIME | AN_IOSECTOR))) {
		/* no metric table: the sections below only */
	} else if (o->view == VIEW_STATS) {
		fprintf(
		    f, "analyzer,scope,metric,unit,count,min,avg,p50,p90,p99,p999,max\n");
		first = false;
	} else if (o->view == VIEW_HIST) {
		fprintf(f, "analyzer,scope,metric,unit,low,high,count\n");
		first = false;
	} else {
		fprintf(f, "time_s,scope,metric,value,unit\n");
		first = false;
	}
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		size_t n;

		if (!(o->analyzers & order[i]))
			continue;
		n = analysis_metrics(a, order[i], m, 1024);
		for (size_t k = 0; k < n; k++) {
			struct metric_stats s;
			struct log2_hist h;

			switch (o->view) {
			case VIEW_STATS:
				metric_stats(m[k], &s);
				fprintf(f,
					"%s,%s,%s,%s,%" PRIu64 ",%" PRIu64
					",%.1f,%" PRIu64 ",%" PRIu64 ",%" PRIu64
					",%" PRIu64 ",%" PRIu64 "\n",
					analyzer_name(order[i]), m[k]->scope, m[k]->name,
					m[k]->unit, s.count, s.min, s.avg, s.p50, s.p90,
					s.p99, s.p999, s.max);
				break;
			case VIEW_HIST:
				metric_hist(m[k], 1, &h);
				for (int b = 0; b <= h.max_slot; b++)
					fprintf(f, "%s,%s,%s,%s,%llu,%llu,%" PRIu64 "\n",
						analyzer_name(order[i]), m[k]->scope,
						m[k]->name, m[k]->unit,
						b ? 1ull << b : 0ull, (2ull << b) - 1,
						h.slot[b]);
				break;
			case VIEW_SERIES:
				for (size_t x = 0; x < m[k]->n && m[k]->t; x++)
					fprintf(f, "%.9f,%s,%s,%" PRId64 ",%s\n",
						(int64_t)(m[k]->t[x] - ri->t0_ns) / 1e9,
						m[k]->scope, m[k]->name,
						m[k]->sv ? m[k]->sv[x]
							 : (int64_t)m[k]->v[x],
						m[k]->unit);
				break;
			}
		}
	}
	if (o->windows) {
		fprintf(f,
			"%swindow_start_s,requests,bytes,q2c_avg_ns,kernel_avg_ns,driver_"
			"avg_ns,device_avg_ns\n",
			first ? "" : "\n");
		for (size_t i = 0; i < a->nr_win; i++) {
			struct window *w = &a->win[i];

			fprintf(f, "%.6f,%" PRIu64 ",%" PRIu64 ",%.1f,%.1f,%.1f,%.1f\n",
				i * a->window_ns / 1e9, w->requests, w->bytes,
				w->nr_q2c ? (double)w->q2c_sum_ns / w->nr_q2c : 0.0,
				w->nr_q2g ? (double)w->q2g_sum_ns / w->nr_q2g : 0.0,
				w->nr_g2d ? (double)w->g2d_sum_ns / w->nr_g2d : 0.0,
				w->nr_d2c ? (double)w->d2c_sum_ns / w->nr_d2c : 0.0);
		}
	}
	if (o->windows)
		first = false;
	if (o->analyzers & AN_CORRELATE) {
		first = false;
		fprintf(f, "\nsyscall_low_us,syscall_high_us,syscalls,bio_avg_ns,bio_min_"
			   "ns,bio_max_ns,elv_avg_ns,elv_min_ns,elv_max_ns\n");
		for (int k = 0; k < LOG2_SLOTS; k++) {
			struct corr_bucket *c = &a->corr[k];

			if (!c->syscalls)
				continue;
			fprintf(f,
				"%llu,%llu,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
				",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n",
				k ? 1ull << k : 0ull, (2ull << k) - 1, c->syscalls,
				c->bio_sum_ns / c->syscalls, c->bio_min_ns, c->bio_max_ns,
				c->elv_n ? c->elv_sum_ns / c->elv_n : 0, c->elv_min_ns,
				c->elv_max_ns);
		}
	}
	if ((o->analyzers & AN_PATTERNS) && a->groups) {
		fprintf(f, "%s", first ? "" : "\n");
		render_patterns_csv(f, a->groups);
		first = false;
	}
	if (o->requests) {
		fprintf(f, "\nc_time_s,device,rwbs,sector,nr_sectors,pid,tid,comm,q_ns,g_"
			   "ns,i_ns,d_ns,c_ns,nr_bios,error\n");
		for (size_t i = 0; i < a->nr_reqs; i++) {
			const struct join_request *r = &a->reqs[i];
			const char *name = analysis_dev_name(a, r->dev);
			char rwbs[8];

			render_rwbs(r->flags, rwbs);
			fprintf(f,
				"%.9f,%s,%s,%" PRIu64 ",%u,%u,%u,%s,%" PRIu64 ",%" PRIu64
				",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%u,%d\n",
				(int64_t)(r->c_ns - ri->t0_ns) / 1e9, name, rwbs,
				r->sector, r->nr_sectors, r->pid, r->tid,
				ri->comm ? ri->comm(ri->comm_ctx, r->tid) : "", r->q_ns,
				r->g_ns, r->i_ns, r->d_ns, r->c_ns, r->nr_bios, r->error);
		}
	}
}
