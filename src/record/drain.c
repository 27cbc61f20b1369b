// SPDX-License-Identifier: GPL-2.0
/*
 * Draining the per-CPU buffers into the trace file, and the main loop that
 * does it at every switch period (recorder.h).
 *
 * Consumer protocol, per CPU and per drain (producer side: emit.bpf.h):
 *   1. head = load-acquire(ctl.head); s = tail
 *   2. while s < head and slot[s].seq == s: s++   (committed records)
 *   3. write slots [tail, s) as one EVENTS chunk (two pieces if it wraps)
 *   4. store-release(ctl.tail, s): the slots are the producer's again
 * After all CPUs: a ROUND chunk with the time read before step 1 of the
 * first CPU (the merge barrier of reader.c).
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "../util/grow.h"
#include "recorder.h"
#include "spec.h"

/* the longest the main loop sleeps (--duration and the kernel's stop are
 * noticed within it; the command's exit wakes it, SIGCHLD) */
#define RECORD_TICK_NS (100 * 1000 * 1000ull)
/* how often the devices' in-flight counts are read while settling */
#define SETTLE_TICK_NS (1000 * 1000ull)

/* A task or file already noted by this share is skipped without the lock:
 * the tables would ignore it (a tid is named once, an inode resolved once). */
static void note_task(struct drainer *d, uint32_t pid, uint32_t tid)
{
	uint32_t *seen = &d->seen_tid[(tid * 2654435761u) >> 24];

	if (*seen == tid)
		return;
	*seen = tid;
	pthread_mutex_lock(&d->rc->note_lock);
	task_table_note(&d->rc->tasks, pid, tid);
	pthread_mutex_unlock(&d->rc->note_lock);
}

static void note_file(struct drainer *d, uint32_t dev, uint64_t ino, bool disk)
{
	uint64_t key = (ino * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)dev << 1 | disk);
	uint64_t *seen = &d->seen_file[key >> 56];

	if (!ino || *seen == key)
		return;
	*seen = key;
	pthread_mutex_lock(&d->rc->note_lock);
	file_table_note(&d->rc->files, dev, ino, disk);
	pthread_mutex_unlock(&d->rc->note_lock);
}

/* the tasks and files the records name (tasks.h, files.h) */
static void note_tasks(struct drainer *d, const struct iot_rec *r, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		if (r[i].type == IOT_EV_SUMMARY) {
			const struct iot_summary *s = (const void *)&r[i];

			note_task(d, 0, s->tid);
			continue;
		}
		if (r[i].tid)
			note_task(d, r[i].pid, r[i].tid);
		switch (r[i].type) {
		case IOT_EV_SYS_ENTER: /* the call's file */
			note_file(d, r[i].dev, r[i].id2, false);
			break;
		case IOT_EV_URING_COMPLETE: /* the request's file */
			note_file(d, r[i].dev, r[i].sector, false);
			break;
		case IOT_EV_DIRTY: /* the folio's inode */
			note_file(d, r[i].dev, r[i].id, false);
			break;
		case IOT_EV_BIO_INFO: /* its first page's inode, on the disk */
			if ((r[i].flags >> 16 & 0xff) == IOT_HOST_REG)
				note_file(d, r[i].dev, r[i].id2, true);
			break;
		default:
			break;
		}
	}
}

