// SPDX-License-Identifier: GPL-2.0
/*
 * CTF 1.8 (the Common Trace Format, as LTTng writes it and babeltrace2 and
 * Trace Compass read it): a directory with a TSDL `metadata` file and one
 * stream file per CPU (`stream_N`), plus `stream_other` for records of no
 * CPU (user markers, repair estimates of a CPU the trace did not have).
 *
 * Every integer is byte-aligned and little-endian, so nothing is padded.
 * A packet (64 KiB at most, ended early where records were lost) is a header (magic, the
 * trace's UUID, stream id 0), a context (first and last timestamps, content and packet
 * sizes in bits, the stream's discarded events so far, the CPU) and events; each event a
 * header (its class id, a 64-bit CLOCK_MONOTONIC timestamp) and its
 * fields. The event classes and their fields come from one table
 * (classes[]): the metadata is written from it and so are the events.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export.h"

#define CTF_MAGIC   0xC1FC1FC1u
#define PACKET_SIZE 65536u
#define HEADER_SIZE 68u /* packet header 24 + context 44 */

/* where a field's value comes from */
enum src {
	S_END,
	S_DEV,
	S_DEVNAME,
	S_RWBS,
	S_SECTOR,
	S_SECTOR_S, /* signed */
	S_NR,
	S_NR_S, /* signed 32 */
	S_FLAGS,
	S_ID,
	S_ID_S,
	S_ID2,
	S_NAME_ID,  /* 16 bytes of id, id2: a comm */
	S_NAME_ID2, /* 16 bytes of id2, sector: a marker's name */
	/* struct iot_summary */
	S_SUM_DEV,
	S_SUM_SECTOR,
	S_SUM_NR,
	S_SUM_Q,
	S_SUM_G,
	S_SUM_I,
	S_SUM_D,
};

struct field {
	const char *name;
	uint8_t src;
};

struct class
{
	uint16_t type;
	struct field f[11]; /* NULL-terminated */
};

#define BLOCK_FIELDS                                                                     \
	{"dev", S_DEV}, {"device", S_DEVNAME}, {"rwbs", S_RWBS}, {"sector", S_SECTOR},   \
	    {"nr_sector", S_NR}, {"flags", S_FLAGS}, {"id", S_ID}, {"id2", S_ID2},       \
	{                                                                                \
		NULL, S_END                                                              \
	}

