// SPDX-License-Identifier: GPL-2.0
/* libFuzzer harness: one input is a blktrace capture (a per-CPU file in
 * either byte order, or ftrace's "bin" stream), imported as `iotrail import
 * blktrace` imports it, written as a trace, and that trace read back
 * through the join. */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "import/blktrace.h"
#include "join/join.h"
#include "trace/reader.h"

static void on_request(void *ctx, const struct join_request *r)
{
	(*(uint64_t *)ctx)++;
}

static void on_bio(void *ctx, const struct join_request *r, const struct join_bio *b) {}

static void on_syscall(void *ctx, const struct join_syscall *s) {}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int in = memfd_create("blktrace", 0), out = memfd_create("trace", 0);
	char ipath[64], opath[64], err[512];
	struct bt_import im;

	if (in < 0 || out < 0)
		goto done;
	snprintf(ipath, sizeof(ipath), "/proc/self/fd/%d", in);
	snprintf(opath, sizeof(opath), "/proc/self/fd/%d", out);
	if (write(in, data, size) != (ssize_t)size)
		goto done;
	bt_import_init(&im);
	if (bt_import_file(&im, ipath) >= 0 && im.nr &&
	    !bt_import_write(&im, opath, "fuzz")) {
		struct trace_reader rd;
		uint64_t n = 0;
		struct join_sink sink = {.ctx = &n,
					 .request = on_request,
					 .bio = on_bio,
					 .syscall = on_syscall};
		struct join j;

		if (!trace_reader_open(&rd, opath, err, sizeof(err))) {
			const struct iot_rec *r;

			if (!join_init(&j, &sink, NULL, NULL)) {
				while (trace_reader_next(&rd, &r) == 1 &&
				       !join_feed(&j, r))
					;
				join_end(&j);
				join_release(&j);
			}
			trace_reader_release(&rd);
		}
	}
	bt_import_release(&im);
done:
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return 0;
}
