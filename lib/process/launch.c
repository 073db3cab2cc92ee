/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/process/launch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <grp.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/process/netns.h"
#include "lib/core/stop.h"

#define NETNS_PREFIX_LEN EV_NETNS_PREFIX

/* What the child reports: a step number and, on failure, an errno. */
struct report {
	unsigned char step; /* STEP_* */
	unsigned char ok;
	int err;
};

enum { STEP_SETUP = 1, STEP_CONFIGURE = 2, STEP_EXEC = 3 };

static const char *step_name(int step, int detail)
{
	switch (step) {
	case STEP_SETUP: return detail == 1 ? "pin to its CPU" : detail == 2 ? "unshare a network namespace" : "set up";
	case STEP_CONFIGURE: return "configure its network";
	case STEP_EXEC:
		return detail == 1   ? "open its files"
		       : detail == 2 ? "enter its working directory"
		       : detail == 4 ? "drop to its user (capability bounding set, setgroups, setgid, setuid)"
		       : detail == 5 ? "show in /proc/self/status that it kept no uid, gid or capability of root"
				     : "exec";
	default: return "start";
	}
}

double ev_launch_monotonic(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Child side: report and, on failure, leave. */
static void child_report(int fd, int step, int ok, int e)
{
	struct report r = {(unsigned char)step, (unsigned char)ok, e};
	ssize_t ignored = write(fd, &r, sizeof r);
	(void)ignored;
	if (!ok)
		_exit(127);
}

static char child_wait(int fd)
{
	char c = 0;
	ssize_t n;
	while ((n = read(fd, &c, 1)) < 0 && errno == EINTR)
		;
	if (n != 1)
		_exit(126); /* capture went away: do not run */
	return c;
}

/* Child: does "Name:\tA\tB\tC\tD" in status hold want in every column? */
static int child_status_all(const char *status, const char *name, unsigned long want, int columns)
{
	const char *line = strstr(status, name);
	if (!line)
		return 0;
	const char *q = line + strlen(name);
	for (int i = 0; i < columns; i++) {
		while (*q == ' ' || *q == '\t')
			q++;
		char *end;
		unsigned long v = strtoul(q, &end, columns == 1 ? 16 : 10);
		if (end == q || v != want)
			return 0;
		q = end;
	}
	return 1;
}

/* Child, after setuid: every uid and gid is the side's and no capability
 * is left, as the kernel shows it. No heap: read into the stack. */
static int child_dropped(uid_t uid, gid_t gid)
{
	char status[8192];
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	size_t n = 0;
	ssize_t got;
	while (n < sizeof status - 1 && (got = read(fd, status + n, sizeof status - 1 - n)) > 0)
		n += (size_t)got;
	close(fd);
	status[n] = 0;
	return child_status_all(status, "\nUid:", uid, 4) && child_status_all(status, "\nGid:", gid, 4) &&
	       child_status_all(status, "\nCapInh:", 0, 1) && child_status_all(status, "\nCapPrm:", 0, 1) &&
	       child_status_all(status, "\nCapEff:", 0, 1) && child_status_all(status, "\nCapAmb:", 0, 1) &&
	       child_status_all(status, "\nCapBnd:", 0, 1);
}

static void child_main(struct ev_side_proc *p, int ctl, int rep, pid_t parent)
{
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(126);
	/* the handlers capture installed are not the program's */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(p->cpu, &set);
	if (sched_setaffinity(0, sizeof set, &set) != 0)
		child_report(rep, STEP_SETUP * 16 + 1, 0, errno);
	if (p->unshare_net && unshare(CLONE_NEWNET) != 0)
		child_report(rep, STEP_SETUP * 16 + 2, 0, errno);
	child_report(rep, STEP_SETUP, 1, 0);
	char c = child_wait(ctl);
	if (c == 'C') {
		const char *step;
		int e = ev_netns_configure(p->ifname, p->addr, NETNS_PREFIX_LEN, &step);
		child_report(rep, STEP_CONFIGURE, e == 0, e);
		c = child_wait(ctl);
	}
	if (c != 'E')
		_exit(126);
	int in = p->stdin_r >= 0 ? p->stdin_r : open("/dev/null", O_RDONLY);
	if (in < 0 || dup2(in, 0) < 0 || dup2(p->out_fd, 1) < 0 || dup2(p->err_fd, 2) < 0)
		child_report(rep, STEP_EXEC * 16 + 1, 0, errno);
	if (chdir(p->cwd) != 0)
		child_report(rep, STEP_EXEC * 16 + 2, 0, errno);
	if (p->drop) {
		/* an empty bounding set: no setuid or file-capability program
		 * can bring a capability back */
		for (int cap = 0; p->uid != 0 && cap < 64; cap++)
			if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) {
				if (errno == EINVAL)
					break;
				child_report(rep, STEP_EXEC * 16 + 4, 0, errno);
			}
		if (setgroups((size_t)p->ngroups, p->groups) != 0 || setgid(p->gid) != 0 || setuid(p->uid) != 0)
			child_report(rep, STEP_EXEC * 16 + 4, 0, errno);
		/* a change of credentials clears the parent-death signal */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(126);
		if (p->uid != 0 && !child_dropped(p->uid, p->gid))
			child_report(rep, STEP_EXEC * 16 + 5, 0, EPERM);
	}
	/* program: the plan's (a side or its launcher), pinned and checked by pin_check before the launch */
	execve(p->argv[0], p->argv, p->envp);
	child_report(rep, STEP_EXEC * 16 + 3, 0, errno);
}

