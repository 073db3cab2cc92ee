/* SPDX-License-Identifier: Apache-2.0 */
/* scratch: a private temporary directory that goes with its process,
 * however the process ends.
 *
 * An audit that must random-access a member of an archive (perf reads
 * perf.data from a file) copies it into a directory of its own under
 * $TMPDIR (else /tmp), mode 0700. The directory is removed by
 * ev_scratch_close on every path a command returns through; and, because
 * SIGKILL and a crash return through none, a watcher started with it
 * (/bin/sh in a process group of its own, deaf to SIGINT, SIGTERM, SIGHUP
 * and SIGQUIT, reading a pipe whose only writer is this process) removes
 * it as soon as the process is gone. So no exit leaves
 * it in $TMPDIR: a test kills the command with SIGKILL and finds nothing.
 *
 * One struct per directory, owned by the caller; not thread-safe. Files
 * in it are the caller's; they go with it.
 */
#ifndef EV_SCRATCH_H
#define EV_SCRATCH_H

#include <limits.h>
#include <sys/types.h>

#include "lib/core/status.h"

struct ev_scratch {
	char path[PATH_MAX];  /* the directory, "" when none is open */
	pid_t watcher;        /* -1: none */
	int pipe_w;           /* our end of the watcher's pipe; -1: none */
};

/* An empty struct: what ev_scratch_close accepts before any open. */
#define EV_SCRATCH_INIT {.path = "", .watcher = -1, .pipe_w = -1}

/* Make $TMPDIR/NAME.XXXXXX (name: what it is for, "audit-profile") and
 * its watcher. @return EV_OK; EV_ERROR when either cannot be made
 * (nothing is left then). */
ev_status ev_scratch_open(struct ev_scratch *s, const char *name, struct ev_error *err);

/* Remove the directory and everything in it, and end the watcher. Safe on
 * a struct never opened (EV_SCRATCH_INIT, or all zero) or already closed. */
void ev_scratch_close(struct ev_scratch *s);

/* rm -r of path, files first, then directories, deepest first; links are
 * removed, never followed. @return 0, or -1 when something stayed. */
int ev_remove_tree(const char *path);

#endif
