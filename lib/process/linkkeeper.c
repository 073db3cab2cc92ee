/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/process/linkkeeper.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/process/netns.h"

struct hold_msg {
	char type;          /* 'H' hold, 'R' release */
	char names[2][16];
	int mtu[2];
};

static int recv_msg(int sock, struct hold_msg *m, int fds[3])
{
	char control[CMSG_SPACE(3 * sizeof(int))];
	struct iovec iov = {m, sizeof *m};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
			     .msg_controllen = sizeof control};
	ssize_t n;
	while ((n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
		;
	if (n <= 0)
		return 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
		    c->cmsg_len == CMSG_LEN(3 * sizeof(int)))
			memcpy(fds, CMSG_DATA(c), 3 * sizeof(int));
	return 1;
}

static void close_held(int fds[3])
{
	for (int i = 0; i < 3; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		fds[i] = -1;
	}
}

static void keeper_main(int sock)
{
	setsid();
	prctl(PR_SET_NAME, "capture-links");
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	int null = open("/dev/null", O_RDWR);
	if (null >= 0) {
		dup2(null, 0), dup2(null, 1), dup2(null, 2);
	}
	/* hold nothing of capture's but the channel */
	if (sock != 3)
		dup2(sock, 3);
	close_range(4, ~0U, 0);
	sock = 3;
	struct hold_msg held = {0}, m;
	int fds[3] = {-1, -1, -1};
	for (;;) {
		int in[3] = {-1, -1, -1};
		if (!recv_msg(sock, &m, in)) {
			/* capture is gone: give the interfaces back */
			if (fds[0] >= 0)
				for (int k = 0; k < 2; k++)
					ev_netns_link_move_out(fds[1 + k], held.names[k], fds[0], held.mtu[k]);
			_exit(0);
		}
		char ack = m.type == 'H' ? 'h' : 'r';
		close_held(fds);
		if (m.type == 'H') {
			memcpy(fds, in, sizeof fds);
			held = m;
		} else {
			close_held(in);
		}
		ssize_t ignored = write(sock, &ack, 1);
		(void)ignored;
	}
}

ev_status ev_link_keeper_start(struct ev_link_keeper *k, struct ev_error *err)
{
	int sv[2];
	k->pid = -1;
	k->sock = -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
		return ev_error_errno(err, errno, "socketpair");
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(sv[0]), close(sv[1]);
		return ev_error_errno(err, e, "fork (the link keeper)");
	}
	if (pid == 0) {
		close(sv[0]);
		keeper_main(sv[1]);
		_exit(0);
	}
	close(sv[1]);
	k->pid = pid;
	k->sock = sv[0];
	return EV_OK;
}

static ev_status await_ack(struct ev_link_keeper *k, char want, struct ev_error *err)
{
	char ack = 0;
	ssize_t n;
	while ((n = read(k->sock, &ack, 1)) < 0 && errno == EINTR)
		;
	if (n != 1 || ack != want)
		return ev_error_set(err, EV_ERROR, "the link keeper (PID %d) did not answer", (int)k->pid);
	return EV_OK;
}

ev_status ev_link_keeper_hold(struct ev_link_keeper *k, const int route_fd[2], const char *const names[2],
				   const int mtu[2], int host_ns_fd, struct ev_error *err)
{
	struct hold_msg m;
	memset(&m, 0, sizeof m);
	m.type = 'H';
	for (int i = 0; i < 2; i++) {
		snprintf(m.names[i], sizeof m.names[i], "%s", names[i]);
		m.mtu[i] = mtu[i];
	}
	int fds[3] = {host_ns_fd, route_fd[0], route_fd[1]};
	char control[CMSG_SPACE(sizeof fds)];
	memset(control, 0, sizeof control);
	struct iovec iov = {&m, sizeof m};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
			     .msg_controllen = sizeof control};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof fds);
	memcpy(CMSG_DATA(c), fds, sizeof fds);
	if (sendmsg(k->sock, &msg, MSG_NOSIGNAL) != (ssize_t)sizeof m)
		return ev_error_errno(err, errno, "cannot hand the link to its keeper (PID %d)", (int)k->pid);
	return await_ack(k, 'h', err);
}

ev_status ev_link_keeper_release(struct ev_link_keeper *k, struct ev_error *err)
{
	struct hold_msg m;
	memset(&m, 0, sizeof m);
	m.type = 'R';
	if (send(k->sock, &m, sizeof m, MSG_NOSIGNAL) != (ssize_t)sizeof m)
		return ev_error_errno(err, errno, "cannot reach the link keeper (PID %d)", (int)k->pid);
	return await_ack(k, 'r', err);
}

void ev_link_keeper_stop(struct ev_link_keeper *k)
{
	if (k->sock >= 0)
		close(k->sock);
	if (k->pid > 0)
		waitpid(k->pid, NULL, 0);
	k->sock = -1;
	k->pid = -1;
}
