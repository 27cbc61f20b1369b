// SPDX-License-Identifier: GPL-2.0
/* Text renderer: iostat-like counts, btt-like stage tables, bcc-like
 * log2 histograms. Times in microseconds. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../trace/reader.h"
#include "../util/esc.h"
#include "../util/most.h"
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

/* seconds since the recording's start */
static double rel_s(const struct report_info *ri, uint64_t ns)
{
	return ns > ri->t0_ns ? (ns - ri->t0_ns) / 1e9 : 0.0;
}

/* One CPU's back-pressure stretches: degrades[from, from + n), sorted */
struct bp_cpu {
	uint32_t cpu;
	size_t from, n;
	uint64_t ns, skipped, first, last;
	bool open;
};

static int cmp_degrade(const void *a, const void *b)
{
	const struct iot_degrade_stretch *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->from_ns < y->from_ns ? -1 : x->from_ns > y->from_ns;
}

static void bp_line(FILE *f, const struct report_info *ri, const struct bp_cpu *c,
		    const struct iot_degrade_stretch *st)
{
	fprintf(f, "# back-pressure on CPU %u: %zu stretch%s", c->cpu, c->n,
		c->n == 1 ? "" : "es");
	if (c->n <= 4) {
		const char *sep = " at ";

		for (size_t k = c->from; k < c->from + c->n; k++) {
			if (st[k].to_ns)
				fprintf(f, "%s%.3f-%.3f s", sep, rel_s(ri, st[k].from_ns),
					rel_s(ri, st[k].to_ns));
			else
				fprintf(f, "%s%.3f s to the end", sep,
					rel_s(ri, st[k].from_ns));
			sep = ", ";
		}
	} else {
		fprintf(f, " between %.3f s and %.3f s", rel_s(ri, c->first),
			c->last ? rel_s(ri, c->last) : rel_s(ri, c->first));
	}
	fprintf(f, ", %.3f s in all; %" PRIu64 " other records not written%s\n",
		c->ns / 1e9, c->skipped,
		c->open ? " (and those of the stretch open at the end, unknown)" : "");
}

/* Back-pressure stretches per CPU: each when there are few, else where
 * they lie and how long they took in all; the CPUs under it longest. */
static void backpressure(FILE *f, const struct report_info *ri)
{
	uint64_t end = ri->t0_ns + ri->duration_ns;
	struct iot_degrade_stretch *st;
	struct bp_cpu *c;
	uint64_t *key;
	bool *show;
	size_t nc = 0;

	if (!ri->nr_degrades)
		return;
	fprintf(f,
		"# back-pressure: %" PRIu64
		" requests recorded as summaries (their stages only: no bios, system "
		"call or file) in %zu stretch%s where a CPU's buffer filled\n",
		ri->summaries, ri->nr_degrades, ri->nr_degrades == 1 ? "" : "es");
	if (ri->join.bp_cut_syscalls)
		fprintf(f,
			"# back-pressure: %" PRIu64
			" system call%s open where a stretch began left out (the exit "
			"most likely not written)\n",
			ri->join.bp_cut_syscalls,
			ri->join.bp_cut_syscalls == 1 ? "" : "s");
	st = malloc(ri->nr_degrades * sizeof(*st));
	c = calloc(ri->nr_degrades, sizeof(*c));
	key = calloc(ri->nr_degrades, sizeof(*key));
	show = calloc(ri->nr_degrades, sizeof(*show));
	if (!st || !c || !key || !show) {
		fputs("# back-pressure per CPU: out of memory\n", f);
		goto out;
	}
	memcpy(st, ri->degrades, ri->nr_degrades * sizeof(*st));
	qsort(st, ri->nr_degrades, sizeof(*st), cmp_degrade);
	for (size_t k = 0; k < ri->nr_degrades; k++) {
		uint64_t to = st[k].to_ns ? st[k].to_ns : (ri->complete ? end : 0);
		struct bp_cpu *b;

		if (!k || st[k].cpu != st[k - 1].cpu) {
			b = &c[nc++];
			*b = (struct bp_cpu){
			    .cpu = st[k].cpu, .from = k, .first = st[k].from_ns};
		} else {
			b = &c[nc - 1];
		}
		b->n++;
		b->last = to > b->last ? to : b->last;
		b->ns += to > st[k].from_ns ? to - st[k].from_ns : 0;
		b->skipped += st[k].skipped;
		b->open |= !st[k].to_ns;
	}
	for (size_t i = 0; i < nc; i++)
		key[i] = c[i].ns;
	pick_most(key, show, nc, MOST_CPU_LINES);
	{
		size_t rest = 0, rest_n = 0;
		uint64_t rest_ns = 0;

		for (size_t i = 0; i < nc; i++) {
			if (show[i]) {
				bp_line(f, ri, &c[i], st);
				continue;
			}
			rest++;
			rest_n += c[i].n;
			rest_ns += c[i].ns;
		}
		if (rest)
			fprintf(f,
				"# back-pressure on %zu more CPUs: %zu stretches, %.3f s "
				"in all (-f json: each one)\n",
				rest, rest_n, rest_ns / 1e9);
	}
out:
	free(st);
	free(c);
	free(key);
	free(show);
}

