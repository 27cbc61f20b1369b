/* SPDX-License-Identifier: GPL-2.0 */
/* Test helpers: build records and traces in memory. */
#ifndef IOTRAIL_TEST_HELPERS_H
#define IOTRAIL_TEST_HELPERS_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "bpf/events.h"

static inline struct iot_rec mkrec(uint16_t type, uint64_t ts, uint64_t id, uint64_t id2,
				   uint64_t sector, uint32_t nr)
{
	struct iot_rec r;

	memset(&r, 0, sizeof(r));
	r.type = type;
	r.ts_ns = ts;
	r.id = id;
	r.id2 = id2;
	r.sector = sector;
	r.nr = nr;
	r.dev = (7u << 20) | 0; /* loop0 */
	r.pid = 100;
	r.tid = 100;
	return r;
}

#endif
