// SPDX-License-Identifier: GPL-2.0
/* The HTTP server of `iotrail serve` (http.h). */
#include "http.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct http_conn {
	int fd;
	char in[HTTP_MAX_HEADER];
	size_t in_len;
	char *out; /* the whole response, headers first */
	size_t out_len, out_off;
	uint64_t deadline_ns;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int parse_addr(const char *addr, struct sockaddr_storage *ss, socklen_t *len)
{
	char host[128];
	const char *colon, *port_s;
	char *end;
	long port;

	memset(ss, 0, sizeof(*ss));
	if (addr[0] == '[') {
		const char *rb = strchr(addr, ']');

		if (!rb || rb[1] != ':' || (size_t)(rb - addr - 1) >= sizeof(host))
			return -1;
		snprintf(host, sizeof(host), "%.*s", (int)(rb - addr - 1), addr + 1);
		port_s = rb + 2;
	} else {
		colon = strrchr(addr, ':');
		if (!colon || (size_t)(colon - addr) >= sizeof(host))
			return -1;
		snprintf(host, sizeof(host), "%.*s", (int)(colon - addr), addr);
		port_s = colon + 1;
	}
	errno = 0;
	port = strtol(port_s, &end, 10);
	if (!*port_s || *end || errno || port < 1 || port > 65535)
		return -1;
	if (!host[0] ||
	    inet_pton(AF_INET, host, &((struct sockaddr_in *)ss)->sin_addr) == 1) {
		struct sockaddr_in *in = (struct sockaddr_in *)ss;

		in->sin_family = AF_INET;
		in->sin_port = htons((uint16_t)port);
		if (!host[0])
			in->sin_addr.s_addr = htonl(INADDR_ANY);
		*len = sizeof(*in);
		return 0;
	}
	if (inet_pton(AF_INET6, host, &((struct sockaddr_in6 *)ss)->sin6_addr) == 1) {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*in6);
		return 0;
	}
	return -1;
}

int http_listen(struct http_server *s, const char *addr, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int one = 1;

	memset(s, 0, sizeof(*s));
	s->fd = s->wake[0] = s->wake[1] = s->spare = -1;
	s->read_timeout_ns = HTTP_READ_TIMEOUT_NS;
	s->write_timeout_ns = HTTP_WRITE_TIMEOUT_NS;
	if (parse_addr(addr, &ss, &len)) {
		snprintf(err, errlen,
			 "--listen '%s': not an address and port (127.0.0.1:9464, "
			 "[::1]:9464, :9464)",
			 addr);
		return 2;
	}
	s->fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->fd < 0 || setsockopt(s->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(s->fd, (struct sockaddr *)&ss, len) || listen(s->fd, 256)) {
		snprintf(err, errlen, "--listen %s: %s", addr, strerror(errno));
		if (s->fd >= 0)
			close(s->fd);
		s->fd = -1;
		return -1;
	}
	if (pipe2(s->wake, O_NONBLOCK | O_CLOEXEC)) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		close(s->fd);
		s->fd = -1;
		return -1;
	}
	s->spare = open("/dev/null", O_RDONLY | O_CLOEXEC); /* -1: none to spare */
	s->conns = calloc(HTTP_MAX_CONNS, sizeof(*s->conns));
	if (!s->conns) {
		snprintf(err, errlen, "out of memory");
		http_close(s);
		return -1;
	}
	return 0;
}

static void drop(struct http_server *s, size_t i)
{
	close(s->conns[i].fd);
	s->accept_resume_ns = 0; /* a descriptor is free again */
	if (s->spare < 0)	 /* lost to another thread: this one is the reserve */
		s->spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
	free(s->conns[i].out);
	/* the last one takes its place: the array stays dense */
	s->conns[i] = s->conns[--s->nr_conns];
	s->conns[s->nr_conns].out = NULL;
}

static const char *reason(int status)
{
	switch (status) {
	case 200:
		return "OK";
	case 400:
		return "Bad Request";
	case 404:
		return "Not Found";
	case 405:
		return "Method Not Allowed";
	case 431:
		return "Request Header Fields Too Large";
	case 500:
		return "Internal Server Error";
	case 503:
		return "Service Unavailable";
	default:
		return "Error";
	}
}

