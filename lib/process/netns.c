/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/process/netns.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <linux/if_link.h>
#include <linux/ethtool.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/sockios.h>
#include <linux/tcp.h>
#include <linux/veth.h>
#include <netinet/in.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define NL_BUF 8192
#define NL_DUMP_BUF 65536

/* A request being built in a caller's buffer. */
struct nl_req {
	struct nlmsghdr *h;
	size_t cap;
};

static void *nl_tail(struct nl_req *r)
{
	return (char *)r->h + NLMSG_ALIGN(r->h->nlmsg_len);
}

static struct rtattr *nl_attr(struct nl_req *r, unsigned short type, const void *data, size_t len)
{
	struct rtattr *a = nl_tail(r);
	if (NLMSG_ALIGN(r->h->nlmsg_len) + RTA_SPACE(len) > r->cap)
		return NULL;
	a->rta_type = type;
	a->rta_len = (unsigned short)RTA_LENGTH(len);
	if (len)
		memcpy(RTA_DATA(a), data, len);
	r->h->nlmsg_len = (uint32_t)(NLMSG_ALIGN(r->h->nlmsg_len) + RTA_ALIGN(a->rta_len));
	return a;
}

static void nl_nest_end(struct nl_req *r, struct rtattr *nest)
{
	nest->rta_len = (unsigned short)((char *)nl_tail(r) - (char *)nest);
}

static int nl_socket(int proto)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, proto);
	if (fd < 0)
		return -errno;
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK};
	if (bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

/* Send one request and wait for its acknowledgement. @return 0 or a
 * positive errno. */
static int nl_talk(int fd, struct nlmsghdr *h)
{
	static const struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
	h->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	if (sendto(fd, h, h->nlmsg_len, 0, (const struct sockaddr *)&kernel, sizeof kernel) < 0)
		return errno;
	char buf[NL_BUF];
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof buf, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno;
		for (struct nlmsghdr *m = (struct nlmsghdr *)buf; NLMSG_OK(m, (size_t)n); m = NLMSG_NEXT(m, n))
			if (m->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(m);
				return -e->error;
			}
	}
}

ev_status ev_netns_veth_create(const char *a_name, pid_t a_pid, const char *b_name, pid_t b_pid,
			    struct ev_error *err)
{
	char buf[NL_BUF];
	memset(buf, 0, sizeof buf);
	struct nl_req r = {(struct nlmsghdr *)buf, sizeof buf};
	r.h->nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg));
	r.h->nlmsg_type = RTM_NEWLINK;
	r.h->nlmsg_flags = NLM_F_CREATE | NLM_F_EXCL;
	uint32_t apid = (uint32_t)a_pid, bpid = (uint32_t)b_pid;
	nl_attr(&r, IFLA_IFNAME, a_name, strlen(a_name) + 1);
	nl_attr(&r, IFLA_NET_NS_PID, &apid, sizeof apid);
	struct rtattr *info = nl_attr(&r, IFLA_LINKINFO, NULL, 0);
	nl_attr(&r, IFLA_INFO_KIND, "veth", 4);
	struct rtattr *data = nl_attr(&r, IFLA_INFO_DATA, NULL, 0);
	struct rtattr *peer = nl_attr(&r, VETH_INFO_PEER, NULL, 0);
	struct ifinfomsg peer_info = {.ifi_family = AF_UNSPEC};
	r.h->nlmsg_len = (uint32_t)(NLMSG_ALIGN(r.h->nlmsg_len) + sizeof peer_info);
	memcpy((char *)(peer + 1), &peer_info, sizeof peer_info);
	nl_attr(&r, IFLA_IFNAME, b_name, strlen(b_name) + 1);
	struct rtattr *last = nl_attr(&r, IFLA_NET_NS_PID, &bpid, sizeof bpid);
	if (!info || !data || !peer || !last)
		return ev_error_set(err, EV_ERROR, "netlink: request too long");
	nl_nest_end(&r, peer);
	nl_nest_end(&r, data);
	nl_nest_end(&r, info);
	int fd = nl_socket(NETLINK_ROUTE);
	if (fd < 0)
		return ev_error_errno(err, -fd, "netlink (route)");
	int e = nl_talk(fd, r.h);
	close(fd);
	if (e)
		return ev_error_errno(err, e, "cannot create the veth pair %s/%s between PIDs %d and %d",
				      a_name, b_name, (int)a_pid, (int)b_pid);
	return EV_OK;
}