/* Parent: the child's next report. */
static ev_status await_report(struct ev_side_proc *p, int want, struct ev_error *err)
{
	struct report r;
	ssize_t n;
	while ((n = read(p->report, &r, sizeof r)) < 0 && errno == EINTR)
		;
	if (n == 0 && want == STEP_EXEC)
		return EV_OK; /* closed by the exec */
	if (n != (ssize_t)sizeof r)
		return ev_error_set(err, EV_ERROR, "%s %s: the child stopped before it could %s", p->role,
				    p->argv[0], step_name(want, 0));
	if (!r.ok)
		return ev_error_errno(err, r.err, "%s %s: cannot %s", p->role, p->argv[0],
				      step_name(r.step / 16, r.step % 16));
	return EV_OK;
}

static void close_stdin(struct ev_side_proc *p)
{
	if (p->stdin_r >= 0)
		close(p->stdin_r);
	if (p->stdin_w >= 0)
		close(p->stdin_w);
	p->stdin_r = p->stdin_w = -1;
}

static void abandon(struct ev_side_proc *p)
{
	close_stdin(p);
	if (p->pid > 0) {
		kill(p->pid, SIGKILL);
		waitpid(p->pid, NULL, 0);
	}
	if (p->ctl >= 0)
		close(p->ctl);
	if (p->report >= 0)
		close(p->report);
	if (p->pidfd >= 0)
		close(p->pidfd);
	p->pid = -1;
	p->ctl = p->report = p->pidfd = -1;
	p->exited = p->reaped = 1;
}

ev_status ev_launch_start(struct ev_side_proc *p, struct ev_error *err)
{
	int ctl[2], rep[2], in[2];
	p->pid = -1;
	p->pidfd = p->ctl = p->report = p->stdin_r = p->stdin_w = -1;
	if (p->stdin_pipe) {
		if (pipe2(in, O_CLOEXEC) != 0)
			return ev_error_errno(err, errno, "pipe");
		p->stdin_r = in[0];
		p->stdin_w = in[1];
		fcntl(p->stdin_w, F_SETFL, O_NONBLOCK);
	}
	if (pipe2(ctl, O_CLOEXEC) != 0) {
		int e = errno;
		close_stdin(p);
		return ev_error_errno(err, e, "pipe");
	}
	if (pipe2(rep, O_CLOEXEC) != 0) {
		int e = errno;
		close(ctl[0]);
		close(ctl[1]);
		close_stdin(p);
		return ev_error_errno(err, e, "pipe");
	}
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(ctl[0]), close(ctl[1]), close(rep[0]), close(rep[1]);
		close_stdin(p);
		return ev_error_errno(err, e, "fork");
	}
	if (pid == 0) {
		close(ctl[1]);
		close(rep[0]);
		child_main(p, ctl[0], rep[1], parent);
		_exit(127);
	}
	close(ctl[0]);
	close(rep[1]);
	p->pid = pid;
	p->ctl = ctl[1];
	p->report = rep[0];
	p->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (p->pidfd < 0) {
		int e = errno;
		abandon(p);
		return ev_error_errno(err, e, "pidfd_open");
	}
	ev_status st = await_report(p, STEP_SETUP, err);
	if (st != EV_OK)
		abandon(p);
	return st;
}

static ev_status tell(struct ev_side_proc *p, char c, struct ev_error *err)
{
	if (write(p->ctl, &c, 1) != 1)
		return ev_error_errno(err, errno, "%s: cannot reach the child", p->role);
	return EV_OK;
}

ev_status ev_launch_configure(struct ev_side_proc *p, struct ev_error *err)
{
	ev_status st = tell(p, 'C', err);
	if (st == EV_OK)
		st = await_report(p, STEP_CONFIGURE, err);
	if (st != EV_OK)
		abandon(p);
	return st;
}

