// SPDX-License-Identifier: GPL-2.0
/* iotrail frag: text, TSV and JSON (out.h). */
#include "out.h"

#include <inttypes.h>
#include <string.h>

#include "../util/esc.h"
#include "../util/json_writer.h"

/* fragments per file, in the buckets of the summary's distribution */
static const uint64_t dist_lo[] = {0, 1, 2, 4, 8, 16, 64, 256};
#define NR_DIST (sizeof(dist_lo) / sizeof(dist_lo[0]))

struct frag_summary {
	uint64_t files, fragmented, fragments, dist[NR_DIST];
};

static void summarize(const struct frag_scan *s, struct frag_summary *m)
{
	*m = (struct frag_summary){0};
	for (size_t i = 0; i < s->nr_files; i++) {
		uint64_t fr = s->files[i].st.fragments;
		size_t d = 0;

		m->files++;
		m->fragments += fr;
		m->fragmented += fr > 1;
		while (d + 1 < NR_DIST && fr >= dist_lo[d + 1])
			d++;
		m->dist[d]++;
	}
}

static void dist_label(size_t d, char *buf, size_t len)
{
	if (d + 1 == NR_DIST)
		snprintf(buf, len, "%" PRIu64 "+", dist_lo[d]);
	else if (dist_lo[d + 1] - dist_lo[d] == 1)
		snprintf(buf, len, "%" PRIu64, dist_lo[d]);
	else
		snprintf(buf, len, "%" PRIu64 "-%" PRIu64, dist_lo[d],
			 dist_lo[d + 1] - 1);
}

void frag_print_text(FILE *f, const struct frag_scan *s, const struct frag_out_opts *o)
{
	struct frag_summary m;

	summarize(s, &m);
	fprintf(f, "# %s: %s%s, %u-byte blocks; %s (%s), %.3f s", o->scope,
		s->has_fs ? s->fs.type : "files", s->has_fs ? " filesystem" : "",
		s->block_size, s->method, o->how, o->seconds);
	if (s->has_fs)
		fprintf(f, ", %" PRIu64 " inodes (%.0f/s)", s->fs.inodes_scanned,
			o->seconds > 0 ? s->fs.inodes_scanned / o->seconds : 0.0);
	fprintf(f, "\n%-40s %9s %12s %9s %7s %6s %5s %7s %9s %9s %6s\n", "PATH", "INODE",
		"SIZE", "BLOCKS", "EXTENTS", "FRAGS", "GAPS", "REVERSE", "LARGEST", "AVG",
		"CONTIG");
	for (size_t i = 0; i < s->nr_files; i++) {
		const struct frag_file *x = &s->files[i];
		static char name[4 * 4096 + 1]; /* no terminal controls */

		fprintf(f,
			"%-40s %9" PRIu64 " %12" PRIu64 " %9" PRIu64 " %7" PRIu64
			" %6" PRIu64 " %5" PRIu64 " %7" PRIu64 " %9" PRIu64
			" %9.1f %6.3f\n",
			text_clean(name, sizeof(name), x->path), x->ino, x->size_bytes,
			x->st.blocks, x->st.extents, x->st.fragments, x->st.gaps,
			x->st.reverse, x->st.largest_blocks, x->st.avg_blocks,
			x->st.contiguity);
		for (size_t k = 0; o->verbose && k < x->nr_ext; k++)
			fprintf(f,
				"    extent %zu: logical %" PRIu64 " physical %" PRIu64
				" length %" PRIu64 "%s%s\n",
				k, x->ext[k].logical, x->ext[k].physical, x->ext[k].len,
				x->ext[k].flags & FRAG_UNWRITTEN ? " unwritten" : "",
				x->ext[k].flags & FRAG_INLINE ? " inline" : "");
	}
	fprintf(f,
		"# %" PRIu64 " files, %" PRIu64
		" fragmented (%.1f%%), %.2f fragments per "
		"file\n# fragments per file:",
		m.files, m.fragmented, m.files ? 100.0 * m.fragmented / m.files : 0.0,
		m.files ? (double)m.fragments / m.files : 0.0);
	for (size_t d = 0; d < NR_DIST; d++) {
		char l[32];

		dist_label(d, l, sizeof(l));
		if (m.dist[d])
			fprintf(f, " %s: %" PRIu64, l, m.dist[d]);
	}
	fprintf(f, "\n");
	if (s->has_fs)
		fprintf(f,
			"# free space: %" PRIu64 " of %" PRIu64 " blocks in %" PRIu64
			" runs, largest %" PRIu64 ", average %.1f\n",
			s->fs.free_blocks, s->fs.blocks, s->fs.free_extents,
			s->fs.free_largest,
			s->fs.free_extents
			    ? (double)s->fs.free_blocks / s->fs.free_extents
			    : 0.0);
	if (s->errors)
		fprintf(f, "# %" PRIu64 " files could not be scanned (said on stderr)\n",
			s->errors);
}