/* One CPU's buffer b; see the consumer protocol at the top of the file. */
static int drain_cpu(struct drainer *d, uint32_t b)
{
	struct recorder *rc = d->rc;
	uint32_t cpu = rc->buf_cpu[b];
	struct iot_ctl *c = &rc->ctl[cpu];
	struct iot_rec *base = rc->buf + (size_t)b * rc->nr_slots;
	uint64_t mask = rc->nr_slots - 1;
	uint64_t tail = c->tail, s = tail;
	uint64_t head = __atomic_load_n(&c->head, __ATOMIC_ACQUIRE);
	uint64_t n, first, wrap;
	int err;

	if (head - tail > d->fill)
		d->fill = head - tail;
	while (s < head) {
		if (__atomic_load_n(&base[s & mask].seq, __ATOMIC_ACQUIRE) == s) {
			s++;
			continue;
		}
		/* A reserved slot not committed across several drains while
		 * later ones are: its writer is gone; skip it, counted. */
		if (rc->stuck_seq[cpu] == s && ++rc->stuck_rounds[cpu] > 5 &&
		    !rc->final_wait) {
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
		note_tasks(d, base + first, n - wrap);
		if (wrap)
			note_tasks(d, base, wrap);
		err = rc->o->pack
			  ? trace_writer_packed_in(&rc->w, &d->room, cpu, base + first,
						   n - wrap, wrap ? base : NULL, wrap)
			  : trace_writer_chunk(&rc->w, IOT_CHUNK_EVENTS, cpu,
					       base + first, (n - wrap) * IOT_REC_SIZE,
					       wrap ? base : NULL, wrap * IOT_REC_SIZE);
		if (err)
			return err;
		rc->written[cpu] += n;
		d->records += n;
	}
	__atomic_store_n(&c->tail, s, __ATOMIC_RELEASE);
	return 0;
}

/* A share's buffers, once. */
static int drain_share(struct drainer *d)
{
	int err = 0;

	d->fill = 0;
	for (uint32_t b = d->idx; b < d->rc->nr_bufs && !err; b += d->rc->nr_drainers)
		err = drain_cpu(d, b);
	return err;
}

/* A drain thread: its share once each round the main thread starts,
 * until told to quit. */
static void *drainer_main(void *arg)
{
	struct drainer *d = arg;
	struct recorder *rc = d->rc;
	uint64_t done = 0;

	pthread_mutex_lock(&rc->drain_lock);
	for (;;) {
		while (rc->drain_round == done && !rc->drainers_quit)
			pthread_cond_wait(&rc->drain_start, &rc->drain_lock);
		if (rc->drainers_quit)
			break;
		done = rc->drain_round;
		pthread_mutex_unlock(&rc->drain_lock);
		d->err = drain_share(d);
		pthread_mutex_lock(&rc->drain_lock);
		if (--rc->drain_pending == 0)
			pthread_cond_signal(&rc->drain_idle);
	}
	pthread_mutex_unlock(&rc->drain_lock);
	return NULL;
}

/* The most slots in use on one CPU at the last round's drain */
static uint64_t round_fill(const struct recorder *rc)
{
	uint64_t f = 0;

	for (uint32_t i = 0; i < rc->nr_drainers; i++)
		if (rc->drainers[i].fill > f)
			f = rc->drainers[i].fill;
	return f;
}

/* One round: every share drained, the main thread's here. */
static int drain_shares(struct recorder *rc)
{
	int err;

	if (rc->nr_drainers == 1)
		return drain_share(&rc->drainers[0]);
	pthread_mutex_lock(&rc->drain_lock);
	rc->drain_pending = rc->nr_drainers - 1;
	rc->drain_round++;
	pthread_cond_broadcast(&rc->drain_start);
	pthread_mutex_unlock(&rc->drain_lock);
	err = drain_share(&rc->drainers[0]);
	pthread_mutex_lock(&rc->drain_lock);
	while (rc->drain_pending)
		pthread_cond_wait(&rc->drain_idle, &rc->drain_lock);
	pthread_mutex_unlock(&rc->drain_lock);
	for (uint32_t i = 1; i < rc->nr_drainers && !err; i++)
		err = rc->drainers[i].err;
	return err;
}

/* o->threads, or one per RECORD_CPUS_PER_DRAINER CPUs (at most
 * RECORD_MAX_DEFAULT_DRAINERS) when packing, never more than the CPUs; one
 * for the modes that write no records or write them at the stop only.
 * Whole records are one by default: their cost is the write, which the
 * writer serialises (bench/drainrate: two threads wrote 64-byte records to
 * tmpfs 0.7x as fast as one, packed ones 1.2x as fast, on 2 vCPUs). */
static uint32_t drainers_wanted(const struct recorder *rc)
{
	const struct record_opts *o = rc->o;
	uint32_t n = o->threads;

	if (o->aggregate || o->policy == IOT_POLICY_RING || (!n && !o->pack))
		return 1;
	if (!n) {
		n = (rc->nr_bufs + RECORD_CPUS_PER_DRAINER - 1) / RECORD_CPUS_PER_DRAINER;
		if (n > RECORD_MAX_DEFAULT_DRAINERS)
			n = RECORD_MAX_DEFAULT_DRAINERS;
	}
	return n < rc->nr_bufs ? n : rc->nr_bufs;
}

int drainers_start(struct recorder *rc)
{
	uint32_t n = drainers_wanted(rc), started = 1;
	sigset_t all, old;
	int err = 0;

	rc->drainers = calloc(n, sizeof(*rc->drainers));
	if (!rc->drainers)
		return -ENOMEM;
	rc->note_lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
	rc->drain_lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
	rc->drain_start = (pthread_cond_t)PTHREAD_COND_INITIALIZER;
	rc->drain_idle = (pthread_cond_t)PTHREAD_COND_INITIALIZER;
	for (uint32_t i = 0; i < n; i++) {
		rc->drainers[i].rc = rc;
		rc->drainers[i].idx = i;
		memset(rc->drainers[i].seen_tid, 0xff, sizeof(rc->drainers[i].seen_tid));
	}
	/* the signals that stop the recording are the main thread's */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (; started < n; started++) {
		err = pthread_create(&rc->drainers[started].thread, NULL, drainer_main,
				     &rc->drainers[started]);
		if (err)
			break;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) /* fewer threads, each a larger share: said, not fatal */
		fprintf(stderr, "iotrail: drain threads: %u of %u started: %s\n", started,
			n, strerror(err));
	/* no round has started: the threads read it only from the first */
	rc->nr_drainers = started;
	return 0;
}

void drainers_stop(struct recorder *rc)
{
	if (!rc->drainers)
		return;
	pthread_mutex_lock(&rc->drain_lock);
	rc->drainers_quit = true;
	pthread_cond_broadcast(&rc->drain_start);
	pthread_mutex_unlock(&rc->drain_lock);
	for (uint32_t i = 1; i < rc->nr_drainers; i++) /* each one started */
		pthread_join(rc->drainers[i].thread, NULL);
	if (getenv("IOTRAIL_DEBUG")) {
		fprintf(stderr, "iotrail: debug: %u drain threads, records drained:",
			rc->nr_drainers);
		for (uint32_t i = 0; i < rc->nr_drainers; i++)
			fprintf(stderr, " %llu",
				(unsigned long long)rc->drainers[i].records);
		fputc('\n', stderr);
	}
	for (uint32_t i = 0; i < rc->nr_drainers; i++)
		trace_pack_room_release(&rc->drainers[i].room);
	free(rc->drainers);
	rc->drainers = NULL;
	rc->nr_drainers = 0;
}

/* The CPUs whose drops grew since the last read, as one DROPS_AT chunk:
 * where in time the records were lost (docs/FORMAT.md). */
static int drops_at(struct recorder *rc)
{
	struct {
		struct iot_drops_at at;
		struct iot_drop_entry e[64];
	} c;
	uint32_t n = 0;
	int err = 0;

	c.at.from_ns = rc->drops_read_ns;
	c.at.to_ns = now_ns(CLOCK_MONOTONIC);
	rc->drops_read_ns = c.at.to_ns;
	for (uint32_t cpu = 0; cpu < rc->nr_cpus && !err; cpu++) {
		struct iot_drop_entry e = cpu_drop_entry(rc, cpu);

		if (iot_drop_total(&e) == rc->drops_said[cpu])
			continue;
		rc->drops_said[cpu] = iot_drop_total(&e);
		c.e[n++] = e;
		if (n == 64 || cpu + 1 == rc->nr_cpus) {
			err = trace_writer_chunk(&rc->w, IOT_CHUNK_DROPS_AT, 0, &c,
						 sizeof(c.at) + n * sizeof(c.e[0]), NULL,
						 0);
			n = 0;
		}
	}
	if (!err && n)
		err = trace_writer_chunk(&rc->w, IOT_CHUNK_DROPS_AT, 0, &c,
					 sizeof(c.at) + n * sizeof(c.e[0]), NULL, 0);
	return err;
}

static int drain_all(struct recorder *rc)
{
	struct iot_round rd = {.mark_ns = now_ns(CLOCK_MONOTONIC)};
	int err;

	rc->last_mark_ns = rd.mark_ns;
	err = drain_shares(rc);
	if (err)
		return err;
	err = write_new_tasks(rc);
	if (!err)
		err = drops_at(rc);
	if (!err)
		err = marks_drain(&rc->marks, &rc->w, rc->final_wait);
	return err ? err
		   : trace_writer_chunk(&rc->w, IOT_CHUNK_ROUND, 0, &rd, sizeof(rd), NULL,
					0);
}

/* n whole records of cpu's stream, packed or not, at the stop */
static int write_records(struct recorder *rc, uint32_t cpu, const struct iot_rec *r,
			 uint64_t n)
{
	if (!n)
		return 0;
	rc->written[cpu] += n;
	return rc->o->pack ? trace_writer_packed(&rc->w, cpu, r, n, NULL, 0)
			   : trace_writer_chunk(&rc->w, IOT_CHUNK_EVENTS, cpu, r,
						n * IOT_REC_SIZE, NULL, 0);
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
	for (uint32_t b = 0; b < rc->nr_bufs && !err; b++) {
		struct iot_rec *base = rc->buf + (size_t)b * rc->nr_slots;
		uint32_t cpu = rc->buf_cpu[b];
		uint64_t head = __atomic_load_n(&rc->ctl[cpu].head, __ATOMIC_ACQUIRE);
		uint64_t n = 0;

		for (uint64_t s = head > rc->nr_slots ? head - rc->nr_slots : 0; s < head;
		     s++)
			if (__atomic_load_n(&base[s & mask].seq, __ATOMIC_ACQUIRE) == s)
				out[n++] = base[s & mask];
		note_tasks(&rc->drainers[0], out, n);
		err = write_records(rc, cpu, out, n);
	}
	free(out);
	if (!err)
		err = trace_writer_chunk(&rc->w, IOT_CHUNK_ROUND, 0, &rd, sizeof(rd),
					 NULL, 0);
	return err;
}

/* The kernel side's stop state (fill full, ring trigger), or 0. */
uint64_t kernel_stop(const struct recorder *rc)
{
	return __atomic_load_n(&rc->skel->bss->stop.reason, __ATOMIC_ACQUIRE);
}

/* A reaped slot held an issued request: no program saw it complete (the
 * kernel ran none, docs/ARCHITECTURE.md "Oracles"), as when the kernel
 * claims such a slot again (sum_reclaimed): --aggregate counts it with
 * those, --summary and back-pressure write it flagged lost at the stop. */
static void reaped_lost(struct recorder *rc, const struct iot_sum_slot *copy)
{
	const struct record_opts *o = rc->o;

	if (o->aggregate)
		__atomic_fetch_add(&rc->ctl[0].agg_lost, 1, __ATOMIC_RELAXED);
	else if ((o->summary || record_degrades(o)) &&
		 !GROW(rc->reaped, rc->nr_reaped + 1, rc->cap_reaped))
		rc->reaped[rc->nr_reaped++] = *copy;
}

/*
 * --summary keeps per-bio state in the kernel; a bio that never completes
 * (front-merged away, or torn by a lost event) would hold its slot forever.
 * About once a second the recorder frees, through the mmap, slots whose Q is
 * over a minute old (IOTRAIL_REAP_AGE, for tests) and that held the same
 * bio with the same Q one sweep earlier: a slot just claimed by the kernel
 * (key written, q_ns not yet) changes between two sweeps and is never
 * taken. What it held is copied first: once freed, the kernel may take it.
 */
static void reap_inflight(struct recorder *rc, uint64_t now)
{
	for (size_t i = 0; i < (size_t)IOT_SUM_SETS * IOT_SUM_WAYS; i++) {
		struct iot_sum_slot *sl = &rc->sum[i], copy;
		uint64_t key = __atomic_load_n(&sl->key, __ATOMIC_ACQUIRE);
		uint64_t q = __atomic_load_n(&sl->q_ns, __ATOMIC_ACQUIRE);

		if (!key || !q || q + rc->reap_age_ns >= now) {
			rc->reap_key[i] = 0;
			continue;
		}
		copy = *sl;
		if (rc->reap_key[i] == key && rc->reap_q[i] == q &&
		    __atomic_compare_exchange_n(&sl->key, &key, 0, false,
						__ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
			if (rc->o->speculate_ns)
				spec_release_slot(rc->skel->maps.spec_free, sl);
			if (record_degrades(rc->o)) /* back-pressure counts its slots */
				__atomic_fetch_sub(&rc->skel->bss->degrade_live, 1,
						   __ATOMIC_RELAXED);
			if (copy.key == key && copy.q_ns == q && copy.d_delta_ns)
				reaped_lost(rc, &copy);
		}
		rc->reap_key[i] = key;
		rc->reap_q[i] = q;
	}
}

/* which dev_t (and cgroup, in the high half) the kernel gave each slot */
static void slot_devs(int fd, uint32_t nr_slots, uint64_t slot_dev[IOT_AGG_DEVS])
{
	uint64_t key, next, *prev = NULL;
	uint32_t slot;

	memset(slot_dev, 0, IOT_AGG_DEVS * sizeof(*slot_dev));
	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &slot) == 0 && slot < nr_slots)
			slot_dev[slot] = key;
	}
}

