// SPDX-License-Identifier: GPL-2.0
/* iotrail serve's pieces (src/serve/): the exposition's arithmetic, the
 * listen address parser. */
#include <stdlib.h>
#include <string.h>

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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(buckets),
	    cmocka_unit_test(counters),
	    cmocka_unit_test(addresses),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
