// SPDX-License-Identifier: GPL-2.0
/* Seed 000's patterns: read system calls grouped by file set (groups.h). */
#include "groups.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { K_SYS, K_BIO, K_ELV };

struct gsample {
	uint64_t t_ns, v;
	uint32_t group, kind;
};

/* a dispatch (D) of a request, for the sector differences */
struct gdisp {
	uint64_t d_ns, sector;
	uint32_t nr, dev;
	int32_t group; /* -1: belongs to no group */
};

struct gbio {
	uint64_t q_ns, sector;
	uint32_t nr, dev;
};

static void tally(struct tally *t, uint64_t v)
{
	if (!t->n || v < t->min)
		t->min = v;
	if (v > t->max)
		t->max = v;
	t->sum += v;
	t->n++;
}

double group_mbps(const struct file_group *g)
{
	if (!g->bytes || g->last_ns <= g->first_ns)
		return 0.0;
	return (double)g->bytes / ((double)(g->last_ns - g->first_ns) / 1e9) / 1e6;
}

#define GROW(gs, arr, nr, cap)                                                           \
	do {                                                                             \
		if ((gs)->nr == (gs)->cap) {                                             \
			size_t _c = (gs)->cap ? 2 * (gs)->cap : 4096;                    \
			void *_p = realloc((gs)->arr, _c * sizeof(*(gs)->arr));          \
			if (!_p) {                                                       \
				(gs)->err = -ENOMEM;                                     \
				return;                                                  \
			}                                                                \
			(gs)->arr = _p;                                                  \
			(gs)->cap = _c;                                                  \
		}                                                                        \
	} while (0)

static void sample(struct groups *gs, uint32_t group, uint32_t kind, uint64_t t_ns,
		   uint64_t v)
{
	GROW(gs, s, nr_s, cap_s);
	gs->s[gs->nr_s++] =
	    (struct gsample){.t_ns = t_ns, .v = v, .group = group, .kind = kind};
}

/* ---- set-up: the layout's directories ------------------------------------ */

static size_t dir_len(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? (size_t)(slash - path) : 0;
}

static int cmp_files_by_dir(const void *a, const void *b)
{
	const struct frag_file *x = *(const struct frag_file *const *)a;
	const struct frag_file *y = *(const struct frag_file *const *)b;
	size_t lx = dir_len(x->path), ly = dir_len(y->path);
	int c = strncmp(x->path, y->path, lx < ly ? lx : ly);

	if (c)
		return c;
	if (lx != ly)
		return lx < ly ? -1 : 1;
	return strcmp(x->path, y->path);
}

static void group_name(const char *path, size_t len, char *out, size_t outlen)
{
	const char *start = path;

	for (size_t i = 0; i < len; i++)
		if (path[i] == '/')
			start = path + i + 1;
	if (path + len <= start)
		snprintf(out, outlen, "/");
	else
		snprintf(out, outlen, "%.*s", (int)(path + len - start), start);
}

static int layout_runs(struct groups *gs)
{
	const struct frag_file *f = gs->file;

	gs->laid = calloc(f->nr_ext ? f->nr_ext : 1, sizeof(*gs->laid));
	if (!gs->laid)
		return -ENOMEM;
	for (size_t k = 0; k < f->nr_ext; k++) {
		struct block_run *last = gs->nr_laid ? &gs->laid[gs->nr_laid - 1] : NULL;

		if (last && last->order + last->len == f->ext[k].logical &&
		    last->block + last->len == f->ext[k].physical) {
			last->len += f->ext[k].len;
			continue;
		}
		gs->laid[gs->nr_laid++] = (struct block_run){.order = f->ext[k].logical,
							     .block = f->ext[k].physical,
							     .len = f->ext[k].len};
	}
	return 0;
}

