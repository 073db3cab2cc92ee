/* SPDX-License-Identifier: Apache-2.0 */
/* child: a helper process (ssh, or replicate itself for a local copy) that
 * push talks to through pipes, under an inactivity timeout.
 *
 * Every call moves bytes both ways while it waits (stdout is collected,
 * stderr's tail kept), so a child that writes while we write never
 * deadlocks. Any byte moved counts as progress; a child that moves none
 * for `idle_seconds` is declared stuck, and the caller kills it. The child
 * runs in its own process group, so that killing it also stops what it
 * started (an ssh ProxyCommand, say), and gets SIGTERM when the thread that
 * started it dies (PR_SET_PDEATHSIG), so that a killed push leaves nothing
 * running. Every wait also watches the caller's stop flag: once it is set,
 * the call returns EV_INTERRUPTED within 10 ms. One child per
 * thread.
 */
#ifndef EV_CHILD_H
#define EV_CHILD_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/core/status.h"

#define EV_CHILD_ERR_TAIL 4096

struct ev_child {
	pid_t pid;
	int in, out, errfd;        /* our ends; -1 once closed */
	char *outbuf;              /* stdout collected and not yet consumed */
	size_t outlen, outcap, outmax;
	char errtail[EV_CHILD_ERR_TAIL]; /* the last bytes of stderr */
	size_t errlen;
	int idle_seconds;
	const char *label;         /* for messages: "hostA:/srv/replica" */
	const char *doing;         /* what we wait for, for messages */
	volatile sig_atomic_t *stop; /* NULL: never; nonzero: stop waiting */
	int killed_status;         /* set by ev_child_kill: how it ended (128 + signal when killed) */
	/* for ev_child_last_error, set after ev_child_start (zero: replicate's):
	 * the far tool's name, stripped from its message, and what marks its
	 * progress lines (up to four, NULL-ended; none: ": verifying: ") */
	const char *far_tool;
	const char *progress_marks[5];
};

/* Start argv[0] (searched in PATH) with pipes on fds 0-2; env_add (may be
 * NULL) is one "NAME=value" put into its environment. outmax bounds the
 * stdout it may send (a receipt), to keep memory bounded; stop (may be
 * NULL) is the caller's interrupt flag. */
ev_status ev_child_start(struct ev_child *c, char *const argv[], const char *env_add, size_t outmax,
		      int idle_seconds, const char *label, volatile sig_atomic_t *stop,
		      struct ev_error *err);

/* Write all of buf to the child's stdin. */
ev_status ev_child_write(struct ev_child *c, const void *buf, size_t len, struct ev_error *err);

/* Close the child's stdin (it sees the end of input). */
void ev_child_close_input(struct ev_child *c);

/* One line of the child's stdout, without its newline, into line (cap
 * bytes). EV_ERROR when the child closes stdout first or goes idle. */
ev_status ev_child_read_line(struct ev_child *c, char *line, size_t cap, struct ev_error *err);

/* Collect stdout until the child closes it; the bytes stay in c->outbuf
 * (c->outlen of them, NUL-terminated). */
ev_status ev_child_read_all(struct ev_child *c, struct ev_error *err);

/* Wait for the child to end (draining its output meanwhile) and give its
 * exit status (128 + signal when killed). */
ev_status ev_child_wait(struct ev_child *c, int *exit_code, struct ev_error *err);

/* The last line the child wrote to stderr that says something (progress
 * lines and terminal escapes left out), or "" when none. */
void ev_child_last_error(const struct ev_child *c, char *buf, size_t cap);

/* Stop it the gentle way first, to learn how it ended: close its stdin (a
 * far tool run with --stop-when-stdin-closes stops on that, and ssh passes
 * the end of input on), keep collecting its output, and give it
 * grace_seconds to end by itself; only then kill it (ev_child_kill). For a
 * caller that is already stopping: the stop flag is not looked at.
 * @return 1 when it ended by itself in time (its exit status in
 * *exit_code, 128 + signal when killed by one, and all it wrote in outbuf),
 * 0 when it had to be killed. */
int ev_child_stop(struct ev_child *c, double grace_seconds, int *exit_code);

/* Close our ends of its pipes, kill the process group (SIGTERM, then SIGKILL
 * after half a second) and reap it; how it ended goes to killed_status. */
void ev_child_kill(struct ev_child *c);

/* Close what is open and free the buffers; kills a child still running. */
void ev_child_free(struct ev_child *c);

#endif
