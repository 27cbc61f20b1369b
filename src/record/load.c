// SPDX-License-Identifier: GPL-2.0
/* Sizing the buffers, loading the programs, the filters and the mmaps
 * (recorder.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "../trace/syscalls.h"
#include "../util/parse.h"
#include "bpflog.h"
#include "probe.h"
#include "recorder.h"
#include "skel.h"

#define CPUS_ONLINE "/sys/devices/system/cpu/online"

/* "128m", "4g", "2048" */
const char *fmt_size(uint64_t bytes, char *buf, size_t len)
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
 * --aggregate's device slots by default: one for each disk that can do I/O
 * (a whole disk with sectors; with -d, each disk selected) and slot 0 (the
 * system calls), at least RECORD_AGG_DEVS and at most IOT_AGG_DEVS, while
 * the CPUs' regions take at most 1/64 of MemAvailable. A disk that finds no
 * slot is left out of the histograms (counted, and said at the stop): the
 * 16 slots of before left out every disk after the 15th to do I/O.
 */
uint32_t agg_slots(const struct recorder *rc)
{
	const struct dev_table *t = &rc->devs;
	uint32_t disks = 0, n;
	bool filtered = false;

	for (size_t i = 0; i < t->n; i++)
		filtered |= (t->e[i].flags & IOT_DEV_FILTERED) != 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct iot_dev_entry *e = &t->e[i];
		bool counted = false;

		if (filtered) { /* each disk once, a partition selecting its own */
			if (!(e->flags & IOT_DEV_FILTERED))
				continue;
			for (size_t k = 0; k < i && !counted; k++)
				counted = (t->e[k].flags & IOT_DEV_FILTERED) &&
					  t->e[k].disk_dev == e->disk_dev;
		} else {
			counted = (e->flags & IOT_DEV_PARTITION) || !e->nr_sectors;
		}
		disks += !counted;
	}
	n = disks + 1;
	if (n < RECORD_AGG_DEVS)
		n = RECORD_AGG_DEVS;
	if (n > IOT_AGG_DEVS)
		n = IOT_AGG_DEVS;
	while (n > RECORD_AGG_DEVS &&
	       RECORD_AGG_BYTES(n) * rc->nr_bufs > mem_available() / 64)
		n--;
	return n;
}

/*
 * A buffer for each CPU online now, none for the others: a machine may
 * report many more possible CPUs than it has (hotplug slots a hypervisor
 * keeps, SMT siblings turned off), and a buffer for each would lock up
 * memory no CPU writes (4 MB x 448 on a host of 224 online of 448). A CPU
 * brought online during the recording has no buffer: the programs count its
 * records as drops (drops_full) and say_drops names it. Where the online
 * list cannot be read, every possible CPU gets one, as before. 0, or the
 * exit status after saying why.
 */
int assign_buffers(struct recorder *rc)
{
	bool *online = calloc(rc->nr_cpus, sizeof(*online));
	char list[4096] = "";
	FILE *f = fopen(CPUS_ONLINE, "re");
	int n = -EINVAL, open_err = errno;

	rc->cpu_buf = calloc(rc->nr_cpus, sizeof(*rc->cpu_buf));
	rc->buf_cpu = calloc(rc->nr_cpus, sizeof(*rc->buf_cpu));
	if (!online || !rc->cpu_buf || !rc->buf_cpu) {
		free(online);
		fprintf(stderr, "iotrail: out of memory\n");
		if (f)
			fclose(f);
		return 1;
	}
	if (f && fgets(list, sizeof(list), f))
		n = parse_cpulist(list, online, rc->nr_cpus);
	if (f)
		fclose(f);
	if (n <= 0) {
		fprintf(stderr,
			"iotrail: %s: %s; a buffer for each of the %u possible CPUs\n",
			CPUS_ONLINE, f ? "not a CPU list" : strerror(open_err),
			rc->nr_cpus);
		for (uint32_t cpu = 0; cpu < rc->nr_cpus; cpu++)
			online[cpu] = true;
	}
	rc->nr_bufs = 0;
	for (uint32_t cpu = 0; cpu < rc->nr_cpus; cpu++) {
		rc->cpu_buf[cpu] = online[cpu] ? rc->nr_bufs : IOT_NO_BUF;
		if (online[cpu])
			rc->buf_cpu[rc->nr_bufs++] = cpu;
	}
	free(online);
	/* said, as the CPUs it leaves out are not recorded if brought online */
	if (rc->nr_bufs < rc->nr_cpus)
		fprintf(stderr,
			"iotrail: buffers for %u of %u possible CPUs, those online; a "
			"CPU brought online during the recording is not recorded\n",
			rc->nr_bufs, rc->nr_cpus);
	else if (getenv("IOTRAIL_DEBUG"))
		fprintf(stderr, "iotrail: buffers for %u of %u possible CPUs\n",
			rc->nr_bufs, rc->nr_cpus);
	return 0;
}

