// SPDX-License-Identifier: GPL-2.0
/*
 * Flow definitions (flowdef.h): a small INI reader. Every message names
 * the file, the line and the column of what it could not take.
 */
#include "flowdef.h"
#include "devices.h"
#include "../util/grow.h"
#include "../util/parse.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

static const char builtin[] =
    "# the traced processes' (COMMAND, -p; every task without them) calls\n"
    "[command]\n"
    "start = syscall, io_uring\n"
    "# reads: calls, io_uring requests and read-ahead\n"
    "[reads]\n"
    "start = syscall, io_uring, readahead\n"
    "op = read\n"
    "# writes: calls, io_uring requests, writeback and the journal\n"
    "[writes]\n"
    "start = syscall, io_uring, writeback, journal\n"
    "op = write, sync\n"
    "[sync]\n"
    "start = syscall, io_uring\n"
    "op = sync\n"
    "[writeback]\n"
    "start = writeback\n"
    "[journal]\n"
    "start = journal\n";

struct name_bit {
	const char *name;
	uint32_t bit;
};

static const struct name_bit starts[] = {
    {"syscall", IOT_FLOW_START_SYSCALL},     {"io_uring", IOT_FLOW_START_URING},
    {"writeback", IOT_FLOW_START_WRITEBACK}, {"journal", IOT_FLOW_START_JOURNAL},
    {"readahead", IOT_FLOW_START_READAHEAD}, {"flush", IOT_FLOW_START_FLUSH},
    {"other", IOT_FLOW_START_OTHER},	     {"fault", IOT_FLOW_START_FAULT},
};

static const struct name_bit ops[] = {
    {"read", IOT_FLOW_OP_READ},
    {"write", IOT_FLOW_OP_WRITE},
    {"sync", IOT_FLOW_OP_SYNC},
};

struct cursor {
	const char *fname;
	int line;
	const char *bol; /* the line's first character */
	char *err;
	size_t errlen;
};

