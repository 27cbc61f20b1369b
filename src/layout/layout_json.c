// SPDX-License-Identifier: GPL-2.0
/* Reads back the JSON of `iotrail frag -f json` (layout_json.h), with
 * jansson: the files, their inodes and block maps. */
#include "layout_json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "../util/esc.h"

/* a JSON integer in [0, max], or -1 */
static int64_t uint_in(json_t *v, uint64_t max)
{
	json_int_t x;

	if (!json_is_integer(v))
		return -1;
	x = json_integer_value(v);
	return x < 0 || (uint64_t)x > max ? -1 : (int64_t)x;
}

int frag_layout_load(const char *path, struct frag_scan *s, char *err, size_t errlen)
{
	json_error_t je;
	json_t *root = NULL, *files, *bs;
	struct stat st;
	size_t i;
	int ret = -EINVAL;

	/* a FIFO or a device would block or never end: regular files only */
	memset(s, 0, sizeof(*s));
	if (stat(path, &st)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		return -EINVAL;
	}
	root = json_load_file(path, 0, &je);

	if (!root) {
		snprintf(err, errlen, "%s: line %d column %d: %s", path, je.line,
			 je.column, je.text);
		return -EINVAL;
	}
	bs = json_object_get(root, "block_size");
	files = json_object_get(root, "files");
	if (!json_is_integer(bs) || !json_is_array(files)) {
		snprintf(err, errlen,
			 "%s: not a layout from `iotrail frag -f json` (no block_size or "
			 "files)",
			 path);
		goto cleanup;
	}
	if (uint_in(bs, 65536) < 512 ||
	    (json_integer_value(bs) & (json_integer_value(bs) - 1))) {
		snprintf(err, errlen,
			 "%s: block_size %lld: not a power of two from 512 to 65536",
			 path, (long long)json_integer_value(bs));
		goto cleanup;
	}
	s->block_size = (uint32_t)json_integer_value(bs);
	for (i = 0; i < json_array_size(files); i++) {
		json_t *f = json_array_get(files, i), *map = json_object_get(f, "map");
		const char *p = json_string_value(json_object_get(f, "path"));
		struct frag_file *x;

		if (!p || !json_is_array(map)) {
			snprintf(err, errlen, "%s: files[%zu]: no path or map", path, i);
			goto cleanup;
		}
		x = frag_scan_add(s, p);
		if (x && x->path) /* names that are not UTF-8 come as \xNN (esc.h) */
			bytes_unescape(x->path);
		if (!x) {
			snprintf(err, errlen, "out of memory");
			ret = -ENOMEM;
			goto cleanup;
		}
		x->ino = json_integer_value(json_object_get(f, "inode"));
		x->size_bytes = json_integer_value(json_object_get(f, "size_bytes"));
		x->nr_ext = json_array_size(map);
		x->ext = calloc(x->nr_ext ?: 1, sizeof(*x->ext));
		if (!x->ext) {
			snprintf(err, errlen, "out of memory");
			ret = -ENOMEM;
			goto cleanup;
		}
		for (size_t k = 0; k < x->nr_ext; k++) {
			json_t *e = json_array_get(map, k);

			/* blocks below 2^48: a span can neither wrap nor
			 * overflow what the views compute from it */
			const uint64_t lim = 1ull << 48;
			int64_t lo, ph, ln, fl;

			if (!json_is_array(e) || json_array_size(e) != 4 ||
			    (lo = uint_in(json_array_get(e, 0), lim)) < 0 ||
			    (ph = uint_in(json_array_get(e, 1), lim)) < 0 ||
			    (ln = uint_in(json_array_get(e, 2), lim)) < 0 ||
			    (fl = uint_in(json_array_get(e, 3), UINT32_MAX)) < 0) {
				snprintf(
				    err, errlen,
				    "%s: files[%zu].map[%zu]: not [logical, physical, "
				    "length, flags] (blocks below 2^48)",
				    path, i, k);
				goto cleanup;
			}
			x->ext[k].logical = (uint64_t)lo;
			x->ext[k].physical = (uint64_t)ph;
			x->ext[k].len = (uint64_t)ln;
			x->ext[k].flags = (uint32_t)fl;
		}
		{
			json_t *mb = json_object_get(f, "mapping_blocks");

			x->nr_meta = json_array_size(mb);
			x->meta = calloc(x->nr_meta ?: 1, sizeof(*x->meta));
			if (!x->meta) {
				snprintf(err, errlen, "out of memory");
				ret = -ENOMEM;
				goto cleanup;
			}
			for (size_t k = 0; k < x->nr_meta; k++) {
				int64_t b = uint_in(json_array_get(mb, k), 1ull << 48);

				if (b < 0) {
					snprintf(
					    err, errlen,
					    "%s: files[%zu].mapping_blocks[%zu]: not a "
					    "block number below 2^48",
					    path, i, k);
					goto cleanup;
				}
				x->meta[k] = (uint64_t)b;
			}
		}
		frag_stats(x->ext, x->nr_ext, &x->st);
	}
	ret = 0;
cleanup:
	json_decref(root);
	if (ret)
		frag_scan_release(s);
	return ret;
}
