// SPDX-License-Identifier: GPL-2.0
/* libFuzzer harness: one input is what a client sent `iotrail serve`, read
 * as a request head by http_parse (src/serve/http.c), whose answer must be
 * one it documents and, for a request, one the handler can take. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "serve/http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct http_request q;
	int st;

	/* the server never holds more than HTTP_MAX_HEADER bytes */
	if (size > HTTP_MAX_HEADER)
		size = HTTP_MAX_HEADER;
	st = http_parse((const char *)data, size, &q);
	if (st != 0 && st != 200 && st != 400 && st != 405 && st != 431)
		abort();
	if (st == 0 && size >= HTTP_MAX_HEADER)
		abort(); /* waiting on a full buffer: it would never end */
	if (st != 200)
		return 0;
	if (q.path[0] != '/' || strlen(q.path) >= sizeof(q.path) || strchr(q.path, '?') ||
	    strlen(q.accept) >= sizeof(q.accept) || strpbrk(q.accept, "\r\n") ||
	    (strcmp(q.method, "GET") && strcmp(q.method, "HEAD")) ||
	    q.head != !strcmp(q.method, "HEAD"))
		abort();
	return 0;
}
