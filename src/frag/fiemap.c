// SPDX-License-Identifier: GPL-2.0
/* Mounted files through the FIEMAP ioctl (scan.h). */
#include "scan.h"
#include "../util/grow.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#define FIEMAP_BATCH 512

int frag_fiemap_fd(int fd, uint32_t block_size, bool sync, struct frag_file *f)
{
	union {
		struct fiemap fm;
		char raw[sizeof(struct fiemap) +
			 FIEMAP_BATCH * sizeof(struct fiemap_extent)];
	} u;
	size_t cap = 0;
	uint64_t start = 0;
	bool last = false;

	while (!last) {
		memset(&u.fm, 0, sizeof(u.fm));
		u.fm.fm_start = start;
		u.fm.fm_length = FIEMAP_MAX_OFFSET - start;
		u.fm.fm_flags = sync ? FIEMAP_FLAG_SYNC : 0;
		u.fm.fm_extent_count = FIEMAP_BATCH;
		if (ioctl(fd, FS_IOC_FIEMAP, &u.fm) < 0)
			return -errno;
		if (!u.fm.fm_mapped_extents)
			break;
		for (uint32_t i = 0; i < u.fm.fm_mapped_extents; i++) {
			const struct fiemap_extent *x = &u.fm.fm_extents[i];
			struct frag_extent *e;

			if (GROW(f->ext, f->nr_ext + 1, cap))
				return -ENOMEM;
			e = &f->ext[f->nr_ext++];
			e->logical = x->fe_logical / block_size;
			e->physical = x->fe_physical / block_size;
			e->len = (x->fe_length + block_size - 1) / block_size;
			e->flags = 0;
			if (x->fe_flags & FIEMAP_EXTENT_UNWRITTEN)
				e->flags |= FRAG_UNWRITTEN;
			if (x->fe_flags & FIEMAP_EXTENT_DATA_INLINE)
				e->flags |= FRAG_INLINE;
			if (x->fe_flags &
			    (FIEMAP_EXTENT_DELALLOC | FIEMAP_EXTENT_UNKNOWN))
				e->flags |= FRAG_DELALLOC;
			if (x->fe_flags & FIEMAP_EXTENT_LAST)
				last = true;
			start = x->fe_logical + x->fe_length;
		}
	}
	frag_stats(f->ext, f->nr_ext, &f->st);
	return 0;
}
