/* SPDX-License-Identifier: Apache-2.0 */
/* fixcheck: every rule, for the stream of messages one endpoint persisted.
 *
 * A checker takes the records of one side (a sender's outgoing or a
 * receiver's incoming journal) in order and applies, to each message, the
 * envelope rules (fixmsg.h), the data dictionary's rules when there is a
 * dictionary (fixdict.h), CompIDs fixed and SendingTime never going back,
 * the session layer (fixsession.h: gaps, resends, gap fills, resets; a
 * log's other direction is read for what answers this one) and, with a
 * spec, the spec's rules for orders, whose ClOrdIDs are followed in the
 * order the application sees them; at the end, the order count. Readers hand their own
 * damage in too. Every finding is counted by rule; the first
 * `max_per_rule` of each are formatted and handed to the callback (0: all).
 *
 * Every message read (orders and session messages) is fingerprinted
 * (fingerprint.h): the first side of a pair records them, the second
 * compares against that set as it goes (fixcross.h), and ev_fixcheck_cross
 * reports the first disagreement and the messages only one side has.
 *
 * One checker per thread; the dictionary and spec are shared read-only.
 * The checker copies nothing it is handed but the few values it compares
 * later (CompIDs). free accepts NULL.
 */
#ifndef EV_FIXCHECK_H
#define EV_FIXCHECK_H

#include <stddef.h>
#include <stdint.h>

#include "lib/fix/fixcross.h"
#include "lib/fix/fixdict.h"
#include "lib/fix/fingerprint.h"
#include "lib/fix/fixlatency.h"
#include "lib/fix/fixorders.h"
#include "lib/fix/fixrules.h"
#include "lib/fix/fixsession.h"
#include "lib/fix/fixspec.h"
#include "lib/core/status.h"

struct ev_fix_finding {
	enum ev_fix_rule rule;
	const char *side;     /* "sender", "receiver", ... */
	const char *file;     /* may be NULL (a finding about the whole stream) */
	uint64_t record;      /* 0: none */
	uint64_t offset;      /* in the file */
	uint32_t tag;         /* 0: none */
	char message[EV_FIX_VALUE_MAX / 2];
	char expected[EV_FIX_VALUE_MAX], found[EV_FIX_VALUE_MAX];
};

typedef void (*ev_fix_finding_fn)(void *ctx, const struct ev_fix_finding *f);

enum ev_fingerprint_mode { EV_FINGERPRINT_NONE, EV_FINGERPRINT_RECORD, EV_FINGERPRINT_COMPARE };

struct ev_fixcheck_opts {
	const char *side;
	const struct ev_fixdict *dict;   /* NULL: no dictionary rules */
	const struct ev_fixspec *spec;   /* NULL: no spec rules, no order count */
	const char *sender_compid;       /* NULL, or keep only messages with this 49
					    (a log holding both directions) */
	unsigned max_per_rule;           /* findings handed over per rule; 0: all */
	enum ev_fingerprint_mode prints;
	const struct ev_fingerprint_key *key;
	struct ev_fingerprint_set *set;     /* RECORD: filled; COMPARE: the other side's, sorted */
	/* NULL, or where each message's stamp and SendingTime go
	 * (fixlatency.h): [0] the messages kept, [1] those sender_compid
	 * filtered out (the other direction of a log) */
	struct ev_fixlatency_stream *latency;
	/* Judge every message from its own bytes, without what the message
	 * before left (its layout, its verdicts, its fingerprint): slower,
	 * and the same findings, which a test holds the shortcuts to. */
	int judge_afresh;
	/* Keep no first copy of each MsgSeqNum (and give no key: no
	 * fingerprints): a duplicate is then counted but not held against
	 * its original. Right only for a copy whose session facts show no
	 * duplicates, and faster: audit journal judges a copy so first when
	 * the other may mirror it (lib/usecase/audit/journal/audit_journal_mirror.c), and again in
	 * full when it does not. */
	int without_originals;
};

struct ev_fixcheck_stats {
	uint64_t messages, orders, others, skipped; /* skipped: filtered out by CompID */
	uint64_t bytes;
	uint64_t by_rule[EV_RULE_COUNT];
	uint64_t compared, matched;                 /* COMPARE: messages looked up, equal */
	uint64_t resends_matched, gap_filled;       /* COMPARE: resends equal to their originals;
						       originals a GapFill stands for */
};

struct ev_fixcheck;

ev_status ev_fixcheck_new(struct ev_fixcheck **out, const struct ev_fixcheck_opts *opts,
			  ev_fix_finding_fn on_finding, void *ctx, struct ev_error *err);
void ev_fixcheck_free(struct ev_fixcheck *c);

/* One message. */
void ev_fixcheck_record(struct ev_fixcheck *c, const struct ev_fix_record *r);

/* A reader's own finding about the files (journal-count, ...). */
void ev_fixcheck_damage(struct ev_fixcheck *c, enum ev_fix_rule rule, const char *file,
			uint64_t record, uint64_t offset, const char *message,
			const char *expected, const char *found);

/* End of the stream: the order count. */
void ev_fixcheck_finish(struct ev_fixcheck *c);

const struct ev_fixcheck_stats *ev_fixcheck_stats(const struct ev_fixcheck *c);

/* What the session layer saw: gaps, resends, gap fills, resets, ... */
const struct ev_fixsession_facts *ev_fixcheck_session(const struct ev_fixcheck *c);

/* What the application layer saw (the spec's "orders", a copy holding
 * both directions), or NULL when it did not run. */
const struct ev_fixorders_facts *ev_fixcheck_orders(const struct ev_fixcheck *c);

/* After the second side (COMPARE) ended: report, under rule
 * cross-agreement, the first order whose bytes differ (both records shown,
 * the first side's re-read through reread when it can be), and the orders
 * each side lacks. first_name names the other side. */
void ev_fixcheck_cross(struct ev_fixcheck *c, const char *first_name,
		       const char *const *first_files, ev_fix_reread_fn reread, void *reread_ctx);

#endif
