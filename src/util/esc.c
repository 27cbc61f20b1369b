// SPDX-License-Identifier: GPL-2.0
#include "esc.h"

#include <string.h>

char *text_clean(char *out, size_t len, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f || c == '\\') {
			if (n + 4 >= len)
				break;
			out[n++] = '\\';
			out[n++] = 'x';
			out[n++] = hex[c >> 4];
			out[n++] = hex[c & 15];
		} else {
			if (n + 1 >= len)
				break;
			out[n++] = (char)c;
		}
	}
	out[n] = 0;
	return out;
}

void csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}
