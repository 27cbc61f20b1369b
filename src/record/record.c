// SPDX-License-Identifier: GPL-2.0
/*
 * The recorder: checks what it was asked, sizes the buffers, loads the BPF
 * programs, starts the traced command, and drains the per-CPU buffers into
 * the trace file at every switch period until the command exits, the
 * duration passes, a signal arrives or the kernel side stops (fill,
 * trigger). Whatever stops it, the file ends with its tables and END
 * chunk. record_run() is the sequence; each step lives in its room
 * (recorder.h): child.c, load.c, drain.c, tables.c.
 */
#include "record.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <libgen.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "../util/parse.h"
#include "recorder.h"
#include "spec.h"

volatile sig_atomic_t record_stop_signal;

static void on_signal(int sig)
{
	record_stop_signal = sig;
}

/* Only to wake the main loop's sleep: the command's exit is seen at once. */
static void on_child(int sig)
{
	(void)sig;
}

/* What needs nothing loaded: the command, the processes, the CPUs, the
 * buffer size, the devices. 0, or the exit status after saying why. */
static int check_and_size(struct recorder *rc)
{
	const struct record_opts *o = rc->o;
	char msg[512];
	int ncpu, ret, err;

	if (o->argv && !command_exists(o->argv[0])) {
		fprintf(stderr, "iotrail: %s: command not found\n", o->argv[0]);
		return 127;
	}
	for (int i = 0; i < o->nr_pids; i++) {
		if (kill(o->pids[i], 0) && errno == ESRCH) {
			fprintf(stderr, "iotrail: -p %d: no such process\n", o->pids[i]);
			return 2;
		}
	}
	if (geteuid() != 0) {
		/* CAP_BPF + CAP_PERFMON would do; say what is missing first */
		fprintf(stderr, "iotrail: recording needs root (or CAP_BPF, CAP_PERFMON "
				"and CAP_SYS_RESOURCE); trying anyway\n");
	}
	ncpu = libbpf_num_possible_cpus();
	if (ncpu <= 0) {
		fprintf(stderr, "iotrail: cannot count CPUs: %s\n", strerror(-ncpu));
		return 1;
	}
	if (ncpu > (int)IOT_MAX_CPUS) {
		fprintf(stderr,
			"iotrail: %d possible CPUs (/sys/devices/system/cpu/possible); "
			"iotrail records at most %u\n",
			ncpu, IOT_MAX_CPUS);
		return 1;
	}
	rc->nr_cpus = ncpu;
	ret = assign_buffers(rc);
	if (ret)
		return ret;
	rc->spec_nrec = (uint32_t)(o->specsize / IOT_REC_SIZE);
	ret = size_buffers(rc);
	if (ret)
		return ret;
	err = devtab_scan(&rc->devs);
	if (err) {
		fprintf(stderr, "iotrail: /sys/class/block: %s\n", strerror(-err));
		return 1;
	}
	rc->written = calloc(ncpu, sizeof(uint64_t));
	rc->torn = calloc(ncpu, sizeof(uint64_t));
	rc->drops_said = calloc(ncpu, sizeof(uint64_t));
	rc->stuck_seq = calloc(ncpu, sizeof(uint64_t));
	rc->stuck_rounds = calloc(ncpu, sizeof(unsigned int));
	rc->reap_key = calloc((size_t)IOT_SUM_SETS * IOT_SUM_WAYS, sizeof(uint64_t));
	rc->reap_q = calloc((size_t)IOT_SUM_SETS * IOT_SUM_WAYS, sizeof(uint64_t));
	if (!rc->written || !rc->torn || !rc->drops_said || !rc->stuck_seq ||
	    !rc->stuck_rounds || !rc->reap_key || !rc->reap_q) {
		fprintf(stderr, "iotrail: out of memory\n");
		return 1;
	}
	/* how long a slot may wait for its completion; shorter for tests */
	rc->reap_age_ns = 60000000000ull;
	if (getenv("IOTRAIL_REAP_AGE") &&
	    parse_time(getenv("IOTRAIL_REAP_AGE"), &rc->reap_age_ns)) {
		fprintf(stderr, "iotrail: IOTRAIL_REAP_AGE=%s: not a time (try 60s)\n",
			getenv("IOTRAIL_REAP_AGE"));
		return 2;
	}
	rc->reclaim_ns = RECORD_RECLAIM_NS;
	if (getenv("IOTRAIL_RECLAIM") &&
	    (parse_time(getenv("IOTRAIL_RECLAIM"), &rc->reclaim_ns) || !rc->reclaim_ns)) {
		fprintf(stderr, "iotrail: IOTRAIL_RECLAIM=%s: not a time (try 10s)\n",
			getenv("IOTRAIL_RECLAIM"));
		return 2;
	}
	/* every -d must name a device before anything is loaded */
	for (int i = 0; i < o->nr_devs; i++) {
		if (!devtab_resolve(&rc->devs, o->devs[i], msg, sizeof(msg))) {
			fprintf(stderr, "iotrail: %s\n", msg);
			return 2;
		}
	}
	/* aggsize, or (per cgroup) 255 (disk, cgroup) pairs, or the disks */
	rc->agg_devs = o->agg_by_cgroup ? RECORD_AGG_CGROUP_SLOTS : agg_slots(rc);
	if (o->aggsize) { /* (at least RECORD_AGG_BYTES(2): the option's check) */
		uint64_t n =
		    1 + (o->aggsize - RECORD_AGG_SYS_BYTES) / RECORD_AGG_DEV_BYTES;

		rc->agg_devs = n < IOT_AGG_DEVS ? (uint32_t)n : IOT_AGG_DEVS;
	}
	return 0;
}

