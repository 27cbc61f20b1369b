/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small open-addressing hash map from u64 keys (kernel addresses, tids,
 * packed dev/sector) to u32 values, with linear probing and backward-shift
 * deletion (no tombstones, so lookups stay short under the insert/delete
 * churn of in-flight requests). 0 marks an empty slot; key 0 itself, which a
 * damaged or crafted trace can hold, lives beside the table.
 */
#ifndef IOTRAIL_UTIL_U64MAP_H
#define IOTRAIL_UTIL_U64MAP_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A key and its value share a slot, so a probe touches one cache line (the
 * tables of in-flight requests outgrow the caches on a busy trace). */
struct u64slot {
	uint64_t key; /* 0: empty */
	uint32_t val;
};

struct u64map {
	struct u64slot *slots;
	size_t mask; /* capacity - 1, capacity a power of two */
	size_t n;
	bool has_zero; /* key 0 is present, with value zero_val */
	uint32_t zero_val;
};

static inline size_t u64map_hash(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (size_t)k;
}

/* the key of a device (dev_t as the records hold it) and a sector: 12 bits
 * of major and of minor, 40 of sector, never 0 */
static inline uint64_t u64map_dev_sector(uint32_t dev, uint64_t sector)
{
	return (sector + 1) | ((uint64_t)(dev >> 20 & 0xfff) << 52) |
	       ((uint64_t)(dev & 0xfff) << 40);
}

static inline int u64map_init(struct u64map *m, size_t cap)
{
	size_t c = 16;

	while (c < cap)
		c <<= 1;
	m->slots = calloc(c, sizeof(*m->slots));
	m->mask = c - 1;
	m->n = 0;
	m->has_zero = false;
	return m->slots ? 0 : -ENOMEM;
}

static inline void u64map_release(struct u64map *m)
{
	free(m->slots);
	m->slots = NULL;
	m->n = 0;
	m->has_zero = false;
}

/* to becomes a copy of from (what to held is freed). 0 or -ENOMEM. */
static inline int u64map_copy(struct u64map *to, const struct u64map *from)
{
	struct u64map m = *from;

	m.slots = malloc((from->mask + 1) * sizeof(*m.slots));
	if (!m.slots)
		return -ENOMEM;
	memcpy(m.slots, from->slots, (from->mask + 1) * sizeof(*m.slots));
	u64map_release(to);
	*to = m;
	return 0;
}

/* Returns a pointer to the value of k, or NULL. */
static inline uint32_t *u64map_get(const struct u64map *m, uint64_t k)
{
	if (__builtin_expect(!k, 0))
		return m->has_zero ? (uint32_t *)&m->zero_val : NULL;
	for (size_t i = u64map_hash(k) & m->mask;; i = (i + 1) & m->mask) {
		if (m->slots[i].key == k)
			return &m->slots[i].val;
		if (!m->slots[i].key)
			return NULL;
	}
}

static inline int u64map_grow(struct u64map *m)
{
	struct u64map n;

	if (u64map_init(&n, (m->mask + 1) * 2))
		return -ENOMEM;
	n.has_zero = m->has_zero;
	n.zero_val = m->zero_val;
	for (size_t i = 0; i <= m->mask; i++) {
		if (!m->slots[i].key)
			continue;
		size_t j = u64map_hash(m->slots[i].key) & n.mask;

		while (n.slots[j].key)
			j = (j + 1) & n.mask;
		n.slots[j] = m->slots[i];
		n.n++;
	}
	n.n += n.has_zero;
	u64map_release(m);
	*m = n;
	return 0;
}

/* Inserts or replaces. 0 or -ENOMEM. */
static inline int u64map_put(struct u64map *m, uint64_t k, uint32_t v)
{
	size_t i;

	if (__builtin_expect(!k, 0)) {
		m->n += !m->has_zero;
		m->has_zero = true;
		m->zero_val = v;
		return 0;
	}
	if ((m->n + 1) * 4 > (m->mask + 1) * 3 && u64map_grow(m))
		return -ENOMEM;
	for (i = u64map_hash(k) & m->mask; m->slots[i].key; i = (i + 1) & m->mask) {
		if (m->slots[i].key == k) {
			m->slots[i].val = v;
			return 0;
		}
	}
	m->slots[i].key = k;
	m->slots[i].val = v;
	m->n++;
	return 0;
}

/* Removes k if present (backward-shift deletion). */
static inline void u64map_del(struct u64map *m, uint64_t k)
{
	size_t i = u64map_hash(k) & m->mask, j;

	if (__builtin_expect(!k, 0)) {
		m->n -= m->has_zero;
		m->has_zero = false;
		return;
	}
	while (m->slots[i].key != k) {
		if (!m->slots[i].key)
			return;
		i = (i + 1) & m->mask;
	}
	for (j = i;;) {
		size_t h;

		j = (j + 1) & m->mask;
		if (!m->slots[j].key)
			break;
		h = u64map_hash(m->slots[j].key) & m->mask;
		/* move j back to i unless its home lies cyclically in (i, j] */
		if ((j > i && (h <= i || h > j)) || (j < i && (h <= i && h > j))) {
			m->slots[i] = m->slots[j];
			i = j;
		}
	}
	m->slots[i].key = 0;
	m->n--;
}

#endif