/* avg_blocks with 3 decimals and contiguity with 4, from the integers (the
 * same digits as %.3f and %.4f would print, without the float formatting
 * that took a tenth of a 200,000-file scan) */
/* v in decimal at p; returns the end */
static char *put_u64(char *p, uint64_t v)
{
	char t[20];
	int n = 0;

	do
		t[n++] = (char)('0' + v % 10);
	while (v /= 10);
	while (n)
		*p++ = t[--n];
	return p;
}

/* num / den rounded to 3 (scale 1000) or 4 (10000) decimals at p */
static char *put_fixed(char *p, uint64_t num, uint64_t den, unsigned int scale)
{
	uint64_t v = den ? (num * scale * 2 + den) / (2 * den) : 0, frac = v % scale;
	int digits = scale == 1000 ? 3 : 4;

	p = put_u64(p, v / scale);
	*p++ = '.';
	for (int k = digits - 1; k >= 0; k--, frac /= 10)
		p[k] = (char)('0' + frac % 10);
	return p + digits;
}

/* One line per file, formatted by hand: the scan of 200,000 files spent a
 * quarter of its time in printf (bench/frag_speed.sh). */
void frag_print_tsv(FILE *f, const struct frag_scan *s)
{
	/* one name, one field: tab, newline and other controls as \xNN */
	static char line[4 * 4096 + 1 + 10 * 24];

	fputs("path\tinode\tsize_bytes\tblocks\textents\tfragments\tgaps\treverse\t"
	      "largest_blocks\tavg_blocks\tcontiguity\n",
	      f);
	for (size_t i = 0; i < s->nr_files; i++) {
		const struct frag_file *x = &s->files[i];
		const uint64_t v[] = {x->ino,	     x->size_bytes,	  x->st.blocks,
				      x->st.extents, x->st.fragments,	  x->st.gaps,
				      x->st.reverse, x->st.largest_blocks};
		char *p;

		text_clean(line, 4 * 4096 + 1, x->path);
		p = line + strlen(line);
		for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
			*p++ = '\t';
			p = put_u64(p, v[k]);
		}
		*p++ = '\t';
		p = put_fixed(p, x->st.blocks, x->st.fragments, 1000);
		*p++ = '\t';
		if (x->st.blocks > 1 && x->st.fragments)
			p = put_fixed(p, x->st.blocks - x->st.fragments, x->st.blocks - 1,
				      10000);
		else
			p = (char *)memcpy(p, "1.0000", 6) + 6;
		*p++ = '\n';
		fwrite(line, 1, (size_t)(p - line), f);
	}
}

