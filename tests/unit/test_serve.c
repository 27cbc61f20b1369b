// SPDX-License-Identifier: GPL-2.0
/* iotrail serve's pieces (src/serve/): the exposition's arithmetic, the
 * listen address parser, the server's deadlines. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"
#include "serve/http.h"
#include "serve/metrics.h"

static const char *name(void *ctx, uint32_t dev)
{
	return "sd\"a"; /* a quote: escaped in the label */
}

static char *exposition(const struct iot_agg_entry *e, size_t n, bool om)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	static const char *const sys[] = {"read"};
	struct metrics_info mi = {.dev_name = name,
				  .syscall_names = sys,
				  .nr_syscall_names = 1,
				  .lost = 3,
				  .scrapes = 1,
				  .openmetrics = om};

	metrics_write(f, e, n, &mi);
	fclose(f);
	return buf;
}

/* D2C values in log2 buckets 9 (below the first le), 11, 11 and 40
 * (beyond the last): cumulative counts at each le, +Inf, _count, _sum */
static void buckets(void **state)
{
	struct iot_agg_entry e = {.dev = 8u << 20, .op = 0, .metric = IOT_AGG_D2C};
	char *t;

	(void)state;
	e.buckets[9] = 1;
	e.buckets[11] = 2;
	e.buckets[40] = 1;
	e.sum = 5000000000ull;
	t = exposition(&e, 1, false);
	/* le = 2^10 ns holds bucket 9; 2^11 still only that; 2^12 adds 11 */
	assert_non_null(strstr(
	    t, "{device=\"sd\\\"a\",op=\"read\",stage=\"d2c\",le=\"1.024e-06\"} 1\n"));
	assert_non_null(strstr(t, ",le=\"2.048e-06\"} 1\n"));
	assert_non_null(strstr(t, ",le=\"4.096e-06\"} 3\n"));
	assert_non_null(strstr(t, ",le=\"34.359738368\"} 3\n"));
	assert_non_null(strstr(t, ",le=\"+Inf\"} 4\n"));
	assert_non_null(strstr(t, "iotrail_request_latency_seconds_count{device="
				  "\"sd\\\"a\",op=\"read\",stage=\"d2c\"} 4\n"));
	assert_non_null(strstr(
	    t, "_sum{device=\"sd\\\"a\",op=\"read\",stage=\"d2c\"} 5.000000000\n"));
	assert_non_null(strstr(t, "iotrail_lost_requests_total 3\n"));
	assert_non_null(strstr(t, "# TYPE iotrail_requests_total counter\n"));
	assert_null(strstr(t, "# EOF"));
	free(t);
	t = exposition(&e, 1, true);
	assert_non_null(strstr(t, "# TYPE iotrail_requests counter\n"));
	assert_non_null(strstr(t, "# EOF\n"));
	free(t);
}

/* Q2C entries are the request counter; SIZE's sum the byte counter */
static void counters(void **state)
{
	struct iot_agg_entry e[2] = {{.dev = 8u << 20, .op = 1, .metric = IOT_AGG_Q2C},
				     {.dev = 8u << 20, .op = 1, .metric = IOT_AGG_SIZE}};
	char *t;

	(void)state;
	e[0].buckets[15] = 7;
	e[1].buckets[12] = 7;
	e[1].sum = 7 * 4096;
	t = exposition(e, 2, false);
	assert_non_null(
	    strstr(t, "iotrail_requests_total{device=\"sd\\\"a\",op=\"write\"} 7\n"));
	assert_non_null(
	    strstr(t, "iotrail_bytes_total{device=\"sd\\\"a\",op=\"write\"} 28672\n"));
	free(t);
}

static void addresses(void **state)
{
	static const char *const bad[] = {"localhost", "127.0.0.1:0", "1.2.3.4:65536",
					  ":",	       "[::1:80",     "300.1.1.1:80",
					  "1.2.3.4:8x"};
	struct http_server s;
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(http_listen(&s, bad[i], err, sizeof(err)), 2);
		assert_non_null(strstr(err, bad[i]));
	}
}

