/* SPDX-License-Identifier: Apache-2.0 */
/* fixmsg: one FIX message split into fields, and its envelope checked.
 *
 * The scanner never copies: a field is a tag and the offset and length of
 * its value inside the caller's bytes, which must stay valid while the
 * message is used. It checks what every FIX message must hold whatever
 * its dictionary: 8, 9 and 35 first and 10 last (envelope-order), the
 * BodyLength of field 9 (body-length), a CheckSum of exactly three digits
 * equal to the byte sum mod 256 of everything before "10=" (checksum), and
 * the field syntax: tag digits without a leading zero, '=', a value ended
 * by SOH (field-syntax). A DATA field's value may hold SOH bytes: given a
 * dictionary's data tags, its length comes from the LENGTH field before it.
 *
 * Hostile input: every offset is checked against the length; at most
 * EV_FIX_MAX_FIELDS fields are kept (more is a field-syntax finding).
 * Pure functions over caller-owned structs; no state.
 */
#ifndef EV_FIXMSG_H
#define EV_FIXMSG_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "lib/fix/fixrules.h"

#define EV_FIX_SOH '\001'
#define EV_FIX_MAX_FIELDS 1024
#define EV_FIX_TAG_MAX 999999999u

struct ev_fix_field {
	uint32_t tag;
	uint32_t off; /* of the value, from the start of the message */
	uint32_t len;
};

struct ev_fix_msg {
	const char *data;
	uint32_t len;
	uint32_t n; /* fields parsed (scanning stops at a syntax error) */
	int syntax_ok;
	int has_data; /* a DATA field's length came from its LENGTH field */
	struct ev_fix_field f[EV_FIX_MAX_FIELDS];
};

/* For DATA fields: length_tag[tag] is the LENGTH field that must precede
 * a DATA field (0: tag is not DATA). max_tag bounds the table. */
struct ev_fix_data_tags {
	const uint32_t *length_tag;
	uint32_t max_tag;
};

/* Called for each envelope problem: rule, byte offset in the message,
 * expected and found (each may be NULL). */
typedef void (*ev_fix_problem_fn)(void *ctx, enum ev_fix_rule rule, uint32_t at,
				  const char *expected, const char *found);

/* Split data (len bytes, at most UINT32_MAX) into msg and check the
 * envelope; data_tags may be NULL. @return the number of problems. */
unsigned ev_fix_scan(const char *data, size_t len, const struct ev_fix_data_tags *data_tags,
		     struct ev_fix_msg *msg, ev_fix_problem_fn fn, void *ctx);

/* The value of field i as a pointer into the message. */
static inline const char *ev_fix_value(const struct ev_fix_msg *m, uint32_t i)
{
	return m->data + m->f[i].off;
}

/* A string against a value's len bytes, in strcmp's order (bytes first,
 * then the shorter first). The value is not a string and may hold a NUL,
 * which strncmp would take for its end. */
static inline int ev_fix_cmp_str(const char *s, const char *value, uint32_t len)
{
	size_t n = strlen(s);
	int c = memcmp(s, value, n < len ? n : len);
	return c ? c : n < len ? -1 : n > len;
}

/* Index of the first field with this tag at or after `from`, or -1. */
long ev_fix_find(const struct ev_fix_msg *m, uint32_t tag, uint32_t from);

/* The value of tag (its decimal text, "1128") in the first len bytes of a
 * message, which may be cut short (a journal's first record, its first
 * bytes), as text of at most cap - 1 bytes into out; "" when the tag is
 * not there. No envelope is checked: what must hold before a message is
 * judged (its version) is read here, the judging is ev_fix_scan's. */
void ev_fix_tag_text(const char *msg, size_t len, const char *tag, char *out, size_t cap);

/* Parse an unsigned decimal value (digits only, at most 19). @return 0, or
 * -1 when it is empty, too long or holds anything but digits. */
int ev_fix_parse_u64(const char *s, uint32_t len, uint64_t *out);

/* The length of the message starting at data (the first n bytes of a
 * stream), found from its BodyLength and checked to end with
 * "10=ddd<SOH>". @return the length; 0 when more bytes are needed; -1
 * when the bytes do not start a well-formed envelope. */
long ev_fix_frame(const char *data, size_t n);

/* The last message, to recognise the next: in a benchmark's journal one
 * order differs from the one before only in a few values (MsgSeqNum,
 * ClOrdID, times, CheckSum). A template holds a message's bytes, its
 * fields and which bytes are structure (tag digits, '=', SOH). */
#define EV_FIX_TEMPLATE_MAX 4096

struct ev_fix_template {
	uint32_t len; /* 0: none */
	uint32_t n;
	uint64_t structure[EV_FIX_TEMPLATE_MAX / 64];
	char bytes[EV_FIX_TEMPLATE_MAX];
	/* per byte inside a value: that field's index, so that a changed
	 * byte names its field without a walk (other bytes: unset) */
	uint16_t value_of[EV_FIX_TEMPLATE_MAX];
	struct ev_fix_field f[EV_FIX_MAX_FIELDS];
};

/* Make m (scanned, its bytes still valid) the template; a message with a
 * syntax problem, a DATA field, its envelope out of order or over
 * EV_FIX_TEMPLATE_MAX bytes leaves none (len 0). */
void ev_fix_template_set(struct ev_fix_template *t, const struct ev_fix_msg *m);

/* ev_fix_scan for a message like the template. When data has the
 * template's length and differs from it only inside values, with no SOH
 * among the changed bytes, its fields are the template's: msg gets them,
 * BodyLength and CheckSum are judged (*problems, through fn), diff gets a
 * bit per byte that differs from the template (EV_FIX_TEMPLATE_MAX / 64
 * words), and the template becomes data. @return 1 then; 0 when data must
 * be scanned (msg untouched; the template is dropped when it was partly
 * overwritten). */
int ev_fix_rescan(const char *data, size_t len, struct ev_fix_template *t, struct ev_fix_msg *msg,
		  uint64_t *diff, unsigned *problems, ev_fix_problem_fn fn, void *ctx);

#define EV_FIX_VALUE_MAX 640 /* a whole order fits, for a disagreement */

/* One record as a reader hands it over. */
struct ev_fix_record {
	const char *msg;      /* the message's bytes, valid during the call */
	uint32_t len;
	const char *file;     /* the journal file's name, for findings */
	uint32_t file_index;  /* the reader's number for the file */
	uint64_t record;      /* 1-based position in its file */
	uint64_t offset;      /* of the message's first byte in its file */
	/* The copy's own time of the record, ns since 1970 UTC, 0 when the
	 * copy keeps none: an llfix journal's record timestamp (taken after
	 * send() or on receipt), a QuickFIX FileLog line's time (when the
	 * engine logged the message sent or received). */
	uint64_t stamp_ns;
};

#endif
