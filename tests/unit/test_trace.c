// SPDX-License-Identifier: GPL-2.0
/*
 * Trace file round trips: the writer's chunks read back in global time
 * order across CPUs and rounds, gaps found from sequence numbers, nested
 * inversions undone, damaged files read up to their last whole record.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include "trace/pack.h"
#include "trace/reader.h"
#include "trace/writer.h"

static char path[] = "/tmp/iotrail-unit-XXXXXX";

static int setup(void **state)
{
	int fd = mkstemp(path);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	unlink(path);
	return 0;
}

static void header(struct iot_file_header *h, uint32_t cpus)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, IOT_MAGIC, 8);
	h->header_size = sizeof(*h);
	h->version_major = IOT_VERSION_MAJOR;
	h->rec_size = IOT_REC_SIZE;
	h->nr_cpus = cpus;
	h->clock_id = 1;
}

static void round_mark(struct trace_writer *w, uint64_t mark)
{
	struct iot_round r = {.mark_ns = mark};

	assert_int_equal(
	    trace_writer_chunk(w, IOT_CHUNK_ROUND, 0, &r, sizeof(r), NULL, 0), 0);
}

static void end(struct trace_writer *w)
{
	struct iot_end e = {.end_mono_ns = 1000000, .reason = IOT_STOP_COMMAND};

	assert_int_equal(trace_writer_chunk(w, IOT_CHUNK_END, 0, &e, sizeof(e), NULL, 0),
			 0);
}

/* Two CPUs, records interleaved in time, delivered in per-CPU chunks over
 * three rounds; a record of CPU 1 with ts before round 1's mark arrives only
 * in round 2 (its writer was still busy at the drain). */
static void write_two_cpus(void)
{
	struct iot_file_header h;
	struct trace_writer w;
	struct iot_rec c0[6], c1[6];
	uint64_t s0 = 0, s1 = 0;

	header(&h, 2);
	assert_int_equal(trace_writer_open(&w, path, &h), 0);
	for (int i = 0; i < 6; i++) {
		c0[i] = mkrec(IOT_EV_BIO_QUEUE, 100 + 20 * i, i, 0, i, 8);
		c0[i].seq = s0++;
		c0[i].cpu = 0;
		c1[i] = mkrec(IOT_EV_RQ_COMPLETE, 110 + 20 * i, i, 0, i, 8);
		c1[i].seq = s1++;
		c1[i].cpu = 1;
	}
	/* round 1 (mark 150): cpu0 100,120,140; cpu1 110 (130 arrives late) */
	trace_writer_chunk(&w, IOT_CHUNK_EVENTS, 0, c0, 3 * 64, NULL, 0);
	trace_writer_chunk(&w, IOT_CHUNK_EVENTS, 1, c1, 1 * 64, NULL, 0);
	round_mark(&w, 150);
	/* round 2 (mark 210) */
	trace_writer_chunk(&w, IOT_CHUNK_EVENTS, 1, c1 + 1, 3 * 64, NULL, 0);
	trace_writer_chunk(&w, IOT_CHUNK_EVENTS, 0, c0 + 3, 2 * 64, NULL, 0);
	round_mark(&w, 210);
	trace_writer_chunk(&w, IOT_CHUNK_EVENTS, 0, c0 + 5, 64, c1 + 4, 0);
	trace_writer_chunk(&w, IOT_CHUNK_EVENTS, 1, c1 + 4, 2 * 64, NULL, 0);
	round_mark(&w, 300);
	end(&w);
	assert_int_equal(trace_writer_close(&w), 0);
}

static void merge_order(void **state)
{
	struct trace_reader r;
	const struct iot_rec *rec;
	char err[256];
	uint64_t last = 0;
	int n = 0;

	write_two_cpus();
	assert_int_equal(trace_reader_open(&r, path, err, sizeof(err)), 0);
	assert_int_equal(r.nr_records, 12);
	assert_true(r.has_end);
	assert_string_equal(r.warning, "");
	while (trace_reader_next(&r, &rec) == 1) {
		assert_true(rec->ts_ns >= last);
		assert_int_equal(rec->ts_ns, 100 + 10 * n);
		last = rec->ts_ns;
		n++;
	}
	assert_int_equal(n, 12);
	assert_int_equal(r.nr_gaps, 0);
	/* rewind gives the same again */
	trace_reader_rewind(&r);
	n = 0;
	while (trace_reader_next(&r, &rec) == 1)
		n++;
	assert_int_equal(n, 12);
	trace_reader_release(&r);
}

/* Thirteen CPUs (a tree whose leaves are not all at one depth), five
 * rounds, times drawn from a few values so that CPUs tie often, CPU 5
 * silent throughout and CPU 9 in every other round: the records come out
 * sorted by time, ties by CPU, then in each CPU's own order (the id
 * counts them per CPU). The CPUs are numbered c * stride of nr_cpus
 * possible ones: the tree has a leaf for each of the 12 that wrote. */
#define MS_CPUS	  13u
#define MS_ROUNDS 5u
static void many_streams(uint32_t nr_cpus, uint32_t stride)
{
	static struct iot_rec recs[MS_CPUS][MS_ROUNDS * 40];
	struct iot_file_header h;
	struct trace_writer w;
	struct trace_reader r;
	const struct iot_rec *rec;
	uint64_t seed = 7, seq[MS_CPUS] = {0}, total = 0, n = 0, ties = 0;
	uint64_t last_ts = 0, last_id = 0;
	uint32_t last_cpu = 0;
	char err[256];

	header(&h, nr_cpus);
	assert_int_equal(trace_writer_open(&w, path, &h), 0);
	for (uint32_t k = 0; k < MS_ROUNDS; k++) {
		for (uint32_t c = 0; c < MS_CPUS; c++) {
			struct iot_rec *a = recs[c] + seq[c];
			uint32_t cnt = c == 5 || (c == 9 && k % 2) ? 0 : 10 + c * 2;
			uint64_t ts = 1000 * k;

			for (uint32_t i = 0; i < cnt; i++) {
				seed = seed * 6364136223846793005ull +
				       1442695040888963407ull;
				ts += (seed >> 61) * 30; /* steps of 0 to 210 ns */
				if (ts >= 1000 * k + 999)
					ts = 1000 * k + 999;
				a[i] =
				    mkrec(IOT_EV_BIO_QUEUE, ts, seq[c] + i + 1, 0, 0, 8);
				a[i].seq = seq[c] + i;
				a[i].cpu = (uint16_t)(c * stride);
			}
			if (cnt)
				trace_writer_chunk(&w, IOT_CHUNK_EVENTS, c * stride, a,
						   cnt * 64, NULL, 0);
			seq[c] += cnt;
			total += cnt;
		}
		round_mark(&w, 1000 * (k + 1));
	}
	end(&w);
	trace_writer_close(&w);
	assert_int_equal(trace_reader_open(&r, path, err, sizeof(err)), 0);
	assert_int_equal(r.nr_streams, nr_cpus + 2);
	assert_int_equal(r.nr_leaves, MS_CPUS - 1);
	assert_int_equal(r.leaves[5], 6 * stride);
	assert_int_equal(r.leaf_of[5 * stride], UINT32_MAX);
	while (trace_reader_next(&r, &rec) == 1) {
		bool in_order = rec->ts_ns > last_ts ||
				(rec->ts_ns == last_ts &&
				 (rec->cpu > last_cpu ||
				  (rec->cpu == last_cpu && rec->id == last_id + 1)));

		if (n) {
			assert_true(in_order);
			ties += rec->ts_ns == last_ts && rec->cpu != last_cpu;
		}
		last_ts = rec->ts_ns;
		last_cpu = rec->cpu;
		last_id = rec->id;
		n++;
	}
	assert_int_equal(n, total);
	assert_true(ties > 50); /* the order between CPUs was put to the test */
	assert_int_equal(r.nr_gaps, 0);
	trace_reader_release(&r);
}

static void merge_many_streams(void **state)
{
	many_streams(MS_CPUS, 1);
}

/* A host of IOT_MAX_CPUS possible CPUs with 13 of them far apart */
static void merge_sparse_streams(void **state)
{
	many_streams(IOT_MAX_CPUS, IOT_MAX_CPUS / MS_CPUS);
}

/* Reading in segments (trace_reader_plan): SG_CPUS streams over SG_ROUNDS
 * rounds, each with neighbours inverted (3 apart, and across a chunk's
 * start), gaps, summaries and back-pressure marks (CPU 0 a stretch ended,
 * CPU 2 one left open, begun at the same time as one of CPU 4's, its
 * begin's chunk written after CPU 2's). bad: 1 a record 21 behind one
 * before it, 2 a record behind a limit the merge passed (after every
 * record of its stream), 3 a BIO_INFO of no task, 4 and 5 a chunk's
 * first record 20 and READER_REORDER behind one of the chunk before (the
 * window would give the one before first). */
