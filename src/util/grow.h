/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Growing arrays, git's ALLOC_GROW idea without the hidden return:
 *
 *	if (GROW(a->items, a->nr + 1, a->cap))
 *		return -ENOMEM;
 *	a->items[a->nr++] = x;
 *
 * makes room for at least `want` elements, doubling the capacity (from
 * GROW_MIN). The array and its capacity are unchanged when memory runs out.
 */
#ifndef IOTRAIL_UTIL_GROW_H
#define IOTRAIL_UTIL_GROW_H

#include <stddef.h>

#define GROW_MIN 16

/* arrp: the address of the array pointer (any T **). 0 or -ENOMEM. */
int grow_array_slow(void *arrp, size_t elem, size_t want, size_t *cap);

static inline int grow_array(void *arrp, size_t elem, size_t want, size_t *cap)
{
	return want <= *cap ? 0 : grow_array_slow(arrp, elem, want, cap);
}

#define GROW(arr, want, cap) grow_array(&(arr), sizeof(*(arr)), (want), &(cap))

/* n elements of from copied to the end of the array, grown (a merge's
 * arrays end to end). 0 or -ENOMEM. */
int grow_append(void *arrp, size_t elem, size_t *nr, size_t *cap, const void *from,
		size_t n);

#define APPEND(arr, nr, cap, from, n)                                                    \
	grow_append(&(arr), sizeof(*(arr)), &(nr), &(cap), (from), (n))

/* Arrays taken whole (a part's, at a merge: no copy) and joined end to end
 * once, later (at finish, on a thread of its own). */
struct runs {
	struct run {
		void *p;
		size_t n;
	} * r;
	size_t nr, cap;
};

/* arr (nr elements) moved to the end of rs: arr NULL, nr and cap 0
 * after. 0 or -ENOMEM (nothing moved). */
int runs_take(struct runs *rs, void *arrp, size_t *nr, size_t *cap);

#define TAKE(rs, arr, nr, cap) runs_take(&(rs), &(arr), &(nr), &(cap))

/* Every run of rs appended to the array, in order, and freed. 0 or
 * -ENOMEM (rs and the array as they were). */
int runs_join(struct runs *rs, void *arrp, size_t elem, size_t *nr, size_t *cap);

#define JOIN(rs, arr, nr, cap) runs_join(&(rs), &(arr), sizeof(*(arr)), &(nr), &(cap))

void runs_release(struct runs *rs);

#endif
