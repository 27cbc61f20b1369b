// SPDX-License-Identifier: GPL-2.0
/* Text renderer: iostat-like counts, btt-like stage tables, bcc-like
 * log2 histograms. Times in microseconds. */
#include <inttypes.h>
#include <string.h>

#include "render.h"

void render_rwbs(uint32_t flags, char out[8])
{
	int n = 0;

	switch (flags & IOT_OP_MASK) {
	case IOT_OP_READ:
		out[n++] = 'R';
		break;
	case IOT_OP_WRITE:
		out[n++] = 'W';
		break;
	case IOT_OP_FLUSH:
		out[n++] = 'F';
		break;
	case IOT_OP_DISCARD:
		out[n++] = 'D';
		break;
	default:
		out[n++] = 'N';
	}
	if (flags & IOT_F_FUA)
		out[n++] = 'F';
	if (flags & IOT_F_RAHEAD)
		out[n++] = 'A';
	if (flags & IOT_F_SYNC)
		out[n++] = 'S';
	if (flags & IOT_F_META)
		out[n++] = 'M';
	out[n] = 0;
}

static double us(uint64_t ns)
{
	return ns / 1000.0;
}

static void header(FILE *f, const struct report_info *ri)
{
	uint64_t drops = 0;

	for (size_t i = 0; i < ri->nr_drops; i++)
		drops += ri->drops[i].drops_full + ri->drops[i].drops_torn +
			 ri->drops[i].drops_nostate;
	fprintf(
	    f, "# %s: %s mode, %u CPUs, %.3f s, %" PRIu64 " events, %" PRIu64 " drops\n",
	    ri->path, ri->mode, ri->nr_cpus, ri->duration_ns / 1e9, ri->events, drops);
	for (size_t i = 0; i < ri->nr_drops; i++) {
		uint64_t d = ri->drops[i].drops_full + ri->drops[i].drops_torn +
			     ri->drops[i].drops_nostate;

		if (d)
			fprintf(f, "# %" PRIu64 " drops on CPU %u\n", d,
				ri->drops[i].cpu);
	}
	if (ri->spec)
		fprintf(f,
			"# speculative: only requests with Q2C >= %.3f ms or an error; "
			"%" PRIu64 " bio speculations committed, %" PRIu64
			" discarded, %" PRIu64 " unavailable (all %u busy), %" PRIu64
			" records over specsize (%u bytes)\n",
			ri->spec->threshold_ns / 1e6, ri->spec->committed,
			ri->spec->discarded, ri->spec->unavailable, ri->spec->nspec,
			ri->spec->drops, ri->spec->specsize);
	if (!strcmp(ri->mode, "aggregate"))
		fprintf(
		    f,
		    "# in-kernel log2 histograms: count and average exact; min, max and "
		    "percentiles are bucket bounds (within 2x)\n");
	if (ri->kernel_misses)
		fprintf(f,
			"# %" PRIu64 " events missed by the kernel (nested runs of a "
			"program are not allowed)\n",
			ri->kernel_misses);
	if (ri->gaps)
		fprintf(f, "# %" PRIu64 " records missing from the sequence\n", ri->gaps);
	if (ri->join.orphan_completions) {
		static const char why[] =
		    "(in flight when the trace began, or completed without issue,\n"
		    "# like data-less flush writes)";

		fprintf(f, "# %" PRIu64 " requests seen first at their completion %s\n",
			ri->join.orphan_completions, why);
	}
}

static void devices(FILE *f, struct analysis *a)
{
	fprintf(f, "\n%-10s %10s %12s %10s %12s %8s %8s %7s\n", "DEVICE", "READS",
		"RSECTORS", "WRITES", "WSECTORS", "FLUSHES", "DISCARDS", "ERRORS");
	for (size_t i = 0; i < a->nr_devs; i++) {
		struct dev_result *d = &a->devs[i];

		fprintf(f,
			"%-10s %10" PRIu64 " %12" PRIu64 " %10" PRIu64 " %12" PRIu64
			" %8" PRIu64 " %8" PRIu64 " %7" PRIu64 "\n",
			d->name, d->requests[OPG_READ], d->sectors[OPG_READ],
			d->requests[OPG_WRITE], d->sectors[OPG_WRITE], d->flushes,
			d->discards, d->errors);
	}
}

