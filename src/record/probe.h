/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Chooses, per tracepoint, which BPF program variant fits the running
 * kernel, by counting the arguments of btf_trace_<tracepoint> in its BTF.
 *
 * Fallback order, per tracepoint:
 *   1. the current layout (no request_queue argument, Linux >= 5.11)
 *   2. the *_q layout with a leading struct request_queue * (older kernels)
 *   3. not traced: the tracepoint is missing or has a layout we do not know;
 *      named on stderr and in the trace's META "missing=" line.
 */
#ifndef IOTRAIL_RECORD_PROBE_H
#define IOTRAIL_RECORD_PROBE_H

#include <stdbool.h>
#include <stddef.h>

struct iotrail_bpf;

/* Sets autoload on every program. summary: --summary mode; pid_filter: -p
 * or COMMAND given. Writes "name:variant,..." into variant and the missing
 * tracepoints into missing. 0 or -errno (no kernel BTF). */
int probe_plan(struct iotrail_bpf *skel, bool summary, bool pid_filter,
	       char *variant, size_t vlen, char *missing, size_t mlen);

#endif
