// SPDX-License-Identifier: GPL-2.0
/* User markers into the trace (marks.h, src/marker/abi.h). */
#include "marks.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../marker/abi.h"
#include "../util/grow.h"

struct mark_ring {
	uint32_t pid;
	struct iot_mark_hdr *hdr;
	size_t size;
	/* the first slot not yet read: ours, written to hdr->tail for the
	 * writers, never read back (memory others write) */
	uint64_t tail;
	uint64_t stuck; /* an open slot seen at the last drain, +1 */
	unsigned int stuck_rounds;
	bool damaged; /* left out from then on */
};

/* Empties and removes a markers directory of ours. */
static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char path[512];
		unsigned int pid;

		if (sscanf(e->d_name, "%u.mk", &pid) == 1) {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			unlink(path);
		}
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

/* The directories of recorders that died without cleaning up (SIGKILL):
 * /dev/shm/iotrail-marks.PID of a PID that is gone, and ours. */
static void sweep_dead(void)
{
	DIR *d = opendir("/dev/shm");
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char path[512];
		struct stat st;
		int pid;

		if (sscanf(e->d_name, "iotrail-marks.%d", &pid) != 1 || pid <= 0 ||
		    pid == getpid())
			continue;
		if (!kill(pid, 0) || errno != ESRCH)
			continue; /* its recorder is alive */
		snprintf(path, sizeof(path), "/dev/shm/%s", e->d_name);
		if (!lstat(path, &st) && S_ISDIR(st.st_mode) && st.st_uid == geteuid())
			remove_dir(path);
	}
	if (d)
		closedir(d);
}

int marks_init(struct marks *m, bool command)
{
	const char *env = getenv("IOTRAIL_MARKERS");
	struct stat st;

	memset(m, 0, sizeof(*m));
	if (env && *env) { /* the user's: processes started elsewhere */
		snprintf(m->dir, sizeof(m->dir), "%s", env);
		return 0;
	}
	if (!command)
		return 0;
	sweep_dead();
	/* named by our pid, so that whoever kills us can remove it by name */
	snprintf(m->dir, sizeof(m->dir), "/dev/shm/iotrail-marks.%d", (int)getpid());
	if (mkdir(m->dir, 0700) && errno == EEXIST && !lstat(m->dir, &st) &&
	    S_ISDIR(st.st_mode) && st.st_uid == geteuid())
		remove_dir(m->dir); /* an earlier process of our pid's: stale */
	if (mkdir(m->dir, 0700) && errno != EEXIST) {
		int e = errno;

		m->dir[0] = 0;
		return -e;
	}
	/* nobody else's: a directory, ours, not a link */
	if (lstat(m->dir, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 0077)) {
		m->dir[0] = 0;
		return -EEXIST;
	}
	m->owned = true;
	return setenv("IOTRAIL_MARKERS", m->dir, 1) ? -errno : 0;
}

/* Maps the rings that appeared since the last drain. */
static int find_rings(struct marks *m)
{
	DIR *d = opendir(m->dir);
	struct dirent *e;

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((e = readdir(d))) {
		char path[512];
		unsigned int pid;
		struct stat st;
		size_t i;
		void *p;
		int fd;

		if (sscanf(e->d_name, "%u.mk", &pid) != 1)
			continue;
		for (i = 0; i < m->nr && m->rings[i].pid != pid; i++)
			;
		if (i < m->nr)
			continue;
		snprintf(path, sizeof(path), "%s/%s", m->dir, e->d_name);
		fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			continue;
		/* a ring of another layout, or not yet sized: left for later */
		if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
		    (size_t)st.st_size !=
			sizeof(struct iot_mark_hdr) +
			    IOT_MARK_SLOTS * sizeof(struct iot_mark_slot)) {
			close(fd);
			continue;
		}
		p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			 0);
		close(fd);
		if (p == MAP_FAILED)
			continue;
		if (__atomic_load_n(&((struct iot_mark_hdr *)p)->magic,
				    __ATOMIC_ACQUIRE) != IOT_MARK_MAGIC ||
		    ((struct iot_mark_hdr *)p)->nr_slots != IOT_MARK_SLOTS) {
			munmap(p, (size_t)st.st_size);
			continue;
		}
		if (GROW(m->rings, m->nr + 1, m->cap)) {
			munmap(p, (size_t)st.st_size);
			closedir(d);
			return -ENOMEM;
		}
		m->rings[m->nr++] = (struct mark_ring){
		    .pid = pid,
		    .hdr = p,
		    .size = (size_t)st.st_size,
		    .tail = __atomic_load_n(&((struct iot_mark_hdr *)p)->tail,
					    __ATOMIC_ACQUIRE)};
	}
	closedir(d);
	return 0;
}

