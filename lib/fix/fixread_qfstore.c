/* SPDX-License-Identifier: Apache-2.0 */
/* A QuickFIX FileStore (../shared/formats/fix-engines.md): PREFIX.body
 * holds the messages sent, back to back; PREFIX.header indexes them with
 * "seq,offset,size " records (one space after each, no newline);
 * PREFIX.seqnums holds the next sender and target numbers
 * ("0000000008 : 0000000003"); PREFIX.session the session's creation time.
 *
 * The body is framed like a raw stream and each message is held against
 * the next index record: same offset, same size, and the record's seq is
 * the message's MsgSeqNum. .seqnums' next sender number is the last
 * message's MsgSeqNum + 1; .session is a calendar-valid UTC timestamp not
 * after the first message's SendingTime. Every companion read is hashed as
 * read and handed to the sink with what was checked in it; a companion
 * that is not there is store-index damage, never a silent skip. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/fix/fixformat.h"
#include "lib/fix/fixread.h"
#include "lib/fix/fixread_raw.h"
#include "lib/core/sha256.h"

#define HEADER_CHUNK 65536
#define SMALL_FILE_MAX 4096 /* .seqnums and .session are a few bytes */

struct qfstore {
	int header;               /* fd while header_open */
	int header_open;          /* 0: none (not beside a .body, or not there) */
	int expect_companions;    /* read from disk beside a .body: all three must be there */
	char prefix[4096];        /* PREFIX, without ".body" */
	char header_name[4096 + 8];
	unsigned char buf[HEADER_CHUNK];
	size_t at, len;
	int header_eof, header_failed;
	int header_errno;         /* why it is not open; 0: not a regular file */
	struct ev_sha256 *hash;
	uint64_t index, mismatched;  /* records read from .header; how many did not fit */
	uint64_t messages, last_seq, first_sent_secs;
	int have_last_seq, have_first_sent;
};

/* The next byte of .header, hashed as read; EOF at its end. */
static int header_byte(struct qfstore *s)
{
	if (s->at == s->len) {
		if (s->header_eof)
			return EOF;
		ssize_t got;
		do
			got = read(s->header, s->buf, sizeof s->buf);
		while (got < 0 && errno == EINTR);
		if (got <= 0) {
			s->header_failed = got < 0;
			s->header_eof = 1;
			return EOF;
		}
		struct ev_error ignored;
		ev_sha256_update(s->hash, s->buf, (size_t)got, &ignored);
		s->at = 0;
		s->len = (size_t)got;
	}
	return s->buf[s->at++];
}

static int header_number(struct qfstore *s, int *c, uint64_t *out)
{
	int digits = 0;
	uint64_t v = 0;
	while (*c >= '0' && *c <= '9' && digits < 20) {
		v = v * 10 + (uint64_t)(*c - '0');
		digits++;
		*c = header_byte(s);
	}
	*out = v;
	return digits ? 0 : -1;
}

/* The next "seq,offset,size " record. @return 1, 0 at its end, -1 malformed. */
static int next_index(struct qfstore *s, uint64_t *seq, uint64_t *off, uint64_t *size)
{
	int c = header_byte(s);
	while (c == ' ' || c == '\n')
		c = header_byte(s);
	if (c == EOF)
		return 0;
	if (header_number(s, &c, seq) != 0 || c != ',')
		return -1;
	c = header_byte(s);
	if (header_number(s, &c, off) != 0 || c != ',')
		return -1;
	c = header_byte(s);
	if (header_number(s, &c, size) != 0 || (c != ' ' && c != EOF))
		return -1;
	s->index++;
	return 1;
}

static void close_header(struct qfstore *s)
{
	if (s->header_open)
		close(s->header);
	s->header_open = 0;
}

static void begin(void *st, struct ev_fixread *r, const char *name)
{
	struct qfstore *s = st;
	(void)r, (void)name;
	s->index = s->mismatched = s->messages = s->last_seq = s->first_sent_secs = 0;
	s->have_last_seq = s->have_first_sent = 0;
}

