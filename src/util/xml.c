// SPDX-License-Identifier: GPL-2.0
#include "xml.h"

void xml_escape(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			fputc(*s, f);
		}
	}
}

void xml_id(char *out, size_t len, const char *prefix, const char *name)
{
	size_t n = 0;

	for (const char *p = prefix; *p && n + 1 < len; p++)
		out[n++] = *p;
	for (const char *p = name; *p && n + 1 < len; p++)
		out[n++] = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
				   (*p >= '0' && *p <= '9') || *p == '-' || *p == '_'
			       ? *p
			       : '_';
	if (len)
		out[n] = 0;
}
