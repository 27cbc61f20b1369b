// SPDX-License-Identifier: GPL-2.0
/* Opens the tp_btf build of the BPF programs (plain loads, the fast one). */
#include "../bpf/events.h"
#include "iotrail_btf.skel.h"
#include "skel.h"

struct iotrail_bpf *skel_open_btf(void)
{
	return iotrail_bpf__open();
}