void frag_print_json(FILE *f, const struct frag_scan *s, const struct frag_out_opts *o)
{
	struct json_writer w;
	struct frag_summary m;

	summarize(s, &m);
	jw_init(&w, f, false);
	jw_start_object(&w);
	jw_string_field(&w, "scope", o->scope);
	jw_string_field(&w, "method", s->method);
	jw_string_field(&w, "how", o->how);
	jw_uint_field(&w, "block_size", s->block_size);
	jw_float_field(&w, "seconds", o->seconds);
	jw_uint_field(&w, "scan_ns", (uint64_t)(o->seconds * 1e9));
	if (s->has_fs) {
		jw_name(&w, "filesystem");
		jw_start_object(&w);
		jw_string_field(&w, "type", s->fs.type);
		jw_uint_field(&w, "blocks", s->fs.blocks);
		jw_uint_field(&w, "inodes_scanned", s->fs.inodes_scanned);
		jw_uint_field(&w, "free_blocks", s->fs.free_blocks);
		jw_uint_field(&w, "free_extents", s->fs.free_extents);
		jw_uint_field(&w, "free_largest_blocks", s->fs.free_largest);
		jw_name(&w, "free_log2_hist");
		jw_start_array(&w);
		for (int b = 0; b < 32; b++)
			jw_uint(&w, s->fs.free_hist[b]);
		jw_end_array(&w);
		jw_name(&w, "system");
		jw_start_array(&w);
		for (size_t i = 0; i < s->fs.nr_sys; i++) {
			jw_start_array(&w);
			jw_uint(&w, s->fs.sys[i].start);
			jw_uint(&w, s->fs.sys[i].len);
			jw_string(&w, frag_sys_name(s->fs.sys[i].kind));
			jw_end_array(&w);
		}
		jw_end_array(&w);
		jw_end_object(&w);
	}
	jw_name(&w, "summary");
	jw_start_object(&w);
	jw_uint_field(&w, "files", m.files);
	jw_uint_field(&w, "fragmented", m.fragmented);
	jw_float_field(&w, "fragments_per_file",
		       m.files ? (double)m.fragments / m.files : 0);
	jw_uint_field(&w, "errors", s->errors);
	jw_name(&w, "fragments_distribution");
	jw_start_object(&w);
	for (size_t d = 0; d < NR_DIST; d++) {
		char l[32];

		dist_label(d, l, sizeof(l));
		jw_uint_field(&w, l, m.dist[d]);
	}
	jw_end_object(&w);
	jw_end_object(&w);
	jw_name(&w, "files");
	jw_start_array(&w);
	for (size_t i = 0; i < s->nr_files; i++) {
		const struct frag_file *x = &s->files[i];

		jw_start_object(&w);
		jw_string_field(&w, "path", x->path);
		jw_uint_field(&w, "inode", x->ino);
		jw_uint_field(&w, "size_bytes", x->size_bytes);
		jw_uint_field(&w, "blocks", x->st.blocks);
		jw_uint_field(&w, "extents", x->st.extents);
		jw_uint_field(&w, "fragments", x->st.fragments);
		jw_uint_field(&w, "gaps", x->st.gaps);
		jw_uint_field(&w, "reverse", x->st.reverse);
		jw_uint_field(&w, "largest_blocks", x->st.largest_blocks);
		jw_float_field(&w, "avg_blocks", x->st.avg_blocks);
		jw_float_field(&w, "contiguity", x->st.contiguity);
		jw_name(&w, "map"); /* [logical, physical, length, flags] */
		jw_start_array(&w);
		for (size_t k = 0; k < x->nr_ext; k++) {
			jw_start_array(&w);
			jw_uint(&w, x->ext[k].logical);
			jw_uint(&w, x->ext[k].physical);
			jw_uint(&w, x->ext[k].len);
			jw_uint(&w, x->ext[k].flags);
			jw_end_array(&w);
		}
		jw_end_array(&w);
		jw_name(&w, "mapping_blocks");
		jw_start_array(&w);
		for (size_t k = 0; k < x->nr_meta; k++)
			jw_uint(&w, x->meta[k]);
		jw_end_array(&w);
		jw_end_object(&w);
	}
	jw_end_array(&w);
	jw_end_object(&w);
	fputc('\n', f);
}
