// SPDX-License-Identifier: GPL-2.0
/*
 * bench/markers: ns per marker, side by side in one run, alternating:
 *   off        iotrail_mark with no recorder (IOTRAIL_MARKERS unset)
 *   on         iotrail_mark into its ring (the ring is emptied between
 *              batches, as the recorder's drain would)
 *   trace_marker  a write(2) to tracefs' trace_marker (tracing on)
 *   uprobe     a call to a function with an enabled uprobe on its first
 *              instruction (bench/markers.sh sets it), minus the same call
 *              without
 * Prints, per method, the median and min/max over REPS repetitions.
 *   markers MARKER_DIR REPS [uprobe]
 *   markers off REPS   (the library with no recorder: a process apart)
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "iotrail/marker.h"
#include "marker/abi.h"

#define BATCH 16000 /* below the ring's size */

__attribute__((noinline)) void iotrail_bench_probe(uint64_t id)
{
	__asm__ volatile("" ::"r"(id) : "memory");
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static struct iot_mark_hdr *ring_of(const char *dir)
{
	char path[512];
	void *p;
	int fd;

	snprintf(path, sizeof(path), "%s/%d.mk", dir, (int)getpid());
	fd = open(path, O_RDWR);
	if (fd < 0)
		return NULL;
	p = mmap(NULL, sizeof(struct iot_mark_hdr), PROT_READ | PROT_WRITE, MAP_SHARED,
		 fd, 0);
	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

int main(int argc, char **argv)
{
	int reps = argc > 2 ? atoi(argv[2]) : 5, tm;
	int up = argc > 3 && !strcmp(argv[3], "uprobe");
	const char *names[] = {"off", "on", "trace_marker", "uprobe"};
	double *res[4];
	struct iot_mark_hdr *h;

	if (argc < 3 || reps < 1) {
		fprintf(stderr, "usage: markers MARKER_DIR|off REPS [uprobe]\n");
		return 2;
	}
	if (!strcmp(argv[1], "off")) {
		unsetenv("IOTRAIL_MARKERS");
		res[0] = calloc(reps, sizeof(double));
		for (int r = 0; r < reps; r++) {
			double t0 = now();

			for (int i = 0; i < BATCH; i++)
				iotrail_mark("request", (uint64_t)i);
			res[0][r] = (now() - t0) / BATCH;
		}
		qsort(res[0], reps, sizeof(double), cmp);
		printf("%-13s %8.1f %8.1f %8.1f\n", names[0], res[0][reps / 2], res[0][0],
		       res[0][reps - 1]);
		return 0;
	}
	tm = open("/sys/kernel/tracing/trace_marker", O_WRONLY);
	for (int m = 0; m < 4; m++)
		res[m] = calloc(reps, sizeof(double));
	/* the "on" ring: made by the first mark with the directory set */
	setenv("IOTRAIL_MARKERS", argv[1], 1);
	iotrail_mark("warmup", 0);
	h = ring_of(argv[1]);
	if (!h) {
		fprintf(stderr, "markers: no ring in %s\n", argv[1]);
		return 1;
	}
	for (int r = 0; r < reps; r++) {
		for (int k = 0; k < 4; k++) {
			int m = (k + r) % 4;
			double t0, t1;

			if (m == 1)
				h->tail = h->head; /* empty: a drain */
			t0 = now();
			for (int i = 0; i < BATCH; i++) {
				switch (m) {
				case 0: /* measured in a process of its own */
					break;
				case 1:
					iotrail_mark("request", (uint64_t)i);
					break;
				case 2:
					if (tm >= 0 &&
					    write(tm, "request 42 begin", 16) < 0)
						tm = -1;
					break;
				case 3:
					iotrail_bench_probe((uint64_t)i);
					break;
				}
			}
			t1 = now();
			res[m][r] = (t1 - t0) / BATCH;
		}
	}
	for (int m = 0; m < 4; m++) {
		if (m == 2 && tm < 0)
			continue;
		if (m == 3 && !up)
			continue;
		if (m == 0)
			continue;
		qsort(res[m], reps, sizeof(double), cmp);
		printf("%-13s %8.1f %8.1f %8.1f\n", names[m], res[m][reps / 2], res[m][0],
		       res[m][reps - 1]);
	}
	return 0;
}
