/* SPDX-License-Identifier: GPL-2.0 */
/* iotrail record: load, attach, drain the per-CPU buffers into a trace file. */
#ifndef IOTRAIL_RECORD_RECORD_H
#define IOTRAIL_RECORD_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "../bpf/events.h"
#include "flowdef.h"

/* A live view of --aggregate's histograms (`iotrail serve`): what another
 * thread may read while the recording runs, from record_opts.live_start
 * until live_stop returns. Reading it never blocks the recorder. */
struct record_live {
	const uint64_t *agg; /* the kernel's per-CPU histograms (mmap) */
	size_t per_cpu;	     /* u64 per CPU */
	uint32_t nr_bufs;    /* CPUs with a region in agg (online at the start) */
	uint32_t nr_cpus, agg_devs;
	const uint64_t *next_slot; /* the device slots handed out (.data) */
	/* serve --by cgroup: the slots taken back, and handed out again */
	const uint64_t *free_head, *free_tail;
	int slot_fd;		   /* the "agg_devs" map: dev_t -> slot */
	const struct iot_ctl *ctl; /* per possible CPU: drops_nostate, agg_lost */
	uint64_t start_ns;	   /* CLOCK_MONOTONIC at the attach */
};

struct iot_agg_entry;
/* The requests not in the histograms, since the start. */
struct record_live_lost {
	uint64_t no_room;	    /* the in-flight table had no room for them, or
				       their disk (and cgroup) no histogram slot */
	uint64_t completions;	    /* issued, their completion never seen (the
				       kernel ran no program for it) */
	uint32_t slots_used, slots; /* histogram slots (disks, or (disk,
				       cgroup) pairs) handed out, and kept */
};

/* Every histogram that counted something, summed over the CPUs since the
 * start, its device named by dev_t (0: system calls); *out is malloc'd,
 * and so is *cgroups (when not NULL): each entry's cgroup (--by cgroup,
 * else 0). 0 or -ENOMEM. */
int record_live_read(const struct record_live *lv, struct iot_agg_entry **out, size_t *n,
		     uint32_t **cgroups, struct record_live_lost *lost);

/* -d: the most devices and partitions one recording selects */
#define RECORD_MAX_DEVS 1024

struct record_opts {
	const char *output; /* trace file path */
	const char **devs;  /* -d arguments, at most RECORD_MAX_DEVS */
	int nr_devs;
	pid_t *pids; /* -p arguments */
	int nr_pids;
	uint64_t duration_ns;  /* 0: until COMMAND exits or a signal */
	uint64_t max_size;     /* --max-size: stop once the file is this big; 0 */
	uint32_t max_files;    /* --max-files: at max_size go on in a new file,
				  keeping this many; 0: stop there */
	uint64_t settle_ns;    /* after COMMAND exits: the most the recording
				  waits for the devices' requests in flight */
	uint64_t bufsize;      /* per-CPU buffer, bytes */
	uint64_t switch_ns;    /* drain period, the longest (switchrate) */
	uint64_t switchmax_ns; /* the shortest it shrinks to (switchmax) */
	bool summary;	       /* one record per request */
	bool pack;	       /* EVENTS_PACKED chunks (trace/pack.h) */
	bool accounting;       /* also block_io_start / block_io_done */
	bool uring;	       /* also io_uring requests (submit, complete, io-wq) */
	uint32_t policy;       /* IOT_POLICY_SWITCH, _FILL, _RING */
	int backpressure;      /* RECORD_BP_*: what a filling buffer does */
	bool bufresize_manual; /* fail rather than lower the buffer size */
	uint64_t trigger_ns;   /* ring: stop when a request Q2C reaches it */
	bool trigger_error;    /* ring: stop when a request fails */
	bool aggregate;	       /* histograms in the kernel instead of records */
	uint64_t interval_ns;  /* --aggregate: write them out this often, 0 = end */
	uint64_t aggsize;      /* --aggregate: histogram bytes per CPU, 0 = default */
	bool agg_by_cgroup;    /* --aggregate per (disk, cgroup): serve --by cgroup */
	bool agg_syscalls;     /* --aggregate --syscalls: time the I/O system calls
				  too (sys_enter/sys_exit slow every call) */
	uint64_t speculate_ns; /* --speculate: commit requests with Q2C >= it */
	uint64_t specsize;     /* bytes per speculation buffer */
	uint32_t nspec;	       /* speculation buffers */
	int nice;	       /* the recorder's own priority (the command's stays) */
	uint32_t threads;      /* drain threads, main included; 0: the default */
	char **argv;	       /* COMMAND, NULL-terminated, or NULL */
	/* --aggregate read live (serve): live_start once attached, live_stop
	 * when the recording ends, before anything is unmapped */
	void (*live_start)(void *ctx, const struct record_live *lv);
	void (*live_stop)(void *ctx);
	void *live_ctx;
	const char *cmdline; /* the options as typed, stored in META */
	/* --flow: only these flows' events (docs/FLOWS.md), at most IOT_FLOW_MAX */
	const struct flowdef *flows;
	int nr_flows;
};

