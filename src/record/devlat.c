// SPDX-License-Identifier: GPL-2.0
/* `iotrail stat --trace`: load, attach, read (devlat.h). */
#include "devlat.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "../bpf/devlat_abi.h"
#include "../util/clock.h"
#include "devlat.skel.h"
#include "bpflog.h"

struct devlat {
	struct devlat_bpf *skel;
};

int devlat_open(struct devlat **out, char *err, size_t errlen)
{
	struct devlat *dl = calloc(1, sizeof(*dl));
	int ret;

	if (!dl) {
		snprintf(err, errlen, "out of memory");
		return 1;
	}
	bpflog_quiet();
	dl->skel = devlat_bpf__open_and_load();
	if (!dl->skel) {
		char why[256];

		snprintf(err, errlen, "--trace: cannot load the BPF programs: %s",
			 bpflog_why(errno, why, sizeof(why)));
		free(dl);
		return 1;
	}
	ret = devlat_bpf__attach(dl->skel);
	if (ret) {
		snprintf(err, errlen,
			 "--trace: cannot attach to the block tracepoints: %s",
			 strerror(-ret));
		devlat_bpf__destroy(dl->skel);
		free(dl);
		return 1;
	}
	*out = dl;
	return 0;
}

void devlat_read(struct devlat *dl, uint32_t dev, struct devstat_trace *t)
{
	int fd = bpf_map__fd(dl->skel->maps.devs);
	struct devlat_dev d, again;
	uint64_t now;

	memset(t, 0, sizeof(*t));
	if (bpf_map_lookup_elem(fd, &dev, &d))
		return;
	/* the busy sum and the count in flight, consistent: read until a
	 * second read sees the same (a change in between is one request) */
	for (int i = 0; i < 8; i++) {
		now = now_ns(CLOCK_MONOTONIC);
		if (bpf_map_lookup_elem(fd, &dev, &again))
			return;
		if (again.busy_acc == d.busy_acc && again.inflight == d.inflight)
			break;
		d = again;
	}
	d = again;
	for (int k = 0; k < DT_KINDS; k++) {
		t->ios[k] = d.ios[k];
		t->g2d_ns[k] = d.g2d_ns[k];
		t->d2c_ns[k] = d.d2c_ns[k];
	}
	t->busy_ns = d.busy_acc + (d.inflight ? now : 0);
	t->inflight = d.inflight;
	t->peak = d.peak_epoch == dl->skel->bss->epoch ? d.peak : 0;
	t->no_start = d.no_start;
	t->missed = d.missed;
}

void devlat_next(struct devlat *dl)
{
	__atomic_add_fetch(&dl->skel->bss->epoch, 1, __ATOMIC_RELAXED);
}

uint64_t devlat_lost(struct devlat *dl)
{
	struct devlat_lost l;
	__u32 zero = 0;

	if (bpf_map_lookup_elem(bpf_map__fd(dl->skel->maps.lost), &zero, &l))
		return 0;
	return l.table_full;
}

void devlat_close(struct devlat *dl)
{
	if (!dl)
		return;
	devlat_bpf__destroy(dl->skel);
	free(dl);
}
