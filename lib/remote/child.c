/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/remote/child.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define READ_CHUNK 65536
#define STOP_POLL_MS 10

/* A wait status as a shell says it: the exit status, or 128 + the signal. */
static int exit_code_of(int wait_status)
{
	return WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128 + WTERMSIG(wait_status);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

ev_status ev_child_start(struct ev_child *c, char *const argv[], const char *env_add, size_t outmax,
		      int idle_seconds, const char *label, volatile sig_atomic_t *stop,
		      struct ev_error *err)
{
	int pin[2] = {-1, -1}, pout[2] = {-1, -1}, perr[2] = {-1, -1};
	memset(c, 0, sizeof *c);
	c->pid = -1;
	c->in = c->out = c->errfd = -1;
	c->outmax = outmax;
	c->idle_seconds = idle_seconds;
	c->label = label;
	c->doing = "starting";
	c->stop = stop;
	if (pipe2(pin, O_CLOEXEC) || pipe2(pout, O_CLOEXEC) || pipe2(perr, O_CLOEXEC)) {
		ev_status st = ev_error_errno(err, errno, "%s: cannot make pipes", label);
		for (int i = 0; i < 2; i++) {
			if (pin[i] >= 0) close(pin[i]);
			if (pout[i] >= 0) close(pout[i]);
			if (perr[i] >= 0) close(perr[i]);
		}
		return st;
	}
	/* The environment is built before fork: the child of a threaded
	 * process may only exec. */
	extern char **environ;
	size_t nenv = 0;
	while (environ[nenv])
		nenv++;
	char **envp = calloc(nenv + 2, sizeof *envp);
	if (!envp) {
		for (int i = 0; i < 2; i++) {
			close(pin[i]);
			close(pout[i]);
			close(perr[i]);
		}
		return ev_error_set(err, EV_ERROR, "out of memory");
	}
	memcpy(envp, environ, nenv * sizeof *envp);
	if (env_add)
		envp[nenv] = (char *)env_add;
	static const char exec_failed[] = "cannot run the helper program\n";
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		free(envp);
		ev_status st = ev_error_errno(err, errno, "%s: cannot start %s", label, argv[0]);
		for (int i = 0; i < 2; i++) {
			close(pin[i]);
			close(pout[i]);
			close(perr[i]);
		}
		return st;
	}
	if (pid == 0) {
		/* Dies with us, even by SIGKILL: a verify left running would
		 * go on to write a receipt nobody asked for any more. */
		if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent)
			_exit(127);
		setpgid(0, 0);
		signal(SIGPIPE, SIG_DFL);
		dup2(pin[0], 0);
		dup2(pout[1], 1);
		dup2(perr[1], 2);
		/* program: the command line (--ssh, --remote-replicate), PATH, or /proc/self/exe */
		execvpe(argv[0], argv, envp);
		if (write(2, exec_failed, sizeof exec_failed - 1) < 0)
			_exit(127);
		_exit(127);
	}
	free(envp);
	setpgid(pid, pid); /* also here: no race with a kill before the child's own call */
	close(pin[0]);
	close(pout[1]);
	close(perr[1]);
	c->pid = pid;
	c->in = pin[1];
	c->out = pout[0];
	c->errfd = perr[0];
	fcntl(c->in, F_SETFL, O_NONBLOCK);
	fcntl(c->out, F_SETFL, O_NONBLOCK);
	fcntl(c->errfd, F_SETFL, O_NONBLOCK);
	return EV_OK;
}

/* Keep the last EV_CHILD_ERR_TAIL bytes of stderr. */
static void keep_err(struct ev_child *c, const char *buf, size_t n)
{
	if (n >= EV_CHILD_ERR_TAIL) {
		memcpy(c->errtail, buf + n - (EV_CHILD_ERR_TAIL - 1), EV_CHILD_ERR_TAIL - 1);
		c->errlen = EV_CHILD_ERR_TAIL - 1;
	} else {
		if (c->errlen + n >= EV_CHILD_ERR_TAIL) {
			size_t drop = c->errlen + n - (EV_CHILD_ERR_TAIL - 1);
			memmove(c->errtail, c->errtail + drop, c->errlen - drop);
			c->errlen -= drop;
		}
		memcpy(c->errtail + c->errlen, buf, n);
		c->errlen += n;
	}
	c->errtail[c->errlen] = '\0';
}