/*
 * A recorder that is late loses records: under a load that keeps every CPU
 * busy a drain at normal priority was seen preempted for 87 ms, longer than
 * a 4 MB buffer lasts (bench/policies.sh). Like perf record -r, it raises
 * its own priority; the command keeps its own.
 */
static void raise_priority(struct recorder *rc)
{
	errno = 0;
	rc->orig_nice = getpriority(PRIO_PROCESS, 0);
	if (rc->o->nice != rc->orig_nice && setpriority(PRIO_PROCESS, 0, rc->o->nice))
		fprintf(stderr, "iotrail: --nice %d: %s; recording at %d\n", rc->o->nice,
			strerror(errno), rc->orig_nice);
}

static void say_no_room(const struct recorder *rc, const char *path, int err,
			const char *what)
{
	fprintf(stderr,
		"iotrail: %s: %s: no room for the %.0f MB a recording keeps ahead "
		"for its last drain and tables (-b smaller, or another file "
		"system); %s\n",
		path, strerror(-err), rc->reserve_bytes / 1048576.0, what);
}

/* Whether path's file system has the reserve free, counting the blocks
 * of the file it replaces: asked before that file is truncated, so that a
 * start refused for want of room leaves it as it was. */
static bool room_for_reserve(const struct recorder *rc, const char *path)
{
	char *dir = strdup(path);
	struct statvfs sv;
	struct stat st;
	uint64_t avail;
	bool known;

	if (!dir)
		return true;
	known = !statvfs(dirname(dir), &sv);
	free(dir);
	if (!known) /* the open says why */
		return true;
	avail = (uint64_t)sv.f_bavail * sv.f_frsize;
	if (!stat(path, &st) && S_ISREG(st.st_mode))
		avail += (uint64_t)st.st_blocks * 512;
	return avail >= rc->reserve_bytes;
}

/* A new trace file at path, its header saying it starts at start_mono
 * (CLOCK_MONOTONIC), its room kept (reserve_bytes): 0, or -errno after
 * saying why; the file is then removed, or untouched when the room was
 * found missing before it was opened. A NULL path: a writer that keeps
 * nothing (serve without -o). */