/* http_parse on what a client may send: whole, cut short, or not HTTP */
static void parse(void **state)
{
	static const struct {
		const char *in;
		int status;
		const char *path, *accept;
		bool head;
		size_t len; /* 0: strlen(in) */
	} cases[] = {
	    {"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 200, "/metrics", "", false},
	    {"HEAD / HTTP/1.0\n\n", 200, "/", "", true},
	    {"GET /metrics?name[]=x HTTP/1.1\r\n\r\n", 200, "/metrics", "", false},
	    {"GET /m HTTP/1.1\r\naccept:\t text/plain;version=0.0.4 \r\n\r\n", 200, "/m",
	     "text/plain;version=0.0.4 ", false},
	    {"GET /m HTTP/1.1\r\nAccept-Encoding: gzip\r\n\r\n", 200, "/m", "", false},
	    /* not whole yet */
	    {"", 0, NULL, NULL, false},
	    {"GET /metrics HTTP/1.1\r\n", 0, NULL, NULL, false},
	    {"GET /metrics HTTP/1.1\r\nHost: x\r\n\r", 0, NULL, NULL, false},
	    /* refused */
	    {"POST /metrics HTTP/1.1\r\n\r\n", 405, NULL, NULL, false},
	    {"GET metrics HTTP/1.1\r\n\r\n", 400, NULL, NULL, false},
	    {"GET /metrics HTTP/2\r\n\r\n", 400, NULL, NULL, false},
	    {"GET /metrics\r\n\r\n", 400, NULL, NULL, false},
	    {"\r\n\r\n", 400, NULL, NULL, false},
	    {"GET /m\x01 HTTP/1.1\r\n\r\n", 400, NULL, NULL, false},
	    /* a NUL refused at once, the head not yet whole */
	    {"GET /\0", 400, NULL, NULL, false, 6},
	    /* a method longer than its field: the rest of it read as the path */
	    {"GETTTTTTTTT / HTTP/1.1\r\n\r\n", 400, NULL, NULL, false},
	};
	struct http_request q;
	char big[HTTP_MAX_HEADER + 64], path[700];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len = cases[i].len ? cases[i].len : strlen(cases[i].in);
		int st = http_parse(cases[i].in, len, &q);

		if (st != cases[i].status)
			fail_msg("case %zu: %d, not %d", i, st, cases[i].status);
		if (st != 200)
			continue;
		assert_string_equal(q.path, cases[i].path);
		assert_string_equal(q.accept, cases[i].accept);
		assert_int_equal(q.head, cases[i].head);
	}
	/* the bytes after the head are not its: no NUL needed, none read */
	memcpy(big, "GET /a HTTP/1.1\r\n\r\nGET /b", 25);
	assert_int_equal(http_parse(big, 25, &q), 200);
	assert_string_equal(q.path, "/a");
	/* no blank line in HTTP_MAX_HEADER bytes: 431; one byte fewer: wait */
	memset(big, 'a', sizeof(big));
	memcpy(big, "GET / HTTP/1.1\r\nX: ", 19);
	assert_int_equal(http_parse(big, HTTP_MAX_HEADER - 1, &q), 0);
	assert_int_equal(http_parse(big, HTTP_MAX_HEADER, &q), 431);
	/* a path longer than its field: cut at the field, never past it, and
	 * the rest then read as the version: refused */
	memset(path, 'p', sizeof(path));
	path[0] = '/';
	snprintf(big, sizeof(big), "GET %.*s HTTP/1.1\r\n\r\n", (int)sizeof(path), path);
	assert_int_equal(http_parse(big, strlen(big), &q), 400);
}

static void ok_handler(void *ctx, const char *path, const char *accept,
		       struct http_response *r)
{
	(void)ctx;
	(void)path;
	(void)accept;
	r->status = 200;
	r->body = strdup("ok\n");
	r->len = 3;
}

static void *serve_thread(void *arg)
{
	http_run(arg);
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* a server listening on a free port of 127.0.0.1, not yet serving */
static int listen_free(struct http_server *s, uint64_t read_timeout_ns)
{
	char addr[32], err[256];

	for (int port = 20000 + getpid() % 20000, tries = 0; tries < 100;
	     tries++, port++) {
		snprintf(addr, sizeof(addr), "127.0.0.1:%d", port);
		if (http_listen(s, addr, err, sizeof(err)))
			continue;
		s->handle = ok_handler;
		s->read_timeout_ns = read_timeout_ns;
		return port;
	}
	fail_msg("no free port to listen on");
	return -1;
}

/* the same, its loop in *t */
static int serve_on(struct http_server *s, pthread_t *t, uint64_t read_timeout_ns)
{
	int port = listen_free(s, read_timeout_ns);

	assert_int_equal(pthread_create(t, NULL, serve_thread, s), 0);
	return port;
}

static int connect_to(int port)
{
	struct sockaddr_in in = {.sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port)};
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(connect(fd, (struct sockaddr *)&in, sizeof(in)), 0);
	return fd;
}

