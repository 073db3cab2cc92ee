/* SPDX-License-Identifier: Apache-2.0 */
/* pool: a tool's command run in the host's shared CPU pool.
 *
 * seal, audit and replicate take "--pool POOL" and "--priority PRIORITY"
 * before their command (else EVIDENCE_POOL and EVIDENCE_PRIORITY): POOL
 * "shared" runs the command once a shared lease on every CPU of the
 * shared pool is held (lib/core/lease.h), waiting in the queue while a
 * capture holds any of them, and on those CPUs alone (sched_setaffinity
 * before the command starts a thread); "none" (the default) takes no
 * lease. The processes the command starts inherit the CPUs and run under
 * its lease (EVIDENCE_POOL is set to "none" for them). */
#ifndef EV_CLI_POOL_H
#define EV_CLI_POOL_H

#include "lib/cli/command.h"
#include "lib/core/lease.h"

#define EV_POOL_ENV "EVIDENCE_POOL"
#define EV_PRIORITY_ENV "EVIDENCE_PRIORITY"

struct ev_cli_pool {
	int shared;
	enum ev_lease_priority priority;
	struct ev_lease lease;
};

/* Read the options before the command (and the environment). @return how
 * many arguments they took (argv[1] on is then the command), or -1 after
 * a usage error was printed. */
int ev_cli_pool_options(const struct ev_cli_tool *tool, int argc, char **argv, struct ev_cli_pool *p);

/* Take the shared lease (waiting, interruptible) and move onto the shared
 * CPUs. @return 0, or the exit code after the error was printed. */
int ev_cli_pool_enter(const struct ev_cli_tool *tool, struct ev_cli_pool *p, int argc, char **argv);

void ev_cli_pool_leave(struct ev_cli_pool *p);

#endif