#define SG_CPUS	  5u
#define SG_ROUNDS 40u
/* packed: the even CPUs' chunks packed (format 1.10), the odd ones' whole */
static void write_segmentable(int bad, bool packed)
{
	static struct iot_rec recs[SG_CPUS][SG_ROUNDS * 60];
	struct iot_file_header h;
	struct trace_writer w;
	uint64_t seed = 11, seq[SG_CPUS] = {0}, tie = 0;

	header(&h, SG_CPUS);
	if (packed)
		h.version_minor = IOT_VERSION_MINOR;
	assert_int_equal(trace_writer_open(&w, path, &h), 0);
	for (uint32_t k = 0; k < SG_ROUNDS; k++) {
		for (uint32_t c = 0; c < SG_CPUS; c++) {
			struct iot_rec *a = recs[c] + seq[c];
			uint32_t cnt = c == 3 && k % 3 ? 0 : 30 + c * 5;
			uint64_t ts = 1000 * k;

			for (uint32_t i = 0; i < cnt; i++) {
				seed = seed * 6364136223846793005ull +
				       1442695040888963407ull;
				ts += (seed >> 62) * 10;
				a[i] = mkrec(i % 7 ? IOT_EV_BIO_QUEUE : IOT_EV_SUMMARY,
					     ts, c * 100000 + seq[c] + i, 0, 0, 8);
				/* 3 lost before a chunk, 2 inside one */
				a[i].seq = seq[c] + i + (k == 7 && c == 1 ? 3 : 0) +
					   (k == 12 && c == 0 && i >= 10 ? 2 : 0);
				a[i].cpu = c;
			}
			for (uint32_t i = 0; i + 3 < cnt; i += 9) { /* neighbours */
				uint64_t t = a[i].ts_ns;

				a[i].ts_ns = a[i + 3].ts_ns;
				a[i + 3].ts_ns = t;
			}
			if (cnt && k && c == 0) /* behind the last of the chunk before */
				a[0].ts_ns = a[-1].ts_ns - 1;
			if (bad == 1 && k == 20 && c == 2)
				a[25].ts_ns = a[4].ts_ns - 1;
			if (bad == 2 && k == 21 && c == 3)
				a[0].ts_ns = 19500; /* the limit is 20000 */
			if (bad == 3 && k == 20 && c == 0) {
				a[3].type = IOT_EV_BIO_INFO;
				a[3].tid = UINT32_MAX;
			}
			if ((k == 20 && (c == 0 || c == 2 || c == 4)) ||
			    (k == 26 && (c == 0 || c == 4))) {
				a[5].type = IOT_EV_DEGRADE;
				a[5].flags = k == 20 ? IOT_DEGRADE_BEGIN : 0;
				a[5].id2 = 1000 + c;
			}
			if (k == 20 && c == 2)
				tie = a[5].ts_ns;
			if (k == 20 && c == 4)
				a[5].ts_ns = tie;
			if (bad == 4 && k == 20 && c == 0)
				a[0].ts_ns = a[-20].ts_ns - 1;
			if (bad == 5 && k == 20 && c == 0)
				a[0].ts_ns = a[-READER_REORDER].ts_ns - 1;
			if (cnt && packed && c % 2 == 0)
				assert_int_equal(
				    trace_writer_packed(&w, c, a, cnt, NULL, 0), 0);
			else if (cnt)
				trace_writer_chunk(&w, IOT_CHUNK_EVENTS, c, a, cnt * 64,
						   NULL, 0);
			seq[c] += cnt;
		}
		round_mark(&w, 1000 * (k + 1));
	}
	end(&w);
	trace_writer_close(&w);
}

/* Each segment that reads a packed chunk after its first one has the
 * chunk's state where it begins: every record before is before its
 * stretch, the first of its stretch at most two parts on, and the state
 * unpacks the record there */
static void check_states(const struct trace_reader *r, const struct reader_plan *pl)
{
	size_t kept = 0;

	for (size_t s = 0; s < pl->nr_segs; s++)
		for (size_t i = pl->seg_first[s]; i < pl->seg_first[s + 1]; i++) {
			size_t k = pl->seg_chunks[i];
			const struct reader_chunk *ch = &r->chunks[k];
			const struct reader_cps *cps = &pl->cps[k];
			uint64_t n = ch->size / IOT_REC_SIZE, first = n;
			struct iot_rec *recs, one;
			const struct reader_cp *cp;
			size_t used;

			uint64_t least = UINT64_MAX;

			if (!ch->packed_bytes)
				continue;
			recs = trace_reader_unpack(r, ch);
			assert_non_null(recs);
			for (uint64_t j = 0; j < n; j++)
				if (recs[j].ts_ns < least)
					least = recs[j].ts_ns;
			if (least >= pl->cuts[s]) { /* the chunk's first segment */
				free(recs);
				continue;
			}
			assert_true(s - cps->seg0 < cps->n);
			cp = &cps->v[s - cps->seg0];
			for (uint64_t j = 0; j < cp->idx; j++)
				assert_true(recs[j].ts_ns < pl->cuts[s]);
			for (uint64_t j = 0; j < n && first == n; j++)
				if (recs[j].ts_ns >= pl->cuts[s])
					first = j;
			assert_true(cp->idx <= first);
			assert_true(first - cp->idx < 2 * READER_STAGE + READER_REORDER);
			if (cp->idx < n) {
				struct iot_unpacker u = cp->u;

				assert_int_equal(
				    iot_unpack_more(
					&u,
					r->map + ch->offset + sizeof(struct iot_packed) +
					    cp->off,
					ch->packed_bytes - cp->off, &one, 1, &used),
				    1);
				assert_memory_equal(&one, &recs[cp->idx], sizeof(one));
			}
			kept += cp->idx > 0;
			free(recs);
		}
	assert_true(kept > 0);
}

static void segments_same(void **state)
{
	static struct iot_rec serial[SG_CPUS * SG_ROUNDS * 60];
	struct trace_reader r;
	struct reader_plan pl;
	const struct iot_rec *rec;
	uint64_t n, m, gaps, summaries, seg_recs[] = {1, 100, 700};
	char err[256];

	for (int packed = 0; packed <= 1; packed++) {
		write_segmentable(0, packed);
		assert_int_equal(trace_reader_open(&r, path, err, sizeof(err)), 0);
		n = 0;
		while (trace_reader_next(&r, &rec) == 1)
			serial[n++] = *rec;
		gaps = r.nr_gaps;
		summaries = r.nr_summaries;
		assert_int_equal(gaps, 5);
		/* and where: by the record after each gap */
		assert_int_equal(r.gaps.s[1].skipped.n, 1);
		assert_int_equal(r.gaps.s[1].skipped.g[0].lost, 3);
		assert_int_equal(r.gaps.s[1].skipped.g[0].seq, 7 * 35 + 3);
		assert_int_equal(r.gaps.s[0].skipped.n, 1);
		assert_int_equal(r.gaps.s[0].skipped.g[0].lost, 2);
		assert_int_equal(r.gaps.s[0].skipped.g[0].seq, 12 * 30 + 10 + 2);
		assert_int_equal(trace_gaps_between(&r.gaps, 0, 12 * 30, 12 * 30 + 12),
				 2);
		assert_int_equal(trace_gaps_between(&r.gaps, 0, 12 * 30 + 12, 13 * 30),
				 0);
		/* by begin, then CPU: 2 and 4 at the same time; 2's still open */
		assert_int_equal(r.nr_degrades, 3);
		assert_int_equal(r.degrades[1].cpu, 2);
		assert_int_equal(r.degrades[2].cpu, 4);
		assert_int_equal(r.degrades[1].from_ns, r.degrades[2].from_ns);
		assert_int_equal(r.degrades[0].cpu, 0);
		assert_int_equal(r.degrades[0].skipped, 1000);
		assert_true(r.degrades[0].to_ns > r.degrades[0].from_ns);
		assert_int_equal(r.degrades[1].to_ns, 0);
		/* each segment read and done in turn; then every cursor open
		 * at once, read in order, done after (a packed chunk that
		 * several segments read is unpacked by each from where its
		 * stretch begins) */
		for (unsigned int t = 0; t < 6; t++) {
			unsigned int s = t % 3;
			bool at_once = t >= 3;
			struct trace_reader *curs;

			assert_int_equal(trace_reader_plan(&r, seg_recs[s], 3, &pl), 1);
			assert_true(pl.nr_segs > 1);
			if (packed)
				check_states(&r, &pl);
			curs = calloc(pl.nr_segs, sizeof(*curs));
			assert_non_null(curs);
			m = 0;
			for (size_t k = 0; at_once && k < pl.nr_segs; k++)
				assert_int_equal(
				    trace_reader_segment(&r, &pl, k, &curs[k]), 0);
			for (size_t k = 0; k < pl.nr_segs; k++) {
				if (!at_once)
					assert_int_equal(
					    trace_reader_segment(&r, &pl, k, &curs[k]),
					    0);
				while (trace_reader_next(&curs[k], &rec) == 1) {
					assert_true(m < n);
					/* the same record, in the same place */
					assert_memory_equal(rec, &serial[m],
							    sizeof(*rec));
					m++;
				}
				if (!at_once)
					trace_reader_segment_done(&r, &pl, k, &curs[k]);
			}
			for (size_t k = 0; at_once && k < pl.nr_segs; k++)
				trace_reader_segment_done(&r, &pl, k, &curs[k]);
			free(curs);
			assert_int_equal(m, n);
			assert_int_equal(pl.gaps, gaps);
			assert_int_equal(pl.summaries, summaries);
			assert_int_equal(pl.nr_degrades, r.nr_degrades);
			assert_memory_equal(pl.degrades, r.degrades,
					    r.nr_degrades * sizeof(*r.degrades));
			/* the plan's gaps are the merge's */
			for (uint32_t c = 0; c < r.nr_streams; c++) {
				const struct trace_gap_list *a = &pl.gap_at.s[c].skipped,
							    *b = &r.gaps.s[c].skipped;

				assert_int_equal(a->n, b->n);
				if (b->n)
					assert_memory_equal(a->g, b->g,
							    b->n * sizeof(*b->g));
			}
			reader_plan_release(&pl);
		}
		trace_reader_release(&r);
		for (int bad = 1; bad <= 5; bad++) { /* each read by the merge alone */
			write_segmentable(bad, packed);
			assert_int_equal(trace_reader_open(&r, path, err, sizeof(err)),
					 0);
			assert_int_equal(trace_reader_plan(&r, 100, 2, &pl), 0);
			trace_reader_release(&r);
		}
	}
}

/* An interrupt between reservation and timestamp: slot 1 holds an older
 * time than slot 0 would suggest; a skipped sequence number is a gap. */
static void inversion_and_gap(void **state)
{
	struct iot_file_header h;
	struct trace_writer w;
	struct trace_reader r;
	const struct iot_rec *rec;
	struct iot_rec a[4];
	char err[256];
	uint64_t want[] = {10, 20, 30, 50};
	int n = 0;

	header(&h, 1);
	a[0] = mkrec(IOT_EV_BIO_QUEUE, 20, 1, 0, 0, 8);
	a[1] = mkrec(IOT_EV_BIO_QUEUE, 10, 2, 0, 0, 8); /* nested, earlier */
	a[2] = mkrec(IOT_EV_BIO_QUEUE, 30, 3, 0, 0, 8);
	a[3] = mkrec(IOT_EV_BIO_QUEUE, 50, 4, 0, 0, 8);
	a[0].seq = 0, a[1].seq = 1, a[2].seq = 2, a[3].seq = 5; /* 3, 4 lost */
	assert_int_equal(trace_writer_open(&w, path, &h), 0);
	trace_writer_chunk(&w, IOT_CHUNK_EVENTS, 0, a, sizeof(a), NULL, 0);
	round_mark(&w, 100);
	end(&w);
	trace_writer_close(&w);
	assert_int_equal(trace_reader_open(&r, path, err, sizeof(err)), 0);
	while (trace_reader_next(&r, &rec) == 1)
		assert_int_equal(rec->ts_ns, want[n++]);
	assert_int_equal(n, 4);
	assert_int_equal(r.nr_gaps, 2);
	trace_reader_release(&r);
}

