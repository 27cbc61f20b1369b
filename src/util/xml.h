/* SPDX-License-Identifier: GPL-2.0 */
/* Text for XML (SVG, HTML): element content and attribute values. */
#ifndef IOTRAIL_UTIL_XML_H
#define IOTRAIL_UTIL_XML_H

#include <stddef.h>
#include <stdio.h>

/* Writes s with <, >, & and " escaped. */
void xml_escape(FILE *f, const char *s);
/* An id attribute from any name: prefix + name with every byte but
 * [A-Za-z0-9_-] as '_'. */
void xml_id(char *out, size_t len, const char *prefix, const char *name);

#endif
