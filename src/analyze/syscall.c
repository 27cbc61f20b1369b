// SPDX-License-Identifier: GPL-2.0
/* syscall: enter to exit of each I/O system call, by kind (syscalls.h). */
#include "analyzer.h"

struct syscall_priv {
	struct metric m[NR_SYSCALL_KINDS];
};

static int init(struct analysis *a, struct an_output *o)
{
	struct syscall_priv *p = o->priv;

	for (int k = 0; k < NR_SYSCALL_KINDS; k++)
		metric_init(&p->m[k], "syscall", syscall_kind_names[k], "ns",
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
}

static void agg(struct analysis *a, void *priv, const struct iot_agg_entry *e)
{
	struct syscall_priv *p = priv;

	if (e->metric >= IOT_AGG_SYSCALL &&
	    e->metric - IOT_AGG_SYSCALL < NR_SYSCALL_KINDS)
		metric_add_hist(&p->m[e->metric - IOT_AGG_SYSCALL], e->buckets, e->sum);
}

static int finish(struct analysis *a, struct an_output *o)
{
	struct syscall_priv *p = o->priv;

	for (int k = 0; k < NR_SYSCALL_KINDS; k++)
		an_output_metric(a, o, &p->m[k]);
	return 0;
}

static void release(void *priv)
{
	struct syscall_priv *p = priv;

	for (int k = 0; k < NR_SYSCALL_KINDS; k++)
		metric_release(&p->m[k]);
}

const struct analyzer an_syscall = {
    .name = "syscall",
    .help = "enter to exit of each I/O system call, by kind",
    .priv_size = sizeof(struct syscall_priv),
    .metric_unit = "us",
    .init = init,
    .syscall = syscall,
    .agg = agg,
    .finish = finish,
    .release = release,
};