/* User markers: a MARKS chunk is one more stream, merged by time with the
 * CPUs' records across rounds; a malformed one stops the reading there
 * with a warning. */
static void markers_stream(void **state)
{
	struct iot_file_header h;
	struct trace_writer w;
	struct trace_reader r;
	const struct iot_rec *rec;
	struct iot_rec c0[3], mk[3];
	char err[256];
	const uint64_t want[] = {10, 15, 20, 25, 30, 35};
	int n = 0;

	header(&h, 1);
	for (int i = 0; i < 3; i++) {
		c0[i] = mkrec(IOT_EV_BIO_QUEUE, 10 + 10 * i, 1 + i, 0, 0, 8);
		c0[i].seq = i;
		mk[i] = mkrec(IOT_EV_MARK, 15 + 10 * i, i, 0, 0, 0);
		mk[i].seq = i;
		mk[i].cpu = 0xffff;
	}
	assert_int_equal(trace_writer_open(&w, path, &h), 0);
	trace_writer_chunk(&w, IOT_CHUNK_EVENTS, 0, c0, 2 * 64, NULL, 0);
	trace_writer_chunk(&w, IOT_CHUNK_MARKS, 0, mk, 1 * 64, NULL, 0);
	round_mark(&w, 22);
	trace_writer_chunk(&w, IOT_CHUNK_EVENTS, 0, c0 + 2, 64, NULL, 0);
	trace_writer_chunk(&w, IOT_CHUNK_MARKS, 0, mk + 1, 2 * 64, NULL, 0);
	round_mark(&w, 100);
	end(&w);
	trace_writer_close(&w);
	assert_int_equal(trace_reader_open(&r, path, err, sizeof(err)), 0);
	while (trace_reader_next(&r, &rec) == 1) {
		assert_true(n < 6);
		assert_int_equal(rec->ts_ns, want[n]);
		assert_int_equal(rec->type, n % 2 ? IOT_EV_MARK : IOT_EV_BIO_QUEUE);
		n++;
	}
	assert_int_equal(n, 6);
	assert_int_equal(r.nr_gaps, 0);
	assert_int_equal(r.warning[0], 0);
	trace_reader_release(&r);

	/* a markers chunk that is not whole records */
	assert_int_equal(trace_writer_open(&w, path, &h), 0);
	trace_writer_chunk(&w, IOT_CHUNK_EVENTS, 0, c0, 64, NULL, 0);
	trace_writer_chunk(&w, IOT_CHUNK_MARKS, 0, mk, 40, NULL, 0);
	end(&w);
	trace_writer_close(&w);
	assert_int_equal(trace_reader_open(&r, path, err, sizeof(err)), 0);
	assert_non_null(strstr(r.warning, "malformed markers chunk"));
	n = 0;
	while (trace_reader_next(&r, &rec) == 1)
		n++;
	assert_int_equal(n, 1);
	trace_reader_release(&r);
}

/* A speculative trace: records committed at completion carry older stamps
 * than records already written, across rounds and CPUs; the reader sorts. */
static void speculative_sorted(void **state)
{
	struct iot_spec_info si = {.threshold_ns = 50, .nspec = 4, .specsize = 1024};
	struct iot_file_header h;
	struct trace_writer w;
	struct trace_reader r;
	const struct iot_rec *rec;
	struct iot_rec c0[4], c1[2];
	char err[256];
	uint64_t want[] = {5, 10, 20, 25, 30, 100};
	int n = 0;

	header(&h, 2);
	c0[0] = mkrec(IOT_EV_BIO_QUEUE, 20, 1, 0, 0, 8);
	c0[1] = mkrec(IOT_EV_RQ_COMPLETE, 100, 1, 0, 0, 8);
	c0[2] = mkrec(IOT_EV_BIO_QUEUE, 10, 2, 0, 0, 8); /* committed later */
	c0[3] = mkrec(IOT_EV_RQ_COMPLETE, 30, 2, 0, 0, 8);
	c1[0] = mkrec(IOT_EV_BIO_QUEUE, 5, 3, 0, 0, 8);
	c1[1] = mkrec(IOT_EV_RQ_COMPLETE, 25, 3, 0, 0, 8);
	for (int i = 0; i < 4; i++)
		c0[i].seq = i;
	c1[0].seq = 0, c1[1].seq = 2; /* 1 lost */
	assert_int_equal(trace_writer_open(&w, path, &h), 0);
	trace_writer_chunk(&w, IOT_CHUNK_EVENTS, 0, c0, 2 * 64, NULL, 0);
	round_mark(&w, 200);
	trace_writer_chunk(&w, IOT_CHUNK_EVENTS, 0, c0 + 2, 2 * 64, NULL, 0);
	trace_writer_chunk(&w, IOT_CHUNK_EVENTS, 1, c1, 2 * 64, NULL, 0);
	round_mark(&w, 300);
	trace_writer_chunk(&w, IOT_CHUNK_SPEC, 0, &si, sizeof(si), NULL, 0);
	end(&w);
	trace_writer_close(&w);
	assert_int_equal(trace_reader_open(&r, path, err, sizeof(err)), 0);
	assert_true(r.has_spec);
	assert_int_equal(r.spec.threshold_ns, 50);
	for (int pass = 0; pass < 2; pass++) {
		n = 0;
		while (trace_reader_next(&r, &rec) == 1) {
			assert_true(n < 6);
			assert_int_equal(rec->ts_ns, want[n++]);
		}
		assert_int_equal(n, 6);
		assert_int_equal(r.nr_gaps, 1);
		trace_reader_rewind(&r);
	}
	trace_reader_release(&r);
}

static void truncated(void **state)
{
	struct trace_reader r;
	const struct iot_rec *rec;
	char err[256];
	long size;
	FILE *f;
	int n = 0;

	write_two_cpus();
	/* cut inside the second record of the fifth chunk (cpu 0, 2 records) */
	f = fopen(path, "r+");
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fclose(f);
	/* layout: 64 header, chunks of 16 + payload */
	long cut = 64 + (16 + 192) + (16 + 64) + (16 + 8) + (16 + 192) + 16 + 64 + 30;

	assert_true(cut < size);
	assert_int_equal(truncate(path, cut), 0);
	assert_int_equal(trace_reader_open(&r, path, err, sizeof(err)), 0);
	assert_non_null(strstr(r.warning, "offset 584")); /* the 5th chunk */
	assert_non_null(strstr(r.warning, "cut short"));
	assert_int_equal(r.nr_records, 8); /* 3 + 1 + 3 + 1 whole ones */
	assert_false(r.has_end);
	while (trace_reader_next(&r, &rec) == 1)
		n++;
	assert_int_equal(n, 8);
	trace_reader_release(&r);
}

/* n records of cpu from *seq on, their times after every earlier chunk's */
static void fill_chunk(struct iot_rec *r, size_t n, uint32_t cpu, uint64_t *seq)
{
	for (size_t i = 0; i < n; i++) {
		r[i] = mkrec(IOT_EV_BIO_QUEUE, 1000 + *seq * 2 + cpu, *seq, 0, 0, 8);
		r[i].cpu = cpu;
		r[i].seq = (*seq)++;
	}
}

/* The file size limit refuses writes past it, as a full file system
 * does: EFBIG instead of SIGXFSZ. */
static void limit_file_size(struct rlimit *old, rlim_t bytes)
{
	struct rlimit lim;

	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, old), 0);
	lim = *old;
	lim.rlim_cur = bytes;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
}

/* What the failed writer left reads back whole: n records, gapless, and
 * the END written after the cut. */
static void reads_back(uint64_t n)
{
	struct trace_reader r;
	const struct iot_rec *rec;
	char err[256];
	uint64_t got = 0;

	assert_int_equal(trace_reader_open(&r, path, err, sizeof(err)), 0);
	assert_string_equal(r.warning, "");
	assert_true(r.has_end);
	assert_int_equal(r.nr_records, n);
	while (trace_reader_next(&r, &rec) == 1)
		got++;
	assert_int_equal(got, n);
	assert_int_equal(r.nr_gaps, 0);
	trace_reader_release(&r);
}

/* A flush of the stdio buffer fails part way: the file is cut back to its
 * last whole chunk, the records of the chunks taken and cut off are
 * counted lost, the failing call's not among them (its caller keeps
 * them), no event chunk is taken after, and an END still goes in. */
static void write_fails_buffered(void **state)
{
	static struct iot_rec recs[100];
	const uint64_t chunk = 16 + sizeof(recs);
	uint64_t taken = 0, seq[2] = {0};
	struct iot_file_header h;
	struct trace_writer w;
	struct rlimit old;
	struct stat st;
	int err = 0, calls = 0;

	header(&h, 2);
	assert_int_equal(trace_writer_open(&w, path, &h), 0);
	/* the writer flushes at 512 KB (82 chunks: passes) and at 1 MB (164:
	 * cut by the limit inside chunk 101) */
	limit_file_size(&old, 64 + 100 * chunk + 3000);
	while (!err && calls < 1000) {
		uint32_t cpu = calls++ % 2;
		uint64_t s = seq[cpu];

		fill_chunk(recs, 100, cpu, &seq[cpu]);
		err = trace_writer_chunk(&w, IOT_CHUNK_EVENTS, cpu, recs, sizeof(recs),
					 NULL, 0);
		if (err)
			seq[cpu] = s;
		else
			taken += 100;
	}
	assert_int_equal(err, -EFBIG);
	assert_int_equal(calls, 164);
	assert_int_equal(taken, 163 * 100);
	assert_int_equal(w.offset, 64 + 100 * chunk);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 64 + 100 * chunk);
	/* chunks 101 to 163 were taken and lost: 32 of CPU 0, 31 of CPU 1 */
	assert_int_equal(trace_writer_lost(&w, 0), 32 * 100);
	assert_int_equal(trace_writer_lost(&w, 1), 31 * 100);
	assert_int_equal(trace_writer_lost(&w, 2), 0);
	/* no hole in a CPU's stream: no event chunk after the failure */
	fill_chunk(recs, 1, 0, &seq[0]);
	assert_int_equal(trace_writer_chunk(&w, IOT_CHUNK_EVENTS, 0, recs, 64, NULL, 0),
			 -EFBIG);
	end(&w);
	assert_int_equal(trace_writer_close(&w), 0);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	reads_back(100 * 100);
}