/* Read what is ready on one of the child's output pipes.
 * @return bytes read, 0 at end (the fd is closed), -1 when nothing now. */
static ssize_t drain(struct ev_child *c, int *fd, int is_err, struct ev_error *err, ev_status *st)
{
	char buf[READ_CHUNK];
	ssize_t n = read(*fd, buf, sizeof buf);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? -1 : 0;
	if (n == 0) {
		close(*fd);
		*fd = -1;
		return 0;
	}
	if (is_err) {
		keep_err(c, buf, (size_t)n);
		return n;
	}
	if (c->outlen + (size_t)n + 1 > c->outmax) {
		*st = ev_error_set(err, EV_ERROR, "%s: sent more than %zu bytes while %s", c->label,
				   c->outmax, c->doing);
		return n;
	}
	if (c->outlen + (size_t)n + 1 > c->outcap) {
		size_t cap = c->outcap ? c->outcap * 2 : 4096;
		while (cap < c->outlen + (size_t)n + 1)
			cap *= 2;
		char *bigger = realloc(c->outbuf, cap);
		if (!bigger) {
			*st = ev_error_set(err, EV_ERROR, "out of memory");
			return n;
		}
		c->outbuf = bigger;
		c->outcap = cap;
	}
	memcpy(c->outbuf + c->outlen, buf, (size_t)n);
	c->outlen += (size_t)n;
	c->outbuf[c->outlen] = '\0';
	return n;
}

/* Take stderr to its end (for at most two seconds), so that a message
 * the child wrote as it ended is there to quote. */
static void finish_stderr(struct ev_child *c)
{
	struct ev_error ignored;
	ev_status st = EV_OK;
	double until = now() + 2;
	while (c->errfd >= 0 && now() < until) {
		struct pollfd p = {.fd = c->errfd, .events = POLLIN};
		if (poll(&p, 1, 100) > 0)
			drain(c, &c->errfd, 1, &ignored, &st);
	}
}

static ev_status ended_early(struct ev_child *c, struct ev_error *err)
{
	char why[512];
	finish_stderr(c);
	ev_child_last_error(c, why, sizeof why);
	if (!why[0])
		return ev_error_set(err, EV_ERROR, "%s: ended while %s, without a word", c->label,
				    c->doing);
	return ev_error_set(err, EV_ERROR, "%s: failed while %s: %s", c->label, c->doing, why);
}

static int stopped(const struct ev_child *c, struct ev_error *err)
{
	if (!c->stop || !*c->stop)
		return 0;
	ev_error_set(err, EV_INTERRUPTED, "%s: interrupted by a signal while %s", c->label, c->doing);
	return 1;
}

/* Add the child's open stdout and stderr to p after its first n entries;
 * their indexes go to *io and *ie (-1: closed). @return the new count. */
static int poll_outputs(const struct ev_child *c, struct pollfd *p, int n, int *io, int *ie)
{
	*io = *ie = -1;
	if (c->out >= 0) {
		p[n] = (struct pollfd){.fd = c->out, .events = POLLIN};
		*io = n++;
	}
	if (c->errfd >= 0) {
		p[n] = (struct pollfd){.fd = c->errfd, .events = POLLIN};
		*ie = n++;
	}
	return n;
}

/* Move bytes until done(c) says so or the child goes idle. want_write:
 * return as soon as stdin takes more. needs_stdout: a closed stdout before
 * done(c) is the child giving up. */
