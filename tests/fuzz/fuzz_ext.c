// SPDX-License-Identifier: GPL-2.0
/* libFuzzer harness: one input is an ext2/3/4 image, scanned as
 * `iotrail frag --fs IMAGE` scans it (libext2fs, read-only), then written
 * as JSON and text. The seeds are small images made by mke2fs -d; most of
 * what the fuzzer finds inside libext2fs itself is libext2fs's. */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "frag/out.h"
#include "frag/scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	int fd = memfd_create("image", 0);
	struct frag_scan s = {0};
	struct frag_out_opts oo = {.scope = "fuzz", .how = "image"};
	char path[64];

	if (!null) {
		null = fopen("/dev/null", "w");
		stderr = null; /* the scanner says every damaged file */
	}
	if (fd < 0 || !null)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (write(fd, data, size) == (ssize_t)size && !frag_ext_scan(path, "", &s)) {
		frag_print_json(null, &s, &oo);
		frag_print_text(null, &s, &oo);
	}
	frag_scan_release(&s);
	close(fd);
	return 0;
}
