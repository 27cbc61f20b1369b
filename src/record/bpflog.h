/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libbpf's messages, for every loader of the recorder and the live
 * subcommands: shown under IOTRAIL_DEBUG (warnings and info, the
 * verifier's log among them; never libbpf's debug), and a program the
 * kernel's verifier refused noted, so that a refusal is named rather than
 * taken for its errno (E2BIG is also a map too large to allocate).
 */
#ifndef IOTRAIL_RECORD_BPFLOG_H
#define IOTRAIL_RECORD_BPFLOG_H

#include <stdbool.h>
#include <stddef.h>

/* Sends libbpf's messages through here; forgets any refusal noted. */
void bpflog_quiet(void);
/* The program the verifier refused since bpflog_quiet(), or NULL. */
const char *bpflog_refused(void);
/* A failed load's reason: the refused program named (and whether it was
 * too large), else strerror(-err). Returns buf. */
const char *bpflog_why(int err, char *buf, size_t len);

#endif
