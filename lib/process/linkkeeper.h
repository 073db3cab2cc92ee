/* SPDX-License-Identifier: Apache-2.0 */
/* linkkeeper: a process of its own that gives a campaign's link ends back
 * to capture's network namespace if capture dies while they are out.
 *
 * The kernel returns a physical port to the initial namespace when the
 * namespace it was moved into goes away, but destroys a veth, and neither
 * restores the MTU. So for topology "link" capture forks a keeper before
 * the first run (in a session of its own, deaf to SIGINT, SIGTERM and
 * SIGHUP, its stdio on /dev/null). For each run capture hands it a netlink
 * socket inside each side's namespace, which keeps the namespace alive,
 * with the interface names and their MTUs, and takes them back once it
 * has returned the interfaces itself. If capture goes away while the
 * keeper holds them, the keeper moves both interfaces back and exits; it
 * exits as well when capture closes its end.
 * Only lib/process and capture's use cases (lib/usecase/capture)
 * include this. */
#ifndef EV_LINKKEEPER_H
#define EV_LINKKEEPER_H

#include <sys/types.h>

#include "lib/core/status.h"

struct ev_link_keeper {
	pid_t pid;
	int sock; /* capture's end (-1: no keeper) */
};

ev_status ev_link_keeper_start(struct ev_link_keeper *k, struct ev_error *err);

/* Hand over route_fd[2] (netlink sockets inside the sides' namespaces),
 * the interfaces' names there and the MTUs to restore, and host_ns_fd
 * (capture's network namespace); returns once the keeper holds them. */
ev_status ev_link_keeper_hold(struct ev_link_keeper *k, const int route_fd[2], const char *const names[2],
				   const int mtu[2], int host_ns_fd, struct ev_error *err);

/* The interfaces are back: the keeper lets go of what it held. */
ev_status ev_link_keeper_release(struct ev_link_keeper *k, struct ev_error *err);

/* Close capture's end and reap the keeper. */
void ev_link_keeper_stop(struct ev_link_keeper *k);

#endif