static void companion(void *st, struct ev_fixread *r, const char *body_path)
{
	struct qfstore *s = st;
	size_t n = strlen(body_path);
	close_header(s);
	s->expect_companions = 0;
	s->at = s->len = 0;
	s->header_eof = s->header_failed = 0;
	if (n < 5 || strcmp(body_path + n - 5, ".body") != 0 || n - 5 >= sizeof s->prefix)
		return;
	s->expect_companions = 1;
	snprintf(s->prefix, sizeof s->prefix, "%.*s", (int)(n - 5), body_path);
	snprintf(s->header_name, sizeof s->header_name, "%s.header", s->prefix);
	struct ev_error ignored;
	if (!s->hash)
		s->hash = ev_sha256_new();
	if (!s->hash || ev_sha256_reset(s->hash, &ignored) != EV_OK)
		return; /* reported at the end as not read */
	/* a FIFO or device would hang or never end: only a regular file, and
	 * a FIFO is not even opened (that would let its writer in) */
	struct stat sb;
	int fd = -1;
	if (stat(s->header_name, &sb) != 0)
		s->header_errno = errno;
	else if (!S_ISREG(sb.st_mode))
		s->header_errno = 0;
	else if ((fd = open(s->header_name, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0)
		s->header_errno = errno;
	if (fd >= 0 && (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode))) {
		close(fd);
		fd = -1;
		s->header_errno = 0;
	}
	s->header = fd;
	s->header_open = fd >= 0;
	(void)r;
}

/* MsgSeqNum (34) or SendingTime (52) of a message, as text; NULL if absent. */
static const char *field(const unsigned char *msg, uint32_t len, const char *tag, uint32_t *vlen)
{
	size_t t = strlen(tag);
	for (uint32_t i = 0; i + t + 1 < len; i++) {
		if ((i == 0 || msg[i - 1] == 0x01) && memcmp(msg + i, tag, t) == 0 && msg[i + t] == '=') {
			const unsigned char *v = msg + i + t + 1, *e = memchr(v, 0x01, len - (i + t + 1));
			*vlen = (uint32_t)((e ? e : msg + len) - v);
			return (const char *)v;
		}
	}
	return NULL;
}

static int whole(const char *v, uint32_t n, uint64_t *out)
{
	uint64_t x = 0;
	if (!n || n > 19)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return -1;
		x = x * 10 + (uint64_t)(v[i] - '0');
	}
	*out = x;
	return 0;
}

static void on_message(void *ctx, struct ev_fixread *r, const unsigned char *msg, uint32_t len,
		       uint64_t at)
{
	struct qfstore *s = ctx;
	uint32_t n;
	uint64_t seq = 0;
	const char *v = field(msg, len, "34", &n);
	int has_seq = v && whole(v, n, &seq) == 0;
	if (has_seq) {
		s->last_seq = seq;
		s->have_last_seq = 1;
	}
	if (s->messages++ == 0 && (v = field(msg, len, "52", &n)) != NULL) {
		uint32_t ns;
		s->have_first_sent = ev_fix_utc_timestamp(v, n, &s->first_sent_secs, &ns) == 0;
	}
	if (s->header_open) {
		uint64_t iseq, off, size;
		int got = next_index(s, &iseq, &off, &size);
		char want[96], found[96];
		snprintf(want, sizeof want, "seq %" PRIu64 ", offset %" PRIu64 ", size %u", seq, at, len);
		if (got <= 0) {
			snprintf(found, sizeof found, got == 0 ? "no record" : "a malformed record");
			ev_fixread_damage(r, EV_RULE_STORE_INDEX, at, got == 0
					  ? "a message in .body that .header does not index"
					  : "a .header record that is not seq,offset,size",
					  want, found);
			s->mismatched++;
			if (got < 0)
				close_header(s);
			else
				s->header_eof = 1;
		} else if (off != at || size != len || (has_seq && iseq != seq)) {
			snprintf(found, sizeof found, "seq %" PRIu64 ", offset %" PRIu64 ", size %" PRIu64, iseq,
				 off, size);
			ev_fixread_damage(r, EV_RULE_STORE_INDEX, at,
					  iseq != seq && off == at && size == len
						  ? ".header gives this message another sequence number than its MsgSeqNum"
						  : ".header does not index this message where it is",
					  want, found);
			s->mismatched++;
		}
	}
	ev_fixread_emit(r, msg, len, at);
}

