/* SPDX-License-Identifier: GPL-2.0 */
/* Text for XML (SVG, HTML): element content and attribute values. */
#ifndef IOTRAIL_UTIL_XML_H
#define IOTRAIL_UTIL_XML_H

#include <stdio.h>

/* Writes s with <, >, & and " escaped. */
void xml_escape(FILE *f, const char *s);

#endif
