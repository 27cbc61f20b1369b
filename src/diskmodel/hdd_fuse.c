// SPDX-License-Identifier: GPL-2.0
/*
 * iotrail-hdd: a file served at a rotating disk's speed (docs/DISKMODEL.md).
 *
 *   iotrail-hdd [--rpm N] [--seek TIME] [--track-seek TIME] [--rate SIZE]
 *               [--cache SIZE] BACKING MOUNTPOINT
 *
 * Mounts a FUSE filesystem at MOUNTPOINT holding two files: disk.img, the
 * bytes of BACKING, every read and write of which completes when the model
 * of hdd.h says a disk would have completed it; and model, the parameters
 * as one line. Opened with direct I/O (no page cache in between), so a loop
 * device over disk.img sends each of its requests through the model. Runs
 * in the foreground until unmounted.
 */
#define FUSE_USE_VERSION 31
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../util/parse.h"
#include "hdd.h"

static struct {
	int fd;
	struct hdd d;
	pthread_mutex_t lock;
	char model[256];
} g = {.lock = PTHREAD_MUTEX_INITIALIZER};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* the request, arrived at t, takes what the model says: back when it
 * would be done (the backing file's own time overlaps it) */
static void charge(uint64_t t, off_t off, size_t size, bool write)
{
	uint64_t done;
	struct timespec ts;

	pthread_mutex_lock(&g.lock);
	done = hdd_serve(&g.d, t, (uint64_t)off / 512, (size + 511) / 512, write);
	pthread_mutex_unlock(&g.lock);
	ts.tv_sec = (time_t)(done / 1000000000ull);
	ts.tv_nsec = (long)(done % 1000000000ull);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static int m_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	struct stat b;

	(void)fi;
	memset(st, 0, sizeof(*st));
	if (!strcmp(path, "/")) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
	} else if (!strcmp(path, "/disk.img")) {
		if (fstat(g.fd, &b))
			return -errno;
		st->st_mode = S_IFREG | 0644;
		st->st_nlink = 1;
		st->st_size = b.st_size;
		st->st_blocks = b.st_blocks;
		st->st_mtim = b.st_mtim;
	} else if (!strcmp(path, "/model")) {
		st->st_mode = S_IFREG | 0444;
		st->st_nlink = 1;
		st->st_size = (off_t)strlen(g.model);
	} else {
		return -ENOENT;
	}
	return 0;
}

static int m_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
		     struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	(void)off, (void)fi, (void)flags;
	if (strcmp(path, "/"))
		return -ENOENT;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	fill(buf, "disk.img", NULL, 0, 0);
	fill(buf, "model", NULL, 0, 0);
	return 0;
}

static int m_open(const char *path, struct fuse_file_info *fi)
{
	if (strcmp(path, "/disk.img") && strcmp(path, "/model"))
		return -ENOENT;
	if (!strcmp(path, "/model") && (fi->flags & O_ACCMODE) != O_RDONLY)
		return -EACCES;
	fi->direct_io = 1; /* every request reaches the model */
	return 0;
}

static int m_read(const char *path, char *buf, size_t size, off_t off,
		  struct fuse_file_info *fi)
{
	uint64_t t = now_ns();
	ssize_t n;

	(void)fi;
	if (!strcmp(path, "/model")) {
		size_t len = strlen(g.model);

		if ((size_t)off >= len)
			return 0;
		n = (ssize_t)(size < len - (size_t)off ? size : len - (size_t)off);
		memcpy(buf, g.model + off, (size_t)n);
		return (int)n;
	}
	n = pread(g.fd, buf, size, off);
	if (n < 0)
		return -errno;
	charge(t, off, size, false);
	return (int)n;
}

static int m_write(const char *path, const char *buf, size_t size, off_t off,
		   struct fuse_file_info *fi)
{
	uint64_t t = now_ns();
	ssize_t n;

	(void)fi;
	if (strcmp(path, "/disk.img"))
		return -EACCES;
	n = pwrite(g.fd, buf, size, off);
	if (n < 0)
		return -errno;
	charge(t, off, size, true);
	return (int)n;
}

/* write-through: nothing is held back to flush */
static int m_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
	(void)path, (void)datasync, (void)fi;
	return 0;
}

static const struct fuse_operations ops = {
    .getattr = m_getattr,
    .readdir = m_readdir,
    .open = m_open,
    .read = m_read,
    .write = m_write,
    .fsync = m_fsync,
};

static void usage(FILE *f)
{
	fprintf(f, "usage: iotrail-hdd [--rpm N] [--seek TIME] [--track-seek TIME] "
		   "[--rate SIZE] [--cache SIZE]\n"
		   "                   BACKING MOUNTPOINT\n"
		   "  serves BACKING as MOUNTPOINT/disk.img at a rotating disk's speed\n"
		   "  (default: 10000 rpm, 4.5ms average seek, 0.4ms track to track,\n"
		   "  80m per second, an 8m read-ahead cache); MOUNTPOINT/model says\n"
		   "  which; in the foreground until unmounted\n");
}

int main(int argc, char **argv)
{
	struct hdd_params p = HDD_DEFAULTS;
	char err[256], fsopt[64];
	const char *backing = NULL, *mnt = NULL;
	struct stat st;
	uint64_t v;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		int bad = 0;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--rpm") && val) {
			bad = parse_count(val, &v) || !v || v > 30000;
			p.rpm = (uint32_t)v;
		} else if (!strcmp(a, "--seek") && val) {
			bad = parse_time(val, &p.avg_seek_ns);
		} else if (!strcmp(a, "--track-seek") && val) {
			bad = parse_time(val, &p.track_seek_ns);
		} else if (!strcmp(a, "--rate") && val) {
			bad = parse_size(val, &p.rate) || !p.rate;
		} else if (!strcmp(a, "--cache") && val) {
			bad = parse_size(val, &p.cache_bytes);
		} else if (a[0] == '-') {
			fprintf(stderr,
				"iotrail-hdd: unknown option '%s' (or no value)\n", a);
			usage(stderr);
			return 2;
		} else if (!backing) {
			backing = a;
			continue;
		} else if (!mnt) {
			mnt = a;
			continue;
		} else {
			fprintf(stderr, "iotrail-hdd: unexpected argument '%s'\n", a);
			return 2;
		}
		if (bad) {
			fprintf(stderr, "iotrail-hdd: %s %s: not a valid value\n", a,
				val);
			return 2;
		}
		i++;
	}
	if (!backing || !mnt) {
		usage(stderr);
		return 2;
	}
	g.fd = open(backing, O_RDWR);
	if (g.fd < 0 || fstat(g.fd, &st)) {
		fprintf(stderr, "iotrail-hdd: %s: %s\n", backing, strerror(errno));
		return 1;
	}
	p.capacity = (uint64_t)st.st_size;
	if (hdd_init(&g.d, &p, err, sizeof(err))) {
		fprintf(stderr, "iotrail-hdd: %s\n", err);
		return 2;
	}
	hdd_describe(&p, g.model, sizeof(g.model) - 1);
	strcat(g.model, "\n");
	snprintf(fsopt, sizeof(fsopt), "fsname=iotrail-hdd,subtype=iotrail-hdd");
	{
		/* one thread: the requests reach the model in the order the
		 * kernel queued them (a disk serves one at a time; threads
		 * racing for it would reorder a sequential stream) */
		char *fargv[] = {argv[0], "-f", "-s", "-o", fsopt, (char *)mnt, NULL};

		return fuse_main(6, fargv, &ops, NULL);
	}
}
