/* SPDX-License-Identifier: Apache-2.0 */
/* scratch: the directory is made private (0700) under $TMPDIR and gone
 * after ev_scratch_close with what was written in it; a process that
 * dies without closing it (SIGKILL, or SIGINT sent to its whole process
 * group, as a terminal's Ctrl-C is) leaves nothing either, because its
 * watcher removes it; closing a struct never opened does nothing. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "lib/core/scratch.h"

static int exists(const char *path)
{
	struct stat sb;
	return lstat(path, &sb) == 0;
}

/* Whether path is gone within two seconds (the watcher runs on its own). */
static int gone_soon(const char *path)
{
	for (int i = 0; i < 200; i++) {
		if (!exists(path))
			return 1;
		struct timespec tick = {0, 10 * 1000 * 1000};
		nanosleep(&tick, NULL);
	}
	return 0;
}

static void write_file(const char *dir, const char *name)
{
	char path[PATH_MAX + 64];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (f) {
		fputs("kept only while the process lives\n", f);
		fclose(f);
	}
}

/* A child opens a scratch directory with a file and a subdirectory in it,
 * says where through a pipe, then dies by sig (sent to itself alone, or to
 * its process group). The path it made, or "" when it could not. */
static void made_then_killed(int sig, int whole_group, char *path, size_t cap)
{
	int p[2];
	path[0] = 0;
	if (pipe(p) != 0)
		return;
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		/* the premise is a process this signal kills: a suite started
		 * in a script's background inherits SIGINT ignored */
		signal(sig, SIG_DFL);
		if (whole_group)
			setpgid(0, 0);
		struct ev_scratch s;
		struct ev_error err;
		ev_error_clear(&err);
		if (ev_scratch_open(&s, "test-scratch", &err) != EV_OK)
			_exit(3);
		write_file(s.path, "member");
		char sub[PATH_MAX + 8];
		snprintf(sub, sizeof sub, "%s/runs", s.path);
		mkdir(sub, 0700);
		write_file(sub, "series.bin");
		if (write(p[1], s.path, strlen(s.path) + 1) < 0)
			_exit(3);
		close(p[1]);
		if (whole_group)
			kill(0, sig);
		else
			raise(sig);
		_exit(4); /* not reached: sig kills */
	}
	close(p[1]);
	ssize_t n = read(p[0], path, cap - 1);
	path[n > 0 ? n : 0] = 0;
	close(p[0]);
	int status;
	waitpid(pid, &status, 0);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == sig);
}

int main(void)
{
	char base[] = "/tmp/test-scratch-base.XXXXXX";
	CHECK(mkdtemp(base) != NULL);
	setenv("TMPDIR", base, 1);

	struct ev_error err;
	ev_error_clear(&err);
	struct ev_scratch s;
	CHECK_INT_EQ(ev_scratch_open(&s, "test-scratch", &err), EV_OK);
	CHECK(strncmp(s.path, base, strlen(base)) == 0);
	CHECK(strstr(s.path, "/test-scratch.") != NULL);
	struct stat sb;
	CHECK(stat(s.path, &sb) == 0 && S_ISDIR(sb.st_mode) && (sb.st_mode & 0777) == 0700);
	char kept[PATH_MAX];
	snprintf(kept, sizeof kept, "%s", s.path);
	write_file(s.path, "member");
	ev_scratch_close(&s);
	CHECK(!exists(kept));
	CHECK_INT_EQ(s.path[0], 0);
	ev_scratch_close(&s); /* twice: nothing */

	if (fcntl(0, F_GETFD) < 0)
		CHECK_INT_EQ(open("/dev/null", O_RDONLY), 0); /* so that closing it by mistake shows */
	struct ev_scratch never = EV_SCRATCH_INIT, zeroed;
	memset(&zeroed, 0, sizeof zeroed);
	ev_scratch_close(&never);
	ev_scratch_close(&zeroed);
	CHECK(fcntl(0, F_GETFD) >= 0); /* fd 0 was not closed for a zeroed struct */

	char path[PATH_MAX];
	made_then_killed(SIGKILL, 0, path, sizeof path);
	CHECK(path[0] != 0);
	CHECK(path[0] && gone_soon(path));
	made_then_killed(SIGINT, 1, path, sizeof path);
	CHECK(path[0] != 0);
	CHECK(path[0] && gone_soon(path));

	/* a TMPDIR that cannot hold it: refused, named, nothing made */
	setenv("TMPDIR", "/nonexistent-evidence-dir", 1);
	ev_error_clear(&err);
	CHECK_INT_EQ(ev_scratch_open(&s, "test-scratch", &err), EV_ERROR);
	CHECK(strstr(err.text, "/nonexistent-evidence-dir/test-scratch.XXXXXX: cannot make a temporary directory (mktemp: ") != NULL);
	CHECK_INT_EQ(s.path[0], 0);

	CHECK(rmdir(base) == 0); /* empty: every scratch directory went */
	return check_exit("test_scratch_goes_with_its_process_however_it_ends");
}
