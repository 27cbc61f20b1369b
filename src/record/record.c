// SPDX-License-Identifier: GPL-2.0
/*
 * The recorder: opens and loads the BPF skeleton, sets filters, starts the
 * traced command, and drains the per-CPU buffers into the trace file at every
 * switch period until the command exits, the duration passes or a signal
 * arrives. Whatever stops it, the file ends with its tables and END chunk.
 *
 * Consumer protocol, per CPU and per drain (producer side: emit.bpf.h):
 *   1. head = load-acquire(ctl.head); s = tail
 *   2. while s < head and slot[s].seq == s: s++   (committed records)
 *   3. write slots [tail, s) as one EVENTS chunk (two pieces if it wraps)
 *   4. store-release(ctl.tail, s): the slots are the producer's again
 * After all CPUs: a ROUND chunk with the time read before step 1 of the
 * first CPU (the merge barrier of reader.c).
 */
#include "record.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "../trace/writer.h"
#include "devices.h"
#include "iotrail_btf.skel.h"
#include "probe.h"
#include "skel.h"
#include "spec.h"
#include "tasks.h"

struct recorder {
	const struct record_opts *o;
	struct iotrail_bpf *skel;
	struct trace_writer w;
	struct dev_table devs;
	struct task_table tasks;
	uint32_t nr_cpus;
	uint32_t nr_slots;   /* per CPU, power of two */
	struct iot_rec *buf; /* mmap of the "buf" map */
	size_t buf_bytes;
	struct iot_ctl *ctl; /* mmap of the "ctl" map */
	size_t ctl_bytes;
	struct iot_sum_slot *sum; /* mmap of "inflight" (--summary) */
	size_t sum_bytes;
	uint64_t *reap_key, *reap_q; /* per slot: what the last reap saw */
	uint64_t *agg;		     /* mmap of "agg" (--aggregate) */
	size_t agg_bytes;
	uint32_t agg_devs;  /* device slots per CPU (aggsize) */
	uint32_t spec_nrec; /* --speculate: records per buffer */
	uint64_t *agg_prev; /* sums over CPUs at the last AGG chunk */
	uint64_t agg_last_ns;
	uint64_t *written;   /* records written per CPU */
	uint64_t *torn;	     /* slots skipped: reserved, never committed */
	uint64_t *stuck_seq; /* per CPU: uncommitted slot seen last drain */
	unsigned int *stuck_rounds;
	pid_t child;
	int go_fd;   /* write end: releases the child */
	int exec_fd; /* read end: exec errno from the child */
	int child_status;
	bool child_done;
	int orig_nice; /* the command gets it back; the recorder runs at --nice */
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/* libbpf's warnings and info only under IOTRAIL_DEBUG, never its debug */
	if (level == LIBBPF_DEBUG || !getenv("IOTRAIL_DEBUG"))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* Is argv0 something execvp can run? Checked before anything is set up, so
 * a typo costs nothing. */
static bool command_exists(const char *argv0)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];

	if (strchr(argv0, '/'))
		return access(argv0, X_OK) == 0;
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, path, argv0);
		if (access(buf, X_OK) == 0)
			return true;
		path += n + (path[n] == ':');
	}
	return false;
}

