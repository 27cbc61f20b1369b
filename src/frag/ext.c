// SPDX-License-Identifier: GPL-2.0
/*
 * A whole ext2/3/4 filesystem read with libext2fs, read-only (scan.h):
 *   1. every group's superblock copy, group descriptors, bitmaps and inode
 *      table, as system blocks
 *   2. one pass over the inode tables (lazy: unused inodes of a group are
 *      skipped): regular files get their extents and mapping blocks
 *      (extent tree nodes, or indirect blocks of block-mapped files), the
 *      journal and directories become system blocks
 *   3. the directory tree from the root names the files
 *   4. the block bitmap gives free-space fragmentation
 * or one directory of it, mounted (frag_ext_scan_dir): its tree walked from
 * its inode, then the files' inodes read in inode order.
 */
#include "scan.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <et/com_err.h>
#include <ext2fs/ext2_err.h>
#include <ext2fs/ext2fs.h>
#include <ext2fs/ext3_extents.h>

#include "../util/u64map.h"
#include "../util/grow.h"

struct ext_ctx {
	ext2_filsys fs;
	struct frag_scan *s;
	/* ino -> index in s->files + 1: an array by inode number when the
	 * filesystem has at most FILES_BY_INO_MAX inodes (the directory walk
	 * then reads it nearly in order), else a hash */
	uint32_t *by_ino;
	uint64_t nr_ino;
	struct u64map files;
	struct u64map dirs; /* directory inodes seen */
	/* each file's name by its index, apart from s->files while the
	 * directories are walked: the walk reaches files in hash order, and
	 * this array stays in cache where the files' records do not */
	char **names;
	/* frag_ext_scan_dir: the files found, and what was passed by */
	struct tree_file *tree;
	size_t nr_tree, cap_tree;
	uint64_t special, links;
	struct frag_file *cur;
	struct frag_file sysfile; /* a journal's or a directory's blocks */
	size_t cap_ext, cap_meta;
	char path[4096];
	size_t path_len; /* strlen(path) */
	int depth;
};

#define FILES_BY_INO_MAX (16u << 20) /* 64 MiB of index */

struct tree_file {
	ext2_ino_t ino;
	char *path;
};

static uint32_t *file_get(struct ext_ctx *c, uint64_t ino)
{
	if (c->by_ino)
		return ino < c->nr_ino && c->by_ino[ino] ? &c->by_ino[ino] : NULL;
	return u64map_get(&c->files, ino);
}

static int file_put(struct ext_ctx *c, uint64_t ino, uint32_t idx)
{
	if (!c->by_ino)
		return u64map_put(&c->files, ino, idx);
	if (ino >= c->nr_ino)
		return -EINVAL;
	c->by_ino[ino] = idx;
	return 0;
}

static int push_ext(struct ext_ctx *c, uint64_t logical, uint64_t physical, uint64_t len,
		    uint32_t flags)
{
	struct frag_file *f = c->cur;
	struct frag_extent *e;

	if (f->nr_ext) { /* block-mapped files come block by block: merge runs */
		e = &f->ext[f->nr_ext - 1];
		if (e->flags == flags && e->logical + e->len == logical &&
		    e->physical + e->len == physical) {
			e->len += len;
			return 0;
		}
	}
	if (GROW(f->ext, f->nr_ext + 1, c->cap_ext))
		return -ENOMEM;
	f->ext[f->nr_ext++] = (struct frag_extent){logical, physical, len, flags};
	return 0;
}

static int push_meta(struct ext_ctx *c, uint64_t blk)
{
	struct frag_file *f = c->cur;

	if (GROW(f->meta, f->nr_meta + 1, c->cap_meta))
		return -ENOMEM;
	f->meta[f->nr_meta++] = blk;
	return 0;
}

static int block_cb(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt, blk64_t ref,
		    int ref_offset, void *priv)
{
	struct ext_ctx *c = priv;
	int err =
	    blockcnt < 0 ? push_meta(c, *blocknr) : push_ext(c, blockcnt, *blocknr, 1, 0);

	return err ? BLOCK_ABORT : 0;
}

