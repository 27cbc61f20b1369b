// SPDX-License-Identifier: GPL-2.0
#include "xml.h"

#include "esc.h"

void xml_escape(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	while (*s) {
		size_t n = utf8_seq(s);

		/* XML is UTF-8 without control characters: a name's other bytes
		 * show as \xNN, as in text output (esc.h) */
		if (!n || (*s < 0x20 && *s != '\t' && *s != '\n') || *s == 0x7f) {
			fprintf(f, "\\x%02x", *s++);
			continue;
		}
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
			fwrite(s, 1, n, f);
		}
		s += n;
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
