// SPDX-License-Identifier: GPL-2.0
/*
 * percall: nanoseconds per pread64() of one cached byte (the best of seven
 * rounds), pinned to CPU 0, optionally with a floor program attached that
 * writes 32 bytes per event into one kind of buffer, drained by a consumer
 * thread pinned to CPU 1. Each call is two traced events (enter, exit).
 * bench/percall.sh runs it untraced, under each floor and under iotrail.
 *   percall [--floor array|ringbuf|ringbuf-wakeup|perfbuf] [N]
 */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "floor.skel.h"

static volatile int stop;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static long consumed;

static int on_rb(void *ctx, void *data, size_t len)
{
	consumed++;
	return 0;
}

static void on_pb(void *ctx, int cpu, void *data, __u32 len) {}

struct consumer {
	struct ring_buffer *rb;
	int no_wakeup;
	struct perf_buffer *pb;
};

static void *consume(void *arg)
{
	struct consumer *c = arg;

	pin(1);
	while (!stop) {
		if (c->rb && c->no_wakeup) { /* nothing wakes us: look every 1 ms */
			ring_buffer__consume(c->rb);
			usleep(1000);
		} else if (c->rb)
			ring_buffer__poll(c->rb, 10);
		else if (c->pb)
			perf_buffer__poll(c->pb, 10);
		else
			usleep(10000);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct floor_bpf *skel = NULL;
	struct consumer c = {0};
	pthread_t th;
	long n = 2000000;
	double best = 1e30;
	char path[] = "/dev/shm/percall.XXXXXX", b;
	int fd, i = 1, kind = -1;

	if (argc > i + 1 && !strcmp(argv[i], "--floor")) {
		const char *k = argv[i + 1];

		kind = !strcmp(k, "array")	      ? 0
		       : !strcmp(k, "ringbuf")	      ? 1
		       : !strcmp(k, "ringbuf-wakeup") ? 2
		       : !strcmp(k, "perfbuf")	      ? 3
						      : -2;
		if (kind < 0) {
			fprintf(stderr, "percall: --floor %s: unknown kind\n", k);
			return 2;
		}
		i += 2;
	}
	if (argc > i)
		n = atol(argv[i]);
	if (kind >= 0) {
		skel = floor_bpf__open();
		if (!skel)
			return 1;
		skel->rodata->cfg_kind = kind;
		if (floor_bpf__load(skel) || floor_bpf__attach(skel)) {
			fprintf(stderr, "percall: could not load the floor program\n");
			return 1;
		}
		c.no_wakeup = kind == 1;
		if (kind == 1 || kind == 2)
			c.rb = ring_buffer__new(bpf_map__fd(skel->maps.frb), on_rb, NULL,
						NULL);
		if (kind == 3)
			c.pb = perf_buffer__new(bpf_map__fd(skel->maps.fpb), 64, on_pb,
						NULL, NULL, NULL);
	}
	pthread_create(&th, NULL, consume, &c);
	pin(0);
	fd = mkstemp(path);
	if (fd < 0 || write(fd, "x", 1) != 1)
		return 1;
	unlink(path);
	for (int round = 0; round < 7; round++) {
		double t0 = now(), ns;

		for (long k = 0; k < n; k++)
			if (pread(fd, &b, 1, 0) != 1)
				return 1;
		ns = (now() - t0) / n;
		if (ns < best)
			best = ns;
	}
	stop = 1;
	pthread_join(th, NULL);
	printf("%.1f\n", best);
	if (c.rb && consumed < 7 * n) /* lost records would flatter its cost */
		fprintf(stderr, "percall: ring buffer: %ld of %ld records consumed\n",
			consumed, 14 * n);
	ring_buffer__free(c.rb);
	perf_buffer__free(c.pb);
	floor_bpf__destroy(skel);
	return 0;
}
