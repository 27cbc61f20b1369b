/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recorder's rooms, private to src/record/ (record_run in record.c is
 * their sequence):
 *   child.c   the traced command: checked, forked stopped, released, reaped
 *   load.c    buffer sizing, loading (tp_btf, then raw_tp, then smaller
 *             buffers), filters, the mmaps
 *   drain.c   the consumer protocol and the main loop: drains, AGG chunks,
 *             in-flight reaping, progress, the final drain
 *   tables.c  META at the start; devices, tasks, drops and END at the stop
 */
#ifndef IOTRAIL_RECORD_RECORDER_H
#define IOTRAIL_RECORD_RECORDER_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "../trace/writer.h"
#include "devices.h"
#include "iotrail_btf.skel.h"
#include "record.h"
#include "../util/clock.h"
#include "files.h"
#include "marks.h"
#include "tasks.h"

/* One drain thread's share: the buffers b % nr_drainers == idx (drain.c).
 * Share 0 is the main thread's. */
#define DRAINER_SEEN 256 /* tids and files already noted, direct-mapped */
struct drainer {
	struct recorder *rc;
	uint32_t idx;
	pthread_t thread;
	struct trace_pack_room room; /* --pack: this thread's packing */
	uint32_t seen_tid[DRAINER_SEEN];
	uint64_t seen_file[DRAINER_SEEN];
	uint64_t records; /* drained by this share (IOTRAIL_DEBUG) */
	uint64_t fill;	  /* the most slots in use on a CPU of its share, this
			     round (the drain period adapts to it) */
	int err;	  /* the last round's */
};

struct recorder {
	const struct record_opts *o;
	struct iotrail_bpf *skel;
	struct trace_writer w;
	struct dev_table devs;
	struct task_table tasks;
	struct file_table files; /* paths of the inodes records name */
	struct marks marks;	 /* user markers (marks.h) */
	uint32_t nr_cpus;	 /* possible CPUs: the trace's streams, ctl */
	uint32_t nr_bufs;	 /* CPUs online at the start: buffers */
	uint32_t *cpu_buf;	 /* per possible CPU: its buffer, or IOT_NO_BUF */
	uint32_t *buf_cpu;	 /* per buffer: its CPU */
	uint32_t nr_slots;	 /* per buffer, power of two */
	struct iot_rec *buf;	 /* mmap of the "buf" map */
	size_t buf_bytes;
	struct iot_ctl *ctl; /* mmap of the "ctl" map */
	size_t ctl_bytes;
	struct iot_sum_slot *sum; /* mmap of "inflight" (--summary) */
	size_t sum_bytes;
	uint64_t *reap_key, *reap_q; /* per slot: what the last reap saw */
	uint64_t reap_age_ns;	     /* a slot's Q older than this is reaped */
	/* issued requests reaped with no completion seen: LOST summaries at
	 * the stop (--summary, back-pressure) */
	struct iot_sum_slot *reaped;
	size_t nr_reaped, cap_reaped;
	uint64_t *agg; /* mmap of "agg" (--aggregate) */
	size_t agg_bytes;
	uint32_t agg_devs;  /* device slots per CPU (aggsize) */
	uint32_t spec_nrec; /* --speculate: records per buffer */
	uint64_t *agg_prev; /* sums over CPUs at the last AGG chunk */
	/* serve --by cgroup, per slot: its key and count, and whether it was
	 * gone, at the last look (reclaim_slots); how often to look */
	struct slot_look {
		uint64_t key, count;
		bool gone;
	} * looks;
	uint64_t reclaim_ns;
	uint64_t agg_last_ns;
	uint64_t agg_lost_prev;	 /* the CPUs' agg_lost summed at the last AGG */
	uint64_t agg_unfinished; /* --aggregate: issued, not complete at the stop */
	uint64_t *written;	 /* records written per CPU */
	uint64_t *torn;		 /* slots skipped: reserved, never committed */
	/* after a write failed: per CPU, the records drained and not written
	 * and those left in the buffer (NULL while none failed) */
	uint64_t *unwritten;
	/* allocated ahead of the file's end at each drain: room for the last
	 * drain and the tables, whatever fills the file system meanwhile */
	uint64_t reserve_bytes;
	/* the file being written: -o, or under --max-files -o.TIME, one after
	 * another (the ones done in done[], the oldest first) */
	char *path;
	char **done;
	uint32_t nr_done;
	uint64_t path_ms; /* the time in path's name, ms since the epoch */
	/* the counts at the current file's start: its DROPS, DROPS_AT and END
	 * say what happened in it (NULL, 0 in the first file) */
	struct iot_drop_entry *drop_base;
	uint64_t misses_base;
	uint64_t last_mark_ns;	/* the last ROUND's mark: where a next file starts */
	uint64_t *drops_said;	/* per CPU: all its drops at the last DROPS_AT */
	uint64_t drops_read_ns; /* when the drops were read last */
	uint64_t *stuck_seq;	/* per CPU: uncommitted slot seen last drain */
	unsigned int *stuck_rounds;
	bool final_wait; /* the last drains: wait for every writer to commit */
	/* the drain threads (drain.c): each round (drain_round, under
	 * drain_lock) every share drains its CPUs, drain_pending counts the
	 * threads not done; the tables are noted under note_lock, the writer
	 * serialises the chunks */
	struct drainer *drainers;
	uint32_t nr_drainers;
	pthread_mutex_t drain_lock;
	pthread_cond_t drain_start, drain_idle;
	uint64_t drain_round;
	uint32_t drain_pending;
	bool drainers_quit;
	pthread_mutex_t note_lock;
	pid_t child;
	int go_fd;   /* write end: releases the child */
	int exec_fd; /* read end: exec errno from the child */
	int child_status;
	bool child_done;
	bool child_exited; /* by itself: child_status is the command's */
	int orig_nice;	   /* the command gets it back; the recorder runs at --nice */

