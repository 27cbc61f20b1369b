/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An analyzer: one file under src/analyze/, one line in registry.c, in the
 * spirit of perf's struct perf_tool. The analysis core calls its hooks with
 * every joined request, bio and system call; finish() turns what it kept
 * into metrics and tables of its an_output (analysis.h), which every
 * renderer prints without knowing the analyzer.
 *
 * Hooks are optional. priv is priv_size zeroed bytes, the analyzer's own.
 */
#ifndef IOTRAIL_ANALYZE_ANALYZER_H
#define IOTRAIL_ANALYZE_ANALYZER_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis.h"

struct analyzer {
	const char *name;
	const char *help; /* one line, for --help and the man page */
	size_t priv_size;
	const char *metric_unit; /* its metrics' unit heading: "us", "sectors" */

	/* 0 or -errno (a message in a->errmsg) */
	int (*init)(struct analysis *a, struct an_output *o);
	/* d: the request's device in the result (analysis.h) */
	void (*request)(struct analysis *a, void *priv, struct dev_result *d,
			const struct join_request *r);
	void (*bio)(struct analysis *a, void *priv, struct dev_result *d,
		    const struct join_request *r, const struct join_bio *b);
	void (*syscall)(struct analysis *a, void *priv, const struct join_syscall *s);
	/* a journal commit, at its end */
	void (*commit)(struct analysis *a, void *priv, const struct join_commit *c);
	/* a traced task's page fault on a file's page, or fault-around */
	void (*fault)(struct analysis *a, void *priv, const struct join_fault *f);
	/* a traced task made page cache pages dirty */
	void (*dirty)(struct analysis *a, void *priv, const struct join_dirty *d);
	/* a user marker (include/iotrail/marker.h) */
	void (*mark)(struct analysis *a, void *priv, const struct join_mark *m);
	/* a request never completed, at the trace's end (join_sink) */
	void (*unfinished)(struct analysis *a, void *priv, const struct join_request *r);
	/* an io_uring request on a file, at its completion */
	void (*uring)(struct analysis *a, void *priv, const struct join_uring *u);
	/* Optional: every request and bio after this has its times at or
	 * after ns (join_sink.floor: but for a record that came late), so
	 * what the analyzer keeps in time order below it may go. Given at
	 * the same places among the outputs whatever the threads, a part's
	 * (merge) among its own. */
	void (*floor)(struct analysis *a, void *priv, uint64_t ns);
	/* an in-kernel histogram of an --aggregate recording */
	void (*agg)(struct analysis *a, void *priv, const struct iot_agg_entry *e);
	/* Optional: the analyzer on parts of the outputs (the join's
	 * segments, each on a thread of its own: analysis_merge). src_priv
	 * is its state after the outputs of a part, which come after every
	 * output priv has seen; it adds them to priv, as if priv had seen
	 * them, and leaves src_priv to be released. devmap[i] is the index
	 * in a->devs of src's device i. 0 or -ENOMEM. An analyzer without
	 * it sees every output in one thread. */
	int (*merge)(struct analysis *a, void *priv, const struct analysis *src,
		     void *src_priv, const size_t *devmap);
	/* Optional, with merge: a part's outputs are all in; what can be
	 * done before its merge (a sort), on the thread that had them
	 * (analysis_part_end), once, before merge. */
	void (*part_end)(struct analysis *a, void *priv);
	/* metrics and tables into o; 0 or -errno */
	int (*finish)(struct analysis *a, struct an_output *o);
	void (*release)(void *priv);
};

/* The registry, in the order the renderers show the analyzers. */
extern const struct analyzer *const analyzers[];
extern const size_t nr_analyzers;

#define AN_BIT(i) (1ull << (i))
/* A registry index by name, or -1. */
int analyzer_index(const char *name);
/* "latency, syscall, ..." */
void analyzer_list(char *buf, size_t len);

#endif