/* The histograms of the device slots handed out so far: the kernel hands
 * them out in order (agg_next_slot, .data), and the ones past it are zero.
 * Summing 64 slots over 448 CPUs each second is 90M loads. */
static size_t agg_hists_used(const uint64_t *next_slot, uint32_t agg_devs)
{
	uint64_t used = __atomic_load_n(next_slot, __ATOMIC_ACQUIRE);

	return IOT_AGG_HISTS(used < agg_devs ? (uint32_t)used : agg_devs);
}

/* histogram hi (buckets, then the sum) summed over the CPUs' regions */
static void sum_hist(const uint64_t *agg, size_t per_cpu, uint32_t nr_bufs, size_t hi,
		     uint64_t cur[IOT_AGG_KHIST])
{
	memset(cur, 0, IOT_AGG_KHIST * sizeof(*cur));
	for (uint32_t r = 0; r < nr_bufs; r++) {
		const uint64_t *src = agg + (size_t)r * per_cpu + hi * IOT_AGG_KHIST;

		for (size_t b = 0; b < IOT_AGG_KHIST; b++)
			cur[b] += __atomic_load_n(&src[b], __ATOMIC_RELAXED);
	}
}

static void set_entry(struct iot_agg_entry *e, const uint64_t *slot_dev, size_t hi,
		      const uint64_t cur[IOT_AGG_KHIST])
{
	memset(e, 0, sizeof(*e));
	e->dev = (uint32_t)slot_dev[iot_agg_slot((uint32_t)hi)];
	e->op = (uint8_t)iot_agg_op((uint32_t)hi);
	e->metric = (uint8_t)iot_agg_metric((uint32_t)hi);
	e->sum = cur[IOT_AGG_KBUCKETS];
	memcpy(e->buckets, cur, IOT_AGG_KBUCKETS * sizeof(*cur));
}

