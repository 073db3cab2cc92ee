/* SPDX-License-Identifier: Apache-2.0 */
/* fixcheck's parts: the checker's state and what its files share; only
 * lib/fix/fixcheck*.c include this. fixcheck.c takes each record through
 * the rules in order (ev_fixcheck_record); fixcheck_message.c holds the
 * rules on one message (its dictionary, its values, the spec's fields and
 * groups); fixcheck_session.c the state across messages (the session
 * layer's view, the owner tag in the order the application sees orders,
 * the orders followed, the latency stamps); fixcheck_words.c how a rule's
 * hit is said (each rule's sentence, a value as shown, the finding).
 *
 * The four files are one unit to the compiler: fixcheck.c includes the
 * other three where a record meets them, and what they share is static.
 * Every message goes through a dozen of these functions: as separate
 * units (calls the compiler can no longer inline into ev_fixcheck_record)
 * the one-core audit of a pair took 2.5% longer (bench/audit-journal,
 * pinned), and as one unit 1.0% longer while field_of and same were
 * marked inline; as they are now, the same time as one file. */
#ifndef EV_FIXCHECK_PARTS_H
#define EV_FIXCHECK_PARTS_H

#include <stdint.h>
#include <string.h>

#include "lib/fix/fixcheck.h"
#include "lib/fix/fixformat.h"
#include "lib/fix/fixmsg.h"
#include "lib/fix/fixprint.h"
#include "lib/fix/fixsession.h"

/* The session rules read these tags; a message laid out as the one
 * before, with none of them changed, keeps what was read of them. */
#define CHANGED_MSGTYPE 1u
#define CHANGED_POSSDUP 2u
#define CHANGED_COMPID 4u
#define TRACKED_TAGS_MIN 10000 /* tags tracked per message without a dictionary */
#define COMPID_MAX 64
#define NO_OFFSET UINT32_MAX    /* a finding about the record, not a field */
#define GROUP_DEPTH_MAX 16
#define MEMO_GROUPS_MAX 64
/* Orders held above an open gap. A gap open for this many orders is not
 * being filled (an engine resends at once): the oldest are judged then,
 * so that a journal with one lost record costs no more memory than this. */
#define HELD_ORDERS_MAX 32768

struct ev_fixcheck {
	struct ev_fixcheck_opts o;
	uint32_t sender_compid_len, begin_len, order_len; /* of those in o, measured once */
	ev_fix_finding_fn fn;
	void *ctx;
	struct ev_fixcheck_stats st;
	const struct ev_fix_record *rec; /* the record being checked */
	/* per message: tag -> the message's serial when seen, its first position */
	uint32_t tracked, serial, *seen, *first_pos;
	/* per group instance: the same; top-level fields of the dictionary pass */
	uint32_t instance, *inst_seen, top_serial, *top_seen;
	int stamps_are_prev; /* seen and first_pos describe the previous message */
	struct ev_fix_msg msg;
	/* tag -> entry index + 1 for each layout used so far (0: not in it),
	 * built when first needed: most messages touch the same few */
	uint32_t **dense;
	/* per message type: tag -> (region << 30 | entry index + 1) over the
	 * header, its body and the trailer, in one lookup */
	uint32_t **top;
	const struct ev_fixdict_message *last_def;
	/* The previous message, to reuse verdicts. A rule's verdict on a
	 * value is the same for the same bytes, and the dictionary's rules on
	 * structure (tags known and defined, required, repeated, header
	 * order, groups) depend only on the tags in order and the NumInGroup
	 * values; in a benchmark's orders only a few fields change from one
	 * to the next. So each message is compared once with the previous
	 * (same[i]: field i's value is unchanged) and a clean verdict on
	 * unchanged bytes is kept. Stateful rules always run. */
	int shape;                       /* this message's tags are the previous one's */
	int rescanned;                   /* split as the template: tpl was updated */
	int prev_struct_ok, struct_ok;
	const struct ev_fixdict_message *struct_def, *prev_def; /* what struct_ok was judged against */
	struct ev_fix_template tpl;      /* the previous message (fixmsg.h) */
	uint64_t changed[EV_FIX_TEMPLATE_MAX / 64]; /* bytes that differ from the template */
	uint32_t prev_groups, groups;
	uint8_t same[EV_FIX_MAX_FIELDS];
	uint32_t changed_fields[EV_FIX_MAX_FIELDS], nchanged; /* shape: the fields not same, ascending */
	unsigned changed_session;        /* shape: CHANGED_* of the tags the session rules read */
	uint8_t ok[EV_FIX_MAX_FIELDS], prev_ok[EV_FIX_MAX_FIELDS]; /* value verdicts */
	int prev_all_ok;                 /* every prev_ok is 1 */
	uint32_t group_pos[MEMO_GROUPS_MAX], prev_group_pos[MEMO_GROUPS_MAX];
	uint8_t *spec_ok, *prev_spec_ok;  /* per spec field, then per spec group */
	int prev_spec_all_ok;             /* every prev_spec_ok is 1 */
	uint16_t *spec_item_at;           /* per field position: spec item + 1, or 0 */
	uint32_t spec_map_serial;         /* the layout (serial) spec_item_at is of; 0: none */
	uint8_t *redo;                    /* per spec item: to judge again */
	/* session */
	int have_compids;
	char compid[2][COMPID_MAX];
	uint32_t compid_len[2];
	int have_time;
	struct ev_fix_time_memo times[EV_FIX_MAX_FIELDS]; /* per field position */
	uint64_t last_secs;
	uint32_t last_ns;
	uint64_t next_owner;
	struct ev_fixcross cross;         /* COMPARE: against the other side (fixcross.h) */
	struct ev_fixsession *session;    /* the session layer (fixsession.h) */
	struct ev_fixorders *orders;      /* the spec's "orders", in a copy holding both directions */
	struct ev_fixsession_msg view;    /* this message as the session layer reads it */
	uint64_t viewed_at;               /* record_no view was read from */
	uint32_t viewed_serial;           /* and the layout (serial) it had */
	uint64_t compids_checked_at;      /* record_no whose 49 and 56 were found the first ones */
	uint32_t compids_serial;          /* and its layout */
	uint64_t day, day_ns;             /* the last SendingTime's date, as ns since 1970 */
	uint64_t record_no;               /* messages given, both directions */
	uint64_t sending_read_at;         /* record_no whose SendingTime check_session read */
	uint64_t sending_secs;
	uint32_t sending_nanos;
	struct ev_fixprint print;         /* the last message's fingerprint parts (fixprint.h) */
	uint64_t printed_at;              /* record_no of that message */
	/* Owner checks of orders that arrived above a gap: the application
	 * sees them when the gap is filled, in MsgSeqNum order (at most
	 * HELD_ORDERS_MAX held, in an array of at most twice that). */
	struct owner_check *pending;
	size_t npending, pending_head, pending_cap;
};

