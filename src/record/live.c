// SPDX-License-Identifier: GPL-2.0
/* The live subcommands' command and wait (live.h). */
#include "live.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop_now;

static void on_signal(int sig)
{
	(void)sig;
	stop_now = 1;
}

static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

int live_spawn(struct live_child *c, char *const *argv)
{
	int go[2];

	c->pid = -1;
	c->go_fd = -1;
	if (pipe2(go, O_CLOEXEC))
		return -errno;
	c->pid = fork();
	if (c->pid < 0) {
		int e = errno;

		close(go[0]);
		close(go[1]);
		return -e;
	}
	if (c->pid == 0) {
		char ch;

		close(go[1]);
		if (read(go[0], &ch, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		fprintf(stderr, "iotrail: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(go[0]);
	c->go_fd = go[1];
	return 0;
}

void live_release(struct live_child *c)
{
	if (c->go_fd < 0)
		return;
	if (write(c->go_fd, "g", 1) != 1)
		stop_now = 1;
	close(c->go_fd);
	c->go_fd = -1;
}

int live_wait(struct live_child *c, uint64_t duration_ns, uint64_t *elapsed_ns)
{
	uint64_t start = mono_ns();
	pid_t pid = c ? c->pid : -1;
	int status = -1;

	stop_now = 0;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (c)
		live_release(c);
	while (!stop_now) {
		int st;

		if (pid > 0 && waitpid(pid, &st, WNOHANG) == pid) {
			status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
			break;
		}
		if (duration_ns && mono_ns() - start >= duration_ns)
			break;
		usleep(10000);
	}
	*elapsed_ns = mono_ns() - start;
	if (pid > 0 && status < 0) { /* stopped early: end it */
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
	}
	return status;
}
