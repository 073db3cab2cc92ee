/* SPDX-License-Identifier: Apache-2.0 */
/* fixread: an llfix journal and a raw stream yield the same records, at
 * the same offsets, with the same damage, whether their bytes come in one
 * piece or cut at every size from 1 byte up (as reads and archive blocks
 * cut them): records are parsed where the bytes are, and one cut by the
 * end of a piece is finished from the next. A record longer than the
 * window is skipped with a finding, not a crash; a damaged line is
 * described from its own bytes, never from what follows them. A file
 * whose reader is told it has seen enough, or is stopped by a signal, is
 * left before its next read, and says which. */
#include "config.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "lib/fix/fixread.h"

#define MAX_RECORDS 64

struct seen {
	size_t n, damage;
	uint64_t offset[MAX_RECORDS];
	uint32_t len[MAX_RECORDS];
	char first[MAX_RECORDS];
};

static void on_record(void *ctx, const struct ev_fix_record *r)
{
	struct seen *s = ctx;
	if (s->n < MAX_RECORDS) {
		s->offset[s->n] = r->offset;
		s->len[s->n] = r->len;
		s->first[s->n] = r->msg[0];
	}
	s->n++;
}

static void on_damage(void *ctx, enum ev_fix_rule rule, const char *file, uint64_t record,
		      uint64_t offset, const char *message, const char *expected, const char *found)
{
	(void)rule, (void)file, (void)record, (void)offset, (void)message, (void)expected, (void)found;
	((struct seen *)ctx)->damage++;
}

/* Set enough at the third record. */
struct leaving {
	size_t n, damage;
	volatile sig_atomic_t enough, signalled;
};

static void leave_at_third(void *ctx, const struct ev_fix_record *r)
{
	struct leaving *l = ctx;
	(void)r;
	if (++l->n == 3)
		l->enough = 1;
}

static void leaving_damage(void *ctx, enum ev_fix_rule rule, const char *file, uint64_t record,
			   uint64_t offset, const char *message, const char *expected, const char *found)
{
	(void)rule, (void)file, (void)record, (void)offset, (void)message, (void)expected, (void)found;
	((struct leaving *)ctx)->damage++;
}

/* ev_fixread_file on the llfix bytes in a file of 3 MiB (three reads):
 * with enough set at the third record, or the signal flag set from the
 * start, the file is left before its second read, with EV_INTERRUPTED
 * and the reason. */
static void left_early(const unsigned char *llfix, size_t size, int by_signal)
{
	char dir[] = "/tmp/evidence-fixread-XXXXXX", path[64];
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof path, "%s/1.bin", dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0 && write(fd, llfix, size) == (ssize_t)size && ftruncate(fd, 3 << 20) == 0);
	close(fd);
	struct leaving l = {0, 0, 0, by_signal};
	struct ev_fixread_sink sink = {leave_at_third, leaving_damage, &l, NULL, NULL, &l.signalled, &l.enough};
	struct ev_fixread *r = ev_fixread_new(EV_FIXREAD_LLFIX, &sink);
	struct ev_error err;
	ev_error_clear(&err);
	uint8_t digest[EV_SHA256_LEN];
	uint64_t bytes = 0;
	CHECK_INT_EQ(ev_fixread_file(r, path, 0, NULL, digest, &bytes, &err), EV_INTERRUPTED);
	CHECK_INT_EQ(bytes, (by_signal ? 0 : 1 << 20));
	CHECK(strstr(err.text, by_signal ? ": interrupted by a signal; nothing is claimed" : ": left unread, no longer needed"));
	CHECK_INT_EQ(l.n, (by_signal ? 0 : 20));
	CHECK_INT_EQ(l.damage, 0);
	ev_fixread_free(r);
	unlink(path);
	rmdir(dir);
}

static size_t message(char *out, unsigned seq)
{
	char body[128];
	int n = snprintf(body, sizeof body, "35=0\00134=%u\00149=A\00156=B\001", seq);
	int m = sprintf(out, "8=FIX.4.4\0019=%d\001%s", n, body);
	unsigned sum = 0;
	for (int i = 0; i < m; i++)
		sum += (unsigned char)out[i];
	return (size_t)m + (size_t)sprintf(out + m, "10=%03u\001", sum % 256);
}

