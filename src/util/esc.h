/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names from outside (process names any process chooses, device and file
 * names) into text and CSV output: the one place for each rule. XML/HTML/SVG
 * is util/xml.h, JSON util/json_writer.h.
 */
#ifndef IOTRAIL_UTIL_ESC_H
#define IOTRAIL_UTIL_ESC_H

#include <stddef.h>
#include <stdio.h>

/* s for a terminal: control characters (below 0x20, and 0x7f) and the
 * backslash as \xNN, so no name can move the cursor or rewrite a line.
 * Truncated to fit out (len > 0). Returns out. */
char *text_clean(char *out, size_t len, const char *s);

/* The length of the valid UTF-8 sequence at s (1 to 4), or 0 when the
 * byte at s does not start one (overlong forms and surrogates included). */
size_t utf8_seq(const unsigned char *s);

/* Names are bytes; JSON and XML are UTF-8. Where a name is written as JSON,
 * every byte that is not part of valid UTF-8, and the backslash itself,
 * becomes the four characters \xNN (JSON text "\\xNN"); bytes_unescape
 * turns them back, in place. */
void bytes_unescape(char *s);

/* One CSV field per RFC 4180: quoted when it holds a comma, a quote, a CR
 * or an LF, with quotes doubled. */
void csv_field(FILE *f, const char *s);

#endif
