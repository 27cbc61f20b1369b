// SPDX-License-Identifier: GPL-2.0
/* The file table (files.h). */
#include "files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/clock.h"
#include "../util/grow.h"

/* tried at most this many inodes (a system-wide recording of a file server) */
#define FILES_MAX 200000
/* FILEID_INO32_GEN (include/linux/exportfs.h): ext2/3/4, xfs, tmpfs... */
#define FILEID_INO32_GEN 1

struct file_mount {
	uint32_t dev;  /* st_dev, kernel encoding */
	uint32_t disk; /* the whole disk under it (== dev when none) */
	int fd;	       /* the mount point, opened on first use; -1 */
	char *dir;
};

/* The disk under a filesystem's device: the device table knows partitions
 * (read again with the mounts, for devices made since). */
static uint32_t disk_of(const struct dev_table *devs, uint32_t dev)
{
	for (size_t i = 0; i < devs->n; i++)
		if (devs->e[i].dev == dev)
			return devs->e[i].disk_dev;
	return dev;
}

static void mounts_release(struct file_table *t)
{
	for (size_t i = 0; i < t->nr_mounts; i++) {
		if (t->mounts[i].fd >= 0)
			close(t->mounts[i].fd);
		free(t->mounts[i].dir);
	}
	free(t->mounts);
	t->mounts = NULL;
	t->nr_mounts = 0;
}

/* One mount per filesystem: the first in mountinfo whose root is the
 * filesystem's root (a bind mount of a subdirectory names less). */
static void mounts_read(struct file_table *t)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	size_t cap = 0;
	char *line = NULL;
	size_t len = 0;

	mounts_release(t);
	t->mounts_read_ns = now_ns(CLOCK_MONOTONIC);
	devtab_scan(t->devs);
	if (!f)
		return;
	while (getline(&line, &len, f) > 0) {
		unsigned int maj, min;
		char root[4096], dir[4096];
		size_t i;

		if (sscanf(line, "%*u %*u %u:%u %4095s %4095s", &maj, &min, root, dir) !=
			4 ||
		    strcmp(root, "/") || !maj)
			continue; /* no block device behind it (major 0), or a bind */
		for (i = 0; i < t->nr_mounts && t->mounts[i].dev != KDEV(maj, min); i++)
			;
		if (i < t->nr_mounts || GROW(t->mounts, t->nr_mounts + 1, cap))
			continue;
		/* mountinfo escapes blanks as \040: such a directory is left out */
		if (strchr(dir, '\\'))
			continue;
		t->mounts[t->nr_mounts] =
		    (struct file_mount){.dev = KDEV(maj, min),
					.disk = disk_of(t->devs, KDEV(maj, min)),
					.fd = -1,
					.dir = strdup(dir)};
		if (t->mounts[t->nr_mounts].dir)
			t->nr_mounts++;
	}
	free(line);
	fclose(f);
}

struct handle {
	struct file_handle fh;
	uint32_t v[2];
};

/* The path of inode ino on mount m, and its generation (0 unknown): false
 * with none. gen: the incarnation wanted, 0 any. */
