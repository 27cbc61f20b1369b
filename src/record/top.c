// SPDX-License-Identifier: GPL-2.0
/* `iotrail top`: load, attach, read (top.h). */
#include "top.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "../util/clock.h"
#include "bpflog.h"
#include "top.skel.h"

struct top {
	struct top_bpf *skel;
};

int top_open(struct top **out, char *err, size_t errlen)
{
	struct top *t = calloc(1, sizeof(*t));
	int ret;

	if (!t) {
		snprintf(err, errlen, "out of memory");
		return 1;
	}
	bpflog_quiet();
	t->skel = top_bpf__open();
	if (!t->skel) {
		snprintf(err, errlen, "cannot open the BPF object: %s", strerror(errno));
		free(t);
		return 1;
	}
	/* block_io_start (Linux 6.5) names the submitting task; without it
	 * the task that issues the request does */
	if (libbpf_find_vmlinux_btf_id("block_io_start", BPF_TRACE_RAW_TP) <= 0)
		bpf_program__set_autoload(t->skel->progs.top_io_start, false);
	ret = top_bpf__load(t->skel);
	if (!ret)
		ret = top_bpf__attach(t->skel);
	if (ret) {
		char why[256];

		snprintf(err, errlen, "cannot load or attach the BPF programs: %s",
			 bpflog_why(ret, why, sizeof(why)));
		top_bpf__destroy(t->skel);
		free(t);
		return 1;
	}
	*out = t;
	return 0;
}

/* every entry of a hash map of struct top_stats into rows; its key a
 * struct top_proc_key (procs) or a disk's dev_t */
static int read_map(int fd, bool procs, struct top_row **rows, size_t *nr, size_t *cap)
{
	struct top_proc_key key, next, *prev = NULL;

	*nr = 0;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (*nr == *cap) {
			size_t ncap = *cap ? *cap * 2 : 64;
			struct top_row *n = realloc(*rows, ncap * sizeof(*n));

			if (!n)
				return -ENOMEM;
			*rows = n;
			*cap = ncap;
		}
		if (bpf_map_lookup_elem(fd, &key, &(*rows)[*nr].s))
			continue; /* gone in between */
		(*rows)[*nr].key = key.tgid;
		(*rows)[(*nr)++].disk = procs ? key.disk : key.tgid;
	}
	return 0;
}

int top_read(struct top *t, struct top_sample *s)
{
	__u32 zero = 0;
	int err;

	s->ts_ns = now_ns(CLOCK_MONOTONIC);
	err = read_map(bpf_map__fd(t->skel->maps.procs), true, &s->procs, &s->nr_procs,
		       &s->cap_procs);
	if (!err)
		err = read_map(bpf_map__fd(t->skel->maps.disks), false, &s->disks,
			       &s->nr_disks, &s->cap_disks);
	if (!err && bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.lost), &zero, &s->lost))
		err = -errno;
	return err;
}

void top_sample_release(struct top_sample *s)
{
	free(s->procs);
	free(s->disks);
	memset(s, 0, sizeof(*s));
}

void top_close(struct top *t)
{
	if (!t)
		return;
	top_bpf__destroy(t->skel);
	free(t);
}
