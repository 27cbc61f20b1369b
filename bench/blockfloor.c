// SPDX-License-Identifier: GPL-2.0
/*
 * blockfloor: runs CMD under the floor programs of bench/blockfloor.bpf.c
 * (empty: they return at once; q2c: the least a Q2C histogram needs), then
 * says on stderr how many completions the histogram counted, so a run that
 * traced nothing shows. Exits with CMD's status.
 *   blockfloor empty|q2c -- CMD [ARG...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "blockfloor.skel.h"

int main(int argc, char **argv)
{
	struct blockfloor_bpf *skel;
	int stamp, status, ncpu = libbpf_num_possible_cpus();
	unsigned long long total = 0;
	pid_t pid;

	if (argc < 4 || strcmp(argv[2], "--") ||
	    (strcmp(argv[1], "empty") && strcmp(argv[1], "q2c"))) {
		fprintf(stderr, "usage: blockfloor empty|q2c -- CMD [ARG...]\n");
		return 2;
	}
	stamp = !strcmp(argv[1], "q2c");
	skel = blockfloor_bpf__open();
	if (!skel)
		return 1;
	skel->rodata->cfg_stamp = stamp;
	if (blockfloor_bpf__load(skel) || blockfloor_bpf__attach(skel)) {
		fprintf(stderr, "blockfloor: could not load the floor programs\n");
		blockfloor_bpf__destroy(skel);
		return 1;
	}
	pid = fork();
	if (pid == 0) {
		execvp(argv[3], argv + 3);
		perror(argv[3]);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0) {
		perror("blockfloor");
		blockfloor_bpf__destroy(skel);
		return 1;
	}
	for (__u32 k = 0; k < 64 && ncpu > 0; k++) {
		unsigned long long v[ncpu];

		if (bpf_map__lookup_elem(skel->maps.hist, &k, sizeof(k), v, sizeof(v), 0))
			continue;
		for (int c = 0; c < ncpu; c++)
			total += v[c];
	}
	fprintf(stderr, "blockfloor %s: %llu completions counted\n", argv[1], total);
	blockfloor_bpf__destroy(skel);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