/* --backpressure: a CPU whose buffer fills summarises the requests queued
 * on it for a stretch (emit.bpf.h) or drops what does not fit. AUTO is
 * SUMMARY where it applies (switch, events mode, no --flow), else DROP. */
enum { RECORD_BP_AUTO, RECORD_BP_SUMMARY, RECORD_BP_DROP };
/* whether the recording degrades to summaries under back-pressure */
bool record_degrades(const struct record_opts *o);

#define RECORD_DEFAULT_BUFSIZE (4ull << 20)
/* 50 Hz: the overhead benchmark's heaviest load (zram, ~1.5M records per
 * second per CPU) fills a 4 MB buffer in ~44 ms, so a drain every 20 ms keeps
 * it drop-free with twice the margin (bench/overhead.sh reports drops). */
#define RECORD_DEFAULT_SWITCH_NS (20ull * 1000 * 1000)
#define RECORD_DEFAULT_NICE	 (-10)
/* a request left in flight by the command: a disk's is served within a
 * second unless the disk is stuck or queued deep behind others */
#define RECORD_DEFAULT_SETTLE_NS (1000ull * 1000 * 1000)
/* The drain period adapts between switchrate and switchmax (1 kHz): halved
 * after a drain that found a CPU's buffer more than 1/8 full, doubled back
 * after one that found every buffer under 1/32 full; it starts at
 * switchmax's, so a burst at the start meets a short period. So
 * back-pressure (at half full) needs a burst that fills half a buffer
 * within the period, or a drain that takes that long. A 16-CPU machine at
 * 6-8M IOPS (zram, 4 KB reads: ~1.2 GB of records a second) had 4 MB
 * buffers over half full at a fixed 50 Hz and summarised 0.2-2M requests
 * in 3 s; at 200 Hz or adapting, a few ten thousand at most
 * (bench/bigmachine.sh). */
#define RECORD_DEFAULT_SWITCHMAX_NS (1000ull * 1000)

/* The next drain period, after a drain that found at most fill of a CPU's
 * slots in use. */
static inline uint64_t record_next_period(uint64_t period, uint64_t fill, uint64_t slots,
					  uint64_t min_ns, uint64_t max_ns)
{
	if (fill > slots / 8)
		period /= 2;
	else if (fill < slots / 32)
		period *= 2;
	return period < min_ns ? min_ns : period > max_ns ? max_ns : period;
}

/* drain threads by default: one per RECORD_CPUS_PER_DRAINER CPUs, at most
 * RECORD_MAX_DEFAULT_DRAINERS (drain.c) */
#define RECORD_CPUS_PER_DRAINER	    4u
#define RECORD_MAX_DEFAULT_DRAINERS 8u
#define RECORD_MAX_DRAINERS	    256u
/* --speculate: 16 records hold a request's Q G I D C with room for
 * requeues; 4096 buffers cover the deepest queues seen here (4 MB) */
#define RECORD_DEFAULT_SPECSIZE (16u * IOT_REC_SIZE)
#define RECORD_DEFAULT_NSPEC	4096u
/* --aggregate: device slots by default (slot 0 is system calls), at least */
#define RECORD_AGG_DEVS 16u
/* serve --by cgroup: how often a pair whose cgroup went away is looked
 * for (it gives its slot back at the second look: reclaim_slots) */
#define RECORD_RECLAIM_NS 10000000000ull
/* Allocated ahead of the trace's end beside twice the buffers: the tables
 * (tasks, files, cgroups, drops) of a busy machine's recording */
#define RECORD_RESERVE_BYTES (4ull << 20)
/* serve --by cgroup: slots for (disk, cgroup) pairs, slot 0 included
 * (serve --slots sets another count) */
#define RECORD_AGG_CGROUP_SLOTS 256u /* 1.5 MB a CPU: the 64 of before took 1.6 */
/* --aggregate: bytes per CPU of a device slot's histograms (3 ops x 6
 * metrics), of slot 0's (the system calls'), and of n slots, slot 0
 * included (the kernel's layout: bpf/events.h, iot_agg_hist) */
#define RECORD_AGG_DEV_BYTES                                                             \
	((uint64_t)IOT_AGG_HISTS_PER_DEV * IOT_AGG_KHIST * sizeof(uint64_t))
#define RECORD_AGG_SYS_BYTES                                                             \
	((uint64_t)IOT_AGG_SYSCALLS * IOT_AGG_KHIST * sizeof(uint64_t))
#define RECORD_AGG_BYTES(n)                                                              \
	(RECORD_AGG_SYS_BYTES + ((uint64_t)(n)-1) * RECORD_AGG_DEV_BYTES)

/* Runs a recording; returns the process exit status (0 on success). */
int record_run(const struct record_opts *o);

#endif
