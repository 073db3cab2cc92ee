/* SPDX-License-Identifier: Apache-2.0 */
/* fix-sender: the sending half of the reference native pair, after the
 * llfix TX benchmark's client (../shared/formats/llfix.md).
 *
 * Connects, logs on, then for warmups + measured iterations encodes a
 * NewOrderSingle (llfix's tags and parties group, ClOrdID from 1), sends
 * the whole buffer on a nonblocking socket, appends it to an llfix-layout
 * journal, and times that call; logs out. Prints llfix's statistics block
 * and writes the raw series (doc/formats.md "Raw series"), optionally the
 * scheduler-delay series of a paced run, and a JSON report. Exits 1 on any
 * send, receive or journal failure, 2 on misuse. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include "pair.h"
#include "stats.h"

static const char help[] =
	"usage: fix-sender --connect ADDR:PORT [options]\n"
	"\n"
	"The sending half of evidence's reference FIX pair (after the llfix TX benchmark):\n"
	"log on, send warmups + measured NewOrderSingles, each timed (encode, send, journal),\n"
	"log out; print llfix's statistics block; write the series and a JSON report.\n"
	"\n"
	"  --connect ADDR:PORT       the receiver (IPv4)\n"
	"  --warmups N               timed, not kept (default 1000)\n"
	"  --measured N              timed and kept (default 1000000)\n"
	"  --journal DIR             outgoing journal, llfix layout (N.bin)\n"
	"  --incoming-journal DIR    incoming journal (the peer's Logon and Logout)\n"
	"  --journal-file-size BYTES each journal file's size (default 67108864)\n"
	"  --precision P             SendingTime/TransactTime: none, milli (default), micro, nano\n"
	"  --clock C                 monotonic-raw (default) or rdtscp (converted to ns with the\n"
	"                            first 'cpu MHz' of /proc/cpuinfo, as llfix)\n"
	"  --rate R                  pace at R orders a second (busy wait; a missed deadline is\n"
	"                            re-anchored, never caught up in a burst)\n"
	"  --series FILE             the measured calls, ns (evidence raw series)\n"
	"  --delay-series FILE       with --rate: each measured call's scheduler delay, ns\n"
	"  --report FILE             the statistics and settings as JSON\n"
	"  --sndbuf BYTES            ask for this send buffer (the effective size is printed)\n"
	"  --rcvbuf BYTES            ask for this receive buffer\n"
	"  --connect-timeout S       keep trying to connect for S seconds (default 10)\n"
	"  -h, --help                this help\n"
	"  --version                 print the version\n"
	"\n"
	"Exit status: 0 the session completed and everything was written; 1 a send, receive,\n"
	"journal or output failure; 2 misuse.\n";

enum clock_kind { CLOCK_KIND_MONO_RAW, CLOCK_KIND_RDTSCP };

struct options {
	const char *connect, *journal, *incoming, *series, *delay_series, *report;
	uint64_t warmups, measured, file_size, rate, sndbuf, rcvbuf, connect_timeout;
	enum pair_precision precision;
	enum clock_kind clock;
};

/* The timer: ticks from the chosen clock, turned into ns. */
struct timer {
	enum clock_kind kind;
	uint64_t hz;        /* rdtscp: the rate used to convert (cpuinfo) */
	uint64_t hz_cpuinfo; /* printed as llfix prints it, whatever the clock */
	uint64_t hz_calibrated;
	double ns_per_tick;
};

static inline uint64_t ticks(const struct timer *t)
{
#if defined(__x86_64__)
	if (t->kind == CLOCK_KIND_RDTSCP) {
		unsigned aux;
		return __rdtscp(&aux);
	}
#endif
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t to_ns(const struct timer *t, uint64_t d)
{
	return t->kind == CLOCK_KIND_RDTSCP ? (uint64_t)((double)d * t->ns_per_tick) : d;
}

static uint64_t realtime_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* llfix's rate: the first "cpu MHz" line, as an integer MHz. */
static uint64_t cpuinfo_hz(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];
	uint64_t hz = 0;
	while (f && fgets(line, sizeof line, f))
		if (strncmp(line, "cpu MHz", 7) == 0) {
			const char *colon = strchr(line, ':');
			if (colon)
				hz = strtoull(colon + 1, NULL, 10) * 1000000u;
			break;
		}
	if (f)
		fclose(f);
	return hz;
}

