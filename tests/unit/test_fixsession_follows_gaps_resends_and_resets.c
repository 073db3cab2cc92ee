/* SPDX-License-Identifier: Apache-2.0 */
/* fixsession: the session layer, fed message views directly. A gap
 * filled by resends and a GapFill after a ResendRequest is no finding and
 * each event is counted with its range; a resend of an earlier number with
 * 43=Y is a duplicate held against its first copy; the same without 43=Y
 * is the fatal case; a gap never filled is named where it was seen; and
 * hostile numbers (a jump to 2^63, a hundred thousand gaps) cost neither
 * memory nor time beyond the bounds the header promises. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "check.h"
#include "lib/fix/fixsession.h"

struct seen {
	unsigned n, by_rule[EV_RULE_COUNT];
	uint64_t last_record;
};

static void note(void *ctx, enum ev_fix_rule rule, const struct ev_fix_record *where, uint32_t tag,
		 const char *message, const char *expected, const char *found)
{
	(void)tag;
	(void)message;
	(void)expected;
	(void)found;
	struct seen *s = ctx;
	s->n++;
	s->by_rule[rule]++;
	s->last_record = where ? where->record : 0;
}

static struct ev_fix_record rec;

static struct ev_fixsession_msg msg(uint64_t seq, char admin)
{
	rec.record++;
	struct ev_fixsession_msg m = {.rec = &rec, .has_seq = 1, .seq = seq, .admin = admin,
				      .has_sending = 1, .sending_ns = 1000 + seq, .invariant = 7000 + seq};
	return m;
}

static struct ev_fixsession_msg resend(uint64_t seq)
{
	struct ev_fixsession_msg m = msg(seq, 0);
	m.poss_dup = 1;
	m.has_orig = 1;
	m.orig_ns = 1000 + seq;
	m.sending_ns = 5000;
	return m;
}

static struct ev_fixsession *session(int peer, struct seen *s)
{
	struct ev_fixsession *x = NULL;
	struct ev_error err;
	ev_error_clear(&err);
	memset(s, 0, sizeof *s);
	rec.record = 0;
	CHECK_INT_EQ(ev_fixsession_new(&x, 1, peer, note, s, &err), EV_OK);
	return x;
}

static void recovery_is_no_finding(void)
{
	struct seen s;
	struct ev_fixsession *x = session(1, &s);
	struct ev_fixsession_msg m;
	for (uint64_t n = 1; n <= 3; n++) {
		m = msg(n, n == 1 ? 'A' : 0);
		CHECK_INT_EQ(ev_fixsession_mine(x, &m), EV_FIXSESSION_IN_ORDER);
	}
	m = msg(7, 'A'); /* reconnect: 4..6 lost */
	CHECK_INT_EQ(ev_fixsession_mine(x, &m), EV_FIXSESSION_QUEUED);
	CHECK_INT_EQ(ev_fixsession_frontier(x), 4);
	m = msg(2, '2'); /* the peer asks: 4 to the end */
	m.has_begin = 1, m.begin = 4, m.has_end = 1, m.end = 0;
	ev_fixsession_peer(x, &m);
	m = msg(4, '4'); /* a Heartbeat at 4: gap-filled */
	m.gap_fill = 1, m.poss_dup = 1, m.has_orig = 1, m.orig_ns = m.sending_ns, m.has_new_seq = 1, m.new_seq = 5;
	CHECK_INT_EQ(ev_fixsession_mine(x, &m), EV_FIXSESSION_FILL);
	m = resend(5);
	CHECK_INT_EQ(ev_fixsession_mine(x, &m), EV_FIXSESSION_FILL);
	m = resend(6);
	CHECK_INT_EQ(ev_fixsession_mine(x, &m), EV_FIXSESSION_FILL);
	CHECK_INT_EQ(ev_fixsession_frontier(x), 8);
	m = resend(3); /* already here: a duplicate, equal to its first copy */
	CHECK_INT_EQ(ev_fixsession_mine(x, &m), EV_FIXSESSION_DUPLICATE);
	m = msg(8, 0);
	CHECK_INT_EQ(ev_fixsession_mine(x, &m), EV_FIXSESSION_IN_ORDER);
	ev_fixsession_finish(x);
	CHECK_INT_EQ(s.n, 0);
	const struct ev_fixsession_facts *f = ev_fixsession_facts(x);
	CHECK_INT_EQ(f->gaps.count, 1);
	CHECK(f->gaps.v[0].from == 4 && f->gaps.v[0].to == 6);
	CHECK_INT_EQ(f->resends.messages, 2);
	CHECK(f->resends.n == 1 && f->resends.v[0].from == 5 && f->resends.v[0].to == 6);
	CHECK_INT_EQ(f->duplicates.messages, 1);
	CHECK_INT_EQ(f->gap_fills.count, 1);
	CHECK_INT_EQ(f->resend_requests.count, 1);
	ev_fixsession_free(x);
}