static int open_file(struct recorder *rc, struct trace_writer *w, const char *path,
		     uint64_t start_mono)
{
	struct iot_file_header hdr = {.magic = IOT_MAGIC};
	uint64_t mono = now_ns(CLOCK_MONOTONIC);
	int err;

	if (path && !room_for_reserve(rc, path)) {
		say_no_room(rc, path, -ENOSPC, "nothing recorded, the file untouched");
		return -ENOSPC;
	}
	hdr.header_size = sizeof(hdr);
	hdr.version_major = IOT_VERSION_MAJOR;
	hdr.version_minor = rc->o->pack ? IOT_VERSION_MINOR : IOT_VERSION_MINOR_UNPACKED;
	hdr.rec_size = IOT_REC_SIZE;
	hdr.nr_cpus = rc->nr_cpus;
	hdr.clock_id = CLOCK_MONOTONIC;
	hdr.start_realtime_ns = now_ns(CLOCK_REALTIME) - (mono - start_mono);
	hdr.start_mono_ns = start_mono;
	err = trace_writer_open(w, path, &hdr);
	if (err == -EBUSY) {
		fprintf(stderr, "iotrail: %s: another recorder is writing it\n", path);
		return err;
	}
	if (err) {
		fprintf(stderr, "iotrail: %s: %s\n", path, strerror(-err));
		return err;
	}
	if (!path)
		return 0;
	if (getenv("IOTRAIL_NO_RESERVE")) /* tests: as where it cannot be had */
		w->no_reserve = true;
	/* a quota, the file size limit: known only by asking */
	err = trace_writer_reserve(w, rc->reserve_bytes);
	if (err) {
		say_no_room(rc, path, err, "nothing recorded");
		trace_writer_close(w);
		unlink(path);
	}
	return err;
}

/* --max-files: -o.YYYYmmddHHMMSSmmm, the time of the file's start (later
 * than the last one's by a millisecond at least: names sort as they were
 * written, and none is taken twice) */
static char *next_path(struct recorder *rc)
{
	uint64_t ms = now_ns(CLOCK_REALTIME) / 1000000;
	char stamp[32], *p;
	time_t t;
	struct tm tm;

	if (ms <= rc->path_ms)
		ms = rc->path_ms + 1;
	rc->path_ms = ms;
	t = (time_t)(ms / 1000);
	localtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d%H%M%S", &tm);
	return asprintf(&p, "%s.%s%03u", rc->o->output, stamp, (unsigned)(ms % 1000)) < 0
		   ? NULL
		   : p;
}

/* The output file, last: a failed set-up must not truncate it. */
static int open_output(struct recorder *rc)
{
	int err;

	/* whatever fills the file system later, the last drain and the
	 * tables have their blocks (drain.c looks again at every drain):
	 * twice what the buffers hold, as a drain may just have written
	 * that much when the next look fails (--aggregate: the histograms;
	 * its buffers hold no records) */
	rc->reserve_bytes =
	    2 * ((rc->o->aggregate ? 0 : (uint64_t)rc->buf_bytes) + rc->agg_bytes) +
	    RECORD_RESERVE_BYTES;
	rc->path = rc->o->max_files ? next_path(rc)
		   : rc->o->output  ? strdup(rc->o->output)
				    : NULL;
	if (!rc->path && rc->o->output) {
		fprintf(stderr, "iotrail: out of memory\n");
		return -ENOMEM;
	}
	err = open_file(rc, &rc->w, rc->path, now_ns(CLOCK_MONOTONIC));
	if (!err && (err = write_meta(rc))) {
		fprintf(stderr, "iotrail: %s: %s\n", rc->path, strerror(-err));
		trace_writer_close(&rc->w);
		if (rc->path)
			unlink(rc->path);
	}
	return err;
}

