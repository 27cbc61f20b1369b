/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A block map as a grid of cells (DAV's view): the blocks [first, end) in
 * block order, bpc blocks a cell, each cell owned by a file (its index, as
 * the caller numbers them), several files, mapping blocks, a kind of system
 * block, or nothing; and a mark where a file's fragment starts (its first
 * one excepted). Built here once; `iotrail frag --svg` and `report --html`
 * draw it.
 */
#ifndef IOTRAIL_LAYOUT_GRID_H
#define IOTRAIL_LAYOUT_GRID_H

#include <stdint.h>

#include "layout.h"

#define GRID_FREE	     (-1)
#define GRID_MIXED	     (-2)		     /* blocks of several files */
#define GRID_MAPPING	     (-3)		     /* indirect blocks, extent tree */
#define GRID_SYS(kind)	     (-10 - (int32_t)(kind)) /* enum frag_sys_kind */
#define GRID_SYS_KIND(owner) ((uint32_t)(-10 - (owner)))

struct block_grid {
	uint64_t first, end; /* blocks covered */
	uint64_t bpc, cells; /* blocks a cell, cells */
	int32_t *owner;	     /* per cell: a file index or GRID_* */
	uint8_t *mark;	     /* per cell: a fragment starts here */
};

/* At most max_cells cells over [first, end). 0 or -ENOMEM. */
int block_grid_init(struct block_grid *g, uint64_t first, uint64_t end,
		    uint64_t max_cells);
/* A file's data blocks as owner who (>= 0), with its fragment marks; with
 * mapping, its mapping blocks as GRID_MAPPING. Blocks outside the grid are
 * left out. */
void block_grid_file(struct block_grid *g, const struct frag_file *f, int32_t who,
		     bool mapping);
/* System blocks show through files. */
void block_grid_sys(struct block_grid *g, const struct frag_sys *s);
void block_grid_release(struct block_grid *g);

/* Whether an extent has blocks on the disk (not inline, not delayed). */
static inline bool frag_has_blocks(const struct frag_extent *e)
{
	return e->len && !(e->flags & (FRAG_INLINE | FRAG_DELALLOC));
}

#endif
