/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --speculate, user-space side: hands the kernel its free speculation
 * buffers, takes back the buffer of a slot the reaper frees, and sums and
 * reports what came of the speculations (src/bpf/speculate.bpf.h).
 */
#ifndef IOTRAIL_RECORD_SPEC_H
#define IOTRAIL_RECORD_SPEC_H

#include <stdint.h>

#include "../trace/format.h"

struct bpf_map;

/* Every buffer number 0..nspec-1 into the free queue. 0 or -errno. */
int spec_fill_free(const struct bpf_map *free_q, uint32_t nspec);
/* The buffer of a slot being freed, if it still holds one, back to the
 * queue (exchanged out of the slot: the kernel's completion cannot free
 * it a second time). */
void spec_release_slot(const struct bpf_map *free_q, struct iot_sum_slot *sl);
/* Sums the per-CPU counts into info; prints DTrace's kind of lines for
 * speculations that could not be had or did not fit. */
void spec_summarize(const struct iot_ctl *ctl, uint32_t nr_cpus,
		    struct iot_spec_info *info);

#endif
