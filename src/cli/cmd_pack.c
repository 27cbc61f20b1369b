// SPDX-License-Identifier: GPL-2.0
/*
 * iotrail pack: a trace with its CPUs' records packed (EVENTS_PACKED
 * chunks, format 1.10), or with --unpack back to whole records (1.9, for a
 * reader older than 1.10). Every other chunk is copied as it is, in place;
 * the records are the ones the reader reads, so what it cannot read (a
 * damaged tail) is neither packed nor copied.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../trace/reader.h"
#include "../trace/writer.h"
#include "cli.h"

static void pack_usage(FILE *f)
{
	fprintf(f, "usage: iotrail pack -i TRACE -o OUT [--unpack]\n"
		   "\n"
		   "  -i, --input TRACE   the trace to read\n"
		   "  -o, --output OUT    the trace to write: its CPUs' records packed\n"
		   "                      against the record before (format 1.10)\n"
		   "      --unpack        whole 64-byte records instead (format 1.9)\n"
		   "\n"
		   "Reports read either form and give the same results.\n");
}

static int rewrite(const struct trace_reader *rd, const char *out, bool unpack)
{
	struct iot_file_header h = rd->hdr;
	struct trace_writer w;
	uint64_t off = rd->hdr.header_size;
	size_t k = 0;
	int err;

	if (!unpack)
		h.version_minor = IOT_VERSION_MINOR;
	else if (h.version_minor == IOT_VERSION_MINOR)
		h.version_minor = IOT_VERSION_MINOR_UNPACKED;
	err = trace_writer_open(&w, out, &h);
	while (!err && off + sizeof(struct iot_chunk) <= rd->size) {
		const uint8_t *payload = rd->map + off + sizeof(struct iot_chunk);
		const struct reader_chunk *rc;
		struct iot_chunk c;

		bool cut;

		memcpy(&c, rd->map + off, sizeof(c));
		if (!c.type || c.type > IOT_CHUNK_TYPE_MAX)
			break; /* damage: the reader said where (its warning) */
		/* a chunk the file cuts short: its whole records, if any */
		cut = c.size > rd->size - off - sizeof(c);
		if (cut && c.type != IOT_CHUNK_EVENTS &&
		    c.type != IOT_CHUNK_EVENTS_PACKED)
			break;
		if (c.type == IOT_CHUNK_EVENTS || c.type == IOT_CHUNK_EVENTS_PACKED) {
			struct iot_packed ph = {0};
			const struct iot_rec *recs;
			struct iot_rec *tmp = NULL;
			uint64_t n;

			rc = trace_reader_chunk_at(rd, &k, off + sizeof(c));
			if (!rc)
				break; /* nothing the reader could read */
			n = rc->size / IOT_REC_SIZE;
			recs = rc->recs;
			if (!recs && rc->packed_bytes &&
			    !(recs = tmp = trace_reader_unpack(rd, rc))) {
				err = -ENOMEM;
				break;
			}
			err = unpack ? trace_writer_chunk(&w, IOT_CHUNK_EVENTS, rc->cpu,
							  recs, rc->size, NULL, 0)
				     : trace_writer_packed(&w, rc->cpu, recs, n, NULL, 0);
			free(tmp);
			/* a chunk the reader read only in part ends the walk */
			if (c.type == IOT_CHUNK_EVENTS_PACKED && !cut)
				memcpy(&ph, payload, sizeof(ph));
			if (cut || (c.type == IOT_CHUNK_EVENTS ? rc->size != c.size
							       : n != ph.nr_recs))
				break;
		} else {
			err = trace_writer_chunk(&w, c.type, c.cpu, payload, c.size, NULL,
						 0);
		}
		off += sizeof(c) + c.size;
	}
	if (trace_writer_close(&w) && !err)
		err = -EIO;
	if (err) {
		fprintf(stderr, "iotrail: %s: %s\n", out, strerror(-err));
		return 1;
	}
	return 0;
}

int cmd_pack(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"input", required_argument, NULL, 'i'},
	    {"output", required_argument, NULL, 'o'},
	    {"unpack", no_argument, NULL, 'u'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *in = NULL, *out = NULL;
	struct trace_reader rd;
	bool unpack = false;
	char errbuf[512];
	struct stat a, b;
	int c, ret;

	while ((c = getopt_long(argc, argv, "i:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			in = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'u':
			unpack = true;
			break;
		case 'h':
			pack_usage(stdout);
			return 0;
		default:
			pack_usage(stderr);
			return 2;
		}
	}
	if (optind < argc)
		return usage_error("pack: unexpected argument '%s'", argv[optind]);
	if (!in || !out)
		return usage_error("pack: -i TRACE and -o OUT are needed");
	if (!stat(in, &a) && !stat(out, &b) && a.st_dev == b.st_dev &&
	    a.st_ino == b.st_ino)
		return usage_error("-o %s: the input itself; write it elsewhere", out);
	if (trace_reader_open(&rd, in, errbuf, sizeof(errbuf))) {
		fprintf(stderr, "iotrail: %s\n", errbuf);
		return 1;
	}
	ret = rewrite(&rd, out, unpack);
	if (!ret && rd.warning[0]) {
		/* what could be read is written; the damage is said */
		fprintf(stderr, "iotrail: warning: %s\n", rd.warning);
		ret = 3;
	}
	trace_reader_release(&rd);
	return ret;
}