/* Fork the command stopped at a pipe; it runs once the probes are attached. */
static int start_child(struct recorder *rc)
{
	int go[2] = {-1, -1}, ex[2] = {-1, -1};
	char c;
	int e;

	if (pipe2(go, O_CLOEXEC) || pipe2(ex, O_CLOEXEC))
		return -errno;
	rc->child = fork();
	if (rc->child < 0)
		return -errno;
	if (rc->child == 0) {
		close(go[1]);
		close(ex[0]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		/* the command runs at the priority iotrail was started with */
		setpriority(PRIO_PROCESS, 0, rc->orig_nice);
		execvp(rc->o->argv[0], rc->o->argv);
		e = errno;
		if (write(ex[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(ex[1]);
	rc->go_fd = go[1];
	rc->exec_fd = ex[0];
	return 0;
}

static int release_child(struct recorder *rc)
{
	int e = 0;
	ssize_t n;

	if (write(rc->go_fd, "g", 1) != 1)
		return -errno;
	close(rc->go_fd);
	rc->go_fd = -1;
	n = read(rc->exec_fd, &e, sizeof(e)); /* EOF: exec succeeded */
	close(rc->exec_fd);
	rc->exec_fd = -1;
	return n == sizeof(e) ? -e : 0;
}

static int write_meta(struct recorder *rc, const char *variant, const char *missing,
		      const char *attach_kind)
{
	char meta[4096], host[256] = "";
	struct utsname u;
	int n;

	uname(&u);
	gethostname(host, sizeof(host) - 1);
	n = snprintf(meta, sizeof(meta),
		     "tool=iotrail\nhost=%s\nkernel=%s %s\narch=%s\n"
		     "cmdline=%s\nmode=%s\nspeculate_ns=%llu\nbufpolicy=%s\nbufresize=%"
		     "s\nbufsize=%llu\n"
		     "switch_ns=%llu\nattach=%s\nvariant=%s\nmissing=%s\n",
		     host, u.sysname, u.release, u.machine,
		     rc->o->cmdline ? rc->o->cmdline : "",
		     rc->o->aggregate ? "aggregate"
		     : rc->o->summary ? "summary"
				      : "events",
		     (unsigned long long)rc->o->speculate_ns,
		     rc->o->policy == IOT_POLICY_FILL	? "fill"
		     : rc->o->policy == IOT_POLICY_RING ? "ring"
							: "switch",
		     rc->o->bufresize_manual ? "manual" : "auto",
		     (unsigned long long)rc->nr_slots * IOT_REC_SIZE,
		     (unsigned long long)rc->o->switch_ns, attach_kind, variant, missing);
	if (n >= (int)sizeof(meta) - 8)
		n = sizeof(meta) - 8;
	while (n % 8) /* keep every later record 8-byte aligned in the file */
		meta[n++] = '\n';
	return trace_writer_chunk(&rc->w, IOT_CHUNK_META, 0, meta, n, NULL, 0);
}

static void note_tasks(struct recorder *rc, const struct iot_rec *r, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		if (r[i].type == IOT_EV_SUMMARY) {
			const struct iot_summary *s = (const void *)&r[i];

			task_table_note(&rc->tasks, 0, s->tid);
		} else if (r[i].tid) {
			task_table_note(&rc->tasks, r[i].pid, r[i].tid);
		}
	}
}

/* One CPU; see the consumer protocol at the top of the file. */
static int drain_cpu(struct recorder *rc, uint32_t cpu)
{
	struct iot_ctl *c = &rc->ctl[cpu];
	struct iot_rec *base = rc->buf + (size_t)cpu * rc->nr_slots;
	uint64_t mask = rc->nr_slots - 1;
	uint64_t tail = c->tail, s = tail;
	uint64_t head = __atomic_load_n(&c->head, __ATOMIC_ACQUIRE);
	uint64_t n, first, wrap;
	int err;

	while (s < head) {
		if (__atomic_load_n(&base[s & mask].seq, __ATOMIC_ACQUIRE) == s) {
			s++;
			continue;
		}
		/* A reserved slot not committed across several drains while
		 * later ones are: its writer is gone; skip it, counted. */
		if (rc->stuck_seq[cpu] == s && ++rc->stuck_rounds[cpu] > 5) {
			if (s > tail)
				break; /* write what precedes it first */
			rc->torn[cpu]++;
			s = tail = s + 1;
			rc->stuck_rounds[cpu] = 0;
			continue;
		}
		if (rc->stuck_seq[cpu] != s) {
			rc->stuck_seq[cpu] = s;
			rc->stuck_rounds[cpu] = 0;
		}
		break;
	}
	n = s - tail;
	if (n) {
		first = tail & mask;
		wrap = first + n > rc->nr_slots ? first + n - rc->nr_slots : 0;
		note_tasks(rc, base + first, n - wrap);
		if (wrap)
			note_tasks(rc, base, wrap);
		err = trace_writer_chunk(&rc->w, IOT_CHUNK_EVENTS, cpu, base + first,
					 (n - wrap) * IOT_REC_SIZE, wrap ? base : NULL,
					 wrap * IOT_REC_SIZE);
		if (err)
			return err;
		rc->written[cpu] += n;
	}
	__atomic_store_n(&c->tail, s, __ATOMIC_RELEASE);
	return 0;
}

static int drain_all(struct recorder *rc)
{
	struct iot_round rd = {.mark_ns = now_ns(CLOCK_MONOTONIC)};
	int err;

	for (uint32_t cpu = 0; cpu < rc->nr_cpus; cpu++) {
		err = drain_cpu(rc, cpu);
		if (err)
			return err;
	}
	return trace_writer_chunk(&rc->w, IOT_CHUNK_ROUND, 0, &rd, sizeof(rd), NULL, 0);
}

/*
 * bufpolicy=ring: nothing is written while recording. At the stop, after the
 * programs are detached, each CPU's buffer holds its newest records; they
 * are written oldest first (slots whose sequence number is not the expected
 * one were being overwritten at the stop and are left out), then one ROUND.
 */
static int drain_ring(struct recorder *rc)
{
	struct iot_round rd = {.mark_ns = UINT64_MAX};
	uint64_t mask = rc->nr_slots - 1;
	struct iot_rec *out;
	int err = 0;

	out = malloc((size_t)rc->nr_slots * sizeof(*out));
	if (!out)
		return -ENOMEM;
	for (uint32_t cpu = 0; cpu < rc->nr_cpus && !err; cpu++) {
		struct iot_rec *base = rc->buf + (size_t)cpu * rc->nr_slots;
		uint64_t head = __atomic_load_n(&rc->ctl[cpu].head, __ATOMIC_ACQUIRE);
		uint64_t n = 0;

		for (uint64_t s = head > rc->nr_slots ? head - rc->nr_slots : 0; s < head;
		     s++)
			if (__atomic_load_n(&base[s & mask].seq, __ATOMIC_ACQUIRE) == s)
				out[n++] = base[s & mask];
		note_tasks(rc, out, n);
		if (n)
			err = trace_writer_chunk(&rc->w, IOT_CHUNK_EVENTS, cpu, out,
						 n * IOT_REC_SIZE, NULL, 0);
		rc->written[cpu] += n;
	}
	free(out);
	if (!err)
		err = trace_writer_chunk(&rc->w, IOT_CHUNK_ROUND, 0, &rd, sizeof(rd),
					 NULL, 0);
	return err;
}

/* The kernel side's stop state (fill full, ring trigger), or 0. */
static uint64_t kernel_stop(const struct recorder *rc)
{
	return __atomic_load_n(&rc->skel->bss->stop.reason, __ATOMIC_ACQUIRE);
}

static int exited_lookup(void *ctx, uint32_t tid, uint32_t *pid, uint64_t *cgroup_id,
			 char comm[16])
{
	struct recorder *rc = ctx;
	struct {
		uint32_t tgid, pad;
		uint64_t cgroup_id;
		char comm[16];
	} ti;

	if (bpf_map__lookup_elem(rc->skel->maps.exited, &tid, sizeof(tid), &ti,
				 sizeof(ti), 0))
		return -ENOENT;
	*pid = ti.tgid;
	*cgroup_id = ti.cgroup_id;
	memcpy(comm, ti.comm, 16);
	return 0;
}

/*
 * Events the kernel did not let a program see: a program already running on
 * a CPU is not entered again from a nested context (an interrupt completing
 * another request inside a completion), and the kernel only counts it, per
 * program (bpf_prog_info.recursion_misses). Summed here, named per program
 * in `names`, so such losses are never silent.
 */
static uint64_t kernel_misses(const struct recorder *rc, char *names, size_t len)
{
	struct bpf_program *prog;
	uint64_t total = 0;
	size_t n = 0;

	names[0] = 0;
	bpf_object__for_each_program(prog, rc->skel->obj)
	{
		struct bpf_prog_info info = {};
		__u32 ilen = sizeof(info);
		int fd = bpf_program__fd(prog);

		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &ilen) ||
		    !info.recursion_misses)
			continue;
		total += info.recursion_misses;
		if (n < len)
			n += snprintf(names + n, len - n, "%s%s %llu", n ? ", " : "",
				      bpf_program__name(prog),
				      (unsigned long long)info.recursion_misses);
	}
	return total;
}

static int write_tables(struct recorder *rc, uint32_t reason)
{
	char missed[256];
	struct iot_drop_entry *d;
	struct iot_end end = {
	    .end_mono_ns = now_ns(CLOCK_MONOTONIC),
	    .reason = reason,
	    .command_status = rc->child > 0 && rc->child_done ? rc->child_status : -1,
	};

	end.kernel_misses = kernel_misses(rc, missed, sizeof(missed));
	if (end.kernel_misses)
		fprintf(stderr,
			"iotrail: %llu events missed by the kernel (a program is not "
			"entered again from a nested interrupt): %s\n",
			(unsigned long long)end.kernel_misses, missed);
	int err;

	devtab_scan(&rc->devs); /* devices the command created */
	task_table_finish(&rc->tasks, exited_lookup, rc);
	err = trace_writer_chunk(&rc->w, IOT_CHUNK_DEVICES, 0, rc->devs.e,
				 rc->devs.n * sizeof(*rc->devs.e), NULL, 0);
	if (!err)
		err = trace_writer_chunk(&rc->w, IOT_CHUNK_TASKS, 0, rc->tasks.e,
					 rc->tasks.n * sizeof(*rc->tasks.e), NULL, 0);
	d = calloc(rc->nr_cpus, sizeof(*d));
	if (!d)
		return -ENOMEM;
	for (uint32_t cpu = 0; cpu < rc->nr_cpus; cpu++) {
		d[cpu].cpu = cpu;
		d[cpu].records = rc->written[cpu];
		d[cpu].drops_full = rc->ctl[cpu].drops_full;
		d[cpu].drops_torn = rc->torn[cpu];
		d[cpu].drops_nostate = rc->ctl[cpu].drops_nostate;
	}
	if (!err)
		err = trace_writer_chunk(&rc->w, IOT_CHUNK_DROPS, 0, d,
					 rc->nr_cpus * sizeof(*d), NULL, 0);
	free(d);
	if (!err && rc->o->speculate_ns) {
		struct iot_spec_info si = {
		    .threshold_ns = rc->o->speculate_ns,
		    .nspec = rc->o->nspec,
		    .specsize = rc->spec_nrec * IOT_REC_SIZE,
		};

		spec_summarize(rc->ctl, rc->nr_cpus, &si);
		err = trace_writer_chunk(&rc->w, IOT_CHUNK_SPEC, 0, &si, sizeof(si), NULL,
					 0);
	}
	if (!err && kernel_stop(rc))
		err = trace_writer_chunk(&rc->w, IOT_CHUNK_STOP, 0, &rc->skel->bss->stop,
					 sizeof(rc->skel->bss->stop), NULL, 0);
	if (!err)
		err = trace_writer_chunk(&rc->w, IOT_CHUNK_END, 0, &end, sizeof(end),
					 NULL, 0);
	return err;
}

/* -d: the disks and sector ranges, into the programs' constants (before
 * load). A partition selects its disk's sectors inside it. */
static int config_devs(struct recorder *rc, char *msg, size_t msglen)
{
	const struct record_opts *o = rc->o;
	typeof(rc->skel->rodata) ro = rc->skel->rodata;

	if (o->nr_devs > (int)(sizeof(ro->cfg_dev) / sizeof(ro->cfg_dev[0]))) {
		snprintf(msg, msglen, "-d: at most %zu devices",
			 sizeof(ro->cfg_dev) / sizeof(ro->cfg_dev[0]));
		return -ERANGE;
	}
	for (int i = 0; i < o->nr_devs; i++) {
		struct iot_dev_entry *e =
		    devtab_resolve(&rc->devs, o->devs[i], msg, msglen);

		if (!e)
			return -ENODEV;
		e->flags |= IOT_DEV_FILTERED;
		ro->cfg_dev[i] = e->disk_dev;
		ro->cfg_dev_start[i] = e->start_sector;
		ro->cfg_dev_end[i] = (e->flags & IOT_DEV_PARTITION)
					 ? e->start_sector + e->nr_sectors
					 : UINT64_MAX;
	}
	ro->cfg_nr_devs = o->nr_devs;
	return 0;
}

/* -p and COMMAND: the processes whose syscalls are traced (after load). */
static int setup_pids(struct recorder *rc)
{
	const struct record_opts *o = rc->o;
	uint8_t one = 1;

	for (int i = 0; i < o->nr_pids; i++) {
		uint32_t pid = o->pids[i];

		if (bpf_map__update_elem(rc->skel->maps.pids, &pid, sizeof(pid), &one, 1,
					 BPF_ANY))
			return -errno;
	}
	if (rc->child > 0) {
		uint32_t pid = rc->child;

		if (bpf_map__update_elem(rc->skel->maps.pids, &pid, sizeof(pid), &one, 1,
					 BPF_ANY))
			return -errno;
	}
	return 0;
}

/*
 * Opens, configures and loads one build of the programs. Tried first with
 * the tp_btf build, then with the raw_tp build if the kernel refuses it.
 */
static int open_and_load(struct recorder *rc, struct iotrail_bpf *(*open)(void),
			 char *variant, size_t vlen, char *missing, size_t mlen,
			 char *msg, size_t msglen)
{
	const struct record_opts *o = rc->o;
	struct probe_opts po = {
	    .summary = o->summary,
	    .pid_filter = o->nr_pids || o->argv,
	    .dev_filter = o->nr_devs > 0,
	    .accounting = o->accounting,
	    .aggregate = o->aggregate,
	    .speculate = o->speculate_ns != 0,
	};
	int err;

	rc->skel = open();
	if (!rc->skel) {
		err = -errno;
		snprintf(msg, msglen, "could not open BPF object: %s", strerror(errno));
		return err;
	}
	err = probe_plan(rc->skel, &po, variant, vlen, missing, mlen);
	if (err) {
		snprintf(msg, msglen,
			 "kernel BTF (/sys/kernel/btf/vmlinux) unavailable: %s",
			 strerror(-err));
		return err;
	}
	err = config_devs(rc, msg, msglen);
	if (err)
		return err;
	rc->skel->rodata->cfg_nr_slots = rc->nr_slots;
	rc->skel->rodata->cfg_self_tgid = getpid();
	rc->skel->rodata->cfg_filter_pids = po.pid_filter;
	rc->skel->rodata->cfg_summary = o->summary;
	rc->skel->rodata->cfg_policy = o->policy;
	rc->skel->rodata->cfg_aggregate = o->aggregate;
	rc->skel->rodata->cfg_agg_devs = rc->agg_devs;
	if (o->aggregate)
		bpf_map__set_max_entries(rc->skel->maps.agg,
					 rc->nr_cpus * rc->agg_devs * IOT_AGG_PER_DEV);
	rc->skel->rodata->cfg_speculate = o->speculate_ns != 0;
	rc->skel->rodata->cfg_spec_ns = o->speculate_ns;
	rc->skel->rodata->cfg_spec_nrec = rc->spec_nrec;
	if (o->speculate_ns) {
		bpf_map__set_max_entries(rc->skel->maps.spec_buf,
					 o->nspec * rc->spec_nrec);
		bpf_map__set_max_entries(rc->skel->maps.spec_len, o->nspec);
		bpf_map__set_max_entries(rc->skel->maps.spec_free, o->nspec);
	}
	rc->skel->rodata->cfg_trigger_ns = o->trigger_ns;
	rc->skel->rodata->cfg_trigger_error = o->trigger_error;
	bpf_map__set_max_entries(rc->skel->maps.buf, rc->nr_cpus * rc->nr_slots);
	bpf_map__set_max_entries(rc->skel->maps.ctl, rc->nr_cpus);
	err = iotrail_bpf__load(rc->skel);
	if (err)
		snprintf(msg, msglen, "could not load BPF programs: %s%s", strerror(-err),
			 err == -EPERM ? " (run as root, or with CAP_BPF and CAP_PERFMON)"
				       : "");
	return err;
}

/*
 * --summary keeps per-bio state in the kernel; a bio that never completes
 * (front-merged away, or torn by a lost event) would hold its slot forever.
 * About once a second the recorder frees, through the mmap, slots whose Q is
 * over a minute old and that held the same bio with the same Q one sweep
 * earlier: a slot just claimed by the kernel (key written, q_ns not yet)
 * changes between two sweeps and is never taken.
 */
static void reap_inflight(struct recorder *rc, uint64_t now)
{
	for (size_t i = 0; i < (size_t)IOT_SUM_SETS * IOT_SUM_WAYS; i++) {
		struct iot_sum_slot *sl = &rc->sum[i];
		uint64_t key = __atomic_load_n(&sl->key, __ATOMIC_ACQUIRE);
		uint64_t q = __atomic_load_n(&sl->q_ns, __ATOMIC_ACQUIRE);

		if (!key || !q || q + 60000000000ull >= now) {
			rc->reap_key[i] = 0;
			continue;
		}
		if (rc->reap_key[i] == key && rc->reap_q[i] == q &&
		    __atomic_compare_exchange_n(&sl->key, &key, 0, false,
						__ATOMIC_RELEASE, __ATOMIC_RELAXED) &&
		    rc->o->speculate_ns)
			spec_release_slot(rc->skel->maps.spec_free, sl);
		rc->reap_key[i] = key;
		rc->reap_q[i] = q;
	}
}

/* Maps a BPF_F_MMAPABLE map of `bytes` (rounded up to pages) into *out;
 * *len gets the mapped length for munmap. 0 or -errno. */
static int map_shared(const struct bpf_map *map, size_t bytes, void **out, size_t *len)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p;

	*len = (bytes + page - 1) / page * page;
	p = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(map), 0);
	if (p == MAP_FAILED)
		return -errno;
	*out = p;
	return 0;
}

