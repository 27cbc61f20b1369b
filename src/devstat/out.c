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

void devstat_out_dev(struct devstat_out *o, const char *name,
		     const struct devstat_rates *r)
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
			    "%.2f, \"aqu-sz\": %.2f, \"util\": %.2f}",
			    r->r_s, r->w_s, r->d_s, r->f_s, r->rkb_s, r->wkb_s, r->dkb_s,
			    r->rrqm_s, r->wrqm_s, r->drqm_s, r->rrqm_pct, r->wrqm_pct,
			    r->drqm_pct, r->r_await, r->w_await, r->d_await, r->f_await,
			    r->rareq_sz, r->wareq_sz, r->dareq_sz, r->aqu_sz, r->util);
		else
			fprintf(
			    o->f,
			    ", \"tps\": %.2f, \"kB_read/s\": %.2f, \"kB_wrtn/s\": %.2f, "
			    "\"kB_dscd/s\": %.2f, \"kB_read\": %llu, \"kB_wrtn\": %llu, "
			    "\"kB_dscd\": %llu}",
			    r->tps, r->rkb_s, r->wkb_s, r->dkb_s,
			    (unsigned long long)r->kb_read,
			    (unsigned long long)r->kb_wrtn,
			    (unsigned long long)r->kb_dscd);
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

void devstat_out_report_end(struct devstat_out *o)
{
	if (o->json)
		fprintf(o->f, "\n\t\t\t\t\t]\n\t\t\t\t}");
	else
		fputc('\n', o->f);
	o->reports++;
	fflush(o->f);
}

void devstat_out_end(struct devstat_out *o)
{
	if (o->json)
		fprintf(o->f, "\n\t\t\t]\n\t\t}\n\t]\n}}\n");
	fflush(o->f);
}