static int timer_init(struct timer *t, enum clock_kind kind)
{
	t->kind = kind;
	t->ns_per_tick = 1;
	t->hz_cpuinfo = cpuinfo_hz();
	if (kind == CLOCK_KIND_MONO_RAW)
		return 0;
#if defined(__x86_64__)
	if (!(t->hz = cpuinfo_hz()))
		return pair_fail("--clock rdtscp: no 'cpu MHz' line in /proc/cpuinfo to convert cycles");
	t->ns_per_tick = 1e9 / (double)t->hz;
	/* disclosed beside the rate used: the TSC against CLOCK_MONOTONIC_RAW */
	struct timespec a, b, pause = {0, 100 * 1000 * 1000};
	unsigned aux;
	clock_gettime(CLOCK_MONOTONIC_RAW, &a);
	uint64_t c0 = __rdtscp(&aux);
	nanosleep(&pause, NULL);
	uint64_t c1 = __rdtscp(&aux);
	clock_gettime(CLOCK_MONOTONIC_RAW, &b);
	double secs = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	t->hz_calibrated = (uint64_t)((double)(c1 - c0) / secs);
	return 0;
#else
	return pair_fail("--clock rdtscp: this machine has no rdtscp");
#endif
}

static int connect_with_retry(const struct options *o, int *out)
{
	struct sockaddr_storage sa;
	socklen_t sl;
	if (pair_parse_endpoint(o->connect, &sa, &sl) != 0)
		return -1;
	struct timespec start, now, pause = {0, 20 * 1000 * 1000};
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return pair_fail("socket: %s", strerror(errno));
		if (connect(fd, (struct sockaddr *)&sa, sl) == 0) {
			*out = fd;
			return 0;
		}
		int e = errno;
		close(fd);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((e != ECONNREFUSED && e != ENETUNREACH && e != EHOSTUNREACH) ||
		    (uint64_t)(now.tv_sec - start.tv_sec) >= o->connect_timeout)
			return pair_fail("connect %s: %s (after %" PRIu64 " s of trying)", o->connect, strerror(e),
					 (uint64_t)(now.tv_sec - start.tv_sec));
		nanosleep(&pause, NULL);
	}
}

/* Read one whole message from the peer (a Logon or Logout reply), waiting
 * at most timeout_ms. buf keeps what follows it. */
struct inbox {
	char buf[PAIR_MSG_MAX * 2];
	size_t held;
};

static long receive_message(int fd, struct inbox *in, char *msg, int timeout_ms)
{
	for (;;) {
		long n = pair_fix_frame(in->buf, in->held);
		if (n < 0)
			return pair_fail("the peer sent bytes that are not a FIX message");
		if (n > 0) {
			memcpy(msg, in->buf, (size_t)n);
			memmove(in->buf, in->buf + n, in->held - (size_t)n);
			in->held -= (size_t)n;
			return n;
		}
		if (in->held == sizeof in->buf)
			return pair_fail("the peer sent a message longer than %zu bytes", sizeof in->buf);
		struct pollfd p = {fd, POLLIN, 0};
		int r = poll(&p, 1, timeout_ms);
		if (r == 0)
			return pair_fail("no reply from the peer within %d ms", timeout_ms);
		if (r < 0 && errno != EINTR)
			return pair_fail("poll: %s", strerror(errno));
		ssize_t got = recv(fd, in->buf + in->held, sizeof in->buf - in->held, 0);
		if (got == 0)
			return pair_fail("the peer closed the connection before replying");
		if (got < 0 && errno != EAGAIN && errno != EINTR)
			return pair_fail("recv: %s", strerror(errno));
		if (got > 0)
			in->held += (size_t)got;
	}
}