/* u64 counters of --aggregate per CPU, for aggsize's device slots */
static size_t agg_per_cpu(const struct recorder *rc)
{
	return (size_t)rc->agg_devs * IOT_AGG_PER_DEV;
}

static int map_buffers(struct recorder *rc)
{
	int err;

	err = map_shared(rc->skel->maps.buf,
			 (size_t)rc->nr_cpus * rc->nr_slots * IOT_REC_SIZE,
			 (void **)&rc->buf, &rc->buf_bytes);
	if (!err)
		err = map_shared(rc->skel->maps.ctl,
				 (size_t)rc->nr_cpus * sizeof(struct iot_ctl),
				 (void **)&rc->ctl, &rc->ctl_bytes);
	if (!err)
		err = map_shared(rc->skel->maps.inflight,
				 (size_t)IOT_SUM_SETS * IOT_SUM_WAYS * sizeof(*rc->sum),
				 (void **)&rc->sum, &rc->sum_bytes);
	if (err || !rc->o->aggregate)
		return err;
	err = map_shared(rc->skel->maps.agg,
			 (size_t)rc->nr_cpus * agg_per_cpu(rc) * sizeof(uint64_t),
			 (void **)&rc->agg, &rc->agg_bytes);
	if (err)
		return err;
	rc->agg_prev = calloc(agg_per_cpu(rc), sizeof(uint64_t));
	return rc->agg_prev ? 0 : -ENOMEM;
}

