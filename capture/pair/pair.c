/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "pair.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define RECORD_HEADER 17 /* u64 timestamp, u8 success, u64 length */
#define COUNT_BYTES 8

const char *pair_program = "pair";

int pair_fail(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", pair_program);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

/* --- journal ------------------------------------------------------------- */

static int journal_next_file(struct pair_journal *j)
{
	char path[sizeof j->dir + 32];
	snprintf(path, sizeof path, "%s/%u.bin", j->dir, j->number + 1);
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return pair_fail("%s: cannot create the journal file: %s", path, strerror(errno));
	if (ftruncate(fd, (off_t)j->file_size) != 0) {
		int e = errno;
		close(fd);
		return pair_fail("%s: cannot size the journal file to %zu bytes: %s", path, j->file_size,
				 strerror(e));
	}
	void *map = mmap(NULL, j->file_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		int e = errno;
		close(fd);
		return pair_fail("%s: cannot map the journal file: %s", path, strerror(e));
	}
	j->fd = fd;
	j->map = map;
	j->number++;
	j->used = COUNT_BYTES;
	j->count = 0;
	return 0;
}

/* Sync the current file to disk and let it go. */
static int journal_seal_file(struct pair_journal *j)
{
	if (!j->map)
		return 0;
	int rc = 0;
	if (msync(j->map, j->file_size, MS_SYNC) != 0)
		rc = pair_fail("%s/%u.bin: cannot sync the journal: %s", j->dir, j->number, strerror(errno));
	munmap(j->map, j->file_size);
	if (fsync(j->fd) != 0 && rc == 0)
		rc = pair_fail("%s/%u.bin: cannot sync the journal: %s", j->dir, j->number, strerror(errno));
	close(j->fd);
	j->map = NULL;
	j->fd = -1;
	return rc;
}

int pair_journal_open(struct pair_journal *j, const char *dir, size_t file_size)
{
	memset(j, 0, sizeof *j);
	j->fd = -1;
	if (snprintf(j->dir, sizeof j->dir, "%s", dir) >= (int)sizeof j->dir)
		return pair_fail("%s: journal directory name too long", dir);
	if (file_size < 4096 || file_size % 4096)
		return pair_fail("journal file size %zu: expected a multiple of 4096, at least 4096",
				 file_size);
	j->file_size = file_size;
	if (mkdir(dir, 0755) != 0 && errno != EEXIST)
		return pair_fail("%s: cannot create the journal directory: %s", dir, strerror(errno));
	return journal_next_file(j);
}

int pair_journal_append(struct pair_journal *j, uint64_t realtime_ns, int success, const char *msg,
			size_t len)
{
	if (RECORD_HEADER + len > j->file_size - COUNT_BYTES)
		return pair_fail("%s: a record of %zu bytes cannot fit in a %zu-byte journal file", j->dir,
				 len, j->file_size);
	if (j->used + RECORD_HEADER + len > j->file_size)
		if (journal_seal_file(j) != 0 || journal_next_file(j) != 0)
			return -1;
	unsigned char *p = j->map + j->used;
	uint64_t length = len;
	memcpy(p, &realtime_ns, 8); /* little-endian hosts only, as llfix */
	p[8] = success ? 1 : 0;
	memcpy(p + 9, &length, 8);
	memcpy(p + RECORD_HEADER, msg, len);
	j->used += RECORD_HEADER + len;
	j->count++;
	j->total++;
	/* the count is written after the record: it marks what is committed */
	memcpy(j->map, &j->count, COUNT_BYTES);
	return 0;
}

int pair_journal_close(struct pair_journal *j)
{
	return journal_seal_file(j);
}

/* --- FIX --------------------------------------------------------------- */

int pair_precision_parse(const char *name)
{
	static const char *names[] = {"none", "milli", "micro", "nano"};
	for (int i = 0; i < 4; i++)
		if (strcmp(name, names[i]) == 0)
			return i;
	return -1;
}

size_t pair_timestamp(char *out, enum pair_precision p)
{
	struct timespec ts;
	struct tm tm;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	size_t n = strftime(out, 32, "%Y%m%d-%H:%M:%S", &tm);
	switch (p) {
	case PAIR_PREC_MILLI: n += (size_t)sprintf(out + n, ".%03ld", ts.tv_nsec / 1000000); break;
	case PAIR_PREC_MICRO: n += (size_t)sprintf(out + n, ".%06ld", ts.tv_nsec / 1000); break;
	case PAIR_PREC_NANO: n += (size_t)sprintf(out + n, ".%09ld", ts.tv_nsec); break;
	case PAIR_PREC_NONE: break;
	}
	return n;
}

size_t pair_fix_finish(char *out, const char *begin, const char *body, size_t body_len)
{
	int n = snprintf(out, PAIR_MSG_MAX, "8=%s" SOH "9=%zu" SOH, begin, body_len);
	if (n < 0 || (size_t)n + body_len + 7 > PAIR_MSG_MAX)
		return 0;
	memcpy(out + n, body, body_len);
	size_t len = (size_t)n + body_len;
	unsigned sum = 0;
	for (size_t i = 0; i < len; i++)
		sum += (unsigned char)out[i];
	len += (size_t)sprintf(out + len, "10=%03u" SOH, sum % 256);
	return len;
}

long pair_fix_frame(const char *buf, size_t n)
{
	/* 8=...<SOH>9=digits<SOH> */
	if (n < 2)
		return 0;
	if (buf[0] != '8' || buf[1] != '=')
		return -1;
	const char *soh = memchr(buf, '\001', n);
	if (!soh)
		return n > 64 ? -1 : 0;
	const char *p = soh + 1, *end = buf + n;
	if (end - p < 2)
		return 0;
	if (p[0] != '9' || p[1] != '=')
		return -1;
	size_t body = 0;
	const char *d = p + 2;
	for (; d < end && *d >= '0' && *d <= '9'; d++) {
		body = body * 10 + (size_t)(*d - '0');
		if (body > (size_t)1 << 24)
			return -1;
	}
	if (d == end)
		return 0;
	if (*d != '\001' || d == p + 2)
		return -1;
	size_t total = (size_t)(d + 1 - buf) + body + 7; /* "10=ddd" SOH */
	if (n < total)
		return 0;
	const char *t = buf + total - 7;
	if (memcmp(t, "10=", 3) != 0 || t[6] != '\001')
		return -1;
	return (long)total;
}

const char *pair_fix_field(const char *msg, size_t len, const char *tag, size_t *vlen)
{
	size_t tl = strlen(tag);
	const char *p = msg, *end = msg + len;
	while (p < end) {
		const char *soh = memchr(p, '\001', (size_t)(end - p));
		if (!soh)
			return NULL;
		if ((size_t)(soh - p) > tl && memcmp(p, tag, tl) == 0 && p[tl] == '=') {
			*vlen = (size_t)(soh - p - (long)tl - 1);
			return p + tl + 1;
		}
		p = soh + 1;
	}
	return NULL;
}

/* --- sockets ------------------------------------------------------------- */

int pair_parse_endpoint(const char *text, struct sockaddr_storage *sa, socklen_t *len)
{
	const char *colon = strrchr(text, ':');
	char host[64];
	if (!colon || (size_t)(colon - text) >= sizeof host)
		return pair_fail("%s: expected ADDR:PORT", text);
	memcpy(host, text, (size_t)(colon - text));
	host[colon - text] = 0;
	uint64_t port;
	if (pair_parse_count("port", colon + 1, 1, 65535, &port) != 0)
		return -1;
	struct sockaddr_in *in = (struct sockaddr_in *)sa;
	memset(sa, 0, sizeof *sa);
	in->sin_family = AF_INET;
	in->sin_port = htons((uint16_t)port);
	if (strcmp(host, "localhost") == 0)
		strcpy(host, "127.0.0.1");
	if (inet_pton(AF_INET, host, &in->sin_addr) != 1)
		return pair_fail("%s: expected an IPv4 address, found '%s'", text, host);
	*len = sizeof *in;
	return 0;
}

int pair_socket_buffer(int fd, int option, long requested, long *effective)
{
	const char *name = option == SO_SNDBUF ? "SO_SNDBUF" : "SO_RCVBUF";
	if (requested > 0) {
		int v = (int)requested;
		if (setsockopt(fd, SOL_SOCKET, option, &v, sizeof v) != 0)
			return pair_fail("%s %ld: %s", name, requested, strerror(errno));
	}
	int got = 0;
	socklen_t gl = sizeof got;
	if (getsockopt(fd, SOL_SOCKET, option, &got, &gl) != 0)
		return pair_fail("%s: cannot read it back: %s", name, strerror(errno));
	*effective = got;
	return 0;
}

int pair_send_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
				continue; /* nonblocking: spin until the kernel takes it, as llfix */
			return pair_fail("send: %s", strerror(errno));
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

int pair_parse_count(const char *option, const char *text, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(text, &end, 10);
	if (!*text || *end || errno || text[0] == '-' || v < min || v > max)
		return pair_fail("option %s: expected a number from %llu to %llu, found '%s'", option,
				 (unsigned long long)min, (unsigned long long)max, text);
	*out = v;
	return 0;
}