struct session {
	const struct options *o;
	int fd;
	uint64_t seq; /* the next MsgSeqNum */
	struct pair_journal out, in;
	int journaling, journaling_in;
	struct inbox inbox;
};

/* Send an admin message (Logon, Logout), journal it, journal the reply. */
static int exchange(struct session *s, const char *type, const char *extra, const char *want)
{
	char ts[32], body[512], msg[PAIR_MSG_MAX];
	pair_timestamp(ts, s->o->precision);
	int n = snprintf(body, sizeof body,
			 "35=%s" SOH "34=%" PRIu64 SOH "49=CLIENT1" SOH "52=%s" SOH "56=EXECUTOR" SOH "%s", type,
			 s->seq++, ts, extra);
	size_t len = pair_fix_finish(msg, "FIXT.1.1", body, (size_t)n);
	if (pair_send_all(s->fd, msg, len) != 0)
		return -1;
	if (s->journaling && pair_journal_append(&s->out, realtime_ns(), 1, msg, len) != 0)
		return -1;
	long got = receive_message(s->fd, &s->inbox, msg, 10000);
	if (got < 0)
		return -1;
	size_t tl;
	const char *t = pair_fix_field(msg, (size_t)got, "35", &tl);
	if (!t || tl != strlen(want) || memcmp(t, want, tl) != 0)
		return pair_fail("expected the peer's reply 35=%s, found %.*s", want, t ? (int)tl : 4,
				 t ? t : "none");
	if (s->journaling_in && pair_journal_append(&s->in, realtime_ns(), 1, msg, (size_t)got) != 0)
		return -1;
	return 0;
}

/* The order, as llfix encodes it: header, ClOrdID, the instrument, side,
 * quantity, price, type, time in force, two parties, TransactTime. */
static size_t encode_order(char *msg, uint64_t seq, uint64_t clordid, enum pair_precision p)
{
	char ts[32], body[512];
	pair_timestamp(ts, p);
	int n = snprintf(body, sizeof body,
			 "35=D" SOH "34=%" PRIu64 SOH "49=CLIENT1" SOH "52=%s" SOH "56=EXECUTOR" SOH
			 "50=SNDR_SUB" SOH "57=SRVR_SUB" SOH "11=%" PRIu64 SOH "55=NOKIA.HE" SOH "54=1" SOH
			 "38=10" SOH "44=10000" SOH "40=2" SOH "59=0" SOH "453=2" SOH "448=PARTY1" SOH
			 "447=D" SOH "452=1" SOH "448=PARTY2" SOH "447=D" SOH "452=3" SOH "60=%s" SOH,
			 seq, ts, clordid, ts);
	return pair_fix_finish(msg, "FIXT.1.1", body, (size_t)n);
}

