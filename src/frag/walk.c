// SPDX-License-Identifier: GPL-2.0
/* One file, or every file under a directory, with FIEMAP (scan.h). Does not
 * follow symbolic links nor cross into other filesystems.
 *
 * Two phases: the directories are read in one thread (the regular files'
 * paths, in readdir order), then the files are opened and mapped on up to
 * `threads` threads, each taking the next batch of the list and filling its
 * files' entries in place; what could not be scanned is dropped from the
 * list in the end, so the output is the one thread's whatever the count.
 * A file is opened from its directory (openat on the directory a thread
 * last opened, O_PATH), not by its whole path: the path walk from the root
 * was a sixth of a file's time on one thread. */
#include "scan.h"
#include "../util/grow.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WALK_BATCH	 64  /* files a thread takes at a time */
#define WALK_PER_THREAD	 256 /* at least this many files a thread */
#define WALK_MAX_THREADS 64
#define WALK_NO_DIR	 UINT32_MAX

/* A regular file found: its path (whole), its directory's index in dirs[]
 * (WALK_NO_DIR: none kept) and where its name starts in the path. */
struct walk_found {
	char *path;
	uint32_t dir;
	uint32_t name_at;
};

struct walk {
	struct frag_scan *s;
	bool sync;
	dev_t dev;
	uint64_t special, links;
	struct walk_found *found; /* in readdir order */
	size_t nr, cap;
	char **dirs; /* the directories read, whole paths */
	size_t nr_dirs, cap_dirs;
	/* phase 2 */
	size_t base; /* the first file's index in s->files */
	bool *ok;    /* scanned: kept */
	atomic_size_t next;
	atomic_uint_fast64_t errors;
};

/* File i of the list into s->files[base + i], opened from dfd (its
 * directory's, or -1: by its path); false when it is no regular file any
 * more, or could not be opened (said). */
static bool scan_file(struct walk *w, size_t i, int dfd)
{
	struct frag_file *f = &w->s->files[w->base + i];
	const struct walk_found *fo = &w->found[i];
	const char *path = fo->path;
	struct stat st, st2;
	int fd, err;

	fd = openat(dfd >= 0 ? dfd : AT_FDCWD, dfd >= 0 ? path + fo->name_at : path,
		    O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		fprintf(stderr, "iotrail: %s: %s\n", path,
			errno == ENOENT ? "vanished during the scan" : strerror(errno));
		w->errors++;
		return false;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return false;
	}
	f->ino = st.st_ino;
	f->size_bytes = st.st_size;
	err = frag_fiemap_fd(fd, w->s->block_size, w->sync, f);
	if (err) {
		fprintf(stderr, "iotrail: %s: FIEMAP: %s\n", path, strerror(-err));
		w->errors++;
	} else if (fstat(fd, &st2) == 0 && (st2.st_size != st.st_size ||
					    st2.st_mtim.tv_sec != st.st_mtim.tv_sec ||
					    st2.st_mtim.tv_nsec != st.st_mtim.tv_nsec)) {
		fprintf(stderr,
			"iotrail: %s: changed during the scan (size %lld -> %lld); its "
			"layout may be stale\n",
			path, (long long)st.st_size, (long long)st2.st_size);
	}
	close(fd);
	return true;
}

static void *scan_some(void *arg)
{
	struct walk *w = arg;
	uint32_t dir = WALK_NO_DIR;
	int dfd = -1;
	size_t i, end;

	while ((i = atomic_fetch_add(&w->next, WALK_BATCH)) < w->nr) {
		end = i + WALK_BATCH < w->nr ? i + WALK_BATCH : w->nr;
		for (; i < end; i++) {
			if (w->found[i].dir != dir) {
				if (dfd >= 0)
					close(dfd);
				dir = w->found[i].dir;
				/* gone or replaced: the file's own open says so */
				dfd =
				    dir == WALK_NO_DIR
					? -1
					: open(w->dirs[dir], O_PATH | O_DIRECTORY |
								 O_NOFOLLOW | O_CLOEXEC);
			}
			w->ok[i] = scan_file(w, i, dfd);
		}
	}
	if (dfd >= 0)
		close(dfd);
	return NULL;
}

/* A regular file found in directory dir (WALK_NO_DIR: the root itself),
 * its name at name_at in path: kept for phase 2. The block size is the
 * first file's (st_blksize), as before the scan goes on. */