int groups_init(struct groups *gs, const struct frag_scan *layout,
		const uint32_t syscall_nr[NR_SYSCALL_KINDS],
		bool (*fs_dev)(void *ctx, uint32_t st_dev, uint64_t *part_start),
		void *ctx)
{
	const struct frag_file **order = NULL;
	size_t nr = layout ? layout->nr_files : 0;
	int err = -ENOMEM;

	memset(gs, 0, sizeof(*gs));
	gs->syscall_nr = syscall_nr;
	gs->fs_dev = fs_dev;
	gs->ctx = ctx;
	gs->by_layout = layout != NULL;
	gs->block_size = layout ? layout->block_size : 4096;
	if (u64map_init(&gs->by_ino, 64))
		return -ENOMEM;
	gs->g = calloc(nr ? nr : 1, sizeof(*gs->g));
	if (!gs->g)
		goto cleanup;
	if (!layout) {
		gs->nr = 1;
		snprintf(gs->g[0].name, sizeof(gs->g[0].name), "all");
		return 0;
	}
	order = malloc((nr ? nr : 1) * sizeof(*order));
	if (!order)
		goto cleanup;
	for (size_t i = 0; i < nr; i++)
		order[i] = &layout->files[i];
	qsort(order, nr, sizeof(*order), cmp_files_by_dir);
	for (size_t i = 0; i < nr; i++) {
		const struct frag_file *f = order[i];
		struct file_group *g;

		if (!i || dir_len(order[i - 1]->path) != dir_len(f->path) ||
		    strncmp(order[i - 1]->path, f->path, dir_len(f->path))) {
			g = &gs->g[gs->nr++];
			group_name(f->path, dir_len(f->path), g->name, sizeof(g->name));
		}
		g = &gs->g[gs->nr - 1];
		if (!g->nr_files || f->st.fragments < g->frags_min)
			g->frags_min = f->st.fragments;
		if (f->st.fragments > g->frags_max)
			g->frags_max = f->st.fragments;
		g->frags_sum += f->st.fragments;
		g->nr_files++;
		if (f->ino && u64map_put(&gs->by_ino, f->ino, (uint32_t)gs->nr))
			goto cleanup;
	}
	/* figure 3-15: the most fragmented file of the last group */
	for (size_t i = 0; i < nr; i++) {
		const struct frag_file *f = order[i];

		if (gs->nr && groups_of_inode(gs, f->ino) == (int)gs->nr - 1 &&
		    f->nr_ext && (!gs->file || f->st.fragments > gs->file->st.fragments))
			gs->file = f;
	}
	if (gs->file && layout_runs(gs))
		goto cleanup;
	err = 0;
cleanup:
	free(order);
	if (err)
		groups_release(gs);
	return err;
}

int groups_of_inode(const struct groups *gs, uint64_t ino)
{
	const uint32_t *v;

	if (!gs->by_layout)
		return 0;
	if (!ino || !(v = u64map_get(&gs->by_ino, ino)))
		return -1;
	return (int)*v - 1;
}

void groups_syscall(struct groups *gs, const struct join_syscall *s)
{
	struct file_group *g;
	uint64_t start;
	int gi;

	if (gs->err || !syscall_is_read(gs->syscall_nr, s->nr) || s->ret < 0 ||
	    s->exit_ns < s->enter_ns)
		return;
	if (gs->by_layout && !(gs->fs_dev && gs->fs_dev(gs->ctx, s->dev, &start)))
		return; /* another filesystem: its inode numbers are not the layout's */
	gi = groups_of_inode(gs, s->ino);
	if (gi < 0)
		return;
	g = &gs->g[gi];
	if (!g->reads || s->enter_ns < g->first_ns)
		g->first_ns = s->enter_ns;
	if (s->exit_ns > g->last_ns)
		g->last_ns = s->exit_ns;
	g->reads++;
	g->bytes += (uint64_t)s->ret;
	tally(&g->sys, s->exit_ns - s->enter_ns);
	sample(gs, (uint32_t)gi, K_SYS, s->enter_ns, s->exit_ns - s->enter_ns);
	if (gs->file && s->ino == gs->file->ino)
		gs->file_fsdev = s->dev;
}

void groups_bio(struct groups *gs, const struct join_request *r, const struct join_bio *b)
{
	int gi;

	if (gs->err || !b->q_ns || r->c_ns < b->q_ns)
		return;
	if (gs->file && b->ino == gs->file->ino) {
		GROW(gs, fb, nr_fb, cap_fb);
		gs->fb[gs->nr_fb++] = (struct gbio){.q_ns = b->q_ns,
						    .sector = b->sector,
						    .nr = b->nr_sectors,
						    .dev = r->dev};
	}
	gi = groups_of_inode(gs, b->ino);
	if (gi < 0)
		return;
	tally(&gs->g[gi].bio, r->c_ns - b->q_ns);
	sample(gs, (uint32_t)gi, K_BIO, b->q_ns, r->c_ns - b->q_ns);
}

void groups_request(struct groups *gs, const struct join_request *r)
{
	int gi = groups_of_inode(gs, r->ino);

	if (gs->err)
		return;
	if (gi >= 0 && r->i_ns && r->d_ns >= r->i_ns) {
		tally(&gs->g[gi].elv, r->d_ns - r->i_ns);
		sample(gs, (uint32_t)gi, K_ELV, r->i_ns, r->d_ns - r->i_ns);
	}
	if (gi >= 0 && r->d_ns && r->c_ns >= r->d_ns)
		tally(&gs->g[gi].dev, r->c_ns - r->d_ns);
	if (r->d_ns && r->nr_sectors && r->sector != UINT64_MAX) {
		GROW(gs, d, nr_d, cap_d);
		gs->d[gs->nr_d++] = (struct gdisp){.d_ns = r->d_ns,
						   .sector = r->sector,
						   .nr = r->nr_sectors,
						   .dev = r->dev,
						   .group = gi};
	}
}

