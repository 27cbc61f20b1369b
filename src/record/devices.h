/* SPDX-License-Identifier: GPL-2.0 */
/* The device table: every block device of /sys/class/block, and -d lookup. */
#ifndef IOTRAIL_RECORD_DEVICES_H
#define IOTRAIL_RECORD_DEVICES_H

#include <stddef.h>

#include <stdbool.h>
#include <stdint.h>

#include "../trace/format.h"

struct dev_table {
	struct iot_dev_entry *e;
	size_t n, cap;
};

#define KDEV(ma, mi)  (((uint32_t)(ma) << 20) | (uint32_t)(mi))
#define KDEV_MAJOR(d) ((d) >> 20)
#define KDEV_MINOR(d) ((d) & ((1u << 20) - 1))

/* Adds (or refreshes) every block device now present. 0 or -errno. */
int devtab_scan(struct dev_table *t);
/* Resolves "loop0", "/dev/loop0" or "7:0". NULL with a message in err. */
struct iot_dev_entry *devtab_resolve(struct dev_table *t, const char *arg, char *err,
				     size_t errlen);
void devtab_release(struct dev_table *t);

/* -d's selection as the programs search it (dev_wanted, record.bpf.h): a
 * disk's dev_t and the sectors [start, end) selected on it. */
struct dev_range {
	uint32_t dev;
	uint64_t start, end;
};
/* Sorts r by disk, then start, and merges each disk's ranges that overlap
 * or touch, in place (a disk named twice, a partition inside its disk):
 * how many are left. */
size_t devrange_merge(struct dev_range *r, size_t n);

/* What the kernel counts now of the devices recorded (those selected with
 * -d, else every disk), summed: requests in flight, and requests completed
 * (reads, writes, discards and flushes), from /sys/class/block/NAME/stat. */
struct devtab_io {
	uint64_t in_flight, done;
};
void devtab_io(const struct dev_table *t, struct devtab_io *io);
/* The loop devices of t over a disk model's file (iotrail-hdd, a FUSE
 * filesystem whose directory holds "model"): "loop0: iotrail-hdd rpm=...;
 * ..." into out, "" if none. */
void devtab_models(const struct dev_table *t, char *out, size_t len);
/* The loop devices of t that have a backing file, as the kernel reports it
 * (LOOP_GET_STATUS64): "loop1 7:1 on 7:0 ino 12 offset 0 dio 0; ..." into
 * out (META stack=, docs/FLOWS.md), "" if none. The device is the loop's,
 * the second MAJ:MIN the st_dev of its backing file's filesystem. */
void devtab_stack(const struct dev_table *t, char *out, size_t len);

/* A bound loop device, as LOOP_GET_STATUS64 reports it. */
struct loop_ref {
	const char *name;	   /* t's entry's */
	uint32_t dev, backing_dev; /* kernel dev_t: the loop's, its file's st_dev */
	uint64_t ino, offset;	   /* the backing file's inode; where the loop begins */
	bool dio;		   /* LO_FLAGS_DIRECT_IO */
};
/* The bound loop devices of t, at most max: how many. */
size_t devtab_loops(const struct dev_table *t, struct loop_ref *out, size_t max);

#endif
