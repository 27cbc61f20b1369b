// SPDX-License-Identifier: GPL-2.0
/* Prometheus / OpenMetrics text from the --aggregate histograms (metrics.h). */
#include "metrics.h"

#include <inttypes.h>
#include <string.h>

static const char *const ops[IOT_AGG_OPS] = {"read", "write", "other"};
static const char *const stages[] = {
    [IOT_AGG_Q2G] = "q2g", [IOT_AGG_G2I] = "g2i", [IOT_AGG_I2D] = "i2d",
    [IOT_AGG_D2C] = "d2c", [IOT_AGG_Q2C] = "q2c",
};

/* a label value: backslash, quote and newline escaped */
static void label(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', f), fputc(*s, f);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

static void family(FILE *f, const struct metrics_info *mi, const char *name,
		   const char *type, const char *help)
{
	/* OpenMetrics names a counter's family without _total */
	size_t len = strlen(name);

	if (mi->openmetrics && !strcmp(type, "counter") && len > 6 &&
	    !strcmp(name + len - 6, "_total"))
		len -= 6;
	fprintf(f, "# HELP %.*s %s\n# TYPE %.*s %s\n", (int)len, name, help, (int)len,
		name, type);
}

static void labels(FILE *f, const struct metrics_info *mi, const struct iot_agg_entry *e,
		   uint32_t cg, const char *extra_name, const char *extra)
{
	fputc('{', f);
	if (mi->cgroups && e->dev) {
		const char *p =
		    cg && mi->cgroup_name ? mi->cgroup_name(mi->ctx, cg) : NULL;
		char id[24];

		if (!p) {
			snprintf(id, sizeof(id), "%u", cg);
			p = cg ? id : "";
		}
		fputs("cgroup=\"", f);
		label(f, p);
		fputs("\",", f);
	}
	if (e->dev) {
		const char *d = mi->dev_name ? mi->dev_name(mi->ctx, e->dev) : NULL;
		char mm[24];

		if (!d) {
			snprintf(mm, sizeof(mm), "%u:%u", e->dev >> 20, e->dev & 0xfffff);
			d = mm;
		}
		fputs("device=\"", f);
		label(f, d);
		fprintf(f, "\",op=\"%s\"", ops[e->op < IOT_AGG_OPS ? e->op : 2]);
	}
	if (extra_name && extra) { /* (the one comes with the other) */
		fprintf(f, "%s%s=\"", e->dev ? "," : "", extra_name);
		label(f, extra);
		fputc('"', f);
	}
}

/* a classic histogram from log2 buckets: le = 2^j units for j in lo..hi,
 * each counting the buckets below j; scale turns units into the metric's */
static void histogram(FILE *f, const struct metrics_info *mi, const char *name,
		      const struct iot_agg_entry *e, uint32_t cg, const char *extra_name,
		      const char *extra, int lo, int hi, double scale)
{
	uint64_t cum = 0, total = 0;
	char ex[256];
	int k = 0;

	for (unsigned int b = 0; b < IOT_AGG_BUCKETS; b++)
		total += e->buckets[b];
	for (int j = lo; j <= hi; j++) {
		for (; k < j; k++)
			cum += e->buckets[k];
		fprintf(f, "%s_bucket", name);
		labels(f, mi, e, cg, extra_name, extra);
		ex[0] = 0;
		/* the exemplar of a latency bucket: a captured request in it */
		if (mi->openmetrics && mi->exemplar && e->dev && scale < 1 &&
		    !mi->cgroups)
			mi->exemplar(mi->ctx, e->dev, e->op, e->metric, j, ex,
				     sizeof(ex));
		fprintf(f, ",le=\"%.12g\"} %" PRIu64 "%s\n", (double)(1ull << j) * scale,
			cum, ex);
	}
	fprintf(f, "%s_bucket", name);
	labels(f, mi, e, cg, extra_name, extra);
	fprintf(f, ",le=\"+Inf\"} %" PRIu64 "\n", total);
	fprintf(f, "%s_count", name);
	labels(f, mi, e, cg, extra_name, extra);
	fprintf(f, "} %" PRIu64 "\n%s_sum", total, name);
	labels(f, mi, e, cg, extra_name, extra);
	fprintf(f, "} %.9f\n", (double)e->sum * scale);
}

static uint64_t count_of(const struct iot_agg_entry *e)
{
	uint64_t n = 0;

	for (unsigned int b = 0; b < IOT_AGG_BUCKETS; b++)
		n += e->buckets[b];
	return n;
}

#define CG(i) (mi->cgroups ? mi->cgroups[i] : 0)

void metrics_write(FILE *f, const struct iot_agg_entry *e, size_t n,
		   const struct metrics_info *mi)
{
	family(f, mi, "iotrail_request_latency_seconds", "histogram",
	       "Block requests' stage latency: q2g, g2i, i2d, d2c (at the device), "
	       "q2c (whole), per device and op, as the kernel's log2 buckets");
	for (size_t i = 0; i < n; i++)
		if (e[i].dev && e[i].metric <= IOT_AGG_Q2C)
			histogram(f, mi, "iotrail_request_latency_seconds", &e[i], CG(i),
				  "stage", stages[e[i].metric], METRICS_NS_LO,
				  METRICS_NS_HI, 1e-9);
	family(f, mi, "iotrail_request_size_bytes", "histogram",
	       "Completed block requests' size per device and op");
	for (size_t i = 0; i < n; i++)
		if (e[i].dev && e[i].metric == IOT_AGG_SIZE)
			histogram(f, mi, "iotrail_request_size_bytes", &e[i], CG(i), NULL,
				  NULL, METRICS_B_LO, METRICS_B_HI, 1.0);
	family(f, mi, "iotrail_requests_total", "counter",
	       "Completed block requests per device and op (/proc/diskstats counts "
	       "the same reads and writes)");
	for (size_t i = 0; i < n; i++)
		if (e[i].dev && e[i].metric == IOT_AGG_Q2C) {
			fputs("iotrail_requests_total", f);
			labels(f, mi, &e[i], CG(i), NULL, NULL);
			fprintf(f, "} %" PRIu64 "\n", count_of(&e[i]));
		}
	family(f, mi, "iotrail_bytes_total", "counter",
	       "Bytes of the completed block requests per device and op");
	for (size_t i = 0; i < n; i++)
		if (e[i].dev && e[i].metric == IOT_AGG_SIZE) {
			fputs("iotrail_bytes_total", f);
			labels(f, mi, &e[i], CG(i), NULL, NULL);
			fprintf(f, "} %" PRIu64 "\n", e[i].sum);
		}
	if (mi->nr_syscall_names) /* serve --syscalls */
		family(f, mi, "iotrail_syscall_latency_seconds", "histogram",
		       "I/O system calls' latency per kind (traced processes)");
	for (size_t i = 0; i < n; i++) {
		size_t k = (size_t)e[i].metric - IOT_AGG_SYSCALL;

		if (!e[i].dev && e[i].metric >= IOT_AGG_SYSCALL &&
		    k < mi->nr_syscall_names)
			histogram(f, mi, "iotrail_syscall_latency_seconds", &e[i], 0,
				  "syscall", mi->syscall_names[k], METRICS_NS_LO,
				  METRICS_NS_HI, 1e-9);
	}
	family(f, mi, "iotrail_lost_requests_total", "counter",
	       "Requests not in the histograms: the recorder's in-flight table had no "
	       "room for them, or their disk (and cgroup) found every histogram slot "
	       "taken (iotrail_histogram_slots)");
	fprintf(f, "iotrail_lost_requests_total %" PRIu64 "\n", mi->lost);
	family(f, mi, "iotrail_histogram_slots", "gauge",
	       "Histogram slots, one a disk (a disk and cgroup with --by cgroup): "
	       "handed out (used) and kept (total, serve --slots)");
	fprintf(f, "iotrail_histogram_slots{state=\"used\"} %u\n", mi->slots_used);
	fprintf(f, "iotrail_histogram_slots{state=\"total\"} %u\n", mi->slots);
	family(f, mi, "iotrail_lost_completions_total", "counter",
	       "Requests issued whose completion the kernel ran no program for "
	       "(found when their slot was used again): not in the histograms");
	fprintf(f, "iotrail_lost_completions_total %" PRIu64 "\n", mi->lost_completions);
	family(f, mi, "iotrail_scrapes_total", "counter", "Scrapes answered");
	fprintf(f, "iotrail_scrapes_total %" PRIu64 "\n", mi->scrapes);
	family(f, mi, "iotrail_uptime_seconds", "gauge",
	       "Seconds since the programs were attached");
	fprintf(f, "iotrail_uptime_seconds %.3f\n", mi->uptime_s);
	if (mi->openmetrics)
		fputs("# EOF\n", f);
}
