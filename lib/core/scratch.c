/* SPDX-License-Identifier: Apache-2.0 */
/* scratch: a temporary directory and its watcher (scratch.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/core/path.h"
#include "lib/core/scratch.h"

/* The watcher makes the directory itself, so that it never exists
 * without its watcher: it says the name on its first line, then, deaf to
 * the signals a terminal or a test sends a whole group, reads until every
 * writer of its pipe is gone (this process, on any exit: the write end is
 * close-on-exec, so no program we start holds it), and removes it. */
static const char watcher_script[] =
	"trap '' INT TERM HUP QUIT PIPE; d=$(mktemp -d -- \"$1\") || exit 1; printf '%s\\n' \"$d\"; "
	"exec >/dev/null 2>&1; while read -r _; do :; done; rm -rf -- \"$d\"";

/* The watcher's first line (the directory, or mktemp's complaint) into
 * line; 0 when a whole line came. */
static int first_line(int fd, char *line, size_t cap)
{
	size_t n = 0;
	while (n + 1 < cap) {
		ssize_t r = read(fd, line + n, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if (line[n] == '\n') {
			line[n] = 0;
			return 0;
		}
		n++;
	}
	line[n] = 0;
	return -1;
}

ev_status ev_scratch_open(struct ev_scratch *s, const char *name, struct ev_error *err)
{
	*s = (struct ev_scratch)EV_SCRATCH_INIT;
	const char *base = getenv("TMPDIR");
	if (!base || !*base)
		base = "/tmp";
	char template[PATH_MAX];
	if ((size_t)snprintf(template, sizeof template, "%s/%s.XXXXXX", base, name) >= sizeof template)
		return ev_error_set(err, EV_ERROR, "%s: the temporary directory's name is too long", base);
	int in[2], out[2];
	if (pipe2(in, O_CLOEXEC) != 0)
		return ev_error_errno(err, errno, "cannot make a pipe for the temporary directory's watcher");
	if (pipe2(out, O_CLOEXEC) != 0) {
		int e = errno;
		close(in[0]);
		close(in[1]);
		return ev_error_errno(err, e, "cannot make a pipe for the temporary directory's watcher");
	}
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	posix_spawn_file_actions_adddup2(&fa, out[1], 2);
	/* its own process group, so that a signal to ours (a terminal's
	 * Ctrl-C, a test's kill of the group) never reaches it, and those
	 * signals blocked from its first instruction, before its trap runs */
	posix_spawnattr_t at;
	posix_spawnattr_init(&at);
	sigset_t deaf;
	sigemptyset(&deaf);
	sigaddset(&deaf, SIGINT);
	sigaddset(&deaf, SIGTERM);
	sigaddset(&deaf, SIGHUP);
	sigaddset(&deaf, SIGQUIT);
	posix_spawnattr_setsigmask(&at, &deaf);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP);
	char *argv[] = {"/bin/sh", "-c", (char *)watcher_script, "evidence-scratch", template, NULL};
	static char *const envp[] = {"PATH=/usr/bin:/bin", "LC_ALL=C", NULL};
	/* program: /bin/sh, fixed in the code (mktemp and rm from /usr/bin:/bin) */
	int e = posix_spawn(&s->watcher, "/bin/sh", &fa, &at, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(in[0]);
	close(out[1]);
	s->pipe_w = in[1];
	if (e) {
		close(out[0]);
		close(s->pipe_w);
		*s = (struct ev_scratch)EV_SCRATCH_INIT;
		return ev_error_errno(err, e, "cannot start /bin/sh to make and watch a temporary directory");
	}
	char said[PATH_MAX + 256];
	int whole = first_line(out[0], said, sizeof said);
	close(out[0]);
	struct stat sb;
	if (whole != 0 || strncmp(said, base, strlen(base)) != 0 || lstat(said, &sb) != 0 || !S_ISDIR(sb.st_mode) ||
	    (size_t)snprintf(s->path, sizeof s->path, "%s", said) >= sizeof s->path) {
		s->path[0] = 0;
		close(s->pipe_w);
		while (waitpid(s->watcher, NULL, 0) < 0 && errno == EINTR)
			;
		*s = (struct ev_scratch)EV_SCRATCH_INIT;
		return ev_error_set(err, EV_ERROR, "%s: cannot make a temporary directory (%s); set TMPDIR to a directory you can write",
				    template, said[0] ? said : "mktemp said nothing");
	}
	return EV_OK;
}

void ev_scratch_close(struct ev_scratch *s)
{
	if (!s->path[0])
		return; /* never opened, or closed: nothing of it exists */
	ev_remove_tree(s->path);
	s->path[0] = 0;
	if (s->pipe_w >= 0)
		close(s->pipe_w);
	s->pipe_w = -1;
	if (s->watcher > 0) {
		int status;
		while (waitpid(s->watcher, &status, 0) < 0 && errno == EINTR)
			;
	}
	s->watcher = -1;
}

int ev_remove_tree(const char *path)
{
	struct stat sb;
	if (lstat(path, &sb) != 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(sb.st_mode))
		return unlink(path);
	int bad = 0;
	DIR *d = opendir(path);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d))) {
			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			char sub[PATH_MAX];
			if (ev_path_join(sub, sizeof sub, path, e->d_name) != 0 || ev_remove_tree(sub) != 0)
				bad = 1;
		}
		closedir(d);
	}
	return rmdir(path) != 0 || bad ? -1 : 0;
}
