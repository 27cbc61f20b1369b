// SPDX-License-Identifier: GPL-2.0
/* Reads back the JSON of `iotrail frag -f json` (layout_json.h), with
 * jansson: the files, their inodes and block maps. */
#include "layout_json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

int frag_layout_load(const char *path, struct frag_scan *s, char *err, size_t errlen)
{
	json_error_t je;
	json_t *root = json_load_file(path, 0, &je), *files, *bs;
	size_t i;
	int ret = -EINVAL;

	memset(s, 0, sizeof(*s));
	if (!root) {
		snprintf(err, errlen, "%s: line %d column %d: %s", path, je.line,
			 je.column, je.text);
		return -EINVAL;
	}
	bs = json_object_get(root, "block_size");
	files = json_object_get(root, "files");
	if (!json_is_integer(bs) || json_integer_value(bs) < 512 ||
	    !json_is_array(files)) {
		snprintf(err, errlen,
			 "%s: not a layout from `iotrail frag -f json` (no block_size or "
			 "files)",
			 path);
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

			if (!json_is_array(e) || json_array_size(e) != 4) {
				snprintf(
				    err, errlen,
				    "%s: files[%zu].map[%zu]: not [logical, physical, "
				    "length, flags]",
				    path, i, k);
				goto cleanup;
			}
			x->ext[k].logical = json_integer_value(json_array_get(e, 0));
			x->ext[k].physical = json_integer_value(json_array_get(e, 1));
			x->ext[k].len = json_integer_value(json_array_get(e, 2));
			x->ext[k].flags =
			    (uint32_t)json_integer_value(json_array_get(e, 3));
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
			for (size_t k = 0; k < x->nr_meta; k++)
				x->meta[k] = json_integer_value(json_array_get(mb, k));
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