/* --aggregate: the requests the CPUs found issued with no completion seen */
static uint64_t agg_lost(const struct iot_ctl *ctl, uint32_t nr_cpus)
{
	uint64_t n = 0;

	for (uint32_t cpu = 0; cpu < nr_cpus; cpu++)
		n += __atomic_load_n(&ctl[cpu].agg_lost, __ATOMIC_RELAXED);
	return n;
}

/* ---- serve --by cgroup: slots of pairs whose cgroup went away, taken back ---- */

/* the low 32 bits of the inode of every directory under dir (a cgroup's
 * id as the programs read it), into ids */
static void cgroup_ids(const char *dir, int depth, uint32_t **ids, size_t *n, size_t *cap)
{
	struct dirent *de;
	struct stat st;
	DIR *d;

	if (depth > 32 || stat(dir, &st) || !S_ISDIR(st.st_mode) ||
	    GROW(*ids, *n + 1, *cap))
		return;
	(*ids)[(*n)++] = (uint32_t)st.st_ino;
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		char sub[4096];

		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name);
		cgroup_ids(sub, depth + 1, ids, n, cap);
	}
	closedir(d);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* the requests slot s counted so far, over every op and CPU (of the sums
 * in src, the recorder's agg_prev when not NULL) */
static uint64_t slot_count(const struct recorder *rc, uint32_t s, const uint64_t *prev)
{
	size_t first = iot_agg_hist(s, 0, IOT_AGG_Q2C), n = 0;

	for (uint32_t op = 0; op < IOT_AGG_OPS; op++) {
		size_t hi = first + (size_t)op * IOT_AGG_DEV_METRICS;
		uint64_t cur[IOT_AGG_KHIST];

		if (prev)
			memcpy(cur, prev + hi * IOT_AGG_KHIST, sizeof(cur));
		else
			sum_hist(rc->agg, agg_per_cpu(rc), rc->nr_bufs, hi, cur);
		for (size_t b = 0; b < IOT_AGG_KBUCKETS; b++)
			n += cur[b];
	}
	return n;
}

/* Slot s back to the programs: its key gone, the CPUs' last-slot entries
 * void, its histograms zero, then into the ring they take from. */
static void take_back(struct recorder *rc, uint32_t s, uint64_t key)
{
	size_t first = iot_agg_hist(s, 0, 0), len = IOT_AGG_HISTS_PER_DEV * IOT_AGG_KHIST;
	uint64_t tail = rc->skel->bss->agg_free_tail;
	uint32_t i = (uint32_t)(tail % IOT_AGG_DEVS);

	if (key && bpf_map_delete_elem(bpf_map__fd(rc->skel->maps.agg_devs), &key))
		return;
	__atomic_add_fetch(&rc->skel->bss->agg_gen, 1, __ATOMIC_SEQ_CST);
	for (uint32_t r = 0; r < rc->nr_bufs; r++)
		memset(rc->agg + (size_t)r * agg_per_cpu(rc) + first * IOT_AGG_KHIST, 0,
		       len * sizeof(uint64_t));
	memset(rc->agg_prev + first * IOT_AGG_KHIST, 0, len * sizeof(uint64_t));
	if (bpf_map_update_elem(bpf_map__fd(rc->skel->maps.agg_free), &i, &s, BPF_ANY))
		return;
	__atomic_store_n(&rc->skel->bss->agg_free_tail, tail + 1, __ATOMIC_RELEASE);
}

/*
 * Every RECORD_RECLAIM_NS (IOTRAIL_RECLAIM, for tests): a (disk, cgroup)
 * pair whose cgroup is in no hierarchy, and that counted nothing more,
 * at two looks in a row, gives its slot back, and its series end; so
 * does a slot handed out and never keyed (two CPUs took one each for the
 * same pair). A container host makes and removes cgroups all day: the
 * slots would run out, and every later pair's requests be lost. With -o,
 * only a slot whose counts are all in the trace's AGG chunks.
 */
void reclaim_slots(struct recorder *rc)
{
	static const char *const roots[] = {"/sys/fs/cgroup/blkio",
					    "/sys/fs/cgroup/unified"};
	uint64_t next = __atomic_load_n(&rc->skel->data->agg_next_slot, __ATOMIC_ACQUIRE);
	uint64_t head = __atomic_load_n(&rc->skel->bss->agg_free_head, __ATOMIC_ACQUIRE);
	uint64_t tail = rc->skel->bss->agg_free_tail, slot_dev[IOT_AGG_DEVS];
	uint32_t used = next < rc->agg_devs ? (uint32_t)next : rc->agg_devs, *ids = NULL;
	bool in_ring[IOT_AGG_DEVS] = {false};
	size_t n = 0, cap = 0;
	struct stat st;

	for (size_t r = 0; r < sizeof(roots) / sizeof(roots[0]); r++)
		cgroup_ids(roots[r], 0, &ids, &n, &cap);
	if (!stat("/sys/fs/cgroup/cgroup.controllers", &st)) /* v2 at the root */
		cgroup_ids("/sys/fs/cgroup", 0, &ids, &n, &cap);
	if (!n) { /* no hierarchy read: nothing is known gone */
		free(ids);
		return;
	}
	qsort(ids, n, sizeof(*ids), cmp_u32);
	slot_devs(bpf_map__fd(rc->skel->maps.agg_devs), rc->agg_devs, slot_dev);
	for (uint64_t k = head; k < tail; k++) {
		uint32_t i = (uint32_t)(k % IOT_AGG_DEVS), s;

		if (!bpf_map_lookup_elem(bpf_map__fd(rc->skel->maps.agg_free), &i, &s) &&
		    s < IOT_AGG_DEVS)
			in_ring[s] = true;
	}
	for (uint32_t s = 1; s < used; s++) {
		uint32_t cg = (uint32_t)(slot_dev[s] >> 32);
		uint64_t count = slot_count(rc, s, NULL);
		bool gone = !slot_dev[s]
				? !in_ring[s]
				: cg && !bsearch(&cg, ids, n, sizeof(*ids), cmp_u32);

		struct slot_look *last = &rc->looks[s];

		if (gone && last->gone && last->key == slot_dev[s] &&
		    last->count == count &&
		    (!rc->o->interval_ns || count == slot_count(rc, s, rc->agg_prev))) {
			take_back(rc, s, slot_dev[s]);
			gone = false;
			count = 0;
		}
		*last =
		    (struct slot_look){.key = slot_dev[s], .count = count, .gone = gone};
	}
	free(ids);
}

/*
 * --aggregate: one AGG chunk with what each histogram gained since the last
 * one (summed over CPUs, read through the mmap), naming each device by the
 * dev_t the kernel gave its slot.
 */
static int write_agg(struct recorder *rc, uint64_t now)
{
	const size_t hists = agg_hists_used(
	    (const uint64_t *)&rc->skel->data->agg_next_slot, rc->agg_devs);
	struct iot_agg_header h = {.start_ns = rc->agg_last_ns, .end_ns = now};
	uint64_t slot_dev[IOT_AGG_DEVS];
	struct iot_agg_entry *e;
	size_t n = 0;
	int err;

	slot_devs(bpf_map__fd(rc->skel->maps.agg_devs), rc->agg_devs, slot_dev);
	e = calloc(hists, sizeof(*e));
	if (!e)
		return -ENOMEM;
	for (size_t hi = 0; hi < hists; hi++) {
		uint64_t cur[IOT_AGG_KHIST], count = 0;

		sum_hist(rc->agg, agg_per_cpu(rc), rc->nr_bufs, hi, cur);
		for (size_t b = 0; b < IOT_AGG_KHIST; b++) {
			uint64_t d = cur[b] - rc->agg_prev[hi * IOT_AGG_KHIST + b];

			rc->agg_prev[hi * IOT_AGG_KHIST + b] = cur[b];
			cur[b] = d;
			if (b < IOT_AGG_KBUCKETS)
				count += d;
		}
		/* (a slot being taken back has no key: not a disk's) */
		if (count &&
		    (hi < IOT_AGG_SYSCALLS || slot_dev[iot_agg_slot((uint32_t)hi)]))
			set_entry(&e[n++], slot_dev, hi, cur);
	}
	h.nr_entries = n;
	h.lost = (uint32_t)(agg_lost(rc->ctl, rc->nr_cpus) - rc->agg_lost_prev);
	rc->agg_lost_prev += h.lost;
	err = trace_writer_chunk(&rc->w, IOT_CHUNK_AGG, 0, &h, sizeof(h), e,
				 n * sizeof(*e));
	free(e);
	rc->agg_last_ns = now;
	return err;
}

int record_live_read(const struct record_live *lv, struct iot_agg_entry **out, size_t *n,
		     uint32_t **cgroups, struct record_live_lost *lost)
{
	const size_t hists = agg_hists_used(lv->next_slot, lv->agg_devs);
	uint64_t slot_dev[IOT_AGG_DEVS];
	struct iot_agg_entry *e;
	uint32_t *cg = NULL;

	slot_devs(lv->slot_fd, lv->agg_devs, slot_dev);
	e = calloc(hists ? hists : 1, sizeof(*e));
	if (cgroups)
		cg = calloc(hists ? hists : 1, sizeof(*cg));
	if (!e || (cgroups && !cg)) {
		free(e);
		free(cg);
		return -ENOMEM;
	}
	*n = 0;
	for (size_t hi = 0; hi < hists; hi++) {
		uint64_t cur[IOT_AGG_KHIST], count = 0;

		sum_hist(lv->agg, lv->per_cpu, lv->nr_bufs, hi, cur);
		for (size_t b = 0; b < IOT_AGG_KBUCKETS; b++)
			count += cur[b];
		/* a device slot the kernel has not handed out yet is empty,
		 * and one being taken back has no key */
		if (!count ||
		    (hi >= IOT_AGG_SYSCALLS && !slot_dev[iot_agg_slot((uint32_t)hi)]))
			continue;
		if (cg)
			cg[*n] = (uint32_t)(slot_dev[iot_agg_slot((uint32_t)hi)] >> 32);
		set_entry(&e[(*n)++], slot_dev, hi, cur);
	}
	lost->no_room = 0;
	for (uint32_t cpu = 0; cpu < lv->nr_cpus; cpu++)
		lost->no_room +=
		    __atomic_load_n(&lv->ctl[cpu].drops_nostate, __ATOMIC_RELAXED);
	lost->completions = agg_lost(lv->ctl, lv->nr_cpus);
	/* slot 0 is the system calls' */
	lost->slots = lv->agg_devs - 1;
	lost->slots_used = hists ? iot_agg_slot((uint32_t)hists - 1) : 0;
	{ /* less the ones taken back and not handed out again */
		uint64_t back = __atomic_load_n(lv->free_tail, __ATOMIC_ACQUIRE) -
				__atomic_load_n(lv->free_head, __ATOMIC_ACQUIRE);

		lost->slots_used -=
		    back < lost->slots_used ? (uint32_t)back : lost->slots_used;
	}
	*out = e;
	if (cgroups)
		*cgroups = cg;
	return 0;
}

static void progress(struct recorder *rc, bool final)
{
	uint64_t recs = 0, drops = 0;

	for (uint32_t i = 0; i < rc->nr_cpus; i++) {
		recs += rc->written[i];
		struct iot_drop_entry e = cpu_drop_total(rc, i);

		drops += iot_drop_total(&e);
	}
	fprintf(stderr, "\riotrail: recording %.1f s, %llu records, %llu drops%s",
		(now_ns(CLOCK_MONOTONIC) - rc->start_ns) / 1e9, (unsigned long long)recs,
		(unsigned long long)drops, final ? "\n" : "   ");
}

/*
 * After the command's exit, the requests it left in flight (readahead, an
 * O_DIRECT write of a process it did not wait for) complete later: the
 * recording goes on until the recorded devices have none in flight, for at
 * most settle=TIME. Whether a request was the command's is not known
 * here: the counts are the devices', from sysfs. Ending once the devices
 * had completed as many as were in flight at the exit (for a device others
 * keep busy) stopped with some still in flight: sysfs counts only the
 * requests started at the driver, not those waiting for a tag behind them.
 */
struct settle {
	struct devtab_io at_exit;
	uint64_t start_ns, end_ns;
};

static void settle_begin(struct recorder *rc, struct settle *s, uint64_t now)
{
	devtab_io(&rc->devs, &s->at_exit);
	s->start_ns = now;
	s->end_ns = now + rc->o->settle_ns;
}

static bool settle_done(struct recorder *rc, const struct settle *s, uint64_t now,
			bool debug)
{
	struct devtab_io io;

	devtab_io(&rc->devs, &io);
	if (io.in_flight) {
		if (now < s->end_ns)
			return false;
		fprintf(stderr,
			"iotrail: %llu requests still in flight on the recorded "
			"devices %.1f s after %s exited; stopped (settle=)\n",
			(unsigned long long)io.in_flight, (now - s->start_ns) / 1e9,
			rc->o->argv[0]);
		return true;
	}
	if (debug)
		fprintf(stderr,
			"iotrail: debug: %llu requests in flight at the command's "
			"exit; settled in %.1f ms (%llu completed)\n",
			(unsigned long long)s->at_exit.in_flight,
			(now - s->start_ns) / 1e6,
			(unsigned long long)(io.done - s->at_exit.done));
	return true;
}

/* --max-size reached (IOT_STOP_SIZE), or no room on the file system for
 * what the stop still writes (IOT_STOP_SPACE, said), else 0. The blocks
 * for it are allocated ahead at each look. */
static uint32_t out_of_room(struct recorder *rc)
{
	const struct record_opts *o = rc->o;
	int err;

	if (o->max_size && rc->w.offset >= o->max_size)
		return IOT_STOP_SIZE;
	err = trace_writer_reserve(&rc->w, rc->reserve_bytes);
	if (!err)
		return 0;
	fprintf(stderr,
		"iotrail: %s: %s: no room for the next %.0f MB, kept for the last "
		"drain and the tables: tracing stopped at %.1f MB\n",
		rc->path, strerror(-err), rc->reserve_bytes / 1048576.0,
		rc->w.offset / 1048576.0);
	return IOT_STOP_SPACE;
}

int record_loop(struct recorder *rc)
{
	const struct record_opts *o = rc->o;
	/* progress on a terminal and the in-flight reaping: once a second */
	uint64_t next_progress = rc->start_ns + 1000000000ull, next_reap = next_progress;
	uint64_t next_agg = o->interval_ns ? rc->start_ns + o->interval_ns : UINT64_MAX;
	uint64_t next_reclaim = rc->start_ns + rc->reclaim_ns;
	/* the drain period: switchrate's, shorter while buffers fill fast;
	 * the shortest at first (a command's first burst would fill a
	 * buffer past half before a first drain at switchrate), doubling
	 * from there while buffers stay nearly empty */
	uint64_t fastest = o->switchmax_ns && o->switchmax_ns < o->switch_ns
			       ? o->switchmax_ns
			       : o->switch_ns;
	uint64_t period = fastest, min_period = UINT64_MAX, max_period = 0;
	uint64_t last_drain = 0, max_gap = 0, max_drain = 0,
		 next_drain = rc->start_ns + period;
	bool debug = getenv("IOTRAIL_DEBUG") != NULL, tty = isatty(STDERR_FILENO);
	struct settle settle = {0};
	int err = 0;

	rc->agg_last_ns = rc->start_ns;
	for (;;) {
		/* wake at least every RECORD_TICK_NS: the command's exit, the
		 * duration and the kernel's stop are noticed within that,
		 * whatever the switch rate; the buffers are drained at it */
		uint64_t now = now_ns(CLOCK_MONOTONIC), t, d0;
		uint32_t room;
		uint64_t wait = o->policy == IOT_POLICY_SWITCH && next_drain > now
				    ? next_drain - now
				    : 0;
		struct timespec ts;

		if (o->policy != IOT_POLICY_SWITCH || wait > RECORD_TICK_NS)
			wait = RECORD_TICK_NS;
		if (rc->child_exited && wait > SETTLE_TICK_NS)
			wait = SETTLE_TICK_NS;
		if (o->duration_ns && rc->start_ns + o->duration_ns > now &&
		    rc->start_ns + o->duration_ns - now < wait)
			wait = rc->start_ns + o->duration_ns - now;
		ts.tv_sec = (time_t)(wait / 1000000000ull);
		ts.tv_nsec = (long)(wait % 1000000000ull);
		if (!record_stop_signal && wait)
			nanosleep(&ts, NULL);
		/* fill and ring: the buffer is read once, at the stop (fill: when
		 * the first CPU is full; DTrace's fill is never switched) */
		d0 = now_ns(CLOCK_MONOTONIC);
		if (o->policy == IOT_POLICY_SWITCH && d0 >= next_drain) {
			if (debug && last_drain && d0 - last_drain > max_gap)
				max_gap = d0 - last_drain;
			err = drain_all(rc);
			last_drain = now_ns(CLOCK_MONOTONIC);
			period = record_next_period(period, round_fill(rc), rc->nr_slots,
						    fastest, o->switch_ns);
			if (period < min_period)
				min_period = period;
			if (period > max_period)
				max_period = period;
			next_drain = d0 + period;
			if (debug && last_drain - d0 > max_drain)
				max_drain = last_drain - d0;
		}
		if (err)
			break;
		if ((room = out_of_room(rc)) == IOT_STOP_SIZE && o->max_files) {
			/* --max-files: on in the next file */
			int sw = switch_output(rc);

			if (sw < 0) {
				err = sw;
				break;
			}
			room = (uint32_t)sw;
		} else if (room == IOT_STOP_SIZE) {
			fprintf(stderr,
				"iotrail: %s: --max-size reached at %.1f MB: tracing "
				"stopped\n",
				rc->path, rc->w.offset / 1048576.0);
		}
		if (room) {
			rc->reason = room;
			break;
		}
		if (kernel_stop(rc)) {
			rc->reason = kernel_stop(rc) == IOT_STOP_REASON_FULL
					 ? IOT_STOP_FILL
					 : IOT_STOP_TRIGGER;
			break;
		}
		if (record_stop_signal) {
			rc->reason =
			    rc->child_exited ? IOT_STOP_COMMAND : IOT_STOP_SIGNAL;
			break;
		}
		t = now_ns(CLOCK_MONOTONIC);
		if (rc->child > 0 && !rc->child_exited &&
		    waitpid(rc->child, &rc->child_status, WNOHANG) == rc->child) {
			rc->child_done = rc->child_exited = true;
			rc->reason = IOT_STOP_COMMAND;
			if (!o->settle_ns)
				break;
			settle_begin(rc, &settle, t);
		}
		if (rc->child_exited && settle_done(rc, &settle, t, debug))
			break;
		if (o->duration_ns && t - rc->start_ns >= o->duration_ns) {
			rc->reason =
			    rc->child_exited ? IOT_STOP_COMMAND : IOT_STOP_DURATION;
			break;
		}
		if (o->aggregate && t >= next_agg) {
			err = write_agg(rc, t);
			if (err)
				break;
			next_agg = t + o->interval_ns;
		}
		if (o->agg_by_cgroup && t >= next_reclaim) {
			reclaim_slots(rc);
			next_reclaim = t + rc->reclaim_ns;
		}
		if ((o->summary || o->aggregate || o->speculate_ns ||
		     record_degrades(o)) &&
		    t >= next_reap) {
			reap_inflight(rc, t);
			next_reap = t + 1000000000ull;
		}
		if (tty && t >= next_progress) {
			progress(rc, false);
			next_progress = t + 1000000000ull;
		}
	}
	if (err) {
		fprintf(stderr,
			"iotrail: %s: %s: tracing stopped; the file keeps every "
			"chunk written whole before\n",
			rc->path, strerror(-err));
		rc->reason = IOT_STOP_ERROR;
	}
	if (debug)
		fprintf(stderr,
			"iotrail: debug: longest gap between drains %.1f ms, longest "
			"drain %.1f ms, drain period %.1f to %.1f ms\n",
			max_gap / 1e6, max_drain / 1e6,
			(min_period == UINT64_MAX ? 0 : min_period) / 1e6,
			max_period / 1e6);
	return err;
}

/* Whether every CPU's reserved slots were committed and written. */
static bool all_drained(const struct recorder *rc)
{
	for (uint32_t cpu = 0; cpu < rc->nr_cpus; cpu++)
		if (__atomic_load_n(&rc->ctl[cpu].head, __ATOMIC_ACQUIRE) !=
		    rc->ctl[cpu].tail)
			return false;
	return true;
}

/* The last drains. A program detached may still be running: preempted
 * between its reservation and its commit (BPF programs on tracepoints run
 * preemptible), it holds back every later record of its CPU. Drain until
 * every slot is written, waiting up to FINAL_WAIT_NS for such writers;
 * then the slots still open are skipped and counted as torn, and what
 * follows them is written. */
#define FINAL_WAIT_NS (1000 * 1000 * 1000ull)
static int drain_until_committed(struct recorder *rc)
{
	uint64_t start = now_ns(CLOCK_MONOTONIC);
	struct timespec pause = {0, 1000 * 1000};
	int e;

	rc->final_wait = true;
	while (!(e = drain_all(rc)) && !all_drained(rc)) {
		if (now_ns(CLOCK_MONOTONIC) - start > FINAL_WAIT_NS)
			rc->final_wait = false; /* skip them, counted */
		nanosleep(&pause, NULL);
	}
	rc->final_wait = false;
	return e;
}

static struct iot_summary unwritten(const struct iot_sum_slot *sl, uint64_t now,
				    uint64_t seq, uint32_t flag)
{
	return (struct iot_summary){
	    .c_ns = now,
	    .seq = seq,
	    .sector = sl->sector,
	    .q_ns = sl->q_ns,
	    .i_delta_ns = sl->i_delta_ns,
	    .d_delta_ns = sl->d_delta_ns,
	    .nr = sl->nr,
	    .dev = sl->dev,
	    .tid = sl->tid,
	    .type = IOT_EV_SUMMARY,
	    .flags = sl->flags | flag,
	};
}

/* A slot held by a request issued and still in flight at the stop (the
 * table as the detached programs left it). */
static bool held_issued(const struct iot_sum_slot *sl)
{
	return __atomic_load_n(&sl->key, __ATOMIC_ACQUIRE) && sl->d_delta_ns;
}

/* --aggregate: the requests in flight at the stop, in no histogram (as
 * write_unfinished's are in no summary) */
static uint64_t count_unfinished(const struct recorder *rc)
{
	uint64_t n = 0;

	for (size_t i = 0; i < (size_t)IOT_SUM_SETS * IOT_SUM_WAYS; i++)
		n += held_issued(&rc->sum[i]);
	return n;
}

/*
 * --summary and back-pressure write a request at its completion. The ones
 * issued and still in flight at the stop (their slot holds a D) go out as
 * SUMMARY records flagged unfinished, stamped with the stop, on CPU 0's
 * stream after its last record: the report counts them, as it counts the
 * requests left open in the events. A request the kernel completed with no
 * program run (docs/ARCHITECTURE.md, "Oracles") whose address never came
 * back is among them, unless the reaper took its slot first: those go out
 * flagged lost, also stamped with the stop. Called with the programs
 * detached.
 */
static int write_unfinished(struct recorder *rc)
{
	size_t nr = (size_t)IOT_SUM_SETS * IOT_SUM_WAYS, n = 0;
	uint64_t now = now_ns(CLOCK_MONOTONIC), seq = rc->ctl[0].head;
	struct iot_summary *out = calloc(nr + rc->nr_reaped, sizeof(*out));
	int err;

	if (!out)
		return -ENOMEM;
	for (size_t i = 0; i < rc->nr_reaped; i++, n++)
		out[n] = unwritten(&rc->reaped[i], now, seq + n, IOT_SUMMARY_F_LOST);
	for (size_t i = 0; i < nr; i++) {
		const struct iot_sum_slot *sl = &rc->sum[i];

		if (!held_issued(sl))
			continue;
		out[n] = unwritten(sl, now, seq + n, IOT_SUMMARY_F_UNFINISHED);
		n++;
	}
	/* their tasks named too (from the exited map, if gone) */
	note_tasks(&rc->drainers[0], (const struct iot_rec *)out, n);
	err = write_records(rc, 0, (const struct iot_rec *)out, n);
	free(out);
	return err;
}

int final_drain(struct recorder *rc)
{
	int e;

	/* stop producing (every program at once), then take what is left */
	__atomic_store_n(&rc->skel->bss->armed, 0, __ATOMIC_RELEASE);
	iotrail_bpf__detach(rc->skel);
	if (rc->o->policy == IOT_POLICY_RING) {
		/* let programs still running on other CPUs finish */
		struct timespec settle = {0, 10 * 1000 * 1000};

		nanosleep(&settle, NULL);
		e = drain_ring(rc);
	} else {
		e = drain_until_committed(rc);
		if (!e &&
		    ((rc->o->summary && !rc->o->aggregate) || record_degrades(rc->o)))
			e = write_unfinished(rc);
	}
	if (!e && rc->o->aggregate) {
		rc->agg_unfinished = count_unfinished(rc);
		e = write_agg(rc, now_ns(CLOCK_MONOTONIC));
	}
	if (e)
		fprintf(stderr, "iotrail: %s: %s\n", rc->path, strerror(-e));
	if (isatty(STDERR_FILENO))
		progress(rc, true);
	return e;
}