/* A chunk written straight from the caller (64 KB and more) cut by the
 * limit: the file ends at the chunk before, nothing counted lost. */
static void write_fails_direct(void **state)
{
	static struct iot_rec recs[2048];
	const uint64_t chunk = 16 + sizeof(recs);
	uint64_t seq = 0;
	struct iot_file_header h;
	struct trace_writer w;
	struct rlimit old;
	struct stat st;

	header(&h, 1);
	assert_int_equal(trace_writer_open(&w, path, &h), 0);
	limit_file_size(&old, 64 + 3 * chunk + 1000);
	for (int i = 0; i < 3; i++) {
		fill_chunk(recs, 2048, 0, &seq);
		assert_int_equal(trace_writer_chunk(&w, IOT_CHUNK_EVENTS, 0, recs,
						    sizeof(recs), NULL, 0),
				 0);
	}
	fill_chunk(recs, 2048, 0, &seq);
	assert_int_equal(
	    trace_writer_chunk(&w, IOT_CHUNK_EVENTS, 0, recs, sizeof(recs), NULL, 0),
	    -EFBIG);
	assert_int_equal(w.offset, 64 + 3 * chunk);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 64 + 3 * chunk);
	assert_int_equal(trace_writer_lost(&w, 0), 0);
	end(&w);
	assert_int_equal(trace_writer_close(&w), 0);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	reads_back(3 * 2048);
}

/* Blocks allocated ahead, given back at the close: the file then holds no
 * more blocks than its bytes need. */
static void reserve_ahead(void **state)
{
	struct iot_rec rec;
	struct iot_file_header h;
	struct trace_writer w;
	struct stat st;
	uint64_t seq = 0;

	header(&h, 1);
	assert_int_equal(trace_writer_open(&w, path, &h), 0);
	assert_int_equal(trace_writer_reserve(&w, 8 << 20), 0);
	if (!w.no_reserve) { /* /tmp allocates ahead (tmpfs, ext4, xfs) */
		assert_int_equal(fstat(fileno(w.f), &st), 0);
		assert_true(st.st_blocks * 512 >= 8 << 20);
		assert_int_equal(st.st_size, 0); /* the header is still buffered */
	}
	fill_chunk(&rec, 1, 0, &seq);
	assert_int_equal(trace_writer_chunk(&w, IOT_CHUNK_EVENTS, 0, &rec, 64, NULL, 0),
			 0);
	end(&w);
	assert_int_equal(trace_writer_close(&w), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 64 + 16 + 64 + 16 + sizeof(struct iot_end));
	assert_true(st.st_blocks * 512 <= 64 << 10);
	reads_back(1);
}

/* write_two_cpus' records, packed: chunk for chunk, the wrapped one in two
 * parts. Returns the file offset of each EVENTS_PACKED chunk's header. */
static void write_two_cpus_packed_empty(long off[6], bool empty)
{
	struct iot_file_header h;
	struct trace_writer w;
	struct iot_rec c0[6], c1[6];
	int k = 0;

	header(&h, 2);
	h.version_minor = IOT_VERSION_MINOR;
	assert_int_equal(trace_writer_open(&w, path, &h), 0);
	for (int i = 0; i < 6; i++) {
		c0[i] = mkrec(IOT_EV_BIO_QUEUE, 100 + 20 * i, i, 0, i, 8);
		c0[i].seq = i;
		c0[i].cpu = 0;
		c1[i] = mkrec(IOT_EV_RQ_COMPLETE, 110 + 20 * i, i, 0, i, 8);
		c1[i].seq = i;
		c1[i].cpu = 1;
	}
#define PACKED(cpu, a, n, b, m)                                                          \
	do {                                                                             \
		off[k++] = (long)w.offset;                                               \
		assert_int_equal(trace_writer_packed(&w, cpu, a, n, b, m), 0);           \
	} while (0)
	PACKED(0, c0, 3, NULL, 0);
	PACKED(1, c1, 1, NULL, 0);
	if (empty) /* a chunk of no records: its header alone */
		assert_int_equal(trace_writer_packed(&w, 1, c1, 0, NULL, 0), 0);
	round_mark(&w, 150);
	PACKED(1, c1 + 1, 1, c1 + 2, 2); /* a wrapped span: one run */
	PACKED(0, c0 + 3, 2, NULL, 0);
	round_mark(&w, 210);
	PACKED(0, c0 + 5, 1, NULL, 0);
	PACKED(1, c1 + 4, 2, NULL, 0);
#undef PACKED
	if (empty)
		assert_int_equal(trace_writer_packed(&w, 0, c0, 0, NULL, 0), 0);
	round_mark(&w, 300);
	end(&w);
	assert_int_equal(trace_writer_close(&w), 0);
}

static void write_two_cpus_packed(long off[6])
{
	write_two_cpus_packed_empty(off, false);
}

/* every record of the file, in the reader's order */
static int read_all(struct iot_rec *out, int max, char *warning, size_t wlen)
{
	struct trace_reader r;
	const struct iot_rec *rec;
	char err[256];
	int n = 0;

	assert_int_equal(trace_reader_open(&r, path, err, sizeof(err)), 0);
	while (trace_reader_next(&r, &rec) == 1 && n < max)
		out[n++] = *rec;
	snprintf(warning, wlen, "%s", r.warning);
	assert_int_equal(r.nr_records, n);
	trace_reader_release(&r);
	return n;
}

/* Packed chunks read back as the same records, in the same order, as the
 * whole ones; the chunks after them stay 8-byte aligned. */
static void packed_round_trip(void **state)
{
	struct iot_rec plain[16], packed[16];
	char warn[512];
	long off[6];
	int n;

	write_two_cpus();
	n = read_all(plain, 16, warn, sizeof(warn));
	assert_int_equal(n, 12);
	write_two_cpus_packed(off);
	assert_int_equal(read_all(packed, 16, warn, sizeof(warn)), 12);
	assert_string_equal(warn, "");
	assert_memory_equal(plain, packed, sizeof(plain[0]) * 12);
	for (int i = 0; i < 6; i++)
		assert_int_equal(off[i] % 8, 0);
}

/* A packed chunk of no records (`iotrail pack` of an empty EVENTS chunk)
 * is well formed: opened checked, checked on threads or unchecked, the
 * trace gives the same records, and says nothing. Its payload is no bytes
 * at all: a check on threads once read a byte past it (the next chunk's
 * type), called the chunk damaged, and the unchecked open gave up with no
 * message. */
static void packed_empty_chunk(void **state)
{
	struct iot_rec plain[16];
	const struct iot_rec *rec;
	struct trace_reader r;
	char err[256] = "", warn[512];
	long off[6];
	int n;

	(void)state;
	write_two_cpus();
	n = read_all(plain, 16, warn, sizeof(warn));
	write_two_cpus_packed_empty(off, true);
	for (int how = 0; how < 3; how++) {
		int k = 0;

		assert_int_equal(
		    how == 0 ? trace_reader_open(&r, path, err, sizeof(err))
		    : how == 1
			? trace_reader_open_threads(&r, path, 4, err, sizeof(err))
			: trace_reader_open_unchecked(&r, path, 4, err, sizeof(err)),
		    0);
		assert_string_equal(err, "");
		assert_string_equal(r.warning, "");
		assert_int_equal(r.nr_records, n);
		while (trace_reader_next(&r, &rec) == 1 && k < n)
			assert_memory_equal(rec, &plain[k++], sizeof(*rec));
		assert_int_equal(k, n);
		trace_reader_release(&r);
	}
}

/* A packed chunk cut short gives its whole records; one damaged inside
 * gives those before the damage, and the warning says where it is. */
static void packed_damage(void **state)
{
	struct iot_rec recs[16];
	char warn[512], want[64];
	struct iot_packed ph;
	long off[6];
	FILE *f;

	/* cut inside the third chunk (cpu 1, 3 records): the first two only */
	write_two_cpus_packed(off);
	assert_int_equal(truncate(path, off[2] + 16 + 8 + 2), 0);
	assert_int_equal(read_all(recs, 16, warn, sizeof(warn)), 4);
	snprintf(want, sizeof(want), "offset %ld: chunk of", off[2]);
	assert_non_null(strstr(warn, want));
	assert_non_null(strstr(warn, "cut short"));
	/* and how far it read: none of that chunk's records is whole */
	snprintf(want, sizeof(want), "read up to offset %ld", off[2] + 16);
	assert_non_null(strstr(warn, want));

	/* the second record of the fourth chunk (cpu 0) with a mask bit no
	 * field has: the records before it, and where */
	write_two_cpus_packed(off);
	{
		uint8_t buf[64];
		size_t used;
		struct iot_rec one[1];

		f = fopen(path, "r+");
		fseek(f, off[3] + 16 + 8, SEEK_SET);
		assert_int_equal(fread(buf, 1, sizeof(buf), f), sizeof(buf));
		/* where its first record ends */
		assert_int_equal(iot_unpack_some(buf, sizeof(buf), one, 1, &used), 1);
		fseek(f, off[3] + 16 + 8 + (long)used, SEEK_SET);
		fputc(0xff, f);
		fputc(0xff, f);
		fclose(f);
		assert_int_equal(read_all(recs, 16, warn, sizeof(warn)), 3 + 1 + 3 + 1);
		snprintf(want, sizeof(want), "damaged at offset %ld (record 1 of 2)",
			 off[3] + 16 + 8 + (long)used);
		assert_non_null(strstr(warn, want));
	}

	/* a count no chunk of that size can hold: named, not allocated */
	write_two_cpus_packed(off);
	f = fopen(path, "r+");
	fseek(f, off[0] + 16, SEEK_SET);
	ph.nr_recs = 1ull << 60;
	fwrite(&ph, sizeof(ph), 1, f);
	fclose(f);
	assert_int_equal(read_all(recs, 16, warn, sizeof(warn)), 0);
	snprintf(want, sizeof(want), "offset %ld: malformed packed events chunk", off[0]);
	assert_non_null(strstr(warn, want));
}