/* The current file's extents: extent tree, inline data, or block map. */
static errcode_t map_inode(struct ext_ctx *c, ext2_ino_t ino, struct ext2_inode *inode)
{
	ext2_extent_handle_t h;
	struct ext2fs_extent x;
	errcode_t err;
	int op = EXT2_EXTENT_ROOT;

	c->cap_ext = c->cap_meta = 0;
	if (inode->i_flags & EXT4_INLINE_DATA_FL)
		return push_ext(c, 0, 0, 0, FRAG_INLINE) ? ENOMEM : 0;
	if (!(inode->i_flags & EXT4_EXTENTS_FL))
		return ext2fs_block_iterate3(c->fs, ino, BLOCK_FLAG_READ_ONLY, NULL,
					     block_cb, c);
	{
		/* the common case, every extent in the inode itself (depth 0):
		 * read them in place, without an extent handle */
		const struct ext3_extent_header *eh = (const void *)inode->i_block;
		const struct ext3_extent *ee = (const void *)(eh + 1);

		if (ext2fs_le16_to_cpu(eh->eh_magic) == EXT3_EXT_MAGIC && !eh->eh_depth &&
		    ext2fs_le16_to_cpu(eh->eh_entries) <= 4) {
			struct frag_file *f = c->cur;

			/* exactly these: most files have one extent, and
			 * GROW's first 16 would be most of the scan's memory */
			if (!f->ext && eh->eh_entries) {
				f->ext = malloc(ext2fs_le16_to_cpu(eh->eh_entries) *
						sizeof(*f->ext));
				if (!f->ext)
					return ENOMEM;
				c->cap_ext = ext2fs_le16_to_cpu(eh->eh_entries);
			}
			for (int i = 0; i < ext2fs_le16_to_cpu(eh->eh_entries); i++) {
				uint32_t len = ext2fs_le16_to_cpu(ee[i].ee_len);
				uint32_t flags = 0;

				if (len > EXT_INIT_MAX_LEN) {
					len -= EXT_INIT_MAX_LEN;
					flags = FRAG_UNWRITTEN;
				}
				if (push_ext(
					c, ext2fs_le32_to_cpu(ee[i].ee_block),
					((uint64_t)ext2fs_le16_to_cpu(ee[i].ee_start_hi)
					 << 32) |
					    ext2fs_le32_to_cpu(ee[i].ee_start),
					len, flags))
					return ENOMEM;
			}
			return 0;
		}
	}
	err = ext2fs_extent_open2(c->fs, ino, inode, &h);
	if (err)
		return err;
	for (;;) {
		err = ext2fs_extent_get(h, op, &x);
		op = EXT2_EXTENT_NEXT;
		if (err == EXT2_ET_EXTENT_NO_NEXT || err == EXT2_ET_NO_CURRENT_NODE) {
			err = 0;
			break;
		}
		if (err)
			break;
		if (x.e_flags & EXT2_EXTENT_FLAGS_SECOND_VISIT)
			continue;
		if (x.e_flags & EXT2_EXTENT_FLAGS_LEAF)
			err = push_ext(
			    c, x.e_lblk, x.e_pblk, x.e_len,
			    (x.e_flags & EXT2_EXTENT_FLAGS_UNINIT) ? FRAG_UNWRITTEN : 0);
		else
			err = push_meta(c, x.e_pblk); /* the node below this index */
		if (err)
			break;
	}
	ext2fs_extent_free(h);
	return err;
}

/* A regular file's extents and statistics into f (an error said, and
 * counted: f keeps what was read). */
static void map_file(struct ext_ctx *c, struct frag_file *f, ext2_ino_t ino,
		     struct ext2_inode *inode, const char *dev)
{
	errcode_t err;

	f->ino = ino;
	f->size_bytes = EXT2_I_SIZE(inode);
	c->cur = f;
	err = map_inode(c, ino, inode);
	if (c->cap_ext > f->nr_ext && f->nr_ext) {
		/* block maps and extent trees grow as they are read: give back
		 * what GROW took beyond them */
		struct frag_extent *e = realloc(f->ext, f->nr_ext * sizeof(*f->ext));

		if (e)
			f->ext = e;
	}
	if (err) {
		fprintf(stderr, "iotrail: %s: inode %u%s%s: block map: %s\n", dev, ino,
			f->path ? ", " : "", f->path ? f->path : "", error_message(err));
		c->s->errors++;
	}
	frag_stats(f->ext, f->nr_ext, &f->st);
}

