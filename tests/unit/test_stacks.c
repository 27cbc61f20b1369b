// SPDX-License-Identifier: GPL-2.0
/* iotrail callers' symbols, callers and folded lines (src/stacks/). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "helpers.h"
#include "stacks/stacks.h"

static char path[64];
static struct kallsyms k;

static int setup(void **state)
{
	FILE *f;
	char err[256];

	snprintf(path, sizeof(path), "/tmp/iotrail-ksyms-%d", (int)getpid());
	f = fopen(path, "w");
	if (!f)
		return -1;
	/* unsorted, with data symbols that must not name code */
	fputs("0000000000003000 T vfs_write\n"
	      "0000000000001000 t bpf_prog_6deef7357e7b4530_on_event\n"
	      "0000000000001800 D some_data\n"
	      "0000000000002000 T bpf_trace_run2\n"
	      "0000000000002800 T __traceiter_block_rq_insert\n"
	      "0000000000004000 T dd_insert_requests\n"
	      "0000000000005000 T ksys_write [ext4]\n",
	      f);
	fclose(f);
	return kallsyms_load(&k, path, err, sizeof(err));
}

static int teardown(void **state)
{
	kallsyms_release(&k);
	unlink(path);
	return 0;
}

static void symbols(void **state)
{
	uint64_t off;
	const struct ksym *s;

	assert_int_equal(k.nr, 6); /* no D */
	s = kallsyms_find(&k, 0x4010, &off);
	assert_string_equal(s->name, "dd_insert_requests");
	assert_int_equal(off, 0x10);
	assert_null(kallsyms_find(&k, 0x10, &off));
	s = kallsyms_find(&k, 0x1900, &off); /* past the data: still the prog */
	assert_string_equal(s->name, "bpf_prog_6deef7357e7b4530_on_event");
}

static void callers_and_folded(void **state)
{
	const uint64_t a[] = {0x1010, 0x2010, 0x2810, 0x4020, 0x3010, 0x5010};
	const uint64_t b[] = {0x1010, 0x2010, 0x3040, 0x5010};
	struct stack s[] = {{a, 6, 7}, {b, 4, 3}, {a + 3, 3, 5}};
	struct caller_count *c;
	char buf[256];
	FILE *f;
	long n;

	assert_int_equal(stack_first_caller(&k, &s[0]), 3);
	assert_int_equal(stack_first_caller(&k, &s[1]), 2);
	n = stacks_callers(&k, s, 3, &c);
	assert_int_equal(n, 2);
	assert_string_equal(c[0].name, "dd_insert_requests");
	assert_int_equal(c[0].count, 12);
	assert_string_equal(c[1].name, "vfs_write");
	free(c);
	f = fmemopen(buf, sizeof(buf), "w");
	stack_print_folded(f, &k, &s[0]);
	fclose(f);
	assert_string_equal(buf, "ksys_write;vfs_write;dd_insert_requests 7\n");
}

static void refuses_hidden_addresses(void **state)
{
	struct kallsyms z;
	char err[256];
	FILE *f = fopen(path, "w");

	fputs("0000000000000000 T vfs_write\n0000000000000000 T ksys_write\n", f);
	fclose(f);
	assert_int_equal(kallsyms_load(&z, path, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "kptr_restrict"));
	f = fopen(path, "w");
	fputs("zzz\n", f);
	fclose(f);
	assert_int_equal(kallsyms_load(&z, path, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, ":1:"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(symbols),
	    cmocka_unit_test(callers_and_folded),
	    cmocka_unit_test(refuses_hidden_addresses),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
