// SPDX-License-Identifier: GPL-2.0
/*
 * One row per event and one row per request, for programs: the columns
 * and their names live here once (docs/FORMAT.md, "Rows"), and the CSV
 * and JSON writers below print whatever row they are given. Used by
 * `iotrail export --to csv|jsonl` and by `report --requests`.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../util/esc.h"
#include "render.h"

enum rv_kind { RV_NONE, RV_U64, RV_I64, RV_F64, RV_STR };

struct rv {
	enum rv_kind k;
	union {
		uint64_t u;
		int64_t i;
		double d;
		const char *s;
	};
};

#define U(x)   ((struct rv){.k = RV_U64, .u = (x)})
#define I(x)   ((struct rv){.k = RV_I64, .i = (x)})
#define F(x)   ((struct rv){.k = RV_F64, .d = (x)})
#define S(x)   ((struct rv){.k = RV_STR, .s = (x)})
#define NONE   ((struct rv){.k = RV_NONE})
#define OPT(x) ((x) ? U(x) : NONE)

static const char *const event_cols[] = {
    "time_s", "ts_ns",	"cpu",	"seq",	  "pid", "tid", "comm", "event", "action",
    "dev",    "device", "rwbs", "sector", "nr",	 "id",	"id2",	"flags", "estimated",
};
#define NR_EVENT_COLS (sizeof(event_cols) / sizeof(event_cols[0]))

static const char *const request_cols[] = {
    "c_time_s", "device",	 "rwbs",       "sector",      "nr_sectors", "pid",
    "tid",	"comm",		 "q_ns",       "g_ns",	      "i_ns",	    "d_ns",
    "c_ns",	"nr_bios",	 "error",      "start_ns",    "dev",	    "rq",
    "q2g_ns",	"g2i_ns",	 "i2d_ns",     "d2c_ns",      "q2c_ns",	    "requeues",
    "hwq",	"drv_submit_ns", "drv_cqe_ns", "drv_done_ns", "bio_only",   "estimated",
};
#define NR_REQUEST_COLS (sizeof(request_cols) / sizeof(request_cols[0]))

static void csv_row(FILE *f, const struct rv *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputc(',', f);
		switch (v[i].k) {
		case RV_NONE:
			break;
		case RV_U64:
			fprintf(f, "%" PRIu64, v[i].u);
			break;
		case RV_I64:
			fprintf(f, "%" PRId64, v[i].i);
			break;
		case RV_F64:
			fprintf(f, "%.9f", v[i].d);
			break;
		case RV_STR:
			csv_field(f, v[i].s);
			break;
		}
	}
	fputc('\n', f);
}

static void json_row(struct json_writer *w, const char *const *names, const struct rv *v,
		     size_t n)
{
	jw_start_object(w);
	for (size_t i = 0; i < n; i++) {
		jw_name(w, names[i]);
		switch (v[i].k) {
		case RV_NONE:
			jw_null(w);
			break;
		case RV_U64:
			jw_uint(w, v[i].u);
			break;
		case RV_I64:
			jw_int(w, v[i].i);
			break;
		case RV_F64:
			jw_float9(w, v[i].d);
			break;
		case RV_STR:
			jw_string(w, v[i].s);
			break;
		}
	}
	jw_end_object(w);
}

static void head(FILE *f, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? "," : "", names[i]);
	fputc('\n', f);
}

static void devname(char *buf, size_t len, const struct row_names *nm, uint32_t dev)
{
	const char *s = nm->dev ? nm->dev(nm->dev_ctx, dev) : NULL;

	if (s)
		snprintf(buf, len, "%s", s);
	else
		snprintf(buf, len, "%u:%u", dev >> 20, dev & 0xfffff);
}

/* the block layer's records carry an operation in flags; the others an
 * aux value (enum iot_ev) */
static bool has_rwbs(uint16_t type)
{
	return (type >= IOT_EV_BIO_QUEUE && type <= IOT_EV_RQ_INFO &&
		type != IOT_EV_PLUG && type != IOT_EV_UNPLUG) ||
	       (type >= IOT_EV_DRV_SUBMIT && type <= IOT_EV_DRV_DONE) ||
	       type == IOT_EV_SUMMARY;
}

/* kernel addresses, and values that share their field: hex strings, as
 * script prints them (a JSON number loses bits above 2^53 in most readers) */
static struct rv hex(char *buf, uint64_t v)
{
	snprintf(buf, 20, "%#" PRIx64, v);
	return S(buf);
}