static void add_groups(struct ext_ctx *c)
{
	ext2_filsys fs = c->fs;
	struct frag_fs *ffs = &c->s->fs;

	for (dgrp_t g = 0; g < fs->group_desc_count; g++) {
		blk64_t super = 0, old_desc = 0, new_desc = 0;
		blk_t used = 0;

		ext2fs_super_and_bgd_loc2(fs, g, &super, &old_desc, &new_desc, &used);
		if (super || g == 0)
			frag_fs_add_sys(ffs,
					super ? super : fs->super->s_first_data_block, 1,
					FRAG_SYS_SUPER);
		if (old_desc && used > 1)
			frag_fs_add_sys(ffs, old_desc, used - 1, FRAG_SYS_SUPER);
		if (new_desc)
			frag_fs_add_sys(ffs, new_desc, 1, FRAG_SYS_SUPER);
		frag_fs_add_sys(ffs, ext2fs_block_bitmap_loc(fs, g), 1, FRAG_SYS_BITMAP);
		frag_fs_add_sys(ffs, ext2fs_inode_bitmap_loc(fs, g), 1, FRAG_SYS_BITMAP);
		frag_fs_add_sys(ffs, ext2fs_inode_table_loc(fs, g),
				fs->inode_blocks_per_group, FRAG_SYS_ITABLE);
	}
}

/* The blocks of a non-file inode (journal, directory) as system blocks. */
static void add_inode_sys(struct ext_ctx *c, ext2_ino_t ino, struct ext2_inode *inode,
			  uint32_t kind)
{
	struct frag_file *tmp = &c->sysfile;

	c->cur = tmp;
	tmp->nr_ext = tmp->nr_meta = 0;
	if (map_inode(c, ino, inode) == 0) {
		for (size_t i = 0; i < tmp->nr_ext; i++)
			if (!(tmp->ext[i].flags & FRAG_INLINE))
				frag_fs_add_sys(&c->s->fs, tmp->ext[i].physical,
						tmp->ext[i].len, kind);
		for (size_t i = 0; i < tmp->nr_meta; i++)
			frag_fs_add_sys(&c->s->fs, tmp->meta[i], 1, kind);
	}
	free(tmp->ext);
	free(tmp->meta);
	tmp->ext = NULL;
	tmp->meta = NULL;
}

static int dir_cb(ext2_ino_t dir, int entry, struct ext2_dir_entry *de, int offset,
		  int blocksize, char *buf, void *priv)
{
	struct ext_ctx *c = priv;
	int n = ext2fs_dirent_name_len(de);
	size_t len = c->path_len;
	uint32_t *idx;

	if (entry == DIRENT_DOT_FILE || entry == DIRENT_DOT_DOT_FILE || !de->inode)
		return 0;
	if (n == 0 || len + 1 + n >= sizeof(c->path))
		return 0;
	c->path[len] = '/';
	memcpy(c->path + len + 1, de->name, n);
	c->path[len + 1 + n] = 0;
	idx = file_get(c, de->inode);
	if (idx && !c->names[*idx - 1]) {
		char *p = malloc(len + 2 + n);

		if (p) {
			memcpy(p, c->path, len + 2 + n);
			c->names[*idx - 1] = p;
		}
	} else if (u64map_get(&c->dirs, de->inode) && c->depth < 256) {
		u64map_del(&c->dirs, de->inode); /* each directory once */
		c->depth++;
		c->path_len = len + 1 + n;
		ext2fs_dir_iterate2(c->fs, de->inode, 0, NULL, dir_cb, c);
		c->path_len = len;
		c->depth--;
	}
	c->path[len] = 0;
	return 0;
}