/*
 * --aggregate: one AGG chunk with what each histogram gained since the last
 * one (summed over CPUs, read through the mmap), naming each device by the
 * dev_t the kernel gave its slot.
 */
static int write_agg(struct recorder *rc, uint64_t now)
{
	const size_t hists = (size_t)rc->agg_devs * IOT_AGG_OPS * IOT_AGG_METRICS;
	struct iot_agg_header h = {.start_ns = rc->agg_last_ns, .end_ns = now};
	uint32_t slot_dev[IOT_AGG_DEVS] = {0}, key, next, *prev = NULL, slot;
	int fd = bpf_map__fd(rc->skel->maps.agg_devs), err;
	struct iot_agg_entry *e;
	size_t n = 0;

	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &slot) == 0 && slot < rc->agg_devs)
			slot_dev[slot] = key;
	}
	e = calloc(hists, sizeof(*e));
	if (!e)
		return -ENOMEM;
	for (size_t hi = 0; hi < hists; hi++) {
		uint64_t cur[IOT_AGG_HIST] = {0}, count = 0;

		for (uint32_t cpu = 0; cpu < rc->nr_cpus; cpu++) {
			const uint64_t *src =
			    rc->agg + (size_t)cpu * agg_per_cpu(rc) + hi * IOT_AGG_HIST;

			for (size_t b = 0; b < IOT_AGG_HIST; b++)
				cur[b] += __atomic_load_n(&src[b], __ATOMIC_RELAXED);
		}
		for (size_t b = 0; b < IOT_AGG_HIST; b++) {
			uint64_t d = cur[b] - rc->agg_prev[hi * IOT_AGG_HIST + b];

			rc->agg_prev[hi * IOT_AGG_HIST + b] = cur[b];
			cur[b] = d;
			if (b < IOT_AGG_BUCKETS)
				count += d;
		}
		if (!count)
			continue;
		e[n].dev = slot_dev[hi / (IOT_AGG_OPS * IOT_AGG_METRICS)];
		e[n].op = (hi / IOT_AGG_METRICS) % IOT_AGG_OPS;
		e[n].metric = hi % IOT_AGG_METRICS;
		e[n].sum = cur[IOT_AGG_BUCKETS];
		memcpy(e[n].buckets, cur, sizeof(e[n].buckets));
		n++;
	}
	h.nr_entries = n;
	err = trace_writer_chunk(&rc->w, IOT_CHUNK_AGG, 0, &h, sizeof(h), e,
				 n * sizeof(*e));
	free(e);
	rc->agg_last_ns = now;
	return err;
}