/* The drops of each CPU, and where in time they fell (DROPS_AT); the CPUs
 * that dropped most when there are many. */
static void drop_lines(FILE *f, const struct report_info *ri)
{
	uint64_t *key = calloc(ri->nr_drops ? ri->nr_drops : 1, sizeof(*key));
	bool *show = calloc(ri->nr_drops ? ri->nr_drops : 1, sizeof(*show));
	size_t *at = calloc(ri->nr_drops ? ri->nr_drops : 1, sizeof(*at));
	size_t n = 0, rest = 0, rest_off = 0;
	uint64_t rest_d = 0;

	if (!key || !show || !at) {
		fputs("# drops per CPU: out of memory\n", f);
		goto out;
	}
	for (size_t i = 0; i < ri->nr_drops; i++) {
		uint64_t d = iot_drop_total(&ri->drops[i]);

		if (d) {
			key[n] = d;
			at[n++] = i;
		}
	}
	pick_most(key, show, n, MOST_CPU_LINES);
	for (size_t j = 0; j < n; j++) {
		const struct iot_drop_entry *e = &ri->drops[at[j]];
		const char *why = e->flags & IOT_DROP_NO_BUFFER
				      ? ": it had no buffer, being offline when the "
					"recording began"
				  : e->flags & IOT_DROP_UNWRITTEN
				      ? ": some of them records the recorder could "
					"not write (a write of the file failed)"
				      : "";
		uint64_t first = 0, last = 0, drains = 0;
		const struct iot_drop_stretch *st;
		size_t ns;

		if (!show[j]) {
			rest++;
			rest_d += key[j];
			rest_off += (e->flags & IOT_DROP_NO_BUFFER) != 0;
			continue;
		}
		st = trace_cpu_drops(ri->drop_stretches, ri->nr_drop_stretches, e->cpu,
				     &ns);
		for (size_t k = 0; k < ns; k++) {
			if (!st[k].drops)
				continue;
			first = drains ? first : st[k].from_ns;
			last = st[k].to_ns;
			drains += st[k].drains;
		}
		if (drains)
			fprintf(f,
				"# %" PRIu64 " drops on CPU %u, in %" PRIu64
				" drain%s between %.3f s and %.3f s%s\n",
				key[j], e->cpu, drains, drains == 1 ? "" : "s",
				rel_s(ri, first), rel_s(ri, last), why);
		else
			fprintf(f, "# %" PRIu64 " drops on CPU %u%s\n", key[j], e->cpu,
				why);
	}
	if (rest && rest_off)
		fprintf(f,
			"# %" PRIu64
			" drops on %zu more CPUs, %zu of them with no buffer, "
			"being offline when the recording began (-f json: each one)\n",
			rest_d, rest, rest_off);
	else if (rest)
		fprintf(f, "# %" PRIu64 " drops on %zu more CPUs (-f json: each one)\n",
			rest_d, rest);
out:
	free(key);
	free(show);
	free(at);
}

