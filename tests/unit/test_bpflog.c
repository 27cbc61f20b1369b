// SPDX-License-Identifier: GPL-2.0
/* libbpf's messages (src/record/bpflog.h): a program the verifier refused
 * is named, and whether it was too large; a lack of memory is not taken
 * for a refusal. The messages are libbpf 1.1's, fed to the callback
 * bpflog_quiet installs as libbpf would. */
#include <bpf/libbpf.h>
#include <stdlib.h>

#include "helpers.h"
#include "record/bpflog.h"

static libbpf_print_fn_t installed(void)
{
	libbpf_print_fn_t fn;

	bpflog_quiet();
	fn = libbpf_set_print(NULL); /* returns ours */
	libbpf_set_print(fn);
	return fn;
}

static void say(libbpf_print_fn_t fn, enum libbpf_print_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fn(level, fmt, ap);
	va_end(ap);
}

static void refused(void **state)
{
	libbpf_print_fn_t fn;
	char why[256];

	(void)state;
	unsetenv("IOTRAIL_DEBUG");
	fn = installed();
	assert_non_null(fn);
	assert_null(bpflog_refused());
	assert_string_equal(bpflog_why(-E2BIG, why, sizeof(why)), strerror(E2BIG));
	/* a map too large: no program named */
	say(fn, LIBBPF_WARN, "libbpf: map '%s': failed to create: %s(%d)\n", "buf",
	    "Argument list too long", -E2BIG);
	assert_null(bpflog_refused());
	/* the verifier's log (whole, in one message; its end says why),
	 * then libbpf's word for the program */
	say(fn, LIBBPF_WARN, "libbpf: prog '%s': BPF program load failed: %s\n",
	    "block_rq_complete", "Argument list too long");
	say(fn, LIBBPF_WARN,
	    "libbpf: prog '%s': -- BEGIN PROG LOAD LOG --\n%s-- END PROG LOAD LOG --\n",
	    "block_rq_complete",
	    "0: R1=ctx() R10=fp0\n; int BPF_PROG(block_rq_complete...\n"
	    "BPF program is too large. Processed 1000001 insn\n"
	    "processed 1000001 insns (limit 1000000) max_states_per_insn 40\n");
	say(fn, LIBBPF_DEBUG, "libbpf: prog '%s': failed to load: %d\n", "debug_only",
	    -7);
	assert_null(bpflog_refused()); /* libbpf's debug level is not read */
	say(fn, LIBBPF_WARN, "libbpf: prog '%s': failed to load: %d\n",
	    "block_rq_complete", -E2BIG);
	assert_string_equal(bpflog_refused(), "block_rq_complete");
	bpflog_why(-E2BIG, why, sizeof(why));
	assert_non_null(strstr(why, "verifier refused program 'block_rq_complete'"));
	assert_non_null(strstr(why, "past its 1,000,000 instructions"));
	/* installed again (the next load): forgotten */
	installed();
	assert_null(bpflog_refused());
	/* refused for another reason: named, not called too large; a name
	 * longer than the buffer is cut, not overrun */
	say(fn, LIBBPF_WARN, "libbpf: prog '%s': failed to load: %d\n",
	    "a_program_name_that_is_longer_than_sixty_three_characters_in_all_of_it",
	    -EACCES);
	assert_int_equal(strlen(bpflog_refused()), 63);
	bpflog_why(-EACCES, why, sizeof(why));
	assert_non_null(strstr(why, strerror(EACCES)));
	assert_null(strstr(why, "1,000,000"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
