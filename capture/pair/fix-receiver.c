/* SPDX-License-Identifier: Apache-2.0 */
/* fix-receiver: the receiving half of the reference native pair, after the
 * llfix TX benchmark's server (../shared/formats/llfix.md).
 *
 * Accepts one session, journals every incoming message in the llfix
 * layout, answers the Logon with a Logon and the Logout with a Logout, and
 * exits. Reads spinning on a nonblocking socket (--mode spin) or blocking
 * in epoll_wait (--mode epoll). Exits 0 after a Logout answered, 1 on any
 * receive, framing, send or journal failure, 2 on misuse. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "pair.h"

#define READ_BUF ((size_t)1 << 20)

static const char help[] =
	"usage: fix-receiver --listen ADDR:PORT [options]\n"
	"\n"
	"The receiving half of evidence's reference FIX pair (after the llfix TX benchmark's\n"
	"server): accept one session, journal every incoming message, answer Logon and\n"
	"Logout, exit after the Logout.\n"
	"\n"
	"  --listen ADDR:PORT        where to accept the session (IPv4)\n"
	"  --mode M                  spin (nonblocking reads in a loop, default) or epoll\n"
	"  --journal DIR             incoming journal, llfix layout (N.bin)\n"
	"  --outgoing-journal DIR    outgoing journal (the Logon and Logout answers)\n"
	"  --journal-file-size BYTES each journal file's size (default 67108864)\n"
	"  --rcvbuf BYTES            ask for this receive buffer (the effective size is printed)\n"
	"  --precision P             SendingTime of the answers: none, milli (default), micro, nano\n"
	"  --accept-timeout S        give up when no session arrives in S seconds (default 60)\n"
	"  -h, --help                this help\n"
	"  --version                 print the version\n"
	"\n"
	"Exit status: 0 a Logout was answered and everything was written; 1 a receive,\n"
	"framing, send or journal failure; 2 misuse.\n";

struct options {
	const char *listen, *journal, *outgoing;
	uint64_t file_size, rcvbuf, accept_timeout;
	int epoll;
	enum pair_precision precision;
};

static uint64_t realtime_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{"accept-timeout", required_argument, NULL, 'T'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{"journal", required_argument, NULL, 'j'},
		{"journal-file-size", required_argument, NULL, 'F'},
		{"listen", required_argument, NULL, 'l'},
		{"mode", required_argument, NULL, 'm'},
		{"outgoing-journal", required_argument, NULL, 'o'},
		{"precision", required_argument, NULL, 'p'},
		{"rcvbuf", required_argument, NULL, 'R'},
		{NULL, 0, NULL, 0},
	};
	*o = (struct options){.file_size = (uint64_t)64 << 20, .accept_timeout = 60,
			      .precision = PAIR_PREC_MILLI};
	int c, p, bad = 0;
	while (!bad && (c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'T': bad = pair_parse_count("--accept-timeout", optarg, 1, 86400, &o->accept_timeout); break;
		case 'h': fputs(help, stdout); exit(0);
		case 'V': puts("fix-receiver (evidence) " PACKAGE_VERSION); exit(0);
		case 'j': o->journal = optarg; break;
		case 'F': bad = pair_parse_count("--journal-file-size", optarg, 4096, (uint64_t)1 << 40, &o->file_size); break;
		case 'l': o->listen = optarg; break;
		case 'm':
			if (strcmp(optarg, "spin") == 0 || strcmp(optarg, "epoll") == 0)
				o->epoll = strcmp(optarg, "epoll") == 0;
			else
				bad = pair_fail("option --mode: expected spin or epoll, found '%s'", optarg);
			break;
		case 'o': o->outgoing = optarg; break;
		case 'p':
			if ((p = pair_precision_parse(optarg)) < 0)
				bad = pair_fail("option --precision: expected none, milli, micro or nano, found '%s'", optarg);
			o->precision = (enum pair_precision)p;
			break;
		case 'R': bad = pair_parse_count("--rcvbuf", optarg, 1, 1 << 30, &o->rcvbuf); break;
		default: bad = -1;
		}
	}
	if (!bad && optind != argc)
		bad = pair_fail("unexpected argument '%s'", argv[optind]);
	if (!bad && !o->listen)
		bad = pair_fail("--listen ADDR:PORT is required");
	if (bad)
		fputs("usage: fix-receiver --listen ADDR:PORT [options]; fix-receiver --help for more\n", stderr);
	return bad ? -1 : 0;
}

static int accept_one(const struct options *o, int *out)
{
	struct sockaddr_storage sa;
	socklen_t sl;
	if (pair_parse_endpoint(o->listen, &sa, &sl) != 0)
		return -1;
	int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
	if (lfd < 0)
		return pair_fail("socket: %s", strerror(errno));
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	/* asked before listen: the accepted socket inherits it, and the
	 * window scale is agreed in the handshake */
	long ignored;
	if (pair_socket_buffer(lfd, SO_RCVBUF, (long)o->rcvbuf, &ignored) != 0) {
		close(lfd);
		return -1;
	}
	if (bind(lfd, (struct sockaddr *)&sa, sl) != 0 || listen(lfd, 1) != 0) {
		int e = errno;
		close(lfd);
		return pair_fail("listen on %s: %s", o->listen, strerror(e));
	}
	struct pollfd p = {lfd, POLLIN, 0};
	int r;
	while ((r = poll(&p, 1, (int)o->accept_timeout * 1000)) < 0 && errno == EINTR)
		;
	if (r <= 0) {
		close(lfd);
		return pair_fail("no session arrived on %s within %" PRIu64 " s", o->listen, o->accept_timeout);
	}
	int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	int e = errno;
	close(lfd);
	if (fd < 0)
		return pair_fail("accept: %s", strerror(e));
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	*out = fd;
	return 0;
}

