// SPDX-License-Identifier: GPL-2.0
/* One file, or every file under a directory, with FIEMAP (scan.h). Does not
 * follow symbolic links nor cross into other filesystems. */
#include "scan.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct walk {
	struct frag_scan *s;
	bool sync;
	dev_t dev;
	uint64_t special, links;
};

static void scan_file(struct walk *w, int dirfd, const char *name, const char *path)
{
	struct stat st, st2;
	struct frag_file *f;
	int fd, err;

	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		fprintf(stderr, "iotrail: %s: %s\n", path,
			errno == ENOENT ? "vanished during the scan" : strerror(errno));
		w->s->errors++;
		return;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return;
	}
	if (!w->s->block_size)
		w->s->block_size = st.st_blksize;
	f = frag_scan_add(w->s, path);
	if (!f) {
		close(fd);
		w->s->errors++;
		return;
	}
	f->ino = st.st_ino;
	f->size_bytes = st.st_size;
	err = frag_fiemap_fd(fd, w->s->block_size, w->sync, f);
	if (err) {
		fprintf(stderr, "iotrail: %s: FIEMAP: %s\n", path, strerror(-err));
		w->s->errors++;
	} else if (fstat(fd, &st2) == 0 && (st2.st_size != st.st_size ||
					    st2.st_mtim.tv_sec != st.st_mtim.tv_sec ||
					    st2.st_mtim.tv_nsec != st.st_mtim.tv_nsec)) {
		fprintf(stderr,
			"iotrail: %s: changed during the scan (size %lld -> %lld); its "
			"layout may be stale\n",
			path, (long long)st.st_size, (long long)st2.st_size);
	}
	close(fd);
}

static void walk_dir(struct walk *w, int fd, char *path, size_t len)
{
	DIR *d = fdopendir(fd);
	struct dirent *de;

	if (!d) {
		fprintf(stderr, "iotrail: %s: %s\n", path, strerror(errno));
		w->s->errors++;
		close(fd);
		return;
	}
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		unsigned char type = de->d_type;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (len + 1 + n >= 4096) {
			fprintf(stderr, "iotrail: %s/%s: path too long; skipped\n", path,
				de->d_name);
			w->s->errors++;
			continue;
		}
		path[len] = '/';
		memcpy(path + len + 1, de->d_name, n + 1);
		if (type == DT_UNKNOWN) {
			struct stat st;

			if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
				path[len] = 0;
				continue;
			}
			type = S_ISDIR(st.st_mode)   ? DT_DIR
			       : S_ISREG(st.st_mode) ? DT_REG
			       : S_ISLNK(st.st_mode) ? DT_LNK
						     : DT_FIFO;
		}
		if (type == DT_REG) {
			scan_file(w, dirfd(d), de->d_name, path);
		} else if (type == DT_DIR) {
			int sub = openat(dirfd(d), de->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			struct stat st;

			if (sub < 0) {
				fprintf(stderr, "iotrail: %s: %s\n", path,
					errno == ENOENT ? "vanished during the scan"
							: strerror(errno));
				w->s->errors++;
			} else if (fstat(sub, &st) == 0 && st.st_dev != w->dev) {
				close(sub); /* another filesystem mounted here */
			} else {
				walk_dir(w, sub, path, len + 1 + n);
			}
		} else if (type == DT_LNK) {
			w->links++;
		} else {
			w->special++;
		}
		path[len] = 0;
	}
	closedir(d);
}

int frag_walk(const char *root, bool sync, struct frag_scan *s)
{
	struct walk w = {.s = s, .sync = sync};
	char path[4096];
	struct stat st;
	int fd;

	s->method = "fiemap";
	if (lstat(root, &st) < 0) {
		fprintf(stderr, "iotrail: %s: %s\n", root, strerror(errno));
		return -errno;
	}
	if (S_ISREG(st.st_mode)) {
		scan_file(&w, AT_FDCWD, root, root);
		return 0;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(
		    stderr,
		    "iotrail: %s: not a regular file or directory (a %s); give a block "
		    "device or image with --fs\n",
		    root,
		    S_ISBLK(st.st_mode)	   ? "block device"
		    : S_ISLNK(st.st_mode)  ? "symbolic link"
		    : S_ISFIFO(st.st_mode) ? "fifo"
		    : S_ISCHR(st.st_mode)  ? "character device"
					   : "socket");
		return -EINVAL;
	}
	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "iotrail: %s: %s\n", root, strerror(errno));
		return -errno;
	}
	w.dev = st.st_dev;
	snprintf(path, sizeof(path), "%s", root);
	while (strlen(path) > 1 && path[strlen(path) - 1] == '/')
		path[strlen(path) - 1] = 0;
	walk_dir(&w, fd, path, strlen(path));
	if (w.special || w.links)
		fprintf(
		    stderr,
		    "iotrail: %s: skipped %llu special files and %llu symbolic links\n",
		    root, (unsigned long long)w.special, (unsigned long long)w.links);
	return 0;
}
