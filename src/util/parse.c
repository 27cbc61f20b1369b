// SPDX-License-Identifier: GPL-2.0
/* Size, time and rate parsing shared by every subcommand. */
#include "parse.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Reads a non-negative decimal number with optional fraction; returns the end. */
static const char *parse_number(const char *s, long double *v)
{
	char *end;

	if (!s || !*s || !(isdigit((unsigned char)*s) || *s == '.'))
		return NULL;
	errno = 0;
	*v = strtold(s, &end);
	if (errno || end == s)
		return NULL;
	return end;
}

int parse_size(const char *s, uint64_t *bytes)
{
	long double v, mul = 1;
	const char *u = parse_number(s, &v);

	if (!u)
		return -EINVAL;
	switch (tolower((unsigned char)*u)) {
	case 0:
		break;
	case 'k':
		mul = 1024.0L, u++;
		break;
	case 'm':
		mul = 1024.0L * 1024, u++;
		break;
	case 'g':
		mul = 1024.0L * 1024 * 1024, u++;
		break;
	case 't':
		mul = 1024.0L * 1024 * 1024 * 1024, u++;
		break;
	case 'b':
		break;
	default:
		return -EINVAL;
	}
	if (*u == 'b' || *u == 'B')
		u++;
	if (*u)
		return -EINVAL;
	v *= mul;
	if (v < 1 || v > (long double)UINT64_MAX / 2)
		return -EINVAL;
	*bytes = (uint64_t)v;
	return 0;
}

int parse_time(const char *s, uint64_t *ns)
{
	static const struct {
		const char *unit;
		long double ns;
	} units[] = {
	    {"", 1e9L},	  {"s", 1e9L},	{"ms", 1e6L},	{"us", 1e3L},
	    {"ns", 1.0L}, {"m", 60e9L}, {"min", 60e9L}, {"h", 3600e9L},
	};
	long double v;
	const char *u = parse_number(s, &v);

	if (!u)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcasecmp(u, units[i].unit) == 0) {
			v *= units[i].ns;
			if (v < 1 || v > 1e18L)
				return -EINVAL;
			*ns = (uint64_t)v;
			return 0;
		}
	}
	return -EINVAL;
}

int parse_rate(const char *s, uint64_t *period_ns)
{
	size_t n = s ? strlen(s) : 0;
	long double v;
	const char *u;

	if (n > 2 && strcasecmp(s + n - 2, "hz") == 0) {
		u = parse_number(s, &v);
		if (!u || strcasecmp(u, "hz") != 0 || v <= 0 || v > 1e9L)
			return -EINVAL;
		*period_ns = (uint64_t)(1e9L / v);
		return *period_ns ? 0 : -EINVAL;
	}
	return parse_time(s, period_ns);
}

int parse_count(const char *s, uint64_t *n)
{
	uint64_t v = 0;

	if (!s || !*s)
		return -EINVAL;
	for (; *s; s++) {
		uint64_t d = (uint64_t)(*s - '0');

		if (*s < '0' || *s > '9' || v > UINT64_MAX / 10 ||
		    (v == UINT64_MAX / 10 && d > UINT64_MAX % 10))
			return -EINVAL;
		v = v * 10 + d;
	}
	*n = v;
	return 0;
}

/* One CPU number of a list: digits only, below n. */
static const char *parse_cpu(const char *s, unsigned int n, unsigned int *cpu)
{
	unsigned long v = 0;

	if (*s < '0' || *s > '9')
		return NULL;
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (unsigned long)(*s - '0');
		if (v >= n)
			return NULL;
	}
	*cpu = (unsigned int)v;
	return s;
}

int parse_cpulist(const char *s, bool *set, unsigned int n)
{
	int count = 0;

	if (!s)
		return -EINVAL;
	memset(set, 0, n * sizeof(*set));
	while (*s && *s != '\n') {
		unsigned int lo, hi;

		s = parse_cpu(s, n, &lo);
		if (!s)
			return -EINVAL;
		hi = lo;
		if (*s == '-') {
			s = parse_cpu(s + 1, n, &hi);
			if (!s || hi < lo)
				return -EINVAL;
		}
		for (unsigned int c = lo; c <= hi; c++)
			if (!set[c]) {
				set[c] = true;
				count++;
			}
		if (*s == ',' && s[1] >= '0' && s[1] <= '9')
			s++;
		else if (*s && *s != '\n')
			return -EINVAL;
	}
	return *s == '\n' && s[1] ? -EINVAL : count;
}