/* Child: RTM_NEWLINK with IFF_UP on index. */
static int link_up(int fd, int index)
{
	char buf[512];
	memset(buf, 0, sizeof buf);
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	h->nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg));
	h->nlmsg_type = RTM_NEWLINK;
	struct ifinfomsg *ifi = NLMSG_DATA(h);
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = index;
	ifi->ifi_flags = IFF_UP;
	ifi->ifi_change = IFF_UP;
	return nl_talk(fd, h);
}

int ev_netns_configure(const char *ifname, const char *addr, int prefix, const char **step)
{
	int fd = nl_socket(NETLINK_ROUTE), e;
	*step = "netlink socket";
	if (fd < 0)
		return -fd;
	int lo = (int)if_nametoindex("lo"), dev = (int)if_nametoindex(ifname);
	*step = "find its interface";
	if (!lo || !dev) {
		close(fd);
		return ENODEV;
	}
	*step = "bring lo up";
	if ((e = link_up(fd, lo)) == 0) {
		char buf[512];
		memset(buf, 0, sizeof buf);
		struct nl_req r = {(struct nlmsghdr *)buf, sizeof buf};
		r.h->nlmsg_len = NLMSG_LENGTH(sizeof(struct ifaddrmsg));
		r.h->nlmsg_type = RTM_NEWADDR;
		r.h->nlmsg_flags = NLM_F_CREATE | NLM_F_EXCL;
		struct ifaddrmsg *ifa = NLMSG_DATA(r.h);
		ifa->ifa_family = AF_INET;
		ifa->ifa_prefixlen = (unsigned char)prefix;
		ifa->ifa_index = (unsigned)dev;
		struct in_addr in;
		inet_pton(AF_INET, addr, &in);
		nl_attr(&r, IFA_LOCAL, &in, sizeof in);
		nl_attr(&r, IFA_ADDRESS, &in, sizeof in);
		*step = "give its interface its address";
		if ((e = nl_talk(fd, r.h)) == 0) {
			*step = "bring its interface up";
			e = link_up(fd, dev);
		}
	}
	close(fd);
	return e;
}

ev_status ev_netns_sockets(pid_t pid, int *route_fd, int *diag_fd, struct ev_error *err)
{
	int self = -1, target = -1;
	*route_fd = *diag_fd = -1;
	if (pid) {
		char path[64];
		snprintf(path, sizeof path, "/proc/%d/ns/net", (int)pid);
		if ((self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC)) < 0 ||
		    (target = open(path, O_RDONLY | O_CLOEXEC)) < 0 || setns(target, CLONE_NEWNET) != 0) {
			int e = errno;
			if (self >= 0)
				close(self);
			if (target >= 0)
				close(target);
			return ev_error_errno(err, e, "cannot enter the network namespace of PID %d", (int)pid);
		}
	}
	*route_fd = nl_socket(NETLINK_ROUTE);
	*diag_fd = nl_socket(NETLINK_SOCK_DIAG);
	int back = 0;
	if (pid) {
		back = setns(self, CLONE_NEWNET) == 0 ? 0 : errno;
		close(self);
		close(target);
	}
	if (back)
		return ev_error_errno(err, back, "cannot return to capture's network namespace");
	if (*route_fd < 0 || *diag_fd < 0) {
		int e = *route_fd < 0 ? -*route_fd : -*diag_fd;
		if (*route_fd >= 0)
			close(*route_fd);
		if (*diag_fd >= 0)
			close(*diag_fd);
		*route_fd = *diag_fd = -1;
		return ev_error_errno(err, e, "netlink socket in the namespace of PID %d", (int)pid);
	}
	return EV_OK;
}

/* Send a dump request and hand each reply message to fn. */
static int nl_dump(int fd, struct nlmsghdr *req, void (*fn)(void *ctx, struct nlmsghdr *m), void *ctx)
{
	static const struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
	req->nlmsg_flags |= NLM_F_REQUEST | NLM_F_DUMP;
	if (sendto(fd, req, req->nlmsg_len, 0, (const struct sockaddr *)&kernel, sizeof kernel) < 0)
		return errno;
	char *buf = malloc(NL_DUMP_BUF);
	if (!buf)
		return ENOMEM;
	int e = 0, done = 0;
	while (!done) {
		ssize_t n = recv(fd, buf, NL_DUMP_BUF, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			e = errno;
			break;
		}
		for (struct nlmsghdr *m = (struct nlmsghdr *)buf; NLMSG_OK(m, (size_t)n); m = NLMSG_NEXT(m, n)) {
			if (m->nlmsg_type == NLMSG_DONE) {
				done = 1;
				break;
			}
			if (m->nlmsg_type == NLMSG_ERROR) {
				e = -((const struct nlmsgerr *)NLMSG_DATA(m))->error;
				done = 1;
				break;
			}
			fn(ctx, m);
		}
	}
	free(buf);
	return e;
}

