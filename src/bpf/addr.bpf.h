/* SPDX-License-Identifier: GPL-2.0 */
/* A kernel address as a number, for a table keyed by it (the in-flight
 * table of iotrail.bpf.c, top's requests). */
#ifndef IOTRAIL_ADDR_BPF_H
#define IOTRAIL_ADDR_BPF_H

/*
 * A kernel address as a number. Under tp_btf an argument is a trusted
 * pointer, and the verifier refuses arithmetic on it ("pointer arithmetic
 * with >>= operator prohibited"), and a partial read of it spilled to the
 * stack: --summary, --aggregate, --trigger and --speculate were refused
 * there and ran on the raw_tp build, about twice the cost per program. A
 * value read back from a map is a number (the loader is privileged, so the
 * store is allowed); read again should an interrupt's program on this CPU
 * have come between the store and the load. 0 when it cannot be had.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} addr_scratch SEC(".maps");

static __always_inline __u64 addr_of(__u64 p)
{
#ifdef IOT_TP_BTF
	__u32 zero = 0;
	__u64 *s = bpf_map_lookup_elem(&addr_scratch, &zero);
	__u64 k;

	if (!s)
		return 0;
	/* in assembly: the compiler, knowing k == p after the check, would
	 * hand on p itself, a pointer again */
	asm volatile("*(u64 *)(%[s] + 0) = %[p]\n\t"
		     "%[k] = *(u64 *)(%[s] + 0)\n\t"
		     "if %[k] == %[p] goto +2\n\t"
		     "*(u64 *)(%[s] + 0) = %[p]\n\t"
		     "%[k] = *(u64 *)(%[s] + 0)\n\t"
		     : [k] "=&r"(k)
		     : [p] "r"(p), [s] "r"(s)
		     : "memory");
	return k;
#else
	return p;
#endif
}

/* A kernel object's address into one of nr_sets sets (a power of two):
 * objects are slab-allocated, so the low bits are dropped and the high
 * ones folded in. key: a number (addr_of). */
static __always_inline __u32 addr_set(__u64 key, __u32 nr_sets)
{
	return ((__u32)(key >> 6) ^ (__u32)(key >> 22)) & (nr_sets - 1);
}

/* A table of kernel objects in flight, keyed by address: an array map of
 * nr_sets * ADDR_WAYS values, each beginning with a __u64 key (the address,
 * addr_of; 0 when free). Claimed with a compare-and-swap, found with four
 * compares, freed by storing 0 (top's and stat --trace's requests). */
#define ADDR_WAYS 4u

/* key's entry in map, or NULL; key not 0 */
static __always_inline void *addr_find(void *map, __u32 nr_sets, __u64 key)
{
	__u32 base = addr_set(key, nr_sets) * ADDR_WAYS;

	for (__u32 w = 0; w < ADDR_WAYS; w++) {
		__u32 i = base + w;
		__u64 *e = bpf_map_lookup_elem(map, &i);

		if (e && *e == key)
			return e;
	}
	return NULL;
}

/* a free entry of key's set, now key's; NULL when the set is full */
static __always_inline void *addr_claim(void *map, __u32 nr_sets, __u64 key)
{
	__u32 base = addr_set(key, nr_sets) * ADDR_WAYS;

	for (__u32 w = 0; w < ADDR_WAYS; w++) {
		__u32 i = base + w;
		__u64 *e = bpf_map_lookup_elem(map, &i);

		if (e && !*e && __sync_val_compare_and_swap(e, 0, key) == 0)
			return e;
	}
	return NULL;
}

#endif /* IOTRAIL_ADDR_BPF_H */