void render_cpus(const struct report_info *ri, char *buf, size_t len)
{
	uint32_t nobuf = 0;

	for (size_t i = 0; i < ri->nr_drops; i++)
		nobuf += (ri->drops[i].flags & IOT_DROP_NO_BUFFER) != 0;
	if (nobuf && nobuf < ri->nr_cpus)
		snprintf(buf, len, "%u CPUs (%u online at the start)", ri->nr_cpus,
			 ri->nr_cpus - nobuf);
	else
		snprintf(buf, len, "%u CPUs", ri->nr_cpus);
}

static void header(FILE *f, const struct report_info *ri)
{
	uint64_t drops = 0;

	for (size_t i = 0; i < ri->nr_drops; i++)
		drops += iot_drop_total(&ri->drops[i]);
	char dur[32], drp[32], cpus[64];

	if (ri->complete)
		snprintf(dur, sizeof(dur), "%.3f s", ri->duration_ns / 1e9);
	else
		snprintf(dur, sizeof(dur), "duration unknown");
	if (ri->drops_known)
		snprintf(drp, sizeof(drp), "%" PRIu64 " drops", drops);
	else
		snprintf(drp, sizeof(drp), "drops unknown");
	render_cpus(ri, cpus, sizeof(cpus));
	fprintf(f, "# %s: %s mode, %s, %s, %" PRIu64 " events, %s%s%s\n", ri->path,
		ri->mode, cpus, dur, ri->events, drp,
		ri->models && ri->models[0] ? "; the device was a model, not a disk: "
					    : "",
		ri->models && ri->models[0] ? ri->models : "");
	if (ri->flows && ri->flows[0])
		fprintf(
		    f,
		    "# recorded with --flow: only these flows' events (others' I/O is "
		    "not in the trace): %s\n",
		    ri->flows);
	if (!ri->complete)
		fprintf(f, "# the recording was cut short (no END chunk): its length and "
			   "drops are unknown\n");
	else if (ri->stop_reason && !strcmp(ri->stop_reason, "size"))
		fprintf(f, "# the recording stopped at --max-size (with --max-files, it "
			   "goes on in the next file)\n");
	else if (ri->stop_reason && !strcmp(ri->stop_reason, "space"))
		fprintf(f, "# the recording stopped early: no room left on the file's "
			   "file system (whole up to there)\n");
	else if (ri->stop_reason && !strcmp(ri->stop_reason, "error"))
		fprintf(f, "# the recording stopped early: the recorder failed (whole "
			   "up to there)\n");
	if (ri->imported)
		fprintf(f,
			"# imported from %s: its records hold no kernel addresses, so "
			"requests were linked by device and sector (as btt does)\n",
			ri->imported);
	if (ri->repair_method)
		fprintf(f,
			"# repaired: %" PRIu64 " times estimated, %" PRIu64
			" completions, %" PRIu64 " issues, %" PRIu64
			" queueings, %" PRIu64 " system call exits (%s, expected error "
			"%.1f us); %" PRIu64 " requests and %" PRIu64
			" calls carry one, %" PRIu64 " and %" PRIu64
			" left out (--measured-only)\n",
			ri->repair_estimated, ri->join.estimated_completions,
			ri->join.estimated_issues, ri->join.estimated_queues,
			ri->join.estimated_exits, ri->repair_method,
			ri->repair_mae_ns / 1e3, ri->requests_estimated,
			ri->syscalls_estimated, ri->requests_excluded,
			ri->syscalls_excluded);
	drop_lines(f, ri);
	backpressure(f, ri);
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
	if (!strcmp(ri->mode, "aggregate") && ri->agg_layers &&
	    !strstr(ri->agg_layers, "syscall"))
		fprintf(f, "# system calls not timed: record --aggregate --syscalls "
			   "times them (at a cost to every system call)\n");
	if (ri->kernel_misses)
		fprintf(f,
			"# %" PRIu64 " events missed by the kernel (nested runs of a "
			"program are not allowed)\n",
			ri->kernel_misses);
	if (ri->marks_dropped || ri->marks_torn)
		fprintf(f,
			"# %" PRIu64 " user marks lost: %" PRIu64
			" dropped by a full ring, %" PRIu64 " never committed\n",
			ri->marks_dropped + ri->marks_torn, ri->marks_dropped,
			ri->marks_torn);
	if (ri->marks_bad_rings)
		fprintf(f,
			"# %" PRIu64 " marker ring(s) damaged: their marks left out from "
			"then on\n",
			ri->marks_bad_rings);
	if (ri->gaps)
		fprintf(f, "# %" PRIu64 " records missing from the sequence\n", ri->gaps);
	if (ri->join.lost_cut_syscalls)
		fprintf(f,
			"# %" PRIu64
			" system call%s left out: records of the CPU were lost "
			"between enter and exit (the exit most likely another call's)\n",
			ri->join.lost_cut_syscalls,
			ri->join.lost_cut_syscalls == 1 ? "" : "s");
	if (ri->join.lost_completions)
		fprintf(f,
			"# %" PRIu64 " requests issued whose completion is not in the "
			"trace (the address was issued again): left out\n",
			ri->join.lost_completions);
	if (ri->join.unfinished)
		fprintf(f,
			"# %" PRIu64 " requests not completed when the trace ended (in "
			"flight as it stopped, or their completion lost): left out\n",
			ri->join.unfinished);
	if (ri->join.orphan_completions) {
		static const char why[] =
		    "(in flight when the trace began, or completed without issue,\n"
		    "# like data-less flush writes)";

		fprintf(f, "# %" PRIu64 " requests seen first at their completion %s\n",
			ri->join.orphan_completions, why);
	}
}

