// SPDX-License-Identifier: GPL-2.0
/*
 * marked FILE N: N O_DIRECT 4 KiB preads of FILE, each between
 * iotrail_mark_begin("request", i) and iotrail_mark_end("request", i), then
 * a point "done"; a forked child marks "child" once. The user markers'
 * test program.
 * marked --burst N: N points "burst" (ids 0 to N-1) as fast as it can, no
 * I/O: more than a ring holds between two drains.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <iotrail/marker.h>

int main(int argc, char **argv)
{
	void *buf;
	int fd, n;
	pid_t c;

	if (argc != 3) {
		fprintf(stderr, "usage: marked FILE N | marked --burst N\n");
		return 2;
	}
	n = atoi(argv[2]);
	if (!strcmp(argv[1], "--burst")) {
		for (int i = 0; i < n; i++)
			iotrail_mark("burst", (uint64_t)i);
		return 0;
	}
	fd = open(argv[1], O_RDONLY | O_DIRECT);
	if (fd < 0 || posix_memalign(&buf, 4096, 4096)) {
		perror(argv[1]);
		return 1;
	}
	for (int i = 0; i < n; i++) {
		iotrail_mark_begin("request", (uint64_t)i);
		if (pread(fd, buf, 4096, (off_t)i * 8192) != 4096) {
			perror("pread");
			return 1;
		}
		iotrail_mark_end("request", (uint64_t)i);
	}
	iotrail_mark("done", (uint64_t)n);
	c = fork();
	if (c == 0) {
		iotrail_mark("child", 1);
		_exit(0);
	}
	waitpid(c, NULL, 0);
	return 0;
}