static void on_link(void *ctx, struct nlmsghdr *m)
{
	if (m->nlmsg_type != RTM_NEWLINK)
		return;
	struct ifinfomsg *ifi = NLMSG_DATA(m);
	int len = (int)IFLA_PAYLOAD(m);
	const char *name = NULL;
	uint32_t mtu = 0;
	struct rtnl_link_stats64 stats, *s = NULL;
	for (struct rtattr *a = IFLA_RTA(ifi); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (a->rta_type == IFLA_IFNAME) {
			name = RTA_DATA(a);
		} else if (a->rta_type == IFLA_MTU && RTA_PAYLOAD(a) >= sizeof mtu) {
			memcpy(&mtu, RTA_DATA(a), sizeof mtu);
		} else if (a->rta_type == IFLA_STATS64 && RTA_PAYLOAD(a) >= sizeof stats) {
			/* attributes are 4-byte aligned; the counters are u64 */
			memcpy(&stats, RTA_DATA(a), sizeof stats);
			s = &stats;
		}
	}
	if (!name || !s)
		return;
	json_object_set_new(ctx, name,
			    json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "mtu", (json_int_t)mtu, "rx_bytes",
				      (json_int_t)s->rx_bytes, "rx_packets", (json_int_t)s->rx_packets,
				      "tx_bytes", (json_int_t)s->tx_bytes, "tx_packets",
				      (json_int_t)s->tx_packets, "rx_dropped", (json_int_t)s->rx_dropped,
				      "tx_dropped", (json_int_t)s->tx_dropped, "rx_errors",
				      (json_int_t)s->rx_errors, "tx_errors", (json_int_t)s->tx_errors));
}

json_t *ev_netns_link_stats(int route_fd, struct ev_error *err)
{
	struct {
		struct nlmsghdr h;
		struct ifinfomsg i;
	} req = {{.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg)), .nlmsg_type = RTM_GETLINK},
		 {.ifi_family = AF_UNSPEC}};
	json_t *links = json_object();
	int e = nl_dump(route_fd, &req.h, on_link, links);
	if (e) {
		json_decref(links);
		ev_error_errno(err, e, "netlink: cannot list the interfaces");
		return NULL;
	}
	return links;
}

struct tcp_dump {
	json_t *out;
	const uint64_t *inodes;
	size_t n;
};

static const char *tcp_state_name(unsigned s)
{
	static const char *names[] = {"", "ESTABLISHED", "SYN_SENT", "SYN_RECV", "FIN_WAIT1",
				      "FIN_WAIT2", "TIME_WAIT", "CLOSE", "CLOSE_WAIT", "LAST_ACK",
				      "LISTEN", "CLOSING"};
	return s < sizeof names / sizeof *names ? names[s] : "UNKNOWN";
}

/* A tcp_info field, when the kernel's struct reached it. */
#define TCPI(field, key)                                                                   \
	do {                                                                               \
		if (info_len >= offsetof(struct tcp_info, field) + sizeof ti.field)        \
			json_object_set_new(o, key, json_integer((json_int_t)ti.field));    \
	} while (0)

