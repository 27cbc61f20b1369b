// SPDX-License-Identifier: GPL-2.0
/* Fragment arithmetic (the rule is in layout.h) and scan bookkeeping. */
#include "layout.h"
#include "../util/grow.h"

#include <stdlib.h>
#include <string.h>

bool frag_continues(const struct frag_extent *p, const struct frag_extent *e)
{
	return e->physical == p->physical + p->len ||		       /* dense */
	       e->physical == p->physical + (e->logical - p->logical); /* over a hole */
}

void frag_stats(const struct frag_extent *e, size_t n, struct frag_stats *st)
{
	uint64_t run = 0;

	memset(st, 0, sizeof(*st));
	for (size_t i = 0; i < n; i++) {
		st->extents++;
		if (e[i].flags & (FRAG_INLINE | FRAG_DELALLOC))
			continue; /* no block of its own */
		st->blocks += e[i].len;
		if (run) {
			const struct frag_extent *p = &e[i - 1];

			if (frag_continues(p, &e[i])) {
				run += e[i].len;
				continue;
			}
			if (e[i].physical > p->physical + p->len)
				st->gaps++;
			else
				st->reverse++;
			if (run > st->largest_blocks)
				st->largest_blocks = run;
		}
		st->fragments++;
		run = e[i].len;
	}
	if (run > st->largest_blocks)
		st->largest_blocks = run;
	st->avg_blocks = st->fragments ? (double)st->blocks / st->fragments : 0;
	st->contiguity =
	    st->blocks > 1 && st->fragments
		? 1.0 - (double)(st->fragments - 1) / (double)(st->blocks - 1)
		: 1.0;
}

struct frag_file *frag_scan_add(struct frag_scan *s, const char *path)
{
	struct frag_file *f;

	if (GROW(s->files, s->nr_files + 1, s->cap_files))
		return NULL;
	f = &s->files[s->nr_files];
	memset(f, 0, sizeof(*f));
	f->path = path ? strdup(path) : NULL;
	if (path && !f->path)
		return NULL;
	s->nr_files++;
	return f;
}

int frag_fs_add_sys(struct frag_fs *fs, uint64_t start, uint64_t len, uint32_t kind)
{
	if (!len)
		return 0;
	if (fs->nr_sys && fs->sys[fs->nr_sys - 1].kind == kind &&
	    fs->sys[fs->nr_sys - 1].start + fs->sys[fs->nr_sys - 1].len == start) {
		fs->sys[fs->nr_sys - 1].len += len;
		return 0;
	}
	if (GROW(fs->sys, fs->nr_sys + 1, fs->cap_sys))
		return -1;
	fs->sys[fs->nr_sys++] = (struct frag_sys){start, len, kind};
	return 0;
}

void frag_scan_release(struct frag_scan *s)
{
	for (size_t i = 0; i < s->nr_files; i++) {
		free(s->files[i].path);
		free(s->files[i].ext);
		free(s->files[i].meta);
	}
	free(s->files);
	free(s->fs.sys);
	memset(s, 0, sizeof(*s));
}

const char *frag_sys_name(uint32_t kind)
{
	switch (kind) {
	case FRAG_SYS_SUPER:
		return "superblock";
	case FRAG_SYS_BITMAP:
		return "bitmap";
	case FRAG_SYS_ITABLE:
		return "inode-table";
	case FRAG_SYS_JOURNAL:
		return "journal";
	case FRAG_SYS_DIR:
		return "directory";
	default:
		return "other";
	}
}

const struct frag_file *frag_scan_find(const struct frag_scan *s, const char *name)
{
	const struct frag_file *hit = NULL;
	size_t n = strlen(name);

	for (size_t i = 0; i < s->nr_files; i++) {
		const char *p = s->files[i].path;
		size_t m = strlen(p);

		/* either may carry a longer prefix (mount point, image root) */
		if (!strcmp(p, name) ||
		    (m > n && !strcmp(p + m - n, name) && p[m - n - 1] == '/') ||
		    (n > m && !strcmp(name + n - m, p) &&
		     (p[0] == '/' || name[n - m - 1] == '/'))) {
			if (hit)
				return NULL;
			hit = &s->files[i];
		}
	}
	return hit;
}
