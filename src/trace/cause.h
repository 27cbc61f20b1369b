/* SPDX-License-Identifier: GPL-2.0 */
/* Names of the cause, writeback reason and host kind codes of
 * IOT_EV_BIO_INFO (src/bpf/events.h): stable, documented in
 * docs/ATTRIBUTION.md, used in every output. */
#ifndef IOTRAIL_TRACE_CAUSE_H
#define IOTRAIL_TRACE_CAUSE_H

#include <stdint.h>

#include "format.h"

const char *iot_cause_name(unsigned int cause);
const char *iot_wb_name(unsigned int wb);
const char *iot_host_name(unsigned int host);
/* an io_uring opcode (IORING_OP_*, UAPI numbers) as liburing names it,
 * lower case without the prefix: "read", "writev", "uring_cmd"; "op42"
 * for one this list does not know (written into buf) */
const char *iot_uring_op_name(unsigned int op, char buf[16]);
/* the cause code of a name, -1 if none */
int iot_cause_parse(const char *name);

#endif
