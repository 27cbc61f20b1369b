// SPDX-License-Identifier: GPL-2.0
/*
 * Device table from sysfs: name, dev_t, the disk it belongs to, partition
 * start, size, logical block size and the active scheduler. Read at start and
 * again at stop, so devices created by the traced command are named too.
 */
#include "devices.h"
#include "../util/grow.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/statfs.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	int err = 0;

	if (!f)
		return -errno;
	if (!fgets(buf, len, f))
		err = -EIO;
	else
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
	return err;
}

static unsigned long long read_ull(const char *path, unsigned long long dflt)
{
	char buf[64];

	if (read_line(path, buf, sizeof(buf)))
		return dflt;
	return strtoull(buf, NULL, 10);
}

/* "none [mq-deadline] kyber" -> "mq-deadline"; "none" -> "" */
static void active_scheduler(const char *line, char *out, size_t len)
{
	const char *a = strchr(line, '['), *b = a ? strchr(a, ']') : NULL;
	size_t n;

	out[0] = 0;
	if (!a || !b)
		return;
	n = b - a - 1;
	if (n >= len)
		n = len - 1;
	memcpy(out, a + 1, n);
	out[n] = 0;
	if (strcmp(out, "none") == 0)
		out[0] = 0;
}

static struct iot_dev_entry *slot_for(struct dev_table *t, uint32_t dev)
{
	struct iot_dev_entry *n;

	for (size_t i = 0; i < t->n; i++)
		if (t->e[i].dev == dev)
			return &t->e[i];
	if (GROW(t->e, t->n + 1, t->cap))
		return NULL;
	n = &t->e[t->n++];
	memset(n, 0, sizeof(*n));
	n->dev = dev;
	return n;
}

int devtab_scan(struct dev_table *t)
{
	DIR *d = opendir("/sys/class/block");
	struct dirent *de;
	char path[512], line[256];
	int err = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		struct iot_dev_entry *e;
		unsigned int ma, mi;
		uint32_t keep_flags;
		char disk[64];

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/class/block/%s/dev", de->d_name);
		if (read_line(path, line, sizeof(line)) ||
		    sscanf(line, "%u:%u", &ma, &mi) != 2)
			continue;
		e = slot_for(t, KDEV(ma, mi));
		if (!e) {
			err = -ENOMEM;
			break;
		}
		keep_flags = e->flags & IOT_DEV_FILTERED;
		snprintf(e->name, sizeof(e->name), "%s", de->d_name);
		snprintf(path, sizeof(path), "/sys/class/block/%s/size", de->d_name);
		e->nr_sectors = read_ull(path, 0);
		snprintf(path, sizeof(path), "/sys/class/block/%s/partition", de->d_name);
		if (access(path, F_OK) == 0) {
			/* the parent directory of a partition is its disk */
			char link[512], *slash;
			ssize_t n;

			snprintf(path, sizeof(path), "/sys/class/block/%s", de->d_name);
			n = readlink(path, link, sizeof(link) - 1);
			if (n < 0)
				continue;
			link[n] = 0;
			slash = strrchr(link, '/');
			if (!slash)
				continue;
			*slash = 0;
			slash = strrchr(link, '/');
			snprintf(disk, sizeof(disk), "%s", slash ? slash + 1 : link);
			e->flags = IOT_DEV_PARTITION | keep_flags;
			snprintf(path, sizeof(path), "/sys/class/block/%s/start",
				 de->d_name);
			e->start_sector = read_ull(path, 0);
			snprintf(path, sizeof(path), "/sys/class/block/%s/dev", disk);
			if (!read_line(path, line, sizeof(line)) &&
			    sscanf(line, "%u:%u", &ma, &mi) == 2)
				e->disk_dev = KDEV(ma, mi);
		} else {
			snprintf(disk, sizeof(disk), "%s", de->d_name);
			e->flags = keep_flags;
			e->start_sector = 0;
			e->disk_dev = e->dev;
		}
		snprintf(path, sizeof(path), "/sys/class/block/%s/mq", disk);
		if (access(path, F_OK) != 0)
			e->flags |= IOT_DEV_BIO_BASED;
		snprintf(path, sizeof(path),
			 "/sys/class/block/%s/queue/logical_block_size", disk);
		e->logical_block_size = (uint32_t)read_ull(path, 512);
		snprintf(path, sizeof(path), "/sys/class/block/%s/queue/scheduler", disk);
		if (!read_line(path, line, sizeof(line)))
			active_scheduler(line, e->scheduler, sizeof(e->scheduler));
		else
			e->scheduler[0] = 0;
	}
	closedir(d);
	return err;
}

struct iot_dev_entry *devtab_resolve(struct dev_table *t, const char *arg, char *err,
				     size_t errlen)
{
	const char *name = arg;
	unsigned int ma, mi;
	struct stat st;
	char tail;

	if (sscanf(arg, "%u:%u%c", &ma, &mi, &tail) == 2) {
		for (size_t i = 0; i < t->n; i++)
			if (t->e[i].dev == KDEV(ma, mi))
				return &t->e[i];
		snprintf(err, errlen, "-d %s: no block device %u:%u", arg, ma, mi);
		return NULL;
	}
	if (strchr(arg, '/')) {
		if (stat(arg, &st) < 0) {
			snprintf(err, errlen, "-d %s: %s", arg, strerror(errno));
			return NULL;
		}
		if (!S_ISBLK(st.st_mode)) {
			snprintf(err, errlen, "-d %s: not a block device", arg);
			return NULL;
		}
		for (size_t i = 0; i < t->n; i++)
			if (t->e[i].dev == KDEV(major(st.st_rdev), minor(st.st_rdev)))
				return &t->e[i];
		snprintf(err, errlen, "-d %s: block device %u:%u not in sysfs", arg,
			 major(st.st_rdev), minor(st.st_rdev));
		return NULL;
	}
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->e[i].name, name) == 0)
			return &t->e[i];
	snprintf(err, errlen, "-d %s: no such block device", arg);
	return NULL;
}

