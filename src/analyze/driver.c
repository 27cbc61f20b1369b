// SPDX-License-Identifier: GPL-2.0
/*
 * driver: the NVMe driver layer (docs/DRIVER.md). D2C split at nvme_core's
 * tracepoints, by the request's address: submit (D to the command built,
 * nvme_setup_cmd), device (to its completion entry handled, nvme_sq, which
 * holds the interrupt's latency too) and complete (to the block layer's C).
 * Per NVMe queue id as metrics, per device and queue as a table.
 */
#include <string.h>

#include "../util/grow.h"
#include "analyzer.h"

#define NR_QUEUES 128 /* queue ids at or over this share the last metrics */

enum { M_SUBMIT, M_DEVICE, M_COMPLETE, NR_M };
static const char *const m_names[NR_M] = {"submit", "device", "complete"};

struct drv_row {
	uint32_t dev, hwq;
	uint64_t n, sum[NR_M];
};

struct driver_priv {
	struct metric m[NR_QUEUES][NR_M];
	char scope[NR_QUEUES][12];
	bool used[NR_QUEUES];
	struct drv_row *rows;
	size_t nr, cap;
	uint64_t incomplete; /* driver events without all three stamps */
};

static int init(struct analysis *a, struct an_output *o)
{
	struct driver_priv *p = o->priv;

	for (int q = 0; q < NR_QUEUES; q++) {
		snprintf(p->scope[q], sizeof(p->scope[q]),
			 q == NR_QUEUES - 1 ? "q%d+" : "q%d", q);
		for (int m = 0; m < NR_M; m++)
			metric_init(&p->m[q][m], p->scope[q], m_names[m], "ns",
				    a->env.keep_time);
	}
	return 0;
}

static struct drv_row *row_of(struct driver_priv *p, uint32_t dev, uint32_t hwq)
{
	for (size_t i = 0; i < p->nr; i++)
		if (p->rows[i].dev == dev && p->rows[i].hwq == hwq)
			return &p->rows[i];
	if (GROW(p->rows, p->nr + 1, p->cap))
		return NULL;
	memset(&p->rows[p->nr], 0, sizeof(p->rows[0]));
	p->rows[p->nr].dev = dev;
	p->rows[p->nr].hwq = hwq;
	return &p->rows[p->nr++];
}

static void request(struct analysis *a, void *priv, struct dev_result *d,
		    const struct join_request *r)
{
	struct driver_priv *p = priv;
	uint64_t v[NR_M];
	struct drv_row *row;
	uint32_t q;

	if (!r->drv_submit_ns && !r->drv_cqe_ns)
		return;
	/* D <= submit <= CQE <= C, or the stamps belong to no one order */
	if (!r->d_ns || !r->drv_submit_ns || !r->drv_cqe_ns ||
	    r->drv_submit_ns < r->d_ns || r->drv_cqe_ns < r->drv_submit_ns ||
	    r->c_ns < r->drv_cqe_ns) {
		p->incomplete++;
		return;
	}
	v[M_SUBMIT] = r->drv_submit_ns - r->d_ns;
	v[M_DEVICE] = r->drv_cqe_ns - r->drv_submit_ns;
	v[M_COMPLETE] = r->c_ns - r->drv_cqe_ns;
	q = r->hwq < NR_QUEUES ? r->hwq : NR_QUEUES - 1;
	p->used[q] = true;
	row = row_of(p, r->dev, r->hwq);
	if (!row) {
		analysis_note_err(a, -ENOMEM);
		return;
	}
	row->n++;
	for (int m = 0; m < NR_M; m++) {
		row->sum[m] += v[m];
		analysis_note_err(a, metric_add(&p->m[q][m], r->c_ns, v[m]));
	}
}

/* a later part's rows (new ones after, in its order) and samples */
static int merge(struct analysis *a, void *priv, const struct analysis *src,
		 void *src_priv, const size_t *devmap)
{
	struct driver_priv *p = priv, *s = src_priv;

	for (size_t i = 0; i < s->nr; i++) {
		struct drv_row *row = row_of(p, s->rows[i].dev, s->rows[i].hwq);

		if (!row)
			return -ENOMEM;
		row->n += s->rows[i].n;
		for (int m = 0; m < NR_M; m++)
			row->sum[m] += s->rows[i].sum[m];
	}
	for (int q = 0; q < NR_QUEUES; q++) {
		p->used[q] |= s->used[q];
		for (int m = 0; m < NR_M; m++)
			if (metric_take(&p->m[q][m], &s->m[q][m]))
				return -ENOMEM;
	}
	p->incomplete += s->incomplete;
	return 0;
}

#define AVG(key, head)                                                                   \
	{                                                                                \
		key, head, 11, CELL_F64, IN_ALL, 1, 1e3, 1, NULL, NULL                   \
	}
static const struct column cols[] = {
    {"device", "DEVICE", -10, CELL_STR},   {"queue", "QUEUE", 6, CELL_U64},
    {"requests", "REQUESTS", 9, CELL_U64}, AVG("submit_avg_ns", "SUBMIT_US"),
    AVG("device_avg_ns", "DEVICE_US"),	   AVG("complete_avg_ns", "COMPL_US"),
};

static int finish(struct analysis *a, struct an_output *o)
{
	struct driver_priv *p = o->priv;
	struct table *t =
	    an_output_table(a, o, "driver", cols, sizeof(cols) / sizeof(cols[0]));

	if (!t)
		return -ENOMEM;
	snprintf(t->title, sizeof(t->title),
		 "NVMe driver layer: D2C split at nvme_setup_cmd and nvme_sq, per queue");
	if (!p->nr)
		table_note(
		    t, "  no request with driver events; driver layers recorded: %s\n",
		    a->env.drivers ? a->env.drivers : "unknown");
	if (p->incomplete)
		table_note(t,
			   "  %llu requests with driver events out of order or missing "
			   "one are left out\n",
			   (unsigned long long)p->incomplete);
	for (size_t i = 0; i < p->nr; i++) {
		const struct drv_row *r = &p->rows[i];

		table_row(t);
		table_str(t, "%s", a->env.dev_name(a->env.ctx, r->dev));
		table_u64(t, r->hwq);
		table_u64(t, r->n);
		for (int m = 0; m < NR_M; m++)
			table_f64(t, (double)r->sum[m] / (double)r->n);
	}
	for (int q = 0; q < NR_QUEUES; q++) {
		if (!p->used[q])
			continue;
		for (int m = 0; m < NR_M; m++) {
			analysis_note_err(a, metric_finish(&p->m[q][m]));
			an_output_metric(a, o, &p->m[q][m]);
		}
	}
	return 0;
}

static void release(void *priv)
{
	struct driver_priv *p = priv;

	for (int q = 0; q < NR_QUEUES; q++)
		for (int m = 0; m < NR_M; m++)
			metric_release(&p->m[q][m]);
	free(p->rows);
}

const struct analyzer an_driver = {
    .name = "driver",
    .help = "the NVMe driver layer: D2C split into submit, device and complete, "
	    "per queue id",
    .metric_unit = "us",
    .priv_size = sizeof(struct driver_priv),
    .init = init,
    .request = request,
    .merge = merge,
    .finish = finish,
    .release = release,
};