static void devices(FILE *f, const struct analysis *a)
{
	fprintf(f, "\n%-10s %10s %12s %10s %12s %8s %8s %7s\n", "DEVICE", "READS",
		"RSECTORS", "WRITES", "WSECTORS", "FLUSHES", "DISCARDS", "ERRORS");
	for (size_t i = 0; i < a->nr_devs; i++) {
		const struct dev_result *d = &a->devs[i];

		fprintf(f,
			"%-10s %10" PRIu64 " %12" PRIu64 " %10" PRIu64 " %12" PRIu64
			" %8" PRIu64 " %8" PRIu64 " %7" PRIu64 "\n",
			d->name, d->requests[OPG_READ], d->sectors[OPG_READ],
			d->requests[OPG_WRITE], d->sectors[OPG_WRITE], d->flushes,
			d->discards, d->errors);
	}
	for (size_t i = 0; i < a->nr_devs; i++) {
		const struct dev_result *d = &a->devs[i];
		const struct metric_stats *s = &d->flush.st;

		if (s->count)
			fprintf(
			    f,
			    "# %s: %" PRIu64 " flushes, %.1f us on average (p50 %.1f, "
			    "max %.1f), %s\n",
			    d->name, s->count, s->avg / 1000.0, us(s->p50), us(s->max),
			    d->flush_from_issue
				? "timed from their issue: the trace lacks the kernel's "
				  "start"
				: "timed as /proc/diskstats times them");
	}
}

static void stats_table(FILE *f, const char *title, const struct an_output *o)
{
	int w = 8; /* the name column: as wide as the longest name */

	for (size_t i = 0; i < o->nr_metrics; i++)
		if ((int)strlen(o->metrics[i]->name) > w)
			w = (int)strlen(o->metrics[i]->name);
	fprintf(f, "\n%-24s %-*s %9s %10s %10s %10s %10s %10s %10s %10s\n", title, w, "",
		"COUNT", "MIN", "AVG", "P50", "P90", "P99", "P99.9", "MAX");
	for (size_t i = 0; i < o->nr_metrics; i++) {
		const struct metric *m = o->metrics[i];
		const struct metric_stats *s = &m->st;

		if (!strcmp(m->unit, "ns"))
			fprintf(f,
				"%-24s %-*s %9" PRIu64
				" %10.1f %10.1f %10.1f %10.1f %10.1f %10.1f %10.1f\n",
				m->scope, w, m->name, s->count, us(s->min),
				s->avg / 1000.0, us(s->p50), us(s->p90), us(s->p99),
				us(s->p999), us(s->max));
		else
			fprintf(f,
				"%-24s %-*s %9" PRIu64 " %10" PRIu64 " %10.0f %10" PRIu64
				" %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10" PRIu64
				"\n",
				m->scope, w, m->name, s->count, s->min, s->avg, s->p50,
				s->p90, s->p99, s->p999, s->max);
	}
}

