/* SPDX-License-Identifier: Apache-2.0 */
/* netns: the pair's network, made and read through netlink (rtnetlink and
 * sock_diag), with no helper program.
 *
 * Topology "veth": each side of a run unshares a network namespace of its
 * own before it execs; capture then creates one veth pair whose ends are
 * made directly inside the two namespaces, and each side brings up lo and
 * its end with its address. The namespaces belong to the processes: when
 * both have exited (however capture ended) they and the veth are gone.
 * Capture reads them through netlink sockets it opens inside them
 * (ev_netns_sockets), which it closes after the run.
 *
 * Functions marked "child" use no heap and are safe between fork and exec
 * of a multithreaded process.
 * Only lib/process and capture's use cases (lib/usecase/capture)
 * include this.
 */
#ifndef EV_NETNS_H
#define EV_NETNS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

#include "lib/core/status.h"

#define EV_NETNS_SENDER_IF "evs0"
#define EV_NETNS_PEER_IF "evp0"
#define EV_NETNS_SENDER_ADDR "10.201.0.1"
#define EV_NETNS_PEER_ADDR "10.201.0.2"
#define EV_NETNS_PREFIX 30

/* Create the veth pair: end a_name in the namespace of a_pid, b_name in
 * that of b_pid. @return EV_OK, or EV_ERROR with the kernel's reason. */
ev_status ev_netns_veth_create(const char *a_name, pid_t a_pid, const char *b_name, pid_t b_pid,
			    struct ev_error *err);

/* Child: in the current namespace, bring lo and ifname up and give
 * ifname addr/prefix. @return 0, or a positive errno (what failed goes to
 * *step). */
int ev_netns_configure(const char *ifname, const char *addr, int prefix, const char **step);

/* Netlink sockets inside the namespace of pid (0: the current one), for
 * reading it after its processes have gone. Close both with close(). */
ev_status ev_netns_sockets(pid_t pid, int *route_fd, int *diag_fd, struct ev_error *err);

/* The namespace's interfaces and their counters:
 * {"lo": {"rx_bytes": ..., "rx_packets": ..., "tx_bytes": ..., ...}, ...};
 * NULL when they cannot be read (err set). */
json_t *ev_netns_link_stats(int route_fd, struct ev_error *err);

/* The TCP sockets of the namespace whose inode is one of inodes (n of
 * them): state, addresses, tcp_info (RTT, cwnd, retransmissions, notsent
 * bytes, busy, rwnd-limited and sndbuf-limited time, bytes) and the
 * socket's memory (send and receive buffers, queued). An array; NULL when
 * they cannot be read (err set). */
json_t *ev_netns_tcp_sockets(int diag_fd, const uint64_t *inodes, size_t n, struct ev_error *err);

/* The socket inodes pid holds open (from /proc/PID/fd), appended to
 * inodes (cap entries, *n used). */
void ev_netns_socket_inodes(pid_t pid, uint64_t *inodes, size_t cap, size_t *n);

/* Topology "link": two existing interfaces of capture's namespace (the
 * two ports of a NIC joined by a cable, or a stand-in veth pair), moved
 * into the sides' namespaces for a run and back after it. */
struct ev_netns_link {
	char name[16];          /* IFNAMSIZ */
	int host_index;         /* its index in capture's namespace */
	int mtu;                /* before the campaign: restored on return */
	char driver[64], version[40], firmware[64], bus_info[64]; /* ETHTOOL_GDRVINFO */
};

/* Find name in capture's namespace and read its MTU and driver (driver,
 * version, firmware, bus; driver says "unavailable: ..." when the
 * interface answers no ethtool query). @return EV_OK, or EV_ERROR naming
 * the interface. */
ev_status ev_netns_link_inspect(const char *name, struct ev_netns_link *l, struct ev_error *err);

/* l as run.json and the receipt record it: interface, driver, version,
 * firmware, bus_info, mtu (as found before the campaign). */
json_t *ev_netns_link_json(const struct ev_netns_link *l);

/* Move l into the namespace of pid, with mtu when positive. */
ev_status ev_netns_link_move_in(const struct ev_netns_link *l, pid_t pid, int mtu, struct ev_error *err);

/* Move the interface called name back, through route_fd (a netlink socket
 * inside the namespace it is in), into the namespace of host_ns_fd, with
 * mtu when positive. No heap: safe in a forked keeper. @return 0 or a
 * positive errno. */
int ev_netns_link_move_out(int route_fd, const char *name, int host_ns_fd, int mtu);

/* The inode of pid's network namespace (0 when it cannot be read). */
uint64_t ev_netns_inode(pid_t pid);

#endif
