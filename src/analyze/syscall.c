// SPDX-License-Identifier: GPL-2.0
/* syscall: enter to exit of each I/O system call, by kind (syscalls.h). */
#include "analyzer.h"

/* preadv2 and pwritev2 by RWF_* flag (include/uapi/linux/fs.h): a call
 * counts once for each flag it had */
#define NR_RWF 8
static const char *const rwf_names[2][NR_RWF] = {
    {"preadv2+hipri", "preadv2+dsync", "preadv2+sync", "preadv2+nowait", "preadv2+append",
     "preadv2+noappend", "preadv2+atomic", "preadv2+dontcache"},
    {"pwritev2+hipri", "pwritev2+dsync", "pwritev2+sync", "pwritev2+nowait",
     "pwritev2+append", "pwritev2+noappend", "pwritev2+atomic", "pwritev2+dontcache"},
};

struct syscall_priv {
	struct metric m[NR_SYSCALL_KINDS];
	struct metric rwf[2][NR_RWF];
};

static int init(struct analysis *a, struct an_output *o)
{
	struct syscall_priv *p = o->priv;

	for (int k = 0; k < NR_SYSCALL_KINDS; k++)
		metric_init(&p->m[k], "syscall", syscall_kind_names[k], "ns",
			    a->env.keep_time);
	for (int w = 0; w < 2; w++)
		for (int f = 0; f < NR_RWF; f++)
			metric_init(&p->rwf[w][f], "syscall", rwf_names[w][f], "ns",
				    a->env.keep_time);
	return 0;
}

static void syscall(struct analysis *a, void *priv, const struct join_syscall *s)
{
	struct syscall_priv *p = priv;
	int k = analysis_syscall_kind(a, s->nr);

	if (k >= 0)
		analysis_note_err(
		    a, metric_add(&p->m[k], s->exit_ns, s->exit_ns - s->enter_ns));
	if ((k == SK_PREADV2 || k == SK_PWRITEV2) && s->rwf)
		for (int f = 0; f < NR_RWF; f++)
			if (s->rwf >> f & 1)
				analysis_note_err(
				    a, metric_add(&p->rwf[k == SK_PWRITEV2][f],
						  s->exit_ns, s->exit_ns - s->enter_ns));
}

static void agg(struct analysis *a, void *priv, const struct iot_agg_entry *e)
{
	struct syscall_priv *p = priv;

	if (e->metric >= IOT_AGG_SYSCALL &&
	    e->metric - IOT_AGG_SYSCALL < NR_SYSCALL_KINDS)
		metric_add_hist(&p->m[e->metric - IOT_AGG_SYSCALL], e->buckets, e->sum);
}

static int merge(struct analysis *a, void *priv, const struct analysis *src,
		 void *src_priv, const size_t *devmap)
{
	struct syscall_priv *p = priv, *s = src_priv;
	int err = 0;

	for (int k = 0; k < NR_SYSCALL_KINDS && !err; k++)
		err = metric_take(&p->m[k], &s->m[k]);
	for (int w = 0; w < 2 && !err; w++)
		for (int f = 0; f < NR_RWF && !err; f++)
			err = metric_take(&p->rwf[w][f], &s->rwf[w][f]);
	return err;
}

static int finish(struct analysis *a, struct an_output *o)
{
	struct syscall_priv *p = o->priv;

	for (int k = 0; k < NR_SYSCALL_KINDS; k++)
		an_output_metric(a, o, &p->m[k]);
	for (int w = 0; w < 2; w++)
		for (int f = 0; f < NR_RWF; f++)
			if (p->rwf[w][f].n)
				an_output_metric(a, o, &p->rwf[w][f]);
	return 0;
}

static void release(void *priv)
{
	struct syscall_priv *p = priv;

	for (int k = 0; k < NR_SYSCALL_KINDS; k++)
		metric_release(&p->m[k]);
	for (int w = 0; w < 2; w++)
		for (int f = 0; f < NR_RWF; f++)
			metric_release(&p->rwf[w][f]);
}

const struct analyzer an_syscall = {
    .name = "syscall",
    .help = "enter to exit of each I/O system call, by kind",
    .priv_size = sizeof(struct syscall_priv),
    .metric_unit = "us",
    .init = init,
    .syscall = syscall,
    .agg = agg,
    .merge = merge,
    .finish = finish,
    .release = release,
};
