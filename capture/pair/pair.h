/* SPDX-License-Identifier: Apache-2.0 */
/* pair: what the reference native pair (fix-sender, fix-receiver) shares.
 *
 * The pair mirrors the llfix TX benchmark (../shared/formats/llfix.md) so
 * that a demo campaign leaves the shapes a real one does. It is a native
 * program, not part of evidence: it links no libevidence code, so that
 * what it writes (journals, series, statistics) is witnessed by audit's
 * independent readers rather than by the same code.
 *
 * Every function here either succeeds or prints "PROGRAM: what failed"
 * on stderr and returns -1; the programs exit nonzero on any failure.
 * No global state but the program name (pair_program).
 */
#ifndef PAIR_PAIR_H
#define PAIR_PAIR_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define SOH "\001"
#define PAIR_MSG_MAX 2048 /* an order is about 260 bytes; a Logon less */

extern const char *pair_program;

/* "PROGRAM: fmt" on stderr; returns -1 for `return pair_fail(...)`. */
int pair_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* --- llfix journal writer (the "serialised" files) ----------------------
 * In DIR: 1.bin, 2.bin, ... each created at file_size bytes (zero-filled,
 * mode 0600, mapped shared); a u64 count at offset 0, rewritten after each
 * record; records packed: u64 CLOCK_REALTIME ns, u8 success, u64 length,
 * the message. A record that does not fit in what is left starts the next
 * file, after the current one is synced. */
struct pair_journal {
	char dir[1024];
	size_t file_size;
	unsigned number;
	int fd;
	unsigned char *map;
	size_t used;
	uint64_t count, total;
};

/* DIR is created (0755) when missing; an existing 1.bin is refused. */
int pair_journal_open(struct pair_journal *j, const char *dir, size_t file_size);
int pair_journal_append(struct pair_journal *j, uint64_t realtime_ns, int success,
			const char *msg, size_t len);
/* Sync and unmap the last file. Safe on a journal never opened (dir ""). */
int pair_journal_close(struct pair_journal *j);

/* --- FIX on the wire ------------------------------------------------------ */
enum pair_precision { PAIR_PREC_NONE, PAIR_PREC_MILLI, PAIR_PREC_MICRO, PAIR_PREC_NANO };

/* "none", "milli", "micro", "nano" -> precision; -1 when unknown. */
int pair_precision_parse(const char *name);

/* A UTCTimestamp of CLOCK_REALTIME now at the precision, into out (32
 * bytes); @return its length. */
size_t pair_timestamp(char *out, enum pair_precision p);

/* A whole message from its body (the fields after 9=, each ending in
 * SOH): 8=BEGIN, 9=length, the body, 10=checksum. out holds PAIR_MSG_MAX
 * bytes. @return the length, or 0 when the body does not fit. */
size_t pair_fix_finish(char *out, const char *begin, const char *body, size_t body_len);

/* The length of the message at the start of buf (n bytes), framed by its
 * BodyLength and ended by "10=ddd" SOH. @return the length; 0 when more
 * bytes are needed; -1 when the bytes are not a FIX message. */
long pair_fix_frame(const char *buf, size_t n);

/* The value of the first field with tag in msg (len bytes), or NULL;
 * *vlen gets its length. */
const char *pair_fix_field(const char *msg, size_t len, const char *tag, size_t *vlen);

/* --- sockets ------------------------------------------------------------- */
/* "ADDR:PORT" (IPv4 dotted quad, or "localhost") into sa. */
int pair_parse_endpoint(const char *text, struct sockaddr_storage *sa, socklen_t *len);

/* Ask for a socket buffer (SO_SNDBUF / SO_RCVBUF; 0: leave the default)
 * and read back what the kernel grants. */
int pair_socket_buffer(int fd, int option, long requested, long *effective);

/* Write all of buf (a blocking or nonblocking socket, spinning on EAGAIN). */
int pair_send_all(int fd, const char *buf, size_t len);

/* --- numbers on the command line ----------------------------------------- */
/* A decimal count in [min, max]; -1 (with a message naming option) else. */
int pair_parse_count(const char *option, const char *text, uint64_t min, uint64_t max,
		     uint64_t *out);

#endif
