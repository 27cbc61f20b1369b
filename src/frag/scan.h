/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The scanners of iotrail frag. Scopes, as DAV has them:
 *   one file, every file under a directory  -> FIEMAP (walk.c, fiemap.c)
 *   a whole ext2/3/4 filesystem: its block device, an image file, or its
 *   mount point (read-only from its device after syncfs)  -> libext2fs (ext.c)
 *   a directory of a mounted ext2/3/4, its tree only  -> libext2fs (ext.c)
 * A file that cannot be scanned is said on stderr with its path and counted
 * in scan->errors; the scan goes on.
 */
#ifndef IOTRAIL_FRAG_SCAN_H
#define IOTRAIL_FRAG_SCAN_H

#include <stdbool.h>

#include "../layout/layout.h"

/* One open file's extents; 0 or -errno. */
int frag_fiemap_fd(int fd, uint32_t block_size, bool sync, struct frag_file *f);
/* path (a file or a directory, recursively) with FIEMAP, the files mapped
 * on up to `threads` threads (the output is the same). 0, or -errno when
 * path itself cannot be read (said on stderr). */
int frag_walk(const char *path, bool sync, unsigned int threads, struct frag_scan *s);
/* A whole ext2/3/4 filesystem from its device or image, read-only. Names
 * files under prefix. 0, or 2 after saying why on stderr. */
int frag_ext_scan(const char *dev, const char *prefix, struct frag_scan *s);
/* The regular files under directory inode ino of the ext2/3/4 filesystem on
 * dev, named under prefix (a mounted directory, read after syncfs). 0, or 2
 * after saying why on stderr. */
int frag_ext_scan_dir(const char *dev, const char *prefix, uint64_t ino,
		      struct frag_scan *s);
/* Is there an ext2/3/4 superblock magic at byte 1080 of path? */
bool frag_is_ext(const char *path);

#endif
