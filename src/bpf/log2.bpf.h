/* SPDX-License-Identifier: GPL-2.0 */
/* The log2 bucket of a value, for the in-kernel histograms of record
 * --aggregate, sched and top: k holds [2^k, 2^(k+1)), 0 and 1 in 0. */
#ifndef IOTRAIL_LOG2_BPF_H
#define IOTRAIL_LOG2_BPF_H

static __always_inline __u32 log2_u64(__u64 v)
{
	__u32 r = 0;

	if (v >> 32) {
		v >>= 32;
		r += 32;
	}
	if (v >> 16) {
		v >>= 16;
		r += 16;
	}
	if (v >> 8) {
		v >>= 8;
		r += 8;
	}
	if (v >> 4) {
		v >>= 4;
		r += 4;
	}
	if (v >> 2) {
		v >>= 2;
		r += 2;
	}
	if (v >> 1)
		r += 1;
	return r;
}

#endif /* IOTRAIL_LOG2_BPF_H */