static void found_file(struct walk *w, int dirfd, const char *name, const char *path,
		       uint32_t dir, size_t name_at)
{
	char *p;

	if (!w->s->block_size) {
		struct stat st;

		if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			w->s->block_size = st.st_blksize;
	}
	p = strdup(path);
	if (!p || GROW(w->found, w->nr + 1, w->cap)) {
		free(p);
		fprintf(stderr, "iotrail: %s: out of memory\n", path);
		w->errors++;
		return;
	}
	w->found[w->nr].path = p;
	w->found[w->nr].dir = dir;
	w->found[w->nr++].name_at = (uint32_t)name_at;
}

static void walk_dir(struct walk *w, int fd, char *path, size_t len)
{
	DIR *d = fdopendir(fd);
	struct dirent *de;
	uint32_t dir = WALK_NO_DIR;
	char *dp = strdup(path);

	/* a directory that cannot be kept: its files are opened by path */
	if (dp && !GROW(w->dirs, w->nr_dirs + 1, w->cap_dirs)) {
		dir = (uint32_t)w->nr_dirs;
		w->dirs[w->nr_dirs++] = dp;
	} else {
		free(dp);
	}
	if (!d) {
		fprintf(stderr, "iotrail: %s: %s\n", path, strerror(errno));
		w->errors++;
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
			w->errors++;
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
			found_file(w, dirfd(d), de->d_name, path, dir, len + 1);
		} else if (type == DT_DIR) {
			int sub = openat(dirfd(d), de->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			struct stat st;

			if (sub < 0) {
				fprintf(stderr, "iotrail: %s: %s\n", path,
					errno == ENOENT ? "vanished during the scan"
							: strerror(errno));
				w->errors++;
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

/* Phase 2 (the comment at the top). 0 or -ENOMEM. */
static int scan_files(struct walk *w, unsigned int threads)
{
	struct frag_scan *s = w->s;
	pthread_t tid[WALK_MAX_THREADS];
	unsigned int n = 0;
	size_t kept = 0;

	if (!w->nr)
		return 0;
	w->ok = calloc(w->nr, sizeof(*w->ok));
	if (!w->ok || GROW(s->files, s->nr_files + w->nr, s->cap_files))
		return -ENOMEM;
	w->base = s->nr_files;
	memset(&s->files[w->base], 0, w->nr * sizeof(*s->files));
	if (threads > WALK_MAX_THREADS)
		threads = WALK_MAX_THREADS;
	if (threads > w->nr / WALK_PER_THREAD + 1)
		threads = w->nr / WALK_PER_THREAD + 1;
	/* this thread is one of them; a thread that cannot start is one less */
	while (n + 1 < threads && !pthread_create(&tid[n], NULL, scan_some, w))
		n++;
	scan_some(w);
	while (n)
		pthread_join(tid[--n], NULL);
	for (size_t i = 0; i < w->nr; i++) {
		struct frag_file *f = &s->files[w->base + i];

		if (w->ok[i]) {
			f->path = w->found[i].path;
			if (kept != i)
				s->files[w->base + kept] = *f;
			kept++;
		} else {
			free(w->found[i].path);
			free(f->ext);
		}
		w->found[i].path = NULL;
	}
	s->nr_files = w->base + kept;
	return 0;
}

int frag_walk(const char *root, bool sync, unsigned int threads, struct frag_scan *s)
{
	struct walk w = {.s = s, .sync = sync};
	char path[4096];
	struct stat st;
	int fd, ret = 0;

	s->method = "fiemap";
	if (lstat(root, &st) < 0) {
		fprintf(stderr, "iotrail: %s: %s\n", root, strerror(errno));
		return -errno;
	}
	if (S_ISREG(st.st_mode)) {
		found_file(&w, AT_FDCWD, root, root, WALK_NO_DIR, 0);
	} else if (!S_ISDIR(st.st_mode)) {
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
	} else {
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
	}
	if (scan_files(&w, threads ? threads : 1)) {
		fprintf(stderr, "iotrail: %s: out of memory\n", root);
		ret = -ENOMEM;
	}
	if (w.special || w.links)
		fprintf(
		    stderr,
		    "iotrail: %s: skipped %llu special files and %llu symbolic links\n",
		    root, (unsigned long long)w.special, (unsigned long long)w.links);
	s->errors += w.errors;
	for (size_t i = 0; i < w.nr; i++)
		free(w.found[i].path);
	free(w.found);
	for (size_t i = 0; i < w.nr_dirs; i++)
		free(w.dirs[i]);
	free(w.dirs);
	free(w.ok);
	return ret;
}