/* ---- finish ---------------------------------------------------------------- */

static int cmp_disp(const void *a, const void *b)
{
	const struct gdisp *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->d_ns < y->d_ns ? -1 : x->d_ns > y->d_ns;
}

static int cmp_gbio(const void *a, const void *b)
{
	const struct gbio *x = a, *y = b;

	return x->q_ns < y->q_ns ? -1 : x->q_ns > y->q_ns;
}

static struct group_bin *bin_of(struct file_group *g, uint64_t t_ns)
{
	uint64_t i = t_ns > g->first_ns ? (t_ns - g->first_ns) / g->bin_ns : 0;

	return &g->bin[i < GROUP_BINS ? i : GROUP_BINS - 1];
}

/* blocks of [first, last] in the file's data or mapping blocks */
static uint64_t blocks_where(const struct frag_file *f, uint64_t first, uint64_t last)
{
	uint64_t n = 0;

	for (size_t k = 0; k < f->nr_ext; k++) {
		uint64_t a = f->ext[k].physical, b = a + f->ext[k].len - 1;

		if (f->ext[k].len && a <= last && b >= first)
			n += (b < last ? b : last) - (a > first ? a : first) + 1;
	}
	for (size_t k = 0; k < f->nr_meta; k++)
		n += f->meta[k] >= first && f->meta[k] <= last;
	return n;
}

static int traced_runs(struct groups *gs)
{
	uint64_t start = 0, per_block = gs->block_size / 512;

	if (!gs->nr_fb || !per_block ||
	    !(gs->fs_dev && gs->fs_dev(gs->ctx, gs->file_fsdev, &start)))
		return 0;
	qsort(gs->fb, gs->nr_fb, sizeof(*gs->fb), cmp_gbio);
	gs->traced = malloc(gs->nr_fb * sizeof(*gs->traced));
	if (!gs->traced)
		return -ENOMEM;
	for (size_t i = 0; i < gs->nr_fb; i++) {
		const struct gbio *b = &gs->fb[i];
		uint64_t first, last;
		struct block_run *run;

		if (!b->nr || b->sector < start)
			continue;
		first = (b->sector - start) / per_block;
		last = (b->sector + b->nr - 1 - start) / per_block;
		run = gs->nr_traced ? &gs->traced[gs->nr_traced - 1] : NULL;
		if (run && run->block + run->len == first) {
			run->len += last - first + 1;
		} else {
			gs->traced[gs->nr_traced++] =
			    (struct block_run){.order = gs->traced_blocks,
					       .block = first,
					       .len = last - first + 1};
		}
		gs->traced_blocks += last - first + 1;
		gs->traced_where += blocks_where(gs->file, first, last);
	}
	return 0;
}

int groups_finish(struct groups *gs)
{
	if (gs->err)
		return gs->err;
	for (size_t i = 0; i < gs->nr; i++) {
		struct file_group *g = &gs->g[i];
		uint64_t span = g->last_ns > g->first_ns ? g->last_ns - g->first_ns : 1;

		g->bin_ns = (span + GROUP_BINS - 1) / GROUP_BINS;
	}
	for (size_t i = 0; i < gs->nr_s; i++) {
		const struct gsample *s = &gs->s[i];
		struct file_group *g = &gs->g[s->group];
		struct group_bin *b;

		if (!g->reads)
			continue; /* bios of a file whose reads were not seen */
		b = bin_of(g, s->t_ns);
		tally(s->kind == K_SYS	 ? &b->sys
		      : s->kind == K_BIO ? &b->bio
					 : &b->elv,
		      s->v);
	}
	qsort(gs->d, gs->nr_d, sizeof(*gs->d), cmp_disp);
	for (size_t i = 1; i < gs->nr_d; i++) {
		const struct gdisp *p = &gs->d[i - 1], *c = &gs->d[i];
		struct file_group *g;
		int64_t diff;
		uint64_t mag;

		if (c->group < 0 || p->dev != c->dev)
			continue;
		g = &gs->g[c->group];
		diff = (int64_t)(c->sector - (p->sector + p->nr));
		mag = diff < 0 ? (uint64_t)-diff : (uint64_t)diff;
		tally(&g->sdiff, mag);
		g->seeks += mag != 0;
		if (g->reads)
			tally(&bin_of(g, c->d_ns)->sdiff, mag);
	}
	if (gs->file && traced_runs(gs))
		return -ENOMEM;
	return 0;
}

void groups_release(struct groups *gs)
{
	free(gs->g);
	free(gs->s);
	free(gs->d);
	free(gs->fb);
	free(gs->traced);
	free(gs->laid);
	u64map_release(&gs->by_ino);
	memset(gs, 0, sizeof(*gs));
}
