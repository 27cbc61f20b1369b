// SPDX-License-Identifier: GPL-2.0
/* A rotating disk's service times (hdd.h, docs/DISKMODEL.md). */
#include "hdd.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define SECTOR 512u

int hdd_init(struct hdd *d, const struct hdd_params *p, char *err, size_t errlen)
{
	memset(d, 0, sizeof(*d));
	if (!p->rpm || p->rpm > 30000)
		return snprintf(err, errlen, "rpm %u: not between 1 and 30000", p->rpm),
		       -EINVAL;
	if (p->track_seek_ns > p->avg_seek_ns)
		return snprintf(err, errlen,
				"the track-to-track seek is longer than the "
				"average seek"),
		       -EINVAL;
	d->p = *p;
	d->rot_ns = 60000000000ull / p->rpm;
	d->spt = (uint64_t)((double)p->rate * (double)d->rot_ns / 1e9 / SECTOR);
	if (d->spt < 1)
		return snprintf(err, errlen, "rate %llu B/s: under one sector a turn",
				(unsigned long long)p->rate),
		       -EINVAL;
	if (!p->bus_rate || p->capacity < SECTOR)
		return snprintf(err, errlen, "no interface rate or capacity"), -EINVAL;
	d->sector_ns = d->rot_ns / d->spt;
	d->tracks = p->capacity / SECTOR / d->spt;
	d->tracks = d->tracks ? d->tracks : 1;
	/* a random seek averages avg_seek: E[sqrt|u - v|] = 8/15 */
	d->full_seek_ns =
	    p->track_seek_ns +
	    (uint64_t)((double)(p->avg_seek_ns - p->track_seek_ns) * 15 / 8);
	return 0;
}

uint64_t hdd_seek_ns(const struct hdd *d, uint64_t tracks)
{
	if (!tracks)
		return 0;
	return d->p.track_seek_ns +
	       (uint64_t)((double)(d->full_seek_ns - d->p.track_seek_ns) *
			  sqrt((double)tracks / (double)d->tracks));
}

/* the sector under the head at t: reading ahead from ra_from at ra_t0
 * until the cache is full, or where the last request left it */
static uint64_t head_at(const struct hdd *d, uint64_t t)
{
	uint64_t read;

	if (!d->ra)
		return d->head;
	read = t > d->ra_t0 ? (t - d->ra_t0) / d->sector_ns : 0;
	return d->ra_from +
	       (read < d->ra_limit - d->ra_from ? read : d->ra_limit - d->ra_from);
}

uint64_t hdd_serve(struct hdd *d, uint64_t now_ns, uint64_t sector, uint64_t nr,
		   bool write)
{
	uint64_t start = now_ns > d->busy_until ? now_ns : d->busy_until;
	uint64_t end = sector + nr, cache = d->p.cache_bytes / SECTOR;
	uint64_t bus = nr * SECTOR * 1000000000ull / d->p.bus_rate;
	uint64_t pos, from, to, t, wait, done;

	/* read ahead already, or coming under the head within a turn: the
	 * cache (data further ahead is quicker to seek to) */
	if (!write && d->ra && sector >= d->ra_lo && end <= d->ra_limit &&
	    end <= head_at(d, start) + d->spt) {
		uint64_t avail =
		    d->ra_t0 + (end > d->ra_from ? (end - d->ra_from) : 0) * d->sector_ns;

		done = avail > start + bus ? avail : start + bus;
		/* the drive reads on ahead of what the host took */
		if (end + cache > d->ra_limit)
			d->ra_limit = end + cache;
		d->busy_until = done;
		return done;
	}
	pos = head_at(d, start);
	from = pos / d->spt;
	to = sector / d->spt;
	t = start + hdd_seek_ns(d, from > to ? from - to : to - from);
	/* the platter turns from time 0: wait for the first sector */
	wait = ((sector % d->spt) * d->sector_ns + d->rot_ns - t % d->rot_ns) % d->rot_ns;
	done = t + wait + nr * d->sector_ns;
	d->head = end;
	d->busy_until = done;
	d->ra = !write && cache;
	if (d->ra) {
		d->ra_lo = sector;
		d->ra_from = end;
		d->ra_t0 = done;
		d->ra_limit = end + cache;
	}
	return done;
}

void hdd_describe(const struct hdd_params *p, char *out, size_t len)
{
	snprintf(out, len, "rpm=%u seek=%.2fms track=%.2fms rate=%.0fMB/s cache=%lluKiB",
		 p->rpm, p->avg_seek_ns / 1e6, p->track_seek_ns / 1e6, p->rate / 1e6,
		 (unsigned long long)(p->cache_bytes >> 10));
}
