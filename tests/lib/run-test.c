/* SPDX-License-Identifier: Apache-2.0 */
/* run-test: how make check starts every test (LOG_COMPILER), so that a test
 * runs the same however the suite was started (foreground, nohup, setsid, a
 * script's background, stdin closed) and leaves nothing running.
 *
 *   run-test PROGRAM [ARGS...]
 *
 * The test runs in a session of its own with every signal at its default
 * and none blocked (a suite started by nohup or in a script's background
 * inherits SIGHUP or SIGINT and SIGQUIT ignored), stdin /dev/null, no
 * controlling terminal, LC_ALL=C.UTF-8 and a private TMPDIR (removed when
 * the test passes, kept and named when it fails). run-test is the
 * subreaper of everything the test starts: once the test's own process has
 * ended, any descendant still alive after a short grace is named (pid and
 * command line), killed, and the test fails. SIGINT, SIGTERM and SIGHUP
 * sent to run-test go on to the test's process group.
 *
 * Exit: the test's status (128 + N when signal N ended it), or 1 when it
 * left a process running. With EV_TEST_TIMES set, one line
 * "SECONDS\tTEST\tUSER\tSYSTEM" is appended to that file per test (wall
 * time, then the CPU seconds of everything it started and that ended),
 * for quickstart's five slowest. */
#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define GRACE_MS 3000
#define MAX_PROCS 65536

static volatile sig_atomic_t test_pid;

static void forward(int sig)
{
	if (test_pid > 0)
		kill(-test_pid, sig);
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* The parent and state of PID from /proc/PID/stat; -1 when it is gone. */
static int read_stat(pid_t pid, pid_t *ppid, char *state)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	/* the command name may hold spaces and parentheses: it ends at the last ')' */
	char *close_paren = strrchr(buf, ')');
	int parent;
	if (!close_paren || sscanf(close_paren + 1, " %c %d", state, &parent) != 2)
		return -1;
	*ppid = parent;
	return 0;
}

/* The live (not zombie) descendants of this process, into OUT; their count. */
static size_t descendants(pid_t *out, size_t cap)
{
	static pid_t pids[MAX_PROCS], parents[MAX_PROCS];
	size_t n = 0;
	DIR *d = opendir("/proc");
	if (!d)
		return 0;
	struct dirent *e;
	while ((e = readdir(d)) && n < MAX_PROCS) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		pid_t ppid;
		char state;
		if (*end || pid <= 0 || read_stat((pid_t)pid, &ppid, &state) != 0 || state == 'Z')
			continue;
		pids[n] = (pid_t)pid;
		parents[n++] = ppid;
	}
	closedir(d);
	size_t found = 0;
	out[found++] = getpid();
	/* breadth first: each pass adds the children of what was found */
	for (size_t scan = 0; scan < found; scan++)
		for (size_t i = 0; i < n; i++)
			if (parents[i] == out[scan] && found < cap)
				out[found++] = pids[i];
	memmove(out, out + 1, (found - 1) * sizeof *out);
	return found - 1;
}

static void reap_all(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

static void command_line(pid_t pid, char *buf, size_t cap)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, cap - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0) {
		snprintf(buf, cap, "(command line unreadable)");
		return;
	}
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == 0)
			buf[i] = ' ';
	while (n > 0 && buf[n - 1] == ' ')
		n--;
	buf[n] = 0;
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: run-test PROGRAM [ARGS...]\n");
		return 99;
	}
	const char *name = argv[argc - 1];
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
		perror("run-test: cannot become the subreaper of the test");
		return 99;
	}
	const char *base = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char tmpdir[4096];
	snprintf(tmpdir, sizeof tmpdir, "%s/ev-test.XXXXXX", base);
	/* sticky and open to all like /tmp: tests drop to other users */
	if (!mkdtemp(tmpdir) || chmod(tmpdir, 01777) != 0) {
		fprintf(stderr, "run-test: cannot make a private TMPDIR under %s: %s\n", base, strerror(errno));
		return 99;
	}

	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = forward;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	double started = now();
	pid_t pid = fork();
	if (pid < 0) {
		perror("run-test: fork");
		return 99;
	}
	if (pid == 0) {
		setsid();
		struct sigaction dfl;
		memset(&dfl, 0, sizeof dfl);
		dfl.sa_handler = SIG_DFL;
		for (int sig = 1; sig < NSIG; sig++)
			if (sig != SIGKILL && sig != SIGSTOP)
				sigaction(sig, &dfl, NULL);
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		int null = open("/dev/null", O_RDONLY);
		if (null < 0 || dup2(null, 0) < 0)
			_exit(99);
		if (null > 0)
			close(null);
		setenv("TMPDIR", tmpdir, 1);
		setenv("LC_ALL", "C.UTF-8", 1);
		execvp(argv[1], argv + 1);
		fprintf(stderr, "run-test: cannot run %s: %s\n", argv[1], strerror(errno));
		_exit(99);
	}
	test_pid = pid;
	/* reap every orphan the test leaves to us as it goes, as init would:
	 * a zombie still answers kill(pid, 0), and a test polling for a
	 * helper's end would wait for ever */
	int status = 0;
	for (;;) {
		int st;
		pid_t got = waitpid(-1, &st, 0);
		if (got == pid) {
			status = st;
			break;
		}
		if (got < 0 && errno != EINTR)
			break;
	}
	double took = now() - started;
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);

	/* what is ending on its own (a server told to stop, a watcher whose
	 * process died) gets the grace; what is still alive after it leaked */
	static pid_t left[MAX_PROCS];
	size_t n_left = 0;
	for (int waited = 0;; waited += 50) {
		reap_all();
		n_left = descendants(left, MAX_PROCS);
		if (n_left == 0 || waited >= GRACE_MS)
			break;
		nanosleep(&(struct timespec){0, 50 * 1000 * 1000}, NULL);
	}
	if (n_left > 0) {
		fprintf(stderr, "run-test: %s left %zu process%s running after it ended; killed:\n", name, n_left,
			n_left == 1 ? "" : "es");
		for (size_t i = 0; i < n_left; i++) {
			char cmd[512];
			command_line(left[i], cmd, sizeof cmd);
			fprintf(stderr, "  pid %d: %s\n", (int)left[i], cmd);
		}
		fprintf(stderr, "run-test: a test must stop every process it starts, on every path (trap ... EXIT)\n");
		/* kill until none is left: a leaked process may fork meanwhile */
		for (int round = 0; round < 20 && n_left > 0; round++) {
			for (size_t i = 0; i < n_left; i++)
				kill(left[i], SIGKILL);
			nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
			reap_all();
			n_left = descendants(left, MAX_PROCS);
		}
		if (code == 0 || code == 77)
			code = 1;
	}
	if (code == 0 || code == 77)
		nftw(tmpdir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	else
		fprintf(stderr, "run-test: %s failed (status %d); its TMPDIR is kept in %s\n", name, code, tmpdir);

	const char *times = getenv("EV_TEST_TIMES");
	if (times && *times) {
		FILE *f = fopen(times, "a");
		struct rusage ru;
		getrusage(RUSAGE_CHILDREN, &ru);
		if (f) {
			fprintf(f, "%.1f\t%s\t%.1f\t%.1f\n", took, name, ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
				ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
			fclose(f);
		}
	}
	return code;
}
