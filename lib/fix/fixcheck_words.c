/* SPDX-License-Identifier: Apache-2.0 */
/* fixcheck_words: how a rule's hit is said: each rule's sentence, a
 * value as shown, the finding handed to the caller (fixcheck_parts.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/path.h"
#include "lib/fix/fixcheck_parts.h"
#include "lib/fix/fixformat.h"

static const char *sentence(enum ev_fix_rule rule)
{
	switch (rule) {
	case EV_RULE_ENVELOPE_ORDER: return "fields 8, 9 and 35 must come first and 10 last";
	case EV_RULE_BODY_LENGTH: return "BodyLength (9) is not the length of the body";
	case EV_RULE_CHECKSUM: return "CheckSum (10) is not the byte sum mod 256 in three digits";
	case EV_RULE_FIELD_SYNTAX: return "not a field of the form tag=value<SOH>";
	case EV_RULE_UNKNOWN_MSGTYPE: return "MsgType not in the dictionary";
	case EV_RULE_UNKNOWN_TAG: return "tag not in the dictionary";
	case EV_RULE_TAG_NOT_IN_MESSAGE: return "tag not defined for this message type";
	case EV_RULE_REQUIRED_FIELD: return "required field missing";
	case EV_RULE_EMPTY_VALUE: return "field without a value";
	case EV_RULE_REPEATED_TAG: return "tag appears more than once";
	case EV_RULE_HEADER_ORDER: return "header field after the body began";
	case EV_RULE_ENUM_VALUE: return "value not one of the field's enumerated values";
	case EV_RULE_DATA_FORMAT: return "value not in the field's data format";
	case EV_RULE_GROUP_COUNT: return "NumInGroup is not the number of instances";
	case EV_RULE_GROUP_DELIMITER: return "group instance does not start with its first field";
	case EV_RULE_GROUP_ORDER: return "group member out of dictionary order";
	case EV_RULE_COMPID: return "SenderCompID/TargetCompID changed within one direction";
	case EV_RULE_SENDING_TIME: return "SendingTime (52) went back";
	case EV_RULE_SEQNUM: return "MsgSeqNum is not the next number";
	case EV_RULE_SEQ_GAP: return "a gap in MsgSeqNum never filled";
	case EV_RULE_SPEC_MSGTYPE: return "a message type the spec does not allow";
	case EV_RULE_SPEC_VALUE: return "order field differs from the spec";
	case EV_RULE_SPEC_GROUP: return "repeating group differs from the spec";
	case EV_RULE_OWNER_SEQUENCE: return "owner value (ClOrdID) is not the next number";
	case EV_RULE_ORDER_COUNT: return "orders found differ from warmups + measured";
	case EV_RULE_ORDER_STATE: return "an answer the order state matrices do not allow";
	case EV_RULE_ORDER_QUANTITY: return "order quantities do not add up";
	case EV_RULE_ORDER_AVGPX: return "AvgPx is not the fills' average price";
	case EV_RULE_ORDER_UNANSWERED: return "an order never answered";
	default: return "finding";
	}
}

/* A value as it may be shown: every byte outside printable ASCII as \xHH. */
static void ev_fixcheck_show(const char *v, uint32_t len, char *out, size_t cap)
{
	ev_path_quote_bytes(v, len, out, cap);
}

/* Count a finding; format and hand over the first max_per_rule. */
static void ev_fixcheck_report(struct ev_fixcheck *c, enum ev_fix_rule rule, uint32_t tag, uint32_t at,
		   const char *message, const char *expected, const char *found)
{
	uint64_t n = ++c->st.by_rule[rule];
	if (c->o.max_per_rule && n > c->o.max_per_rule)
		return;
	struct ev_fix_finding f = {.rule = rule, .side = c->o.side, .tag = tag};
	snprintf(f.message, sizeof f.message, "%s", message ? message : sentence(rule));
	if (c->rec) {
		f.file = c->rec->file;
		f.record = c->rec->record;
		f.offset = c->rec->offset + (at == NO_OFFSET ? 0 : at);
	}
	snprintf(f.expected, sizeof f.expected, "%s", expected ? expected : "");
	snprintf(f.found, sizeof f.found, "%s", found ? found : "");
	c->fn(c->ctx, &f);
}

/* The same, with the field's value as what was found. */
static void ev_fixcheck_report_field(struct ev_fixcheck *c, enum ev_fix_rule rule, uint32_t i,
			 const char *expected)
{
	const struct ev_fix_field *f = &c->msg.f[i];
	char found[EV_FIX_VALUE_MAX];
	int n = snprintf(found, sizeof found, "%u=", f->tag);
	ev_fixcheck_show(ev_fix_value(&c->msg, i), f->len, found + n, sizeof found - (size_t)n);
	ev_fixcheck_report(c, rule, f->tag, f->off, NULL, expected, found);
}
