/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Chooses, per tracepoint, which BPF program variant fits the running
 * kernel, by counting the arguments of btf_trace_<tracepoint> in its BTF.
 *
 * Per tracepoint:
 *   1. the layout the programs read (Linux >= 5.11: no request_queue
 *      argument; src/bpf/shims.bpf.h), or for sched_process_exit the older
 *      one-argument layout, which the same program reads;
 *   2. else not traced: the tracepoint is missing or has a layout the
 *      programs would read wrong (older kernels); named on stderr and in the
 *      trace's META "missing=" line.
 */
#ifndef IOTRAIL_RECORD_PROBE_H
#define IOTRAIL_RECORD_PROBE_H

#include <stdbool.h>
#include <stddef.h>

struct iotrail_bpf;

struct probe_opts {
	bool summary;	   /* --summary */
	bool pid_filter;   /* -p or COMMAND */
	bool dev_filter;   /* -d: plug/unplug carry no device to filter on */
	bool accounting;   /* --accounting: block_io_start/done too */
	bool uring;	   /* --uring: io_uring_submit_req/complete too */
	bool aggregate;	   /* --aggregate: the --summary set */
	bool agg_syscalls; /* --aggregate --syscalls: and sys_enter/sys_exit */
	bool speculate;	   /* --speculate: the per-event block set, no plug,
			      unplug or syscalls (they belong to no request) */
};

/* Sets autoload on every program. Writes "name:variant,..." into variant
 * and the tracepoints not traced into missing. 0 or -errno (no BTF). */
int probe_plan(struct iotrail_bpf *skel, const struct probe_opts *po, char *variant,
	       size_t vlen, char *missing, size_t mlen);

/* The driver layers (docs/DRIVER.md): sets autoload on the NVMe programs,
 * loaded where nvme_core's tracepoints exist and per-event tracing is on.
 * Writes "nvme" into drivers, or "none" and why. Returns whether NVMe
 * devices exist whose driver layer goes unrecorded (worth saying). */
bool probe_drivers(struct iotrail_bpf *skel, const struct probe_opts *po, char *drivers,
		   size_t dlen);

#endif
