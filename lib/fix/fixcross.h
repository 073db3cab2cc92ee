/* SPDX-License-Identifier: Apache-2.0 */
/* fixcross: the two copies of a session held against each other, message
 * by message, by fingerprint (lib/fix/fingerprint).
 *
 * The side read first records a fingerprint per message; the side read
 * second looks each of its messages up by MsgSeqNum (an identical twin
 * first, so that a MsgSeqNum used twice never pairs two identical
 * records with two different ones) and marks what it matched. The
 * comparison knows that one copy may keep originals (a QuickFIX store)
 * where the other has what the wire carried: a resend (43=Y) is held
 * against the original of its number in every field but 43, 97, 122, 52,
 * 9 and 10, and its OrigSendingTime against the original's SendingTime
 * (resend-content); a SequenceReset-GapFill stands for the session-level
 * messages of the numbers it covers, and covering an application message
 * means that message was never delivered (gap-fill). At the end the first
 * disagreement (both records shown), the messages the first side has and
 * this one lacks, and the messages only this one has are reported under
 * rule cross-agreement. fixcheck runs it for the second
 * side; it is apart from fixcheck's per-message rules because it is about
 * two journals, not one.
 *
 * One struct per compared side, owned by its fixcheck. No global state.
 */
#ifndef EV_FIXCROSS_H
#define EV_FIXCROSS_H

#include <stddef.h>
#include <stdint.h>

#include "lib/fix/fingerprint.h"
#include "lib/fix/fixmsg.h"
#include "lib/core/status.h"

/* Where a finding is: the record (NULL: the one being checked). */
typedef void (*ev_fixcross_report_fn)(void *ctx, enum ev_fix_rule rule, const struct ev_fix_record *where,
				      const char *message, const char *expected, const char *found);

/* What the comparison needs to know of this side's message beyond its
 * fingerprint. */
struct ev_fixcross_kind {
	int poss_dup, gap_fill;
	uint64_t new_seq; /* a GapFill's NewSeqNo (36) */
};

/* The record bytes of an order, for showing a disagreement: called with
 * the other side's file index, offset and length; fills buf (cap bytes)
 * and returns the length read, or -1 when they cannot be read again (an
 * archive streamed by). */
typedef long (*ev_fix_reread_fn)(void *ctx, uint32_t file, uint64_t offset, char *buf,
				 size_t cap);

struct ev_fixcross {
	const struct ev_fingerprint_set *set; /* the first side's, sorted */
	unsigned char *matched;               /* per fingerprint of set */
	int have_diff, diff_is_resend;
	struct ev_fingerprint diff_other;     /* the other side's record */
	struct ev_fix_record diff_at;         /* this side's */
	char *diff_mine;                      /* a copy of this side's message */
	uint32_t diff_mine_len;
	uint64_t compared, matched_count, differing, extra;
	uint64_t resends_matched, gap_filled;  /* held against originals; replaced by GapFills */
	uint64_t orig_differing, gap_over_app;
	uint64_t orig_seq, orig_want, orig_got, gap_app_seq;
	struct ev_fix_record orig_at, gap_at;
	uint64_t first_extra_seq, first_extra_record, first_extra_offset;
	const char *first_extra_file;
};

/* Compare against set (sorted by ev_fingerprint_sort). */
ev_status ev_fixcross_init(struct ev_fixcross *x, const struct ev_fingerprint_set *set, struct ev_error *err);
void ev_fixcross_free(struct ev_fixcross *x);

/* This side's message (msg, len bytes, MsgSeqNum seq, at r) against the
 * first side's, by its fingerprint p. */
void ev_fixcross_message(struct ev_fixcross *x, const struct ev_fingerprint *p, const struct ev_fixcross_kind *k,
			 const char *msg, uint32_t len, const struct ev_fix_record *r);

/* After this side's last message: the first disagreement, the messages
 * missing here and the extra ones, each to report. first_name names the
 * other side, first_files its files. */
void ev_fixcross_report(struct ev_fixcross *x, const char *first_name, const char *const *first_files,
			ev_fix_reread_fn reread, void *reread_ctx, ev_fixcross_report_fn report, void *ctx);

#endif