static int fail(const struct cursor *c, const char *at, const char *fmt, ...)
{
	size_t n;
	va_list ap;

	n = (size_t)snprintf(c->err, c->errlen, "%s:%d:%d: ", c->fname, c->line,
			     (int)(at - c->bol) + 1);
	if (n < c->errlen) {
		va_start(ap, fmt);
		vsnprintf(c->err + n, c->errlen - n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* a word list "a, b, c" of names from a table: bits */
#define WORDS(c, at, val, tab, what, out)                                                \
	words(c, at, val, tab, sizeof(tab) / sizeof((tab)[0]), what, out)

static int words(const struct cursor *c, const char *at, const char *val,
		 const struct name_bit *tab, size_t n, const char *what, uint32_t *out)
{
	const char *p = val;

	*out = 0;
	while (*p) {
		size_t len = strcspn(p, ", \t");
		bool found = false;

		for (size_t i = 0; i < n && len; i++)
			if (strlen(tab[i].name) == len && !strncmp(tab[i].name, p, len)) {
				*out |= tab[i].bit;
				found = true;
			}
		if (!found) {
			char list[160] = "";

			for (size_t i = 0; i < n; i++)
				snprintf(list + strlen(list), sizeof(list) - strlen(list),
					 "%s%s", i ? ", " : "", tab[i].name);
			return fail(c, at + (p - val), "%s '%.*s': not one of %s", what,
				    (int)(len ? len : 1), p, list);
		}
		p += len;
		p += strspn(p, ", \t");
	}
	return 0;
}

/* "A-B", "A-", "-B" or "A" (sizes): [min, max] */
static int range(const struct cursor *c, const char *at, const char *val, const char *key,
		 __u64 *min, __u64 *max)
{
	char a[64], b[64];
	const char *dash = strchr(val, '-');

	*min = 0;
	*max = UINT64_MAX;
	if (!dash) {
		uint64_t v;

		if (parse_size(val, &v))
			return fail(c, at,
				    "%s '%s': not a size (4k, 1m) or range (4k-1m)", key,
				    val);
		*min = *max = v;
		return 0;
	}
	snprintf(a, sizeof(a), "%.*s", (int)(dash - val), val);
	snprintf(b, sizeof(b), "%s", dash + 1);
	uint64_t lo = 0, hi = UINT64_MAX;

	if (*a && parse_size(a, &lo))
		return fail(c, at, "%s '%s': not a size", key, a);
	if (*b && parse_size(b, &hi))
		return fail(c, at + (dash + 1 - val), "%s '%s': not a size", key, b);
	*min = lo;
	*max = hi;
	if (*min > *max)
		return fail(c, at, "%s %s: the range is empty", key, val);
	return 0;
}

static uint32_t kdev(dev_t d)
{
	return KDEV(major(d), minor(d));
}

static int set_key(const struct cursor *c, struct flowdef *f, const char *key,
		   const char *kat, const char *val, const char *vat)
{
	struct iot_flow_def *d = &f->d;
	struct stat st;
	uint64_t n;

	if (!*val)
		return fail(c, vat, "%s: no value", key);
	if (!strcmp(key, "start"))
		return WORDS(c, vat, val, starts, "start", &d->starts);
	if (!strcmp(key, "op"))
		return WORDS(c, vat, val, ops, "op", &d->ops);
	if (!strcmp(key, "size"))
		return range(c, vat, val, key, &d->size_min, &d->size_max);
	if (!strcmp(key, "offset"))
		return range(c, vat, val, key, &d->off_min, &d->off_max);
	if (!strcmp(key, "pid")) {
		if (parse_count(val, &n) || !n || n > UINT32_MAX)
			return fail(c, vat, "pid '%s': not a process id", val);
		d->tgid = (uint32_t)n;
		return 0;
	}
	if (!strcmp(key, "comm")) {
		if (strlen(val) >= sizeof(d->comm))
			return fail(c, vat,
				    "comm '%s': longer than the kernel's 15 characters",
				    val);
		memcpy(d->comm, val, strlen(val) + 1);
		return 0;
	}
	if (!strcmp(key, "file")) {
		if (stat(val, &st))
			return fail(c, vat, "file %s: %s", val, strerror(errno));
		if (!S_ISREG(st.st_mode))
			return fail(c, vat, "file %s: not a regular file", val);
		d->ino = st.st_ino;
		d->dev = kdev(st.st_dev);
		return 0;
	}
	if (!strcmp(key, "cgroup")) {
		if (stat(val, &st))
			return fail(c, vat, "cgroup %s: %s", val, strerror(errno));
		if (!S_ISDIR(st.st_mode))
			return fail(c, vat, "cgroup %s: not a directory", val);
		d->cgroup =
		    (uint32_t)st.st_ino; /* the kernfs id, as the programs read it */
		return 0;
	}
	if (!strcmp(key, "dev")) {
		unsigned ma, mi;
		char path[300], end;

		if (sscanf(val, "%u:%u%c", &ma, &mi, &end) == 2) {
			d->dev = KDEV(ma, mi);
			return 0;
		}
		snprintf(path, sizeof(path), "%s%s", val[0] == '/' ? "" : "/dev/", val);
		if (stat(path, &st))
			return fail(c, vat, "dev %s: %s", val, strerror(errno));
		if (!S_ISBLK(st.st_mode))
			return fail(c, vat, "dev %s: not a block device", val);
		d->dev = kdev(st.st_rdev);
		return 0;
	}
	return fail(
	    c, kat,
	    "unknown key '%s' (start, op, pid, comm, cgroup, file, dev, size, offset)",
	    key);
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

/* A section ends: it must say where its flows start. */
static int finish(const struct cursor *c, const struct flowdef *f, int sect_line)
{
	if (!f || f->d.starts)
		return 0;
	snprintf(c->err, c->errlen,
		 "%s:%d:1: [%s]: no start (start = syscall, io_uring, ...)", c->fname,
		 sect_line, f->name);
	return -EINVAL;
}

int flowdefs_parse(struct flowdefs *defs, const char *text, const char *fname, char *err,
		   size_t errlen)
{
	struct cursor c = {.fname = fname, .err = err, .errlen = errlen};
	struct flowdef *cur = NULL;
	char line[1024];
	const char *p = text;
	int sect_line = 0;

	while (*p) {
		size_t len = strcspn(p, "\n");
		char *s, *eq, *key, *val;

		c.line++;
		if (len >= sizeof(line)) {
			c.bol = p;
			return fail(&c, p, "line longer than %zu characters",
				    sizeof(line) - 1);
		}
		memcpy(line, p, len);
		line[len] = 0;
		c.bol = line;
		p += len + (p[len] == '\n');
		s = line + strspn(line, " \t");
		if (!*s || *s == '#' || *s == ';')
			continue;
		if (*s == '[') {
			char *close = strchr(s, ']');
			char *name;

			if (finish(&c, cur, sect_line))
				return -EINVAL;
			if (!close)
				return fail(&c, s, "a section without its ']'");
			if (*trim(close + 1) && *trim(close + 1) != '#')
				return fail(&c, close + 1,
					    "text after the section's ']'");
			*close = 0;
			name = trim(s + 1);
			if (!*name)
				return fail(&c, s, "a section without a name");
			for (const char *q = name; *q; q++)
				if (!isalnum((unsigned char)*q) && *q != '-' && *q != '_')
					return fail(
					    &c, line + (q - line),
					    "flow name '%s': letters, digits, '-' and "
					    "'_' only",
					    name);
			if (strlen(name) >= sizeof(cur->name))
				return fail(&c, name, "flow name '%s': longer than %zu",
					    name, sizeof(cur->name) - 1);
			cur = (struct flowdef *)flowdefs_find(defs, name);
			if (!cur) {
				if (GROW(defs->v, defs->n + 1, defs->cap))
					return -ENOMEM;
				cur = &defs->v[defs->n++];
			}
			memset(cur, 0, sizeof(*cur));
			snprintf(cur->name, sizeof(cur->name), "%s", name);
			snprintf(cur->where, sizeof(cur->where), "%s:%d", fname, c.line);
			cur->d.size_max = cur->d.off_max = UINT64_MAX;
			sect_line = c.line;
			continue;
		}
		eq = strchr(s, '=');
		if (!eq)
			return fail(&c, s, "not 'key = value' nor '[name]'");
		if (!cur) {
			*eq = 0;
			return fail(&c, s, "'%s' before any [name]", trim(s));
		}
		*eq = 0;
		key = trim(s);
		val = trim(eq + 1);
		{
			char *hash = strstr(val, " #");

			if (hash)
				*hash = 0, val = trim(val);
		}
		if (set_key(&c, cur, key, key, val, val))
			return -EINVAL;
	}
	return finish(&c, cur, sect_line);
}

int flowdefs_builtin(struct flowdefs *defs, char *err, size_t errlen)
{
	return flowdefs_parse(defs, builtin, "<built-in>", err, errlen);
}

int flowdefs_load(struct flowdefs *defs, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t len = 0, cap = 0, n;
	int ret;

	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	do {
		if (GROW(text, len + 4097, cap)) {
			fclose(f);
			free(text);
			return -ENOMEM;
		}
		n = fread(text + len, 1, 4096, f);
		len += n;
	} while (n == 4096);
	fclose(f);
	text[len] = 0;
	if (strlen(text) != len) {
		snprintf(err, errlen, "%s: byte %zu: a NUL byte, not a text file", path,
			 strlen(text));
		free(text);
		return -EINVAL;
	}
	ret = flowdefs_parse(defs, text, path, err, errlen);
	free(text);
	return ret;
}

const struct flowdef *flowdefs_find(const struct flowdefs *defs, const char *name)
{
	for (size_t i = 0; i < defs->n; i++)
		if (!strcmp(defs->v[i].name, name))
			return &defs->v[i];
	return NULL;
}

#define PUT(...)                                                                         \
	do {                                                                             \
		if (used < len)                                                          \
			used += (size_t)snprintf(out + used, len - used, __VA_ARGS__);   \
	} while (0)

void flowdef_describe(const struct flowdef *f, char *out, size_t len)
{
	const struct iot_flow_def *d = &f->d;
	size_t used = 0;
	bool first = true;

	out[0] = 0;
	PUT("%s: start=", f->name);
	for (size_t i = 0; i < sizeof(starts) / sizeof(starts[0]); i++)
		if (d->starts & starts[i].bit) {
			PUT("%s%s", first ? "" : ",", starts[i].name);
			first = false;
		}
	if (d->ops) {
		first = true;
		PUT(" op=");
		for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
			if (d->ops & ops[i].bit) {
				PUT("%s%s", first ? "" : ",", ops[i].name);
				first = false;
			}
	}
	if (d->tgid)
		PUT(" pid=%u", d->tgid);
	if (d->comm[0])
		PUT(" comm=%s", d->comm);
	if (d->cgroup)
		PUT(" cgroup=%llu", (unsigned long long)d->cgroup);
	if (d->dev)
		PUT(" dev=%u:%u", KDEV_MAJOR(d->dev), KDEV_MINOR(d->dev));
	if (d->ino)
		PUT(" ino=%llu", (unsigned long long)d->ino);
	if (d->size_min || d->size_max != UINT64_MAX)
		PUT(" size=%llu-%llu", (unsigned long long)d->size_min,
		    (unsigned long long)d->size_max);
	if (d->off_min || d->off_max != UINT64_MAX)
		PUT(" offset=%llu-%llu", (unsigned long long)d->off_min,
		    (unsigned long long)d->off_max);
	if (used >= len && len)
		out[len - 1] = 0;
}

void flowdefs_release(struct flowdefs *defs)
{
	free(defs->v);
	memset(defs, 0, sizeof(*defs));
}
