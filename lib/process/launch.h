/* SPDX-License-Identifier: Apache-2.0 */
/* launch: one side of a pair started fresh, pinned, in its namespace.
 *
 * A side is forked early and stops twice before it execs, so that capture
 * can build the pair's network between its steps:
 *   1. the child joins a process group of its own, asks to die with
 *      capture (PR_SET_PDEATHSIG), pins itself to its CPU and, for the veth
 *      topology, unshares a network namespace; it reports and waits;
 *   2. (veth) told to, it brings up lo and its veth end with its address;
 *      it reports and waits;
 *   3. told to, it takes /dev/null (or, for a side stopped through its
 *      stdin, a pipe from capture) as stdin and its files as stdout and
 *      stderr, enters its working directory, drops to its user (groups,
 *      gid, uid; then reads /proc/self/status to see that no uid, gid or
 *      capability of root is left) and execs.
 * Each report is a byte on a pipe; a failure is the step and its errno.
 * The exec is seen by the pipe closing (close-on-exec).
 *
 * Only lib/process and capture's use cases (lib/usecase/capture)
 * include this. */
#ifndef EV_LAUNCH_H
#define EV_LAUNCH_H

#include <stdint.h>
#include <sys/types.h>

#include "lib/core/status.h"

struct ev_side_proc {
	const char *role;
	char **argv, **envp;
	int cpu;
	int unshare_net;
	const char *ifname, *addr; /* veth: this side's end */
	const char *cwd;
	int out_fd, err_fd;         /* opened by the caller; closed by ev_launch_exec */
	int stdin_pipe;             /* give it a pipe as stdin (ev_launch_write_stdin) */
	int drop;                   /* change credentials to uid, gid and groups before exec */
	uid_t uid;
	gid_t gid;
	const gid_t *groups;
	int ngroups;
	/* filled in */
	pid_t pid;
	int pidfd;
	int ctl, report;            /* the two pipes' parent ends */
	int stdin_r, stdin_w;       /* the stdin pipe's ends (-1: none) */
	int exited, reaped;
	int status;                 /* wait status, once exited */
	double exec_mono, end_mono; /* CLOCK_MONOTONIC seconds */
	struct timespec exec_real, end_real;
};

/* Fork the side and let it run to the end of step 1. @return EV_OK, or
 * EV_ERROR naming the step that failed (the child is then reaped). */
ev_status ev_launch_start(struct ev_side_proc *p, struct ev_error *err);

/* Step 2 (veth only). */
ev_status ev_launch_configure(struct ev_side_proc *p, struct ev_error *err);

/* Step 3: exec, and wait until it happened. */
ev_status ev_launch_exec(struct ev_side_proc *p, struct ev_error *err);

/* Write line and a newline to the side's stdin pipe, without blocking.
 * @return 0, or an errno (EPIPE: it closed its stdin; EAGAIN: the pipe is
 * full). */
int ev_launch_write_stdin(struct ev_side_proc *p, const char *line);

/* Kill the side's process group (signal), e.g. after a timeout. */
void ev_launch_kill(struct ev_side_proc *p, int sig);

/* Wait until one of the sides (n of them) exits or deadline_mono passes
 * or a signal arrives. An exited side is marked (not reaped: its /proc
 * entry stays readable). @return the index of a side that exited, -1 on
 * the deadline, -2 when interrupted. */
int ev_launch_wait_any(struct ev_side_proc *sides, int n, double deadline_mono);

/* Reap an exited side (after its last snapshot). */
void ev_launch_reap(struct ev_side_proc *p);

/* Is pid (or a process it started) listening on TCP port? The listener is
 * found in /proc/PID/net/tcp and tcp6 and must be a socket that pid or its
 * descendants hold, so that another program's listener on the same port
 * never passes for the peer's. */
int ev_launch_listening(pid_t pid, unsigned port);

double ev_launch_monotonic(void);

#endif
