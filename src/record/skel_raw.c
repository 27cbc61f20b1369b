// SPDX-License-Identifier: GPL-2.0
/* Opens the raw_tp build of the BPF programs (probe reads, the fallback). */
#include "../bpf/events.h"
#include "iotrail_raw.skel.h"
#include "skel.h"

struct iotrail_bpf *skel_open_raw(void)
{
	return iotrail_bpf__open();
}
