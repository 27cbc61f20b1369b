/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel stacks counted in the kernel (`iotrail callers`): symbols from
 * /proc/kallsyms, the tracing frames above the event taken off, the callers
 * ranked, and Brendan Gregg's folded format for flame graphs.
 */
#ifndef IOTRAIL_STACKS_STACKS_H
#define IOTRAIL_STACKS_STACKS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct ksym {
	uint64_t addr;
	char *name;
};

struct kallsyms {
	struct ksym *syms; /* sorted by address */
	size_t nr, cap;
	char *names; /* one block for all names */
	size_t names_len, names_cap;
};

/* Loads a kallsyms file (text symbols only). 0, or -errno with a message
 * naming the file and line in err; -EPERM when every address reads 0
 * (kptr_restrict, or not root). */
int kallsyms_load(struct kallsyms *k, const char *path, char *err, size_t errlen);
/* The symbol an address is in, or NULL; *off its offset in it. */
const struct ksym *kallsyms_find(const struct kallsyms *k, uint64_t addr, uint64_t *off);
void kallsyms_release(struct kallsyms *k);

/* One stack: frames innermost first, as the kernel gives them. */
struct stack {
	const uint64_t *ips;
	size_t depth;
	uint64_t count;
};

/* The index of the first frame below the tracing machinery (the BPF
 * program, bpf_trace_run*, __traceiter_*, __bpf_trace_*, the
 * trace_* inline caller's trampoline): the code that hit the event. */
size_t stack_first_caller(const struct kallsyms *k, const struct stack *s);

/* One folded line: "outermost;...;caller COUNT\n" (function names only). */
void stack_print_folded(FILE *f, const struct kallsyms *k, const struct stack *s);

struct caller_count {
	const char *name; /* a symbol name, or "[unknown]" */
	uint64_t count;
};
/* The distinct first callers of the stacks with their counts, most first,
 * into *out (malloc'd). Returns how many, or -ENOMEM. */
long stacks_callers(const struct kallsyms *k, const struct stack *s, size_t nr,
		    struct caller_count **out);

#endif