static void stats_table(FILE *f, const char *title, struct metric **m, size_t n)
{
	bool ns = n && !strcmp(m[0]->unit, "ns");

	fprintf(f, "\n%-24s %-8s %9s %10s %10s %10s %10s %10s %10s %10s\n", title, "",
		"COUNT", "MIN", "AVG", "P50", "P90", "P99", "P99.9", "MAX");
	for (size_t i = 0; i < n; i++) {
		struct metric_stats s;

		metric_stats(m[i], &s);
		if (ns)
			fprintf(f,
				"%-24s %-8s %9" PRIu64
				" %10.1f %10.1f %10.1f %10.1f %10.1f %10.1f %10.1f\n",
				m[i]->scope, m[i]->name, s.count, us(s.min),
				s.avg / 1000.0, us(s.p50), us(s.p90), us(s.p99),
				us(s.p999), us(s.max));
		else
			fprintf(f,
				"%-24s %-8s %9" PRIu64 " %10" PRIu64 " %10.0f %10" PRIu64
				" %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10" PRIu64
				"\n",
				m[i]->scope, m[i]->name, s.count, s.min, s.avg, s.p50,
				s.p90, s.p99, s.p999, s.max);
	}
}

/* libbpf-tools' print_log2_hist shape */
static void hist(FILE *f, struct metric *m)
{
	bool ns = !strcmp(m->unit, "ns");
	struct log2_hist h;
	uint64_t max = 0;

	metric_hist(m, ns ? 1000 : 1, &h);
	fprintf(f, "\n%s %s\n", m->scope, m->name);
	for (int i = 0; i <= h.max_slot; i++)
		if (h.slot[i] > max)
			max = h.slot[i];
	fprintf(f, "%*s%-*s : count    distribution\n", 10, "", ns ? 14 : 14,
		ns ? "usecs" : "sectors");
	for (int i = 0; i <= h.max_slot; i++) {
		uint64_t lo = i ? 1ull << i : 0, hi = (2ull << i) - 1;
		int stars = max ? (int)(h.slot[i] * 40 / max) : 0;

		fprintf(f, "%14" PRIu64 " -> %-12" PRIu64 ": %-8" PRIu64 " |%-*.*s|\n",
			lo, hi, h.slot[i], 40, stars,
			"****************************************");
	}
}

static void series(FILE *f, const struct report_info *ri, struct metric **m, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < m[i]->n && m[i]->t; k++)
			fprintf(f, "%.9f,%s,%s,%" PRId64 ",%s\n",
				(int64_t)(m[i]->t[k] - ri->t0_ns) / 1e9, m[i]->scope,
				m[i]->name, m[i]->sv ? m[i]->sv[k] : (int64_t)m[i]->v[k],
				m[i]->unit);
}

static void windows(FILE *f, const struct report_info *ri, struct analysis *a)
{
	fprintf(f, "\n%10s %9s %12s %10s %10s %10s %10s\n", "WINDOW_S", "REQUESTS",
		"BYTES", "Q2C_US", "KERNEL_US", "DRIVER_US", "DEVICE_US");
	for (size_t i = 0; i < a->nr_win; i++) {
		struct window *w = &a->win[i];

		fprintf(f,
			"%10.3f %9" PRIu64 " %12" PRIu64 " %10.1f %10.1f %10.1f %10.1f\n",
			i * a->window_ns / 1e9, w->requests, w->bytes,
			w->nr_q2c ? w->q2c_sum_ns / 1e3 / w->nr_q2c : 0.0,
			w->nr_q2g ? w->q2g_sum_ns / 1e3 / w->nr_q2g : 0.0,
			w->nr_g2d ? w->g2d_sum_ns / 1e3 / w->nr_g2d : 0.0,
			w->nr_d2c ? w->d2c_sum_ns / 1e3 / w->nr_d2c : 0.0);
	}
}

