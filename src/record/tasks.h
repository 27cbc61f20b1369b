/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The task table: every (pid, tid) seen in a record, named from /proc as soon
 * as it is first seen, or from the BPF "exited" map when it was already gone.
 */
#ifndef IOTRAIL_RECORD_TASKS_H
#define IOTRAIL_RECORD_TASKS_H

#include <stddef.h>
#include <stdint.h>

#include "../trace/format.h"

struct task_table {
	struct iot_task_entry *e;
	size_t n, cap;
	uint32_t *slots; /* open addressing on tid: index + 1, 0 = empty */
	size_t nr_slots;
	uint32_t last_tid;
};

/* Notes a task seen in a record, and its process (the thread group
 * leader); cheap when tid repeats. 0 or -ENOMEM. */
int task_table_note(struct task_table *t, uint32_t pid, uint32_t tid);
/* Fills the names still missing through lookup(tid) (the exited map). */
void task_table_finish(struct task_table *t,
		       int (*lookup)(void *ctx, uint32_t tid, uint32_t *pid,
				     uint64_t *cgroup_id, char comm[16]),
		       void *ctx);
void task_table_release(struct task_table *t);

#endif
