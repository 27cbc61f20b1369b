/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * iotrail user markers: an application marks its own phases ("request 42
 * begins") and `iotrail record` merges the marks into the trace, on the
 * trace's clock (CLOCK_MONOTONIC), beside the system calls and block
 * requests they explain.
 *
 *   #include <iotrail/marker.h>      cc app.c -liotrail-marker
 *   iotrail_mark_begin("request", 42);
 *   ...
 *   iotrail_mark_end("request", 42);
 *   iotrail_mark("checkpoint", 7);   a point
 *
 * A mark costs a clock read and a copy into memory the recorder reads
 * (no system call): tens of nanoseconds. Outside `iotrail record` (no
 * IOTRAIL_MARKERS in the environment) a mark is one predictable branch.
 * Names keep their first 16 bytes. Thread-safe; async-signal-safe once the
 * first mark of the process has been made.
 */
#ifndef IOTRAIL_MARKER_H
#define IOTRAIL_MARKER_H

#include <stdint.h>

#ifndef IOT_MARK_API
#define IOT_MARK_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

IOT_MARK_API void iotrail_mark_begin(const char *name, uint64_t id);
IOT_MARK_API void iotrail_mark_end(const char *name, uint64_t id);
IOT_MARK_API void iotrail_mark(const char *name, uint64_t id);

#ifdef __cplusplus
}
#endif

#endif