static const struct class classes[] = {
    {IOT_EV_BIO_QUEUE, {BLOCK_FIELDS}},
    {IOT_EV_GETRQ, {BLOCK_FIELDS}},
    {IOT_EV_RQ_INSERT, {BLOCK_FIELDS}},
    {IOT_EV_RQ_ISSUE, {BLOCK_FIELDS}},
    {IOT_EV_RQ_COMPLETE, {BLOCK_FIELDS}},
    {IOT_EV_BIO_COMPLETE, {BLOCK_FIELDS}},
    {IOT_EV_BIO_BACKMERGE, {BLOCK_FIELDS}},
    {IOT_EV_BIO_FRONTMERGE, {BLOCK_FIELDS}},
    {IOT_EV_RQ_MERGE, {BLOCK_FIELDS}},
    {IOT_EV_SPLIT, {BLOCK_FIELDS}},
    {IOT_EV_BIO_REMAP, {BLOCK_FIELDS}},
    {IOT_EV_RQ_REMAP, {BLOCK_FIELDS}},
    {IOT_EV_RQ_REQUEUE, {BLOCK_FIELDS}},
    {IOT_EV_PLUG, {{"dev", S_DEV}, {"device", S_DEVNAME}, {"nr", S_NR}}},
    {IOT_EV_UNPLUG, {{"dev", S_DEV}, {"device", S_DEVNAME}, {"nr", S_NR}}},
    {IOT_EV_IO_START, {BLOCK_FIELDS}},
    {IOT_EV_IO_DONE, {BLOCK_FIELDS}},
    {IOT_EV_RQ_INFO, {BLOCK_FIELDS}},
    {IOT_EV_BIO_INFO,
     {{"dev", S_DEV},
      {"device", S_DEVNAME},
      {"bio", S_ID},
      {"ino", S_ID2},
      {"index", S_SECTOR},
      {"cgroup", S_NR},
      {"cause", S_FLAGS}}},
    {IOT_EV_DIRTY, {{"ino", S_ID}, {"index", S_ID2}, {"pages", S_NR}, {"fsdev", S_DEV}}},
    {IOT_EV_EXEC, {{"new_comm", S_NAME_ID}}},
    {IOT_EV_COMMIT, {{"transaction", S_ID}, {"fsdev", S_DEV}, {"end", S_FLAGS}}},
    {IOT_EV_WAKEUP, {{"woken_tid", S_ID}}},
    {IOT_EV_FAULT,
     {{"ino", S_ID},
      {"index", S_ID2},
      {"pages", S_NR},
      {"fsdev", S_DEV},
      {"flags", S_FLAGS}}},
    {IOT_EV_URING_SUBMIT,
     {{"req", S_ID}, {"pos", S_ID2}, {"len", S_NR}, {"flags", S_FLAGS}}},
    {IOT_EV_URING_COMPLETE,
     {{"req", S_ID},
      {"user_data", S_ID2},
      {"res", S_NR_S},
      {"ino", S_SECTOR},
      {"fsdev", S_DEV},
      {"flags", S_FLAGS}}},
    {IOT_EV_URING_WORK,
     {{"dev", S_DEV}, {"device", S_DEVNAME}, {"bio", S_ID}, {"req", S_ID2}}},
    {IOT_EV_MARK, {{"mark_id", S_ID}, {"name", S_NAME_ID2}, {"kind", S_FLAGS}}},
    {IOT_EV_DRV_SUBMIT, {BLOCK_FIELDS}},
    {IOT_EV_DRV_CQE, {BLOCK_FIELDS}},
    {IOT_EV_DRV_DONE, {BLOCK_FIELDS}},
    {IOT_EV_SYS_ENTER,
     {{"syscall", S_SECTOR},
      {"fd", S_FLAGS},
      {"count", S_NR},
      {"pos", S_ID_S},
      {"ino", S_ID2},
      {"fsdev", S_DEV}}},
    {IOT_EV_SYS_EXIT, {{"syscall", S_FLAGS}, {"ret", S_SECTOR_S}}},
    {IOT_EV_SUMMARY,
     {{"dev", S_SUM_DEV},
      {"device", S_DEVNAME},
      {"rwbs", S_RWBS},
      {"sector", S_SUM_SECTOR},
      {"nr_sector", S_SUM_NR},
      {"flags", S_FLAGS},
      {"q_ns", S_SUM_Q},
      {"q2g_ns", S_SUM_G},
      {"q2i_ns", S_SUM_I},
      {"q2d_ns", S_SUM_D}}},
    {IOT_EV_STOP, {{"reason", S_FLAGS}, {"dropped", S_ID2}}},
    {IOT_EV_DEGRADE, {{"begin", S_FLAGS}, {"fill", S_ID}, {"skipped", S_ID2}}},
};
#define NR_CLASSES (sizeof(classes) / sizeof(classes[0]))

static const char *tsdl_type(uint8_t src)
{
	switch (src) {
	case S_DEVNAME:
	case S_RWBS:
	case S_NAME_ID:
	case S_NAME_ID2:
		return "string";
	case S_SECTOR_S:
	case S_NR_S:
	case S_ID_S:
		return "int64_t";
	case S_DEV:
	case S_NR:
	case S_FLAGS:
	case S_SUM_DEV:
	case S_SUM_NR:
	case S_SUM_G:
	case S_SUM_I:
	case S_SUM_D:
		return "uint32_t";
	default:
		return "uint64_t";
	}
}

struct ctf_stream {
	FILE *f;
	char *path;
	uint8_t *buf; /* the packet being filled */
	size_t used;  /* bytes */
	uint64_t first_ts, last_ts;
	uint64_t discarded, reported; /* lost so far; in the last packet out */
	uint32_t cpu;
	bool any;
};

static int fail(struct ctf *c, const char *what, const char *path)
{
	snprintf(c->err, sizeof(c->err), "%s: %s: %s", path, what, strerror(errno));
	return -1;
}

static void put(uint8_t *p, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void uuid_str(const struct ctf *c, char out[37])
{
	const uint8_t *u = c->uuid;

	snprintf(out, 37,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11],
		 u[12], u[13], u[14], u[15]);
}