static size_t event_row(struct rv *v, const struct iot_rec *r, const struct row_names *nm,
			char *rwbs, char *dev, char *mm, size_t devlen, char (*ids)[20])
{
	const struct iot_summary *s = (const void *)r;
	bool sum = r->type == IOT_EV_SUMMARY;
	uint32_t d = sum ? s->dev : r->dev;
	uint32_t tid = sum ? s->tid : r->tid;
	size_t n = 0;

	if (has_rwbs(r->type))
		render_rwbs(r->flags & ~IOT_F_ESTIMATED, rwbs);
	else
		rwbs[0] = 0;
	devname(dev, devlen, nm, d);
	snprintf(mm, 24, "%u:%u", d >> 20, d & 0xfffff);
	v[n++] = F((int64_t)(r->ts_ns - nm->t0_ns) / 1e9);
	v[n++] = U(r->ts_ns);
	v[n++] = r->cpu == 0xffff ? NONE : U(r->cpu);
	v[n++] = U(r->seq);
	v[n++] = sum ? NONE : U(r->pid);
	v[n++] = U(tid);
	v[n++] = S(nm->comm ? nm->comm(nm->comm_ctx, tid) : "");
	v[n++] = S(render_event_name(r->type));
	v[n++] = S(render_action(r->type));
	v[n++] = d ? S(mm) : NONE;
	v[n++] = d ? S(dev) : NONE;
	v[n++] = rwbs[0] ? S(rwbs) : NONE;
	v[n++] = U(r->sector);
	v[n++] = U(r->nr);
	/* a summary's id is its Q time, id2 its D - Q (docs/FORMAT.md) */
	v[n++] = sum ? U(s->q_ns) : hex(ids[0], r->id);
	v[n++] = sum ? U(s->d_delta_ns) : hex(ids[1], r->id2);
	v[n++] = U(r->flags);
	v[n++] = U(!sum && iot_rec_estimated(r));
	return n;
}

void render_event_head(FILE *f)
{
	head(f, event_cols, NR_EVENT_COLS);
}

void render_event_csv(FILE *f, const struct iot_rec *r, const struct row_names *nm)
{
	char rwbs[8], dev[64], mm[24], ids[2][20];
	struct rv v[NR_EVENT_COLS];

	csv_row(f, v, event_row(v, r, nm, rwbs, dev, mm, sizeof(dev), ids));
}

void render_event_json(struct json_writer *w, const struct iot_rec *r,
		       const struct row_names *nm)
{
	char rwbs[8], dev[64], mm[24], ids[2][20];
	struct rv v[NR_EVENT_COLS];

	json_row(w, event_cols, v, event_row(v, r, nm, rwbs, dev, mm, sizeof(dev), ids));
}

/* b - a when both were seen, in order */
static struct rv span(uint64_t a, uint64_t b)
{
	return a && b && b >= a ? U(b - a) : NONE;
}

static size_t request_row(struct rv *v, const struct join_request *r,
			  const struct row_names *nm, char *rwbs, char *dev,
			  size_t devlen, char *rq)
{
	size_t n = 0;

	render_rwbs(r->flags, rwbs);
	devname(dev, devlen, nm, r->dev);
	/* the first sixteen: report --requests' columns since format 1.3 */
	v[n++] = F((int64_t)(r->c_ns - nm->t0_ns) / 1e9);
	v[n++] = S(dev);
	v[n++] = S(rwbs);
	v[n++] = U(r->sector);
	v[n++] = U(r->nr_sectors);
	v[n++] = U(r->pid);
	v[n++] = U(r->tid);
	v[n++] = S(nm->comm ? nm->comm(nm->comm_ctx, r->tid) : "");
	v[n++] = U(r->q_ns);
	v[n++] = U(r->g_ns);
	v[n++] = U(r->i_ns);
	v[n++] = U(r->d_ns);
	v[n++] = U(r->c_ns);
	v[n++] = U(r->nr_bios);
	v[n++] = I(r->error);
	v[n++] = U(r->start_ns);
	v[n++] = U(r->dev);
	v[n++] = hex(rq, r->rq);
	v[n++] = span(r->q_ns, r->g_ns);
	v[n++] = span(r->g_ns, r->i_ns);
	v[n++] = span(r->i_ns, r->d_ns);
	v[n++] = span(r->d_ns, r->c_ns);
	v[n++] = span(r->q_ns, r->c_ns);
	v[n++] = U(r->nr_requeues);
	v[n++] = r->drv_submit_ns ? U(r->hwq) : NONE;
	v[n++] = OPT(r->drv_submit_ns);
	v[n++] = OPT(r->drv_cqe_ns);
	v[n++] = OPT(r->drv_done_ns);
	v[n++] = U(r->bio_only);
	v[n++] = U(r->estimated);
	return n;
}

static const char *report_dev(void *ctx, uint32_t dev)
{
	return analysis_dev_name(ctx, dev);
}

struct row_names render_report_names(const struct report_info *ri,
				     const struct analysis *a)
{
	return (struct row_names){ri->t0_ns, report_dev, ri->comm, (void *)a,
				  ri->comm_ctx};
}

void render_request_head(FILE *f)
{
	head(f, request_cols, NR_REQUEST_COLS);
}

void render_request_csv(FILE *f, const struct join_request *r, const struct row_names *nm)
{
	char rwbs[8], dev[64], rq[20];
	struct rv v[NR_REQUEST_COLS];

	csv_row(f, v, request_row(v, r, nm, rwbs, dev, sizeof(dev), rq));
}

void render_request_json(struct json_writer *w, const struct join_request *r,
			 const struct row_names *nm)
{
	char rwbs[8], dev[64], rq[20];
	struct rv v[NR_REQUEST_COLS];

	json_row(w, request_cols, v, request_row(v, r, nm, rwbs, dev, sizeof(dev), rq));
}