static size_t parse(void *st, struct ev_fixread *r, const unsigned char *d, size_t len,
		    uint64_t at, int eof)
{
	return ev_fixread_raw_parse(r, d, len, at, eof, on_message, st);
}

/* A small companion read whole (regular files only), hashed. @return its
 * length, or -1 (errno). */
static ssize_t read_small(const char *path, char *buf, size_t cap, uint8_t digest[EV_SHA256_LEN])
{
	struct stat sb;
	if (stat(path, &sb) != 0)
		return -1;
	if (!S_ISREG(sb.st_mode)) {
		errno = 0;
		return -1;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || (size_t)sb.st_size >= cap) {
		close(fd);
		errno = S_ISREG(sb.st_mode) ? EFBIG : 0;
		return -1;
	}
	ssize_t got, total = 0;
	while ((got = read(fd, buf + total, cap - 1 - (size_t)total)) > 0 || (got < 0 && errno == EINTR))
		total += got > 0 ? got : 0;
	int saved = errno;
	close(fd);
	if (got < 0) {
		errno = saved;
		return -1;
	}
	buf[total] = 0;
	struct ev_error ignored;
	ev_sha256_buffer(buf, (size_t)total, digest, &ignored);
	return total;
}

/* errnum 0: there, but not a regular file (a FIFO is never waited on). */
static void absent(struct ev_fixread *r, const char *path, const char *what, int errnum)
{
	char found[160];
	snprintf(found, sizeof found, "%s", errnum ? strerror(errnum) : "not a regular file");
	char msg[320];
	snprintf(msg, sizeof msg, "%s beside the .body cannot be read (%s): %s", path, what, found);
	ev_fixread_damage(r, EV_RULE_STORE_INDEX, 0, msg, "a regular file", found);
}

/* "NNNNNNNNNN : NNNNNNNNNN", as QuickFIX 1.15 writes it (a newline after
 * is accepted). */
static int parse_seqnums(const char *t, size_t n, uint64_t *sender, uint64_t *target)
{
	if (n > 0 && t[n - 1] == '\n')
		n--;
	return n == 23 && memcmp(t + 10, " : ", 3) == 0 && whole(t, 10, sender) == 0 &&
	       whole(t + 13, 10, target) == 0 ? 0 : -1;
}

/* PREFIX + suffix read whole into text (its path into path), hashed
 * into digest. @return its length, or -1 after naming it absent (what:
 * what it holds, for the finding). */
static ssize_t read_companion(const struct qfstore *s, struct ev_fixread *r, const char *suffix,
			      const char *what, char *path, size_t path_cap, char *text, size_t cap,
			      uint8_t digest[EV_SHA256_LEN])
{
	snprintf(path, path_cap, "%s%s", s->prefix, suffix);
	ssize_t n = read_small(path, text, cap, digest);
	if (n < 0)
		absent(r, path, what, errno);
	return n;
}

/* A companion read, with what was checked in it, to the sink. */
static void report_companion(struct ev_fixread *r, const char *path, const uint8_t digest[EV_SHA256_LEN],
			     const char *checked)
{
	const struct ev_fixread_sink *sink = ev_fixread_sink_of(r);
	if (sink->companion)
		sink->companion(sink->ctx, path, digest, checked);
}

static void check_seqnums(struct qfstore *s, struct ev_fixread *r)
{
	char path[4096 + 16], text[SMALL_FILE_MAX], cover[256], want[64], found[96];
	uint8_t digest[EV_SHA256_LEN];
	ssize_t n = read_companion(s, r, ".seqnums", "the next sequence numbers", path, sizeof path, text,
				   sizeof text, digest);
	if (n < 0)
		return;
	uint64_t sender, target;
	if (parse_seqnums(text, (size_t)n, &sender, &target) != 0) {
		snprintf(found, sizeof found, "\"%.40s\"", text);
		ev_fixread_damage(r, EV_RULE_STORE_INDEX, 0, ".seqnums is not \"NNNNNNNNNN : NNNNNNNNNN\"",
				  "next sender : next target, ten digits each", found);
		snprintf(cover, sizeof cover, "read: malformed");
	} else {
		uint64_t next = s->have_last_seq ? s->last_seq + 1 : 1;
		if (sender != next) {
			snprintf(want, sizeof want, "next sender %" PRIu64, next);
			snprintf(found, sizeof found, "next sender %" PRIu64, sender);
			ev_fixread_damage(r, EV_RULE_STORE_INDEX, 0,
					  ".seqnums' next sender number is not the last stored MsgSeqNum + 1", want,
					  found);
		}
		snprintf(cover, sizeof cover,
			 "next sender %" PRIu64 " checked against the last MsgSeqNum; next target %" PRIu64
			 " read, not checkable here (the peer's messages are in the peer's journal)",
			 sender, target);
	}
	report_companion(r, path, digest, cover);
}