/* a TSDL string literal's content: no quote, backslash or control */
static void tsdl_str(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(*s == '"' || *s == '\\' || (unsigned char)*s < 0x20 ? '_' : *s, f);
}

static int write_metadata(struct ctf *c, const char *path, uint64_t realtime_ns,
			  uint64_t mono_ns, const char *name, const char *hostname,
			  const char *kernel)
{
	uint64_t off = realtime_ns > mono_ns ? realtime_ns - mono_ns : 0;
	char uuid[37];
	FILE *f = fopen(path, "w");

	if (!f)
		return fail(c, "cannot create", path);
	uuid_str(c, uuid);
	fprintf(
	    f,
	    "/* CTF 1.8 */\n\n"
	    "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
	    "typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
	    "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
	    "typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
	    "typealias integer { size = 64; align = 8; signed = true; } := int64_t;\n\n"
	    "trace {\n\tmajor = 1;\n\tminor = 8;\n\tuuid = \"%s\";\n"
	    "\tbyte_order = le;\n"
	    "\tpacket.header := struct {\n\t\tuint32_t magic;\n"
	    "\t\tuint8_t uuid[16];\n\t\tuint32_t stream_id;\n\t};\n};\n\n",
	    uuid);
	fprintf(f, "env {\n\tdomain = \"kernel\";\n\ttracer_name = \"iotrail\";\n"
		   "\ttrace_name = \"");
	tsdl_str(f, name);
	fprintf(f, "\";\n\thostname = \"");
	tsdl_str(f, hostname);
	fprintf(f, "\";\n\tkernel_release = \"");
	tsdl_str(f, kernel);
	fprintf(f,
		"\";\n};\n\n"
		"clock {\n\tname = \"monotonic\";\n\tuuid = \"%s\";\n"
		"\tdescription = \"CLOCK_MONOTONIC\";\n\tfreq = 1000000000;\n"
		"\tprecision = 1;\n\toffset_s = %" PRIu64 ";\n\toffset = %" PRIu64
		";\n\tabsolute = true;\n};\n\n"
		"typealias integer { size = 64; align = 8; signed = false; "
		"map = clock.monotonic.value; } := uint64_clock_monotonic_t;\n\n"
		"struct packet_context {\n"
		"\tuint64_clock_monotonic_t timestamp_begin;\n"
		"\tuint64_clock_monotonic_t timestamp_end;\n"
		"\tuint64_t content_size;\n\tuint64_t packet_size;\n"
		"\tuint64_t events_discarded;\n\tuint32_t cpu_id;\n};\n\n"
		"struct event_header {\n\tuint16_t id;\n"
		"\tuint64_clock_monotonic_t timestamp;\n};\n\n"
		"stream {\n\tid = 0;\n\tpacket.context := struct packet_context;\n"
		"\tevent.header := struct event_header;\n};\n",
		uuid, off / UINT64_C(1000000000), off % UINT64_C(1000000000));
	for (size_t i = 0; i < NR_CLASSES; i++) {
		fprintf(f,
			"\nevent {\n\tname = \"%s\";\n\tid = %zu;\n\tstream_id = 0;\n"
			"\tfields := struct {\n\t\tuint32_t tid;\n\t\tuint32_t pid;\n"
			"\t\tstring comm;\n",
			render_event_name(classes[i].type), i);
		for (const struct field *fl = classes[i].f; fl->name; fl++)
			fprintf(f, "\t\t%s %s;\n", tsdl_type(fl->src), fl->name);
		fprintf(f, "\t};\n};\n");
	}
	if (fclose(f))
		return fail(c, "cannot write", path);
	return 0;
}

