/* SPDX-License-Identifier: Apache-2.0 */
/* fixlatency: what a copy's own times say about its messages' latency.
 *
 * A copy that stamps its records (ev_fix_record.stamp_ns: an llfix
 * journal's record timestamp, a QuickFIX FileLog line's time) gives, per
 * direction, stamp - SendingTime(52) for each message: on the sending
 * endpoint's copy the time from stamping SendingTime to the send (one
 * clock), on the receiving endpoint's the one-way time plus the offset
 * between the two endpoints' clocks. Two copies of one direction give,
 * message by message (matched by MsgSeqNum within a numbering that a reset
 * restarts), the receiver's stamp - the sender's stamp.
 *
 * Resends (43=Y) are left out (their SendingTime is the resend's, and the
 * first copy is the one that measured the path) and counted; so are
 * messages without a stamp, a MsgSeqNum or a readable SendingTime.
 *
 * A resolution is stated, never assumed: the largest power of ten (1 ns to
 * 1 s) that divides every stamp, or every SendingTime, read (QuickFIX
 * prints nine digits of a microsecond clock; a SendingTime with three
 * digits is at 1 ms). Differences are signed: two clocks may disagree by
 * more than the path. Quantiles are exact, by a named rule (quantile.h).
 */
#ifndef EV_FIXLATENCY_H
#define EV_FIXLATENCY_H

#include <stddef.h>
#include <stdint.h>

#include "lib/stats/quantile.h"

#define EV_FIXLATENCY_COMPID_MAX 64

struct ev_fixlatency_point {
	uint64_t seq;
	uint64_t stamp_ns, sending_ns;
	uint32_t numbering; /* 0, then one more each time MsgSeqNum goes lower (a reset) */
};

/* One direction of one copy. Zero it to start; ev_fixlatency_stream_free. */
struct ev_fixlatency_stream {
	struct ev_fixlatency_point *v;
	size_t n, cap;
	uint64_t resends, unstamped, unnumbered, untimed; /* left out, by why */
	char from[EV_FIXLATENCY_COMPID_MAX], to[EV_FIXLATENCY_COMPID_MAX]; /* 49 and 56 of the first */
	uint32_t numbering;
	uint64_t last_seq;
	uint64_t stamp_resolution_ns, sending_resolution_ns; /* 0: nothing read yet */
	int oom;
};

/* One message of the direction (has_seq, has_sending: whether those were
 * read; from, to: its 49 and 56, may be NULL). */
void ev_fixlatency_add(struct ev_fixlatency_stream *s, int has_seq, uint64_t seq, uint64_t stamp_ns,
		       int has_sending, uint64_t sending_ns, int poss_dup, const char *from, uint32_t from_len,
		       const char *to, uint32_t to_len);

void ev_fixlatency_stream_free(struct ev_fixlatency_stream *s);

/* stamp - SendingTime of each message kept, in the order read: a malloc'd
 * array of s->n values (*out NULL when s->n is 0). @return 0, -1 when out of memory. */
int ev_fixlatency_deltas(const struct ev_fixlatency_stream *s, int64_t **out);

/* Message by message, later's stamp - earlier's stamp, for the messages
 * both copies hold (the first of each number in each copy): a malloc'd
 * array of *n values; *only_earlier and *only_later count the rest. The
 * streams' points are sorted by numbering and MsgSeqNum (their order is
 * changed). @return 0, -1 when out of memory. */
int ev_fixlatency_one_way(struct ev_fixlatency_stream *earlier, struct ev_fixlatency_stream *later,
			  int64_t **out, size_t *n, uint64_t *only_earlier, uint64_t *only_later);

#define EV_FIXLATENCY_QUANTILES 5 /* 50, 90, 99, 99.9, 99.99 percent */

struct ev_fixlatency_summary {
	uint64_t n;
	int64_t min, max;
	double mean;
	__int128 sum; /* exact: the mean is sum / n */
	double q[EV_FIXLATENCY_QUANTILES]; /* exact under the rule; whole ns but for linear */
};

/* The percentages summaries give ("50", "90", "99", "99.9", "99.99"). */
extern const char *const ev_fixlatency_percents[EV_FIXLATENCY_QUANTILES];

/* The summary of n values (n >= 1; v is reordered). @return 0, -1 when out of memory. */
int ev_fixlatency_summarize(int64_t *v, size_t n, enum ev_qrule rule, struct ev_fixlatency_summary *out);

/* The larger of two resolutions (what a difference of the two can show). */
uint64_t ev_fixlatency_coarser(uint64_t a, uint64_t b);

#endif