/* the whole response into c->out; a body of NULL is a short text */
static void respond(struct http_server *s, struct http_conn *c, int status,
		    const char *type, char *body, size_t len, bool head)
{
	char hdr[256], text[64];
	int n;

	if (!body) {
		len = (size_t)snprintf(text, sizeof(text), "%d %s\n", status,
				       reason(status));
		type = "text/plain; charset=utf-8";
	}
	n = snprintf(hdr, sizeof(hdr),
		     "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
		     "Connection: close\r\n\r\n",
		     status, reason(status), type, len);
	c->out = malloc((size_t)n + (head ? 0 : len));
	if (c->out) {
		memcpy(c->out, hdr, (size_t)n);
		if (!head)
			memcpy(c->out + n, body ? body : text, len);
		c->out_len = (size_t)n + (head ? 0 : len);
	}
	c->out_off = 0;
	free(body);
	c->deadline_ns = mono_ns() + s->write_timeout_ns;
}

int http_parse(const char *in, size_t len, struct http_request *req)
{
	char version[16];
	const char *end = NULL, *a, *p;
	int n;

	memset(req, 0, sizeof(*req));
	/* a byte no request head has (a NUL included): refused at once,
	 * not waited on until the head is whole */
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)in[i];

		if (!isprint(ch) && !isspace(ch))
			return 400;
		if (ch == '\n' && !end) {
			if (i + 1 < len && in[i + 1] == '\n')
				end = in + i + 2;
			else if (i + 2 < len && in[i + 1] == '\r' && in[i + 2] == '\n')
				end = in + i + 3;
		}
	}
	if (!end)
		return len >= HTTP_MAX_HEADER ? 431 : 0;
	/* the head, in[0, end), as a string of its own (in has no NUL at
	 * its end, and what follows the blank line is not the head's) */
	{
		char head[HTTP_MAX_HEADER + 1];
		size_t hl = (size_t)(end - in);

		if (hl > HTTP_MAX_HEADER)
			return 431;
		memcpy(head, in, hl);
		head[hl] = 0;
		n = sscanf(head, "%7s %511s %15s", req->method, req->path, version);
		if (n != 3 || strncmp(version, "HTTP/1.", 7) || req->path[0] != '/')
			return 400;
		if (strcmp(req->method, "GET") && strcmp(req->method, "HEAD"))
			return 405;
		req->head = !strcmp(req->method, "HEAD");
		a = strcasestr(head, "\nAccept:");
		if (a) {
			a += 8;
			while (*a == ' ' || *a == '\t')
				a++;
			p = strpbrk(a, "\r\n");
			snprintf(req->accept, sizeof(req->accept), "%.*s",
				 (int)(p ? p - a : (long)strlen(a)), a);
		}
	}
	req->path[strcspn(req->path, "?")] = 0; /* the query is not ours to read */
	return 200;
}

/* c->in parsed: answered, or (0) still to come */
static void answer(struct http_server *s, struct http_conn *c)
{
	struct http_request q;
	struct http_response r = {0};
	int st = http_parse(c->in, c->in_len, &q);

	switch (st) {
	case 0:
		return;
	case 200:
		break;
	case 405:
		s->requests++;
		respond(s, c, st, NULL, NULL, 0, false);
		return;
	case 431:
		s->too_large++;
		respond(s, c, st, NULL, NULL, 0, false);
		return;
	default:
		s->bad_requests++;
		respond(s, c, st, NULL, NULL, 0, false);
		return;
	}
	s->requests++;
	s->handle(s->ctx, q.path, q.accept, &r);
	if (!r.status)
		r.status = 500;
	respond(s, c, r.status, r.type ? r.type : "text/plain; charset=utf-8", r.body,
		r.len, q.head);
}

static void on_read(struct http_server *s, size_t i)
{
	struct http_conn *c = &s->conns[i];
	ssize_t n;

	n = recv(c->fd, c->in + c->in_len, HTTP_MAX_HEADER - c->in_len, MSG_DONTWAIT);
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		s->resets++;
		drop(s, i);
		return;
	}
	if (n < 0)
		return;
	c->in_len += (size_t)n;
	answer(s, c);
}

/* false when the connection is done (dropped) */
static bool on_write(struct http_server *s, size_t i)
{
	struct http_conn *c = &s->conns[i];
	ssize_t n;

	if (!c->out) { /* out of memory for the response */
		drop(s, i);
		return false;
	}
	n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
		 MSG_DONTWAIT | MSG_NOSIGNAL);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return true;
	if (n < 0) {
		s->resets++;
		drop(s, i);
		return false;
	}
	c->out_off += (size_t)n;
	if (c->out_off == c->out_len) {
		/* what the client still sends is not read: close it now */
		shutdown(c->fd, SHUT_WR);
		drop(s, i);
		return false;
	}
	return true;
}