	/* the loading's choices, for META */
	char variant[1024];	 /* the program chosen per tracepoint */
	char missing[512];	 /* tracepoints not traced */
	char drivers[160];	 /* driver layers recorded, or why none */
	bool drivers_lost;	 /* NVMe devices whose driver layer is not */
	const char *attach_kind; /* "tp_btf" or "raw_tp" */

	size_t tasks_written; /* tasks already in a TASKS chunk */

	/* the main loop */
	uint64_t start_ns;
	uint32_t reason; /* IOT_STOP_* */
};

/* the signal that asks the recording to stop, 0 while none came */
extern volatile sig_atomic_t record_stop_signal;

/* child.c */
bool command_exists(const char *argv0);
int start_child(struct recorder *rc);
int release_child(struct recorder *rc);
/* After the stop: the command ends (SIGTERM unless it exited) and is
 * reaped. Returns ret, or when ret is 0 and the command ended the
 * recording by failing, its status (128 + signal when killed), said. */
int finish_child(struct recorder *rc, int ret);
/* On an error before the command was released: kill and reap it. */
void kill_child(struct recorder *rc);

/* load.c */
int assign_buffers(struct recorder *rc);
uint32_t agg_slots(const struct recorder *rc);
int size_buffers(struct recorder *rc);
/* Loads the programs (tp_btf build, the raw_tp one if refused, smaller
 * buffers if the kernel cannot allocate them). 0, or the exit status
 * after saying why. */
int load_programs(struct recorder *rc);
int map_buffers(struct recorder *rc);
int setup_pids(struct recorder *rc);
size_t agg_per_cpu(const struct recorder *rc);
/* serve --by cgroup: the slots of pairs whose cgroup went away, given back
 * (drain.c) */
void reclaim_slots(struct recorder *rc);
/* "128m", "4g", "2048" */
const char *fmt_size(uint64_t bytes, char *buf, size_t len);

/* record.c */
/* --max-files: the current file ends (its tables, END reason size) and the
 * recording goes on in a new one; the oldest beyond --max-files removed.
 * 0; IOT_STOP_SPACE when no new file could be had (said: the current one
 * goes on to the stop); or -errno of a write that failed. */
int switch_output(struct recorder *rc);

/* drain.c */
/* Drains at every switch period until a stop; rc->reason says which. 0,
 * or -errno of a write that failed (reason IOT_STOP_ERROR). */
int record_loop(struct recorder *rc);
/* Stops the programs and writes what the buffers still hold. */
int final_drain(struct recorder *rc);
/* The drain threads, o->threads in all (the main thread is one of them),
 * started after the command is forked (fewer, said, when the system gives
 * fewer); stopped and joined by drainers_stop, which is safe on drainers
 * never started. 0 or -ENOMEM. */
int drainers_start(struct recorder *rc);
void drainers_stop(struct recorder *rc);
/* IOT_STOP_REASON_* when the kernel side stopped itself (fill, trigger), else 0. */
uint64_t kernel_stop(const struct recorder *rc);

/* tables.c */
/* META, then the device table as it is at the start (again at the stop,
 * with devices the command created). */
int write_meta(struct recorder *rc);
/* The tables and END at the end of a file: the recording's (last) or, at
 * --max-files' switch, the current file's (its kernel misses not said). */
int write_tables(struct recorder *rc, uint32_t reason, bool last);
/* The tasks seen since the last call, as a TASKS chunk: a recording that is
 * killed keeps the names of what it recorded. */
int write_new_tasks(struct recorder *rc);
/* Why the kernel side stopped (fill, trigger), said on stderr, and the
 * drops per CPU. */
void say_stop(const struct recorder *rc, uint32_t reason);
/* "iotrail: N drops on CPU k" for each CPU that dropped. */
void say_drops(const struct recorder *rc);
/* A CPU's records and drops since the recording began; iot_drop_total
 * sums its drops. */
static inline struct iot_drop_entry cpu_drop_total(const struct recorder *rc,
						   uint32_t cpu)
{
	return (struct iot_drop_entry){
	    .cpu = cpu,
	    .flags = (rc->cpu_buf[cpu] == IOT_NO_BUF ? IOT_DROP_NO_BUFFER : 0) |
		     (rc->unwritten && rc->unwritten[cpu] ? IOT_DROP_UNWRITTEN : 0),
	    .records = rc->written[cpu] - trace_writer_lost(&rc->w, cpu),
	    .drops_full = __atomic_load_n(&rc->ctl[cpu].drops_full, __ATOMIC_RELAXED) +
			  (rc->unwritten ? rc->unwritten[cpu] : 0),
	    .drops_torn = rc->torn[cpu],
	    .drops_nostate =
		__atomic_load_n(&rc->ctl[cpu].drops_nostate, __ATOMIC_RELAXED),
	};
}

/* The same since the current file began: what its DROPS and DROPS_AT
 * entries say (the first file's are the totals). */
static inline struct iot_drop_entry cpu_drop_entry(const struct recorder *rc,
						   uint32_t cpu)
{
	struct iot_drop_entry e = cpu_drop_total(rc, cpu);

	if (rc->drop_base) {
		const struct iot_drop_entry *b = &rc->drop_base[cpu];

		e.records -= b->records;
		e.drops_full -= b->drops_full;
		e.drops_torn -= b->drops_torn;
		e.drops_nostate -= b->drops_nostate;
	}
	return e;
}

#endif
