/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `iotrail callers`' kernel side: one raw tracepoint program on any
 * tracepoint, kernel stacks counted in the kernel (src/bpf/callers.bpf.c),
 * for the life of a command, a duration, or until Ctrl-C.
 */
#ifndef IOTRAIL_RECORD_CALLERS_H
#define IOTRAIL_RECORD_CALLERS_H

#include <stdint.h>

#include "../stacks/stacks.h"

struct callers_opts {
	const char *event;    /* "block:block_rq_insert" or "block_rq_insert" */
	char *const *argv;    /* the command, or NULL */
	uint64_t duration_ns; /* 0: the command's life, or until Ctrl-C */
};

struct callers_result {
	struct stack *stacks;
	size_t nr;
	uint64_t *ips; /* every stack's frames, one block */
	uint64_t hits, lost_stacks, lost_counts;
	int command_status; /* the command's exit status, -1 none */
};

/* 0, or non-zero with a message in err (the event or command named). */
int callers_run(const struct callers_opts *o, struct callers_result *r, char *err,
		size_t errlen);
void callers_result_release(struct callers_result *r);

#endif
