/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Seed 000's patterns: the read system calls of a trace grouped by file
 * set, and what each set cost, layer by layer. A group is the files of one
 * directory of a layout (iotrail frag -f json): the demo writes pattern A's
 * files into A/, B's into B/, ... Without a layout every read is one group.
 *
 * A read belongs to a group by the inode its system call names; a bio by
 * the system call that queued it (join.h's ino); a request by its head bio.
 * Per group:
 *   throughput  bytes the reads returned / (last exit - first enter)
 *   syscall     enter to exit of each read
 *   bio         Q2C of each bio the reads queued
 *   scheduler   I2D of each request, device D2C
 *   sector diff at dispatch (D), in dispatch order per device: the first
 *               sector of a request minus the end of the one dispatched
 *               before it (0 = no seek; seed 000, section 3.4)
 * and the same over elapsed time, in GROUP_BINS bins from the group's first
 * read (figures 3-7 to 3-9, 3-12 to 3-14): aggregated, so a million
 * requests draw as fast as a thousand.
 *
 * One file's traced block order against its layout order (figure 3-15) is
 * kept as runs of consecutive blocks, and each group's blocks as a block
 * map (figures 3-1 to 3-4, layout/grid.h).
 *
 * The `patterns` analyzer: groups_*() are its engine, public for the unit
 * tests and the HTML report's figures.
 */
#ifndef IOTRAIL_ANALYZE_PATTERNS_H
#define IOTRAIL_ANALYZE_PATTERNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../layout/grid.h"
#include "../layout/layout.h"
#include "../join/join.h"
#include "../util/grow.h"
#include "../util/u64map.h"
#include "../trace/syscalls.h"

#define GROUP_BINS 100
/* service time by seek distance: |sector difference| 0, then
 * [2^(k-1), 2^k) */
#define GROUP_SEEK_BUCKETS 41
#define GROUP_MAP_CELLS	   (128 * 6) /* cells of a group's block map */

/* count, sum, min, max of one quantity */
struct tally {
	uint64_t n, sum, min, max;
	double avg; /* groups_finish(): sum / n, 0 without samples */
};

struct group_bin {
	struct tally sys, bio, elv, sdiff; /* sdiff: |sector difference| */
};

struct file_group {
	char name[64]; /* the directory's last component, or "all" */
	size_t nr_files;
	uint64_t frags_sum, frags_min, frags_max; /* from the layout */
	uint64_t reads, bytes;			  /* read syscalls, bytes returned */
	uint64_t first_ns, last_ns;		  /* first enter, last exit */
	struct tally sys, bio, elv, dev, sdiff;
	/* the service time of its requests (C less the later of its D and
	 * the C of the request dispatched before: a device serving in order)
	 * by their distance from that request (GROUP_SEEK_BUCKETS): what a
	 * seek costs, without the wait in the queue */
	struct tally seek_svc[GROUP_SEEK_BUCKETS];
	uint64_t seeks;	 /* dispatches with a sector difference != 0 */
	uint64_t bin_ns; /* width of a bin */
	/* groups_finish() */
	double mbps;	       /* MB/s (10^6 bytes), 0 when nothing was read */
	double frags_per_file; /* from the layout, 0 without files */
	double seeks_pct;      /* seeks per dispatch, % */
	struct group_bin bin[GROUP_BINS];
};

/* A run of consecutive filesystem blocks: order .. order+len-1 at block
 * .. block+len-1. */
struct block_run {
	uint64_t order, block, len;
};

struct groups {
	struct file_group *g;
	size_t nr;
	bool by_layout;
	struct u64map by_ino;	    /* inode -> group index + 1 */
	bool borrowed;		    /* by_ino is a whole's (groups_part_init) */
	uint64_t *counted;	    /* a part's: bit i, g[i] has counts */
	const uint32_t *syscall_nr; /* numbers by kind (syscalls.h) */
	/* whether st_dev is a traced block device (a layout's inode numbers
	 * mean nothing on another filesystem), and its first sector */
	bool (*fs_dev)(void *ctx, uint32_t st_dev, uint64_t *part_start);
	void *ctx;
	uint32_t block_size;

	/* samples kept until groups_finish() bins them */
	struct gsample *s;
	size_t nr_s, cap_s;
	struct gdisp *d;
	size_t nr_d, cap_d;

	/* figure 3-15: one file */
	const struct frag_file *file;
	uint32_t file_fsdev; /* st_dev of its reads (0: none seen) */
	struct block_run *traced, *laid;
	size_t nr_traced, nr_laid;
	uint64_t traced_blocks, traced_where; /* blocks, of which where the layout says */
	struct gbio *fb;		      /* its bios until finish */
	size_t nr_fb, cap_fb;
	/* the parts' samples, dispatches and figure bios, taken at each
	 * merge, in order after gs's own; joined to those at finish */
	struct runs s_runs, d_runs, fb_runs;

	/* figures 3-1 to 3-4: each group's blocks, with a layout */
	const struct frag_scan *layout;
	struct block_grid *grids; /* one per group; cells 0 when it has none */

	int err;
};

/* layout may be NULL (one group "all", every read). Groups are the layout's directories
 * in name order; the file of figure 3-15 is the most fragmented one of the
 * last group. syscall_nr: the numbers by kind (syscalls.h). */
int groups_init(struct groups *gs, const struct frag_scan *layout,
		const uint32_t syscall_nr[NR_SYSCALL_KINDS],
		bool (*fs_dev)(void *ctx, uint32_t st_dev, uint64_t *part_start),
		void *ctx);
/* gs for a part of the outputs: whole's groups, files and inode map
 * (borrowed: whole outlives gs and is not changed meanwhile), no counts.
 * 0 or -ENOMEM. */
int groups_part_init(struct groups *gs, const struct groups *whole);
/* What src counted (the outputs after gs's) added to gs, as if gs had
 * seen them; its samples, dispatches (sorted: groups_part_end) and bios
 * taken. 0 or -ENOMEM. */
int groups_merge(struct groups *gs, struct groups *src);
/* gs (a part) has all its outputs: its dispatches sorted (on the thread
 * that fed it), before groups_merge takes them. */
void groups_part_end(struct groups *gs);
/* The group of an inode (0 without a layout): index, or -1. */
int groups_of_inode(const struct groups *gs, uint64_t ino);
void groups_syscall(struct groups *gs, const struct join_syscall *s);
void groups_request(struct groups *gs, const struct join_request *r);
void groups_bio(struct groups *gs, const struct join_request *r,
		const struct join_bio *b);
/* Bins the samples, orders the dispatches, maps figure 3-15's sectors to
 * blocks, builds the block maps, computes every average. 0 or -ENOMEM. */
int groups_finish(struct groups *gs);
void groups_release(struct groups *gs);

#endif
