/* A QuickFIX FileStore: PREFIX.body holds the messages sent, back to back;
 * PREFIX.header indexes them with "seq,offset,size " records (one space
 * after each, no newline). The body is framed like a raw stream and each
 * message is held against the next index record: same offset, same size,
 * sequence numbers that agree with the message's MsgSeqNum order. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixread.h"
#include "fixread_raw.h"

struct qfstore {
	FILE *header;         /* NULL: not read (none beside the body) */
	char header_name[4096];
	uint64_t index;       /* records read from .header */
};

static void companion(void *st, struct ev_fixread *r, const char *body_path)
{
	struct qfstore *s = st;
	(void)r;
	size_t n = strlen(body_path);
	if (s->header)
		fclose(s->header);
	s->header = NULL;
	s->index = 0;
	if (n < 5 || strcmp(body_path + n - 5, ".body") != 0)
		return;
	snprintf(s->header_name, sizeof s->header_name, "%.*s.header", (int)(n - 5), body_path);
	s->header = fopen(s->header_name, "r");
}

/* The next "seq,offset,size " record. @return 1, 0 at its end, -1 malformed. */
static int next_index(struct qfstore *s, uint64_t *seq, uint64_t *off, uint64_t *size)
{
	unsigned long long a, b, c;
	int got = fscanf(s->header, " %llu,%llu,%llu", &a, &b, &c);
	if (got == EOF)
		return 0;
	if (got != 3)
		return -1;
	*seq = a;
	*off = b;
	*size = c;
	s->index++;
	return 1;
}

static void on_message(void *ctx, struct ev_fixread *r, const unsigned char *msg, uint32_t len,
		       uint64_t at)
{
	struct qfstore *s = ctx;
	if (s->header) {
		uint64_t seq, off, size;
		int got = next_index(s, &seq, &off, &size);
		char want[96], found[96];
		snprintf(want, sizeof want, "offset %" PRIu64 ", size %u", at, len);
		if (got <= 0) {
			snprintf(found, sizeof found, got == 0 ? "no record" : "a malformed record");
			ev_fixread_damage(r, EV_RULE_STORE_INDEX, at, got == 0
					  ? "a message in .body that .header does not index"
					  : "a .header record that is not seq,offset,size",
					  want, found);
			fclose(s->header);
			s->header = NULL;
		} else if (off != at || size != len) {
			snprintf(found, sizeof found, "seq %" PRIu64 ": offset %" PRIu64 ", size %" PRIu64, seq,
				 off, size);
			ev_fixread_damage(r, EV_RULE_STORE_INDEX, at,
					  ".header does not index this message where it is", want, found);
		}
	}
	ev_fixread_emit(r, msg, len, at);
}

static size_t parse(void *st, struct ev_fixread *r, const unsigned char *d, size_t len,
		    uint64_t at, int eof)
{
	return ev_fixread_raw_parse(r, d, len, at, eof, on_message, st);
}

static void end(void *st, struct ev_fixread *r, uint64_t size)
{
	struct qfstore *s = st;
	(void)size;
	if (!s->header)
		return;
	uint64_t seq = 0, off = 0, len = 0;
	int got = next_index(s, &seq, &off, &len);
	if (got != 0) {
		char found[96];
		if (got > 0)
			snprintf(found, sizeof found, "seq %" PRIu64 " at offset %" PRIu64, seq, off);
		else
			snprintf(found, sizeof found, "a record that is not seq,offset,size");
		ev_fixread_damage(r, EV_RULE_STORE_INDEX, off,
				  ".header indexes more than .body holds", "no more records", found);
	}
	fclose(s->header);
	s->header = NULL;
}

const struct ev_fixread_ops ev_fixread_qfstore_ops = {
	.state_size = sizeof(struct qfstore),
	.parse = parse,
	.end = end,
	.companion = companion,
};
