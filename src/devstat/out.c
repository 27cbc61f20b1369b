// SPDX-License-Identifier: GPL-2.0
/* iostat's text and JSON, as sysstat 12 prints them (out.h). */
#include "out.h"

#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "../util/json_writer.h"

/* a name from the system (node, device) as a JSON string */
static void json_string(FILE *f, const char *s)
{
	struct json_writer w;

	jw_init(&w, f, false);
	jw_string(&w, s);
}

static void host(char *date, size_t len, struct utsname *u)
{
	time_t now = time(NULL);
	struct tm tm;

	if (uname(u))
		memset(u, 0, sizeof(*u));
	localtime_r(&now, &tm);
	strftime(date, len, "%m/%d/%y", &tm);
}

void devstat_out_begin(struct devstat_out *o)
{
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	struct utsname u;
	char date[16];

	host(date, sizeof(date), &u);
	if (!o->json) {
		fprintf(o->f, "%s %s (%s) \t%s \t_%s_\t(%ld CPU)\n\n", u.sysname,
			u.release, u.nodename, date, u.machine, cpus);
		return;
	}
	/* sysstat's layout, its indentation included */
	fprintf(o->f, "{\"sysstat\": {\n\t\"hosts\": [\n\t\t{\n");
	fprintf(o->f, "\t\t\t\"nodename\": ");
	json_string(o->f, u.nodename);
	fprintf(o->f, ",\n\t\t\t\"sysname\": ");
	json_string(o->f, u.sysname);
	fprintf(o->f, ",\n\t\t\t\"release\": ");
	json_string(o->f, u.release);
	fprintf(o->f, ",\n\t\t\t\"machine\": ");
	json_string(o->f, u.machine);
	fprintf(o->f,
		",\n\t\t\t\"number-of-cpus\": %ld,\n\t\t\t\"date\": \"%s\",\n"
		"\t\t\t\"statistics\": [",
		cpus, date);
	fflush(o->f);
}

void devstat_out_report_begin(struct devstat_out *o)
{
	o->devs_in_report = 0;
	if (o->json) {
		fprintf(o->f, "%s\n\t\t\t\t{\n\t\t\t\t\t\"disk\": [",
			o->reports ? "," : "");
	} else if (o->ext) {
		fprintf(o->f,
			"%-13s %7s %9s %8s %6s %7s %8s %7s %9s %8s %6s %7s %8s %7s %9s "
			"%8s %6s %7s %8s %7s %7s %7s %6s\n",
			"Device", "r/s", "rkB/s", "rrqm/s", "%rrqm", "r_await",
			"rareq-sz", "w/s", "wkB/s", "wrqm/s", "%wrqm", "w_await",
			"wareq-sz", "d/s", "dkB/s", "drqm/s", "%drqm", "d_await",
			"dareq-sz", "f/s", "f_await", "aqu-sz", "%util");
	} else {
		fprintf(o->f, "%-13s %8s %12s %12s %12s %10s %10s %10s\n", "Device",
			"tps", "kB_read/s", "kB_wrtn/s", "kB_dscd/s", "kB_read",
			"kB_wrtn", "kB_dscd");
	}
}

static void json_trace(FILE *f, const struct devstat_trace_rates *t)
{
	static const char *const kind = "rwdf";

	fprintf(f, ", \"trace\": {");
	for (int k = 0; k < DT_KINDS; k++)
		fprintf(f,
			"\"%c/s\": %.2f, \"%c_await\": %.3f, \"%c_sched\": %.3f, "
			"\"%c_dev\": %.3f, ",
			kind[k], t->s[k], kind[k], t->await[k], kind[k], t->sched[k],
			kind[k], t->dev[k]);
	fprintf(f,
		"\"aqu-sz\": %.2f, \"dev-qd\": %.3f, \"max-qd\": %llu, \"util\": "
		"%.2f, \"unstamped\": %llu, \"missed\": %llu}",
		t->aqu_sz, t->dev_qd, (unsigned long long)t->peak, t->util,
		(unsigned long long)t->no_start, (unsigned long long)t->missed);
}

void devstat_out_dev(struct devstat_out *o, const char *name,
		     const struct devstat_rates *r)
{
	devstat_out_dev_trace(o, name, r, NULL);
}

