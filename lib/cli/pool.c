/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/cli/pool.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/cli.h"

static int set_pool(const struct ev_cli_tool *tool, struct ev_cli_pool *p, const char *v, const char *from)
{
	if (strcmp(v, "shared") != 0 && strcmp(v, "none") != 0) {
		ev_cli_usage(tool, NULL, "%s: expected shared or none, found '%s'", from, v);
		return -1;
	}
	p->shared = strcmp(v, "shared") == 0;
	return 0;
}

static int set_priority(const struct ev_cli_tool *tool, struct ev_cli_pool *p, const char *v, const char *from)
{
	if (strcmp(v, "high") != 0 && strcmp(v, "normal") != 0) {
		ev_cli_usage(tool, NULL, "%s: expected high or normal, found '%s'", from, v);
		return -1;
	}
	p->priority = strcmp(v, "high") == 0 ? EV_LEASE_HIGH : EV_LEASE_NORMAL;
	return 0;
}

int ev_cli_pool_options(const struct ev_cli_tool *tool, int argc, char **argv, struct ev_cli_pool *p)
{
	memset(p, 0, sizeof *p);
	p->priority = EV_LEASE_NORMAL;
	const char *env = getenv(EV_POOL_ENV);
	if (env && *env && set_pool(tool, p, env, EV_POOL_ENV) != 0)
		return -1;
	env = getenv(EV_PRIORITY_ENV);
	if (env && *env && set_priority(tool, p, env, EV_PRIORITY_ENV) != 0)
		return -1;
	int used = 0;
	while (1 + used < argc) {
		const char *a = argv[1 + used];
		int pool = strncmp(a, "--pool", 6) == 0 && (a[6] == 0 || a[6] == '=');
		int prio = strncmp(a, "--priority", 10) == 0 && (a[10] == 0 || a[10] == '=');
		if (!pool && !prio)
			break;
		const char *v = strchr(a, '=');
		if (v) {
			v++;
			used++;
		} else if (2 + used < argc) {
			v = argv[2 + used];
			used += 2;
		} else {
			ev_cli_usage(tool, NULL, "option %s needs a value", a);
			return -1;
		}
		if ((pool ? set_pool : set_priority)(tool, p, v, pool ? "option --pool" : "option --priority") != 0)
			return -1;
	}
	/* argv[0] stays the tool's name: move it up to just before the command */
	if (used)
		argv[used] = argv[0];
	return used;
}

static void say_waiting(void *ctx, const char *why)
{
	const struct ev_cli_tool *tool = ctx;
	fprintf(stderr, "%s: waiting for the shared CPUs: %s\n", tool->name, why);
}

int ev_cli_pool_enter(const struct ev_cli_tool *tool, struct ev_cli_pool *p, int argc, char **argv)
{
	struct ev_error err;
	ev_error_clear(&err);
	struct ev_pools pools;
	char command[1024];
	size_t n = (size_t)snprintf(command, sizeof command, "%s", tool->name);
	for (int i = 0; i < argc && n < sizeof command; i++)
		n += (size_t)snprintf(command + n, sizeof command - n, " %s", argv[i]);
	ev_cli_catch_signals();
	ev_status st = ev_pools_load(&pools, &err);
	if (st == EV_OK)
		st = ev_lease_take(&p->lease, &pools.shared, EV_LEASE_SHARED, p->priority, 1, command, &ev_cli_interrupted,
				   say_waiting, (void *)tool, &err);
	if (st == EV_OK && sched_setaffinity(0, sizeof pools.shared, &pools.shared) != 0)
		st = ev_error_errno(&err, errno, "cannot move onto the shared CPUs");
	/* The processes the command starts (push's verifiers, say) run under
	 * this lease, on these CPUs: one asking for its own would queue behind
	 * a capture that waits for this one. */
	if (st == EV_OK && setenv(EV_POOL_ENV, "none", 1) != 0)
		st = ev_error_errno(&err, errno, "setenv");
	if (st != EV_OK) {
		ev_lease_release(&p->lease);
		ev_error_wrap(&err, "--pool shared");
		ev_cli_error(tool->name, &err);
		return ev_status_exit_code(st);
	}
	return 0;
}

void ev_cli_pool_leave(struct ev_cli_pool *p)
{
	ev_lease_release(&p->lease);
}