static int cmp_ts(const void *x, const void *y)
{
	const struct iot_rec *a = x, *b = y;

	return (a->ts_ns > b->ts_ns) - (a->ts_ns < b->ts_ns);
}

/* The committed slots of one ring from its tail on, into m->buf. */
static int take(struct marks *m, struct mark_ring *r, size_t *n, bool final)
{
	struct iot_mark_hdr *h = r->hdr;
	struct iot_mark_slot *slots = (struct iot_mark_slot *)(h + 1);
	uint64_t tail = r->tail, head = __atomic_load_n(&h->head, __ATOMIC_ACQUIRE);

	if (r->damaged)
		return 0;
	/* a writer reserves no slot more than a ring ahead of the tail, nor
	 * moves head back: a ring so (a stray write, a process that wrote
	 * the file itself) is left out, rather than read slot by slot to a
	 * head 2^64 away, which would hold the stop for ever */
	if (head < tail || head - tail > IOT_MARK_SLOTS) {
		r->damaged = true;
		if (!m->damaged++)
			m->damaged_pid = r->pid;
		return 0;
	}
	while (tail < head) {
		struct iot_mark_slot *s = &slots[tail % IOT_MARK_SLOTS];
		struct iot_rec *o;

		if (__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) != tail + 1) {
			/* a writer between its reservation and its commit: wait
			 * for it, unless it stays so (it died) or this is the end */
			if (r->stuck != tail + 1) {
				r->stuck = tail + 1;
				r->stuck_rounds = 0;
			}
			if (!final && ++r->stuck_rounds <= 5)
				break;
			m->torn++;
			tail++;
			continue;
		}
		if (GROW(m->buf, *n + 1, m->cap_buf))
			return -ENOMEM;
		o = &m->buf[(*n)++];
		memset(o, 0, sizeof(*o));
		o->ts_ns = s->ts_ns;
		o->id = s->id;
		memcpy(&o->id2, s->name, 8);
		memcpy(&o->sector, s->name + 8, 8);
		o->pid = r->pid;
		o->tid = s->tid;
		o->type = IOT_EV_MARK;
		o->cpu = UINT16_MAX;
		o->flags = s->kind;
		tail++;
	}
	r->tail = tail;
	__atomic_store_n(&h->tail, tail, __ATOMIC_RELEASE);
	m->dropped += __atomic_exchange_n(&h->dropped, 0, __ATOMIC_ACQ_REL);
	return 0;
}

int marks_drain(struct marks *m, struct trace_writer *w, bool final)
{
	size_t n = 0;
	int err;

	if (!m->dir[0])
		return 0;
	err = find_rings(m);
	for (size_t i = 0; !err && i < m->nr; i++)
		err = take(m, &m->rings[i], &n, final);
	if (err || !n)
		return err;
	qsort(m->buf, n, sizeof(*m->buf), cmp_ts);
	for (size_t i = 0; i < n; i++)
		m->buf[i].seq = m->seq++;
	m->written += n;
	return trace_writer_chunk(w, IOT_CHUNK_MARKS, 0, m->buf, n * sizeof(*m->buf),
				  NULL, 0);
}

void marks_end(struct marks *m, struct iot_end *e)
{
	e->marks_dropped = m->dropped - m->end_dropped;
	e->marks_torn = m->torn - m->end_torn;
	e->marks_bad_rings = (uint32_t)(m->damaged - m->end_damaged);
	m->end_dropped = m->dropped;
	m->end_torn = m->torn;
	m->end_damaged = m->damaged;
}

void marks_say(const struct marks *m)
{
	if (m->dropped)
		fprintf(stderr,
			"iotrail: %llu user marks dropped: a process's ring was full "
			"(it marked faster than the recorder drains: a higher "
			"--switchrate drains more often)\n",
			(unsigned long long)m->dropped);
	if (m->torn)
		fprintf(stderr,
			"iotrail: %llu user marks left out: begun and never committed "
			"(the process stopped in the middle of one)\n",
			(unsigned long long)m->torn);
	if (m->damaged)
		fprintf(stderr,
			"iotrail: %llu marker ring(s) damaged and left out from then "
			"on (%s/%u.mk first): head or tail where no writer leaves it\n",
			(unsigned long long)m->damaged, m->dir, m->damaged_pid);
}

void marks_release(struct marks *m)
{
	for (size_t i = 0; i < m->nr; i++)
		munmap(m->rings[i].hdr, m->rings[i].size);
	if (m->owned) /* every ring, those made after the last drain too */
		remove_dir(m->dir);
	free(m->rings);
	free(m->buf);
	memset(m, 0, sizeof(*m));
}