/*
 * Per-CPU slots for the requested size: a power of two, at least 2 x the
 * slack kept for nested interrupts, and (bufresize) within the limit of a
 * quarter of MemAvailable for all CPUs together. Under bufresize=auto a size
 * over the limit is halved until it fits, and said; under manual it fails.
 * The kernel refusing the allocation at load is handled the same way
 * (load_programs). Returns 0, or the exit status after saying why.
 */
int size_buffers(struct recorder *rc)
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
	while (slots * IOT_REC_SIZE * rc->nr_bufs > limit ||
	       slots * rc->nr_bufs > UINT32_MAX / 2) {
		if (o->bufresize_manual || slots <= 2 * IOT_SLACK_SLOTS) {
			fprintf(
			    stderr,
			    "iotrail: could not enable tracing: not enough space (%s per "
			    "CPU x %u CPUs over the limit of %s, a quarter of "
			    "MemAvailable)\n",
			    fmt_size(slots * IOT_REC_SIZE, a, sizeof(a)), rc->nr_bufs,
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

/* -d: the disks and sector ranges, into the programs' constants (before
 * load), sorted and merged for their search. A partition selects its
 * disk's sectors inside it. */
static int config_devs(struct recorder *rc, char *msg, size_t msglen)
{
	const struct record_opts *o = rc->o;
	typeof(rc->skel->rodata) ro = rc->skel->rodata;
	struct dev_range r[RECORD_MAX_DEVS];
	size_t n;

	_Static_assert(RECORD_MAX_DEVS == sizeof(ro->cfg_dev) / sizeof(ro->cfg_dev[0]),
		       "-d's limit is the programs'");
	if (o->nr_devs > RECORD_MAX_DEVS) {
		snprintf(msg, msglen, "-d: at most %d devices", RECORD_MAX_DEVS);
		return -ERANGE;
	}
	for (int i = 0; i < o->nr_devs; i++) {
		struct iot_dev_entry *e =
		    devtab_resolve(&rc->devs, o->devs[i], msg, msglen);

		if (!e)
			return -ENODEV;
		e->flags |= IOT_DEV_FILTERED;
		r[i].dev = e->disk_dev;
		r[i].start = e->start_sector;
		r[i].end = (e->flags & IOT_DEV_PARTITION)
			       ? e->start_sector + e->nr_sectors
			       : UINT64_MAX;
	}
	n = devrange_merge(r, (size_t)o->nr_devs);
	for (size_t i = 0; i < n; i++) {
		ro->cfg_dev[i] = r[i].dev;
		ro->cfg_dev_start[i] = r[i].start;
		ro->cfg_dev_end[i] = r[i].end;
	}
	ro->cfg_nr_devs = (uint32_t)n;
	return 0;
}

/* --flow: the definitions, and the loop devices (not direct I/O) whose
 * backing files' pages hand a flow on to the device below (before load). */
static void config_flows(struct recorder *rc)
{
	const struct record_opts *o = rc->o;
	typeof(rc->skel->rodata) ro = rc->skel->rodata;
	struct loop_ref l[IOT_FLOW_MAX_LOOPS * 4];
	size_t n;
	uint32_t k = 0;

	if (!o->nr_flows) { /* the LRU hashes preallocate: none to speak of */
		bpf_map__set_max_entries(rc->skel->maps.flow_task, 1);
		bpf_map__set_max_entries(rc->skel->maps.flow_objs, 1);
		bpf_map__set_max_entries(rc->skel->maps.flow_pages, 1);
		bpf_map__set_max_entries(rc->skel->maps.flow_faults, 1);
		return;
	}
	ro->cfg_flow = true;
	ro->cfg_flow_done = o->accounting;
	ro->cfg_nr_flows = (uint32_t)o->nr_flows;
	for (int i = 0; i < o->nr_flows; i++) {
		memcpy((void *)&ro->cfg_flows[i], &o->flows[i].d, sizeof(o->flows[i].d));
		if (o->flows[i].d.starts & IOT_FLOW_START_FAULT)
			ro->cfg_flow_faults = true;
	}
	if (!ro->cfg_flow_faults) /* no fault starts a flow: no fault table */
		bpf_map__set_max_entries(rc->skel->maps.flow_faults, 1);
	n = devtab_loops(&rc->devs, l, sizeof(l) / sizeof(l[0]));
	for (size_t i = 0; i < n && k < IOT_FLOW_MAX_LOOPS; i++) {
		if (l[i].dio)
			continue;
		ro->cfg_flow_loop_dev[k] = l[i].dev;
		ro->cfg_flow_loop_ino[k] = l[i].ino;
		ro->cfg_flow_loop_off[k] = l[i].offset;
		k++;
	}
	ro->cfg_nr_flow_loops = k;
}

/* -p and COMMAND: the processes whose syscalls are traced (after load). */
int setup_pids(struct recorder *rc)
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
 * The system call numbers of this machine's architecture (src/trace/
 * syscalls.c, the list the analysis reads traces with) into the programs'
 * constants. On an architecture iotrail does not know, system calls are
 * not traced, and the recording says so.
 */
static void set_syscall_numbers(struct recorder *rc)
{
	struct utsname u;
	const uint32_t *nr;

	uname(&u);
	nr = syscall_numbers(u.machine);
	if (!nr) {
		fprintf(stderr,
			"iotrail: %s: system call numbers unknown, system calls "
			"not traced\n",
			u.machine);
		return;
	}
	rc->skel->rodata->cfg_nr_read = nr[SK_READ];
	rc->skel->rodata->cfg_nr_write = nr[SK_WRITE];
	rc->skel->rodata->cfg_nr_pread64 = nr[SK_PREAD64];
	rc->skel->rodata->cfg_nr_pwrite64 = nr[SK_PWRITE64];
	rc->skel->rodata->cfg_nr_readv = nr[SK_READV];
	rc->skel->rodata->cfg_nr_writev = nr[SK_WRITEV];
	rc->skel->rodata->cfg_nr_preadv = nr[SK_PREADV];
	rc->skel->rodata->cfg_nr_pwritev = nr[SK_PWRITEV];
	rc->skel->rodata->cfg_nr_fsync = nr[SK_FSYNC];
	rc->skel->rodata->cfg_nr_fdatasync = nr[SK_FDATASYNC];
	rc->skel->rodata->cfg_nr_io_submit = nr[SK_IO_SUBMIT];
	rc->skel->rodata->cfg_nr_io_uring_enter = nr[SK_IO_URING_ENTER];
	rc->skel->rodata->cfg_nr_preadv2 = nr[SK_PREADV2];
	rc->skel->rodata->cfg_nr_pwritev2 = nr[SK_PWRITEV2];
	rc->skel->rodata->cfg_nr_sendfile = nr[SK_SENDFILE];
	rc->skel->rodata->cfg_nr_splice = nr[SK_SPLICE];
	rc->skel->rodata->cfg_nr_copy_file_range = nr[SK_COPY_FILE_RANGE];
}

/*
 * Opens, configures and loads one build of the programs. Tried first with
 * the tp_btf build, then with the raw_tp build if the kernel refuses it.
 */
static int open_and_load(struct recorder *rc, struct iotrail_bpf *(*open)(void),
			 char *msg, size_t msglen)
{
	const struct record_opts *o = rc->o;
	struct probe_opts po = {
	    .summary = o->summary,
	    .pid_filter = o->nr_pids || o->argv,
	    .dev_filter = o->nr_devs > 0,
	    .accounting = o->accounting,
	    .uring = o->uring,
	    .aggregate = o->aggregate,
	    .agg_syscalls = o->agg_syscalls,
	    .speculate = o->speculate_ns != 0,
	};
	int err;

	rc->skel = open();
	if (!rc->skel) {
		err = -errno;
		snprintf(msg, msglen, "could not open BPF object: %s", strerror(errno));
		return err;
	}
	err = probe_plan(rc->skel, &po, rc->variant, sizeof(rc->variant), rc->missing,
			 sizeof(rc->missing));
	if (err) {
		snprintf(msg, msglen,
			 "kernel BTF (/sys/kernel/btf/vmlinux) unavailable: %s",
			 strerror(-err));
		return err;
	}
	rc->drivers_lost = probe_drivers(rc->skel, &po, rc->drivers, sizeof(rc->drivers));
	err = config_devs(rc, msg, msglen);
	if (err)
		return err;
	set_syscall_numbers(rc);
	config_flows(rc);
	rc->skel->rodata->cfg_nr_slots = rc->nr_slots;
	rc->skel->rodata->cfg_self_tgid = getpid();
	rc->skel->rodata->cfg_filter_pids = po.pid_filter;
	rc->skel->rodata->cfg_summary = o->summary;
	rc->skel->rodata->cfg_policy = o->policy;
	rc->skel->rodata->cfg_degrade = record_degrades(o);
	rc->skel->rodata->cfg_aggregate = o->aggregate;
	rc->skel->rodata->cfg_agg_cgroup = o->agg_by_cgroup;
	rc->skel->rodata->cfg_uring = o->uring;
	rc->skel->rodata->cfg_agg_devs = rc->agg_devs;
	if (o->aggregate)
		bpf_map__set_max_entries(rc->skel->maps.agg,
					 rc->nr_bufs * IOT_AGG_HISTS(rc->agg_devs));
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
	for (uint32_t cpu = 0; cpu < rc->nr_cpus; cpu++)
		rc->skel->rodata->cfg_cpu_buf[cpu] = rc->cpu_buf[cpu];
	rc->skel->rodata->cfg_cpu_buf_all = rc->nr_bufs == rc->nr_cpus;
	bpf_map__set_max_entries(rc->skel->maps.buf, rc->nr_bufs * rc->nr_slots);
	bpf_map__set_max_entries(rc->skel->maps.ctl, rc->nr_cpus);
	err = iotrail_bpf__load(rc->skel);
	if (err)
		snprintf(msg, msglen, "could not load BPF programs: %s%s", strerror(-err),
			 err == -EPERM ? " (run as root, or with CAP_BPF and CAP_PERFMON)"
				       : "");
	return err;
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
size_t agg_per_cpu(const struct recorder *rc)
{
	return (size_t)IOT_AGG_HISTS(rc->agg_devs) * IOT_AGG_KHIST;
}

int map_buffers(struct recorder *rc)
{
	int err;

	err = map_shared(rc->skel->maps.buf,
			 (size_t)rc->nr_bufs * rc->nr_slots * IOT_REC_SIZE,
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
			 (size_t)rc->nr_bufs * agg_per_cpu(rc) * sizeof(uint64_t),
			 (void **)&rc->agg, &rc->agg_bytes);
	if (err)
		return err;
	rc->agg_prev = calloc(agg_per_cpu(rc), sizeof(uint64_t));
	if (rc->o->agg_by_cgroup)
		rc->looks = calloc(rc->agg_devs, sizeof(*rc->looks));
	return rc->agg_prev && (rc->looks || !rc->o->agg_by_cgroup) ? 0 : -ENOMEM;
}

/* Under IOTRAIL_DEBUG: the instructions the verifier processed for each
 * program loaded, most first (the kernel refuses a program past 1M; a
 * kernel's verifier may take more than another's for the same program) */
static void say_verified(const struct recorder *rc)
{
	struct {
		const char *name;
		uint32_t insns;
	} v[64] = {{0}};
	struct bpf_program *prog;
	size_t n = 0;

	bpf_object__for_each_program(prog, rc->skel->obj)
	{
		struct bpf_prog_info info;
		uint32_t len = sizeof(info);
		int fd = bpf_program__fd(prog);
		size_t i;

		memset(&info, 0, sizeof(info));
		if (fd < 0 || n == sizeof(v) / sizeof(v[0]) ||
		    bpf_obj_get_info_by_fd(fd, &info, &len))
			continue;
		for (i = n++; i > 0 && v[i - 1].insns < info.verified_insns; i--)
			v[i] = v[i - 1];
		v[i].name = bpf_program__name(prog);
		v[i].insns = info.verified_insns;
	}
	fprintf(stderr, "iotrail: verifier: instructions processed for %zu programs:", n);
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "%s %s %u", i ? "," : "", v[i].name, v[i].insns);
	fputc('\n', stderr);
}

/* libbpf's load of one build, the verifier's refusal noted afresh */
static int try_load(struct recorder *rc, struct iotrail_bpf *(*open)(void),
		    const char *kind, char *msg, size_t msglen)
{
	bpflog_quiet();
	rc->attach_kind = kind;
	return open_and_load(rc, open, msg, msglen);
}

/* a load that failed for want of memory (ENOMEM, or E2BIG for a map too
 * large), not because the verifier refused a program */
static bool no_space(int err)
{
	return err == -ENOMEM || (err == -E2BIG && !bpflog_refused());
}

int load_programs(struct recorder *rc)
{
	const struct record_opts *o = rc->o;
	char msg[512] = "";
	int err;

	for (;;) {
		char sz[32];

		err = try_load(rc, skel_open_btf, "tp_btf", msg, sizeof(msg));
		if (err && err != -ENODEV && err != -ERANGE && !no_space(err)) {
			/* the typed build was refused: the untyped one reads
			 * through probe reads and loads where tp_btf cannot */
			if (getenv("IOTRAIL_DEBUG"))
				fprintf(stderr,
					"iotrail: tp_btf build: %s; trying raw_tp\n",
					msg);
			iotrail_bpf__destroy(rc->skel);
			rc->skel = NULL;
			err = try_load(rc, skel_open_raw, "raw_tp", msg, sizeof(msg));
		}
		if (!no_space(err) || o->bufresize_manual ||
		    rc->nr_slots <= 2 * IOT_SLACK_SLOTS)
			break;
		/* bufresize=auto: the kernel could not allocate it, halve */
		iotrail_bpf__destroy(rc->skel);
		rc->skel = NULL;
		rc->nr_slots /= 2;
		fprintf(stderr, "iotrail: buffer size lowered to %s\n",
			fmt_size((uint64_t)rc->nr_slots * IOT_REC_SIZE, sz, sizeof(sz)));
	}
	if (no_space(err)) {
		fprintf(stderr,
			"iotrail: could not enable tracing: not enough space (%s)\n",
			msg);
		return 1;
	}
	if (err && bpflog_refused()) {
		fprintf(stderr, "iotrail: could not load BPF programs (%s build): %s\n",
			rc->attach_kind, bpflog_why(err, msg, sizeof(msg)));
		return 1;
	}
	if (err) {
		fprintf(stderr, "iotrail: %s\n", msg);
		return err == -ENODEV || err == -ERANGE ? 2 : 1;
	}
	if (getenv("IOTRAIL_DEBUG"))
		say_verified(rc);
	if (rc->missing[0])
		fprintf(stderr, "iotrail: not traced on this kernel: %s\n", rc->missing);
	if (rc->drivers_lost)
		fprintf(stderr, "iotrail: NVMe driver layer not traced: %s\n",
			rc->drivers);
	return 0;
}
