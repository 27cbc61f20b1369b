/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the live subcommands (callers, sched) share: a command held at its
 * fork until the programs are ready, and a wait that ends with the command,
 * a duration, or SIGINT/SIGTERM.
 */
#ifndef IOTRAIL_RECORD_LIVE_H
#define IOTRAIL_RECORD_LIVE_H

#include <stdint.h>
#include <sys/types.h>

struct live_child {
	pid_t pid; /* -1: none */
	int go_fd; /* write end: releases it */
};

/* Forks argv, held before exec until live_release(). 0 or -errno. */
int live_spawn(struct live_child *c, char *const *argv);
/* Lets the command exec. */
void live_release(struct live_child *c);
/* Waits for the command (c NULL or no pid: none), duration_ns (0: none)
 * or a signal; a command still running then is ended. Returns its exit
 * status (128 + signal when killed; 127 when it could not run), -1 when
 * it did not end by itself; *elapsed_ns the time waited. */
int live_wait(struct live_child *c, uint64_t duration_ns, uint64_t *elapsed_ns);

#endif