static bool resolve(struct file_mount *m, uint64_t ino, uint32_t *gen, char *path,
		    size_t len)
{
	struct handle h = {.fh = {.handle_bytes = 8, .handle_type = FILEID_INO32_GEN},
			   .v = {(uint32_t)ino, *gen}};
	struct handle got = {.fh = {.handle_bytes = 8}};
	char link[64];
	struct stat st;
	ssize_t n;
	int fd, mnt_id;

	if (m->fd < 0)
		m->fd = open(m->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (m->fd < 0)
		return false;
	fd = open_by_handle_at(m->fd, &h.fh, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return false;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = fstat(fd, &st) || st.st_ino != ino ? -1 : readlink(link, path, len - 1);
	/* the incarnation: the file handle's generation */
	*gen = !name_to_handle_at(fd, "", &got.fh, &mnt_id, AT_EMPTY_PATH) &&
		       got.fh.handle_type == FILEID_INO32_GEN && got.v[0] == (uint32_t)ino
		   ? got.v[1]
		   : 0;
	close(fd);
	if (n <= 0 || (size_t)n >= len - 1)
		return false;
	path[n] = 0;
	/* a name the kernel still connects to the root of this mount; not a
	 * deleted file ("... (deleted)") nor a disconnected dentry ("/") */
	n = (ssize_t)strlen(m->dir);
	if (strncmp(path, m->dir, (size_t)n) ||
	    (path[n] != '/' && !(n == 1 && path[0] == '/' && path[1])) ||
	    strstr(path, " (deleted)"))
		return false;
	return true;
}

int file_table_init(struct file_table *t, struct dev_table *devs)
{
	memset(t, 0, sizeof(*t));
	t->devs = devs;
	return u64map_init(&t->seen, 1024);
}

void file_table_note(struct file_table *t, uint32_t dev, uint64_t ino, bool disk)
{
	uint64_t key = (ino * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)dev << 1 | disk);
	struct iot_file_entry found = {0};
	char path[sizeof(found.path) + 1];
	uint32_t gen = 0, found_gen = 0, found_mount = 0;
	int hits = 0;

	if (!ino || ino > UINT32_MAX || key == t->last)
		return;
	t->last = key;
	if (u64map_get(&t->seen, key) || t->tried >= FILES_MAX ||
	    u64map_put(&t->seen, key, 1))
		return;
	t->tried++;
	for (int pass = 0; pass < 2 && !hits; pass++) {
		/* a filesystem mounted since the last read: read again, at
		 * most once a second */
		if (pass && now_ns(CLOCK_MONOTONIC) - t->mounts_read_ns < 1000000000ull)
			break;
		if (pass || !t->mounts)
			mounts_read(t);
		for (size_t i = 0; i < t->nr_mounts; i++) {
			struct file_mount *m = &t->mounts[i];

			if (disk ? m->disk != dev : m->dev != dev)
				continue;
			gen = 0;
			if (!resolve(m, ino, &gen, path, sizeof(path)))
				continue;
			/* an inode number on two filesystems of a disk: which
			 * one the bio meant is not known here */
			if (hits++) {
				hits = 2;
				break;
			}
			found.dev = m->dev;
			found.ino = ino;
			snprintf(found.path, sizeof(found.path), "%s", path);
			found_gen = gen;
			found_mount = (uint32_t)i;
		}
	}
	if (hits != 1 || GROW(t->e, t->n + 1, t->cap) ||
	    GROW(t->gen, t->n + 1, t->cap_gen))
		return;
	/* the same file named by a bio (disk) and a call (filesystem) */
	for (size_t i = t->n; i-- > 0 && i + 64 > t->n;)
		if (t->e[i].dev == found.dev && t->e[i].ino == ino)
			return;
	t->gen[t->n] = (struct file_gen){found_gen, found_mount};
	t->e[t->n++] = found;
	t->found++;
}

void file_table_finish(struct file_table *t)
{
	char path[sizeof(t->e[0].path) + 1];

	for (size_t i = 0; i < t->n; i++) {
		struct iot_file_entry *e = &t->e[i];
		struct file_mount *m;
		uint32_t gen = t->gen[i].gen;
		size_t len;

		/* already found gone or reused (a --max-files switch's
		 * look): said once */
		if (e->flags & (IOT_FILE_DELETED | IOT_FILE_REUSED))
			continue;
		if (!gen || t->gen[i].mount >= t->nr_mounts ||
		    (m = &t->mounts[t->gen[i].mount])->dev != e->dev)
			continue; /* incarnation unknown, or the mounts read again */
		if (resolve(m, e->ino, &gen, path, sizeof(path)))
			continue; /* the same file still */
		gen = 0;
		if (!resolve(m, e->ino, &gen, path, sizeof(path))) {
			e->flags |= IOT_FILE_DELETED;
			continue;
		}
		/* the number now names another file: records may mean either */
		e->flags |= IOT_FILE_REUSED;
		len = strlen(e->path);
		if (len + 4 < sizeof(e->path))
			snprintf(e->path + len, sizeof(e->path) - len, " | %s", path);
	}
}

void file_table_release(struct file_table *t)
{
	mounts_release(t);
	u64map_release(&t->seen);
	free(t->e);
	free(t->gen);
	memset(t, 0, sizeof(*t));
}