static void broken_recoveries_are_named(void)
{
	struct seen s;
	struct ev_fixsession *x = session(1, &s);
	struct ev_fixsession_msg m;
	for (uint64_t n = 1; n <= 3; n++) {
		m = msg(n, 0);
		ev_fixsession_mine(x, &m);
	}
	m = msg(2, 0); /* 2 again without 43=Y */
	CHECK_INT_EQ(ev_fixsession_mine(x, &m), EV_FIXSESSION_DUPLICATE);
	CHECK_INT_EQ(s.by_rule[EV_RULE_SEQNUM], 1);
	m = resend(3); /* 43=Y, but another field than the first copy's */
	m.invariant = 1;
	ev_fixsession_mine(x, &m);
	CHECK_INT_EQ(s.by_rule[EV_RULE_RESEND_CONTENT], 1);
	m = resend(3); /* 122 later than 52 */
	m.orig_ns = m.sending_ns + 1;
	ev_fixsession_mine(x, &m);
	CHECK_INT_EQ(s.by_rule[EV_RULE_POSS_DUP], 1);
	m = msg(9, 0); /* 4..8 missing, and nobody asks */
	uint64_t seen_at = rec.record;
	ev_fixsession_mine(x, &m);
	m = resend(4); /* filled without a ResendRequest */
	ev_fixsession_mine(x, &m);
	CHECK_INT_EQ(s.by_rule[EV_RULE_RESEND_REQUEST], 1);
	m = msg(10, '4'); /* GapFill backwards */
	m.gap_fill = 1, m.poss_dup = 1, m.has_orig = 1, m.orig_ns = m.sending_ns, m.has_new_seq = 1, m.new_seq = 6;
	ev_fixsession_mine(x, &m);
	CHECK_INT_EQ(s.by_rule[EV_RULE_GAP_FILL], 1);
	ev_fixsession_finish(x);
	CHECK_INT_EQ(s.by_rule[EV_RULE_SEQ_GAP], 1); /* 5..8 */
	CHECK_INT_EQ(s.last_record, seen_at);
	ev_fixsession_free(x);

	x = session(0, &s); /* resets */
	m = msg(1, 'A');
	ev_fixsession_mine(x, &m);
	m = msg(5, 'A');
	m.reset_flag = 1;
	ev_fixsession_mine(x, &m);
	CHECK_INT_EQ(s.by_rule[EV_RULE_SEQ_RESET], 1);
	m = msg(1, '4'); /* SequenceReset-Reset, MsgSeqNum ignored */
	m.has_new_seq = 1, m.new_seq = 100;
	CHECK_INT_EQ(ev_fixsession_mine(x, &m), EV_FIXSESSION_CONTROL);
	m = msg(100, 0);
	CHECK_INT_EQ(ev_fixsession_mine(x, &m), EV_FIXSESSION_IN_ORDER);
	m = msg(1, '4');
	m.has_new_seq = 1, m.new_seq = 50; /* lowers */
	ev_fixsession_mine(x, &m);
	CHECK_INT_EQ(s.by_rule[EV_RULE_SEQ_RESET], 2);
	CHECK_INT_EQ(ev_fixsession_facts(x)->resets.count, 2);
	ev_fixsession_free(x);
}

static void hostile_numbers_stay_bounded(void)
{
	struct seen s;
	struct ev_fixsession *x = session(0, &s);
	struct ev_fixsession_msg m = msg(1, 0);
	ev_fixsession_mine(x, &m);
	m = msg(UINT64_MAX / 2, 0); /* a jump: one gap, no allocation of its size */
	CHECK_INT_EQ(ev_fixsession_mine(x, &m), EV_FIXSESSION_QUEUED);
	m = resend(UINT64_MAX / 2); /* a duplicate whose first copy was not kept */
	CHECK_INT_EQ(ev_fixsession_mine(x, &m), EV_FIXSESSION_DUPLICATE);
	ev_fixsession_finish(x);
	CHECK_INT_EQ(s.by_rule[EV_RULE_SEQ_GAP], 1);
	ev_fixsession_free(x);

	x = session(0, &s);
	for (uint64_t n = 1; n <= 200000; n++) { /* every other number: 100,000 gaps */
		m = msg(2 * n, 0);
		ev_fixsession_mine(x, &m);
	}
	ev_fixsession_finish(x);
	CHECK_INT_EQ(ev_fixsession_facts(x)->gaps.count, 200000);
	CHECK_INT_EQ(ev_fixsession_facts(x)->gaps.n, EV_FIXSESSION_RANGES_MAX);
	CHECK(s.by_rule[EV_RULE_SEQ_GAP] >= 65536 && s.by_rule[EV_RULE_SEQ_GAP] <= 65537);
	ev_fixsession_free(x);
}

int main(void)
{
	recovery_is_no_finding();
	broken_recoveries_are_named();
	hostile_numbers_stay_bounded();
	return check_exit("test_fixsession_follows_gaps_resends_and_resets");
}
