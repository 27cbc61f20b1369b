// SPDX-License-Identifier: GPL-2.0
/* libFuzzer harness: one input is a layout JSON (iotrail frag -f json), read
 * back as overlay and report --layout read it, then its statistics and its
 * block map grid, as the patterns analyzer builds them. */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "layout/grid.h"
#include "layout/layout_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("layout", 0);
	struct frag_scan s;
	char path[64], err[512];

	if (fd < 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (write(fd, data, size) == (ssize_t)size &&
	    !frag_layout_load(path, &s, err, sizeof(err))) {
		uint64_t lo = UINT64_MAX, hi = 0;
		struct block_grid g;

		for (size_t i = 0; i < s.nr_files; i++)
			for (size_t k = 0; k < s.files[i].nr_ext; k++) {
				const struct frag_extent *e = &s.files[i].ext[k];

				if (!frag_has_blocks(e))
					continue;
				lo = e->physical < lo ? e->physical : lo;
				hi =
				    e->physical + e->len > hi ? e->physical + e->len : hi;
			}
		if (hi > lo && !block_grid_init(&g, lo, hi, 768)) {
			for (size_t i = 0; i < s.nr_files; i++)
				block_grid_file(&g, &s.files[i], (int32_t)i, true);
			block_grid_release(&g);
		}
		(void)frag_scan_find(&s, "E/f00");
		frag_scan_release(&s);
	}
	close(fd);
	return 0;
}
