/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What user space fixes before load (const volatile: the verifier prunes
 * what a mode does not use), and the modes they select.
 */
#ifndef IOTRAIL_CONFIG_BPF_H
#define IOTRAIL_CONFIG_BPF_H

#include "devfilter.h"

const volatile __u32 cfg_self_tgid = 0;	     /* never trace the recorder itself */
const volatile bool cfg_filter_pids = false; /* syscalls: only tgids in "pids" */
const volatile bool cfg_summary = false;     /* one record per request */
/* --trigger (ring): stop when a request's Q2C reaches this, or it fails */
const volatile __u64 cfg_trigger_ns = 0;
const volatile bool cfg_trigger_error = false;
#define TRIGGER_ON (cfg_trigger_ns || cfg_trigger_error)
const volatile bool cfg_aggregate = false; /* histograms in the kernel only */
/* --aggregate per (disk, cgroup) (`iotrail serve --by cgroup`): the bio's
 * blkcg is kept in the in-flight slot, in place of the task */
const volatile bool cfg_agg_cgroup = false;
const volatile bool cfg_uring = false; /* --uring: io_uring requests */
/* the in-flight slot table serves --summary, --aggregate and --trigger */
#define STATE_ON (cfg_summary || cfg_aggregate)
/* --speculate: a request's records wait in a speculation buffer until its
 * completion commits them (Q2C >= cfg_spec_ns, or an error) or drops them */
const volatile bool cfg_speculate = false;
const volatile __u64 cfg_spec_ns = 0;
const volatile __u32 cfg_spec_nrec = 16; /* records per speculation buffer */
#define SPEC_ON cfg_speculate

/* Device filter (-d), fixed before load so it costs no map lookup: the
 * sector ranges [start, end) selected, as devfilter.h searches them. */
const volatile __u32 cfg_nr_devs = 0; /* 0: every device */
const volatile __u32 cfg_dev[IOT_MAX_FILTER_DEVS] = {};
const volatile __u64 cfg_dev_start[IOT_MAX_FILTER_DEVS] = {};
const volatile __u64 cfg_dev_end[IOT_MAX_FILTER_DEVS] = {};

#endif /* IOTRAIL_CONFIG_BPF_H */