static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{"clock", required_argument, NULL, 'C'},
		{"connect", required_argument, NULL, 'c'},
		{"connect-timeout", required_argument, NULL, 'T'},
		{"delay-series", required_argument, NULL, 'd'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{"incoming-journal", required_argument, NULL, 'i'},
		{"journal", required_argument, NULL, 'j'},
		{"journal-file-size", required_argument, NULL, 'F'},
		{"measured", required_argument, NULL, 'm'},
		{"precision", required_argument, NULL, 'p'},
		{"rate", required_argument, NULL, 'r'},
		{"rcvbuf", required_argument, NULL, 'R'},
		{"report", required_argument, NULL, 'o'},
		{"series", required_argument, NULL, 's'},
		{"sndbuf", required_argument, NULL, 'S'},
		{"warmups", required_argument, NULL, 'w'},
		{NULL, 0, NULL, 0},
	};
	*o = (struct options){.warmups = 1000, .measured = 1000000, .file_size = (uint64_t)64 << 20,
			      .precision = PAIR_PREC_MILLI, .connect_timeout = 10};
	int c, p, bad = 0;
	while (!bad && (c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'C':
			if (strcmp(optarg, "rdtscp") == 0)
				o->clock = CLOCK_KIND_RDTSCP;
			else if (strcmp(optarg, "monotonic-raw") == 0)
				o->clock = CLOCK_KIND_MONO_RAW;
			else
				bad = pair_fail("option --clock: expected monotonic-raw or rdtscp, found '%s'", optarg);
			break;
		case 'c': o->connect = optarg; break;
		case 'T': bad = pair_parse_count("--connect-timeout", optarg, 0, 3600, &o->connect_timeout); break;
		case 'd': o->delay_series = optarg; break;
		case 'h': fputs(help, stdout); exit(0);
		case 'V': puts("fix-sender (evidence) " PACKAGE_VERSION); exit(0);
		case 'i': o->incoming = optarg; break;
		case 'j': o->journal = optarg; break;
		case 'F': bad = pair_parse_count("--journal-file-size", optarg, 4096, (uint64_t)1 << 40, &o->file_size); break;
		case 'm': bad = pair_parse_count("--measured", optarg, 1, (uint64_t)1 << 32, &o->measured); break;
		case 'p':
			if ((p = pair_precision_parse(optarg)) < 0)
				bad = pair_fail("option --precision: expected none, milli, micro or nano, found '%s'", optarg);
			o->precision = (enum pair_precision)p;
			break;
		case 'r': bad = pair_parse_count("--rate", optarg, 1, 1000000000, &o->rate); break;
		case 'R': bad = pair_parse_count("--rcvbuf", optarg, 1, 1 << 30, &o->rcvbuf); break;
		case 'o': o->report = optarg; break;
		case 's': o->series = optarg; break;
		case 'S': bad = pair_parse_count("--sndbuf", optarg, 1, 1 << 30, &o->sndbuf); break;
		case 'w': bad = pair_parse_count("--warmups", optarg, 0, (uint64_t)1 << 32, &o->warmups); break;
		default: bad = -1;
		}
	}
	if (!bad && optind != argc)
		bad = pair_fail("unexpected argument '%s'", argv[optind]);
	if (!bad && !o->connect)
		bad = pair_fail("--connect ADDR:PORT is required");
	if (!bad && o->delay_series && !o->rate)
		bad = pair_fail("--delay-series needs --rate (an unpaced run has no deadlines)");
	if (bad)
		fputs("usage: fix-sender --connect ADDR:PORT [options]; fix-sender --help for more\n", stderr);
	return bad ? -1 : 0;
}

/* Kept whole: the reference sender as the benchmark it reproduces
 * (options, connect, logon, the timed sends, the report), in the order a
 * reader checks it against the original. */