/* libbpf-tools' print_log2_hist shape */
void render_hist(FILE *f, const struct metric *m)
{
	bool ns = !strcmp(m->unit, "ns");
	const struct log2_hist *h = ns ? &m->hist_k : &m->hist;
	uint64_t max = 0;

	fprintf(f, "\n%s %s\n", m->scope, m->name);
	for (int i = 0; i <= h->max_slot; i++)
		if (h->slot[i] > max)
			max = h->slot[i];
	fprintf(f, "%*s%-*s : count    distribution\n", 10, "", 14,
		ns ? "usecs" : m->unit);
	for (int i = 0; i <= h->max_slot; i++) {
		uint64_t lo = i ? 1ull << i : 0, hi = (2ull << i) - 1;
		int stars = max ? (int)(h->slot[i] * 40 / max) : 0;

		fprintf(f, "%14" PRIu64 " -> %-12" PRIu64 ": %-8" PRIu64 " |%-*.*s|\n",
			lo, hi, h->slot[i], 40, stars,
			"****************************************");
	}
}

/* one line per sample, in time order: the CSV series */
void render_series(FILE *f, const struct report_info *ri, const struct metric *m)
{
	for (size_t k = 0; k < m->n && m->t; k++) {
		fprintf(f, "%.9f,", (int64_t)(m->t[k] - ri->t0_ns) / 1e9);
		csv_field(f, m->scope);
		fprintf(f, ",%s,%" PRId64 ",%s\n", m->name,
			m->sv ? m->sv[k] : (int64_t)m->v[k], m->unit);
	}
}

void render_cell(const struct table *t, size_t row, size_t col, char *buf, size_t len)
{
	const struct column *c = &t->cols[col];
	const union cell *v = table_cell(t, row, col);
	double div = c->text_div;
	int prec = div ? c->text_prec : c->prec;

	if (table_is_na(t, row, col)) {
		snprintf(buf, len, "-");
		return;
	}
	switch (c->type) {
	case CELL_STR:
		snprintf(buf, len, "%s", table_cell_str(t, row, col));
		break;
	case CELL_U64:
		if (div)
			snprintf(buf, len, "%.*f", prec, (double)v->u / div);
		else
			snprintf(buf, len, "%" PRIu64, v->u);
		break;
	case CELL_I64:
		if (div)
			snprintf(buf, len, "%.*f", prec, (double)v->i / div);
		else
			snprintf(buf, len, "%" PRId64, v->i);
		break;
	case CELL_F64:
		snprintf(buf, len, "%.*f", prec, div ? v->d / div : v->d);
		break;
	}
}

static void table(FILE *f, const struct table *t)
{
	char buf[256];
	bool first = true;
	size_t last = 0;

	if (!table_in(t->in, IN_TEXT))
		return;
	fputc('\n', f);
	if (t->title[0])
		fprintf(f, "%s\n", t->title);
	for (size_t c = 0; c < t->nr_cols; c++) {
		if (!table_in(t->cols[c].in, IN_TEXT))
			continue;
		fprintf(f, "%s%*s", first ? "" : " ", t->cols[c].width, t->cols[c].head);
		first = false;
	}
	fputc('\n', f);
	for (size_t c = 0; c < t->nr_cols; c++)
		if (table_in(t->cols[c].in, IN_TEXT))
			last = c;
	for (size_t r = 0; r < t->nr_rows; r++) {
		first = true;
		for (size_t c = 0; c < t->nr_cols; c++) {
			int w = t->cols[c].width;

			if (!table_in(t->cols[c].in, IN_TEXT))
				continue;
			render_cell(t, r, c, buf, sizeof(buf));
			/* no trailing blanks after a left-aligned last column */
			fprintf(f, "%s%*s", first ? "" : " ", c == last && w < 0 ? 0 : w,
				buf);
			first = false;
		}
		fputc('\n', f);
	}
	if (t->note)
		fputs(t->note, f);
}

