// SPDX-License-Identifier: GPL-2.0
/*
 * memprobe: how fast this machine's core, caches, memory and page faults
 * are, to set one machine's report times beside another's: where a trace's
 * report is slower by more than the core is, the difference is in the
 * memory or the faults. Each figure is the best of 3 tries.
 *
 *   memprobe            one line per figure, "name value unit"
 *
 * compute: ns per step of a dependent integer chain (multiply, xor,
 * shift); load: ns per dependent load, pointers chased at random through
 * a buffer of that size (cache lines, a random cycle; the largest tried
 * once); read: GB/s summing
 * 256 MiB in order; fault: us per first touch of an anonymous page.
 * Built static (make build/bench/memprobe), so it runs where nothing is
 * installed: device_check.sh runs it from .portable.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static volatile uint64_t sink;

static double compute(void)
{
	uint64_t x = 88172645463325252ull, n = 200000000;
	double t = now();

	for (uint64_t i = 0; i < n; i++)
		x = (x ^ (x >> 29)) * 0xbf58476d1ce4e5b9ull;
	t = now() - t;
	sink = x;
	return t * 1e9 / n;
}

struct line {
	struct line *next;
	char pad[56];
};

/* ns per load chasing a random cycle through size bytes */
static double chase(size_t size)
{
	size_t n = size / sizeof(struct line), steps = 4000000;
	struct line *v = aligned_alloc(64, n * sizeof(*v));
	size_t *perm = malloc(n * sizeof(*perm));
	uint64_t r = 0x9e3779b97f4a7c15ull;
	struct line *p;
	double t;

	if (!v || !perm) {
		free(v);
		free(perm);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		perm[i] = i;
	for (size_t i = n - 1; i > 0; i--) { /* Sattolo: one cycle */
		size_t j;

		r ^= r << 13;
		r ^= r >> 7;
		r ^= r << 17;
		j = r % i;
		size_t s = perm[i];
		perm[i] = perm[j];
		perm[j] = s;
	}
	for (size_t i = 0; i < n; i++)
		v[perm[i]].next = &v[perm[(i + 1) % n]];
	free(perm);
	p = &v[0];
	for (size_t i = 0; i < n; i++) /* warm */
		p = p->next;
	t = now();
	for (size_t i = 0; i < steps; i++)
		p = p->next;
	t = now() - t;
	sink = (uintptr_t)p;
	free(v);
	return t * 1e9 / steps;
}

static double readbw(void)
{
	size_t n = (256u << 20) / 8;
	uint64_t *v = malloc(n * 8), s = 0;
	double t;

	if (!v)
		return -1;
	for (size_t i = 0; i < n; i++)
		v[i] = i;
	t = now();
	for (int k = 0; k < 4; k++)
		for (size_t i = 0; i < n; i++)
			s += v[i];
	t = now() - t;
	sink = s;
	free(v);
	return 4.0 * n * 8 / t / 1e9;
}

static double fault(void)
{
	size_t size = 256u << 20;
	char *p =
	    mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	double t;

	if (p == MAP_FAILED)
		return -1;
	/* no huge pages: a fault a 4 KiB page, as a mapped trace takes */
	madvise(p, size, MADV_NOHUGEPAGE);
	t = now();
	for (size_t i = 0; i < size; i += 4096)
		p[i] = 1;
	t = now() - t;
	munmap(p, size);
	return t * 1e6 / (size / 4096);
}

static double best(double (*f)(void))
{
	double b = -1;

	for (int i = 0; i < 3; i++) {
		double x = f();

		if (x >= 0 && (b < 0 || x < b))
			b = x;
	}
	return b;
}

int main(void)
{
	static const size_t sizes[] = {256u << 10, 2u << 20, 16u << 20, 128u << 20};
	double bw = 0;

	printf("compute %.3f ns\n", best(compute));
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		double b = -1;

		for (int i = 0; i < (sizes[k] > (16u << 20) ? 1 : 3); i++) {
			double x = chase(sizes[k]);

			if (x >= 0 && (b < 0 || x < b))
				b = x;
		}
		printf("load_%zuk %.1f ns\n", sizes[k] >> 10, b);
	}
	for (int i = 0; i < 3; i++) {
		double x = readbw();

		if (x > bw)
			bw = x;
	}
	printf("read %.1f GB/s\n", bw);
	printf("fault %.3f us\n", best(fault));
	return 0;
}
