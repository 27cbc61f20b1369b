// SPDX-License-Identifier: GPL-2.0
/* libbpf's messages and the verifier's refusals (bpflog.h). */
#include "bpflog.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

/* from libbpf's warning "prog 'NAME': failed to load: -7", and the
 * verifier's log, which comes whole in one message */
static char refused[64];
static bool too_large;

static int print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char *line = NULL;
	int n;

	if (level == LIBBPF_DEBUG || vasprintf(&line, fmt, ap) < 0)
		return 0;
	if (level == LIBBPF_WARN) {
		static const char pre[] = "libbpf: prog '";
		const char *name = NULL, *q;

		if (!strncmp(line, pre, sizeof(pre) - 1) &&
		    (q = strchr(name = line + sizeof(pre) - 1, '\'')) &&
		    !strncmp(q, "': failed to load", 17)) {
			size_t len = (size_t)(q - name);

			if (len >= sizeof(refused)) /* cut, not overrun */
				len = sizeof(refused) - 1;
			memcpy(refused, name, len);
			refused[len] = '\0';
		}
		if (strstr(line, "BPF program is too large"))
			too_large = true;
	}
	n = getenv("IOTRAIL_DEBUG") ? fputs(line, stderr) : 0;
	free(line);
	return n;
}

void bpflog_quiet(void)
{
	refused[0] = '\0';
	too_large = false;
	libbpf_set_print(print);
}

const char *bpflog_refused(void)
{
	return refused[0] ? refused : NULL;
}

const char *bpflog_why(int err, char *buf, size_t len)
{
	const char *e = strerror(err < 0 ? -err : err);

	if (!refused[0])
		snprintf(buf, len, "%s", e);
	else
		snprintf(buf, len,
			 "the kernel's verifier refused program '%s' (%s%s); "
			 "IOTRAIL_DEBUG=1 shows its log",
			 refused, e,
			 too_large ? ": past its 1,000,000 instructions" : "");
	return buf;
}
