// SPDX-License-Identifier: GPL-2.0
/*
 * percall: nanoseconds per pread64() of one cached byte, the best of
 * several rounds, with the floor BPF program attached or not. Each call is
 * two traced events (enter, exit). bench/percall.sh runs it untraced, under
 * the floor and under `iotrail record`, and prints the differences.
 *   percall [--floor] [N]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "floor.skel.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	struct floor_bpf *skel = NULL;
	long n = 2000000;
	double best = 1e30;
	char path[] = "/dev/shm/percall.XXXXXX", b;
	int fd, i = 1;

	if (argc > i && !strcmp(argv[i], "--floor")) {
		skel = floor_bpf__open_and_load();
		if (!skel || floor_bpf__attach(skel)) {
			fprintf(stderr, "percall: could not load the floor program\n");
			return 1;
		}
		i++;
	}
	if (argc > i)
		n = atol(argv[i]);
	fd = mkstemp(path);
	if (fd < 0 || write(fd, "x", 1) != 1)
		return 1;
	unlink(path);
	for (int round = 0; round < 7; round++) {
		double t0 = now();

		for (long k = 0; k < n; k++)
			if (pread(fd, &b, 1, 0) != 1)
				return 1;
		double ns = (now() - t0) / n;
		if (ns < best)
			best = ns;
	}
	printf("%.1f\n", best);
	floor_bpf__destroy(skel);
	return 0;
}