static void read_cut(enum ev_fixread_kind kind, const unsigned char *bytes, size_t size, size_t piece,
		     struct seen *s)
{
	memset(s, 0, sizeof *s);
	struct ev_fixread_sink sink = {on_record, on_damage, s, NULL, NULL, NULL, NULL};
	struct ev_fixread *r = ev_fixread_new(kind, &sink);
	struct ev_error err;
	ev_error_clear(&err);
	ev_fixread_begin(r, "1.bin", 0, &err);
	for (size_t at = 0; at < size; at += piece)
		ev_fixread_feed(r, bytes + at, size - at < piece ? size - at : piece, &err);
	ev_fixread_end(r, &err);
	ev_fixread_finish(r);
	ev_fixread_free(r);
}

static void same_records_for_every_cut(enum ev_fixread_kind kind, const unsigned char *bytes,
				       size_t size, size_t want)
{
	struct seen whole, cut;
	read_cut(kind, bytes, size, size, &whole);
	CHECK_INT_EQ(whole.n, want);
	CHECK_INT_EQ(whole.damage, 0);
	for (size_t piece = 1; piece <= 300; piece++) {
		read_cut(kind, bytes, size, piece, &cut);
		int same = cut.n == whole.n && cut.damage == whole.damage &&
			   memcmp(cut.offset, whole.offset, sizeof cut.offset) == 0 &&
			   memcmp(cut.len, whole.len, sizeof cut.len) == 0 &&
			   memcmp(cut.first, whole.first, sizeof cut.first) == 0;
		if (!same)
			fprintf(stderr, "  cut into pieces of %zu bytes: %zu records, %zu damage\n", piece,
				cut.n, cut.damage);
		CHECK(same);
	}
}

int main(void)
{
	static unsigned char llfix[8192], raw[8192];
	size_t l = 8, w = 0;
	uint64_t count = 20;
	memcpy(llfix, &count, 8);
	for (unsigned i = 1; i <= count; i++) {
		char m[200];
		uint64_t ts = 1796198400000000000ull + i, len = message(m, i);
		memcpy(llfix + l, &ts, 8);
		llfix[l + 8] = 1;
		memcpy(llfix + l + 9, &len, 8);
		memcpy(llfix + l + 17, m, len);
		l += 17 + len;
		memcpy(raw + w, m, len);
		w += len;
	}
	size_t llfix_size = (l + 4095) / 4096 * 4096; /* the zero tail, to a whole page as llfix makes it */
	same_records_for_every_cut(EV_FIXREAD_LLFIX, llfix, llfix_size, count);
	same_records_for_every_cut(EV_FIXREAD_RAW, raw, w, count);
	left_early(llfix, llfix_size, 0);
	left_early(llfix, llfix_size, 1);
	struct seen s;

	/* a qf-log line of another shape, short, at the very end of the bytes
	 * (ASan: the finding's excerpt must not read past them) */
	static const char bad_line[] = "20261202-08:00:00.000 : x\n:00:00.0 :";
	size_t bad_len = sizeof bad_line - 1;
	char *exact = malloc(bad_len);
	memcpy(exact, bad_line, bad_len);
	read_cut(EV_FIXREAD_QF_LOG, (const unsigned char *)exact, bad_len, bad_len, &s);
	CHECK_INT_EQ(s.n, 1);
	CHECK_INT_EQ(s.damage, 1);
	free(exact);

	/* a raw "record" longer than the window: skipped with a finding */
	size_t big = EV_FIXREAD_RECORD_MAX + (2u << 20);
	unsigned char *junk = malloc(big);
	memset(junk, 'x', big);
	memcpy(junk, "8=FIX.4.4\0019=99999999\001", 22);
	read_cut(EV_FIXREAD_RAW, junk, big, 1u << 20, &s);
	CHECK(s.damage >= 1);
	CHECK_INT_EQ(s.n, 0);
	free(junk);
	return check_exit("fixread");
}