ev_status ev_launch_exec(struct ev_side_proc *p, struct ev_error *err)
{
	clock_gettime(CLOCK_REALTIME, &p->exec_real);
	p->exec_mono = ev_launch_monotonic();
	ev_status st = tell(p, 'E', err);
	if (st == EV_OK)
		st = await_report(p, STEP_EXEC, err);
	close(p->out_fd);
	close(p->err_fd);
	p->out_fd = p->err_fd = -1;
	if (st != EV_OK) {
		abandon(p);
		return st;
	}
	close(p->ctl);
	close(p->report);
	p->ctl = p->report = -1;
	if (p->stdin_r >= 0)
		close(p->stdin_r); /* the side holds it now */
	p->stdin_r = -1;
	return EV_OK;
}

int ev_launch_write_stdin(struct ev_side_proc *p, const char *line)
{
	char buf[512];
	int n = snprintf(buf, sizeof buf, "%s\n", line);
	if (p->stdin_w < 0)
		return EBADF;
	if (n < 0 || (size_t)n >= sizeof buf)
		return EMSGSIZE;
	ssize_t w;
	while ((w = write(p->stdin_w, buf, (size_t)n)) < 0 && errno == EINTR)
		;
	return w == n ? 0 : w < 0 ? errno : EAGAIN;
}

void ev_launch_kill(struct ev_side_proc *p, int sig)
{
	if (p->pid > 0 && !p->reaped)
		kill(-p->pid, sig);
}

int ev_launch_wait_any(struct ev_side_proc *sides, int n, double deadline_mono)
{
	for (;;) {
		for (int i = 0; i < n; i++) {
			struct ev_side_proc *p = &sides[i];
			if (p->pid <= 0 || p->exited)
				continue;
			siginfo_t si;
			memset(&si, 0, sizeof si);
			if (waitid(P_PID, (id_t)p->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == p->pid) {
				p->exited = 1;
				p->end_mono = ev_launch_monotonic();
				clock_gettime(CLOCK_REALTIME, &p->end_real);
				p->status = si.si_code == CLD_EXITED ? (si.si_status & 0xff) << 8 : si.si_status & 0x7f;
				return i;
			}
		}
		if (ev_stop_requested())
			return -2;
		double left = deadline_mono - ev_launch_monotonic();
		if (left <= 0)
			return -1;
		struct pollfd fds[2];
		int nf = 0;
		for (int i = 0; i < n && nf < 2; i++)
			if (sides[i].pid > 0 && !sides[i].exited)
				fds[nf++] = (struct pollfd){sides[i].pidfd, POLLIN, 0};
		if (nf == 0)
			return -1;
		int ms = left > 1 ? 1000 : (int)(left * 1000) + 1;
		poll(fds, (nfds_t)nf, ms);
	}
}

void ev_launch_reap(struct ev_side_proc *p)
{
	if (p->pid > 0 && !p->reaped) {
		int status;
		if (waitpid(p->pid, &status, 0) == p->pid)
			p->status = status;
		p->reaped = 1;
	}
	if (p->pidfd >= 0)
		close(p->pidfd);
	p->pidfd = -1;
	close_stdin(p);
}

/* Does pid, or a process it started (a launcher's child), hold the
 * socket with this inode? Depth-first over /proc/PID/task/TID/children. */
static int holds_socket(pid_t pid, unsigned long inode, int depth)
{
	char path[96], link[64], want[64];
	snprintf(want, sizeof want, "socket:[%lu]", inode);
	snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
	DIR *d = opendir(path);
	if (d) {
		struct dirent *e;
		int found = 0;
		while (!found && (e = readdir(d))) {
			char fd_path[400];
			snprintf(fd_path, sizeof fd_path, "%s/%s", path, e->d_name);
			ssize_t n = readlink(fd_path, link, sizeof link - 1);
			found = n > 0 && (link[n] = '\0', strcmp(link, want) == 0);
		}
		closedir(d);
		if (found)
			return 1;
	}
	if (depth >= 4)
		return 0;
	snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid, (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	int child, found = 0;
	while (!found && fscanf(f, "%d", &child) == 1)
		found = holds_socket((pid_t)child, inode, depth + 1);
	fclose(f);
	return found;
}

int ev_launch_listening(pid_t pid, unsigned port)
{
	static const char *files[] = {"tcp", "tcp6"};
	for (int k = 0; k < 2; k++) {
		char path[64], line[512];
		snprintf(path, sizeof path, "/proc/%d/net/%s", (int)pid, files[k]);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		int found = 0;
		while (!found && fgets(line, sizeof line, f)) {
			unsigned lport, state;
			unsigned long inode;
			char local[128];
			/* sl local rem st tx:rx tr:when retrnsmt uid timeout inode */
			if (sscanf(line, " %*d: %127[0-9A-Fa-f]:%x %*s %x %*s %*s %*s %*s %*s %lu", local,
				   &lport, &state, &inode) == 4)
				/* another process's listener on the same port (a
				 * second capture on the host network) is not ours */
				found = lport == port && state == 0x0A /* TCP_LISTEN */ &&
					holds_socket(pid, inode, 0);
		}
		fclose(f);
		if (found)
			return 1;
	}
	return 0;
}
