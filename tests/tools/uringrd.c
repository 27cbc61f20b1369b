// SPDX-License-Identifier: GPL-2.0
/*
 * uringrd: io_uring reads whose user_data says what each one read, for
 * tests that check the trace ties every block request to its io_uring
 * request.
 *
 *   uringrd [-m inline|sqpoll|async] [-q DEPTH] [-o OP] [-c] FILE COUNT BS
 *
 * Reads COUNT blocks of BS bytes at distinct random aligned offsets of
 * FILE with O_DIRECT (every other block: no two reads adjacent, so none
 * merge), DEPTH in flight, each SQE's user_data = its byte
 * offset. -m sqpoll submits through an SQPOLL thread, -m async sets
 * IOSQE_ASYNC (every read runs in an io-wq worker). -o readv uses
 * IORING_OP_READV instead of IORING_OP_READ. -c reads contiguous blocks
 * from offset 0 instead, DEPTH of them submitted at once when none is in
 * flight: the block layer merges a batch's reads into few requests. Prints "reads N" at
 * the end; exits non-zero on any short or failed read.
 */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/fs.h>
#include <sys/ioctl.h>

static uint64_t size_of(int fd)
{
	struct stat st;
	uint64_t n = 0;

	if (fstat(fd, &st))
		return 0;
	if (S_ISBLK(st.st_mode))
		return ioctl(fd, BLKGETSIZE64, &n) ? 0 : n;
	return (uint64_t)st.st_size;
}

int main(int argc, char **argv)
{
	const char *mode = "inline", *op = "read";
	unsigned depth = 16, count, bs, done = 0, inflight = 0, next = 0;
	struct io_uring_params p;
	struct io_uring ring;
	uint64_t blocks, *offs;
	struct iovec *iov;
	char *bufs;
	int c, fd, err;
	bool contig = false;

	while ((c = getopt(argc, argv, "m:q:o:c")) != -1) {
		if (c == 'c')
			contig = true;
		else if (c == 'm')
			mode = optarg;
		else if (c == 'q')
			depth = (unsigned)atoi(optarg);
		else if (c == 'o')
			op = optarg;
		else
			return 2;
	}
	if (argc - optind != 3 || !depth) {
		fprintf(stderr, "usage: uringrd [-m inline|sqpoll|async] [-q DEPTH] "
				"[-o read|readv] [-c] FILE COUNT BS\n");
		return 2;
	}
	count = (unsigned)atoi(argv[optind + 1]);
	bs = (unsigned)atoi(argv[optind + 2]);
	fd = open(argv[optind], O_RDONLY | O_DIRECT);
	if (fd < 0 || !bs || bs % 512) {
		fprintf(stderr, "uringrd: %s: %s\n", argv[optind], strerror(errno));
		return 1;
	}
	blocks = size_of(fd) / bs / 2;
	if (blocks < count) {
		fprintf(stderr, "uringrd: %s holds %llu blocks, fewer than %u\n",
			argv[optind], (unsigned long long)blocks, count);
		return 1;
	}
	/* distinct offsets: a random permutation's first COUNT */
	offs = malloc(blocks * sizeof(*offs));
	if (!offs || posix_memalign((void **)&bufs, 4096, (size_t)depth * bs))
		return 1;
	iov = calloc(depth, sizeof(*iov));
	for (uint64_t i = 0; i < blocks; i++)
		offs[i] = i;
	srandom(42);
	for (unsigned i = 0; i < count && !contig; i++) {
		uint64_t k = i + (uint64_t)random() % (blocks - i), t = offs[i];

		offs[i] = offs[k];
		offs[k] = t;
	}
	memset(&p, 0, sizeof(p));
	if (!strcmp(mode, "sqpoll")) {
		p.flags = IORING_SETUP_SQPOLL;
		p.sq_thread_idle = 2000;
	}
	err = io_uring_queue_init_params(depth, &ring, &p);
	if (err) {
		fprintf(stderr, "uringrd: io_uring_queue_init: %s\n", strerror(-err));
		return 1;
	}
	while (done < count) {
		struct io_uring_cqe *cqe;

		while (inflight < depth && next < count &&
		       (!contig || !inflight || next % depth)) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
			unsigned slot = next % depth;
			uint64_t off = contig ? (uint64_t)next * bs : offs[next] * 2 * bs;

			if (!sqe)
				break;
			if (!strcmp(op, "readv")) {
				iov[slot].iov_base = bufs + (size_t)slot * bs;
				iov[slot].iov_len = bs;
				io_uring_prep_readv(sqe, fd, &iov[slot], 1, off);
			} else {
				io_uring_prep_read(sqe, fd, bufs + (size_t)slot * bs, bs,
						   off);
			}
			if (!strcmp(mode, "async"))
				sqe->flags |= IOSQE_ASYNC;
			io_uring_sqe_set_data64(sqe, off);
			next++;
			inflight++;
		}
		err = io_uring_submit_and_wait(&ring, 1);
		if (err < 0) {
			fprintf(stderr, "uringrd: submit: %s\n", strerror(-err));
			return 1;
		}
		while (io_uring_peek_cqe(&ring, &cqe) == 0) {
			if (cqe->res != (int)bs) {
				fprintf(stderr, "uringrd: read at %llu: %d\n",
					(unsigned long long)cqe->user_data, cqe->res);
				return 1;
			}
			io_uring_cqe_seen(&ring, cqe);
			inflight--;
			done++;
		}
	}
	io_uring_queue_exit(&ring);
	printf("reads %u\n", done);
	return 0;
}
