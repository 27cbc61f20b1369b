// SPDX-License-Identifier: GPL-2.0
/* Kernel stacks: symbols, callers, folded lines (stacks.h). */
#include "stacks.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/grow.h"

static int cmp_addr(const void *x, const void *y)
{
	const struct ksym *a = x, *b = y;

	return (a->addr > b->addr) - (a->addr < b->addr);
}

int kallsyms_load(struct kallsyms *k, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char line[512];
	unsigned int lineno = 0;
	size_t nonzero = 0;

	memset(k, 0, sizeof(*k));
	if (!f) {
		int e = errno;

		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long long addr;
		char type, name[256];
		size_t len;

		lineno++;
		/* "ffffffff81000000 T _stext [module]" */
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3) {
			snprintf(err, errlen, "%s:%u: not \"ADDRESS TYPE NAME\"", path,
				 lineno);
			fclose(f);
			kallsyms_release(k);
			return -EINVAL;
		}
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue; /* data: no code runs there */
		len = strlen(name) + 1;
		if (GROW(k->syms, k->nr + 1, k->cap) ||
		    GROW(k->names, k->names_len + len, k->names_cap)) {
			fclose(f);
			kallsyms_release(k);
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		memcpy(k->names + k->names_len, name, len);
		/* an offset for now: the block may still move */
		k->syms[k->nr].addr = addr;
		k->syms[k->nr].name = (char *)(uintptr_t)k->names_len;
		k->names_len += len;
		k->nr++;
		nonzero += addr != 0;
	}
	fclose(f);
	if (k->nr && !nonzero) {
		snprintf(err, errlen,
			 "%s: every address reads 0 (kernel.kptr_restrict, or not root)",
			 path);
		kallsyms_release(k);
		return -EPERM;
	}
	for (size_t i = 0; i < k->nr; i++)
		k->syms[i].name = k->names + (uintptr_t)k->syms[i].name;
	qsort(k->syms, k->nr, sizeof(*k->syms), cmp_addr);
	return 0;
}

const struct ksym *kallsyms_find(const struct kallsyms *k, uint64_t addr, uint64_t *off)
{
	size_t lo = 0, hi = k->nr;

	while (lo < hi) { /* the first symbol above addr */
		size_t mid = lo + (hi - lo) / 2;

		if (k->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	if (off)
		*off = addr - k->syms[lo - 1].addr;
	return &k->syms[lo - 1];
}

void kallsyms_release(struct kallsyms *k)
{
	free(k->syms);
	free(k->names);
	memset(k, 0, sizeof(*k));
}

static const char *name_of(const struct kallsyms *k, uint64_t ip)
{
	const struct ksym *s = kallsyms_find(k, ip, NULL);

	return s ? s->name : "[unknown]";
}

/* the frames that are the event's delivery, not its cause */
static int tracing_frame(const char *n)
{
	return !strncmp(n, "bpf_prog_", 9) || !strncmp(n, "bpf_trace_run", 13) ||
	       !strncmp(n, "__bpf_trace_", 12) || !strncmp(n, "__traceiter_", 12) ||
	       !strncmp(n, "__probestub_", 12) || !strcmp(n, "bpf_dispatcher_xdp_func");
}

size_t stack_first_caller(const struct kallsyms *k, const struct stack *s)
{
	size_t last = 0; /* the deepest tracing frame + 1 */

	/* the tracing frames are the innermost few; look no deeper than 8 */
	for (size_t i = 0; i < s->depth && i < 8; i++)
		if (tracing_frame(name_of(k, s->ips[i])))
			last = i + 1;
	return last < s->depth ? last : 0;
}

void stack_print_folded(FILE *f, const struct kallsyms *k, const struct stack *s)
{
	size_t first = stack_first_caller(k, s);

	for (size_t i = s->depth; i-- > first;)
		fprintf(f, "%s%s", name_of(k, s->ips[i]), i > first ? ";" : "");
	fprintf(f, " %llu\n", (unsigned long long)s->count);
}

static int cmp_count(const void *x, const void *y)
{
	const struct caller_count *a = x, *b = y;

	if (a->count != b->count)
		return a->count < b->count ? 1 : -1;
	return strcmp(a->name, b->name);
}

long stacks_callers(const struct kallsyms *k, const struct stack *s, size_t nr,
		    struct caller_count **out)
{
	struct caller_count *c = NULL;
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < nr; i++) {
		const char *name =
		    s[i].depth ? name_of(k, s[i].ips[stack_first_caller(k, &s[i])])
			       : "[unknown]";
		size_t j;

		for (j = 0; j < n && c[j].name != name && strcmp(c[j].name, name); j++)
			;
		if (j == n) {
			if (GROW(c, n + 1, cap)) {
				free(c);
				return -ENOMEM;
			}
			c[n++] = (struct caller_count){name, 0};
		}
		c[j].count += s[i].count;
	}
	if (n)
		qsort(c, n, sizeof(*c), cmp_count);
	*out = c;
	return (long)n;
}
