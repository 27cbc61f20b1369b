/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A rotating disk's service times (docs/DISKMODEL.md): what each request
 * would cost a disk of the given rpm, seek times, media rate and read-ahead
 * cache. No I/O here: iotrail-hdd (hdd_fuse.c) serves a file through it.
 *
 * One actuator, requests served in the order they arrive:
 *   seek(d tracks) = 0 for d = 0, else track_seek + (full - track_seek) *
 *                    sqrt(d / tracks), full chosen so that a random seek
 *                    averages avg_seek (E[sqrt|u - v|] = 8/15 for u, v
 *                    uniform);
 *   rotation      = the wait until the first sector comes under the head:
 *                    the platter turns at rpm from time 0, sector s of its
 *                    track at angle (s mod spt) / spt;
 *   transfer      = sectors at the media rate (spt sectors a turn).
 * A read leaves the head reading ahead into the cache, at the media rate,
 * up to cache_bytes, until the next request that misses: a read of sectors
 * already read ahead costs only the interface (bus_rate); one of sectors
 * coming under the head within a turn completes when they are read; one
 * further ahead seeks.
 */
#ifndef IOTRAIL_DISKMODEL_HDD_H
#define IOTRAIL_DISKMODEL_HDD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hdd_params {
	uint32_t rpm;
	uint64_t avg_seek_ns, track_seek_ns;
	uint64_t rate;	      /* media transfer, bytes/s */
	uint64_t cache_bytes; /* read-ahead cache (0: none) */
	uint64_t bus_rate;    /* interface, bytes/s: a cache hit */
	uint64_t capacity;    /* bytes */
};

/* a 10k-rpm disk of the seed's time (000: a 10k-rpm SCSI disk) */
#define HDD_DEFAULTS                                                                     \
	{                                                                                \
		.rpm = 10000, .avg_seek_ns = 4500000, .track_seek_ns = 400000,           \
		.rate = 80000000, .cache_bytes = 8 << 20, .bus_rate = 300000000          \
	}

struct hdd {
	struct hdd_params p;
	/* derived */
	uint64_t rot_ns, sector_ns, spt, tracks, full_seek_ns;
	/* state */
	uint64_t busy_until; /* the end of the last request served */
	uint64_t head;	     /* the sector after the last request */
	bool ra;	     /* reading ahead after the last read that missed */
	uint64_t ra_lo;	     /* the cache: from that read's first sector ... */
	uint64_t ra_from;    /* ... sector ra_from under the head at ra_t0 ... */
	uint64_t ra_t0;
	uint64_t ra_limit; /* ... reading on until this one */
};

/* Checks p (0, or -EINVAL with why in err) and sets d up, idle at sector 0. */
int hdd_init(struct hdd *d, const struct hdd_params *p, char *err, size_t errlen);

/* A request of nr sectors at sector arriving at now_ns (CLOCK_MONOTONIC or
 * any clock, as long as it is the same for every call): when it completes.
 * Serves in call order. */
uint64_t hdd_serve(struct hdd *d, uint64_t now_ns, uint64_t sector, uint64_t nr,
		   bool write);

/* the seek time over d tracks */
uint64_t hdd_seek_ns(const struct hdd *d, uint64_t tracks);

/* "rpm=10000 seek=4.5ms track=0.4ms rate=80MB/s cache=8MiB" */
void hdd_describe(const struct hdd_params *p, char *out, size_t len);

#endif
