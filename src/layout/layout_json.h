/* SPDX-License-Identifier: GPL-2.0 */
/* Reading back a layout written by `iotrail frag -f json`. */
#ifndef IOTRAIL_LAYOUT_LAYOUT_JSON_H
#define IOTRAIL_LAYOUT_LAYOUT_JSON_H

#include <stddef.h>

#include "layout.h"

/* Fills s (files with path, inode and map; block_size). 0, or -errno with
 * the file, line and column (or field) in err. */
int frag_layout_load(const char *path, struct frag_scan *s, char *err, size_t errlen);

#endif