void devstat_out_dev_trace(struct devstat_out *o, const char *name,
			   const struct devstat_rates *r,
			   const struct devstat_trace_rates *t)
{
	if (o->json) {
		fprintf(o->f, "%s\n\t\t\t\t\t\t{\"disk_device\": ",
			o->devs_in_report ? "," : "");
		json_string(o->f, name);
		if (o->ext)
			fprintf(
			    o->f,
			    ", \"r/s\": %.2f, \"w/s\": %.2f, \"d/s\": %.2f, \"f/s\": "
			    "%.2f, \"rkB/s\": %.2f, \"wkB/s\": %.2f, \"dkB/s\": %.2f, "
			    "\"rrqm/s\": %.2f, \"wrqm/s\": %.2f, \"drqm/s\": %.2f, "
			    "\"rrqm\": %.2f, \"wrqm\": %.2f, \"drqm\": %.2f, "
			    "\"r_await\": "
			    "%.2f, \"w_await\": %.2f, \"d_await\": %.2f, \"f_await\": "
			    "%.2f, \"rareq-sz\": %.2f, \"wareq-sz\": %.2f, \"dareq-sz\": "
			    "%.2f, \"aqu-sz\": %.2f, \"util\": %.2f",
			    r->r_s, r->w_s, r->d_s, r->f_s, r->rkb_s, r->wkb_s, r->dkb_s,
			    r->rrqm_s, r->wrqm_s, r->drqm_s, r->rrqm_pct, r->wrqm_pct,
			    r->drqm_pct, r->r_await, r->w_await, r->d_await, r->f_await,
			    r->rareq_sz, r->wareq_sz, r->dareq_sz, r->aqu_sz, r->util);
		else
			fprintf(
			    o->f,
			    ", \"tps\": %.2f, \"kB_read/s\": %.2f, \"kB_wrtn/s\": %.2f, "
			    "\"kB_dscd/s\": %.2f, \"kB_read\": %llu, \"kB_wrtn\": %llu, "
			    "\"kB_dscd\": %llu",
			    r->tps, r->rkb_s, r->wkb_s, r->dkb_s,
			    (unsigned long long)r->kb_read,
			    (unsigned long long)r->kb_wrtn,
			    (unsigned long long)r->kb_dscd);
		if (t)
			json_trace(o->f, t);
		fputc('}', o->f);
	} else if (o->ext) {
		fprintf(o->f,
			"%-13s %7.2f %9.2f %8.2f %6.2f %7.2f %8.2f %7.2f %9.2f %8.2f "
			"%6.2f %7.2f %8.2f %7.2f %9.2f %8.2f %6.2f %7.2f %8.2f %7.2f "
			"%7.2f %7.2f %6.2f\n",
			name, r->r_s, r->rkb_s, r->rrqm_s, r->rrqm_pct, r->r_await,
			r->rareq_sz, r->w_s, r->wkb_s, r->wrqm_s, r->wrqm_pct, r->w_await,
			r->wareq_sz, r->d_s, r->dkb_s, r->drqm_s, r->drqm_pct, r->d_await,
			r->dareq_sz, r->f_s, r->f_await, r->aqu_sz, r->util);
	} else {
		fprintf(o->f, "%-13s %8.2f %12.2f %12.2f %12.2f %10llu %10llu %10llu\n",
			name, r->tps, r->rkb_s, r->wkb_s, r->dkb_s,
			(unsigned long long)r->kb_read, (unsigned long long)r->kb_wrtn,
			(unsigned long long)r->kb_dscd);
	}
	o->devs_in_report++;
}

/* one row of the trace table: the kinds' rates and awaits, then aqu-sz
 * and %util; the trace's own columns after them, or dashes */
static void trace_row(FILE *f, const char *name, const char *source, const double *s,
		      const double *await, double aqu, double util,
		      const struct devstat_trace_rates *t)
{
	fprintf(f, "%-13s %-6s", name, source);
	for (int k = 0; k < DT_KINDS; k++)
		fprintf(f, " %8.2f", s[k]);
	for (int k = 0; k < DT_KINDS; k++)
		fprintf(f, " %7.2f", await[k]);
	fprintf(f, " %7.2f %6.2f", aqu, util);
	if (t)
		fprintf(f, " %7.3f %7.3f %7.3f %7.3f %6.2f %6llu\n", t->sched[DT_READ],
			t->dev[DT_READ], t->sched[DT_WRITE], t->dev[DT_WRITE], t->dev_qd,
			(unsigned long long)t->peak);
	else
		fprintf(f, " %7s %7s %7s %7s %6s %6s\n", "-", "-", "-", "-", "-", "-");
}

void devstat_out_trace(struct devstat_out *o, const char *name,
		       const struct devstat_rates *r, const struct devstat_trace_rates *t)
{
	double s[DT_KINDS] = {r->r_s, r->w_s, r->d_s, r->f_s},
	       aw[DT_KINDS] = {r->r_await, r->w_await, r->d_await, r->f_await},
	       ds[DT_KINDS], daw[DT_KINDS];

	if (o->json)
		return;
	if (!o->traced_in_report++)
		fprintf(o->f,
			"\n%-13s %-6s %8s %8s %8s %8s %7s %7s %7s %7s %7s %6s %7s %7s "
			"%7s %7s %6s %6s\n",
			"Device", "source", "r/s", "w/s", "d/s", "f/s", "r_await",
			"w_await", "d_await", "f_await", "aqu-sz", "%util", "r_sched",
			"r_dev", "w_sched", "w_dev", "dev-qd", "max-qd");
	for (int k = 0; k < DT_KINDS; k++) {
		ds[k] = t->s[k] - s[k];
		daw[k] = t->await[k] - aw[k];
	}
	trace_row(o->f, name, "iostat", s, aw, r->aqu_sz, r->util, NULL);
	trace_row(o->f, name, "trace", t->s, t->await, t->aqu_sz, t->util, t);
	trace_row(o->f, name, "diff", ds, daw, t->aqu_sz - r->aqu_sz, t->util - r->util,
		  NULL);
	if (t->missed)
		fprintf(o->f,
			"%-13s %llu completions not seen by the programs: a request "
			"counted at the driver until issued again (trace %%util is an "
			"upper bound)\n",
			name, (unsigned long long)t->missed);
}

void devstat_out_report_end(struct devstat_out *o)
{
	if (o->json)
		fprintf(o->f, "\n\t\t\t\t\t]\n\t\t\t\t}");
	else
		fputc('\n', o->f);
	o->traced_in_report = 0;
	o->reports++;
	fflush(o->f);
}

void devstat_out_end(struct devstat_out *o)
{
	if (o->json)
		fprintf(o->f, "\n\t\t\t]\n\t\t}\n\t]\n}}\n");
	fflush(o->f);
}
