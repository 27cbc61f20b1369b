// SPDX-License-Identifier: GPL-2.0
/*
 * fsyncloop FILE N [fsync|fdatasync] [BYTES]: appends BYTES (4096) to FILE
 * and syncs it, N times: the small C program of the fsync tests.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int fd, n, full;
	size_t len;
	char *buf;

	if (argc < 3) {
		fprintf(stderr, "usage: fsyncloop FILE N [fsync|fdatasync] [BYTES]\n");
		return 2;
	}
	n = atoi(argv[2]);
	full = argc > 3 && !strcmp(argv[3], "fsync");
	len = argc > 4 ? strtoul(argv[4], NULL, 0) : 4096;
	buf = malloc(len);
	fd = open(argv[1], O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (!buf || fd < 0) {
		perror(argv[1]);
		return 1;
	}
	memset(buf, 'x', len);
	for (int i = 0; i < n; i++) {
		if (write(fd, buf, len) != (ssize_t)len ||
		    (full ? fsync(fd) : fdatasync(fd))) {
			perror(argv[1]);
			return 1;
		}
	}
	close(fd);
	free(buf);
	return 0;
}
