/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/fix/fixrules.h"

static const char *const names[EV_RULE_COUNT] = {
	[EV_RULE_JOURNAL_COUNT] = "journal-count",
	[EV_RULE_JOURNAL_TAIL] = "journal-tail",
	[EV_RULE_JOURNAL_OVERRUN] = "journal-overrun",
	[EV_RULE_JOURNAL_ROTATION] = "journal-rotation",
	[EV_RULE_JOURNAL_SEND] = "journal-send",
	[EV_RULE_STREAM_FRAMING] = "stream-framing",
	[EV_RULE_STORE_INDEX] = "store-index",
	[EV_RULE_LOG_LINE] = "log-line",
	[EV_RULE_ENVELOPE_ORDER] = "envelope-order",
	[EV_RULE_BODY_LENGTH] = "body-length",
	[EV_RULE_CHECKSUM] = "checksum",
	[EV_RULE_FIELD_SYNTAX] = "field-syntax",
	[EV_RULE_UNKNOWN_MSGTYPE] = "unknown-msgtype",
	[EV_RULE_UNKNOWN_TAG] = "unknown-tag",
	[EV_RULE_TAG_NOT_IN_MESSAGE] = "tag-not-in-message",
	[EV_RULE_REQUIRED_FIELD] = "required-field",
	[EV_RULE_EMPTY_VALUE] = "empty-value",
	[EV_RULE_REPEATED_TAG] = "repeated-tag",
	[EV_RULE_HEADER_ORDER] = "header-order",
	[EV_RULE_ENUM_VALUE] = "enum-value",
	[EV_RULE_DATA_FORMAT] = "data-format",
	[EV_RULE_GROUP_COUNT] = "group-count",
	[EV_RULE_GROUP_DELIMITER] = "group-delimiter",
	[EV_RULE_GROUP_ORDER] = "group-order",
	[EV_RULE_COMPID] = "compid",
	[EV_RULE_SENDING_TIME] = "sending-time",
	[EV_RULE_SEQNUM] = "seqnum",
	[EV_RULE_SEQ_GAP] = "seq-gap",
	[EV_RULE_RESEND_REQUEST] = "resend-request",
	[EV_RULE_POSS_DUP] = "poss-dup",
	[EV_RULE_RESEND_CONTENT] = "resend-content",
	[EV_RULE_GAP_FILL] = "gap-fill",
	[EV_RULE_SEQ_RESET] = "seq-reset",
	[EV_RULE_TEST_REQUEST] = "test-request",
	[EV_RULE_SESSION_REJECT] = "session-reject",
	[EV_RULE_LOGOUT] = "logout",
	[EV_RULE_SPEC_MSGTYPE] = "spec-msgtype",
	[EV_RULE_SPEC_VALUE] = "spec-value",
	[EV_RULE_SPEC_GROUP] = "spec-group",
	[EV_RULE_OWNER_SEQUENCE] = "owner-sequence",
	[EV_RULE_ORDER_COUNT] = "order-count",
	[EV_RULE_ORDER_STATE] = "order-state",
	[EV_RULE_ORDER_QUANTITY] = "order-quantity",
	[EV_RULE_ORDER_AVGPX] = "order-avgpx",
	[EV_RULE_ORDER_UNANSWERED] = "order-unanswered",
	[EV_RULE_CROSS_AGREEMENT] = "cross-agreement",
};

const char *ev_fix_rule_name(enum ev_fix_rule rule)
{
	return (unsigned)rule < EV_RULE_COUNT && names[rule] ? names[rule] : "unknown-rule";
}
