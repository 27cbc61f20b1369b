/* SPDX-License-Identifier: GPL-2.0 */
/* Subcommand entry points: one file each, dispatched from main.c. */
#ifndef IOTRAIL_CLI_H
#define IOTRAIL_CLI_H

#include <stdint.h>

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_flows(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_script(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_frag(int argc, char **argv);
int cmd_overlay(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_callers(int argc, char **argv);
int cmd_sched(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_repair(int argc, char **argv);
int cmd_pack(int argc, char **argv);
int cmd_pin(int argc, char **argv);

/* "iotrail: " + message to stderr; returns 2 (usage error exit status). */
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* iostat's trailing "interval [count]" from optind on: seconds, or a time
 * (500ms, 2s), and a positive count (0: absent); anything after them is an
 * error. *interval_ns is kept when absent. 0, or usage_error's status. */
int parse_interval_count(int argc, char **argv, uint64_t *interval_ns, uint64_t *count);

#endif