int main(int argc, char **argv)
{
	pair_program = "fix-sender";
	struct options o;
	if (parse_options(argc, argv, &o) != 0)
		return 2;
	struct timer timer = {0};
	if (timer_init(&timer, o.clock) != 0)
		return 2;
	uint64_t total = o.warmups + o.measured;
	uint64_t *samples = malloc(o.measured * sizeof *samples);
	uint64_t *delays = o.rate ? malloc(o.measured * sizeof *delays) : NULL;
	if (!samples || (o.rate && !delays))
		return pair_fail("out of memory for %" PRIu64 " samples", o.measured), 1;

	struct session s = {.o = &o, .fd = -1, .seq = 1};
	int rc = 1;
	long sndbuf = 0, rcvbuf = 0;
	uint64_t missed = 0, started = 0, finished = 0;
	if (connect_with_retry(&o, &s.fd) != 0)
		goto out;
	int one = 1;
	setsockopt(s.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	if (pair_socket_buffer(s.fd, SO_SNDBUF, (long)o.sndbuf, &sndbuf) != 0 ||
	    pair_socket_buffer(s.fd, SO_RCVBUF, (long)o.rcvbuf, &rcvbuf) != 0)
		goto out;
	if (o.journal && pair_journal_open(&s.out, o.journal, o.file_size) != 0)
		goto out;
	s.journaling = o.journal != NULL;
	if (o.incoming && pair_journal_open(&s.in, o.incoming, o.file_size) != 0)
		goto out;
	s.journaling_in = o.incoming != NULL;
	if (exchange(&s, "A", "98=0" SOH "108=30" SOH "1137=7" SOH, "A") != 0)
		goto out;
	if (fcntl(s.fd, F_SETFL, fcntl(s.fd, F_GETFL) | O_NONBLOCK) != 0) {
		pair_fail("cannot make the socket nonblocking: %s", strerror(errno));
		goto out;
	}

	uint64_t interval = o.rate ? (uint64_t)(1e9 / (double)o.rate / timer.ns_per_tick) : 0;
	uint64_t deadline = 0;
	char msg[PAIR_MSG_MAX];
	for (uint64_t i = 1; i <= total; i++) {
		uint64_t delay = 0;
		if (o.rate) {
			uint64_t now = ticks(&timer);
			if (i == 1)
				deadline = now;
			while (now < deadline)
				now = ticks(&timer);
			/* a whole interval late (arrived late, or preempted while
			 * waiting) is a missed deadline: re-anchor there, never
			 * catch up in a burst */
			delay = now - deadline;
			if (delay >= interval) {
				missed += i > o.warmups; /* reported for the measured calls */
				deadline = now;
			}
			deadline += interval;
		}
		uint64_t t0 = ticks(&timer);
		size_t len = encode_order(msg, s.seq, i, o.precision);
		if (pair_send_all(s.fd, msg, len) != 0)
			goto out;
		s.seq++;
		if (s.journaling && pair_journal_append(&s.out, realtime_ns(), 1, msg, len) != 0)
			goto out;
		uint64_t t1 = ticks(&timer);
		if (i == o.warmups + 1)
			started = t0;
		finished = t1;
		if (i > o.warmups) {
			samples[i - o.warmups - 1] = to_ns(&timer, t1 - t0);
			if (delays)
				delays[i - o.warmups - 1] = to_ns(&timer, delay);
		}
	}
	if (fcntl(s.fd, F_SETFL, fcntl(s.fd, F_GETFL) & ~O_NONBLOCK) != 0 ||
	    exchange(&s, "5", "", "5") != 0)
		goto out;

	struct pair_run run = {
		.title = "New order", .warmups = o.warmups, .measured = o.measured,
		.clock = o.clock == CLOCK_KIND_RDTSCP ? "rdtscp" : "CLOCK_MONOTONIC_RAW",
		.source_hz = o.clock == CLOCK_KIND_RDTSCP ? timer.hz : 0,
		.hz_calibrated = timer.hz_calibrated, .hz_cpuinfo = timer.hz_cpuinfo, .cpu = sched_getcpu(),
		.rate = o.rate, .missed = missed,
		.elapsed_ns = to_ns(&timer, finished - started),
		.sndbuf_requested = (long)o.sndbuf, .sndbuf = sndbuf,
		.rcvbuf_requested = (long)o.rcvbuf, .rcvbuf = rcvbuf,
		.journal_records = s.out.total, .journal_files = s.out.number,
	};
	if (pair_stats_print(&run, samples, stdout) != 0 ||
	    (o.series && pair_series_write(o.series, run.clock, run.source_hz, samples, o.measured) != 0) ||
	    (o.delay_series &&
	     pair_series_write(o.delay_series, run.clock, run.source_hz, delays, o.measured) != 0) ||
	    (o.report && pair_report_write(o.report, &run, samples, delays) != 0))
		goto out;
	rc = 0;
out:
	if (s.journaling && pair_journal_close(&s.out) != 0)
		rc = 1;
	if (s.journaling_in && pair_journal_close(&s.in) != 0)
		rc = 1;
	if (s.fd >= 0)
		close(s.fd);
	free(samples);
	free(delays);
	return rc;
}