/* rounds of a chunk of per_chunk packed records for each of two CPUs, in
 * path: record x of CPU c has the time 1000 + 2x + c */
#define PACKED_CHUNK  8192
#define PACKED_ROUNDS 24
/* CPUs of write_many_packed's trace: 2, whose chunks the merge unpacks
 * whole, or 4, whose records it unpacks as it reaches each
 * (READER_LAZY_STREAMS) */
static uint32_t many_cpus = 2;

static void write_many_packed(void)
{
	static struct iot_rec c[PACKED_CHUNK];
	struct iot_file_header h;
	struct trace_writer w;

	header(&h, many_cpus);
	h.version_minor = IOT_VERSION_MINOR;
	assert_int_equal(trace_writer_open(&w, path, &h), 0);
	for (uint64_t k = 0; k < PACKED_ROUNDS; k++) {
		for (uint32_t cpu = 0; cpu < many_cpus; cpu++) {
			for (uint64_t i = 0; i < PACKED_CHUNK; i++) {
				uint64_t x = k * PACKED_CHUNK + i;

				c[i] = mkrec(IOT_EV_BIO_QUEUE, 1000 + many_cpus * x + cpu,
					     x, 0, x * 8, 8);
				c[i].seq = x;
				c[i].cpu = (uint16_t)cpu;
			}
			assert_int_equal(
			    trace_writer_packed(&w, cpu, c, PACKED_CHUNK, NULL, 0), 0);
		}
		round_mark(&w, 1000 + many_cpus * (k + 1) * PACKED_CHUNK);
	}
	end(&w);
	assert_int_equal(trace_writer_close(&w), 0);
}

/* Many packed chunks: each is unpacked as the merge reaches it and freed
 * behind it; every record comes back, in order, and again after a rewind. */
static void packed_many_chunks(void **state)
{
	const uint64_t per_chunk = PACKED_CHUNK, rounds = PACKED_ROUNDS;

	for (many_cpus = 2; many_cpus <= 4; many_cpus += 2) {
		struct trace_reader r;
		const struct iot_rec *rec;
		char err[256];
		uint64_t n = 0, last = 0, most_live = 0;
		const uint64_t cpus = many_cpus;

		write_many_packed();

		assert_int_equal(trace_reader_open(&r, path, err, sizeof(err)), 0);
		assert_string_equal(r.warning, "");
		assert_int_equal(r.nr_records, cpus * rounds * per_chunk);
		for (int pass = 0; pass < 2; pass++) {
			n = last = 0;
			while (trace_reader_next(&r, &rec) == 1) {
				assert_int_equal(rec->ts_ns,
						 1000 + n); /* every one, in order */
				assert_int_equal(rec->cpu, n % cpus);
				assert_int_equal(rec->id, n / cpus);
				n++;
				if (r.nr_live > most_live)
					most_live = r.nr_live;
			}
			assert_int_equal(n, cpus * rounds * per_chunk);
			assert_int_equal(r.nr_gaps, 0);
			trace_reader_rewind(&r);
		}
		/* a round or two of chunks at a time, not the file; with 4 CPUs
		 * none whole, and at most a window and a batch of each stream's
		 * records held */
		if (cpus == 2)
			assert_true(most_live > 0 && most_live <= 8);
		else
			assert_true(most_live == 0 && r.cpus[3].pool);
		trace_reader_release(&r);
	}
	many_cpus = 2;
}

/* Several threads writing one CPU's chunks each at once, as the recorder's
 * drain threads do (packed for even CPUs, whole for odd ones), a ROUND
 * after each round: every chunk whole, every record read back in order. */
#define THR_CPUS  4
#define THR_RUN	  200 /* small chunks: through the writer's buffer */
#define THR_ROUND 300
struct thr_writer {
	struct trace_writer *w;
	pthread_barrier_t *go, *done;
	uint32_t cpu;
	struct trace_pack_room room;
	struct iot_rec c[THR_RUN];
	int err;
};

static void *thr_write(void *arg)
{
	struct thr_writer *t = arg;

	for (uint64_t k = 0; k < THR_ROUND; k++) {
		pthread_barrier_wait(t->go);
		for (uint64_t i = 0; i < THR_RUN; i++) {
			uint64_t x = k * THR_RUN + i;

			t->c[i] = mkrec(IOT_EV_BIO_QUEUE, 1000 + THR_CPUS * x + t->cpu, x,
					0, x * 8, 8);
			t->c[i].seq = x;
			t->c[i].cpu = (uint16_t)t->cpu;
		}
		/* two chunks a round, so the threads' chunks interleave */
		for (uint64_t h = 0; h < 2 && !t->err; h++)
			t->err =
			    t->cpu % 2
				? trace_writer_chunk(t->w, IOT_CHUNK_EVENTS, t->cpu,
						     t->c + h * THR_RUN / 2,
						     THR_RUN / 2 * IOT_REC_SIZE, NULL, 0)
				: trace_writer_packed_in(t->w, &t->room, t->cpu,
							 t->c + h * THR_RUN / 2,
							 THR_RUN / 2, NULL, 0);
		pthread_barrier_wait(t->done);
	}
	return NULL;
}

static void threads_write_chunks(void **state)
{
	static struct thr_writer t[THR_CPUS];
	pthread_barrier_t go, done;
	pthread_t th[THR_CPUS];
	struct iot_file_header h;
	struct trace_writer w;
	struct trace_reader r;
	const struct iot_rec *rec;
	char err[256];
	uint64_t n = 0, off;
	struct stat st;

	header(&h, THR_CPUS);
	h.version_minor = IOT_VERSION_MINOR;
	assert_int_equal(trace_writer_open(&w, path, &h), 0);
	pthread_barrier_init(&go, NULL, THR_CPUS + 1);
	pthread_barrier_init(&done, NULL, THR_CPUS + 1);
	for (uint32_t i = 0; i < THR_CPUS; i++) {
		t[i] = (struct thr_writer){.w = &w, .go = &go, .done = &done, .cpu = i};
		assert_int_equal(pthread_create(&th[i], NULL, thr_write, &t[i]), 0);
	}
	for (uint64_t k = 0; k < THR_ROUND; k++) {
		pthread_barrier_wait(&go);
		pthread_barrier_wait(&done);
		round_mark(&w, 1000 + THR_CPUS * (k + 1) * THR_RUN);
	}
	for (uint32_t i = 0; i < THR_CPUS; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(t[i].err, 0);
		trace_pack_room_release(&t[i].room);
	}
	pthread_barrier_destroy(&go);
	pthread_barrier_destroy(&done);
	end(&w);
	off = w.offset;
	assert_int_equal(trace_writer_close(&w), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, off); /* every chunk counted */

	assert_int_equal(trace_reader_open(&r, path, err, sizeof(err)), 0);
	assert_string_equal(r.warning, "");
	while (trace_reader_next(&r, &rec) == 1) {
		assert_int_equal(rec->ts_ns, 1000 + n);
		assert_int_equal(rec->cpu, n % THR_CPUS);
		assert_int_equal(rec->sector, n / THR_CPUS * 8);
		n++;
	}
	assert_int_equal(n, (uint64_t)THR_CPUS * THR_ROUND * THR_RUN);
	assert_int_equal(r.nr_gaps, 0);
	trace_reader_release(&r);
}

/* The packed chunks checked on threads after the
 * walk (trace_reader_open_threads): the same index and records as the
 * walk's own check, and, with a chunk damaged there, the same warning and
 * the records before it. */
static uint64_t count_all(struct trace_reader *r)
{
	const struct iot_rec *rec;
	uint64_t n = 0;

	while (trace_reader_next(r, &rec) == 1) {
		assert_int_equal(rec->ts_ns, 1000 + n);
		n++;
	}
	return n;
}

static uint64_t count_loose(struct trace_reader *r)
{
	const struct iot_rec *rec;
	uint64_t n = 0;

	while (trace_reader_next(r, &rec) == 1)
		n++;
	return n;
}

static void packed_checked_on_threads(void **state)
{
	const uint64_t per_chunk = PACKED_CHUNK, rounds = PACKED_ROUNDS;
	struct trace_reader r1, r4;
	char err[256], warn[256];
	uint64_t n1, off, late = 0, nr_packed = 0;
	uint8_t *data;
	FILE *f;
	long size;

	write_many_packed();

	/* whole: the same */
	assert_int_equal(trace_reader_open(&r1, path, err, sizeof(err)), 0);
	assert_int_equal(trace_reader_open_threads(&r4, path, 4, err, sizeof(err)), 0);
	assert_true(r4.nr_deferred > 0);
	assert_int_equal(r1.nr_deferred, 0);
	assert_string_equal(r4.warning, "");
	assert_int_equal(r4.nr_records, r1.nr_records);
	assert_int_equal(r4.nr_chunks, r1.nr_chunks);
	n1 = count_all(&r1);
	assert_int_equal(n1, 2 * rounds * per_chunk);
	assert_int_equal(count_all(&r4), n1);
	trace_reader_release(&r1);
	trace_reader_release(&r4);

	/* a record of a late chunk given a mask bit no field has */
	f = fopen(path, "r+b");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	data = malloc((size_t)size);
	assert_non_null(data);
	fseek(f, 0, SEEK_SET);
	assert_int_equal(fread(data, 1, (size_t)size, f), (size_t)size);
	for (off = sizeof(struct iot_file_header);
	     off + sizeof(struct iot_chunk) <= (uint64_t)size;) {
		struct iot_chunk ch;

		memcpy(&ch, data + off, sizeof(ch));
		if (ch.type == IOT_CHUNK_EVENTS_PACKED && ++nr_packed == 2 * rounds - 5)
			late = off;
		off += sizeof(ch) + ch.size;
	}
	assert_true(late > 0);
	/* the chunk header, nr_recs, then record 0's mask; record 3's is
	 * further: damage the first */
	fseek(f, (long)(late + sizeof(struct iot_chunk) + sizeof(struct iot_packed) + 1),
	      SEEK_SET);
	fputc(0x10, f);
	fclose(f);
	free(data);

	assert_int_equal(trace_reader_open(&r1, path, err, sizeof(err)), 0);
	assert_int_equal(trace_reader_open_threads(&r4, path, 4, err, sizeof(err)), 0);
	snprintf(warn, sizeof(warn), "offset %llu: packed events chunk damaged",
		 (unsigned long long)late);
	assert_non_null(strstr(r1.warning, warn));
	assert_string_equal(r4.warning, r1.warning);
	assert_int_equal(r4.nr_records, r1.nr_records);
	assert_int_equal(r4.nr_chunks, r1.nr_chunks);
	assert_true(r1.nr_records < 2 * rounds * per_chunk);
	n1 = count_all(&r1);
	assert_int_equal(count_all(&r4), n1);
	trace_reader_release(&r1);
	trace_reader_release(&r4);
}

