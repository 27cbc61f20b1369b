/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Records: the op encoding, the device filter, a record begun in the
 * principal buffer or (--speculate) in its request's speculation buffer,
 * and the bio and request events every block program emits.
 */
#ifndef IOTRAIL_RECORD_BPF_H
#define IOTRAIL_RECORD_BPF_H

static __always_inline struct iot_rec *spec_record(__u64 key, __u16 type);

/* Translate the kernel's opf into the stable IOT_OP_* | IOT_F_* encoding.
 * The flag bit positions are CO-RE relocated against the running kernel. */
static __always_inline __u32 iot_opf(__u32 opf)
{
	__u32 f = opf & IOT_OP_MASK;

	if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_SYNC)))
		f |= IOT_F_SYNC;
	if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_META)))
		f |= IOT_F_META;
	if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_FUA)))
		f |= IOT_F_FUA;
	if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_PREFLUSH)))
		f |= IOT_F_PREFLUSH;
	if (opf & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_RAHEAD)))
		f |= IOT_F_RAHEAD;
	return f;
}

static __always_inline bool dev_wanted(__u32 dev, __u64 sector)
{
	return !cfg_nr_devs || iot_devfilter_has(cfg_dev, cfg_dev_start, cfg_dev_end,
						 cfg_nr_devs, dev, sector);
}

/* A slot reserved, with its time (ts, or 0: now), task, type and CPU. A
 * record written beside another one in the same program run takes its
 * time: the clock is the dearest helper a record calls (about 40 ns a
 * call through the clocksource, 2 vCPUs, retpolines). */
static __always_inline struct iot_rec *begin_at(__u16 type, __u64 *seq, __u64 ts)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct iot_rec *r = iot_reserve(cpu, seq);
	__u64 pt;

	if (!r)
		return NULL;
	pt = bpf_get_current_pid_tgid();
	r->ts_ns = ts ?: bpf_ktime_get_ns();
	r->pid = pt >> 32;
	r->tid = (__u32)pt;
	r->type = type;
	r->cpu = cpu;
	return r;
}

static __always_inline struct iot_rec *begin(__u16 type, __u64 *seq)
{
	return begin_at(type, seq, 0);
}

/* A record of a type whose fields are all known before it is reserved (see
 * enum iot_ev for what each type puts where): the slot is held only for the
 * stores. True when it was written. ts: as begin_at's. */
static __always_inline bool emit_rec_at(__u16 type, __u64 id, __u64 id2, __u64 sector,
					__u32 nr, __u32 dev, __u32 flags, __u64 ts)
{
	struct iot_rec *r;
	__u64 seq;

	r = begin_at(type, &seq, ts);
	if (!r)
		return false;
	r->id = id;
	r->id2 = id2;
	r->sector = sector;
	r->nr = nr;
	r->dev = dev;
	r->flags = flags;
	iot_commit(r, seq);
	return true;
}

static __always_inline bool emit_rec(__u16 type, __u64 id, __u64 id2, __u64 sector,
				     __u32 nr, __u32 dev, __u32 flags)
{
	return emit_rec_at(type, id, id2, sector, nr, dev, flags, 0);
}

/* A record about the bio or request whose state is under key: into the
 * principal buffer, or under --speculate into that request's speculation
 * buffer (*seq is then ~0: a speculative record is no committed slot). */
static __always_inline struct iot_rec *begin_for(__u64 key, __u16 type, __u64 *seq)
{
	if (SPEC_ON) {
		*seq = ~0ull;
		return spec_record(key, type);
	}
	return begin(type, seq);
}

static __always_inline void count_nostate(void)
{
	struct iot_ctl *c = this_ctl();

	if (c)
		__sync_fetch_and_add(&c->drops_nostate, 1);
}

/* One bio event. flags: IOT_FLAGS_FROM_OPF to translate the bio's op, or
 * what the type puts there instead (a remap's old dev_t). */
#define IOT_FLAGS_FROM_OPF 0xffffffffu

/* dev_out: the bio's disk when the filter lets it through; ts_out, if
 * not NULL: the record's time when it was written */
static __always_inline int emit_bio_dev(__u16 type, struct bio *bio, __u64 id2,
					__u32 flags, __u32 *dev_out, __u64 *ts_out)
{
	struct iot_rec *r;
	__u64 seq, sector;
	__u32 dev;

	dev = bio_devt(bio);
	sector = KREAD1(bio, bi_iter.bi_sector);
	if (!dev_wanted(dev, sector))
		return 0;
	*dev_out = dev; /* the filter let it through */
	r = begin_for((__u64)bio, type, &seq);
	if (!r)
		return 0;
	r->id = (__u64)bio;
	r->id2 = id2;
	r->sector = sector;
	r->nr = KREAD1(bio, bi_iter.bi_size) >> 9;
	r->dev = dev;
	r->flags = flags == IOT_FLAGS_FROM_OPF ? iot_opf(KREAD1(bio, bi_opf)) : flags;
	if (ts_out)
		*ts_out = r->ts_ns;
	iot_commit(r, seq);
	return 0;
}

static __always_inline int emit_bio_flags(__u16 type, struct bio *bio, __u64 id2,
					  __u32 flags)
{
	__u32 dev;

	return emit_bio_dev(type, bio, id2, flags, &dev, NULL);
}

static __always_inline int emit_bio(__u16 type, struct bio *bio, __u64 id2)
{
	return emit_bio_flags(type, bio, id2, IOT_FLAGS_FROM_OPF);
}

static __always_inline int emit_rq(__u16 type, struct request *rq, __u64 id2, __u32 nr)
{
	struct iot_rec *r;
	__u64 seq, sector;
	__u32 dev;

	dev = rq_devt(rq);
	sector = KREAD1(rq, __sector);
	if (!dev_wanted(dev, sector))
		return 0;
	r = begin_for(SPEC_ON ? (__u64)KREAD1(rq, bio) : 0, type, &seq);
	if (!r)
		return 0;
	r->id = (__u64)rq;
	r->id2 = id2;
	r->sector = sector;
	r->nr = nr;
	r->dev = dev;
	r->flags = iot_opf(KREAD1(rq, cmd_flags));
	iot_commit(r, seq);
	return 0;
}

static __always_inline void emit_rq_info(struct request *rq)
{
	__u32 dev = rq_devt(rq);

	if (!dev_wanted(dev, KREAD1(rq, __sector)))
		return;
	emit_rec(IOT_EV_RQ_INFO, (__u64)rq, (__u64)KREAD1(rq, bio),
		 KREAD1(rq, start_time_ns), 0, dev, iot_opf(KREAD1(rq, cmd_flags)));
}

static __always_inline __u32 rq_sectors(struct request *rq)
{
	return KREAD1(rq, __data_len) >> 9;
}

#endif /* IOTRAIL_RECORD_BPF_H */
