// SPDX-License-Identifier: GPL-2.0
#include "grow.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int grow_array_slow(void *arrp, size_t elem, size_t want, size_t *cap)
{
	size_t n = *cap ? *cap : GROW_MIN;
	void *old, *p;

	while (n < want) {
		if (n > SIZE_MAX / 2)
			return -ENOMEM;
		n *= 2;
	}
	if (elem && n > SIZE_MAX / elem)
		return -ENOMEM;
	memcpy(&old, arrp, sizeof(old));
	p = realloc(old, n * elem);
	if (!p)
		return -ENOMEM;
	memcpy(arrp, &p, sizeof(p));
	*cap = n;
	return 0;
}

int grow_append(void *arrp, size_t elem, size_t *nr, size_t *cap, const void *from,
		size_t n)
{
	char *arr;

	if (!n)
		return 0;
	if (*nr > SIZE_MAX - n || grow_array(arrp, elem, *nr + n, cap))
		return -ENOMEM;
	memcpy(&arr, arrp, sizeof(arr));
	memcpy(arr + *nr * elem, from, n * elem);
	*nr += n;
	return 0;
}

int runs_take(struct runs *rs, void *arrp, size_t *nr, size_t *cap)
{
	void *p;

	if (!*nr)
		return 0;
	if (GROW(rs->r, rs->nr + 1, rs->cap))
		return -ENOMEM;
	memcpy(&p, arrp, sizeof(p));
	rs->r[rs->nr++] = (struct run){p, *nr};
	p = NULL;
	memcpy(arrp, &p, sizeof(p));
	*nr = *cap = 0;
	return 0;
}

int runs_join(struct runs *rs, void *arrp, size_t elem, size_t *nr, size_t *cap)
{
	size_t total = *nr;
	char *arr;

	for (size_t i = 0; i < rs->nr; i++) {
		if (total > SIZE_MAX - rs->r[i].n)
			return -ENOMEM;
		total += rs->r[i].n;
	}
	if (grow_array(arrp, elem, total, cap))
		return -ENOMEM;
	memcpy(&arr, arrp, sizeof(arr));
	for (size_t i = 0; i < rs->nr; i++) {
		memcpy(arr + *nr * elem, rs->r[i].p, rs->r[i].n * elem);
		*nr += rs->r[i].n;
		free(rs->r[i].p);
	}
	rs->nr = 0;
	return 0;
}

void runs_release(struct runs *rs)
{
	for (size_t i = 0; i < rs->nr; i++)
		free(rs->r[i].p);
	free(rs->r);
	*rs = (struct runs){0};
}