struct session {
	const struct options *o;
	int fd;
	uint64_t seq, messages, orders;
	struct pair_journal in, out;
	int journaling_in, journaling_out, logged_out;
};

static int answer(struct session *s, const char *type, const char *extra)
{
	char ts[32], body[512], msg[PAIR_MSG_MAX];
	pair_timestamp(ts, s->o->precision);
	int n = snprintf(body, sizeof body,
			 "35=%s" SOH "34=%" PRIu64 SOH "49=EXECUTOR" SOH "52=%s" SOH "56=CLIENT1" SOH "%s", type,
			 s->seq++, ts, extra);
	size_t len = pair_fix_finish(msg, "FIXT.1.1", body, (size_t)n);
	int flags = fcntl(s->fd, F_GETFL);
	fcntl(s->fd, F_SETFL, flags & ~O_NONBLOCK);
	int rc = pair_send_all(s->fd, msg, len);
	fcntl(s->fd, F_SETFL, flags);
	if (rc == 0 && s->journaling_out)
		rc = pair_journal_append(&s->out, realtime_ns(), 1, msg, len);
	return rc;
}

/* Every whole message in buf: journal it, answer what needs an answer.
 * @return bytes consumed, or -1. */
static long take_messages(struct session *s, const char *buf, size_t n)
{
	size_t used = 0;
	while (used < n && !s->logged_out) {
		long len = pair_fix_frame(buf + used, n - used);
		if (len < 0)
			return pair_fail("message %" PRIu64 ": bytes that are not a FIX message (8=..., 9=BodyLength)",
					 s->messages + 1);
		if (len == 0)
			break;
		const char *msg = buf + used;
		s->messages++;
		if (s->journaling_in && pair_journal_append(&s->in, realtime_ns(), 1, msg, (size_t)len) != 0)
			return -1;
		size_t tl;
		const char *t = pair_fix_field(msg, (size_t)len, "35", &tl);
		if (t && tl == 1 && *t == 'D')
			s->orders++;
		else if (t && tl == 1 && *t == 'A' && answer(s, "A", "98=0" SOH "108=30" SOH "1137=7" SOH) != 0)
			return -1;
		else if (t && tl == 1 && *t == '5') {
			if (answer(s, "5", "") != 0)
				return -1;
			s->logged_out = 1;
		}
		used += (size_t)len;
	}
	return (long)used;
}

static int serve(struct session *s)
{
	char *buf = malloc(READ_BUF);
	if (!buf)
		return pair_fail("out of memory");
	int ep = -1, rc = -1;
	size_t held = 0;
	if (fcntl(s->fd, F_SETFL, fcntl(s->fd, F_GETFL) | O_NONBLOCK) != 0) {
		pair_fail("cannot make the socket nonblocking: %s", strerror(errno));
		goto out;
	}
	if (s->o->epoll) {
		struct epoll_event ev = {.events = EPOLLIN};
		if ((ep = epoll_create1(EPOLL_CLOEXEC)) < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, s->fd, &ev) != 0) {
			pair_fail("epoll: %s", strerror(errno));
			goto out;
		}
	}
	while (!s->logged_out) {
		if (s->o->epoll) {
			struct epoll_event ev;
			if (epoll_wait(ep, &ev, 1, -1) < 0 && errno != EINTR) {
				pair_fail("epoll_wait: %s", strerror(errno));
				goto out;
			}
		}
		ssize_t got = recv(s->fd, buf + held, READ_BUF - held, 0);
		if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			continue; /* spin mode polls again at once */
		if (got < 0) {
			pair_fail("recv: %s", strerror(errno));
			goto out;
		}
		if (got == 0) {
			pair_fail("the sender closed the connection after %" PRIu64 " messages, before a Logout",
				  s->messages);
			goto out;
		}
		held += (size_t)got;
		long used = take_messages(s, buf, held);
		if (used < 0)
			goto out;
		memmove(buf, buf + used, held - (size_t)used);
		held -= (size_t)used;
		if (held == READ_BUF) {
			pair_fail("message %" PRIu64 ": longer than %zu bytes", s->messages + 1, READ_BUF);
			goto out;
		}
	}
	rc = 0;
out:
	if (ep >= 0)
		close(ep);
	free(buf);
	return rc;
}

int main(int argc, char **argv)
{
	pair_program = "fix-receiver";
	struct options o;
	if (parse_options(argc, argv, &o) != 0)
		return 2;
	struct session s = {.o = &o, .fd = -1, .seq = 1};
	long rcvbuf = 0;
	int rc = 1;
	if (o.journal && pair_journal_open(&s.in, o.journal, o.file_size) != 0)
		goto out;
	s.journaling_in = o.journal != NULL;
	if (o.outgoing && pair_journal_open(&s.out, o.outgoing, o.file_size) != 0)
		goto out;
	s.journaling_out = o.outgoing != NULL;
	if (accept_one(&o, &s.fd) != 0 || pair_socket_buffer(s.fd, SO_RCVBUF, 0, &rcvbuf) != 0)
		goto out;
	if (serve(&s) != 0)
		goto out;
	printf("Mode : %s\n", o.epoll ? "epoll" : "spin");
	printf("Receive buffer : %ld bytes (asked %" PRIu64 ")\n", rcvbuf, o.rcvbuf);
	printf("Messages received : %" PRIu64 " (%" PRIu64 " orders)\n", s.messages, s.orders);
	rc = fflush(stdout) == 0 ? 0 : 1;
out:
	if (s.journaling_in && pair_journal_close(&s.in) != 0)
		rc = 1;
	if (s.journaling_out && pair_journal_close(&s.out) != 0)
		rc = 1;
	if (s.fd >= 0)
		close(s.fd);
	return rc;
}
