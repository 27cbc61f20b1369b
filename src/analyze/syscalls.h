/* SPDX-License-Identifier: GPL-2.0 */
/* The I/O system calls the analyzers know, by kind, and their numbers. */
#ifndef IOTRAIL_ANALYZE_SYSCALLS_H
#define IOTRAIL_ANALYZE_SYSCALLS_H

#include <stdbool.h>
#include <stdint.h>

#define NR_SYSCALL_KINDS 10
extern const char *const syscall_kind_names[NR_SYSCALL_KINDS];
/* their numbers on x86_64, in the same order (the kinds 0, 2, 4, 6 read) */
extern const uint32_t syscall_nr_x86_64[NR_SYSCALL_KINDS];

/* Whether nr is one of the reading kinds (read, pread64, readv, preadv) in
 * a table of numbers by kind. */
static inline bool syscall_is_read(const uint32_t kind_nr[NR_SYSCALL_KINDS], uint32_t nr)
{
	return nr == kind_nr[0] || nr == kind_nr[2] || nr == kind_nr[4] ||
	       nr == kind_nr[6];
}

#endif
