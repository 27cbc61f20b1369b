// SPDX-License-Identifier: GPL-2.0
/* correlate: read syscall time against bio and scheduler time (correlate.h). */
#include "correlate.h"

#include "analyzer.h"

static void syscall(struct analysis *a, void *priv, const struct join_syscall *s)
{
	struct correlate_priv *p = priv;
	uint64_t us, bio;
	struct corr_bucket *c;
	int k;

	if (!s->nr_bios_done || !analysis_syscall_is_read(a, s->nr))
		return;
	us = (s->exit_ns - s->enter_ns) / 1000;
	bio = s->bio_q2c_sum_ns / s->nr_bios_done;
	k = us ? 63 - __builtin_clzll(us) : 0;
	c = &p->b[k];
	if (!c->syscalls || bio < c->bio_min_ns)
		c->bio_min_ns = bio;
	if (bio > c->bio_max_ns)
		c->bio_max_ns = bio;
	c->bio_sum_ns += bio;
	c->syscalls++;
	if (s->nr_i2d) {
		uint64_t elv = s->i2d_sum_ns / s->nr_i2d;

		if (!c->elv_n || elv < c->elv_min_ns)
			c->elv_min_ns = elv;
		if (elv > c->elv_max_ns)
			c->elv_max_ns = elv;
		c->elv_sum_ns += elv;
		c->elv_n++;
	}
}

static int merge(struct analysis *a, void *priv, const struct analysis *src,
		 void *src_priv, const size_t *devmap)
{
	struct correlate_priv *p = priv;
	const struct correlate_priv *s = src_priv;

	for (int k = 0; k < LOG2_SLOTS; k++) {
		struct corr_bucket *c = &p->b[k];
		const struct corr_bucket *x = &s->b[k];

		if (x->syscalls) {
			if (!c->syscalls || x->bio_min_ns < c->bio_min_ns)
				c->bio_min_ns = x->bio_min_ns;
			if (x->bio_max_ns > c->bio_max_ns)
				c->bio_max_ns = x->bio_max_ns;
			c->bio_sum_ns += x->bio_sum_ns;
			c->syscalls += x->syscalls;
		}
		if (x->elv_n) {
			if (!c->elv_n || x->elv_min_ns < c->elv_min_ns)
				c->elv_min_ns = x->elv_min_ns;
			if (x->elv_max_ns > c->elv_max_ns)
				c->elv_max_ns = x->elv_max_ns;
			c->elv_sum_ns += x->elv_sum_ns;
			c->elv_n += x->elv_n;
		}
	}
	return 0;
}

#define US(key, head)                                                                    \
	{                                                                                \
		key, head, 10, CELL_U64, 0, 0, 1e3, 1, NULL, NULL                        \
	}
static const struct column cols[] = {
    {"syscall_us", "SYSCALL_US", -18, CELL_STR, IN_PEOPLE},
    {"syscall_low_us", "", 0, CELL_U64, IN_PROGRAMS},
    {"syscall_high_us", "", 0, CELL_U64, IN_PROGRAMS},
    {"syscalls", "SYSCALLS", 9, CELL_U64},
    US("bio_avg_ns", "BIO_AVG"),
    US("bio_min_ns", "BIO_MIN"),
    US("bio_max_ns", "BIO_MAX"),
    US("elv_avg_ns", "ELV_AVG"),
    US("elv_min_ns", "ELV_MIN"),
    US("elv_max_ns", "ELV_MAX"),
};

static int finish(struct analysis *a, struct an_output *o)
{
	const struct correlate_priv *p = o->priv;
	struct table *t =
	    an_output_table(a, o, "correlation", cols, sizeof(cols) / sizeof(cols[0]));

	if (!t)
		return -ENOMEM;
	snprintf(t->title, sizeof(t->title),
		 "read syscall time against the bio time (Q2C) and scheduler time "
		 "(I2D) of its bios");
	for (int k = 0; k < LOG2_SLOTS; k++) {
		const struct corr_bucket *c = &p->b[k];
		uint64_t lo = k ? 1ull << k : 0, hi = (2ull << k) - 1;

		if (!c->syscalls)
			continue;
		table_row(t);
		table_str(t, "%llu -> %llu", (unsigned long long)lo,
			  (unsigned long long)hi);
		table_u64(t, lo);
		table_u64(t, hi);
		table_u64(t, c->syscalls);
		table_u64(t, c->bio_sum_ns / c->syscalls);
		table_u64(t, c->bio_min_ns);
		table_u64(t, c->bio_max_ns);
		table_u64(t, c->elv_n ? c->elv_sum_ns / c->elv_n : 0);
		table_u64(t, c->elv_min_ns);
		table_u64(t, c->elv_max_ns);
	}
	return 0;
}

const struct analyzer an_correlate = {
    .name = "correlate",
    .help = "read syscall time against the bio and scheduler time of its bios "
	    "(seed 000, figures 3-10 and 3-11)",
    .priv_size = sizeof(struct correlate_priv),
    .syscall = syscall,
    .merge = merge,
    .finish = finish,
};
