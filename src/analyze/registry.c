// SPDX-License-Identifier: GPL-2.0
/*
 * The analyzers, in the order the renderers show them. A new analyzer is
 * its file and one line here (docs/ARCHITECTURE.md, "Where does X go").
 */
#include <stdio.h>
#include <string.h>

#include "analyzer.h"

/* one line an analyzer: X(name) for its `const struct analyzer an_name` */
#define ANALYZERS(X)                                                                     \
	X(latency)                                                                       \
	X(syscall)                                                                       \
	X(biotime)                                                                       \
	X(elvtime)                                                                       \
	X(iosector)                                                                      \
	X(sizes)                                                                         \
	X(tasks)                                                                         \
	X(who)                                                                           \
	X(flows)                                                                         \
	X(fsync)                                                                         \
	X(uring)                                                                         \
	X(marks)                                                                         \
	X(correlate)                                                                     \
	X(windows)                                                                       \
	X(driver)                                                                        \
	X(patterns)                                                                      \
	X(overlay)

#define DECLARE(n) extern const struct analyzer an_##n;
#define ENTRY(n)   &an_##n,
ANALYZERS(DECLARE)
const struct analyzer *const analyzers[] = {ANALYZERS(ENTRY)};
const size_t nr_analyzers = sizeof(analyzers) / sizeof(analyzers[0]);

int analyzer_index(const char *name)
{
	for (size_t i = 0; i < nr_analyzers; i++)
		if (!strcmp(name, analyzers[i]->name))
			return (int)i;
	return -1;
}

void analyzer_list(char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = 0;
	for (size_t i = 0; i < nr_analyzers && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "",
					analyzers[i]->name);
}