/* Keeps the newest --max-files files, the current one among them. */
static void prune_done(struct recorder *rc)
{
	while (rc->nr_done && rc->nr_done + 1 > rc->o->max_files) {
		if (unlink(rc->done[0]) && errno != ENOENT)
			fprintf(stderr, "iotrail: %s: %s; left\n", rc->done[0],
				strerror(errno));
		free(rc->done[0]);
		memmove(rc->done, rc->done + 1, --rc->nr_done * sizeof(*rc->done));
	}
}

int switch_output(struct recorder *rc)
{
	struct trace_writer nw;
	char *path = next_path(rc), **done;
	uint64_t start = rc->last_mark_ns;
	int err, cerr;

	done = realloc(rc->done, (rc->nr_done + 1) * sizeof(*done));
	if (!path || !done) {
		free(path);
		if (done)
			rc->done = done;
		fprintf(stderr, "iotrail: out of memory: tracing stopped\n");
		return IOT_STOP_SPACE;
	}
	rc->done = done;
	if (!rc->drop_base &&
	    !(rc->drop_base = calloc(rc->nr_cpus, sizeof(*rc->drop_base)))) {
		free(path);
		fprintf(stderr, "iotrail: out of memory: tracing stopped\n");
		return IOT_STOP_SPACE;
	}
	/* the next file first: without it, this one goes on to the stop,
	 * its blocks for that kept */
	if (open_file(rc, &nw, path, start)) {
		fprintf(stderr, "iotrail: %s: tracing stopped, in %s\n", path, rc->path);
		free(path);
		return IOT_STOP_SPACE;
	}
	/* this one ends with its tables; not synced (the next drain must
	 * not wait for the disk): the kernel writes it back */
	err = write_tables(rc, IOT_STOP_SIZE, false);
	if (!err)
		err = trace_writer_flush(&rc->w);
	rc->w.no_sync = true;
	cerr = trace_writer_close(&rc->w);
	if (err || cerr)
		fprintf(stderr, "iotrail: %s: %s: its tables not written whole\n",
			rc->path, strerror(-(err ?: cerr)));
	rc->w = nw;
	pthread_mutex_init(&rc->w.lock, NULL);
	rc->done[rc->nr_done++] = rc->path;
	rc->path = path;
	if (isatty(STDERR_FILENO))
		fprintf(stderr, "\riotrail: %s done, now %s\n", rc->done[rc->nr_done - 1],
			path);
	/* what the new file says counts from here */
	for (uint32_t cpu = 0; cpu < rc->nr_cpus; cpu++) {
		rc->drop_base[cpu] = cpu_drop_total(rc, cpu);
		rc->drops_said[cpu] = 0;
	}
	rc->tasks_written = 0;
	prune_done(rc);
	err = write_meta(rc);
	return err ? err : write_new_tasks(rc);
}

/* After a write failed: what each CPU lost, counted as drops, said. */
static void count_unwritten(struct recorder *rc)
{
	uint64_t lost = 0, left = 0;

	rc->unwritten = calloc(rc->nr_cpus, sizeof(*rc->unwritten));
	if (!rc->unwritten)
		return;
	for (uint32_t cpu = 0; cpu < rc->nr_cpus; cpu++) {
		uint64_t l = trace_writer_lost(&rc->w, cpu), b = 0;

		if (rc->cpu_buf[cpu] != IOT_NO_BUF)
			b = __atomic_load_n(&rc->ctl[cpu].head, __ATOMIC_ACQUIRE) -
			    rc->ctl[cpu].tail;
		rc->unwritten[cpu] = l + b;
		lost += l;
		left += b;
	}
	if (lost)
		fprintf(stderr,
			"iotrail: %s: %llu records cut off with what followed the "
			"file's last whole chunk; counted as drops\n",
			rc->path, (unsigned long long)lost);
	if (left)
		fprintf(stderr,
			"iotrail: %s: %llu records left in the buffers, not written; "
			"counted as drops\n",
			rc->path, (unsigned long long)left);
}