static void progress(struct recorder *rc, uint64_t start_ns, bool final)
{
	uint64_t recs = 0, drops = 0;

	for (uint32_t i = 0; i < rc->nr_cpus; i++) {
		recs += rc->written[i];
		drops += rc->ctl[i].drops_full + rc->torn[i] + rc->ctl[i].drops_nostate;
	}
	fprintf(stderr, "\riotrail: recording %.1f s, %llu records, %llu drops%s",
		(now_ns(CLOCK_MONOTONIC) - start_ns) / 1e9, (unsigned long long)recs,
		(unsigned long long)drops, final ? "\n" : "   ");
}

/* "128m", "4g", "2048" */
static const char *fmt_size(uint64_t bytes, char *buf, size_t len)
{
	static const char units[] = "kmgt";
	int u = -1;

	while (bytes >= 1024 && bytes % 1024 == 0 && u < 3) {
		bytes /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%llu", (unsigned long long)bytes);
	else
		snprintf(buf, len, "%llu%c", (unsigned long long)bytes, units[u]);
	return buf;
}

static uint64_t mem_available(void)
{
	unsigned long long kb = 0;
	char line[256];
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return UINT64_MAX;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return kb ? kb * 1024 : UINT64_MAX;
}

/*
 * Per-CPU slots for the requested size: a power of two, at least 2 x the
 * slack kept for nested interrupts, and (bufresize) within the limit of a
 * quarter of MemAvailable for all CPUs together. Under bufresize=auto a size
 * over the limit is halved until it fits, and said; under manual it fails.
 * The kernel refusing the allocation at load is handled the same way
 * (record_run). Returns 0, or the exit status after saying why.
 */
static int size_buffers(struct recorder *rc)
{
	const struct record_opts *o = rc->o;
	const uint64_t reserve = (IOT_SLACK_SLOTS + 1) * IOT_REC_SIZE;
	uint64_t slots = o->bufsize / IOT_REC_SIZE, limit = mem_available() / 4;
	char a[32], b[32];
	bool lowered = false;

	if (o->policy == IOT_POLICY_FILL && o->bufsize < reserve + IOT_REC_SIZE) {
		fprintf(
		    stderr,
		    "iotrail: END record reservation (%llu bytes) exceeds the principal "
		    "buffer (%llu bytes per CPU)\n",
		    (unsigned long long)reserve, (unsigned long long)o->bufsize);
		return 2;
	}
	if (slots < 2 * IOT_SLACK_SLOTS) {
		fprintf(stderr,
			"iotrail: buffer size %llu bytes is too small: at least %u bytes "
			"per CPU\n",
			(unsigned long long)o->bufsize,
			2 * IOT_SLACK_SLOTS * IOT_REC_SIZE);
		return 2;
	}
	while (slots & (slots - 1)) /* round down to a power of two */
		slots &= slots - 1;
	while (slots * IOT_REC_SIZE * rc->nr_cpus > limit ||
	       slots * rc->nr_cpus > UINT32_MAX / 2) {
		if (o->bufresize_manual || slots <= 2 * IOT_SLACK_SLOTS) {
			fprintf(
			    stderr,
			    "iotrail: could not enable tracing: not enough space (%s per "
			    "CPU x %u CPUs over the limit of %s, a quarter of "
			    "MemAvailable)\n",
			    fmt_size(slots * IOT_REC_SIZE, a, sizeof(a)), rc->nr_cpus,
			    fmt_size(limit, b, sizeof(b)));
			return 1;
		}
		slots /= 2;
		lowered = true;
	}
	if (lowered)
		fprintf(stderr, "iotrail: buffer size lowered to %s\n",
			fmt_size(slots * IOT_REC_SIZE, a, sizeof(a)));
	rc->nr_slots = slots;
	return 0;
}

int record_run(const struct record_opts *o)
{
	struct recorder rc = {.o = o, .go_fd = -1, .exec_fd = -1};
	struct iot_file_header hdr = {.magic = IOT_MAGIC};
	char variant[1024], missing[512], msg[512] = "";
	struct sigaction sa = {.sa_handler = on_signal};
	uint64_t start_ns, next_progress, next_reap, next_agg;
	uint64_t last_drain = 0, max_gap = 0, max_drain = 0;
	bool debug = getenv("IOTRAIL_DEBUG") != NULL;
	const char *attach_kind;
	uint32_t reason = IOT_STOP_SIGNAL;
	bool tty = isatty(STDERR_FILENO);
	bool opened = false;
	int err = 0, ret = 1, ncpu;

	libbpf_set_print(libbpf_quiet);
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
	if (ncpu <= 0 || ncpu > (int)IOT_MAX_CPUS) {
		fprintf(stderr, "iotrail: cannot count CPUs: %d\n", ncpu);
		return 1;
	}
	rc.nr_cpus = ncpu;
	rc.agg_devs = IOT_AGG_DEVS;
	if (o->aggsize && o->aggsize / RECORD_AGG_DEV_BYTES < IOT_AGG_DEVS)
		rc.agg_devs = (uint32_t)(o->aggsize / RECORD_AGG_DEV_BYTES);
	rc.spec_nrec = (uint32_t)(o->specsize / IOT_REC_SIZE);
	ret = size_buffers(&rc);
	if (ret)
		return ret;
	ret = 1;

	err = devtab_scan(&rc.devs);
	if (err) {
		fprintf(stderr, "iotrail: /sys/class/block: %s\n", strerror(-err));
		goto cleanup;
	}
	rc.written = calloc(ncpu, sizeof(uint64_t));
	rc.torn = calloc(ncpu, sizeof(uint64_t));
	rc.stuck_seq = calloc(ncpu, sizeof(uint64_t));
	rc.stuck_rounds = calloc(ncpu, sizeof(unsigned int));
	rc.reap_key = calloc((size_t)IOT_SUM_SETS * IOT_SUM_WAYS, sizeof(uint64_t));
	rc.reap_q = calloc((size_t)IOT_SUM_SETS * IOT_SUM_WAYS, sizeof(uint64_t));
	if (!rc.written || !rc.torn || !rc.stuck_seq || !rc.stuck_rounds ||
	    !rc.reap_key || !rc.reap_q) {
		err = -ENOMEM;
		fprintf(stderr, "iotrail: out of memory\n");
		goto cleanup;
	}
	/* every -d must name a device before anything is loaded */
	for (int i = 0; i < o->nr_devs; i++) {
		if (!devtab_resolve(&rc.devs, o->devs[i], msg, sizeof(msg))) {
			fprintf(stderr, "iotrail: %s\n", msg);
			ret = 2;
			goto cleanup;
		}
	}
	for (;;) {
		char sz[32];

		err = open_and_load(&rc, skel_open_btf, variant, sizeof(variant), missing,
				    sizeof(missing), msg, sizeof(msg));
		attach_kind = "tp_btf";
		if (err && err != -ENODEV && err != -ERANGE && err != -ENOMEM &&
		    err != -E2BIG) {
			/* the typed build was refused: the untyped one reads
			 * through probe reads and loads where tp_btf cannot */
			if (getenv("IOTRAIL_DEBUG"))
				fprintf(stderr,
					"iotrail: tp_btf build: %s; trying raw_tp\n",
					msg);
			iotrail_bpf__destroy(rc.skel);
			rc.skel = NULL;
			err = open_and_load(&rc, skel_open_raw, variant, sizeof(variant),
					    missing, sizeof(missing), msg, sizeof(msg));
			attach_kind = "raw_tp";
		}
		if ((err != -ENOMEM && err != -E2BIG) || o->bufresize_manual ||
		    rc.nr_slots <= 2 * IOT_SLACK_SLOTS)
			break;
		/* bufresize=auto: the kernel could not allocate it, halve */
		iotrail_bpf__destroy(rc.skel);
		rc.skel = NULL;
		rc.nr_slots /= 2;
		fprintf(stderr, "iotrail: buffer size lowered to %s\n",
			fmt_size((uint64_t)rc.nr_slots * IOT_REC_SIZE, sz, sizeof(sz)));
	}
	if (err == -ENOMEM || err == -E2BIG) {
		fprintf(stderr,
			"iotrail: could not enable tracing: not enough space (%s)\n",
			msg);
		goto cleanup;
	}
	if (err) {
		fprintf(stderr, "iotrail: %s\n", msg);
		if (err == -ENODEV || err == -ERANGE)
			ret = 2;
		goto cleanup;
	}
	if (missing[0])
		fprintf(stderr, "iotrail: not traced on this kernel: %s\n", missing);
	err = map_buffers(&rc);
	if (err) {
		fprintf(stderr, "iotrail: could not map buffers: %s\n", strerror(-err));
		goto cleanup;
	}
	if (o->speculate_ns) {
		err = spec_fill_free(rc.skel->maps.spec_free, o->nspec);
		if (err) {
			fprintf(stderr, "iotrail: speculation buffers: %s\n",
				strerror(-err));
			goto cleanup;
		}
	}
	/*
	 * A recorder that is late loses records: under a load that keeps every
	 * CPU busy a drain at normal priority was seen preempted for 87 ms,
	 * longer than a 4 MB buffer lasts (bench/policies.sh). Like perf
	 * record -r, it raises its own priority; the command keeps its own.
	 */
	errno = 0;
	rc.orig_nice = getpriority(PRIO_PROCESS, 0);
	if (o->nice != rc.orig_nice && setpriority(PRIO_PROCESS, 0, o->nice))
		fprintf(stderr, "iotrail: --nice %d: %s; recording at %d\n", o->nice,
			strerror(errno), rc.orig_nice);
	if (o->argv) {
		err = start_child(&rc);
		if (err) {
			fprintf(stderr, "iotrail: fork: %s\n", strerror(-err));
			goto cleanup;
		}
	}
	err = setup_pids(&rc);
	if (err) {
		fprintf(stderr, "iotrail: process filter: %s\n", strerror(-err));
		goto cleanup;
	}
	/* the output file last: a failed set-up must not truncate it */
	hdr.header_size = sizeof(hdr);
	hdr.version_major = IOT_VERSION_MAJOR;
	hdr.version_minor = IOT_VERSION_MINOR;
	hdr.rec_size = IOT_REC_SIZE;
	hdr.nr_cpus = ncpu;
	hdr.clock_id = CLOCK_MONOTONIC;
	hdr.start_realtime_ns = now_ns(CLOCK_REALTIME);
	hdr.start_mono_ns = now_ns(CLOCK_MONOTONIC);
	err = trace_writer_open(&rc.w, o->output, &hdr);
	if (err) {
		fprintf(stderr, "iotrail: %s: %s\n", o->output, strerror(-err));
		goto cleanup;
	}
	opened = true;

	err = write_meta(&rc, variant, missing, attach_kind);
	if (err) {
		fprintf(stderr, "iotrail: %s: %s\n", o->output, strerror(-err));
		goto cleanup;
	}
	err = iotrail_bpf__attach(rc.skel);
	if (err) {
		fprintf(stderr, "iotrail: could not attach: %s\n", strerror(-err));
		goto cleanup;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	start_ns = now_ns(CLOCK_MONOTONIC);
	next_progress = start_ns + 1000000000ull;
	next_reap = start_ns + 1000000000ull;
	next_agg = o->interval_ns ? start_ns + o->interval_ns : UINT64_MAX;
	rc.agg_last_ns = start_ns;
	if (o->argv) {
		err = release_child(&rc);
		if (err) {
			fprintf(stderr, "iotrail: %s: %s\n", o->argv[0], strerror(-err));
			reason = IOT_STOP_ERROR;
			ret = 127;
			goto finish;
		}
	}

	for (;;) {
		struct timespec ts = {0, (long)o->switch_ns};
		uint64_t t;

		while (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		if (!stop_signal)
			nanosleep(&ts, NULL);
		/* fill and ring: the buffer is read once, at the stop (fill: when
		 * the first CPU is full; DTrace's fill is never switched) */
		{
			uint64_t d0 = now_ns(CLOCK_MONOTONIC);

			if (debug && last_drain && d0 - last_drain > max_gap)
				max_gap = d0 - last_drain;
			err = o->policy != IOT_POLICY_SWITCH ? 0 : drain_all(&rc);
			last_drain = now_ns(CLOCK_MONOTONIC);
			if (debug && last_drain - d0 > max_drain)
				max_drain = last_drain - d0;
		}
		if (err) {
			fprintf(stderr, "iotrail: %s: %s\n", o->output, strerror(-err));
			reason = IOT_STOP_ERROR;
			goto finish;
		}
		if (kernel_stop(&rc)) {
			reason = kernel_stop(&rc) == IOT_STOP_REASON_FULL
				     ? IOT_STOP_FILL
				     : IOT_STOP_TRIGGER;
			break;
		}
		if (stop_signal) {
			reason = IOT_STOP_SIGNAL;
			break;
		}
		if (rc.child > 0 &&
		    waitpid(rc.child, &rc.child_status, WNOHANG) == rc.child) {
			rc.child_done = true;
			reason = IOT_STOP_COMMAND;
			break;
		}
		t = now_ns(CLOCK_MONOTONIC);
		if (o->duration_ns && t - start_ns >= o->duration_ns) {
			reason = IOT_STOP_DURATION;
			break;
		}
		if (o->aggregate && t >= next_agg) {
			err = write_agg(&rc, t);
			if (err) {
				fprintf(stderr, "iotrail: %s: %s\n", o->output,
					strerror(-err));
				reason = IOT_STOP_ERROR;
				goto finish;
			}
			next_agg = t + o->interval_ns;
		}
		if ((o->summary || o->aggregate || o->speculate_ns) && t >= next_reap) {
			reap_inflight(&rc, t);
			next_reap = t + 1000000000ull;
		}
		if (tty && t >= next_progress) {
			progress(&rc, start_ns, false);
			next_progress = t + 1000000000ull;
		}
	}
	ret = 0;
finish:
	/* stop producing, then take what is left */
	iotrail_bpf__detach(rc.skel);
	if (reason != IOT_STOP_ERROR || !err) {
		int e;

		if (o->policy == IOT_POLICY_RING) {
			/* let programs still running on other CPUs finish */
			struct timespec settle = {0, 10 * 1000 * 1000};

			nanosleep(&settle, NULL);
			e = drain_ring(&rc);
		} else {
			e = drain_all(&rc);
		}
		if (!e && o->aggregate)
			e = write_agg(&rc, now_ns(CLOCK_MONOTONIC));

		if (e) {
			fprintf(stderr, "iotrail: %s: %s\n", o->output, strerror(-e));
			ret = 1;
		}
	}
	if (tty)
		progress(&rc, start_ns, true);
	if (debug)
		fprintf(stderr,
			"iotrail: debug: longest gap between drains %.1f ms, longest "
			"drain %.1f ms\n",
			max_gap / 1e6, max_drain / 1e6);
	if (reason == IOT_STOP_FILL)
		fprintf(
		    stderr,
		    "iotrail: buffer of CPU %u full: tracing stopped (bufpolicy=fill)\n",
		    rc.skel->bss->stop.cpu);
	if (reason == IOT_STOP_TRIGGER) {
		const struct iot_stop *st = &rc.skel->bss->stop;
		const struct iot_dev_entry *d = NULL;

		for (size_t i = 0; i < rc.devs.n; i++)
			if (rc.devs.e[i].dev == st->trig_dev)
				d = &rc.devs.e[i];
		fprintf(stderr,
			"iotrail: trigger: request at sector %llu of %s took %.3f ms "
			"(Q2C)%s; the ring holds what led up to it\n",
			(unsigned long long)st->trig_sector, d ? d->name : "?",
			st->trig_q2c_ns / 1e6, st->trig_error ? ", failed" : "");
	}
	err = write_tables(&rc, reason);
	if (err) {
		fprintf(stderr, "iotrail: %s: %s\n", o->output, strerror(-err));
		ret = 1;
	}
	for (uint32_t cpu = 0; cpu < rc.nr_cpus; cpu++) {
		uint64_t d =
		    rc.ctl[cpu].drops_full + rc.torn[cpu] + rc.ctl[cpu].drops_nostate;

		if (d)
			fprintf(stderr, "iotrail: %llu drops on CPU %u\n",
				(unsigned long long)d, cpu);
	}
	if (rc.child > 0 && !rc.child_done) {
		if (reason != IOT_STOP_COMMAND)
			kill(rc.child, SIGTERM);
		waitpid(rc.child, &rc.child_status, 0);
		rc.child_done = true;
	}
	if (rc.child > 0 && WIFEXITED(rc.child_status) && WEXITSTATUS(rc.child_status) &&
	    ret == 0)
		fprintf(stderr, "iotrail: %s exited with status %d\n", o->argv[0],
			WEXITSTATUS(rc.child_status));
cleanup:
	if (err && ret == 0)
		ret = 1;
	if (rc.child > 0 && !rc.child_done) {
		if (rc.go_fd >= 0)
			close(rc.go_fd); /* the child exits at EOF */
		kill(rc.child, SIGKILL);
		waitpid(rc.child, NULL, 0);
	}
	if (rc.exec_fd >= 0)
		close(rc.exec_fd);
	if (opened) {
		int e = trace_writer_close(&rc.w);

		if (e) {
			fprintf(stderr, "iotrail: %s: %s\n", o->output, strerror(-e));
			ret = 1;
		}
	}
	if (rc.buf)
		munmap(rc.buf, rc.buf_bytes);
	if (rc.ctl)
		munmap(rc.ctl, rc.ctl_bytes);
	if (rc.sum)
		munmap(rc.sum, rc.sum_bytes);
	if (rc.agg)
		munmap(rc.agg, rc.agg_bytes);
	free(rc.agg_prev);
	iotrail_bpf__destroy(rc.skel);
	devtab_release(&rc.devs);
	task_table_release(&rc.tasks);
	free(rc.written);
	free(rc.torn);
	free(rc.stuck_seq);
	free(rc.stuck_rounds);
	free(rc.reap_key);
	free(rc.reap_q);
	return ret;
}