static void free_space(struct ext_ctx *c)
{
	ext2_filsys fs = c->fs;
	struct frag_fs *ffs = &c->s->fs;
	blk64_t start = fs->super->s_first_data_block,
		end = ext2fs_blocks_count(fs->super) - 1;

	if (ext2fs_read_block_bitmap(fs))
		return;
	while (start <= end) {
		blk64_t zero, set;
		uint64_t len;
		int b = 0;

		if (ext2fs_find_first_zero_block_bitmap2(fs->block_map, start, end,
							 &zero))
			break;
		if (ext2fs_find_first_set_block_bitmap2(fs->block_map, zero, end, &set))
			set = end + 1;
		len = set - zero;
		ffs->free_blocks += len;
		ffs->free_extents++;
		if (len > ffs->free_largest)
			ffs->free_largest = len;
		while ((len >> (b + 1)) && b < 31)
			b++;
		ffs->free_hist[b]++;
		start = set;
	}
}

bool frag_is_ext(const char *path)
{
	unsigned char m[2];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return false;
	ok = pread(fd, m, 2, 1080) == 2 && m[0] == 0x53 && m[1] == 0xef;
	close(fd);
	return ok;
}

/* What e2fsck checks first, before libext2fs sizes anything by the
 * superblock. Refused (false): what would have the library allocate by an
 * absurd count or read past its own buffers (a first data block other
 * than the block size's, found by the fuzzer). Said and scanned on (the
 * scan reads what it can, exit 3): a truncated image, damaged group
 * descriptors. */
static bool super_sane(const char *dev, ext2_filsys fs, struct frag_scan *s)
{
	struct ext2_super_block *sb = fs->super;
	uint64_t blocks = ext2fs_blocks_count(sb);
	unsigned int first = sb->s_log_block_size == 0 && EXT2FS_CLUSTER_RATIO(fs) == 1;
	blk64_t dev_blocks = 0;
	errcode_t err;

	if (sb->s_first_data_block != first) {
		fprintf(stderr,
			"iotrail: %s: damaged superblock: first data block %u, a %u-byte "
			"block filesystem has %u\n",
			dev, sb->s_first_data_block, fs->blocksize, first);
		return false;
	}
	if ((uint64_t)fs->group_desc_count * sb->s_inodes_per_group !=
		sb->s_inodes_count ||
	    sb->s_free_inodes_count > sb->s_inodes_count ||
	    ext2fs_free_blocks_count(sb) > blocks) {
		fprintf(
		    stderr,
		    "iotrail: %s: damaged superblock: %u inodes (%u free) in %u groups "
		    "of %u, %llu blocks (%llu free)\n",
		    dev, sb->s_inodes_count, sb->s_free_inodes_count,
		    fs->group_desc_count, sb->s_inodes_per_group,
		    (unsigned long long)blocks,
		    (unsigned long long)ext2fs_free_blocks_count(sb));
		return false;
	}
	err = ext2fs_get_device_size2(dev, fs->blocksize, &dev_blocks);
	if (!err && dev_blocks < blocks) {
		/* bitmaps are sized by the superblock's count: past 1024 times
		 * the image, it is not this image's superblock */
		bool absurd = blocks / 1024 > dev_blocks;

		fprintf(stderr,
			"iotrail: %s: the superblock counts %llu blocks of %u bytes, the "
			"image holds %llu: %s\n",
			dev, (unsigned long long)blocks, fs->blocksize,
			(unsigned long long)dev_blocks,
			absurd ? "damaged superblock"
			       : "truncated; the scan reads what is there");
		if (absurd)
			return false;
		s->damaged = 1;
	}
	err = ext2fs_check_desc(fs);
	if (err) {
		fprintf(stderr, "iotrail: %s: damaged group descriptors: %s\n", dev,
			error_message(err));
		s->damaged = 1;
	}
	return true;
}

/* The filesystem on dev, opened read-only and checked (super_sane): 0, or 2
 * after saying why. */