static void release(struct recorder *rc)
{
	drainers_stop(rc);
	if (rc->buf)
		munmap(rc->buf, rc->buf_bytes);
	if (rc->ctl)
		munmap(rc->ctl, rc->ctl_bytes);
	if (rc->sum)
		munmap(rc->sum, rc->sum_bytes);
	if (rc->agg)
		munmap(rc->agg, rc->agg_bytes);
	free(rc->agg_prev);
	free(rc->looks);
	iotrail_bpf__destroy(rc->skel);
	devtab_release(&rc->devs);
	task_table_release(&rc->tasks);
	file_table_release(&rc->files);
	marks_release(&rc->marks);
	free(rc->cpu_buf);
	free(rc->buf_cpu);
	free(rc->written);
	free(rc->torn);
	free(rc->drops_said);
	free(rc->stuck_seq);
	free(rc->stuck_rounds);
	free(rc->reap_key);
	free(rc->reap_q);
	free(rc->path);
	for (uint32_t i = 0; i < rc->nr_done; i++)
		free(rc->done[i]);
	free(rc->done);
	free(rc->drop_base);
	free(rc->unwritten);
	free(rc->reaped);
}

bool record_degrades(const struct record_opts *o)
{
	bool applies = o->policy == IOT_POLICY_SWITCH && !o->summary && !o->aggregate &&
		       !o->speculate_ns && !o->nr_flows;

	return applies && o->backpressure != RECORD_BP_DROP;
}

