// SPDX-License-Identifier: GPL-2.0
/* System call numbers by architecture (syscalls.h). */
#include "syscalls.h"

#include <string.h>

const char *const syscall_kind_names[NR_SYSCALL_KINDS] = {
    "read",    "write",	   "pread64",  "pwrite64",  "readv",	       "writev",
    "preadv",  "pwritev",  "fsync",    "fdatasync", "io_submit",       "io_uring_enter",
    "preadv2", "pwritev2", "sendfile", "splice",    "copy_file_range",
};

/* arch/x86/entry/syscalls/syscall_64.tbl */
static const uint32_t nr_x86_64[NR_SYSCALL_KINDS] = {
    0, 1, 17, 18, 19, 20, 295, 296, 74, 75, 209, 426, 327, 328, 40, 275, 326};
/* include/uapi/asm-generic/unistd.h */
static const uint32_t nr_generic[NR_SYSCALL_KINDS] = {
    63, 64, 67, 68, 65, 66, 69, 70, 82, 83, 2, 426, 286, 287, 71, 76, 285};

const uint32_t *syscall_numbers(const char *arch)
{
	if (!strcmp(arch, "x86_64"))
		return nr_x86_64;
	if (!strcmp(arch, "aarch64") || !strcmp(arch, "arm64") ||
	    !strcmp(arch, "riscv64"))
		return nr_generic;
	return NULL;
}