/* The records until the end (0) or an error (< 0, in *err), in order */
static uint64_t count_until(struct trace_reader *r, int *err)
{
	const struct iot_rec *rec;
	uint64_t n = 0;

	while ((*err = trace_reader_next(r, &rec)) == 1) {
		assert_int_equal(rec->ts_ns, 1000 + n);
		n++;
	}
	return n;
}

/* The offset of the k-th packed chunk's header in data (0: none) */
static uint64_t nth_packed(const uint8_t *data, long size, uint64_t k)
{
	uint64_t n = 0;

	for (uint64_t off = sizeof(struct iot_file_header);
	     off + sizeof(struct iot_chunk) <= (uint64_t)size;) {
		struct iot_chunk ch;

		memcpy(&ch, data + off, sizeof(ch));
		if (ch.type == IOT_CHUNK_EVENTS_PACKED && ++n == k)
			return off;
		off += sizeof(ch) + ch.size;
	}
	return 0;
}

static uint8_t *slurp(long *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	*size = ftell(f);
	data = malloc((size_t)*size);
	assert_non_null(data);
	fseek(f, 0, SEEK_SET);
	assert_int_equal(fread(data, 1, (size_t)*size, f), (size_t)*size);
	fclose(f);
	return data;
}

static void poke(uint64_t off, uint8_t byte)
{
	FILE *f = fopen(path, "r+b");

	assert_non_null(f);
	fseek(f, (long)off, SEEK_SET);
	fputc(byte, f);
	fclose(f);
}

/* Opened unchecked (trace_reader_open_unchecked), the packed chunks are
 * indexed as their headers say, none checked:
 * whole, the same index and records as checked; damaged (a field mask, or
 * a padding byte not zero), the open says nothing and the read that
 * reaches the chunk fails, after the records before it. */
static void packed_unchecked(void **state)
{
	const uint64_t per_chunk = PACKED_CHUNK, rounds = PACKED_ROUNDS;

	for (many_cpus = 2; many_cpus <= 4; many_cpus += 2) {
		const uint64_t cpus = many_cpus;
		struct trace_reader r1, ru;
		char err[256];
		uint64_t n1, late = 0, pad = 0;
		uint8_t *data;
		long size;
		int rc;

		write_many_packed();
		assert_int_equal(trace_reader_open(&r1, path, err, sizeof(err)), 0);
		for (unsigned int threads = 1; threads <= 4; threads += 3) {
			size_t unchecked = 0;

			assert_int_equal(trace_reader_open_unchecked(&ru, path, threads,
								     err, sizeof(err)),
					 0);
			assert_true(ru.unchecked);
			assert_int_equal(ru.nr_deferred, 0);
			assert_string_equal(ru.warning, "");
			assert_int_equal(ru.nr_records, r1.nr_records);
			assert_int_equal(ru.nr_chunks, r1.nr_chunks);
			/* every one: the whole payload, padding included */
			for (size_t k = 0; k < ru.nr_chunks; k++)
				if (ru.chunks[k].packed_bytes) {
					struct iot_chunk ch;

					memcpy(&ch,
					       ru.map + ru.chunks[k].offset - sizeof(ch),
					       sizeof(ch));
					assert_int_equal(ru.chunks[k].packed_bytes,
							 ch.size -
							     sizeof(struct iot_packed));
					unchecked++;
				}
			assert_int_equal(unchecked, cpus * rounds);
			assert_int_equal(count_until(&ru, &rc),
					 cpus * rounds * per_chunk);
			assert_int_equal(rc, 0);
			trace_reader_release(&ru);
		}
		trace_reader_release(&r1);

		/* the first late chunk with padding after its records */
		data = slurp(&size);
		for (uint64_t k = cpus * rounds - 8; k < cpus * rounds && !pad; k++) {
			uint64_t off = nth_packed(data, size, k), bytes;
			struct iot_chunk ch;
			size_t used;

			assert_true(off > 0);
			memcpy(&ch, data + off, sizeof(ch));
			bytes = ch.size - sizeof(struct iot_packed);
			assert_int_equal(iot_unpack_some(data + off + sizeof(ch) +
							     sizeof(struct iot_packed),
							 bytes, NULL, per_chunk, &used),
					 per_chunk);
			if (used < bytes)
				pad = off + sizeof(ch) + ch.size - 1;
		}
		late = nth_packed(data, size, cpus * rounds - 5);
		free(data);
		assert_true(pad > 0);

		for (int damage = 0; damage < 2; damage++) {
			write_many_packed();
			if (damage == 0) /* record 0's mask: a bit no field has */
				poke(late + sizeof(struct iot_chunk) +
					 sizeof(struct iot_packed) + 1,
				     0x10);
			else
				poke(pad, 0x01);
			assert_int_equal(trace_reader_open(&r1, path, err, sizeof(err)),
					 0);
			assert_non_null(
			    strstr(r1.warning, "packed events chunk damaged"));
			/* (4 CPUs: the chunks of the others in the damaged
			 * one's round are read, not in one run of times) */
			n1 = cpus == 2 ? count_all(&r1) : count_loose(&r1);
			trace_reader_release(&r1);

			assert_int_equal(
			    trace_reader_open_unchecked(&ru, path, 1, err, sizeof(err)),
			    0);
			assert_string_equal(ru.warning, "");
			assert_int_equal(ru.nr_records, cpus * rounds * per_chunk);
			/* what it read before failing: no more than the checked
			 * reader's, every record of the chunks the merge passed */
			assert_true(count_until(&ru, &rc) <= n1);
			assert_true(rc < 0);
			trace_reader_release(&ru);
		}
	}
	many_cpus = 2;
}

/* trace_reader_next_batch gives trace_reader_next's records, batch by
 * batch, on a trace of inversions, gaps and summaries, and on a packed one
 * (each batch's records still whole at the end
 * of the batch); and its counts. */
static void batches_same(void **state)
{
	static struct iot_rec serial[SG_CPUS * SG_ROUNDS * 60];
	const unsigned int sizes[] = {1, 7, 64};

	for (int t = 0; t < 2; t++) {
		struct trace_reader r;
		const struct iot_rec *rec, *recs[64];
		uint64_t n = 0, gaps, summaries, first = 0;
		char err[256];

		if (t == 0)
			write_segmentable(0, false);
		else
			write_many_packed();
		assert_int_equal(trace_reader_open(&r, path, err, sizeof(err)), 0);
		/* the packed trace: its records by time, checked, not kept */
		while (trace_reader_next(&r, &rec) == 1) {
			if (t == 0)
				serial[n] = *rec;
			else
				assert_int_equal(rec->ts_ns, 1000 + n);
			n++;
		}
		gaps = r.nr_gaps;
		summaries = r.nr_summaries;
		trace_reader_release(&r);
		for (unsigned int s = 0; s < 3; s++) {
			uint64_t m = 0;
			int got;

			assert_int_equal(trace_reader_open(&r, path, err, sizeof(err)),
					 0);
			while ((got = trace_reader_next_batch(&r, recs, sizes[s])) > 0) {
				assert_true((unsigned int)got <= sizes[s]);
				first += got > 1;
				for (int k = 0; k < got; k++, m++) {
					assert_true(m < n);
					if (t == 0)
						assert_memory_equal(recs[k], &serial[m],
								    sizeof(*recs[k]));
					else
						assert_int_equal(recs[k]->ts_ns,
								 1000 + m);
				}
			}
			assert_int_equal(got, 0);
			assert_int_equal(m, n);
			assert_int_equal(r.nr_gaps, gaps);
			assert_int_equal(r.nr_summaries, summaries);
			trace_reader_release(&r);
		}
		assert_true(first > 0); /* batches of more than one */
	}
}