static ev_status pump(struct ev_child *c, int want_write, int (*done)(const struct ev_child *),
		      int needs_stdout, struct ev_error *err)
{
	double last = now();
	ev_status st = EV_OK;
	for (;;) {
		if (done && done(c))
			return EV_OK;
		if (needs_stdout && c->out < 0)
			return ended_early(c, err);
		struct pollfd p[3];
		int n = 0, iw = -1, io, ie;
		if (want_write && c->in >= 0) {
			p[n] = (struct pollfd){.fd = c->in, .events = POLLOUT};
			iw = n++;
		}
		n = poll_outputs(c, p, n, &io, &ie);
		if (n == 0)
			return done ? ended_early(c, err) : EV_OK;
		double left = c->idle_seconds - (now() - last);
		if (left <= 0)
			return ev_error_set(err, EV_ERROR,
					    "%s: no progress for %d s while %s; stopped it",
					    c->label, c->idle_seconds, c->doing);
		int wait_ms = (int)(left * 1000) + 1;
		if (c->stop && wait_ms > STOP_POLL_MS)
			wait_ms = STOP_POLL_MS;
		int r = poll(p, (nfds_t)n, wait_ms);
		if (stopped(c, err))
			return EV_INTERRUPTED;
		if (r < 0 && errno != EINTR)
			return ev_error_errno(err, errno, "%s: poll failed", c->label);
		if (r <= 0)
			continue;
		int moved = 0;
		if (io >= 0 && p[io].revents)
			moved |= drain(c, &c->out, 0, err, &st) != -1;
		if (ie >= 0 && p[ie].revents)
			moved |= drain(c, &c->errfd, 1, err, &st) != -1;
		if (st != EV_OK)
			return st;
		if (moved)
			last = now();
		if (iw >= 0 && p[iw].revents) {
			if (p[iw].revents & (POLLERR | POLLHUP))
				return ended_early(c, err);
			return EV_OK; /* writable */
		}
	}
}

ev_status ev_child_write(struct ev_child *c, const void *buf, size_t len, struct ev_error *err)
{
	const char *p = buf;
	while (len > 0) {
		ssize_t n = write(c->in, p, len);
		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN)
			return ended_early(c, err);
		ev_status st = pump(c, 1, NULL, 0, err);
		if (st != EV_OK)
			return st;
	}
	return EV_OK;
}

void ev_child_close_input(struct ev_child *c)
{
	if (c->in >= 0)
		close(c->in);
	c->in = -1;
}

static int has_line(const struct ev_child *c)
{
	return c->outlen && memchr(c->outbuf, '\n', c->outlen) != NULL;
}

ev_status ev_child_read_line(struct ev_child *c, char *line, size_t cap, struct ev_error *err)
{
	ev_status st = pump(c, 0, has_line, 1, err);
	if (st != EV_OK)
		return st;
	char *nl = memchr(c->outbuf, '\n', c->outlen);
	size_t n = (size_t)(nl - c->outbuf);
	if (n + 1 > cap)
		return ev_error_set(err, EV_ERROR, "%s: answered with a line too long while %s",
				    c->label, c->doing);
	memcpy(line, c->outbuf, n);
	line[n] = '\0';
	memmove(c->outbuf, nl + 1, c->outlen - n - 1);
	c->outlen -= n + 1;
	c->outbuf[c->outlen] = '\0';
	return EV_OK;
}

static int output_closed(const struct ev_child *c)
{
	return c->out < 0;
}

ev_status ev_child_read_all(struct ev_child *c, struct ev_error *err)
{
	ev_status st = pump(c, 0, output_closed, 0, err);
	if (st == EV_OK && !c->outbuf) {
		c->outbuf = calloc(1, 1);
		if (!c->outbuf)
			return ev_error_set(err, EV_ERROR, "out of memory");
	}
	return st;
}

static int all_closed(const struct ev_child *c)
{
	return c->out < 0 && c->errfd < 0;
}

ev_status ev_child_wait(struct ev_child *c, int *exit_code, struct ev_error *err)
{
	ev_child_close_input(c);
	ev_status st = pump(c, 0, all_closed, 0, err);
	if (st != EV_OK)
		return st;
	/* Both pipes closed: the child is ending; give it idle_seconds. */
	double deadline = now() + c->idle_seconds;
	for (;;) {
		int status;
		pid_t r = waitpid(c->pid, &status, WNOHANG);
		if (r == c->pid) {
			c->pid = -1;
			*exit_code = exit_code_of(status);
			return EV_OK;
		}
		if (r < 0 && errno != EINTR)
			return ev_error_errno(err, errno, "%s: cannot wait for it", c->label);
		if (stopped(c, err))
			return EV_INTERRUPTED;
		if (now() > deadline)
			return ev_error_set(err, EV_ERROR, "%s: did not exit after closing its output",
					    c->label);
		usleep(10000);
	}
}

