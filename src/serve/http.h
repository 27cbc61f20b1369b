/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small HTTP/1.1 server for `iotrail serve` (docs/FLEET.md): one thread,
 * non-blocking sockets under poll(), GET and HEAD only, one response per
 * connection (Connection: close). Bounded everywhere: request headers of
 * 8 KiB (431 beyond), HTTP_MAX_CONNS connections (503 beyond, and beyond
 * the process's descriptors), 10 s to send a request, 30 s to take a
 * response; a client that sends garbage gets a 400, one that goes away is
 * forgotten, and no write raises SIGPIPE.
 */
#ifndef IOTRAIL_SERVE_HTTP_H
#define IOTRAIL_SERVE_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HTTP_MAX_HEADER	      8192
#define HTTP_MAX_CONNS	      1024
#define HTTP_READ_TIMEOUT_NS  (10ull * 1000000000ull)
#define HTTP_WRITE_TIMEOUT_NS (30ull * 1000000000ull)

struct http_response {
	int status;	  /* 200, 404, ... */
	const char *type; /* Content-Type */
	char *body;	  /* malloc'd; the server frees it */
	size_t len;
};

/* path and the request's Accept header ("" when none); fills resp */
typedef void (*http_handler)(void *ctx, const char *path, const char *accept,
			     struct http_response *resp);

struct http_conn;

struct http_server {
	int fd;
	int wake[2]; /* a pipe: http_stop writes, the loop wakes */
	http_handler handle;
	void *ctx;
	struct http_conn *conns;
	size_t nr_conns;
	volatile int stop;
	/* how long a connection has to send its request, and to take the
	 * response, counted from its accept and from the response: whatever
	 * it sends or takes meanwhile (HTTP_READ_TIMEOUT_NS and
	 * HTTP_WRITE_TIMEOUT_NS, set by http_listen) */
	uint64_t read_timeout_ns, write_timeout_ns;
	/* a descriptor held back for when the process has none left: given
	 * up to accept a connection and refuse it (503), then taken again */
	int spare;
	/* out of descriptors with none to spare: the listening socket is not
	 * polled until then, or until a connection closes (no busy loop on
	 * a backlog that cannot be taken) */
	uint64_t accept_resume_ns;
	/* what happened, for tests and /healthz */
	uint64_t requests, bad_requests, too_large, refused, timeouts, resets;
};

/* A request head as http_parse reads it */
struct http_request {
	char method[8];
	char path[512];	  /* from '/', the query ("?...") cut off */
	char accept[256]; /* the Accept header's value, "" when none */
	bool head;	  /* HEAD: the response without its body */
};

/* The len bytes a client has sent so far (no NUL needed), read as a
 * request head. 0: not whole yet (no blank line); 200: a GET or HEAD,
 * in *req; else the status to refuse it with: 400 (a byte no head has, a
 * NUL included, or a first line that is not METHOD /PATH HTTP/1.x), 405
 * (another method), 431 (no blank line in HTTP_MAX_HEADER bytes). */
int http_parse(const char *in, size_t len, struct http_request *req);

/* Parses "HOST:PORT", "[V6]:PORT" or ":PORT" (every address) and listens
 * there. 0; -1 with a message naming addr in err (2: addr is malformed). */
int http_listen(struct http_server *s, const char *addr, char *err, size_t errlen);
/* Serves until http_stop. */
void http_run(struct http_server *s);
/* From another thread or a signal handler. */
void http_stop(struct http_server *s);
void http_close(struct http_server *s);

#endif