static void on_tcp(void *ctx, struct nlmsghdr *m)
{
	struct tcp_dump *d = ctx;
	if (m->nlmsg_type != SOCK_DIAG_BY_FAMILY)
		return;
	struct inet_diag_msg *msg = NLMSG_DATA(m);
	int keep = 0;
	for (size_t i = 0; i < d->n && !keep; i++)
		keep = d->inodes[i] == msg->idiag_inode;
	if (!keep)
		return;
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN], local[80], remote[80];
	inet_ntop(msg->idiag_family, msg->id.idiag_src, src, sizeof src);
	inet_ntop(msg->idiag_family, msg->id.idiag_dst, dst, sizeof dst);
	snprintf(local, sizeof local, "%s:%u", src, ntohs(msg->id.idiag_sport));
	snprintf(remote, sizeof remote, "%s:%u", dst, ntohs(msg->id.idiag_dport));
	json_t *o = json_pack("{s:I, s:s, s:s, s:s}", "inode", (json_int_t)msg->idiag_inode, "state",
			      tcp_state_name(msg->idiag_state), "local", local, "remote", remote);
	int len = (int)(m->nlmsg_len - NLMSG_LENGTH(sizeof *msg));
	for (struct rtattr *a = (struct rtattr *)(msg + 1); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (a->rta_type == INET_DIAG_INFO) {
			struct tcp_info ti;
			size_t info_len = RTA_PAYLOAD(a) < sizeof ti ? RTA_PAYLOAD(a) : sizeof ti;
			memset(&ti, 0, sizeof ti);
			memcpy(&ti, RTA_DATA(a), info_len);
			TCPI(tcpi_rtt, "rtt_us");
			TCPI(tcpi_rttvar, "rttvar_us");
			TCPI(tcpi_snd_cwnd, "snd_cwnd");
			TCPI(tcpi_snd_mss, "snd_mss");
			TCPI(tcpi_unacked, "unacked");
			TCPI(tcpi_total_retrans, "total_retrans");
			TCPI(tcpi_notsent_bytes, "notsent_bytes");
			TCPI(tcpi_busy_time, "busy_time_us");
			TCPI(tcpi_rwnd_limited, "rwnd_limited_us");
			TCPI(tcpi_sndbuf_limited, "sndbuf_limited_us");
			TCPI(tcpi_bytes_acked, "bytes_acked");
			TCPI(tcpi_bytes_received, "bytes_received");
			TCPI(tcpi_bytes_sent, "bytes_sent");
		} else if (a->rta_type == INET_DIAG_SKMEMINFO &&
			   RTA_PAYLOAD(a) >= SK_MEMINFO_VARS * sizeof(uint32_t)) {
			const uint32_t *mem = RTA_DATA(a);
			json_object_set_new(o, "sndbuf", json_integer(mem[SK_MEMINFO_SNDBUF]));
			json_object_set_new(o, "rcvbuf", json_integer(mem[SK_MEMINFO_RCVBUF]));
			json_object_set_new(o, "wmem_queued", json_integer(mem[SK_MEMINFO_WMEM_QUEUED]));
			json_object_set_new(o, "rmem_alloc", json_integer(mem[SK_MEMINFO_RMEM_ALLOC]));
			json_object_set_new(o, "drops", json_integer(mem[SK_MEMINFO_DROPS]));
		}
	}
	json_array_append_new(d->out, o);
}

json_t *ev_netns_tcp_sockets(int diag_fd, const uint64_t *inodes, size_t n, struct ev_error *err)
{
	struct tcp_dump d = {json_array(), inodes, n};
	const int families[] = {AF_INET, AF_INET6};
	for (int k = 0; k < 2; k++) {
		struct {
			struct nlmsghdr h;
			struct inet_diag_req_v2 r;
		} req = {{.nlmsg_len = sizeof req, .nlmsg_type = SOCK_DIAG_BY_FAMILY},
			 {.sdiag_family = (uint8_t)families[k], .sdiag_protocol = IPPROTO_TCP,
			  .idiag_ext = (1 << (INET_DIAG_INFO - 1)) | (1 << (INET_DIAG_SKMEMINFO - 1)),
			  .idiag_states = ~0u}};
		int e = nl_dump(diag_fd, &req.h, on_tcp, &d);
		if (e) {
			json_decref(d.out);
			ev_error_errno(err, e, "sock_diag: cannot list TCP sockets");
			return NULL;
		}
	}
	return d.out;
}

void ev_netns_socket_inodes(pid_t pid, uint64_t *inodes, size_t cap, size_t *n)
{
	char path[64], target[64], link[320];
	snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
	DIR *d = opendir(path);
	struct dirent *e;
	while (d && (e = readdir(d)) != NULL && *n < cap) {
		snprintf(link, sizeof link, "%s/%s", path, e->d_name);
		ssize_t len = readlink(link, target, sizeof target - 1);
		unsigned long long ino;
		if (len <= 0)
			continue;
		target[len] = 0;
		if (sscanf(target, "socket:[%llu]", &ino) == 1)
			inodes[(*n)++] = ino;
	}
	if (d)
		closedir(d);
}