/* Up to 2 x HELD_ORDERS_MAX of these are held: where the order was, not
 * a whole ev_fix_record. */
struct owner_check {
	uint64_t seq, value;
	const char *file;
	uint64_t record, offset;
	uint32_t file_index, tag, off;
	uint8_t owner_ok, present, readable;
	char found[48]; /* the owner field as shown, when it will be */
};

/* --- fixcheck_words.c */

/* A value as it may be shown: every byte outside printable ASCII as \xHH. */
static void ev_fixcheck_show(const char *v, uint32_t len, char *out, size_t cap);

/* Count a finding; format and hand over the first max_per_rule. */
static void ev_fixcheck_report(struct ev_fixcheck *c, enum ev_fix_rule rule, uint32_t tag, uint32_t at,
		   const char *message, const char *expected, const char *found);

/* The same, with the field's value as what was found. */
static void ev_fixcheck_report_field(struct ev_fixcheck *c, enum ev_fix_rule rule, uint32_t i,
			 const char *expected);

/* --- fixcheck_message.c */

/* c->same for a message split as the template was: its bits mark the
 * changed bytes, each inside a value; fields are in offset order. */
static void ev_fixcheck_same_from_diff(struct ev_fixcheck *c);

/* c->same for a message of the template's tags whose values moved (one
 * grew or shrank): value by value. */
static void ev_fixcheck_same_by_fields(struct ev_fixcheck *c);

/* Format and enum checks for one field against its definition. */
static void ev_fixcheck_value_rules(struct ev_fixcheck *c, uint32_t i, const struct ev_fixdict_field *def);

/* The dictionary's rules for the whole message. */
static void ev_fixcheck_dictionary_rules(struct ev_fixcheck *c);

/* The spec's fields and groups, for an order. */
static void ev_fixcheck_spec_rules(struct ev_fixcheck *c);

/* --- fixcheck_session.c */

static void ev_fixcheck_session_rules(struct ev_fixcheck *c);

/* What the session layer reads of this message, into c->view. */
static void ev_fixcheck_session_view(struct ev_fixcheck *c);

static void ev_fixcheck_note_latency(struct ev_fixcheck *c, struct ev_fixlatency_stream *l, const struct ev_fix_record *r);

/* A request of this copy (D, F, G) or an answer of the peer (8, 9), for
 * the application layer. */
static void ev_fixcheck_follow_order(struct ev_fixcheck *c, const struct ev_fix_record *r, int peer);

/* The owner value (ClOrdID) of this order, judged when the application
 * would see it. Its text (found) is made only when it will be needed:
 * a held order, a finding. */
static void ev_fixcheck_owner_of(struct ev_fixcheck *c, int readable, uint64_t seq, struct owner_check *o);

static void ev_fixcheck_owner_text(struct ev_fixcheck *c, struct owner_check *o);

/* The owner tag counts up by one across the orders; readable as for
 * the sequence: an unreadable message's missing owner is taken to be the
 * next. */
static void ev_fixcheck_check_owner(struct ev_fixcheck *c, const struct owner_check *o);

static void ev_fixcheck_hold_owner(struct ev_fixcheck *c, const struct owner_check *o);

/* The orders held above a gap that is now filled. */
static void ev_fixcheck_release_owners(struct ev_fixcheck *c, uint64_t frontier);

/* Small and called for nearly every field. */
/* The value of the first field with this tag in the message, or NULL. */
static const struct ev_fix_field *field_of(const struct ev_fixcheck *c, uint32_t tag)
{
	if (tag < c->tracked)
		return c->seen[tag] == c->serial ? &c->msg.f[c->first_pos[tag]] : NULL;
	long i = ev_fix_find(&c->msg, tag, 0);
	return i < 0 ? NULL : &c->msg.f[i];
}

static int same(const struct ev_fix_field *f, const struct ev_fix_msg *m, const char *v, uint32_t len)
{
	if (f->len != len)
		return 0;
	const char *a = m->data + f->off;
	for (uint32_t i = 0; i < len; i++) /* values are short: no call */
		if (a[i] != v[i])
			return 0;
	return 1;
}

#endif
