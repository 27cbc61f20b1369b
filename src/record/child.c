// SPDX-License-Identifier: GPL-2.0
/* The traced command: forked stopped at a pipe, released once the probes
 * are attached, reaped at the stop (recorder.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "recorder.h"

/* Is argv0 something execvp can run? Checked before anything is set up, so
 * a typo costs nothing. */
bool command_exists(const char *argv0)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];

	if (strchr(argv0, '/'))
		return access(argv0, X_OK) == 0;
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, path, argv0);
		if (access(buf, X_OK) == 0)
			return true;
		path += n + (path[n] == ':');
	}
	return false;
}

/* Fork the command stopped at a pipe; it runs once the probes are attached.
 * It waits in poll, not read: the probes trace read, and whether its
 * enter came before they were armed or after decided whether the
 * recording counted a read of the command's that was the recorder's.
 * The byte written is left in the pipe; a pipe closed without it (the
 * recorder gone) ends the child. */
int start_child(struct recorder *rc)
{
	int go[2] = {-1, -1}, ex[2] = {-1, -1};
	struct pollfd pf;
	int e;

	if (pipe2(go, O_CLOEXEC) || pipe2(ex, O_CLOEXEC))
		return -errno;
	rc->child = fork();
	if (rc->child < 0)
		return -errno;
	if (rc->child == 0) {
		close(go[1]);
		close(ex[0]);
		pf = (struct pollfd){.fd = go[0], .events = POLLIN};
		while (poll(&pf, 1, -1) < 0 && errno == EINTR)
			;
		if (!(pf.revents & POLLIN))
			_exit(127);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		/* the command runs at the priority iotrail was started with */
		setpriority(PRIO_PROCESS, 0, rc->orig_nice);
		execvp(rc->o->argv[0], rc->o->argv);
		e = errno;
		if (write(ex[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(ex[1]);
	rc->go_fd = go[1];
	rc->exec_fd = ex[0];
	return 0;
}

int release_child(struct recorder *rc)
{
	int e = 0;
	ssize_t n;

	if (write(rc->go_fd, "g", 1) != 1)
		return -errno;
	close(rc->go_fd);
	rc->go_fd = -1;
	n = read(rc->exec_fd, &e, sizeof(e)); /* EOF: exec succeeded */
	close(rc->exec_fd);
	rc->exec_fd = -1;
	return n == sizeof(e) ? -e : 0;
}

int finish_child(struct recorder *rc, int ret)
{
	int st;

	if (rc->child <= 0)
		return ret;
	if (!rc->child_done) {
		if (rc->reason != IOT_STOP_COMMAND)
			kill(rc->child, SIGTERM);
		waitpid(rc->child, &rc->child_status, 0);
		rc->child_done = true;
	}
	st = rc->child_status;
	if (rc->child_exited && WIFEXITED(st) && WEXITSTATUS(st)) {
		fprintf(stderr, "iotrail: %s exited with status %d\n", rc->o->argv[0],
			WEXITSTATUS(st));
		return ret ? ret : WEXITSTATUS(st); /* as time(1) and perf do */
	}
	if (rc->child_exited && WIFSIGNALED(st)) {
		fprintf(stderr, "iotrail: %s killed by signal %d (%s)\n", rc->o->argv[0],
			WTERMSIG(st), strsignal(WTERMSIG(st)));
		return ret ? ret : 128 + WTERMSIG(st);
	}
	return ret;
}

void kill_child(struct recorder *rc)
{
	if (rc->child > 0 && !rc->child_done) {
		if (rc->go_fd >= 0)
			close(rc->go_fd); /* the child exits at EOF */
		kill(rc->child, SIGKILL);
		waitpid(rc->child, NULL, 0);
		rc->child_done = true;
	}
	if (rc->exec_fd >= 0)
		close(rc->exec_fd);
	rc->exec_fd = -1;
}