static void correlate(FILE *f, struct analysis *a)
{
	fprintf(f, "\nread syscall time against the bio time (Q2C) and scheduler time "
		   "(I2D) of its bios\n");
	fprintf(f, "%-18s %9s %10s %10s %10s %10s %10s %10s\n", "SYSCALL_US", "SYSCALLS",
		"BIO_AVG", "BIO_MIN", "BIO_MAX", "ELV_AVG", "ELV_MIN", "ELV_MAX");
	for (int k = 0; k < LOG2_SLOTS; k++) {
		struct corr_bucket *c = &a->corr[k];
		char range[32];

		if (!c->syscalls)
			continue;
		snprintf(range, sizeof(range), "%llu -> %llu", k ? 1ull << k : 0ull,
			 (2ull << k) - 1);
		fprintf(f,
			"%-18s %9" PRIu64 " %10.1f %10.1f %10.1f %10.1f %10.1f %10.1f\n",
			range, c->syscalls, us(c->bio_sum_ns / c->syscalls),
			us(c->bio_min_ns), us(c->bio_max_ns),
			c->elv_n ? us(c->elv_sum_ns / c->elv_n) : 0.0, us(c->elv_min_ns),
			us(c->elv_max_ns));
	}
}

static void requests(FILE *f, const struct report_info *ri, struct analysis *a)
{
	fprintf(f, "\n%12s %-8s %-5s %12s %6s %7s %-16s %9s %9s %9s %9s %9s\n",
		"C_TIME_S", "DEVICE", "RWBS", "SECTOR", "NR", "TID", "COMM", "Q2G_US",
		"G2I_US", "I2D_US", "D2C_US", "Q2C_US");
	for (size_t i = 0; i < a->nr_reqs; i++) {
		const struct join_request *r = &a->reqs[i];
		const char *name = analysis_dev_name(a, r->dev);
		char rwbs[8];

		render_rwbs(r->flags, rwbs);
#define D(x, y) ((x) && (y) >= (x) ? us((y) - (x)) : -1.0)
		fprintf(f,
			"%12.6f %-8s %-5s %12" PRIu64
			" %6u %7u %-16s %9.1f %9.1f %9.1f %9.1f %9.1f\n",
			(int64_t)(r->c_ns - ri->t0_ns) / 1e9, name, rwbs, r->sector,
			r->nr_sectors, r->tid,
			ri->comm ? ri->comm(ri->comm_ctx, r->tid) : "",
			D(r->q_ns, r->g_ns), D(r->g_ns, r->i_ns), D(r->i_ns, r->d_ns),
			D(r->d_ns, r->c_ns), D(r->q_ns, r->c_ns));
#undef D
	}
}

void render_text(FILE *f, const struct report_info *ri, struct analysis *a,
		 const struct render_opts *o)
{
	static const int order[] = {AN_LATENCY, AN_SYSCALL, AN_BIOTIME, AN_ELVTIME,
				    AN_IOSECTOR};
	struct metric *m[1024];

	if (o->view != VIEW_SERIES) {
		header(f, ri);
		devices(f, a);
	} else {
		fprintf(f, "time_s,scope,metric,value,unit\n");
	}
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		size_t n;
		char title[48];

		if (!(o->analyzers & order[i]))
			continue;
		n = analysis_metrics(a, order[i], m, 1024);
		snprintf(title, sizeof(title), "%s (%s)", analyzer_name(order[i]),
			 n && strcmp(m[0]->unit, "ns") ? "sectors" : "us");
		if (o->view == VIEW_STATS)
			stats_table(f, title, m, n);
		else if (o->view == VIEW_HIST)
			for (size_t k = 0; k < n; k++)
				hist(f, m[k]);
		else
			series(f, ri, m, n);
	}
	if (o->view == VIEW_SERIES)
		return;
	if (o->analyzers & AN_CORRELATE)
		correlate(f, a);
	if (o->windows)
		windows(f, ri, a);
	if ((o->analyzers & AN_PATTERNS) && a->groups)
		render_patterns_text(f, a->groups);
	if (o->requests)
		requests(f, ri, a);
}