static void check_session(struct qfstore *s, struct ev_fixread *r)
{
	char path[4096 + 16], text[SMALL_FILE_MAX], cover[256], want[64], found[96];
	uint8_t digest[EV_SHA256_LEN];
	ssize_t n = read_companion(s, r, ".session", "the session's creation time", path, sizeof path, text,
				   sizeof text, digest);
	if (n < 0)
		return;
	size_t len = (size_t)n;
	if (len > 0 && text[len - 1] == '\n')
		len--;
	uint64_t secs;
	uint32_t ns;
	if (ev_fix_utc_timestamp(text, (uint32_t)len, &secs, &ns) != 0) {
		snprintf(found, sizeof found, "\"%.40s\"", text);
		ev_fixread_damage(r, EV_RULE_STORE_INDEX, 0, ".session is not a UTC timestamp",
				  "YYYYMMDD-HH:MM:SS[.sss]", found);
		snprintf(cover, sizeof cover, "read: malformed");
	} else {
		if (s->have_first_sent && secs > s->first_sent_secs) {
			snprintf(want, sizeof want, "at or before %014" PRIu64, s->first_sent_secs);
			snprintf(found, sizeof found, "%.*s", (int)len, text);
			ev_fixread_damage(r, EV_RULE_STORE_INDEX, 0,
					  ".session was created after the first stored message was sent", want, found);
		}
		snprintf(cover, sizeof cover, "creation time %.*s checked: a UTC timestamp, not after the first "
			 "SendingTime", (int)len, text);
	}
	report_companion(r, path, digest, cover);
}

static void end(void *st, struct ev_fixread *r, uint64_t size)
{
	struct qfstore *s = st;
	(void)size;
	if (!s->expect_companions)
		return;
	if (!s->header_open) {
		absent(r, s->header_name, "the index of the .body", s->header_errno);
	} else {
		uint64_t seq = 0, off = 0, len = 0;
		int got = s->header_eof ? 0 : next_index(s, &seq, &off, &len);
		if (got != 0) {
			char found[96];
			if (got > 0)
				snprintf(found, sizeof found, "seq %" PRIu64 " at offset %" PRIu64, seq, off);
			else
				snprintf(found, sizeof found, "a record that is not seq,offset,size");
			ev_fixread_damage(r, EV_RULE_STORE_INDEX, off, ".header indexes more than .body holds",
					  "no more records", found);
		}
		/* hash what is left unread, so the digest is the whole file's */
		while (!s->header_eof && header_byte(s) != EOF)
			;
		uint8_t digest[EV_SHA256_LEN];
		struct ev_error ignored;
		char cover[160];
		if (s->header_failed) {
			char msg[4200];
			snprintf(msg, sizeof msg, "%s: read failed", s->header_name);
			ev_fixread_damage(r, EV_RULE_STORE_INDEX, 0, msg, "the whole index", "a read error");
		} else if (ev_sha256_final(s->hash, digest, &ignored) == EV_OK) {
			snprintf(cover, sizeof cover,
				 "%" PRIu64 " records checked against .body (MsgSeqNum, offset, size), %" PRIu64
				 " did not fit", s->index, s->mismatched);
			report_companion(r, s->header_name, digest, cover);
		}
		close_header(s);
	}
	check_seqnums(s, r);
	check_session(s, r);
	s->expect_companions = 0;
}

static void release(void *st)
{
	struct qfstore *s = st;
	close_header(s);
	ev_sha256_free(s->hash);
	s->hash = NULL;
}

const struct ev_fixread_ops ev_fixread_qfstore_ops = {
	.state_size = sizeof(struct qfstore),
	.begin = begin,
	.parse = parse,
	.end = end,
	.companion = companion,
	.release = release,
};
