// SPDX-License-Identifier: GPL-2.0
/* `iotrail callers`: load, attach, wait, read the counts (callers.h). */
#include "callers.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "callers.skel.h"
#include "bpflog.h"
#include "live.h"

#define MAX_DEPTH 127 /* as in callers.bpf.c */

static int read_counts(struct callers_bpf *skel, struct callers_result *r)
{
	int cfd = bpf_map__fd(skel->maps.counts), sfd = bpf_map__fd(skel->maps.stacks);
	__u32 key, next, *prev = NULL;
	size_t cap = 0;

	while (!bpf_map_get_next_key(cfd, prev, &next)) {
		uint64_t count, ips[MAX_DEPTH];
		size_t depth = 0;

		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(cfd, &key, &count))
			continue;
		memset(ips, 0, sizeof(ips));
		if (bpf_map_lookup_elem(sfd, &key, ips)) {
			r->lost_stacks += count; /* replaced meanwhile */
			continue;
		}
		while (depth < MAX_DEPTH && ips[depth])
			depth++;
		if (r->nr == cap) {
			size_t ncap = cap ? cap * 2 : 256;
			struct stack *s = realloc(r->stacks, ncap * sizeof(*s));
			uint64_t *b = realloc(r->ips, ncap * MAX_DEPTH * sizeof(*b));

			if (s)
				r->stacks = s;
			if (b)
				r->ips = b;
			if (!s || !b)
				return -ENOMEM;
			cap = ncap;
		}
		memcpy(r->ips + r->nr * MAX_DEPTH, ips, depth * sizeof(*ips));
		r->stacks[r->nr++] = (struct stack){NULL, depth, count};
	}
	for (size_t i = 0; i < r->nr; i++) /* the block no longer moves */
		r->stacks[i].ips = r->ips + i * MAX_DEPTH;
	return 0;
}

int callers_run(const struct callers_opts *o, struct callers_result *r, char *err,
		size_t errlen)
{
	const char *name = strchr(o->event, ':') ? strchr(o->event, ':') + 1 : o->event;
	struct live_child child = {-1, -1};
	struct callers_bpf *skel;
	struct bpf_link *link;
	uint64_t elapsed;
	int ret;

	memset(r, 0, sizeof(*r));
	r->command_status = -1;
	bpflog_quiet();
	skel = callers_bpf__open();
	if (!skel) {
		snprintf(err, errlen, "cannot open the BPF object: %s", strerror(errno));
		return 1;
	}
	skel->rodata->cfg_self_tgid = (__u32)getpid();
	ret = callers_bpf__load(skel);
	if (ret) {
		char why[256];

		snprintf(err, errlen, "cannot load the BPF program: %s",
			 bpflog_why(ret, why, sizeof(why)));
		callers_bpf__destroy(skel);
		return 1;
	}
	link = bpf_program__attach_raw_tracepoint(skel->progs.on_event, name);
	if (!link) {
		snprintf(err, errlen, "-e %s: no tracepoint %s here (%s)", o->event, name,
			 strerror(errno));
		callers_bpf__destroy(skel);
		return 2;
	}
	if (o->argv && (ret = live_spawn(&child, o->argv))) {
		snprintf(err, errlen, "fork: %s", strerror(-ret));
		bpf_link__destroy(link);
		callers_bpf__destroy(skel);
		return 1;
	}
	r->command_status = live_wait(o->argv ? &child : NULL, o->duration_ns, &elapsed);
	bpf_link__destroy(link);
	r->hits = skel->bss->hits;
	r->lost_stacks = skel->bss->lost_stacks;
	r->lost_counts = skel->bss->lost_counts;
	ret = read_counts(skel, r);
	callers_bpf__destroy(skel);
	if (ret) {
		snprintf(err, errlen, "out of memory");
		return 1;
	}
	if (r->command_status == 127) {
		snprintf(err, errlen, "%s: the command could not run", o->argv[0]);
		return 1;
	}
	return 0;
}

void callers_result_release(struct callers_result *r)
{
	free(r->stacks);
	free(r->ips);
	memset(r, 0, sizeof(*r));
}