int record_run(const struct record_opts *o)
{
	struct recorder rc = {
	    .o = o, .go_fd = -1, .exec_fd = -1, .reason = IOT_STOP_SIGNAL};
	struct sigaction sa = {.sa_handler = on_signal};
	bool opened = false, live = false;
	int err = 0, ret;

	if (file_table_init(&rc.files, &rc.devs)) {
		fprintf(stderr, "iotrail: out of memory\n");
		return 1;
	}
	ret = check_and_size(&rc);
	if (!ret)
		ret = load_programs(&rc);
	if (ret)
		goto cleanup;
	ret = 1;
	if ((err = map_buffers(&rc))) {
		fprintf(stderr, "iotrail: could not map buffers: %s\n", strerror(-err));
		goto cleanup;
	}
	if (o->speculate_ns &&
	    (err = spec_fill_free(rc.skel->maps.spec_free, o->nspec))) {
		fprintf(stderr, "iotrail: speculation buffers: %s\n", strerror(-err));
		goto cleanup;
	}
	raise_priority(&rc);
	if ((err = marks_init(&rc.marks, o->argv != NULL))) {
		fprintf(stderr, "iotrail: markers directory: %s\n", strerror(-err));
		goto cleanup;
	}
	if (o->argv && (err = start_child(&rc))) {
		fprintf(stderr, "iotrail: fork: %s\n", strerror(-err));
		goto cleanup;
	}
	if ((err = setup_pids(&rc))) {
		fprintf(stderr, "iotrail: process filter: %s\n", strerror(-err));
		goto cleanup;
	}
	/* past the file size limit a write fails (EFBIG) instead of the
	 * recorder being killed; the command, forked already, keeps SIGXFSZ */
	signal(SIGXFSZ, SIG_IGN);
	if ((err = open_output(&rc)))
		goto cleanup;
	opened = true;
	if ((err = drainers_start(&rc))) {
		fprintf(stderr, "iotrail: drain threads: %s\n", strerror(-err));
		goto cleanup;
	}
	if ((err = iotrail_bpf__attach(rc.skel))) {
		fprintf(stderr, "iotrail: could not attach: %s\n", strerror(-err));
		goto cleanup;
	}
	/* every program at once: no event type starts before another */
	__atomic_store_n(&rc.skel->bss->armed, 1, __ATOMIC_RELEASE);
	/* every signal that ends a process by default ends the recording
	 * the same way, END chunk included (SIGPIPE: a closed terminal or
	 * pipe on stderr) */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	sigaction(SIGPIPE, &sa, NULL);
	if (o->argv) {
		/* SA_RESTART: only a sleep is cut short (nanosleep never
		 * restarts); the drain threads block every signal */
		struct sigaction sc = {.sa_handler = on_child,
				       .sa_flags = SA_RESTART | SA_NOCLDSTOP};

		sigaction(SIGCHLD, &sc, NULL);
	}
	rc.start_ns = now_ns(CLOCK_MONOTONIC);
	rc.drops_read_ns = rc.start_ns;
	ret = 0;
	if (o->live_start) {
		struct record_live lv = {
		    .agg = rc.agg,
		    .per_cpu = agg_per_cpu(&rc),
		    .nr_bufs = rc.nr_bufs,
		    .nr_cpus = rc.nr_cpus,
		    .agg_devs = rc.agg_devs,
		    .next_slot = (const uint64_t *)&rc.skel->data->agg_next_slot,
		    .free_head = (const uint64_t *)&rc.skel->bss->agg_free_head,
		    .free_tail = (const uint64_t *)&rc.skel->bss->agg_free_tail,
		    .slot_fd = bpf_map__fd(rc.skel->maps.agg_devs),
		    .ctl = rc.ctl,
		    .start_ns = rc.start_ns,
		};

		o->live_start(o->live_ctx, &lv);
		live = true;
	}
	if (o->argv && (err = release_child(&rc))) {
		fprintf(stderr, "iotrail: %s: %s\n", o->argv[0], strerror(-err));
		rc.reason = IOT_STOP_ERROR;
		ret = 127;
	} else if ((err = record_loop(&rc))) {
		ret = 1;
	}
	if (live) /* nothing read the mappings from here on */
		o->live_stop(o->live_ctx);
	live = false;
	if (rc.reason != IOT_STOP_ERROR || !err) {
		if (final_drain(&rc))
			ret = 1;
	} else {
		__atomic_store_n(&rc.skel->bss->armed, 0, __ATOMIC_RELEASE);
		iotrail_bpf__detach(rc.skel);
	}
	if (rc.w.failed)
		count_unwritten(&rc);
	if (rc.reason == IOT_STOP_SPACE)
		ret = 1;
	say_stop(&rc, rc.reason);
	/* flushed here: a failure is said as the tables' */
	if ((err = write_tables(&rc, rc.reason, true)) ||
	    (err = trace_writer_flush(&rc.w))) {
		if (rc.w.failed && rc.reason == IOT_STOP_ERROR)
			fprintf(stderr,
				"iotrail: %s: %s: no room for the closing tables "
				"either; the trace ends at its last whole chunk "
				"(read as cut short)\n",
				rc.path, strerror(-err));
		else
			fprintf(stderr, "iotrail: %s: %s\n", rc.path, strerror(-err));
		ret = 1;
	}
	say_drops(&rc);
	ret = finish_child(&rc, ret);
cleanup:
	if (live)
		o->live_stop(o->live_ctx);
	if (err && ret == 0)
		ret = 1;
	kill_child(&rc);
	if (opened && (err = trace_writer_close(&rc.w))) {
		fprintf(stderr, "iotrail: %s: %s\n", rc.path, strerror(-err));
		ret = 1;
	}
	if (opened && o->max_files) {
		fprintf(stderr, "iotrail: the recording is in %u file%s:", rc.nr_done + 1,
			rc.nr_done ? "s" : "");
		for (uint32_t i = 0; i < rc.nr_done; i++)
			fprintf(stderr, " %s", rc.done[i]);
		fprintf(stderr, " %s\n", rc.path);
	}
	release(&rc);
	return ret;
}
