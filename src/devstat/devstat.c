// SPDX-License-Identifier: GPL-2.0
/* /proc/diskstats samples and iostat's arithmetic (devstat.h). */
#include "devstat.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/grow.h"

static int read_uptime(const char *path, uint64_t *cs, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	unsigned long long s, frac;
	char c;
	int n;

	if (!f) {
		int e = errno;

		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	/* "25820.33 26458.54": seconds with two decimals */
	n = fscanf(f, "%llu%c%2llu", &s, &c, &frac);
	fclose(f);
	if (n != 3 || c != '.') {
		snprintf(err, errlen, "%s: not \"SECONDS.CC ...\"", path);
		return -EINVAL;
	}
	*cs = s * 100 + frac;
	return 0;
}

int devstat_read(struct devstat_sample *s, const char *diskstats, const char *uptime,
		 char *err, size_t errlen)
{
	char line[512];
	unsigned int lineno = 0;
	FILE *f;
	int ret;

	ret = read_uptime(uptime, &s->uptime_cs, err, errlen);
	if (ret)
		return ret;
	f = fopen(diskstats, "r");
	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", diskstats, strerror(-ret));
		return ret;
	}
	s->nr = 0;
	while (fgets(line, sizeof(line), f)) {
		struct devstat_dev d;
		char *p, *end;
		int n = 0;

		lineno++;
		memset(&d, 0, sizeof(d));
		if (sscanf(line, "%u %u %31s %n", &d.major, &d.minor, d.name, &n) < 3 ||
		    !n) {
			snprintf(err, errlen,
				 "%s:%u: not \"MAJOR MINOR NAME COUNTERS...\"", diskstats,
				 lineno);
			fclose(f);
			return -EINVAL;
		}
		p = line + n;
		for (int k = 0; k < NR_DS_FIELDS; k++) {
			errno = 0;
			d.f[k] = strtoull(p, &end, 10);
			if (end == p)
				break; /* an older kernel: fewer counters */
			if (errno) {
				snprintf(err, errlen, "%s:%u: counter %d out of range",
					 diskstats, lineno, k + 1);
				fclose(f);
				return -EINVAL;
			}
			p = end;
		}
		if (GROW(s->devs, s->nr + 1, s->cap)) {
			fclose(f);
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		s->devs[s->nr++] = d;
	}
	fclose(f);
	return 0;
}

void devstat_release(struct devstat_sample *s)
{
	free(s->devs);
	memset(s, 0, sizeof(*s));
}

const struct devstat_dev *devstat_find(const struct devstat_sample *s, const char *name)
{
	for (size_t i = 0; i < s->nr; i++)
		if (!strcmp(s->devs[i].name, name))
			return &s->devs[i];
	return NULL;
}

bool devstat_is_partition(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/class/block/%s/partition", name);
	return access(path, F_OK) == 0;
}

/* sysstat's S_VALUE: a counter's change per second over itv (1/100 s) */
static double per_s(uint64_t delta, uint64_t itv_cs)
{
	return itv_cs ? (double)delta / (double)itv_cs * 100.0 : 0.0;
}

static double ratio(uint64_t num, uint64_t den)
{
	return den ? (double)num / (double)den : 0.0;
}

/* One kind's columns (reads, writes or discards): its four counters are
 * ios, merges, sectors, ticks in a row in /proc/diskstats. */
static void group(const uint64_t *d, int ios, uint64_t itv_cs, double *s, double *kb_s,
		  double *rqm_s, double *rqm_pct, double *await, double *req_sz)
{
	uint64_t n = d[ios], merges = d[ios + 1], sectors = d[ios + 2],
		 ticks = d[ios + 3];

	*s = per_s(n, itv_cs);
	*kb_s = per_s(sectors, itv_cs) / 2;
	*rqm_s = per_s(merges, itv_cs);
	*rqm_pct = 100 * ratio(merges, merges + n);
	*await = ratio(ticks, n);
	*req_sz = ratio(sectors, n) / 2;
}

void devstat_rates(const struct devstat_dev *prev, const struct devstat_dev *cur,
		   uint64_t itv_cs, struct devstat_rates *r)
{
	static const struct devstat_dev zero;
	const uint64_t *a = (prev ? prev : &zero)->f, *b = cur->f;
	uint64_t d[NR_DS_FIELDS];

	for (int k = 0; k < NR_DS_FIELDS; k++) /* a counter that went back: 0 */
		d[k] = b[k] >= a[k] ? b[k] - a[k] : 0;
	memset(r, 0, sizeof(*r));
	group(d, DS_RD_IOS, itv_cs, &r->r_s, &r->rkb_s, &r->rrqm_s, &r->rrqm_pct,
	      &r->r_await, &r->rareq_sz);
	group(d, DS_WR_IOS, itv_cs, &r->w_s, &r->wkb_s, &r->wrqm_s, &r->wrqm_pct,
	      &r->w_await, &r->wareq_sz);
	group(d, DS_DC_IOS, itv_cs, &r->d_s, &r->dkb_s, &r->drqm_s, &r->drqm_pct,
	      &r->d_await, &r->dareq_sz);
	r->f_s = per_s(d[DS_FL_IOS], itv_cs);
	r->f_await = ratio(d[DS_FL_TICKS], d[DS_FL_IOS]);
	/* the time integral of the queue depth (ms) per ms; busy ms per s */
	r->aqu_sz = per_s(d[DS_RQ_TICKS], itv_cs) / 1000;
	r->util = per_s(d[DS_IO_TICKS], itv_cs) / 10; /* not capped, as sysstat */
	r->tps = per_s(d[DS_RD_IOS] + d[DS_WR_IOS] + d[DS_DC_IOS], itv_cs);
	r->kb_read = d[DS_RD_SECTORS] / 2;
	r->kb_wrtn = d[DS_WR_SECTORS] / 2;
	r->kb_dscd = d[DS_DC_SECTORS] / 2;
}

static uint64_t delta(uint64_t a, uint64_t b)
{
	return b >= a ? b - a : 0;
}

void devstat_trace_rates(const struct devstat_trace *prev,
			 const struct devstat_trace *cur, uint64_t itv_ns,
			 struct devstat_trace_rates *r)
{
	static const struct devstat_trace zero;
	double itv_s = (double)itv_ns / 1e9, g2c_ns = 0, d2c_ns = 0;

	if (!prev)
		prev = &zero;
	memset(r, 0, sizeof(*r));
	for (int k = 0; k < DT_KINDS; k++) {
		uint64_t n = delta(prev->ios[k], cur->ios[k]),
			 g2d = delta(prev->g2d_ns[k], cur->g2d_ns[k]),
			 d2c = delta(prev->d2c_ns[k], cur->d2c_ns[k]);

		r->s[k] = itv_ns ? (double)n / itv_s : 0;
		r->sched[k] = ratio(g2d, n) / 1e6;
		r->dev[k] = ratio(d2c, n) / 1e6;
		r->await[k] = r->sched[k] + r->dev[k];
		g2c_ns += (double)(g2d + d2c);
		d2c_ns += (double)d2c;
	}
	if (itv_ns) {
		r->aqu_sz = g2c_ns / (double)itv_ns;
		r->dev_qd = d2c_ns / (double)itv_ns;
		r->util =
		    100.0 * (double)delta(prev->busy_ns, cur->busy_ns) / (double)itv_ns;
	}
	r->peak = cur->peak > prev->inflight ? cur->peak : prev->inflight;
	r->no_start = delta(prev->no_start, cur->no_start);
	r->missed = delta(prev->missed, cur->missed);
}