/* Whether the server closed fd: its end of the stream, or a reset. */
static bool closed(int fd)
{
	char buf[256];
	ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);

	return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
}

/* A client that sends its request a byte at a time, never finishing it, is
 * dropped at the read deadline though every poll finds a byte from it (the
 * deadline was checked only for a connection with nothing to read); one
 * that sends its request whole is answered. */
static void trickle_deadline(void **state)
{
	static const char req[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
	struct http_server s;
	pthread_t t;
	char buf[256];
	int port, fd;
	double t0;
	ssize_t n;

	(void)state;
	port = serve_on(&s, &t, 300000000ull);
	fd = connect_to(port);
	assert_int_equal(send(fd, req, sizeof(req) - 1, 0), (ssize_t)sizeof(req) - 1);
	n = recv(fd, buf, sizeof(buf) - 1, 0);
	assert_true(n > 0);
	buf[n] = 0;
	assert_non_null(strstr(buf, "HTTP/1.1 200 OK"));
	close(fd);

	fd = connect_to(port);
	t0 = now_s();
	for (size_t i = 0; !closed(fd) && now_s() - t0 < 5; i++) {
		/* a header that never ends */
		if (send(fd, &"GET / HTTP/1.1\r\nX: aaaaaaaaaaaaaaaaaaaaaa"[i % 20], 1,
			 MSG_NOSIGNAL) < 0)
			break; /* closed meanwhile */
		usleep(20000);
	}
	assert_true(now_s() - t0 < 2.5); /* 0.3 s, and the poll's 1 s at most */
	close(fd);
	http_stop(&s);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(s.timeouts, 1);
	assert_int_equal(s.requests, 1);
	http_close(&s);
}

/* The limit on descriptors under which exactly `free` numbers are free:
 * the numbers open now are kept whatever the limit */
static rlim_t limit_for(int free)
{
	static bool open[4096];
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n;

	assert_non_null(d);
	memset(open, 0, sizeof(open));
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && atoi(e->d_name) < 4096)
			open[atoi(e->d_name)] = true;
	open[dirfd(d)] = false;
	closedir(d);
	for (n = 0; n < 4096 && free; n++)
		free -= !open[n];
	return (rlim_t)n;
}

