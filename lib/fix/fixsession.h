/* SPDX-License-Identifier: Apache-2.0 */
/* fixsession: the FIX session layer over one copy of a session, as the
 * FIX session protocol (FIX 4.2 and 4.4 Volume 2 "Session Protocol",
 * FIXT.1.1) has a receiver judge it.
 *
 * One direction is audited ("this side": the messages of one
 * SenderCompID); the other direction's messages in the same copy ("the
 * peer": a QuickFIX message log holds both) are read for what answers
 * this side: ResendRequests, TestRequests, Heartbeats, Rejects, Logons
 * and Logouts. A copy without the peer (a store, an llfix journal) is
 * judged on what it holds and says what it could not check.
 *
 * Sequence numbers are tracked as a frontier (every number below it
 * arrived or was filled), the highest number seen, and the holes between:
 * a number above the highest opens a gap (a hole); a resend (PossDupFlag
 * 43=Y) or a SequenceReset-GapFill fills holes; a number already accounted
 * for is a duplicate, allowed with 43=Y and compared with the first copy
 * (every field but 43, 97, 122, 52, 9 and 10, through a hash the caller
 * computes, and OrigSendingTime against the first SendingTime), and the
 * protocol's fatal case without it. A Logon with ResetSeqNumFlag 141=Y
 * and SequenceReset-Reset restart the numbering. The rules and the section
 * of the specification each comes from are in doc/formats.md.
 *
 * Findings go to the report callback under their rule (fixrules.h); facts
 * (gaps, resend requests, resends, duplicates, gap fills, resets, rejects,
 * test requests, each with its MsgSeqNum range) are kept for the receipt.
 * Memory: 16 bytes per message of this side (the first copy of each
 * number, for duplicates; none when told not to keep them), the holes,
 * and a few bounded lists.
 * One session per thread; free accepts NULL.
 */
#ifndef EV_FIXSESSION_H
#define EV_FIXSESSION_H

#include <stddef.h>
#include <stdint.h>

#include "lib/fix/fixmsg.h"
#include "lib/fix/fixrules.h"
#include "lib/core/status.h"

#define EV_FIXSESSION_RANGES_MAX 32
#define EV_FIXSESSION_ID_MAX 64

/* What the session layer reads of a message; the caller parses it. */
struct ev_fixsession_msg {
	const struct ev_fix_record *rec;
	int has_seq;
	uint64_t seq;             /* MsgSeqNum (34, or the spec's sequence tag) */
	char admin;               /* the session-level MsgType (0 1 2 3 4 5 A), 0: application */
	int poss_dup, gap_fill, reset_flag; /* 43=Y, 123=Y, 141=Y */
	int has_new_seq, has_begin, has_end, has_ref_seq;
	uint64_t new_seq, begin, end, ref_seq; /* 36, 7, 16, 45 */
	const char *test_req_id;  /* 112, NULL when absent */
	uint32_t test_req_len;
	int has_sending, has_orig;
	uint64_t sending_ns, orig_ns; /* 52, 122: nanoseconds since 1970 */
	uint64_t invariant;       /* hash of every field but 43, 97, 122, 52, 9, 10; 0: none */
};

/* How a message of this side arrived. */
enum ev_fixsession_arrival {
	EV_FIXSESSION_IN_ORDER,  /* the number the frontier expected */
	EV_FIXSESSION_QUEUED,    /* above a hole: delivered when the hole is filled */
	EV_FIXSESSION_FILL,      /* into a hole (a resend) */
	EV_FIXSESSION_DUPLICATE, /* a number already accounted for */
	EV_FIXSESSION_CONTROL,   /* a SequenceReset or a reset Logon: moves the numbers */
	EV_FIXSESSION_UNNUMBERED /* no MsgSeqNum */
};

struct ev_fixsession_range {
	uint64_t from, to;
	uint64_t by_peer; /* resets: 1 Logon 141=Y, 2 SequenceReset-Reset;
			     rejects: 1 when the peer rejected this side's message */
};

struct ev_fixsession_ranges {
	uint64_t count;    /* events (gaps, requests, ...) */
	uint64_t messages; /* messages (or numbers) they cover */
	size_t n;          /* kept in v (the first EV_FIXSESSION_RANGES_MAX) */
	struct ev_fixsession_range v[EV_FIXSESSION_RANGES_MAX];
};

struct ev_fixsession_facts {
	int peer_visible;
	struct ev_fixsession_ranges gaps, resend_requests, resends, duplicates, gap_fills, resets,
		rejects, test_requests, unanswered;
	uint64_t test_requests_answered;
};

typedef void (*ev_fixsession_report_fn)(void *ctx, enum ev_fix_rule rule, const struct ev_fix_record *where,
					uint32_t tag, const char *message, const char *expected,
					const char *found);

struct ev_fixsession;

/* first: the MsgSeqNum the session starts at (0: the first message's).
 * peer_visible: the copy holds the other direction too. */
ev_status ev_fixsession_new(struct ev_fixsession **out, uint64_t first, int peer_visible,
			    ev_fixsession_report_fn report, void *ctx, struct ev_error *err);
void ev_fixsession_free(struct ev_fixsession *s);

/* Whether to keep the first copy of each number (default yes) for
 * duplicates: a copy held against another copy (fixcross) has each
 * duplicate compared there, with the other copy's original, and can do
 * without the 16 bytes a message. */
void ev_fixsession_keep_originals(struct ev_fixsession *s, int keep);

/* A message of this side. */
enum ev_fixsession_arrival ev_fixsession_mine(struct ev_fixsession *s, const struct ev_fixsession_msg *m);

/* A message of the other direction in the same copy. */
void ev_fixsession_peer(struct ev_fixsession *s, const struct ev_fixsession_msg *m);

/* Every number below it is accounted for: what the application has been
 * handed, in MsgSeqNum order. */
uint64_t ev_fixsession_frontier(const struct ev_fixsession *s);

/* The number a new message would carry next (one past the highest). */
uint64_t ev_fixsession_next_new(const struct ev_fixsession *s);

/* End of the copy: holes never filled, TestRequests left open. */
void ev_fixsession_finish(struct ev_fixsession *s);

const struct ev_fixsession_facts *ev_fixsession_facts(const struct ev_fixsession *s);

#endif