/* a connection there is no room for: 503, and closed */
static void refuse(struct http_server *s, int fd)
{
	static const char busy[] = "HTTP/1.1 503 Service Unavailable\r\n"
				   "Content-Length: 0\r\nConnection: close\r\n\r\n";

	s->refused++;
	if (send(fd, busy, sizeof(busy) - 1, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		s->resets++;
	close(fd);
}

/* accept4 failed for want of descriptors: each connection waiting is
 * taken with the spare one and refused; with none to spare, the listening
 * socket rests a while (it would be readable at every poll). False when
 * nothing more can be taken now. */
static bool out_of_fds(struct http_server *s)
{
	int fd;

	if (s->spare >= 0) {
		close(s->spare);
		fd = accept4(s->fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd >= 0)
			refuse(s, fd);
		s->spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fd >= 0 && s->spare >= 0)
			return true;
		if (fd < 0 && errno == EAGAIN)
			return false; /* none was waiting after all */
	}
	s->accept_resume_ns = mono_ns() + 100000000ull;
	return false;
}

static void on_accept(struct http_server *s)
{
	for (;;) {
		int fd = accept4(s->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct http_conn *c;

		if (fd < 0) {
			if ((errno == EMFILE || errno == ENFILE) && out_of_fds(s))
				continue;
			return;
		}
		if (s->nr_conns == HTTP_MAX_CONNS) {
			refuse(s, fd);
			continue;
		}
		c = &s->conns[s->nr_conns++];
		memset(c, 0, offsetof(struct http_conn, in));
		c->fd = fd;
		c->in_len = 0;
		c->out = NULL;
		c->deadline_ns = mono_ns() + s->read_timeout_ns;
	}
}

void http_run(struct http_server *s)
{
	struct pollfd *pfd = calloc(HTTP_MAX_CONNS + 2, sizeof(*pfd));

	if (!pfd)
		return;
	while (!s->stop) {
		uint64_t now;
		size_t n = s->nr_conns;
		int r;

		now = mono_ns();
		if (s->accept_resume_ns && now >= s->accept_resume_ns)
			s->accept_resume_ns = 0;
		pfd[0] = (struct pollfd){.fd = s->fd,
					 .events = s->accept_resume_ns ? 0 : POLLIN};
		pfd[1] = (struct pollfd){.fd = s->wake[0], .events = POLLIN};
		for (size_t i = 0; i < n; i++)
			pfd[i + 2] =
			    (struct pollfd){.fd = s->conns[i].fd,
					    .events = s->conns[i].out ? POLLOUT : POLLIN};
		r = poll(pfd, n + 2,
			 s->accept_resume_ns
			     ? (int)((s->accept_resume_ns - now) / 1000000 + 1)
			     : 1000);
		/* poll refused (EINVAL: more descriptors than the soft limit,
		 * lowered under a running server; ENOMEM): the server does
		 * not stop, it waits a little and holds the connections to
		 * their deadlines, which brings their number down */
		if (r < 0 && errno != EINTR)
			nanosleep(&(struct timespec){.tv_nsec = 20000000}, NULL);
		now = mono_ns();
		/* from the last, so that a drop (the last takes the freed
		 * place) never skips one */
		for (size_t k = n; k-- > 0;) {
			struct http_conn *c = &s->conns[k];
			short ev = pfd[k + 2].revents;

			/* the deadline first: a client that sends or takes
			 * a byte at a time is still held to it */
			if (ev & (POLLERR | POLLNVAL)) {
				s->resets++;
				drop(s, k);
			} else if (now > c->deadline_ns) {
				s->timeouts++;
				drop(s, k);
			} else if (c->out && (ev & (POLLOUT | POLLHUP))) {
				on_write(s, k);
			} else if (!c->out && (ev & (POLLIN | POLLHUP))) {
				on_read(s, k);
			}
		}
		if (pfd[0].revents & POLLIN)
			on_accept(s);
	}
	free(pfd);
}

void http_stop(struct http_server *s)
{
	s->stop = 1;
	if (s->wake[1] >= 0 && write(s->wake[1], "x", 1) < 0) {
		/* full: it is awake already */
	}
}

void http_close(struct http_server *s)
{
	while (s->nr_conns)
		drop(s, s->nr_conns - 1);
	free(s->conns);
	s->conns = NULL;
	if (s->fd >= 0)
		close(s->fd);
	for (int i = 0; i < 2; i++)
		if (s->wake[i] >= 0)
			close(s->wake[i]);
	if (s->spare >= 0)
		close(s->spare);
	s->fd = s->wake[0] = s->wake[1] = s->spare = -1;
}