static double thread_cpu_s(pthread_t t)
{
	struct timespec ts;
	clockid_t cid;

	if (pthread_getcpuclockid(t, &cid))
		fail_msg("the server's thread has ended");
	assert_int_equal(clock_gettime(cid, &ts), 0);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Connections past the process's descriptors are refused with a 503, as
 * those past HTTP_MAX_CONNS are, and the server does not spin meanwhile
 * (accept4 failed with EMFILE, the backlog stayed readable: poll returned
 * at once, over and over, and the clients waited unanswered). The server
 * here may hold a few connections; a child process (descriptors of its
 * own) opens 10 and sends nothing. */
#define CLIENTS 10
static void fd_exhaustion(void **state)
{
	struct rlimit old, low;
	struct http_server s;
	int port, p[2], got[2] = {-1, -1}, held;
	double cpu0, t0;
	pthread_t t;
	pid_t pid;

	(void)state;
	port = serve_on(&s, &t, 3000000000ull);
	assert_int_equal(pipe(p), 0);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	low = old;
	low.rlim_cur = limit_for(held = 3);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	cpu0 = thread_cpu_s(t);
	t0 = now_s();
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) { /* the clients: how many were refused, how many held */
		struct timeval tv = {.tv_usec = 300000};
		int fd[CLIENTS], n[2] = {0, 0};
		char buf[128];

		setrlimit(RLIMIT_NOFILE, &old);
		for (int i = 0; i < CLIENTS; i++) {
			fd[i] = connect_to(port);
			setsockopt(fd[i], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		}
		for (int i = 0; i < CLIENTS; i++) {
			ssize_t r = recv(fd[i], buf, sizeof(buf) - 1, 0);

			buf[r > 0 ? r : 0] = 0;
			n[0] += !!strstr(buf, " 503 ");
			n[1] += r < 0 && errno == EAGAIN;
		}
		_exit(write(p[1], n, sizeof(n)) == sizeof(n) ? 0 : 1);
	}
	assert_int_equal(read(p[0], got, sizeof(got)), (ssize_t)sizeof(got));
	waitpid(pid, NULL, 0);
	close(p[0]);
	close(p[1]);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
	/* the server's thread waited, or refused: a spin takes its CPU whole */
	assert_true(thread_cpu_s(t) - cpu0 < 0.3 * (now_s() - t0));
	assert_int_equal(got[0], CLIENTS - held); /* refused */
	assert_int_equal(got[1], held);		  /* held, waiting for a request */
	http_stop(&s);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(s.refused, CLIENTS - held);
	http_close(&s);
}

/* Out of descriptors with none held in reserve (another thread of the
 * process took the one it let go): the listening socket rests 100 ms at a
 * time instead of spinning. With the limit then lowered under the
 * descriptors it polls (poll fails, EINVAL), the server neither stops
 * (its thread ended) nor spins. The waiting clients are neither refused
 * nor lost: they are answered once descriptors are free again, and the
 * first connection to close gives the reserve back. */
static void no_spare(void **state)
{
	static const char req[] = "GET /metrics HTTP/1.1\r\n\r\n";
	struct rlimit old, low;
	struct http_server s;
	int port, p[2], answered = -1;
	double cpu0, t0, busy[2];
	char go;
	pthread_t t;
	pid_t pid;

	(void)state;
	port = listen_free(&s, 5000000000ull);
	close(s.spare);
	s.spare = -1;
	assert_int_equal(pthread_create(&t, NULL, serve_thread, &s), 0);
	assert_int_equal(pipe(p), 0);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	low = old;
	low.rlim_cur = limit_for(1) - 1; /* the lowest free descriptor */
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) { /* three clients, each with its request sent at once */
		struct timeval tv = {.tv_sec = 4};
		int fd[3], n = 0;
		char buf[128];

		setrlimit(RLIMIT_NOFILE, &old);
		for (int i = 0; i < 3; i++) {
			fd[i] = connect_to(port);
			setsockopt(fd[i], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
			if (send(fd[i], req, sizeof(req) - 1, 0) != sizeof(req) - 1)
				_exit(1);
		}
		if (write(p[1], "c", 1) != 1)
			_exit(1);
		for (int i = 0; i < 3; i++) {
			ssize_t r = recv(fd[i], buf, sizeof(buf) - 1, 0);

			buf[r > 0 ? r : 0] = 0;
			n += !strncmp(buf, "HTTP/1.1 200 ", 13);
		}
		_exit(write(p[1], &n, sizeof(n)) == sizeof(n) ? 0 : 1);
	}
	assert_int_equal(read(p[0], &go, 1), 1);
	for (int k = 0; k < 2; k++) {
		if (k) { /* under the 2 descriptors poll is given */
			low.rlim_cur = 1;
			assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
		}
		cpu0 = thread_cpu_s(t);
		t0 = now_s();
		usleep(500000);
		busy[k] = (thread_cpu_s(t) - cpu0) / (now_s() - t0);
	}
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
	assert_int_equal(read(p[0], &answered, sizeof(answered)),
			 (ssize_t)sizeof(answered));
	waitpid(pid, NULL, 0);
	close(p[0]);
	close(p[1]);
	http_stop(&s);
	assert_int_equal(pthread_join(t, NULL), 0);
	/* a spin takes the thread's CPU whole */
	for (int k = 0; k < 2; k++)
		if (busy[k] >= 0.3)
			fail_msg("the server's thread took %.0f%% of a CPU %s",
				 100 * busy[k],
				 k ? "under the limit" : "out of descriptors");
	assert_int_equal(answered, 3);
	assert_int_equal(s.refused, 0);
	assert_int_equal(s.requests, 3);
	assert_true(s.spare >= 0);
	http_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(buckets),		cmocka_unit_test(counters),
	    cmocka_unit_test(addresses),	cmocka_unit_test(parse),
	    cmocka_unit_test(trickle_deadline), cmocka_unit_test(fd_exhaustion),
	    cmocka_unit_test(no_spare),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