int ctf_open(struct ctf *c, const char *dir, uint32_t nr_cpus, uint64_t realtime_ns,
	     uint64_t mono_ns, const char *name, const char *hostname, const char *kernel)
{
	char path[4096];

	memset(c, 0, sizeof(*c));
	c->dir = strdup(dir);
	if (!c->dir)
		return fail(c, "out of memory", dir);
	if (mkdir(dir, 0755)) {
		if (errno != EEXIST)
			return fail(c, "cannot create the directory", dir);
		snprintf(path, sizeof(path), "%s/metadata", dir);
		if (!access(path, F_OK)) {
			errno = EEXIST;
			return fail(c, "holds a CTF trace already", dir);
		}
	}
	c->made_dir = true; /* or an empty one was there: ours to clean */
	put(c->uuid, realtime_ns, 8);
	put(c->uuid + 8, mono_ns ^ 0x696f747261696cull, 8);
	c->uuid[6] = (c->uuid[6] & 0x0f) | 0x40; /* a version 4 layout */
	c->uuid[8] = (c->uuid[8] & 0x3f) | 0x80;
	for (size_t i = 0; i < NR_CLASSES; i++)
		c->class_of[classes[i].type] = (uint8_t)(i + 1);
	c->nr_streams = nr_cpus + 1;
	c->streams = calloc(c->nr_streams, sizeof(*c->streams));
	if (!c->streams)
		return fail(c, "out of memory", dir);
	for (uint32_t i = 0; i < c->nr_streams; i++)
		c->streams[i].cpu = i < nr_cpus ? i : UINT32_MAX;
	snprintf(path, sizeof(path), "%s/metadata", dir);
	return write_metadata(c, path, realtime_ns, mono_ns, name, hostname, kernel);
}

/* the packet's header and context, then out with it */
static int flush_packet(struct ctf *c, struct ctf_stream *s)
{
	size_t size = s->used; /* packets need not be of one size */
	uint8_t *p = s->buf;

	put(p, CTF_MAGIC, 4);
	memcpy(p + 4, c->uuid, 16);
	put(p + 20, 0, 4);
	if (!s->any)
		s->first_ts = s->last_ts;
	put(p + 24, s->first_ts, 8);
	put(p + 32, s->last_ts, 8);
	put(p + 40, (uint64_t)s->used * 8, 8);
	put(p + 48, (uint64_t)size * 8, 8);
	put(p + 56, s->discarded, 8);
	put(p + 64, s->cpu, 4);
	if (fwrite(p, 1, size, s->f) != size)
		return fail(c, "cannot write", s->path);
	s->reported = s->discarded;
	s->used = HEADER_SIZE;
	s->any = false;
	return 0;
}

static int open_stream(struct ctf *c, struct ctf_stream *s, uint32_t i)
{
	char path[4096];

	if (s->cpu == UINT32_MAX)
		snprintf(path, sizeof(path), "%s/stream_other", c->dir);
	else
		snprintf(path, sizeof(path), "%s/stream_%u", c->dir, i);
	s->path = strdup(path);
	s->buf = malloc(PACKET_SIZE);
	if (!s->path || !s->buf)
		return fail(c, "out of memory", path);
	s->f = fopen(path, "w");
	if (!s->f)
		return fail(c, "cannot create", path);
	s->used = HEADER_SIZE;
	return 0;
}

static size_t put_str(uint8_t *p, const char *s, size_t max)
{
	size_t n = strnlen(s, max);

	memcpy(p, s, n);
	p[n] = 0;
	return n + 1;
}

