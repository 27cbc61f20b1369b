// SPDX-License-Identifier: GPL-2.0
/* The patterns table (groups.h) in text, CSV and JSON: the same numbers,
 * the same rounding (fragments per file to 0.01, MB/s to 0.1). */
#include <inttypes.h>

#include "../util/json_writer.h"
#include "render.h"

static double share(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

void render_patterns_text(FILE *f, const struct groups *gs)
{
	fprintf(f, "\nPatterns: reads by file set%s\n",
		gs->by_layout ? " (the layout's directories)"
			      : " (no --layout: every read)");
	fprintf(f, "%-10s %5s %9s %8s %9s %11s %11s %11s %11s %9s %12s\n", "PATTERN",
		"FILES", "FRAG/FILE", "READ_MB", "MB/s", "SYSCALL_us", "BIO_us",
		"SCHED_us", "DEVICE_us", "SEEKS_%", "SECTOR_DIFF");
	for (size_t i = 0; i < gs->nr; i++) {
		const struct file_group *g = &gs->g[i];

		fprintf(f,
			"%-10s %5zu %9.2f %8.1f %9.1f %11.1f %11.1f %11.1f %11.1f %9.1f "
			"%12.0f\n",
			g->name, g->nr_files, group_frags_per_file(g),
			(double)g->bytes / 1e6, group_mbps(g), tally_avg(&g->sys) / 1e3,
			tally_avg(&g->bio) / 1e3, tally_avg(&g->elv) / 1e3,
			tally_avg(&g->dev) / 1e3, share(g->seeks, g->sdiff.n),
			tally_avg(&g->sdiff));
	}
	fprintf(f,
		"  times are averages: syscall = read enter to exit, bio = Q2C, sched = "
		"I2D, device = D2C;\n  SEEKS_%% = dispatches not starting where the "
		"previous one ended, SECTOR_DIFF = their average distance (sectors)\n");
	if (gs->file && gs->traced_blocks)
		fprintf(f,
			"  %s: %" PRIu64 " traced blocks, %.1f%% where the layout says\n",
			gs->file->path, gs->traced_blocks,
			share(gs->traced_where, gs->traced_blocks));
}

void render_patterns_csv(FILE *f, const struct groups *gs)
{
	fprintf(f,
		"pattern,files,fragments_per_file,fragments_min,fragments_max,reads,"
		"bytes,seconds,throughput_mbps,syscall_avg_ns,syscall_max_ns,bio_avg_ns,"
		"bio_max_ns,scheduler_avg_ns,scheduler_max_ns,device_avg_ns,device_max_"
		"ns,dispatches,seeks,sector_diff_avg,sector_diff_max\n");
	for (size_t i = 0; i < gs->nr; i++) {
		const struct file_group *g = &gs->g[i];

		fprintf(
		    f,
		    "%s,%zu,%.2f,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
		    ",%.6f,%.1f,%.0f,%" PRIu64 ",%.0f,%" PRIu64 ",%.0f,%" PRIu64
		    ",%.0f,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.0f,%" PRIu64 "\n",
		    g->name, g->nr_files, group_frags_per_file(g), g->frags_min,
		    g->frags_max, g->reads, g->bytes,
		    g->last_ns > g->first_ns ? (double)(g->last_ns - g->first_ns) / 1e9
					     : 0.0,
		    group_mbps(g), tally_avg(&g->sys), g->sys.max, tally_avg(&g->bio),
		    g->bio.max, tally_avg(&g->elv), g->elv.max, tally_avg(&g->dev),
		    g->dev.max, g->sdiff.n, g->seeks, tally_avg(&g->sdiff), g->sdiff.max);
	}
}

static void tally_json(struct json_writer *w, const char *name, const struct tally *t)
{
	jw_name(w, name);
	jw_start_object(w);
	jw_uint_field(w, "count", t->n);
	jw_uint_field(w, "sum", t->sum);
	jw_uint_field(w, "min", t->min);
	jw_uint_field(w, "max", t->max);
	jw_end_object(w);
}

void render_patterns_json(struct json_writer *w, const struct groups *gs)
{
	jw_name(w, "patterns");
	jw_start_array(w);
	for (size_t i = 0; i < gs->nr; i++) {
		const struct file_group *g = &gs->g[i];

		jw_start_object(w);
		jw_string_field(w, "pattern", g->name);
		jw_uint_field(w, "files", g->nr_files);
		jw_uint_field(w, "fragments_sum", g->frags_sum);
		jw_uint_field(w, "fragments_min", g->frags_min);
		jw_uint_field(w, "fragments_max", g->frags_max);
		jw_uint_field(w, "reads", g->reads);
		jw_uint_field(w, "bytes", g->bytes);
		jw_uint_field(w, "first_ns", g->first_ns);
		jw_uint_field(w, "last_ns", g->last_ns);
		jw_float_field(w, "throughput_mbps", group_mbps(g));
		tally_json(w, "syscall_ns", &g->sys);
		tally_json(w, "bio_ns", &g->bio);
		tally_json(w, "scheduler_ns", &g->elv);
		tally_json(w, "device_ns", &g->dev);
		tally_json(w, "sector_diff", &g->sdiff);
		jw_uint_field(w, "seeks", g->seeks);
		jw_end_object(w);
	}
	jw_end_array(w);
	if (gs->file) {
		jw_name(w, "block_order");
		jw_start_object(w);
		jw_string_field(w, "file", gs->file->path);
		jw_uint_field(w, "inode", gs->file->ino);
		jw_uint_field(w, "traced_blocks", gs->traced_blocks);
		jw_uint_field(w, "where_layout_says", gs->traced_where);
		jw_end_object(w);
	}
}
