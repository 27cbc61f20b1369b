// SPDX-License-Identifier: GPL-2.0
/* overlay: a file's traced reads against its layout (overlay.h). */
#include "overlay.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../util/grow.h"
#include "analyzer.h"

struct overlay_bio {
	uint64_t q_ns, sector;
	uint32_t nr, dev;
};

static int init(struct analysis *a, struct an_output *o)
{
	struct overlay_priv *p = o->priv;
	const struct overlay_priv *whole = analysis_whole_priv(a, o);
	const struct frag_scan *s = a->env.layout;

	if (whole) { /* the file the report found */
		p->file = whole->file;
		p->block_size = whole->block_size;
		return 0;
	}
	if (!s || !a->env.overlay_file) {
		snprintf(a->errmsg, sizeof(a->errmsg),
			 "overlay: needs a layout and a file");
		return -EINVAL;
	}
	p->file = frag_scan_find(s, a->env.overlay_file);
	if (!p->file) {
		snprintf(a->errmsg, sizeof(a->errmsg),
			 "%s: not (or not once) among the %zu files of the layout",
			 a->env.overlay_file, s->nr_files);
		return -ENOENT;
	}
	p->block_size = s->block_size;
	return 0;
}

static void syscall(struct analysis *a, void *priv, const struct join_syscall *s)
{
	struct overlay_priv *p = priv;
	uint64_t start;

	/* the file's filesystem: the first of its reads on a traced device */
	if (!p->fs_dev && s->ino == p->file->ino && analysis_syscall_is_read(a, s->nr) &&
	    a->env.fs_dev && a->env.fs_dev(a->env.ctx, s->dev, &start))
		p->fs_dev = s->dev;
}

static void bio(struct analysis *a, void *priv, struct dev_result *d,
		const struct join_request *r, const struct join_bio *b)
{
	struct overlay_priv *p = priv;

	if ((r->flags & IOT_OP_MASK) != IOT_OP_READ || b->ino != p->file->ino ||
	    !b->q_ns || !b->nr_sectors)
		return;
	if (GROW(p->bios, p->nr_bios + 1, p->cap_bios)) {
		analysis_note_err(a, -ENOMEM);
		return;
	}
	p->bios[p->nr_bios++] =
	    (struct overlay_bio){b->q_ns, b->sector, b->nr_sectors, r->dev};
}

static int merge(struct analysis *a, void *priv, const struct analysis *src,
		 void *src_priv, const size_t *devmap)
{
	struct overlay_priv *p = priv;
	const struct overlay_priv *x = src_priv;

	if (!p->fs_dev)
		p->fs_dev = x->fs_dev;
	/* in output order: finish's sort sees one pass's array */
	return APPEND(p->bios, p->nr_bios, p->cap_bios, x->bios, x->nr_bios);
}

static int64_t file_block(const struct frag_file *f, uint64_t blk)
{
	for (size_t k = 0; k < f->nr_ext; k++)
		if (blk >= f->ext[k].physical && blk - f->ext[k].physical < f->ext[k].len)
			return (int64_t)(f->ext[k].logical + (blk - f->ext[k].physical));
	for (size_t k = 0; k < f->nr_meta; k++)
		if (f->meta[k] == blk)
			return OVERLAY_MAPPING;
	return OVERLAY_ELSEWHERE;
}

static int cmp_bio(const void *x, const void *y)
{
	const struct overlay_bio *a = x, *b = y;

	if (a->q_ns != b->q_ns)
		return a->q_ns < b->q_ns ? -1 : 1;
	return (a->sector > b->sector) - (a->sector < b->sector);
}

static const struct column cols[] = {
    {"order", "ORDER", 8, CELL_U64},
    {"time_s", "TIME_S", 14, CELL_F64, IN_ALL, 9, 1, 6},
    {"fs_block", "FS_BLOCK", 12, CELL_U64},
    {"file_block", "FILE_BLOCK", 12, CELL_I64},
    {"where", "WHERE", -10, CELL_STR},
};

static const char *where_name(int64_t fb)
{
	return fb >= 0 ? "data" : fb == OVERLAY_MAPPING ? "mapping" : "elsewhere";
}

static int finish(struct analysis *a, struct an_output *o)
{
	struct overlay_priv *p = o->priv;
	const struct frag_file *f = p->file;
	const struct iot_dev_entry *fs;
	struct table *t;

	for (size_t k = 0; k < f->nr_ext; k++)
		if (f->ext[k].logical + f->ext[k].len > p->file_blocks)
			p->file_blocks = f->ext[k].logical + f->ext[k].len;
	p->per_block = p->block_size / 512;
	fs = p->fs_dev && a->env.dev_entry ? a->env.dev_entry(a->env.ctx, p->fs_dev)
					   : NULL;
	if (!fs || !p->per_block)
		return 0; /* no read of the file on a traced filesystem */
	snprintf(p->fs_name, sizeof(p->fs_name), "%.*s", (int)sizeof(fs->name), fs->name);
	p->part_start = fs->start_sector;
	if (p->nr_bios)
		qsort(p->bios, p->nr_bios, sizeof(*p->bios), cmp_bio);
	for (size_t i = 0; i < p->nr_bios; i++) {
		const struct overlay_bio *b = &p->bios[i];
		uint64_t first, last;

		if (b->dev != fs->disk_dev || b->sector < p->part_start)
			continue;
		if (b->nr > OVERLAY_BIO_MAX_SECTORS) {
			p->implausible++; /* no bio is that large: damage */
			continue;
		}
		first = (b->sector - p->part_start) / p->per_block;
		last = (b->sector + b->nr - 1 - p->part_start) / p->per_block;
		for (uint64_t blk = first; blk <= last; blk++) {
			struct overlay_access *x;

			if (GROW(p->acc, p->nr_acc + 1, p->cap_acc))
				return -ENOMEM;
			x = &p->acc[p->nr_acc++];
			x->ts_ns = b->q_ns;
			x->block = blk;
			x->file_block = file_block(f, blk);
			p->where += x->file_block != OVERLAY_ELSEWHERE;
		}
	}
	t = an_output_table(a, o, "overlay", cols, sizeof(cols) / sizeof(cols[0]));
	if (!t)
		return -ENOMEM;
	snprintf(t->title, sizeof(t->title), "Reads of %s against its layout", f->path);
	for (size_t i = 0; i < p->nr_acc; i++) {
		table_row(t);
		table_u64(t, i);
		table_f64(t, (double)(p->acc[i].ts_ns - a->env.t0_ns) / 1e9);
		table_u64(t, p->acc[i].block);
		table_i64(t, p->acc[i].file_block);
		table_str(t, "%s", where_name(p->acc[i].file_block));
	}
	table_note(t,
		   "  %zu traced blocks, %zu (%.1f%%) where the layout says (its data or "
		   "mapping blocks)\n",
		   p->nr_acc, p->where,
		   p->nr_acc ? 100.0 * (double)p->where / (double)p->nr_acc : 0.0);
	return 0;
}

static void release(void *priv)
{
	struct overlay_priv *p = priv;

	free(p->bios);
	free(p->acc);
}

const struct analyzer an_overlay = {
    .name = "overlay",
    .help = "one file's traced reads against its layout (--layout, "
	    "iotrail overlay; seed 000, figure 3-15)",
    .priv_size = sizeof(struct overlay_priv),
    .init = init,
    .merge = merge,
    .bio = bio,
    .syscall = syscall,
    .finish = finish,
    .release = release,
};