/* the fields of r by its class into p; bytes written */
static size_t fields(uint8_t *p, const struct class *cl, const struct iot_rec *r,
		     const char *comm, const char *device)
{
	const struct iot_summary *sum = (const void *)r;
	bool is_sum = r->type == IOT_EV_SUMMARY;
	char name[17], rwbs[8];
	size_t n = 0;

	put(p, is_sum ? sum->tid : r->tid, 4);
	put(p + 4, is_sum ? 0 : r->pid, 4);
	n = 8 + put_str(p + 8, comm, 64);
	for (const struct field *f = cl->f; f->name; f++) {
		switch (f->src) {
		case S_DEV:
			put(p + n, r->dev, 4), n += 4;
			break;
		case S_SUM_DEV:
			put(p + n, sum->dev, 4), n += 4;
			break;
		case S_DEVNAME:
			n += put_str(p + n, device, 64);
			break;
		case S_RWBS:
			render_rwbs(r->flags & ~IOT_F_ESTIMATED, rwbs);
			n += put_str(p + n, rwbs, 8);
			break;
		case S_SECTOR:
		case S_SECTOR_S:
			put(p + n, r->sector, 8), n += 8;
			break;
		case S_NR:
			put(p + n, r->nr, 4), n += 4;
			break;
		case S_NR_S:
			put(p + n, (uint64_t)(int64_t)(int32_t)r->nr, 8), n += 8;
			break;
		case S_FLAGS:
			put(p + n, r->flags, 4), n += 4;
			break;
		case S_ID:
		case S_ID_S:
			put(p + n, r->id, 8), n += 8;
			break;
		case S_ID2:
			put(p + n, r->id2, 8), n += 8;
			break;
		case S_NAME_ID:
			memcpy(name, &r->id, 8);
			memcpy(name + 8, &r->id2, 8);
			name[16] = 0;
			n += put_str(p + n, name, 16);
			break;
		case S_NAME_ID2:
			memcpy(name, &r->id2, 8);
			memcpy(name + 8, &r->sector, 8);
			name[16] = 0;
			n += put_str(p + n, name, 16);
			break;
		case S_SUM_SECTOR:
			put(p + n, sum->sector, 8), n += 8;
			break;
		case S_SUM_NR:
			put(p + n, sum->nr, 4), n += 4;
			break;
		case S_SUM_Q:
			put(p + n, sum->q_ns, 8), n += 8;
			break;
		case S_SUM_G:
			put(p + n, sum->g_delta_ns, 4), n += 4;
			break;
		case S_SUM_I:
			put(p + n, sum->i_delta_ns, 4), n += 4;
			break;
		case S_SUM_D:
			put(p + n, sum->d_delta_ns, 4), n += 4;
			break;
		}
	}
	return n;
}

/* the largest event: header 10, tid, pid, comm 65, ten fields of at most
 * 65 bytes */
#define MAX_EVENT (10 + 8 + 65 + 10 * 65)

int ctf_event(struct ctf *c, const struct iot_rec *r, const char *comm,
	      const char *device)
{
	uint32_t i = r->cpu < c->nr_streams - 1 ? r->cpu : c->nr_streams - 1;
	struct ctf_stream *s = &c->streams[i];
	const struct class *cl;
	uint8_t *p;
	size_t k;

	if (r->type >= IOT_EV_MAX || !c->class_of[r->type])
		return 0; /* a type this iotrail does not know: as script skips it */
	k = c->class_of[r->type] - 1u;
	cl = &classes[k];
	if (!s->f && open_stream(c, s, i))
		return -1;
	if (s->used + MAX_EVENT > PACKET_SIZE && flush_packet(c, s))
		return -1;
	p = s->buf + s->used;
	put(p, k, 2);
	put(p + 2, r->ts_ns, 8);
	s->used += 10 + fields(p + 10, cl, r, comm, device);
	if (!s->any)
		s->first_ts = r->ts_ns;
	s->last_ts = r->ts_ns;
	s->any = true;
	c->events++;
	return 0;
}

int ctf_discarded(struct ctf *c, uint32_t cpu, uint64_t n)
{
	uint32_t i = cpu < c->nr_streams - 1 ? cpu : c->nr_streams - 1;
	struct ctf_stream *s = &c->streams[i];

	/* a packet boundary where they were lost: readers report the loss
	 * between the two packets' times */
	if (s->any && flush_packet(c, s))
		return -1;
	s->discarded += n;
	return 0;
}

int ctf_close(struct ctf *c, bool keep)
{
	int err = c->err[0] ? -1 : 0;
	char path[4096];

	for (uint32_t i = 0; i < c->nr_streams; i++) {
		struct ctf_stream *s = &c->streams[i];

		/* a CPU with discarded records and no event still says so */
		if (!s->f && s->discarded && !err && open_stream(c, s, i))
			err = -1;
		if (s->f && !err && (s->any || s->discarded != s->reported) &&
		    flush_packet(c, s))
			err = -1;
		if (s->f && fclose(s->f) && !err)
			err = fail(c, "cannot write", s->path);
		if ((err || !keep) && s->path)
			unlink(s->path);
		free(s->buf);
		free(s->path);
	}
	if ((err || !keep) && c->dir && c->made_dir) {
		snprintf(path, sizeof(path), "%s/metadata", c->dir);
		unlink(path);
		rmdir(c->dir);
	}
	free(c->streams);
	free(c->dir);
	c->streams = NULL;
	c->dir = NULL;
	return err;
}
