/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The file table: the path of every (filesystem, inode) a record names (a
 * system call's file, a dirtied page's inode, a bio's page's inode), found
 * as soon as it is first seen, while the file still has that name: the
 * kernel opens the inode by a file handle on each mounted filesystem that
 * may hold it (open_by_handle_at, generation 0: any generation), and
 * /proc/self/fd names it. Written at the stop as the FILES chunk.
 * At the stop each is checked again by its generation: deleted since, or
 * its number taken by another file, is said in the entry's flags.
 * Never guessed: an inode that no longer exists, whose name the kernel has
 * forgotten (a dentry not connected to its root), or that exists on two
 * filesystems of a disk a bio names gets no path there.
 */
#ifndef IOTRAIL_RECORD_FILES_H
#define IOTRAIL_RECORD_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../trace/format.h"
#include "../util/u64map.h"
#include "devices.h"

struct file_mount;
struct file_gen {
	uint32_t gen;	/* the inode's generation when found, 0 unknown */
	uint32_t mount; /* where */
};

struct file_table {
	struct iot_file_entry *e;
	size_t n, cap;
	struct file_gen *gen; /* beside e */
	size_t cap_gen;
	struct u64map seen; /* (dev, inode, kind) seen: tried once */
	uint64_t last;	    /* the last key tried (a run of records) */
	struct file_mount *mounts;
	size_t nr_mounts;
	uint64_t mounts_read_ns; /* when /proc/self/mountinfo was read */
	uint64_t tried, found;
	struct dev_table *devs; /* the recorder's: each filesystem's disk */
};

int file_table_init(struct file_table *t, struct dev_table *devs);
/* A record names inode ino: on the filesystem dev (st_dev), or with disk,
 * on some filesystem of the disk dev. Cheap when seen before. */
void file_table_note(struct file_table *t, uint32_t dev, uint64_t ino, bool disk);
/* At the stop: each file still that inode's incarnation, or deleted
 * (IOT_FILE_DELETED), or its number taken by another file
 * (IOT_FILE_REUSED: the path then says "first | now"). */
void file_table_finish(struct file_table *t);
void file_table_release(struct file_table *t);

#endif
