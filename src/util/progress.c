// SPDX-License-Identifier: GPL-2.0
#include "progress.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void progress_init(struct progress *p, const char *label, uint64_t total)
{
	p->on = isatty(STDERR_FILENO) && total;
	p->label = label;
	p->total = total;
	p->next_ns = 0;
}

void progress_update(struct progress *p, uint64_t done)
{
	uint64_t t;

	if (!p->on)
		return;
	t = now_ns();
	if (t < p->next_ns)
		return;
	p->next_ns = t + 100000000ull;
	fprintf(stderr, "\r%s: %3u%%", p->label,
		(unsigned)(done >= p->total ? 100 : done * 100 / p->total));
}

void progress_done(struct progress *p)
{
	if (p->on)
		fprintf(stderr, "\r\033[K");
}