static int ext_open(const char *dev, struct frag_scan *s, ext2_filsys *fs)
{
	errcode_t err;

	if (!frag_is_ext(dev)) {
		fprintf(
		    stderr,
		    "iotrail: %s: not an ext2/ext3/ext4 filesystem (no superblock magic "
		    "at byte 1080)\n",
		    dev);
		return 2;
	}
	{
		/* com_err's messages for libext2fs codes ("Unknown code ext2 60"
		 * without it) */
		static bool table;

		if (!table)
			initialize_ext2_error_table();
		table = true;
	}
	err = ext2fs_open2(dev, NULL, EXT2_FLAG_64BITS | EXT2_FLAG_IGNORE_CSUM_ERRORS, 0,
			   0, unix_io_manager, fs);
	if (err) {
		fprintf(stderr, "iotrail: %s: cannot open the filesystem: %s\n", dev,
			error_message(err));
		return 2;
	}
	if (!super_sane(dev, *fs, s)) {
		ext2fs_close_free(fs);
		return 2;
	}
	return 0;
}

int frag_ext_scan(const char *dev, const char *prefix, struct frag_scan *s)
{
	struct ext_ctx c = {.s = s};
	struct ext2_inode_large inode;
	ext2_inode_scan scan = NULL;
	ext2_ino_t ino;
	errcode_t err;
	int ret = 2;

	s->method = "libext2fs";
	s->has_fs = 1;
	if (ext_open(dev, s, &c.fs))
		return 2;
	/* a hint only: the maps grow as files are found */
	if (c.fs->super->s_inodes_count <= FILES_BY_INO_MAX) {
		c.nr_ino = (uint64_t)c.fs->super->s_inodes_count + 1;
		c.by_ino = calloc(c.nr_ino, sizeof(*c.by_ino));
	}
	if ((!c.by_ino &&
	     u64map_init(&c.files, 2 * (size_t)(c.fs->super->s_inodes_count -
						c.fs->super->s_free_inodes_count))) ||
	    u64map_init(&c.dirs, 256)) {
		fprintf(stderr, "iotrail: out of memory\n");
		goto cleanup;
	}
	s->block_size = s->fs.block_size = c.fs->blocksize;
	s->fs.blocks = ext2fs_blocks_count(c.fs->super);
	snprintf(s->fs.type, sizeof(s->fs.type), "%s",
		 ext2fs_has_feature_extents(c.fs->super)   ? "ext4"
		 : ext2fs_has_feature_journal(c.fs->super) ? "ext3"
							   : "ext2");
	add_groups(&c);
	/* 4 MB of inode table a read; groups (or their tails) the kernel never
	 * initialised are skipped (lazy) */
	err = ext2fs_open_inode_scan(c.fs, (4 << 20) / c.fs->blocksize, &scan);
	if (err) {
		fprintf(stderr, "iotrail: %s: inode scan: %s\n", dev, error_message(err));
		goto cleanup;
	}
	ext2fs_inode_scan_flags(scan, EXT2_SF_SKIP_MISSING_ITABLE | EXT2_SF_DO_LAZY, 0);
	for (;;) {
		struct ext2_inode *in = (struct ext2_inode *)&inode;

		err = ext2fs_get_next_inode_full(scan, &ino, in, sizeof(inode));
		if (err == EXT2_ET_BAD_BLOCK_IN_INODE_TABLE)
			continue;
		if (err) {
			fprintf(stderr,
				"iotrail: %s: inode table unreadable after inode %u: %s; "
				"the scan stops there\n",
				dev, ino, error_message(err));
			s->errors++;
			break;
		}
		if (!ino)
			break;
		s->fs.inodes_scanned++;
		if (!in->i_links_count || in->i_dtime)
			continue;
		if (ino == EXT2_JOURNAL_INO) {
			add_inode_sys(&c, ino, in, FRAG_SYS_JOURNAL);
		} else if (ino < EXT2_FIRST_INODE(c.fs->super) && ino != EXT2_ROOT_INO) {
			if (ino == EXT2_RESIZE_INO)
				add_inode_sys(&c, ino, in, FRAG_SYS_SUPER);
		} else if (LINUX_S_ISDIR(in->i_mode)) {
			add_inode_sys(&c, ino, in, FRAG_SYS_DIR);
			if (u64map_put(&c.dirs, ino, 1))
				goto cleanup;
		} else if (LINUX_S_ISREG(in->i_mode)) {
			struct frag_file *f = frag_scan_add(s, NULL); /* named later */

			if (!f || file_put(&c, ino, (uint32_t)s->nr_files))
				goto cleanup;
			map_file(&c, f, ino, in, dev);
		}
	}
	/* names, from the root down */
	snprintf(c.path, sizeof(c.path), "%s", prefix);
	c.path_len = strlen(c.path);
	while (c.path_len > 0 && c.path[c.path_len - 1] == '/')
		c.path[--c.path_len] = 0;
	c.names = calloc(s->nr_files + 1, sizeof(*c.names));
	if (!c.names) {
		fprintf(stderr, "iotrail: out of memory\n");
		goto cleanup;
	}
	ext2fs_dir_iterate2(c.fs, EXT2_ROOT_INO, 0, NULL, dir_cb, &c);
	for (size_t i = 0; i < s->nr_files; i++) {
		char name[64];

		if (!c.names[i]) {
			snprintf(name, sizeof(name), "<inode %llu>",
				 (unsigned long long)s->files[i].ino);
			c.names[i] = strdup(name);
		}
		s->files[i].path = c.names[i];
	}
	free_space(&c);
	{
		/* inodes the superblock counts as used, beyond the reserved ones,
		 * and none found: the inode tables are damaged */
		uint64_t used = (uint64_t)c.fs->super->s_inodes_count -
				c.fs->super->s_free_inodes_count;

		if (!s->nr_files && used > EXT2_FIRST_INO(c.fs->super) + 1) {
			fprintf(
			    stderr,
			    "iotrail: %s: the superblock counts %llu inodes in use, the "
			    "scan found no file: damaged inode tables?\n",
			    dev, (unsigned long long)used);
			s->damaged = 1;
		}
	}
	ret = 0;
cleanup:
	if (scan)
		ext2fs_close_inode_scan(scan);
	free(c.by_ino);
	free(c.names);
	u64map_release(&c.files);
	u64map_release(&c.dirs);
	ext2fs_close_free(&c.fs);
	return ret;
}

