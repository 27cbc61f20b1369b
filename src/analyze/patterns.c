// SPDX-License-Identifier: GPL-2.0
/* patterns: seed 000's read system calls grouped by file set (patterns.h). */
#include "patterns.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/grow.h"
#include "analyzer.h"

enum { K_SYS, K_BIO, K_ELV };

struct gsample {
	uint64_t t_ns, v;
	uint32_t group, kind;
};

/* a dispatch (D) of a request, for the sector differences */
struct gdisp {
	uint64_t d_ns, sector;
	uint64_t c_ns; /* 0: no C */
	uint32_t nr, dev;
	int32_t group; /* -1: belongs to no group */
	uint32_t seq;  /* its place in its array as output: the sort's last key */
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

static void sample(struct groups *gs, uint32_t group, uint32_t kind, uint64_t t_ns,
		   uint64_t v)
{
	if (GROW(gs->s, gs->nr_s + 1, gs->cap_s)) {
		gs->err = -ENOMEM;
		return;
	}
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
	gs->layout = layout;
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

int groups_part_init(struct groups *gs, const struct groups *whole)
{
	memset(gs, 0, sizeof(*gs));
	gs->nr = whole->nr;
	gs->by_layout = whole->by_layout;
	gs->by_ino = whole->by_ino;
	gs->borrowed = true;
	gs->syscall_nr = whole->syscall_nr;
	gs->fs_dev = whole->fs_dev;
	gs->ctx = whole->ctx;
	gs->block_size = whole->block_size;
	gs->file = whole->file;
	gs->layout = whole->layout;
	/* a layout's groups are its directories, maybe thousands of a few
	 * KB: the pages of those a part never counts are never touched,
	 * and the merge visits the counted ones alone */
	gs->g = calloc(gs->nr ? gs->nr : 1, sizeof(*gs->g));
	gs->counted = calloc(gs->nr / 64 + 1, sizeof(*gs->counted));
	return gs->g && gs->counted ? 0 : -ENOMEM;
}

static void tally_merge(struct tally *t, const struct tally *x)
{
	if (!x->n)
		return;
	if (!t->n || x->min < t->min)
		t->min = x->min;
	if (x->max > t->max)
		t->max = x->max;
	t->sum += x->sum;
	t->n += x->n;
}

int groups_merge(struct groups *gs, struct groups *src)
{
	if (gs->err)
		return gs->err;
	if (src->err)
		return gs->err = src->err;
	for (size_t w = 0; w <= src->nr / 64; w++)
		for (uint64_t bits = src->counted[w]; bits; bits &= bits - 1) {
			size_t i = w * 64 + (size_t)__builtin_ctzll(bits);
			struct file_group *g = &gs->g[i];
			const struct file_group *x = &src->g[i];

			if (gs->counted)
				gs->counted[w] |= bits & -bits;
			if (x->reads) {
				if (!g->reads || x->first_ns < g->first_ns)
					g->first_ns = x->first_ns;
				if (x->last_ns > g->last_ns)
					g->last_ns = x->last_ns;
			}
			g->reads += x->reads;
			g->bytes += x->bytes;
			tally_merge(&g->sys, &x->sys);
			tally_merge(&g->bio, &x->bio);
			tally_merge(&g->elv, &x->elv);
			tally_merge(&g->dev, &x->dev);
		}
	if (src->file_fsdev)
		gs->file_fsdev = src->file_fsdev;
	/* in output order (groups_finish's sorts see the single pass's
	 * arrays), joined there: no copy on the thread that merges */
	if (TAKE(gs->s_runs, src->s, src->nr_s, src->cap_s) ||
	    TAKE(gs->d_runs, src->d, src->nr_d, src->cap_d) ||
	    TAKE(gs->fb_runs, src->fb, src->nr_fb, src->cap_fb))
		return gs->err = -ENOMEM;
	return 0;
}

/* g[gi], marked as counted in a part */
static struct file_group *counting(struct groups *gs, int gi)
{
	if (gs->counted)
		gs->counted[gi / 64] |= 1ull << (gi % 64);
	return &gs->g[gi];
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
	g = counting(gs, gi);
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
		if (GROW(gs->fb, gs->nr_fb + 1, gs->cap_fb)) {
			gs->err = -ENOMEM;
			return;
		}
		gs->fb[gs->nr_fb++] = (struct gbio){.q_ns = b->q_ns,
						    .sector = b->sector,
						    .nr = b->nr_sectors,
						    .dev = r->dev};
	}
	gi = groups_of_inode(gs, b->ino);
	if (gi < 0)
		return;
	tally(&counting(gs, gi)->bio, r->c_ns - b->q_ns);
	sample(gs, (uint32_t)gi, K_BIO, b->q_ns, r->c_ns - b->q_ns);
}

void groups_request(struct groups *gs, const struct join_request *r)
{
	int gi = groups_of_inode(gs, r->ino);

	if (gs->err)
		return;
	if (gi >= 0 && r->i_ns && r->d_ns >= r->i_ns) {
		tally(&counting(gs, gi)->elv, r->d_ns - r->i_ns);
		sample(gs, (uint32_t)gi, K_ELV, r->i_ns, r->d_ns - r->i_ns);
	}
	if (gi >= 0 && r->d_ns && r->c_ns >= r->d_ns)
		tally(&counting(gs, gi)->dev, r->c_ns - r->d_ns);
	if (r->d_ns && r->nr_sectors && r->sector != UINT64_MAX) {
		if (GROW(gs->d, gs->nr_d + 1, gs->cap_d)) {
			gs->err = -ENOMEM;
			return;
		}
		gs->d[gs->nr_d] = (struct gdisp){.d_ns = r->d_ns,
						 .sector = r->sector,
						 .c_ns = r->c_ns >= r->d_ns ? r->c_ns : 0,
						 .nr = r->nr_sectors,
						 .dev = r->dev,
						 .group = gi,
						 .seq = (uint32_t)gs->nr_d};
		gs->nr_d++;
	}
}

/* ---- finish ---------------------------------------------------------------- */

/* Figures 3-1 to 3-4: per group, its files' blocks from its first to its
 * last, a colour per file. */
static int block_maps(struct groups *gs)
{
	const struct frag_scan *lay = gs->layout;

	if (!lay || !gs->by_layout)
		return 0;
	gs->grids = calloc(gs->nr ? gs->nr : 1, sizeof(*gs->grids));
	if (!gs->grids)
		return -ENOMEM;
	for (size_t gi = 0; gi < gs->nr; gi++) {
		uint64_t lo = UINT64_MAX, hi = 0;
		int32_t idx = 0;

		for (size_t i = 0; i < lay->nr_files; i++) {
			const struct frag_file *x = &lay->files[i];

			if (groups_of_inode(gs, x->ino) != (int)gi)
				continue;
			for (size_t k = 0; k < x->nr_ext; k++) {
				const struct frag_extent *e = &x->ext[k];

				if (!frag_has_blocks(e) ||
				    e->physical + e->len < e->physical)
					continue;
				lo = e->physical < lo ? e->physical : lo;
				hi =
				    e->physical + e->len > hi ? e->physical + e->len : hi;
			}
		}
		if (hi <= lo)
			continue;
		if (block_grid_init(&gs->grids[gi], lo, hi, GROUP_MAP_CELLS))
			return -ENOMEM;
		for (size_t i = 0; i < lay->nr_files; i++)
			if (groups_of_inode(gs, lay->files[i].ino) == (int)gi)
				block_grid_file(&gs->grids[gi], &lay->files[i], idx++,
						false);
	}
	return 0;
}

/* by device and time, then as output: one order, whatever the sort */
static int cmp_disp(const void *a, const void *b)
{
	const struct gdisp *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->d_ns != y->d_ns)
		return x->d_ns < y->d_ns ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
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

/* Dispatch c after p on the device (in the order of cmp_disp): the seek
 * between them, and c's service time by the seek's size. */
static void disp_pair(struct groups *gs, const struct gdisp *p, const struct gdisp *c)
{
	struct file_group *g;
	int64_t diff;
	uint64_t mag;

	if (c->group < 0 || p->dev != c->dev)
		return;
	g = &gs->g[c->group];
	diff = (int64_t)(c->sector - (p->sector + p->nr));
	mag = diff < 0 ? 0 - (uint64_t)diff : (uint64_t)diff; /* INT64_MIN too */
	tally(&g->sdiff, mag);
	g->seeks += mag != 0;
	/* its service: from when the device was free of the request
	 * before (served in dispatch order) to its completion */
	if (c->c_ns && p->c_ns && c->c_ns >= p->c_ns) {
		uint64_t from = c->d_ns > p->c_ns ? c->d_ns : p->c_ns;
		int k = mag ? 64 - __builtin_clzll(mag) : 0;

		tally(&g->seek_svc[k < GROUP_SEEK_BUCKETS ? k : GROUP_SEEK_BUCKETS - 1],
		      c->c_ns - from);
	}
	if (g->reads)
		tally(&bin_of(g, c->d_ns)->sdiff, mag);
}

/* a sorted array of dispatches (gs->d, or a part's), at its next one */
struct dcur {
	const struct gdisp *p, *end;
	size_t run; /* 0: gs->d, then the parts' in order */
};

/* the order of one array sorted (cmp_disp) after the other: by device
 * and time, then the earlier array's first (its outputs came first) */
static bool dcur_before(const struct dcur *a, const struct dcur *b)
{
	if (a->p->dev != b->p->dev)
		return a->p->dev < b->p->dev;
	if (a->p->d_ns != b->p->d_ns)
		return a->p->d_ns < b->p->d_ns;
	return a->run < b->run;
}

static void dcur_down(struct dcur *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct dcur t;

		if (l < n && dcur_before(&h[l], &h[m]))
			m = l;
		if (l + 1 < n && dcur_before(&h[l + 1], &h[m]))
			m = l + 1;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

/* Every dispatch after the one before it on its device: gs->d and the
 * parts' (each sorted on its own thread, groups_part_end) merged, in the
 * order of one array of them all sorted. 0 or -ENOMEM. */
static int dispatches(struct groups *gs)
{
	size_t n = 0;
	struct dcur *h = malloc((gs->d_runs.nr + 1) * sizeof(*h));
	const struct gdisp *prev = NULL;

	if (!h)
		return -ENOMEM;
	for (size_t k = 0; k <= gs->d_runs.nr; k++) {
		const struct gdisp *d = k ? gs->d_runs.r[k - 1].p : gs->d;
		size_t nr = k ? gs->d_runs.r[k - 1].n : gs->nr_d;

		if (nr)
			h[n++] = (struct dcur){d, d + nr, k};
	}
	for (size_t i = n / 2; i-- > 0;)
		dcur_down(h, n, i);
	while (n) {
		const struct gdisp *c = h[0].p;

		if (prev)
			disp_pair(gs, prev, c);
		prev = c;
		if (++h[0].p == h[0].end)
			h[0] = h[--n];
		dcur_down(h, n, 0);
	}
	free(h);
	return 0;
}

void groups_part_end(struct groups *gs)
{
	if (gs->nr_d)
		qsort(gs->d, gs->nr_d, sizeof(*gs->d), cmp_disp);
}

/* samples into their groups' time bins (in any order: tallies) */
static void bin_samples(struct groups *gs, const struct gsample *from, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct gsample *s = &from[i];
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
}

int groups_finish(struct groups *gs)
{
	if (gs->err)
		return gs->err;
	/* the figure's bios sorted as one array; the dispatches merged
	 * from the parts' sorted ones; the samples where they are */
	if (JOIN(gs->fb_runs, gs->fb, gs->nr_fb, gs->cap_fb))
		return gs->err = -ENOMEM;
	for (size_t i = 0; i < gs->nr; i++) {
		struct file_group *g = &gs->g[i];
		uint64_t span = g->last_ns > g->first_ns ? g->last_ns - g->first_ns : 1;

		g->bin_ns = (span + GROUP_BINS - 1) / GROUP_BINS;
	}
	bin_samples(gs, gs->s, gs->nr_s);
	for (size_t k = 0; k < gs->s_runs.nr; k++)
		bin_samples(gs, gs->s_runs.r[k].p, gs->s_runs.r[k].n);
	groups_part_end(gs); /* its own dispatches sorted, as a part's are */
	if (dispatches(gs))
		return gs->err = -ENOMEM;
	if (gs->file && traced_runs(gs))
		return -ENOMEM;
	for (size_t i = 0; i < gs->nr; i++) {
		struct file_group *g = &gs->g[i];
		struct tally *t[] = {&g->sys, &g->bio, &g->elv, &g->dev, &g->sdiff};

		for (size_t k = 0; k < sizeof(t) / sizeof(t[0]); k++)
			t[k]->avg = t[k]->n ? (double)t[k]->sum / (double)t[k]->n : 0.0;
		for (size_t k = 0; k < GROUP_SEEK_BUCKETS; k++)
			g->seek_svc[k].avg =
			    g->seek_svc[k].n
				? (double)g->seek_svc[k].sum / (double)g->seek_svc[k].n
				: 0.0;
		g->mbps = g->bytes && g->last_ns > g->first_ns
			      ? (double)g->bytes /
				    ((double)(g->last_ns - g->first_ns) / 1e9) / 1e6
			      : 0.0;
		g->frags_per_file =
		    g->nr_files ? (double)g->frags_sum / (double)g->nr_files : 0.0;
		g->seeks_pct =
		    g->sdiff.n ? 100.0 * (double)g->seeks / (double)g->sdiff.n : 0.0;
	}
	return block_maps(gs);
}

void groups_release(struct groups *gs)
{
	for (size_t i = 0; gs->grids && i < gs->nr; i++)
		block_grid_release(&gs->grids[i]);
	free(gs->grids);
	free(gs->g);
	free(gs->s);
	free(gs->d);
	free(gs->fb);
	runs_release(&gs->s_runs);
	runs_release(&gs->d_runs);
	runs_release(&gs->fb_runs);
	free(gs->traced);
	free(gs->laid);
	free(gs->counted);
	if (!gs->borrowed)
		u64map_release(&gs->by_ino);
	memset(gs, 0, sizeof(*gs));
}

/* ---- the analyzer ------------------------------------------------------------ */

static int init(struct analysis *a, struct an_output *o)
{
	const struct groups *whole = analysis_whole_priv(a, o);

	if (whole)
		return groups_part_init(o->priv, whole);
	return groups_init(o->priv, a->env.layout, a->env.syscall_nr, a->env.fs_dev,
			   a->env.ctx);
}

static int merge(struct analysis *a, void *priv, const struct analysis *src,
		 void *src_priv, const size_t *devmap)
{
	return groups_merge(priv, src_priv); /* by dev_t, not by index */
}

static void part_end(struct analysis *a, void *priv)
{
	groups_part_end(priv);
}

static void on_syscall(struct analysis *a, void *priv, const struct join_syscall *s)
{
	groups_syscall(priv, s);
}

static void on_request(struct analysis *a, void *priv, struct dev_result *d,
		       const struct join_request *r)
{
	groups_request(priv, r);
}

static void on_bio(struct analysis *a, void *priv, struct dev_result *d,
		   const struct join_request *r, const struct join_bio *b)
{
	groups_bio(priv, r, b);
}

#define TALLY(group)                                                                     \
	{"count", "", 0, CELL_U64, IN_JSON, 0, 0, 0, group, NULL},                       \
	    {"sum", "", 0, CELL_U64, IN_JSON, 0, 0, 0, group, NULL},                     \
	    {"min", "", 0, CELL_U64, IN_JSON, 0, 0, 0, group, NULL},                     \
	{                                                                                \
		"max", "", 0, CELL_U64, IN_JSON, 0, 0, 0, group, NULL                    \
	}
#define AVG_US(key, head)                                                                \
	{                                                                                \
		key, head, 11, CELL_F64, IN_TEXT | IN_HTML | IN_CSV, 0, 1e3, 1           \
	}
#define MAX_NS(key)                                                                      \
	{                                                                                \
		key, "", 0, CELL_U64, IN_CSV                                             \
	}

/* text, CSV and JSON each pick theirs, in their own (historical) order */
static const struct column cols[] = {
    {"pattern", "PATTERN", -10, CELL_STR},
    {"files", "FILES", 5, CELL_U64},
    {"fragments_per_file", "FRAG/FILE", 9, CELL_F64, IN_ALL & ~IN_JSON, 2},
    {"fragments_sum", "", 0, CELL_U64, IN_JSON},
    {"fragments_min", "", 0, CELL_U64, IN_PROGRAMS},
    {"fragments_max", "", 0, CELL_U64, IN_PROGRAMS},
    {"read_mb", "READ_MB", 8, CELL_F64, IN_PEOPLE, 1},
    {"reads", "", 0, CELL_U64, IN_PROGRAMS},
    {"bytes", "", 0, CELL_U64, IN_PROGRAMS},
    {"seconds", "", 0, CELL_F64, IN_CSV, 6},
    {"first_ns", "", 0, CELL_U64, IN_JSON},
    {"last_ns", "", 0, CELL_U64, IN_JSON},
    {"throughput_mbps", "MB/s", 9, CELL_F64, IN_ALL, 1},
    AVG_US("syscall_avg_ns", "SYSCALL_us"),
    MAX_NS("syscall_max_ns"),
    TALLY("syscall_ns"),
    AVG_US("bio_avg_ns", "BIO_us"),
    MAX_NS("bio_max_ns"),
    TALLY("bio_ns"),
    AVG_US("scheduler_avg_ns", "SCHED_us"),
    MAX_NS("scheduler_max_ns"),
    TALLY("scheduler_ns"),
    AVG_US("device_avg_ns", "DEVICE_us"),
    MAX_NS("device_max_ns"),
    TALLY("device_ns"),
    {"seeks_pct", "SEEKS_%", 9, CELL_F64, IN_PEOPLE, 1},
    {"dispatches", "", 0, CELL_U64, IN_CSV},
    {"seeks", "", 0, CELL_U64, IN_CSV},
    {"sector_diff_avg", "SECTOR_DIFF", 12, CELL_F64, IN_TEXT | IN_HTML | IN_CSV, 0},
    MAX_NS("sector_diff_max"),
    TALLY("sector_diff"),
    {"seeks", "", 0, CELL_U64, IN_JSON},
};

static const struct column order_cols[] = {
    {"file", "", 0, CELL_STR},
    {"inode", "", 0, CELL_U64},
    {"traced_blocks", "", 0, CELL_U64},
    {"where_layout_says", "", 0, CELL_U64},
};

/* service time by seek distance, per pattern (JSON; the figure in the
 * HTML) */
static const struct column seek_cols[] = {
    {"pattern", "", 0, CELL_STR},
    {"distance_min", "", 0, CELL_U64}, /* sectors */
    {"distance_max", "", 0, CELL_U64},
    {"requests", "", 0, CELL_U64},
    {"service_avg_ns", "", 0, CELL_F64, IN_JSON, 0},
};

/* the seek cost over every pattern: no seek, under 1 MiB (bucket 11:
 * under 2048 sectors), farther */
static void seek_note(struct table *t, const struct groups *gs)
{
	uint64_t n[3] = {0}, sum[3] = {0};

	for (size_t i = 0; i < gs->nr; i++)
		for (int k = 0; k < GROUP_SEEK_BUCKETS; k++) {
			int c = k == 0 ? 0 : k <= 11 ? 1 : 2;

			n[c] += gs->g[i].seek_svc[k].n;
			sum[c] += gs->g[i].seek_svc[k].sum;
		}
	if (!n[0] && !n[1] && !n[2])
		return;
	table_note(t,
		   "  seek cost on this device, service time (C less the later of D and "
		   "the C before) by the distance from the request dispatched before: "
		   "none %.3f ms (%" PRIu64 "), under 1 MiB %.3f ms (%" PRIu64
		   "), farther "
		   "%.3f ms (%" PRIu64 ")\n",
		   n[0] ? (double)sum[0] / (double)n[0] / 1e6 : 0.0, n[0],
		   n[1] ? (double)sum[1] / (double)n[1] / 1e6 : 0.0, n[1],
		   n[2] ? (double)sum[2] / (double)n[2] / 1e6 : 0.0, n[2]);
}

static void avg_max(struct table *t, const struct tally *x)
{
	table_f64(t, x->avg);
	table_u64(t, x->max);
	table_u64(t, x->n);
	table_u64(t, x->sum);
	table_u64(t, x->min);
	table_u64(t, x->max);
}

static int finish(struct analysis *a, struct an_output *o)
{
	struct groups *gs = o->priv;
	struct table *t;
	int err = groups_finish(gs);

	if (err)
		return err;
	t = an_output_table(a, o, "patterns", cols, sizeof(cols) / sizeof(cols[0]));
	if (!t)
		return -ENOMEM;
	snprintf(t->title, sizeof(t->title), "Patterns: reads by file set%s",
		 gs->by_layout ? " (the layout's directories)"
			       : " (no --layout: every read)");
	for (size_t i = 0; i < gs->nr; i++) {
		const struct file_group *g = &gs->g[i];

		table_row(t);
		table_str(t, "%s", g->name);
		table_u64(t, g->nr_files);
		table_f64(t, g->frags_per_file);
		table_u64(t, g->frags_sum);
		table_u64(t, g->frags_min);
		table_u64(t, g->frags_max);
		table_f64(t, (double)g->bytes / 1e6);
		table_u64(t, g->reads);
		table_u64(t, g->bytes);
		table_f64(t, g->last_ns > g->first_ns
				 ? (double)(g->last_ns - g->first_ns) / 1e9
				 : 0.0);
		table_u64(t, g->first_ns);
		table_u64(t, g->last_ns);
		table_f64(t, g->mbps);
		avg_max(t, &g->sys);
		avg_max(t, &g->bio);
		avg_max(t, &g->elv);
		avg_max(t, &g->dev);
		table_f64(t, g->seeks_pct);
		table_u64(t, g->sdiff.n);
		table_u64(t, g->seeks);
		avg_max(t, &g->sdiff);
		table_u64(t, g->seeks);
	}
	table_note(t,
		   "  times are averages: syscall = read enter to exit, bio = Q2C, "
		   "sched = I2D, device = D2C;\n  SEEKS_%% = dispatches not starting "
		   "where the previous one ended, SECTOR_DIFF = their average distance "
		   "(sectors)\n");
	seek_note(t, gs);
	if (gs->file && gs->traced_blocks)
		table_note(
		    t, "  %s: %" PRIu64 " traced blocks, %.1f%% where the layout says\n",
		    gs->file->path, gs->traced_blocks,
		    100.0 * (double)gs->traced_where / (double)gs->traced_blocks);
	t = an_output_table(a, o, "seek_cost", seek_cols,
			    sizeof(seek_cols) / sizeof(seek_cols[0]));
	if (!t)
		return -ENOMEM;
	t->in = IN_JSON; /* patterns.csv is the patterns table alone */
	for (size_t i = 0; i < gs->nr; i++)
		for (int k = 0; k < GROUP_SEEK_BUCKETS; k++) {
			const struct tally *x = &gs->g[i].seek_svc[k];

			if (!x->n)
				continue;
			table_row(t);
			table_str(t, "%s", gs->g[i].name);
			table_u64(t, k ? 1ull << (k - 1) : 0);
			table_u64(t, k ? (1ull << k) - 1 : 0);
			table_u64(t, x->n);
			table_f64(t, x->avg);
		}
	if (!gs->file)
		return 0;
	t = an_output_table(a, o, "block_order", order_cols,
			    sizeof(order_cols) / sizeof(order_cols[0]));
	if (!t)
		return -ENOMEM;
	t->in = IN_JSON;
	t->json_object = true;
	table_row(t);
	table_str(t, "%s", gs->file->path);
	table_u64(t, gs->file->ino);
	table_u64(t, gs->traced_blocks);
	table_u64(t, gs->traced_where);
	return 0;
}

static void release(void *priv)
{
	groups_release(priv);
}

const struct analyzer an_patterns = {
    .name = "patterns",
    .help = "read syscalls grouped by the directories of a --layout (seed 000's "
	    "patterns A to E): throughput, time per layer, seeks",
    .priv_size = sizeof(struct groups),
    .init = init,
    .request = on_request,
    .bio = on_bio,
    .syscall = on_syscall,
    .merge = merge,
    .part_end = part_end,
    .finish = finish,
    .release = release,
};
