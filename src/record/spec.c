// SPDX-License-Identifier: GPL-2.0
/* --speculate, user-space side (see spec.h). */
#include "spec.h"

#include <errno.h>
#include <stdio.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

int spec_fill_free(const struct bpf_map *free_q, uint32_t nspec)
{
	int fd = bpf_map__fd(free_q);

	for (uint32_t i = 0; i < nspec; i++)
		if (bpf_map_update_elem(fd, NULL, &i, BPF_ANY))
			return -errno;
	return 0;
}

void spec_release_slot(const struct bpf_map *free_q, struct iot_sum_slot *sl)
{
	uint64_t sp = __atomic_exchange_n(&sl->spec, 0, __ATOMIC_ACQ_REL);
	uint32_t id;

	if (!sp)
		return;
	id = (uint32_t)(sp - 1);
	bpf_map_update_elem(bpf_map__fd(free_q), NULL, &id, BPF_ANY);
}

void spec_summarize(const struct iot_ctl *ctl, uint32_t nr_cpus,
		    struct iot_spec_info *info)
{
	for (uint32_t cpu = 0; cpu < nr_cpus; cpu++) {
		const struct iot_ctl *c = &ctl[cpu];

		info->committed += c->spec_commits;
		info->discarded += c->spec_discards;
		info->unavailable += c->spec_unavail;
		info->drops += c->spec_drops;
		if (c->spec_unavail)
			fprintf(stderr,
				"iotrail: %llu failed speculations (no speculative "
				"buffer available, all %u busy) on CPU %u\n",
				(unsigned long long)c->spec_unavail, info->nspec, cpu);
		if (c->spec_drops)
			fprintf(stderr,
				"iotrail: %llu speculative drops (specsize %u bytes) on "
				"CPU %u\n",
				(unsigned long long)c->spec_drops, info->specsize, cpu);
	}
}