static void not_a_trace(void **state)
{
	struct trace_reader r;
	char err[256];
	FILE *f = fopen(path, "w");

	fputs("this is not a trace, but it is long enough to hold a header.......\n", f);
	fclose(f);
	assert_int_equal(trace_reader_open(&r, path, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not an iotrail trace"));
	assert_non_null(strstr(err, path));

	f = fopen(path, "w");
	fputs("short", f);
	fclose(f);
	assert_int_equal(trace_reader_open(&r, path, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "shorter than"));

	assert_int_equal(trace_reader_open(&r, "/nonexistent/x.iot", err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "No such file"));
}

static void newer_major_refused(void **state)
{
	struct iot_file_header h;
	struct trace_writer w;
	struct trace_reader r;
	char err[256];

	header(&h, 1);
	h.version_major = IOT_VERSION_MAJOR + 1;
	assert_int_equal(trace_writer_open(&w, path, &h), 0);
	trace_writer_close(&w);
	assert_int_equal(trace_reader_open(&r, path, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "format version 2.0"));
}

static void unknown_chunk_skipped_and_meta(void **state)
{
	struct iot_file_header h;
	struct trace_writer w;
	struct trace_reader r;
	const struct iot_rec *rec;
	struct iot_rec a = mkrec(IOT_EV_BIO_QUEUE, 5, 1, 0, 0, 8);
	const char meta[] = "mode=events\nkernel=Linux 6.x\n";
	char err[256], v[64];
	int n = 0;

	header(&h, 1);
	assert_int_equal(trace_writer_open(&w, path, &h), 0);
	trace_writer_chunk(&w, IOT_CHUNK_META, 0, meta, sizeof(meta) - 1, NULL, 0);
	trace_writer_chunk(&w, 999, 0, "future", 6, NULL, 0);
	trace_writer_chunk(&w, IOT_CHUNK_EVENTS, 0, &a, 64, NULL, 0);
	end(&w);
	trace_writer_close(&w);
	assert_int_equal(trace_reader_open(&r, path, err, sizeof(err)), 0);
	trace_reader_meta(&r, "kernel", v, sizeof(v));
	assert_string_equal(v, "Linux 6.x");
	trace_reader_meta(&r, "absent", v, sizeof(v));
	assert_string_equal(v, "");
	while (trace_reader_next(&r, &rec) == 1)
		n++;
	assert_int_equal(n, 1);
	trace_reader_release(&r);
}

/* The FILES chunk: by filesystem or by the disk under it (a partition);
 * the same inode number on two filesystems of a disk is no answer; what
 * the recorder found at the stop is said; a path without its NUL ends. */
static void file_paths(void **state)
{
	struct iot_file_header h;
	struct trace_writer w;
	struct trace_reader r;
	struct iot_dev_entry devs[] = {
	    {.dev = 8u << 20, .disk_dev = 8u << 20, .name = "sda"},
	    {.dev = 8u << 20 | 1,
	     .disk_dev = 8u << 20,
	     .flags = IOT_DEV_PARTITION,
	     .name = "sda1"},
	    {.dev = 8u << 20 | 2,
	     .disk_dev = 8u << 20,
	     .flags = IOT_DEV_PARTITION,
	     .name = "sda2"},
	};
	struct iot_file_entry f[5] = {
	    {.dev = 8u << 20 | 1, .ino = 12, .path = "/a/twelve"},
	    {.dev = 8u << 20 | 2, .ino = 12, .path = "/b/twelve"},
	    {.dev = 8u << 20 | 1,
	     .ino = 30,
	     .path = "/a/gone",
	     .flags = IOT_FILE_DELETED},
	    {.dev = 7u << 20, .ino = 13, .path = "/a/x | /a/y", .flags = IOT_FILE_REUSED},
	    {.dev = 7u << 20, .ino = 99},
	};
	char err[256];

	memset(f[4].path, 'z', sizeof(f[4].path)); /* no NUL */
	header(&h, 1);
	assert_int_equal(trace_writer_open(&w, path, &h), 0);
	trace_writer_chunk(&w, IOT_CHUNK_DEVICES, 0, devs, sizeof(devs), NULL, 0);
	trace_writer_chunk(&w, IOT_CHUNK_FILES, 0, f, sizeof(f), NULL, 0);
	end(&w);
	trace_writer_close(&w);
	assert_int_equal(trace_reader_open(&r, path, err, sizeof(err)), 0);
	assert_string_equal(trace_reader_file(&r, 8u << 20 | 1, 12), "/a/twelve");
	assert_string_equal(trace_reader_file(&r, 8u << 20 | 2, 12), "/b/twelve");
	assert_null(trace_reader_file(&r, 8u << 20, 12)); /* which partition? */
	assert_string_equal(trace_reader_file(&r, 8u << 20, 30), "/a/gone (deleted)");
	assert_string_equal(trace_reader_file(&r, 7u << 20, 13),
			    "/a/x | /a/y (inode reused)");
	assert_int_equal(strlen(trace_reader_file(&r, 7u << 20, 99)), 239);
	assert_null(trace_reader_file(&r, 7u << 20, 98));
	assert_null(trace_reader_file(&r, 8u << 20 | 1, 13));
	trace_reader_release(&r);
}

/* trace_reader_dev finds each of 300 devices written in falling order, the
 * first of a dev_t named twice, none for a dev_t not there; a later DEVICES
 * chunk replaces the table */
static void device_lookup(void **state)
{
	enum { N = 300 };
	struct iot_dev_entry devs[N + 1] = {0}, later = {.dev = 5, .name = "later"};
	struct iot_file_header h;
	struct trace_writer w;
	struct trace_reader r;
	char err[256];

	(void)state;
	for (int i = 0; i < N; i++) {
		devs[i].dev = (uint32_t)(N - i) << 20 | 7;
		snprintf(devs[i].name, sizeof(devs[i].name), "d%d", N - i);
	}
	devs[N] = devs[N / 2]; /* 150's again, last */
	snprintf(devs[N].name, sizeof(devs[N].name), "second");
	header(&h, 1);
	assert_int_equal(trace_writer_open(&w, path, &h), 0);
	trace_writer_chunk(&w, IOT_CHUNK_DEVICES, 0, devs, sizeof(devs), NULL, 0);
	end(&w);
	trace_writer_close(&w);
	assert_int_equal(trace_reader_open(&r, path, err, sizeof(err)), 0);
	for (uint32_t k = 1; k <= N; k++) {
		const struct iot_dev_entry *e = trace_reader_dev(&r, k << 20 | 7);
		char want[16];

		snprintf(want, sizeof(want), "d%u", k);
		assert_non_null(e);
		assert_string_equal(e->name, want);
	}
	assert_null(trace_reader_dev(&r, 0));
	assert_null(trace_reader_dev(&r, 1u << 20 | 6));
	assert_null(trace_reader_dev(&r, (N + 1u) << 20 | 7));
	assert_null(trace_reader_dev(&r, UINT32_MAX));
	trace_reader_release(&r);

	assert_int_equal(trace_writer_open(&w, path, &h), 0);
	trace_writer_chunk(&w, IOT_CHUNK_DEVICES, 0, devs, sizeof(devs), NULL, 0);
	trace_writer_chunk(&w, IOT_CHUNK_DEVICES, 0, &later, sizeof(later), NULL, 0);
	end(&w);
	trace_writer_close(&w);
	assert_int_equal(trace_reader_open(&r, path, err, sizeof(err)), 0);
	assert_string_equal(trace_reader_dev(&r, 5)->name, "later");
	assert_null(trace_reader_dev(&r, 1u << 20 | 7));
	trace_reader_release(&r);
}

/* DROPS_AT: each CPU's totals become what it lost in each stretch, the
 * stretches of consecutive drains one (merged), sorted by CPU then time;
 * a CPU beyond the header's and a chunk shorter than its times are
 * damage, skipped */
static void drop_stretches(void **state)
{
	struct {
		struct iot_drops_at at;
		struct iot_drop_entry e[2];
	} c = {{100, 200}, {{.cpu = 1, .drops_full = 5}, {.cpu = 0, .drops_torn = 2}}};
	struct iot_file_header h;
	struct trace_writer w;
	struct trace_reader r;
	const struct iot_drop_stretch *st;
	char err[256];
	size_t n;

	(void)state;
	header(&h, 2);
	assert_int_equal(trace_writer_open(&w, path, &h), 0);
	trace_writer_chunk(&w, IOT_CHUNK_DROPS_AT, 0, &c, sizeof(c), NULL, 0);
	/* CPU 1 again at the next drain: the same stretch, longer */
	c.at = (struct iot_drops_at){200, 300};
	c.e[0] = (struct iot_drop_entry){.cpu = 1, .drops_full = 9, .drops_nostate = 1};
	c.e[1] = (struct iot_drop_entry){.cpu = 7, .drops_full = 1}; /* no such CPU */
	trace_writer_chunk(&w, IOT_CHUNK_DROPS_AT, 0, &c, sizeof(c), NULL, 0);
	trace_writer_chunk(&w, IOT_CHUNK_DROPS_AT, 0, &c, 8, NULL, 0); /* too short */
	/* a drain later, after one that saw none: a stretch of its own */
	c.at = (struct iot_drops_at){400, 500};
	c.e[0] = (struct iot_drop_entry){.cpu = 1, .drops_full = 12, .drops_nostate = 1};
	c.e[1] = (struct iot_drop_entry){.cpu = 0, .drops_torn = 3};
	trace_writer_chunk(&w, IOT_CHUNK_DROPS_AT, 0, &c, sizeof(c), NULL, 0);
	end(&w);
	trace_writer_close(&w);
	assert_int_equal(trace_reader_open(&r, path, err, sizeof(err)), 0);
	assert_int_equal(r.nr_drop_stretches, 4);
	st = trace_cpu_drops(r.drop_stretches, r.nr_drop_stretches, 0, &n);
	assert_int_equal(n, 2);
	assert_int_equal(st[0].cpu, 0);
	assert_int_equal(st[0].drops, 2);
	assert_int_equal(st[0].drains, 1);
	assert_int_equal(st[1].from_ns, 400);
	assert_int_equal(st[1].drops, 1);
	st = trace_cpu_drops(r.drop_stretches, r.nr_drop_stretches, 1, &n);
	assert_int_equal(n, 2);
	assert_ptr_equal(st, &r.drop_stretches[2]);
	assert_int_equal(st[0].from_ns, 100);
	assert_int_equal(st[0].to_ns, 300);
	assert_int_equal(st[0].drains, 2);
	assert_int_equal(st[0].drops, 10); /* 5, then 10 in all */
	assert_int_equal(st[0].total, 10);
	assert_int_equal(st[1].from_ns, 400);
	assert_int_equal(st[1].to_ns, 500);
	assert_int_equal(st[1].drops, 3);
	assert_int_equal(st[1].total, 13);
	assert_null(trace_cpu_drops(r.drop_stretches, r.nr_drop_stretches, 2, &n));
	assert_int_equal(n, 0);
	trace_reader_release(&r);
}

/* A DROPS_AT entry's drops are a gap before its CPU's first record in a
 * chunk after it (gaps.h): CPU 0 lost 5 after its first chunk, CPU 1 3
 * after its last (no record after: no gap), CPU 0 2 more before a packed
 * chunk; a call across either of CPU 0's gaps has records lost between. */
static void drops_placed(void **state)
{
	struct {
		struct iot_drops_at at;
		struct iot_drop_entry e[2];
	} c = {{100, 200}, {{.cpu = 0, .drops_full = 5}, {.cpu = 1, .drops_full = 3}}};
	struct iot_rec a[10], b[4];
	struct iot_file_header h;
	struct trace_writer w;
	struct trace_reader r;
	struct reader_plan pl;
	char err[256];

	(void)state;
	for (int i = 0; i < 10; i++) {
		a[i] = mkrec(IOT_EV_BIO_QUEUE, 10 + i, i, 0, 0, 8);
		a[i].seq = i;
	}
	for (int i = 0; i < 4; i++) {
		b[i] = mkrec(IOT_EV_BIO_QUEUE, 12 + i, 100 + i, 0, 0, 8);
		b[i].seq = i;
		b[i].cpu = 1;
	}
	header(&h, 2);
	h.version_minor = IOT_VERSION_MINOR;
	assert_int_equal(trace_writer_open(&w, path, &h), 0);
	trace_writer_chunk(&w, IOT_CHUNK_EVENTS, 0, a, 4 * 64, NULL, 0);
	trace_writer_chunk(&w, IOT_CHUNK_EVENTS, 1, b, 4 * 64, NULL, 0);
	trace_writer_chunk(&w, IOT_CHUNK_DROPS_AT, 0, &c, sizeof(c), NULL, 0);
	round_mark(&w, 200);
	trace_writer_chunk(&w, IOT_CHUNK_EVENTS, 0, a + 4, 3 * 64, NULL, 0);
	c.at = (struct iot_drops_at){200, 300};
	c.e[0].drops_full = 7; /* 2 more */
	trace_writer_chunk(&w, IOT_CHUNK_DROPS_AT, 0, &c, sizeof(c.at) + sizeof(c.e[0]),
			   NULL, 0);
	assert_int_equal(trace_writer_packed(&w, 0, a + 7, 3, NULL, 0), 0);
	end(&w);
	trace_writer_close(&w);
	assert_int_equal(trace_reader_open(&r, path, err, sizeof(err)), 0);
	assert_int_equal(r.gaps.s[0].dropped.n, 2);
	assert_int_equal(r.gaps.s[0].dropped.g[0].seq, 4);
	assert_int_equal(r.gaps.s[0].dropped.g[0].ts_ns, 14);
	assert_int_equal(r.gaps.s[0].dropped.g[0].lost, 5);
	assert_int_equal(r.gaps.s[0].dropped.g[1].seq, 7); /* unpacked for it */
	assert_int_equal(r.gaps.s[0].dropped.g[1].lost, 7);
	assert_int_equal(r.gaps.s[1].dropped.n, 0);
	assert_int_equal(trace_gaps_between(&r.gaps, 0, 3, 4), 5);
	assert_int_equal(trace_gaps_between(&r.gaps, 0, 4, 6), 0);
	assert_int_equal(trace_gaps_between(&r.gaps, 0, 2, 9), 7);
	/* a call on CPU 0 across the first; one that moved to CPU 1 after
	 * it (its record's time 14), one from CPU 1 over the second (17) */
	assert_true(trace_gaps_lost_between(&r.gaps, 0, 1, 11, 0, 5, 15));
	assert_true(trace_gaps_lost_between(&r.gaps, 0, 1, 11, 1, 2, 15));
	assert_false(trace_gaps_lost_between(&r.gaps, 0, 1, 11, 1, 2, 14));
	assert_true(trace_gaps_lost_between(&r.gaps, 1, 0, 16, 0, 8, 18));
	assert_false(trace_gaps_lost_between(&r.gaps, 1, 0, 17, 0, 8, 18));
	/* the plan has them too, whole */
	assert_int_equal(trace_reader_plan(&r, 2, 2, &pl), 1);
	assert_int_equal(pl.gap_at.s[0].dropped.n, 2);
	assert_memory_equal(pl.gap_at.s[0].dropped.g, r.gaps.s[0].dropped.g,
			    2 * sizeof(struct trace_gap));
	reader_plan_release(&pl);
	trace_reader_release(&r);
}

static void count_agg(void *ctx, const struct iot_agg_entry *e)
{
	*(uint64_t *)ctx += e->buckets[3];
}

/* AGG chunks: their entries read in order, each interval's lost requests
 * summed; a chunk shorter than its header counts nothing, an entry cut
 * short is not read */
static void agg_lost(void **state)
{
	struct {
		struct iot_agg_header h;
		struct iot_agg_entry e[2];
	} c = {{.start_ns = 0, .end_ns = 100, .nr_entries = 2, .lost = 3}, {{0}}};
	struct iot_file_header h;
	struct trace_writer w;
	struct trace_reader r;
	uint64_t n = 0;
	char err[256];

	(void)state;
	c.e[0].buckets[3] = 5;
	c.e[1].buckets[3] = 7;
	header(&h, 1);
	assert_int_equal(trace_writer_open(&w, path, &h), 0);
	trace_writer_chunk(&w, IOT_CHUNK_AGG, 0, &c, sizeof(c), NULL, 0);
	c.h = (struct iot_agg_header){
	    .start_ns = 100, .end_ns = 200, .nr_entries = 2, .lost = 4};
	/* the second entry cut short */
	trace_writer_chunk(&w, IOT_CHUNK_AGG, 0, &c, sizeof(c) - 8, NULL, 0);
	trace_writer_chunk(&w, IOT_CHUNK_AGG, 0, &c, 20, NULL, 0); /* too short */
	end(&w);
	trace_writer_close(&w);
	assert_int_equal(trace_reader_open(&r, path, err, sizeof(err)), 0);
	assert_int_equal(r.nr_aggs, 3);
	assert_int_equal(r.agg_lost, 7);
	trace_reader_aggs(&r, count_agg, &n);
	assert_int_equal(n, 5 + 7 + 5);
	trace_reader_release(&r);
}

/* Back-pressure marks: each CPU's begin and end become a stretch, one left
 * open at the end stays open (to_ns 0), an end with no begin is ignored;
 * SUMMARY records are counted; a rewind counts them again, not twice */
static void degrade_stretches(void **state)
{
	struct iot_file_header h;
	struct trace_writer w;
	struct trace_reader r;
	const struct iot_rec *rec;
	struct iot_rec c0[4], c1[4];
	char err[256];
	int n = 0;

	(void)state;
	header(&h, 2);
	c0[0] = mkrec(IOT_EV_DEGRADE, 100, 0, 0, 0, 0); /* an end with no begin */
	c0[1] = mkrec(IOT_EV_DEGRADE, 110, 9000, 0, 0, 0);
	c0[1].flags = IOT_DEGRADE_BEGIN;
	c0[2] = mkrec(IOT_EV_SUMMARY, 120, 0, 0, 0, 0);
	c0[3] = mkrec(IOT_EV_DEGRADE, 150, 10, 0, 0, 0);
	c0[3].id2 = 77;
	c1[0] = mkrec(IOT_EV_DEGRADE, 105, 9000, 0, 0, 0);
	c1[0].flags = IOT_DEGRADE_BEGIN;
	c1[1] = mkrec(IOT_EV_SUMMARY, 115, 0, 0, 0, 0);
	c1[2] = mkrec(IOT_EV_SUMMARY, 125, 0, 0, 0, 0);
	c1[3] = mkrec(IOT_EV_DEGRADE, 160, 9000, 0, 0, 0);
	c1[3].flags = IOT_DEGRADE_BEGIN; /* two begins: the second one counts too */
	for (uint64_t i = 0; i < 4; i++) {
		c0[i].seq = c1[i].seq = i;
		c0[i].cpu = 0;
		c1[i].cpu = 1;
	}
	assert_int_equal(trace_writer_open(&w, path, &h), 0);
	trace_writer_chunk(&w, IOT_CHUNK_EVENTS, 0, c0, sizeof(c0), NULL, 0);
	trace_writer_chunk(&w, IOT_CHUNK_EVENTS, 1, c1, sizeof(c1), NULL, 0);
	round_mark(&w, 200);
	end(&w);
	assert_int_equal(trace_writer_close(&w), 0);
	assert_int_equal(trace_reader_open(&r, path, err, sizeof(err)), 0);
	for (int pass = 0; pass < 2; pass++) {
		while (trace_reader_next(&r, &rec) == 1)
			n++;
		assert_int_equal(r.nr_summaries, 3);
		assert_int_equal(r.nr_degrades, 3);
		/* by begin time, though CPU 0's begin entered the merge first */
		assert_int_equal(r.degrades[1].cpu, 0);
		assert_int_equal(r.degrades[1].from_ns, 110);
		assert_int_equal(r.degrades[1].to_ns, 150);
		assert_int_equal(r.degrades[1].skipped, 77);
		assert_int_equal(r.degrades[0].cpu, 1);
		assert_int_equal(r.degrades[0].from_ns, 105);
		assert_int_equal(r.degrades[0].to_ns, 0); /* still open */
		assert_int_equal(r.degrades[2].from_ns, 160);
		assert_int_equal(r.degrades[2].to_ns, 0);
		trace_reader_rewind(&r);
	}
	assert_int_equal(n, 16);
	trace_reader_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(merge_order),
	    cmocka_unit_test(agg_lost),
	    cmocka_unit_test(merge_many_streams),
	    cmocka_unit_test(merge_sparse_streams),
	    cmocka_unit_test(inversion_and_gap),
	    cmocka_unit_test(segments_same),
	    cmocka_unit_test(drops_placed),
	    cmocka_unit_test(speculative_sorted),
	    cmocka_unit_test(truncated),
	    cmocka_unit_test(write_fails_buffered),
	    cmocka_unit_test(write_fails_direct),
	    cmocka_unit_test(reserve_ahead),
	    cmocka_unit_test(packed_round_trip),
	    cmocka_unit_test(packed_empty_chunk),
	    cmocka_unit_test(packed_damage),
	    cmocka_unit_test(packed_many_chunks),
	    cmocka_unit_test(not_a_trace),
	    cmocka_unit_test(newer_major_refused),
	    cmocka_unit_test(unknown_chunk_skipped_and_meta),
	    cmocka_unit_test(device_lookup),
	    cmocka_unit_test(file_paths),
	    cmocka_unit_test(markers_stream),
	    cmocka_unit_test(drop_stretches),
	    cmocka_unit_test(degrade_stretches),
	    cmocka_unit_test(threads_write_chunks),
	    cmocka_unit_test(packed_checked_on_threads),
	    cmocka_unit_test(packed_unchecked),
	    cmocka_unit_test(batches_same),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
