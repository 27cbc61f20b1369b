// SPDX-License-Identifier: GPL-2.0
/*
 * iotrail callers: who hits a tracepoint, by kernel stack, counted in the
 * kernel (src/record/callers.c), symbolized from /proc/kallsyms
 * (src/stacks/): the top callers and stacks, or folded stacks for flame
 * graphs (the SystemTap callers post of seed 001, done with BPF).
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../record/callers.h"
#include "../stacks/stacks.h"
#include "../util/parse.h"
#include "cli.h"

static void callers_usage(FILE *f)
{
	fprintf(
	    f, "usage: iotrail callers -e EVENT [--top N] [--folded] [--duration TIME]\n"
	       "                       [-- COMMAND ...]\n"
	       "\n"
	       "  -e, --event EVENT     a tracepoint: block:block_rq_insert, "
	       "sched:sched_switch\n"
	       "                        (the name after the colon is what attaches)\n"
	       "      --top N           callers and stacks to show (default 10)\n"
	       "      --folded          one line per stack, outermost frame first, then\n"
	       "                        its count: flamegraph.pl's input\n"
	       "  -D, --duration TIME   stop after TIME (10s, 500ms); without it and\n"
	       "                        without COMMAND, at Ctrl-C\n"
	       "  COMMAND               count while it runs (every task's hits: the\n"
	       "                        kernel threads its I/O wakes count too)\n");
}

static int cmp_stack(const void *x, const void *y)
{
	const struct stack *a = x, *b = y;

	return (a->count < b->count) - (a->count > b->count);
}

static void print_text(const struct callers_result *r, const struct kallsyms *k,
		       const char *event, size_t top)
{
	struct caller_count *c = NULL;
	long n = stacks_callers(k, r->stacks, r->nr, &c);
	uint64_t total = 0;

	for (size_t i = 0; i < r->nr; i++)
		total += r->stacks[i].count;
	printf("# %s: %llu hits, %zu distinct kernel stacks", event,
	       (unsigned long long)r->hits, r->nr);
	if (r->lost_stacks || r->lost_counts)
		printf(", %llu hits without a stack (the stack or count map was full)",
		       (unsigned long long)(r->lost_stacks + r->lost_counts));
	printf("\n\n%-44s %10s %7s\n", "CALLER", "COUNT", "%");
	for (long i = 0; i < n && (size_t)i < top; i++)
		printf("%-44s %10llu %6.1f%%\n", c[i].name,
		       (unsigned long long)c[i].count,
		       total ? 100.0 * (double)c[i].count / (double)total : 0.0);
	free(c);
	printf("\nThe %zu most frequent stacks (innermost first):\n",
	       top < r->nr ? top : r->nr);
	for (size_t i = 0; i < r->nr && i < top; i++) {
		const struct stack *s = &r->stacks[i];

		printf("\n  %llu (%.1f%%)\n", (unsigned long long)s->count,
		       total ? 100.0 * (double)s->count / (double)total : 0.0);
		for (size_t f = stack_first_caller(k, s); f < s->depth; f++) {
			uint64_t off = 0;
			const struct ksym *sym = kallsyms_find(k, s->ips[f], &off);

			if (sym)
				printf("    %s+0x%llx\n", sym->name,
				       (unsigned long long)off);
			else
				printf("    [unknown] 0x%llx\n",
				       (unsigned long long)s->ips[f]);
		}
	}
}

int cmd_callers(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"event", required_argument, NULL, 'e'},
	    {"top", required_argument, NULL, 't'},
	    {"folded", no_argument, NULL, 'F'},
	    {"duration", required_argument, NULL, 'D'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct callers_opts o = {0};
	struct callers_result r;
	struct kallsyms k;
	uint64_t top = 10;
	bool folded = false;
	char err[256];
	int c, ret;

	while ((c = getopt_long(argc, argv, "+e:D:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			o.event = optarg;
			break;
		case 't':
			if (parse_count(optarg, &top) || !top)
				return usage_error("--top %s: not a positive count",
						   optarg);
			break;
		case 'F':
			folded = true;
			break;
		case 'D':
			if (parse_time(optarg, &o.duration_ns) || !o.duration_ns)
				return usage_error(
				    "--duration %s: not a time (10s, 500ms)", optarg);
			break;
		case 'h':
			callers_usage(stdout);
			return 0;
		default:
			callers_usage(stderr);
			return 2;
		}
	}
	if (!o.event || !*o.event)
		return usage_error("callers: -e EVENT is needed (block:block_rq_insert)");
	if (optind < argc)
		o.argv = argv + optind;
	/* symbols first: no point counting what cannot be named */
	ret = kallsyms_load(&k, "/proc/kallsyms", err, sizeof(err));
	if (ret) {
		fprintf(stderr, "iotrail: %s\n", err);
		return 1;
	}
	ret = callers_run(&o, &r, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "iotrail: %s\n", err);
		kallsyms_release(&k);
		return ret;
	}
	qsort(r.stacks, r.nr, sizeof(*r.stacks), cmp_stack);
	if (folded)
		for (size_t i = 0; i < r.nr; i++)
			stack_print_folded(stdout, &k, &r.stacks[i]);
	else
		print_text(&r, &k, o.event, top);
	ret = r.command_status > 0 && r.command_status < 128 ? r.command_status : 0;
	callers_result_release(&r);
	kallsyms_release(&k);
	return ret;
}
