/* SPDX-License-Identifier: GPL-2.0 */
/*
 * overlay: one file's traced reads against its layout (seed 000, figure
 * 3-15). The file's reads are the read bios the join tagged with its inode
 * (queued by a task inside a system call on it); their sectors become
 * filesystem blocks with
 *     P_B = (P_S - partition start) / (block size / sector size)
 * from the trace's device table, in queue order, and each block is looked
 * up in the file's block map: a block of the file (its logical number), one
 * of its mapping blocks, or elsewhere. `iotrail overlay` prints it.
 */
#ifndef IOTRAIL_ANALYZE_OVERLAY_H
#define IOTRAIL_ANALYZE_OVERLAY_H

#include <stddef.h>
#include <stdint.h>

#include "../layout/layout.h"

#define OVERLAY_ELSEWHERE (-1)
#define OVERLAY_MAPPING	  (-2) /* one of the file's mapping blocks */
/* A bio larger than this (1 GiB) is damage, not a read: Linux builds bios
 * of at most BIO_MAX_VECS (256) folios. */
#define OVERLAY_BIO_MAX_SECTORS (1u << 21)

struct overlay_access {
	uint64_t ts_ns;	    /* the bio's queue time */
	uint64_t block;	    /* filesystem block */
	int64_t file_block; /* the file's block, or OVERLAY_* */
};

struct overlay_bio;

struct overlay_priv {
	const struct frag_file *file;
	uint32_t block_size;
	uint32_t fs_dev; /* st_dev of the file's reads (0: none seen) */
	struct overlay_bio *bios;
	size_t nr_bios, cap_bios;

	/* finish() */
	char fs_name[32];	    /* the filesystem's device, from the trace */
	uint64_t part_start;	    /* its first sector on the disk */
	uint64_t per_block;	    /* sectors per block */
	uint64_t file_blocks;	    /* the file's length in blocks (layout) */
	struct overlay_access *acc; /* every traced block, in queue order */
	size_t nr_acc, cap_acc;
	size_t where;	    /* of which in the file's data or mapping blocks */
	size_t implausible; /* bios over OVERLAY_BIO_MAX_SECTORS, left out */
};

#endif