static int is_progress(const struct ev_child *c, const char *line)
{
	if (!c->progress_marks[0])
		return strstr(line, ": verifying: ") != NULL;
	for (size_t i = 0; i < 4 && c->progress_marks[i]; i++)
		if (strstr(line, c->progress_marks[i]))
			return 1;
	return 0;
}

void ev_child_last_error(const struct ev_child *c, char *buf, size_t cap)
{
	/* Walk back over lines; skip progress redraws ("\r...\033[K") and blanks. */
	buf[0] = '\0';
	size_t end = c->errlen;
	while (end > 0) {
		size_t start = end;
		while (start > 0 && c->errtail[start - 1] != '\n' && c->errtail[start - 1] != '\r')
			start--;
		size_t o = 0;
		for (size_t i = start; i < end && o + 1 < cap; i++) {
			unsigned char ch = (unsigned char)c->errtail[i];
			if (ch == 0x1b) { /* an escape sequence: skip to its final letter */
				while (i + 1 < end && !((c->errtail[i + 1] >= 'A' && c->errtail[i + 1] <= 'Z') ||
							(c->errtail[i + 1] >= 'a' && c->errtail[i + 1] <= 'z')))
					i++;
				i++;
				continue;
			}
			if (ch >= 0x20)
				buf[o++] = (char)ch;
		}
		buf[o] = '\0';
		if (o > 0 && !is_progress(c, buf)) {
			/* The far end's tool names itself; the message we build
			 * around it names the destination instead. */
			char own[64];
			snprintf(own, sizeof own, "%s: ", c->far_tool ? c->far_tool : "replicate");
			size_t n = strlen(own);
			if (strncmp(buf, own, n) == 0)
				memmove(buf, buf + n, o - n + 1);
			return;
		}
		buf[0] = '\0';
		end = start > 0 ? start - 1 : 0;
	}
}

/* Every pipe to and from the child, closed. */
static void close_pipes(struct ev_child *c)
{
	ev_child_close_input(c);
	if (c->out >= 0)
		close(c->out);
	if (c->errfd >= 0)
		close(c->errfd);
	c->out = c->errfd = -1;
}

int ev_child_stop(struct ev_child *c, double grace_seconds, int *exit_code)
{
	if (c->pid <= 0)
		return 0;
	ev_child_close_input(c);
	double until = now() + grace_seconds;
	struct ev_error ignored;
	ev_status st = EV_OK;
	while ((c->out >= 0 || c->errfd >= 0) && st == EV_OK && now() < until) {
		struct pollfd p[2];
		int io, ie, n = poll_outputs(c, p, 0, &io, &ie);
		if (poll(p, (nfds_t)n, (int)((until - now()) * 1000) + 1) < 0 && errno != EINTR)
			break;
		if (io >= 0 && p[io].revents)
			drain(c, &c->out, 0, &ignored, &st);
		if (ie >= 0 && p[ie].revents)
			drain(c, &c->errfd, 1, &ignored, &st);
	}
	for (;;) {
		int ws;
		pid_t r = waitpid(c->pid, &ws, WNOHANG);
		if (r == c->pid) {
			c->pid = -1;
			*exit_code = exit_code_of(ws);
			return 1;
		}
		if ((r < 0 && errno != EINTR) || now() >= until)
			break;
		usleep(5000);
	}
	ev_child_kill(c);
	return 0;
}

void ev_child_kill(struct ev_child *c)
{
	if (c->pid <= 0)
		return;
	/* Nobody reads its output any more: a child blocked writing its
	 * progress into a full pipe would never see the SIGTERM's flag
	 * (another of its threads may take the signal). Closed, its write
	 * fails at once and it goes on to stop. */
	close_pipes(c);
	kill(-c->pid, SIGTERM);
	int ws = 0;
	for (int i = 0; i < 50; i++) {
		if (waitpid(c->pid, &ws, WNOHANG) == c->pid) {
			c->pid = -1;
			c->killed_status = exit_code_of(ws);
			return;
		}
		usleep(10000);
	}
	kill(-c->pid, SIGKILL);
	waitpid(c->pid, &ws, 0);
	c->pid = -1;
	c->killed_status = exit_code_of(ws);
}

void ev_child_free(struct ev_child *c)
{
	ev_child_kill(c);
	close_pipes(c);
	free(c->outbuf);
	c->outbuf = NULL;
}
