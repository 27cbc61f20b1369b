// SPDX-License-Identifier: GPL-2.0
/* record --flow's definitions (src/record/flowdef.c): what they hold, and
 * a message naming file, line and column for every bad one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../src/record/flowdef.h"
#include "../../src/record/devices.h"

static char err[256];

static int parse(struct flowdefs *d, const char *text)
{
	err[0] = 0;
	return flowdefs_parse(d, text, "f.flows", err, sizeof(err));
}

static void builtins(void **state)
{
	struct flowdefs d = {0};
	const struct flowdef *f;
	char desc[256];

	(void)state;
	assert_int_equal(flowdefs_builtin(&d, err, sizeof(err)), 0);
	f = flowdefs_find(&d, "reads");
	assert_non_null(f);
	assert_int_equal(f->d.starts, IOT_FLOW_START_SYSCALL | IOT_FLOW_START_URING |
					  IOT_FLOW_START_READAHEAD);
	assert_int_equal(f->d.ops, IOT_FLOW_OP_READ);
	assert_int_equal(f->d.size_max, UINT64_MAX);
	flowdef_describe(f, desc, sizeof(desc));
	assert_string_equal(desc, "reads: start=syscall,io_uring,readahead op=read");
	assert_non_null(flowdefs_find(&d, "command"));
	assert_non_null(flowdefs_find(&d, "journal"));
	assert_null(flowdefs_find(&d, "nosuch"));
	flowdefs_release(&d);
}

static void every_key(void **state)
{
	struct flowdefs d = {0};
	const struct flowdef *f;
	char desc[256];

	(void)state;
	assert_int_equal(parse(&d, "# a comment\n"
				   "\n"
				   "[db-writes]\n"
				   "  start = syscall,writeback  # trailing comment\n"
				   "op = write\n"
				   "pid = 42\n"
				   "comm = sqlite3\n"
				   "dev = 7:3\n"
				   "file = /etc/passwd\n"
				   "size = 4k-1m\n"
				   "offset = 1g-\n"),
			 0);
	f = flowdefs_find(&d, "db-writes");
	assert_non_null(f);
	assert_int_equal(f->d.starts, IOT_FLOW_START_SYSCALL | IOT_FLOW_START_WRITEBACK);
	assert_int_equal(f->d.tgid, 42);
	assert_string_equal(f->d.comm, "sqlite3");
	assert_true(f->d.ino != 0); /* file= sets the file's dev too */
	assert_int_equal(f->d.size_min, 4096);
	assert_int_equal(f->d.size_max, 1 << 20);
	assert_int_equal(f->d.off_min, 1ull << 30);
	assert_int_equal(f->d.off_max, UINT64_MAX);
	assert_string_equal(f->where, "f.flows:3");
	flowdef_describe(f, desc, sizeof(desc));
	assert_non_null(strstr(desc, "db-writes: start=syscall,writeback op=write pid=42 "
				     "comm=sqlite3 dev="));
	/* a name defined again replaces it: a file's over a built-in */
	assert_int_equal(parse(&d, "[db-writes]\nstart = journal\nsize = 512\n"), 0);
	assert_int_equal(d.n, 1);
	assert_int_equal(d.v[0].d.starts, IOT_FLOW_START_JOURNAL);
	assert_int_equal(d.v[0].d.size_min, 512);
	assert_int_equal(d.v[0].d.size_max, 512);
	assert_int_equal(d.v[0].d.tgid, 0);
	/* page faults start flows too */
	assert_int_equal(parse(&d, "[maps]\nstart = fault, readahead\n"), 0);
	f = flowdefs_find(&d, "maps");
	assert_non_null(f);
	assert_int_equal(f->d.starts, IOT_FLOW_START_FAULT | IOT_FLOW_START_READAHEAD);
	flowdef_describe(f, desc, sizeof(desc));
	assert_string_equal(desc, "maps: start=readahead,fault");
	flowdefs_release(&d);
}

/* each bad input: its message, with file, line and column */
static void bad(void **state)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
	    {"[a]\nstrat = syscall\n", "f.flows:2:1: unknown key 'strat'"},
	    {"[a]\nstart = syscall, bogus\n", "f.flows:2:18: start 'bogus': not one of"},
	    {"[a]\nstart = syscall\nop = reads\n", "f.flows:3:6: op 'reads': not one of"},
	    {"start = syscall\n", "f.flows:1:1: 'start' before any [name]"},
	    {"[a\n", "f.flows:1:1: a section without its ']'"},
	    {"[a] x\n", "f.flows:1:4: text after the section's ']'"},
	    {"[a b]\n", "f.flows:1:3: flow name 'a b'"},
	    {"[]\n", "f.flows:1:1: a section without a name"},
	    {"[a]\nop = read\n", "f.flows:1:1: [a]: no start"},
	    {"[a]\nop = read\n[b]\nstart = journal\n", "f.flows:1:1: [a]: no start"},
	    {"[a]\nstart = syscall\njust words\n", "f.flows:3:1: not 'key = value'"},
	    {"[a]\nstart = syscall\nsize = 4q\n", "f.flows:3:8: size '4q': not a size"},
	    {"[a]\nstart = syscall\nsize = 1m-4k\n",
	     "f.flows:3:8: size 1m-4k: the range is empty"},
	    {"[a]\nstart = syscall\noffset = 4k-x\n",
	     "f.flows:3:13: offset 'x': not a size"},
	    {"[a]\nstart = syscall\npid = -1\n",
	     "f.flows:3:7: pid '-1': not a process id"},
	    {"[a]\nstart = syscall\ncomm = a-very-long-command\n",
	     "f.flows:3:8: comm 'a-very-long-command': longer than"},
	    {"[a]\nstart = syscall\nfile = /nonexistent/x\n",
	     "f.flows:3:8: file /nonexistent/x: No such file or directory"},
	    {"[a]\nstart = syscall\nfile = /etc\n",
	     "f.flows:3:8: file /etc: not a regular"},
	    {"[a]\nstart = syscall\ndev = nosuchdisk\n",
	     "f.flows:3:7: dev nosuchdisk: No such"},
	    {"[a]\nstart = syscall\ndev = /etc/passwd\n",
	     "f.flows:3:7: dev /etc/passwd: not a block"},
	    {"[a]\nstart = syscall\ncgroup = /etc/passwd\n",
	     "f.flows:3:10: cgroup /etc/passwd: not a directory"},
	    {"[a]\nstart =\n", "f.flows:2:8: start: no value"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct flowdefs d = {0};

		if (parse(&d, cases[i].text) != -EINVAL || !strstr(err, cases[i].msg))
			fail_msg("case %zu: got '%s', want '%s'", i, err, cases[i].msg);
		flowdefs_release(&d);
	}
}

static void files(void **state)
{
	struct flowdefs d = {0};
	char path[] = "/tmp/iotrail-flowdef-XXXXXX";
	int fd = mkstemp(path);
	FILE *f;

	(void)state;
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fputs("[x]\nstart = other\n", f);
	fputc(0, f);
	fclose(f);
	assert_int_equal(flowdefs_load(&d, path, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "byte 18: a NUL byte"));
	unlink(path);
	assert_true(flowdefs_load(&d, path, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "No such file"));
	flowdefs_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(builtins),
	    cmocka_unit_test(every_key),
	    cmocka_unit_test(bad),
	    cmocka_unit_test(files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