uint64_t ev_netns_inode(pid_t pid)
{
	char path[64];
	struct stat sb;
	snprintf(path, sizeof path, "/proc/%d/ns/net", (int)pid);
	return stat(path, &sb) == 0 ? (uint64_t)sb.st_ino : 0;
}

ev_status ev_netns_link_inspect(const char *name, struct ev_netns_link *l, struct ev_error *err)
{
	memset(l, 0, sizeof *l);
	if (strlen(name) >= sizeof l->name)
		return ev_error_set(err, EV_REFUSED, "interface \"%s\": a name of at most %zu bytes", name,
				    sizeof l->name - 1);
	snprintf(l->name, sizeof l->name, "%s", name);
	l->host_index = (int)if_nametoindex(name);
	if (!l->host_index)
		return ev_error_errno(err, errno, "interface %s: not found in capture's network namespace "
				      "(a link's two ports must be there, and up to it, before the campaign)", name);
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return ev_error_errno(err, errno, "socket");
	struct ifreq ifr;
	memset(&ifr, 0, sizeof ifr);
	snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", name);
	ev_status st = EV_OK;
	if (ioctl(fd, SIOCGIFMTU, &ifr) != 0)
		st = ev_error_errno(err, errno, "interface %s: cannot read its MTU", name);
	l->mtu = ifr.ifr_mtu;
	struct ethtool_drvinfo info = {.cmd = ETHTOOL_GDRVINFO};
	ifr.ifr_data = (char *)&info;
	if (st == EV_OK && ioctl(fd, SIOCETHTOOL, &ifr) == 0) {
		snprintf(l->driver, sizeof l->driver, "%s", info.driver);
		snprintf(l->version, sizeof l->version, "%s", info.version);
		snprintf(l->firmware, sizeof l->firmware, "%s", info.fw_version);
		snprintf(l->bus_info, sizeof l->bus_info, "%s", info.bus_info);
	} else if (st == EV_OK) {
		snprintf(l->driver, sizeof l->driver, "unavailable: SIOCETHTOOL: %s", strerror(errno));
	}
	close(fd);
	return st;
}

/* RTM_NEWLINK on the device index (or, index 0, name) through fd: into
 * the namespace of pid or ns_fd, with mtu when positive. No heap. */
static int link_move(int fd, int index, const char *name, pid_t pid, int ns_fd, int mtu)
{
	char buf[512];
	memset(buf, 0, sizeof buf);
	struct nl_req r = {(struct nlmsghdr *)buf, sizeof buf};
	r.h->nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg));
	r.h->nlmsg_type = RTM_NEWLINK;
	struct ifinfomsg *ifi = NLMSG_DATA(r.h);
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = index;
	if (!index)
		nl_attr(&r, IFLA_IFNAME, name, strlen(name) + 1);
	if (pid > 0) {
		uint32_t p = (uint32_t)pid;
		nl_attr(&r, IFLA_NET_NS_PID, &p, sizeof p);
	} else {
		uint32_t f = (uint32_t)ns_fd;
		nl_attr(&r, IFLA_NET_NS_FD, &f, sizeof f);
	}
	if (mtu > 0) {
		uint32_t m = (uint32_t)mtu;
		nl_attr(&r, IFLA_MTU, &m, sizeof m);
	}
	return nl_talk(fd, r.h);
}

ev_status ev_netns_link_move_in(const struct ev_netns_link *l, pid_t pid, int mtu, struct ev_error *err)
{
	int fd = nl_socket(NETLINK_ROUTE);
	if (fd < 0)
		return ev_error_errno(err, -fd, "netlink (route)");
	int index = (int)if_nametoindex(l->name);
	int e = index ? link_move(fd, index, l->name, pid, -1, mtu) : ENODEV;
	close(fd);
	if (e)
		return ev_error_errno(err, e, "cannot move interface %s into the namespace of PID %d", l->name, (int)pid);
	return EV_OK;
}

int ev_netns_link_move_out(int route_fd, const char *name, int host_ns_fd, int mtu)
{
	return link_move(route_fd, 0, name, 0, host_ns_fd, mtu);
}

json_t *ev_netns_link_json(const struct ev_netns_link *l)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:i}", "interface", l->name, "driver", l->driver, "version",
			 l->version, "firmware", l->firmware, "bus_info", l->bus_info, "mtu", l->mtu);
}
