// SPDX-License-Identifier: GPL-2.0
/* Task table: tids seen in records -> comm, cgroup id and cgroup path. */
#include "tasks.h"
#include "../util/grow.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void read_proc(struct iot_task_entry *e)
{
	char path[128], line[256];
	struct stat st;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", e->pid, e->tid);
	f = fopen(path, "re");
	if (f) {
		if (fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\n")] = 0;
			snprintf(e->comm, sizeof(e->comm), "%s", line);
		}
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/%u/cgroup", e->pid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3) != 0)
			continue;
		line[strcspn(line, "\n")] = 0;
		snprintf(e->cgroup, sizeof(e->cgroup), "%s", line + 3);
		snprintf(path, sizeof(path), "/sys/fs/cgroup%s", line + 3);
		if (stat(path, &st) == 0)
			e->cgroup_id = st.st_ino;
	}
	fclose(f);
}

static int grow(struct task_table *t)
{
	size_t nr = t->nr_slots ? t->nr_slots * 2 : 1024;
	uint32_t *s = calloc(nr, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		size_t h = (t->e[i].tid * 2654435761u) & (nr - 1);

		while (s[h])
			h = (h + 1) & (nr - 1);
		s[h] = i + 1;
	}
	free(t->slots);
	t->slots = s;
	t->nr_slots = nr;
	return 0;
}

int task_table_note(struct task_table *t, uint32_t pid, uint32_t tid)
{
	struct iot_task_entry *e;
	size_t h;

	if (tid == t->last_tid && t->n)
		return 0;
	t->last_tid = tid;
	if ((t->n + 1) * 2 > t->nr_slots && grow(t))
		return -ENOMEM;
	h = (tid * 2654435761u) & (t->nr_slots - 1);
	while (t->slots[h]) {
		if (t->e[t->slots[h] - 1].tid == tid)
			return 0;
		h = (h + 1) & (t->nr_slots - 1);
	}
	if (GROW(t->e, t->n + 1, t->cap))
		return -ENOMEM;
	e = &t->e[t->n];
	memset(e, 0, sizeof(*e));
	e->pid = pid;
	e->tid = tid;
	if (tid) /* tid 0: the idle task, completions in interrupt context */
		read_proc(e);
	else
		snprintf(e->comm, sizeof(e->comm), "swapper");
	t->slots[h] = ++t->n;
	/* a thread's process too, by name: reports show processes (its
	 * io_uring and worker threads carry names of their own) */
	if (pid && pid != tid) {
		int err = task_table_note(t, pid, pid);

		t->last_tid = tid;
		return err;
	}
	return 0;
}

void task_table_finish(struct task_table *t,
		       int (*lookup)(void *ctx, uint32_t tid, uint32_t *pid,
				     uint64_t *cgroup_id, char comm[16]),
		       void *ctx)
{
	for (size_t i = 0; i < t->n; i++) {
		struct iot_task_entry *e = &t->e[i];
		uint32_t pid;

		if (e->comm[0])
			continue;
		if (lookup(ctx, e->tid, &pid, &e->cgroup_id, e->comm) == 0)
			e->comm[15] = 0;
		else
			read_proc(e);
	}
}

void task_table_release(struct task_table *t)
{
	free(t->e);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}