static void span(char out[16], uint64_t from, uint64_t to)
{
	if (from && to >= from)
		snprintf(out, 16, "%.1f", us(to - from));
	else
		snprintf(out, 16, "-");
}

static void requests(FILE *f, const struct report_info *ri, const struct analysis *a)
{
	fprintf(f, "\n%12s %-8s %-5s %12s %6s %7s %-16s %9s %9s %9s %9s %9s\n",
		"C_TIME_S", "DEVICE", "RWBS", "SECTOR", "NR", "TID", "COMM", "Q2G_US",
		"G2I_US", "I2D_US", "D2C_US", "Q2C_US");
	for (size_t i = 0; i < a->nr_reqs; i++) {
		const struct join_request *r = &a->reqs[i];
		char rwbs[8], name[64], comm[72];

		text_clean(name, sizeof(name), analysis_dev_name(a, r->dev));
		text_clean(comm, sizeof(comm),
			   ri->comm ? ri->comm(ri->comm_ctx, r->tid) : "");
		render_rwbs(r->flags, rwbs);
		char st[5][16];

		/* a stage not seen (no I without a scheduler, no Q for the flush
		 * machinery's request) is "-": unknown, never a number */
		span(st[0], r->q_ns, r->g_ns);
		span(st[1], r->g_ns, r->i_ns);
		span(st[2], r->i_ns, r->d_ns);
		span(st[3], r->d_ns, r->c_ns);
		span(st[4], r->q_ns, r->c_ns);
		fprintf(f,
			"%12.6f %-8s %-5s %12" PRIu64
			" %6u %7u %-16s %9s %9s %9s %9s %9s\n",
			(int64_t)(r->c_ns - ri->t0_ns) / 1e9, name, rwbs, r->sector,
			r->nr_sectors, r->tid, comm, st[0], st[1], st[2], st[3], st[4]);
	}
}

void render_text(FILE *f, const struct report_info *ri, const struct analysis *a,
		 const struct render_opts *ro)
{
	if (ro->view == VIEW_SERIES) {
		fprintf(f, "time_s,scope,metric,value,unit\n");
		for (size_t i = 0; i < a->nr_out; i++)
			for (size_t k = 0; k < a->out[i].nr_metrics; k++)
				render_series(f, ri, a->out[i].metrics[k]);
		return;
	}
	header(f, ri);
	if (analysis_windowed(a)) {
		char to[32] = "the end";

		if (a->env.to_ns != UINT64_MAX)
			snprintf(to, sizeof(to), "%.3f s", rel_s(ri, a->env.to_ns));
		fprintf(f,
			"# --time: what ended from %.3f s to %s alone (a request by its "
			"completion, a call by its exit); the losses above are the "
			"whole trace's\n",
			rel_s(ri, a->env.from_ns), to);
	}
	if (a->bucketed)
		fprintf(f,
			"# percentiles within %.2f%% where a metric has more than %zu "
			"values: kept in log-linear buckets, not each (memory bounded; "
			"counts, averages, minima, maxima and histograms exact)\n",
			METRIC_REL_ERR * 100, metric_exact_max());
	devices(f, a);
	for (size_t i = 0; i < a->nr_out; i++) {
		const struct an_output *o = &a->out[i];
		char title[48];

		if (o->an->metric_unit) {
			snprintf(title, sizeof(title), "%s (%s)", o->an->name,
				 o->an->metric_unit);
			if (ro->view == VIEW_STATS)
				stats_table(f, title, o);
			else
				for (size_t k = 0; k < o->nr_metrics; k++)
					render_hist(f, o->metrics[k]);
		}
		for (size_t k = 0; k < o->nr_tables; k++)
			table(f, o->tables[k]);
	}
	if (ro->requests)
		requests(f, ri, a);
}
