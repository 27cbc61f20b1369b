// SPDX-License-Identifier: GPL-2.0
#include "outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* the temporary beside path, with the mode a new file would get */
static int make_tmp(struct outfile *o, const char *path, int *fd)
{
	struct stat st;
	mode_t mask;

	memset(o, 0, sizeof(*o));
	o->path = path;
	*fd = -1;
	if (!stat(path, &st) && !S_ISREG(st.st_mode))
		return 0; /* in place */
	if ((size_t)snprintf(o->tmp, sizeof(o->tmp), "%s.XXXXXX", path) >= sizeof(o->tmp))
		return -ENAMETOOLONG;
	*fd = mkstemp(o->tmp);
	if (*fd < 0) {
		o->tmp[0] = 0;
		return -errno;
	}
	mask = umask(0);
	umask(mask);
	if (fchmod(*fd, 0666 & ~mask)) {
		/* the file keeps mkstemp's 0600: still ours to write */
	}
	return 0;
}

int outfile_open(struct outfile *o, const char *path)
{
	int fd, err = make_tmp(o, path, &fd);

	if (err)
		return err;
	o->f = fd >= 0 ? fdopen(fd, "w") : fopen(path, "w");
	if (!o->f) {
		err = -errno;
		if (fd >= 0) {
			close(fd);
			unlink(o->tmp);
		}
		return err;
	}
	return 0;
}

int outfile_reserve(struct outfile *o, const char *path)
{
	int fd, err = make_tmp(o, path, &fd);

	if (err)
		return err;
	if (fd < 0) /* a device or a FIFO: a trace is a file */
		return -EINVAL;
	close(fd);
	return 0;
}

int outfile_commit(struct outfile *o, bool ok)
{
	int err = 0;

	if (o->f) {
		if (ok && (fflush(o->f) || ferror(o->f)))
			err = -(errno ? errno : EIO);
		if (fclose(o->f) && ok && !err)
			err = -(errno ? errno : EIO);
		o->f = NULL;
	}
	if (!o->tmp[0])
		return ok ? err : 0;
	if (ok && !err && rename(o->tmp, o->path))
		err = -errno;
	if (!ok || err)
		unlink(o->tmp);
	o->tmp[0] = 0;
	return ok ? err : 0;
}
