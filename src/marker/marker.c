// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* The user markers' library (include/iotrail/marker.h, src/marker/abi.h). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "abi.h"
#include "iotrail/marker.h"

/* 0: not looked at yet; 1: marking; -1: off (no recorder, or no memory) */
static int state;
static struct iot_mark_hdr *hdr;
static struct iot_mark_slot *slots;
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread uint32_t my_tid;

/* a forked child marks into a ring of its own, made at its first mark */
static void after_fork_child(void)
{
	state = 0;
	hdr = NULL;
	slots = NULL;
	my_tid = 0;
}

static int open_ring(void)
{
	const char *dir = getenv("IOTRAIL_MARKERS");
	size_t size = sizeof(*hdr) + (size_t)IOT_MARK_SLOTS * sizeof(*slots);
	char path[4096];
	void *p;
	int fd;

	if (!dir || !*dir)
		return -1;
	snprintf(path, sizeof(path), "%s/%d.mk", dir, (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (ftruncate(fd, (off_t)size)) {
		close(fd);
		unlink(path);
		return -1;
	}
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		unlink(path);
		return -1;
	}
	hdr = p;
	slots = (struct iot_mark_slot *)(hdr + 1);
	hdr->nr_slots = IOT_MARK_SLOTS;
	hdr->slot_size = sizeof(*slots);
	hdr->pid = (uint32_t)getpid();
	__atomic_store_n(&hdr->magic, IOT_MARK_MAGIC, __ATOMIC_RELEASE);
	return 1;
}

static int ring(void)
{
	static int atfork;
	int s;

	pthread_mutex_lock(&init_lock);
	if (!atfork)
		atfork = !pthread_atfork(NULL, NULL, after_fork_child);
	if (!state)
		__atomic_store_n(&state, open_ring(), __ATOMIC_RELEASE);
	s = state;
	pthread_mutex_unlock(&init_lock);
	return s;
}

static void put(const char *name, uint64_t id, uint32_t kind)
{
	int s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
	struct iot_mark_slot *sl;
	struct timespec ts;
	uint64_t h;

	if (__builtin_expect(s < 0, 1) || (!s && ring() < 0))
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	h = __atomic_load_n(&hdr->head, __ATOMIC_RELAXED);
	do {
		if (h - __atomic_load_n(&hdr->tail, __ATOMIC_ACQUIRE) >= IOT_MARK_SLOTS) {
			__atomic_fetch_add(&hdr->dropped, 1, __ATOMIC_RELAXED);
			return;
		}
	} while (!__atomic_compare_exchange_n(&hdr->head, &h, h + 1, true,
					      __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
	if (!my_tid)
		my_tid = (uint32_t)syscall(SYS_gettid);
	sl = &slots[h % IOT_MARK_SLOTS];
	sl->ts_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	sl->id = id;
	sl->tid = my_tid;
	sl->kind = kind;
	strncpy(sl->name, name ? name : "", sizeof(sl->name));
	__atomic_store_n(&sl->seq, h + 1, __ATOMIC_RELEASE);
}

void iotrail_mark_begin(const char *name, uint64_t id)
{
	put(name, id, IOT_MARK_BEGIN);
}

void iotrail_mark_end(const char *name, uint64_t id)
{
	put(name, id, IOT_MARK_END);
}

void iotrail_mark(const char *name, uint64_t id)
{
	put(name, id, IOT_MARK_POINT);
}
