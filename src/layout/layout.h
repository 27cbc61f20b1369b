/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The on-disk layout of files and filesystems (iotrail frag), in filesystem
 * blocks: what the scanners produce (FIEMAP for mounted files, libext2fs for
 * whole ext2/3/4 filesystems), what the statistics and the views read, and
 * what `iotrail overlay` reads back from the JSON output.
 *
 * Fragment rule (filefrag's, so the counts agree with it): extents in logical
 * order; the next one continues the fragment when its first block is where
 * the previous extent ends (dense) or where it would be if the hole between
 * them were allocated (sparse: holes are not fragments). Otherwise a new
 * fragment starts: a gap if it lies after the previous extent, a reverse
 * break if before.
 */
#ifndef IOTRAIL_LAYOUT_LAYOUT_H
#define IOTRAIL_LAYOUT_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FRAG_UNWRITTEN (1u << 0) /* allocated, not written (reads as zeros) */
#define FRAG_INLINE    (1u << 1) /* data inside the inode: no block */
#define FRAG_DELALLOC  (1u << 2) /* not allocated yet (FIEMAP, delayed) */

struct frag_extent {
	uint64_t logical;  /* first block in the file */
	uint64_t physical; /* first block on the filesystem */
	uint64_t len;	   /* blocks */
	uint32_t flags;	   /* FRAG_* */
};

struct frag_stats {
	uint64_t extents;	 /* extents as the filesystem maps them */
	uint64_t fragments;	 /* physically contiguous runs (filefrag's count) */
	uint64_t gaps;		 /* boundaries jumping forward */
	uint64_t reverse;	 /* boundaries placed before the previous extent */
	uint64_t blocks;	 /* data blocks mapped */
	uint64_t largest_blocks; /* largest fragment */
	double avg_blocks;	 /* blocks per fragment */
	double contiguity;	 /* 1 - (fragments - 1) / (blocks - 1): 1 = one run */
};

struct frag_file {
	char *path;
	uint64_t ino;
	uint64_t size_bytes;
	struct frag_extent *ext; /* data extents, logical order */
	size_t nr_ext;
	uint64_t *meta; /* mapping blocks (indirect, extent tree), block numbers */
	size_t nr_meta;
	struct frag_stats st;
};

/* A run of blocks that belongs to no file. */
enum frag_sys_kind {
	FRAG_SYS_SUPER = 1,  /* superblock and group descriptors (and reserved GDT) */
	FRAG_SYS_BITMAP = 2, /* block and inode bitmaps */
	FRAG_SYS_ITABLE = 3, /* inode tables */
	FRAG_SYS_JOURNAL = 4,
	FRAG_SYS_DIR = 5, /* directories (their blocks) */
	FRAG_SYS_OTHER = 6,
};

struct frag_sys {
	uint64_t start, len;
	uint32_t kind; /* enum frag_sys_kind */
};

struct frag_fs {
	uint32_t block_size;	/* bytes */
	uint64_t blocks;	/* in the filesystem */
	uint64_t free_blocks;	/* from its bitmap */
	uint64_t free_extents;	/* free-space runs */
	uint64_t free_largest;	/* blocks */
	uint64_t free_hist[32]; /* runs by log2 of their length in blocks */
	struct frag_sys *sys;
	size_t nr_sys, cap_sys;
	uint64_t inodes_scanned;
	char type[8]; /* "ext2", "ext3", "ext4" */
};

struct frag_scan {
	struct frag_file *files;
	size_t nr_files, cap_files;
	struct frag_fs fs; /* whole-filesystem scans only (has_fs) */
	int has_fs;
	const char *method; /* "fiemap" or "libext2fs" ("mixed": several paths, both) */
	uint32_t block_size;
	uint64_t errors; /* files that could not be scanned (each said on stderr) */
	int damaged;	 /* the filesystem itself is damaged (said on stderr) */
};

/* Whether extent e continues the fragment of p, the extent before it in
 * logical order (the rule above). */
bool frag_continues(const struct frag_extent *p, const struct frag_extent *e);
/* Fills st from a file's extents (logical order). */
void frag_stats(const struct frag_extent *e, size_t n, struct frag_stats *st);
/* A new file entry (zeroed, path copied); NULL when out of memory. */
struct frag_file *frag_scan_add(struct frag_scan *s, const char *path);
int frag_fs_add_sys(struct frag_fs *fs, uint64_t start, uint64_t len, uint32_t kind);
void frag_scan_release(struct frag_scan *s);
/* The one file of s named name, where either may carry a longer prefix (a
 * mount point, an image root); NULL if none or several. */
const struct frag_file *frag_scan_find(const struct frag_scan *s, const char *name);
const char *frag_sys_name(uint32_t kind);

#endif