static int range_cmp(const void *a, const void *b)
{
	const struct dev_range *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

size_t devrange_merge(struct dev_range *r, size_t n)
{
	size_t k = 0;

	if (!n)
		return 0;
	qsort(r, n, sizeof(*r), range_cmp);
	for (size_t i = 1; i < n; i++) {
		if (r[i].dev == r[k].dev && r[i].start <= r[k].end) {
			if (r[i].end > r[k].end)
				r[k].end = r[i].end;
		} else {
			r[++k] = r[i];
		}
	}
	return k + 1;
}

/* One device's stat file: fields 1, 5, 12 and 16 are the reads, writes,
 * discards and flushes completed, field 9 the requests in flight
 * (Documentation/block/stat.rst; a kernel before 4.18 or 5.5 has fewer
 * fields, read as 0). */
static void add_stat(const char *name, struct devtab_io *io)
{
	unsigned long long f[17] = {0};
	char path[512], line[512];
	const char *p;
	char *end;

	snprintf(path, sizeof(path), "/sys/class/block/%s/stat", name);
	if (read_line(path, line, sizeof(line)))
		return;
	p = line;
	for (int i = 0; i < 17; i++, p = end) {
		f[i] = strtoull(p, &end, 10);
		if (end == p)
			break;
	}
	io->done += f[0] + f[4] + f[11] + f[15];
	io->in_flight += f[8];
}

void devtab_io(const struct dev_table *t, struct devtab_io *io)
{
	bool filtered = false;

	for (size_t i = 0; i < t->n; i++)
		filtered |= (t->e[i].flags & IOT_DEV_FILTERED) != 0;
	*io = (struct devtab_io){0};
	for (size_t i = 0; i < t->n; i++) {
		const struct iot_dev_entry *e = &t->e[i];

		if (filtered ? (e->flags & IOT_DEV_FILTERED) != 0
			     : !(e->flags & IOT_DEV_PARTITION))
			add_stat(e->name, io);
	}
}

void devtab_release(struct dev_table *t)
{
	free(t->e);
	memset(t, 0, sizeof(*t));
}

#define FUSE_MAGIC 0x65735546

void devtab_models(const struct dev_table *t, char *out, size_t len)
{
	size_t used = 0;

	out[0] = 0;
	for (size_t i = 0; i < t->n; i++) {
		char path[512], back[PATH_MAX], model[256], *slash, *nl;
		struct statfs sf;
		FILE *f;
		size_t n;

		if (strncmp(t->e[i].name, "loop", 4))
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/loop/backing_file",
			 t->e[i].name);
		f = fopen(path, "r");
		if (!f)
			continue; /* not attached */
		n = fread(back, 1, sizeof(back) - 1, f);
		fclose(f);
		back[n] = 0;
		if ((nl = strchr(back, '\n')))
			*nl = 0;
		if (statfs(back, &sf) || sf.f_type != FUSE_MAGIC ||
		    !(slash = strrchr(back, '/')))
			continue;
		strcpy(slash + 1, "model");
		f = fopen(back, "r");
		if (!f)
			continue;
		n = fread(model, 1, sizeof(model) - 1, f);
		fclose(f);
		model[n] = 0;
		if ((nl = strchr(model, '\n')))
			*nl = 0;
		if (strncmp(model, "rpm=", 4))
			continue; /* some other FUSE filesystem */
		used += (size_t)snprintf(out + used, used < len ? len - used : 0,
					 "%s%s: iotrail-hdd %s", used ? "; " : "",
					 t->e[i].name, model);
		if (used >= len) {
			out[len - 1] = 0;
			return;
		}
	}
}

size_t devtab_loops(const struct dev_table *t, struct loop_ref *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n && n < max; i++) {
		struct loop_info64 li;
		char path[64];
		int fd;

		if (strncmp(t->e[i].name, "loop", 4) ||
		    (t->e[i].flags & IOT_DEV_PARTITION))
			continue;
		snprintf(path, sizeof(path), "/dev/%s", t->e[i].name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (ioctl(fd, LOOP_GET_STATUS64, &li) == 0) /* ENXIO: unbound */
			out[n++] = (struct loop_ref){
			    .name = t->e[i].name,
			    .dev = t->e[i].dev,
			    .backing_dev = KDEV(major(li.lo_device), minor(li.lo_device)),
			    .ino = li.lo_inode,
			    .offset = li.lo_offset,
			    .dio = !!(li.lo_flags & LO_FLAGS_DIRECT_IO),
			};
		close(fd);
	}
	return n;
}

void devtab_stack(const struct dev_table *t, char *out, size_t len)
{
	struct loop_ref l[256];
	size_t n = devtab_loops(t, l, sizeof(l) / sizeof(l[0])), used = 0;

	out[0] = 0;
	for (size_t i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(
		    out + used, len - used,
		    "%s%s %u:%u on %u:%u ino %llu offset %llu dio %d", used ? "; " : "",
		    l[i].name, KDEV_MAJOR(l[i].dev), KDEV_MINOR(l[i].dev),
		    KDEV_MAJOR(l[i].backing_dev), KDEV_MINOR(l[i].backing_dev),
		    (unsigned long long)l[i].ino, (unsigned long long)l[i].offset,
		    l[i].dio);
	if (used >= len) { /* cut at the last whole entry */
		char *semi = strrchr(out, ';');

		if (semi)
			*semi = 0;
		else
			out[0] = 0;
	}
}