/* One entry of a directory under frag_ext_scan_dir's root: a regular file
 * is noted, a directory walked, each inode once (hard links, loops). */
static int tree_cb(ext2_ino_t dir, int entry, struct ext2_dir_entry *de, int offset,
		   int blocksize, char *buf, void *priv)
{
	struct ext_ctx *c = priv;
	int n = ext2fs_dirent_name_len(de), type = ext2fs_dirent_file_type(de);
	size_t len = c->path_len;

	if (entry == DIRENT_DOT_FILE || entry == DIRENT_DOT_DOT_FILE || !de->inode ||
	    n == 0)
		return 0;
	if (len + 1 + n >= sizeof(c->path)) {
		fprintf(stderr, "iotrail: %.*s/%.*s: path too long; skipped\n", (int)len,
			c->path, n, de->name);
		c->s->errors++;
		return 0;
	}
	c->path[len] = '/';
	memcpy(c->path + len + 1, de->name, n);
	c->path[len + 1 + n] = 0;
	if (type == EXT2_FT_UNKNOWN || type >= EXT2_FT_MAX) {
		/* no file type in the entry (ext2 without the feature) */
		struct ext2_inode in;

		type = ext2fs_read_inode(c->fs, de->inode, &in) ? EXT2_FT_UNKNOWN
		       : LINUX_S_ISDIR(in.i_mode)		? EXT2_FT_DIR
		       : LINUX_S_ISREG(in.i_mode)		? EXT2_FT_REG_FILE
		       : LINUX_S_ISLNK(in.i_mode)		? EXT2_FT_SYMLINK
								: EXT2_FT_FIFO;
	}
	if (type == EXT2_FT_SYMLINK) {
		c->links++;
	} else if (type != EXT2_FT_DIR && type != EXT2_FT_REG_FILE) {
		c->special++;
	} else if (!u64map_get(&c->dirs, de->inode)) {
		if (u64map_put(&c->dirs, de->inode, 1))
			goto nomem;
		if (type == EXT2_FT_REG_FILE) {
			char *p = strdup(c->path);

			if (!p || GROW(c->tree, c->nr_tree + 1, c->cap_tree)) {
				free(p);
				goto nomem;
			}
			c->tree[c->nr_tree++] = (struct tree_file){de->inode, p};
		} else if (c->depth >= 256) {
			fprintf(stderr,
				"iotrail: %s: more than 256 directories deep; skipped\n",
				c->path);
			c->s->errors++;
		} else {
			errcode_t err;

			c->depth++;
			c->path_len = len + 1 + n;
			err = ext2fs_dir_iterate2(c->fs, de->inode, 0, NULL, tree_cb, c);
			c->path_len = len;
			c->depth--;
			/* its files are not named by an inode scan here: said */
			if (err) {
				fprintf(stderr,
					"iotrail: %s: directory (inode %u) unreadable: "
					"%s; its files are left out\n",
					c->path, de->inode, error_message(err));
				c->s->errors++;
			}
		}
	}
	c->path[len] = 0;
	return 0;
nomem:
	c->path[len] = 0;
	c->s->errors++;
	return DIRENT_ABORT;
}

