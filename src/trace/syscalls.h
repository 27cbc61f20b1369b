/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The I/O system calls iotrail traces, by kind, and their numbers per
 * architecture: the one list. The recorder loads the numbers of the running
 * machine into the BPF programs (cfg_nr_*); analysis picks the numbers of
 * the architecture the trace names (META arch=), so a trace read on another
 * machine means what it meant where it was recorded.
 */
#ifndef IOTRAIL_TRACE_SYSCALLS_H
#define IOTRAIL_TRACE_SYSCALLS_H

#include <stdbool.h>
#include <stdint.h>

/* the kinds, in the order of IOT_AGG_SYSCALL + kind (--aggregate keeps
 * histograms of the first ten: IOT_AGG_METRICS) */
enum syscall_kind {
	SK_READ,
	SK_WRITE,
	SK_PREAD64,
	SK_PWRITE64,
	SK_READV,
	SK_WRITEV,
	SK_PREADV,
	SK_PWRITEV,
	SK_FSYNC,
	SK_FDATASYNC,
	SK_IO_SUBMIT,	   /* libaio: the bios its iocbs queue are cause aio */
	SK_IO_URING_ENTER, /* the bios it issues inline are cause io_uring */
	SK_PREADV2,	   /* the call's RWF_* flags are recorded */
	SK_PWRITEV2,
	SK_SENDFILE,	    /* its file: the one it reads (in_fd) */
	SK_SPLICE,	    /* its file: fd_in when a regular file, else fd_out */
	SK_COPY_FILE_RANGE, /* its file: the one it reads (fd_in) */
	NR_SYSCALL_KINDS
};
extern const char *const syscall_kind_names[NR_SYSCALL_KINDS];

/* The numbers by kind of an architecture as uname -m names it ("x86_64",
 * "aarch64"), or NULL when iotrail does not know it. */
const uint32_t *syscall_numbers(const char *arch);

/* The kind of nr in a table of numbers by kind, or -1. */
static inline int syscall_kind(const uint32_t kind_nr[NR_SYSCALL_KINDS], uint32_t nr)
{
	for (int k = 0; k < NR_SYSCALL_KINDS; k++)
		if (kind_nr[k] == nr)
			return k;
	return -1;
}

/* Whether a kind reads a file into the caller's memory (read, pread64,
 * readv, preadv, preadv2). */
static inline bool syscall_kind_is_read(int k)
{
	return k == SK_READ || k == SK_PREAD64 || k == SK_READV || k == SK_PREADV ||
	       k == SK_PREADV2;
}

/* Whether nr is one of the reading kinds in a table of numbers by kind. */
static inline bool syscall_is_read(const uint32_t kind_nr[NR_SYSCALL_KINDS], uint32_t nr)
{
	return syscall_kind_is_read(syscall_kind(kind_nr, nr));
}

#endif
