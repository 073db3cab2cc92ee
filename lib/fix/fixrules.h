/* SPDX-License-Identifier: Apache-2.0 */
/* fixrules: the named rules audit journal applies, one stable name each.
 *
 * Every rule is on by default; a finding always carries its rule. The names
 * appear in receipts (a check per rule) and in messages, and are listed in
 * doc/formats.md; they never change meaning. Grouped by where they come
 * from: the reader of the journal, the FIX envelope, the data dictionary,
 * the session, the expectation spec, and the comparison of two endpoints.
 * Pure data; no state.
 */
#ifndef EV_FIXRULES_H
#define EV_FIXRULES_H

enum ev_fix_rule {
	/* readers: damage a journal shows by itself */
	EV_RULE_JOURNAL_COUNT,    /* the count header disagrees with the records */
	EV_RULE_JOURNAL_TAIL,     /* nonzero bytes after the last committed record */
	EV_RULE_JOURNAL_OVERRUN,  /* a record runs past the end of its file */
	EV_RULE_JOURNAL_ROTATION, /* numbered files missing (1.bin, 3.bin) or unreadable */
	EV_RULE_JOURNAL_SEND,     /* a record says its send() failed */
	EV_RULE_STREAM_FRAMING,   /* bytes between messages that start none, a cut message */
	EV_RULE_STORE_INDEX,      /* a QuickFIX .header record disagrees with .body */
	EV_RULE_LOG_LINE,         /* a QuickFIX log line of another shape */
	/* envelope */
	EV_RULE_ENVELOPE_ORDER, /* 8, 9, 35 first; 10 last */
	EV_RULE_BODY_LENGTH,
	EV_RULE_CHECKSUM,        /* 10= three digits, the byte sum mod 256 */
	EV_RULE_FIELD_SYNTAX,    /* tag=value<SOH>, tag digits without a leading zero */
	/* data dictionary */
	EV_RULE_UNKNOWN_MSGTYPE,
	EV_RULE_UNKNOWN_TAG,
	EV_RULE_TAG_NOT_IN_MESSAGE,
	EV_RULE_REQUIRED_FIELD,
	EV_RULE_EMPTY_VALUE,
	EV_RULE_REPEATED_TAG,
	EV_RULE_HEADER_ORDER,    /* a header field after the body began */
	EV_RULE_ENUM_VALUE,
	EV_RULE_DATA_FORMAT,
	EV_RULE_GROUP_COUNT,     /* NumInGroup differs from the instances */
	EV_RULE_GROUP_DELIMITER, /* an instance that does not start with its first field */
	EV_RULE_GROUP_ORDER,     /* members out of dictionary order */
	/* session */
	EV_RULE_COMPID,          /* SenderCompID/TargetCompID fixed per direction */
	EV_RULE_SENDING_TIME,    /* SendingTime never goes back */
	EV_RULE_SEQNUM,          /* a MsgSeqNum: present, never lower than expected without 43=Y */
	EV_RULE_SEQ_GAP,         /* every gap filled (resends, GapFill) */
	EV_RULE_RESEND_REQUEST,  /* a gap filled was asked for by the peer */
	EV_RULE_POSS_DUP,        /* a resend: 43=Y, 122 no later than 52; session messages gap-filled */
	EV_RULE_RESEND_CONTENT,  /* a resend equals its original but for 43, 97, 122, 52, 9, 10 */
	EV_RULE_GAP_FILL,        /* GapFill forward only, over session messages only */
	EV_RULE_SEQ_RESET,       /* 141=Y Logon at 1; SequenceReset-Reset never lowers */
	EV_RULE_TEST_REQUEST,    /* TestRequest answered by a Heartbeat echoing 112 */
	EV_RULE_SESSION_REJECT,  /* a Reject names a MsgSeqNum that was sent */
	EV_RULE_LOGOUT,          /* nothing new after a side's Logout before its next Logon */
	/* expectation spec */
	EV_RULE_SPEC_MSGTYPE,    /* a message type the spec does not allow */
	EV_RULE_SPEC_VALUE,      /* a required tag with another value or shape */
	EV_RULE_SPEC_GROUP,      /* a repeating group with other instances */
	EV_RULE_OWNER_SEQUENCE,  /* the owner tag (ClOrdID) contiguous from its first value */
	EV_RULE_ORDER_COUNT,     /* warmups + measured orders */
	/* application layer: orders and their ExecutionReports (fixorders.h) */
	EV_RULE_ORDER_STATE,     /* each report answers an order sent, by the state matrices */
	EV_RULE_ORDER_QUANTITY,  /* CumQty + LeavesQty = OrderQty; fills add up; OrdStatus agrees */
	EV_RULE_ORDER_AVGPX,     /* AvgPx is the fills' average price */
	EV_RULE_ORDER_UNANSWERED, /* every order answered (when the spec says so) */
	/* two endpoints */
	EV_RULE_CROSS_AGREEMENT, /* sender's and receiver's orders byte for byte */
	EV_RULE_COUNT
};

/* The stable name ("checksum", "group-order", ...) of a rule. */
const char *ev_fix_rule_name(enum ev_fix_rule rule);

#endif