static int by_ino(const void *a, const void *b)
{
	const struct tree_file *x = a, *y = b;

	return (x->ino > y->ino) - (x->ino < y->ino);
}

int frag_ext_scan_dir(const char *dev, const char *prefix, uint64_t ino,
		      struct frag_scan *s)
{
	struct ext_ctx c = {.s = s};
	struct ext2_inode_large inode;
	errcode_t err;
	int ret = 2;

	s->method = "libext2fs";
	if (ext_open(dev, s, &c.fs))
		return 2;
	if (u64map_init(&c.dirs, 1024)) {
		fprintf(stderr, "iotrail: out of memory\n");
		goto cleanup;
	}
	s->block_size = c.fs->blocksize;
	snprintf(c.path, sizeof(c.path), "%s", prefix);
	c.path_len = strlen(c.path);
	while (c.path_len > 0 && c.path[c.path_len - 1] == '/')
		c.path[--c.path_len] = 0;
	u64map_put(&c.dirs, ino, 1);
	err = ext2fs_dir_iterate2(c.fs, (ext2_ino_t)ino, 0, NULL, tree_cb, &c);
	if (err) {
		fprintf(stderr, "iotrail: %s: directory inode %llu on %s: %s\n", prefix,
			(unsigned long long)ino, dev, error_message(err));
		goto cleanup;
	}
	/* in inode order, the inode tables are read nearly in sequence */
	qsort(c.tree, c.nr_tree, sizeof(*c.tree), by_ino);
	for (size_t i = 0; i < c.nr_tree; i++) {
		struct ext2_inode *in = (struct ext2_inode *)&inode;
		struct frag_file *f;

		err = ext2fs_read_inode_full(c.fs, c.tree[i].ino, in, sizeof(inode));
		if (err || !LINUX_S_ISREG(in->i_mode) || !in->i_links_count) {
			/* a file removed since the walk reads as free */
			fprintf(stderr, "iotrail: %s: inode %u: %s\n", c.tree[i].path,
				c.tree[i].ino,
				err ? error_message(err) : "not a file any more");
			s->errors++;
			continue;
		}
		f = frag_scan_add(s, NULL);
		if (!f) {
			fprintf(stderr, "iotrail: out of memory\n");
			goto cleanup;
		}
		f->path = c.tree[i].path;
		c.tree[i].path = NULL;
		map_file(&c, f, c.tree[i].ino, in, dev);
	}
	if (c.special || c.links)
		fprintf(
		    stderr,
		    "iotrail: %s: skipped %llu special files and %llu symbolic links\n",
		    prefix, (unsigned long long)c.special, (unsigned long long)c.links);
	ret = 0;
cleanup:
	for (size_t i = 0; i < c.nr_tree; i++)
		free(c.tree[i].path);
	free(c.tree);
	u64map_release(&c.dirs);
	ext2fs_close_free(&c.fs);
	return ret;
}
