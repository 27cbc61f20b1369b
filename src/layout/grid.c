// SPDX-License-Identifier: GPL-2.0
/* Block maps as grids of cells (grid.h). */
#include "grid.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int block_grid_init(struct block_grid *g, uint64_t first, uint64_t end,
		    uint64_t max_cells)
{
	uint64_t blocks = end > first ? end - first : 1;

	memset(g, 0, sizeof(*g));
	g->first = first;
	g->end = first + blocks;
	g->bpc = (blocks + max_cells - 1) / max_cells;
	g->cells = (blocks + g->bpc - 1) / g->bpc;
	g->owner = malloc(g->cells * sizeof(*g->owner));
	g->mark = calloc(g->cells, 1);
	if (!g->owner || !g->mark) {
		block_grid_release(g);
		return -ENOMEM;
	}
	for (uint64_t c = 0; c < g->cells; c++)
		g->owner[c] = GRID_FREE;
	return 0;
}

static void own(struct block_grid *g, uint64_t start, uint64_t len, int32_t who)
{
	uint64_t last, c0, c1;

	if (!len || start >= g->end || start + len < start)
		return;
	last = start + len - 1;
	if (last < g->first)
		return;
	c0 = start > g->first ? (start - g->first) / g->bpc : 0;
	c1 = (last - g->first) / g->bpc;
	for (uint64_t c = c0; c <= c1 && c < g->cells; c++) {
		if (g->owner[c] == GRID_FREE || g->owner[c] == who)
			g->owner[c] = who;
		else if (who >= 0 && g->owner[c] >= 0)
			g->owner[c] = GRID_MIXED;
		else if (who < 0)
			g->owner[c] = who; /* system blocks show through */
	}
}

void block_grid_file(struct block_grid *g, const struct frag_file *f, int32_t who,
		     bool mapping)
{
	for (size_t k = 0; k < f->nr_ext; k++) {
		const struct frag_extent *e = &f->ext[k];

		if (!frag_has_blocks(e))
			continue;
		own(g, e->physical, e->len, who);
		if (k && !frag_continues(&f->ext[k - 1], e) && e->physical >= g->first &&
		    e->physical < g->end)
			g->mark[(e->physical - g->first) / g->bpc] = 1;
	}
	for (size_t k = 0; mapping && k < f->nr_meta; k++)
		own(g, f->meta[k], 1, GRID_MAPPING);
}

void block_grid_sys(struct block_grid *g, const struct frag_sys *s)
{
	own(g, s->start, s->len, GRID_SYS(s->kind));
}

void block_grid_release(struct block_grid *g)
{
	free(g->owner);
	free(g->mark);
	memset(g, 0, sizeof(*g));
}
