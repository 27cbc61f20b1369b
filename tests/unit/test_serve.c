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
#include <sys/socket.h>
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

/* a server on a free port of 127.0.0.1, its loop in *t */
static int serve_on(struct http_server *s, pthread_t *t)
{
	char addr[32], err[256];

	for (int port = 20000 + getpid() % 20000, tries = 0; tries < 100;
	     tries++, port++) {
		snprintf(addr, sizeof(addr), "127.0.0.1:%d", port);
		if (http_listen(s, addr, err, sizeof(err)))
			continue;
		s->handle = ok_handler;
		s->read_timeout_ns = 300000000ull;
		assert_int_equal(pthread_create(t, NULL, serve_thread, s), 0);
		return port;
	}
	fail_msg("no free port to listen on");
	return -1;
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
	port = serve_on(&s, &t);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(buckets),
	    cmocka_unit_test(counters),
	    cmocka_unit_test(addresses),
	    cmocka_unit_test(trickle_deadline),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
