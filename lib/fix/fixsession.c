/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/fix/fixsession.h"
#include "lib/core/grow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/path.h"

#define HOLES_MAX 65536      /* gaps open at once; more is reported, not tracked */
#define REQUESTS_MAX 64      /* ResendRequests remembered (the latest) */
#define TEST_REQUESTS_MAX 16 /* TestRequests open per direction */
#define ORIGINALS_SLACK (1u << 16) /* numbers kept beyond 4 per message read */
#define ORIGINALS_FIRST 256         /* the first allocation: a short journal stays small */
#define INFINITE_END UINT64_MAX
/* FIX 4.2 and earlier ask "to infinity" with 999999 (4.2 Vol. 2, ResendRequest) */
#define FIX42_INFINITY 999999

struct hole {
	uint64_t from, to;
	struct ev_fix_record opened; /* where the gap was seen (msg not kept) */
	int filling;                 /* a resend or gap fill went into it */
};

struct original {
	uint64_t invariant, orig_ns; /* invariant 0: not held */
};

struct test_request {
	char id[EV_FIXSESSION_ID_MAX];
	uint32_t len;
	uint64_t seq;
	uint64_t heartbeats_after; /* Heartbeats of the answering direction since */
	struct ev_fix_record at;
};

/* Open TestRequests of one direction, answered by the other. */
struct asked {
	struct test_request v[TEST_REQUESTS_MAX];
	size_t n;
};

struct ev_fixsession {
	ev_fixsession_report_fn report;
	void *ctx;
	struct ev_fixsession_facts facts;
	int started;
	uint64_t next, top; /* the frontier; one past the highest number accounted for */
	struct hole *holes; /* sorted, disjoint, all in [next, top): hbase + hfirst */
	size_t nholes;
	struct hole *hbase; /* the allocation; filled holes leave from its front */
	size_t hfirst, halloc;
	int holes_overflow;
	struct { uint64_t from, to; } requests[REQUESTS_MAX];
	size_t nrequests;
	uint64_t base; /* numbering of originals: number - base */
	struct original *orig;
	size_t orig_cap;
	size_t orig_len; /* [0, orig_len) written (zeros where nothing was kept); the rest never touched */
	uint64_t messages;
	int no_originals;
	int logged_out;
	uint64_t peer_top;
	struct asked mine, peers; /* TestRequests this side sent; the peer sent */
};

static void say(struct ev_fixsession *s, enum ev_fix_rule rule, const struct ev_fix_record *where, uint32_t tag,
		const char *message, const char *expected, const char *found)
{
	s->report(s->ctx, rule, where, tag, message, expected, found);
}

static void add_range(struct ev_fixsession_ranges *r, uint64_t from, uint64_t to, uint64_t by_peer, int coalesce)
{
	r->messages += to >= from ? to - from + 1 : 1;
	if (coalesce && r->n && r->v[r->n - 1].to + 1 == from && r->v[r->n - 1].by_peer == by_peer) {
		r->v[r->n - 1].to = to;
		return;
	}
	r->count++;
	if (r->n < EV_FIXSESSION_RANGES_MAX)
		r->v[r->n++] = (struct ev_fixsession_range){from, to, by_peer};
}

ev_status ev_fixsession_new(struct ev_fixsession **out, uint64_t first, int peer_visible,
			    ev_fixsession_report_fn report, void *ctx, struct ev_error *err)
{
	struct ev_fixsession *s = calloc(1, sizeof *s);
	if (!s)
		return ev_error_set(err, EV_ERROR, "out of memory");
	s->report = report;
	s->ctx = ctx;
	s->facts.peer_visible = peer_visible;
	if (first) {
		s->started = 1;
		s->next = s->top = s->base = first;
	}
	*out = s;
	return EV_OK;
}

void ev_fixsession_free(struct ev_fixsession *s)
{
	if (!s)
		return;
	free(s->hbase);
	free(s->orig);
	free(s);
}

void ev_fixsession_keep_originals(struct ev_fixsession *s, int keep)
{
	s->no_originals = !keep;
}

uint64_t ev_fixsession_frontier(const struct ev_fixsession *s)
{
	return s->next;
}

uint64_t ev_fixsession_next_new(const struct ev_fixsession *s)
{
	return s->started ? s->top : 1;
}

const struct ev_fixsession_facts *ev_fixsession_facts(const struct ev_fixsession *s)
{
	return &s->facts;
}

static struct original *original_of(struct ev_fixsession *s, uint64_t seq)
{
	if (seq < s->base || seq - s->base >= s->orig_len)
		return NULL;
	return &s->orig[seq - s->base];
}

/* Keep the first copy of a number, while the numbers stay near the
 * messages read: a hostile jump to 10^18 is a gap, not an allocation. */
static void keep_original(struct ev_fixsession *s, const struct ev_fixsession_msg *m)
{
	if (m->seq < s->base || s->no_originals)
		return;
	uint64_t at = m->seq - s->base;
	if (at >= s->orig_cap) {
		uint64_t limit = 4 * s->messages + ORIGINALS_SLACK;
		if (at >= limit)
			return;
		size_t cap = s->orig_cap ? s->orig_cap : ORIGINALS_FIRST;
		while (cap <= at)
			cap *= 2;
		struct original *o = ev_grow(s->orig, cap * sizeof *o);
		if (!o)
			return;
		s->orig = o;
		s->orig_cap = cap;
	}
	/* numbers skipped since the last kept: nothing kept for them (in
	 * order there are none, and memory is touched once, here) */
	if (at > s->orig_len)
		memset(s->orig + s->orig_len, 0, (at - s->orig_len) * sizeof *s->orig);
	if (at >= s->orig_len)
		s->orig_len = at + 1;
	s->orig[at].invariant = m->invariant ? m->invariant : 1;
	s->orig[at].orig_ns = m->poss_dup && m->has_orig ? m->orig_ns : m->has_sending ? m->sending_ns : 0;
}

static void restart_numbers(struct ev_fixsession *s, uint64_t next)
{
	s->next = s->top = s->base = next;
	s->nholes = s->hfirst = 0;
	s->holes = s->hbase;
	s->orig_len = 0; /* nothing kept under the new numbers */
}

static int requested(const struct ev_fixsession *s, uint64_t from, uint64_t to)
{
	for (size_t i = 0; i < s->nrequests; i++)
		if (s->requests[i].from <= from && s->requests[i].to >= to)
			return 1;
	return 0;
}

/* Room for one more hole at the end: the space filled holes left at the
 * front first, then a bigger allocation. @return 0 when out of memory. */
static int room_for_one(struct ev_fixsession *s)
{
	if (s->hfirst + s->nholes < s->halloc)
		return 1;
	if (s->hfirst) {
		memmove(s->hbase, s->holes, s->nholes * sizeof *s->holes);
		s->hfirst = 0;
		s->holes = s->hbase;
		return 1;
	}
	if (ev_grow_array(&s->hbase, &s->halloc, s->halloc + 1, sizeof *s->hbase) != 0)
		return 0;
	s->holes = s->hbase;
	return 1;
}

/* The first hole that ends at or after seq. */
static size_t first_hole_from(const struct ev_fixsession *s, uint64_t seq)
{
	size_t lo = 0, hi = s->nholes;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (s->holes[mid].to < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void open_hole(struct ev_fixsession *s, uint64_t from, uint64_t to, const struct ev_fix_record *at)
{
	add_range(&s->facts.gaps, from, to, 0, 0);
	if (s->nholes >= HOLES_MAX) {
		if (!s->holes_overflow++)
			say(s, EV_RULE_SEQ_GAP, at, 34, "more gaps open at once than are tracked: later gaps are counted, not followed",
			    "at most 65536", "more");
		return;
	}
	if (!room_for_one(s))
		return;
	struct ev_fix_record where = {.file = at->file, .record = at->record, .offset = at->offset,
				      .file_index = at->file_index};
	s->holes[s->nholes++] = (struct hole){from, to, where, 0};
}

static void gap_name(char *out, size_t cap, uint64_t from, uint64_t to)
{
	if (from == to)
		snprintf(out, cap, "MsgSeqNum %llu", (unsigned long long)from);
	else
		snprintf(out, cap, "MsgSeqNum %llu..%llu", (unsigned long long)from, (unsigned long long)to);
}

/* The first resend or gap fill into a hole: with the peer in the copy,
 * a ResendRequest must have asked for it. */
static void first_fill(struct ev_fixsession *s, struct hole *h, const struct ev_fix_record *at)
{
	if (h->filling)
		return;
	h->filling = 1;
	if (s->facts.peer_visible && !requested(s, h->from, h->to)) {
		char want[96];
		snprintf(want, sizeof want, "a ResendRequest from the peer for %llu..%llu",
			 (unsigned long long)h->from, (unsigned long long)h->to);
		say(s, EV_RULE_RESEND_REQUEST, at, 34, "a gap filled that the peer never asked for (ResendRequest)",
		    want, "none in this copy");
	}
}

/* Account for the numbers from..to: fill the holes they meet, move top
 * and the frontier. @return whether any number was new here. */
static int account(struct ev_fixsession *s, uint64_t from, uint64_t to, const struct ev_fix_record *at)
{
	int fresh = 0;
	for (size_t i = first_hole_from(s, from); i < s->nholes && s->holes[i].from <= to;) {
		struct hole *h = &s->holes[i];
		fresh = 1;
		first_fill(s, h, at);
		if (from <= h->from && to >= h->to) { /* the whole hole */
			if (i == 0) { /* the usual case: filled in order, from the front */
				s->holes++;
				s->hfirst++;
			} else {
				memmove(h, h + 1, (s->nholes - i - 1) * sizeof *h);
			}
			s->nholes--;
			continue;
		}
		if (from > h->from && to < h->to) { /* its middle: split it */
			if (s->nholes >= HOLES_MAX || !room_for_one(s)) { /* no room: count it filled */
				s->holes[i].to = from - 1;
				i++;
				continue;
			}
			h = &s->holes[i]; /* room_for_one may have moved them */
			memmove(h + 2, h + 1, (s->nholes - i - 1) * sizeof *h);
			s->nholes++;
			h[1] = h[0];
			h[0].to = from - 1;
			h[1].from = to + 1;
			i += 2;
			continue;
		}
		if (from <= h->from)
			h->from = to + 1;
		else
			h->to = from - 1;
		i++;
	}
	if (to >= s->top) {
		fresh = 1;
		s->top = to + 1;
	}
	s->next = s->nholes ? s->holes[0].from : s->top;
	return fresh;
}

static void test_request_asked(struct asked *a, const struct ev_fixsession_msg *m)
{
	if (a->n == TEST_REQUESTS_MAX)
		memmove(a->v, a->v + 1, --a->n * sizeof *a->v);
	struct test_request *t = &a->v[a->n++];
	memset(t, 0, sizeof *t);
	t->len = m->test_req_len < EV_FIXSESSION_ID_MAX ? m->test_req_len : EV_FIXSESSION_ID_MAX;
	memcpy(t->id, m->test_req_id, t->len);
	t->seq = m->seq;
	t->at = (struct ev_fix_record){.file = m->rec->file, .record = m->rec->record, .offset = m->rec->offset};
}

/* A Heartbeat of the direction that answers `a`. */
static void heartbeat(struct ev_fixsession *s, struct asked *a, const struct ev_fixsession_msg *m, int mine)
{
	if (!m->test_req_id) {
		for (size_t i = 0; i < a->n; i++)
			a->v[i].heartbeats_after++;
		return;
	}
	uint32_t len = m->test_req_len < EV_FIXSESSION_ID_MAX ? m->test_req_len : EV_FIXSESSION_ID_MAX;
	for (size_t i = 0; i < a->n; i++)
		if (a->v[i].len == len && memcmp(a->v[i].id, m->test_req_id, len) == 0) {
			s->facts.test_requests_answered++;
			memmove(&a->v[i], &a->v[i + 1], (a->n - i - 1) * sizeof *a->v);
			a->n--;
			return;
		}
	if (!s->facts.peer_visible)
		return; /* this side answers TestRequests this copy does not hold */
	char found[EV_FIXSESSION_ID_MAX * 4 + 8];
	int n = snprintf(found, sizeof found, "112=");
	ev_path_quote_bytes(m->test_req_id, len, found + n, sizeof found - (size_t)n);
	say(s, EV_RULE_TEST_REQUEST, m->rec, 112,
	    mine ? "a Heartbeat echoes a TestReqID the peer never sent in a TestRequest"
		 : "the peer's Heartbeat echoes a TestReqID this side never sent in a TestRequest",
	    "the TestReqID of an open TestRequest", found);
}

/* The connection ended (Logout, Logon, end of copy): TestRequests still
 * open were not answered. Not answering while sending Heartbeats is the
 * peer ignoring them; with none sent, the connection was lost, which is
 * what a TestRequest exists to find out. */
static void close_asked(struct ev_fixsession *s, struct asked *a, int asked_by_me)
{
	for (size_t i = 0; i < a->n; i++) {
		struct test_request *t = &a->v[i];
		add_range(&s->facts.unanswered, t->seq, t->seq, !asked_by_me, 0);
		if (t->heartbeats_after < 2)
			continue;
		char want[EV_FIXSESSION_ID_MAX * 4 + 40], got[64], id[EV_FIXSESSION_ID_MAX * 4];
		ev_path_quote_bytes(t->id, t->len, id, sizeof id);
		snprintf(want, sizeof want, "a Heartbeat with 112=%s", id);
		snprintf(got, sizeof got, "%llu Heartbeats without it", (unsigned long long)t->heartbeats_after);
		say(s, EV_RULE_TEST_REQUEST, &t->at, 112,
		    asked_by_me ? "a TestRequest the peer never answered, though it kept sending Heartbeats"
				: "a TestRequest of the peer this side never answered, though it kept sending Heartbeats",
		    want, got);
	}
	a->n = 0;
}

static void connection_ended(struct ev_fixsession *s)
{
	if (!s->facts.peer_visible)
		return;
	close_asked(s, &s->mine, 1);
	close_asked(s, &s->peers, 0);
}

static void check_resent(struct ev_fixsession *s, const struct ev_fixsession_msg *m)
{
	char want[64], got[64];
	if (!m->has_orig) {
		say(s, EV_RULE_POSS_DUP, m->rec, 122, "a resend (PossDupFlag 43=Y) without OrigSendingTime (122)",
		    "122=the original's SendingTime", "nothing");
	} else if (m->has_sending && m->orig_ns > m->sending_ns) {
		snprintf(want, sizeof want, "at or before its SendingTime %llu.%09llu",
			 (unsigned long long)(m->sending_ns / 1000000000), (unsigned long long)(m->sending_ns % 1000000000));
		snprintf(got, sizeof got, "%llu.%09llu", (unsigned long long)(m->orig_ns / 1000000000),
			 (unsigned long long)(m->orig_ns % 1000000000));
		say(s, EV_RULE_POSS_DUP, m->rec, 122, "OrigSendingTime (122) later than SendingTime (52)", want, got);
	}
	if (m->admin && m->admin != '3' && m->admin != '4')
		say(s, EV_RULE_POSS_DUP, m->rec, 35,
		    "a session-level message resent: it must be replaced by a SequenceReset-GapFill",
		    "35=4 with 123=Y", "a resent session-level message");
}

/* A duplicate with 43=Y against the first copy of its number here. */
static void check_duplicate(struct ev_fixsession *s, const struct ev_fixsession_msg *m)
{
	const struct original *o = original_of(s, m->seq);
	if (!o || !o->invariant || m->gap_fill || !m->invariant)
		return;
	char want[64], got[64];
	if ((m->invariant ? m->invariant : 1) != o->invariant)
		say(s, EV_RULE_RESEND_CONTENT, m->rec, 0,
		    "a resend differs from the first copy of its MsgSeqNum here in a field other than 43, 97, 122, 52, 9 and 10",
		    "the fields of the first copy", "another field or value");
	else if (m->has_orig && o->orig_ns && m->orig_ns != o->orig_ns) {
		snprintf(want, sizeof want, "%llu.%09llu (the first copy's SendingTime)",
			 (unsigned long long)(o->orig_ns / 1000000000), (unsigned long long)(o->orig_ns % 1000000000));
		snprintf(got, sizeof got, "%llu.%09llu", (unsigned long long)(m->orig_ns / 1000000000),
			 (unsigned long long)(m->orig_ns % 1000000000));
		say(s, EV_RULE_RESEND_CONTENT, m->rec, 122, "OrigSendingTime (122) is not the SendingTime the message was first sent with",
		    want, got);
	}
}

static void lower_without_poss_dup(struct ev_fixsession *s, const struct ev_fixsession_msg *m)
{
	char want[80], got[32];
	snprintf(want, sizeof want, "%llu, or PossDupFlag 43=Y on a resend", (unsigned long long)s->top);
	snprintf(got, sizeof got, "%llu without 43=Y", (unsigned long long)m->seq);
	say(s, EV_RULE_SEQNUM, m->rec, 34, "MsgSeqNum lower than expected and not a possible duplicate (the session's fatal case)",
	    want, got);
}

static enum ev_fixsession_arrival reset_logon(struct ev_fixsession *s, const struct ev_fixsession_msg *m)
{
	char got[32], gap[64];
	if (m->seq != 1) {
		snprintf(got, sizeof got, "%llu", (unsigned long long)m->seq);
		say(s, EV_RULE_SEQ_RESET, m->rec, 34, "a Logon with ResetSeqNumFlag (141=Y) must carry MsgSeqNum 1", "1", got);
	}
	for (size_t i = 0; i < s->nholes; i++) {
		gap_name(gap, sizeof gap, s->holes[i].from, s->holes[i].to);
		say(s, EV_RULE_SEQ_GAP, &s->holes[i].opened, 34, "a gap never filled before the numbers were reset (141=Y)",
		    "resends or a GapFill", gap);
	}
	add_range(&s->facts.resets, s->started ? s->top : 0, m->seq, 1, 0);
	s->started = 1;
	restart_numbers(s, m->seq);
	account(s, m->seq, m->seq, m->rec);
	keep_original(s, m);
	return EV_FIXSESSION_CONTROL;
}

static enum ev_fixsession_arrival sequence_reset(struct ev_fixsession *s, const struct ev_fixsession_msg *m)
{
	char want[48], got[48];
	if (!m->has_new_seq) {
		say(s, EV_RULE_SEQ_RESET, m->rec, 36, "a SequenceReset without NewSeqNo (36)", "36=the next number", "nothing");
		return EV_FIXSESSION_CONTROL;
	}
	/* 4.4 Vol. 2 SequenceReset, Reset mode: MsgSeqNum is ignored and
	 * NewSeqNo may not lower the number expected */
	if (s->started && m->new_seq < s->top) {
		snprintf(want, sizeof want, "at least %llu", (unsigned long long)s->top);
		snprintf(got, sizeof got, "36=%llu", (unsigned long long)m->new_seq);
		say(s, EV_RULE_SEQ_RESET, m->rec, 36, "a SequenceReset-Reset lowers the sequence number", want, got);
		return EV_FIXSESSION_CONTROL;
	}
	add_range(&s->facts.resets, s->started ? s->top : 0, m->new_seq, 2, 0);
	s->started = 1;
	restart_numbers(s, m->new_seq);
	return EV_FIXSESSION_CONTROL;
}

enum ev_fixsession_arrival ev_fixsession_mine(struct ev_fixsession *s, const struct ev_fixsession_msg *m)
{
	s->messages++;
	if (m->admin == '4' && !m->gap_fill)
		return sequence_reset(s, m);
	if (!m->has_seq)
		return EV_FIXSESSION_UNNUMBERED;
	if (m->admin == 'A' && m->reset_flag) {
		connection_ended(s);
		s->logged_out = 0;
		return reset_logon(s, m);
	}
	if (!s->started) {
		s->started = 1;
		s->next = s->top = s->base = m->seq;
	}
	if (m->admin == 'A') {
		connection_ended(s);
		s->logged_out = 0;
	} else if (s->logged_out && m->admin != '5' && !m->poss_dup && m->admin != '4') {
		say(s, EV_RULE_LOGOUT, m->rec, 35, "a message after this side's Logout, before a new Logon",
		    "a Logon, or resends the peer asked for", "a new message");
	}
	if (m->poss_dup)
		check_resent(s, m);
	uint64_t from = m->seq, to = m->seq;
	if (m->gap_fill) {
		if (!m->has_new_seq || m->new_seq <= m->seq) {
			char want[48], got[48];
			snprintf(want, sizeof want, "36= more than 34=%llu", (unsigned long long)m->seq);
			if (m->has_new_seq)
				snprintf(got, sizeof got, "36=%llu", (unsigned long long)m->new_seq);
			else
				snprintf(got, sizeof got, "nothing");
			say(s, EV_RULE_GAP_FILL, m->rec, 36, "a SequenceReset-GapFill must move forward (NewSeqNo after its MsgSeqNum)",
			    want, got);
		} else {
			to = m->new_seq - 1;
		}
		add_range(&s->facts.gap_fills, from, to, 0, 0);
	}
	uint64_t frontier = s->next, top = s->top;
	size_t h = first_hole_from(s, from);
	int in_hole = h < s->nholes && s->holes[h].from <= from;
	if (from > top) {
		open_hole(s, top, from - 1, m->rec);
		/* a number above top: the frontier waits at the hole */
	}
	enum ev_fixsession_arrival arrival;
	if (from < top && !in_hole) {
		if (!m->poss_dup)
			lower_without_poss_dup(s, m);
		arrival = EV_FIXSESSION_DUPLICATE;
	} else if (in_hole) {
		if (!m->poss_dup && !m->gap_fill) {
			char want[48], got[48];
			snprintf(want, sizeof want, "43=Y on MsgSeqNum %llu", (unsigned long long)from);
			snprintf(got, sizeof got, "no PossDupFlag");
			say(s, EV_RULE_POSS_DUP, m->rec, 43, "a message filling a gap without PossDupFlag (43=Y): a resend must carry it",
			    want, got);
		}
		arrival = from == frontier ? EV_FIXSESSION_IN_ORDER : EV_FIXSESSION_FILL;
		if (m->poss_dup)
			arrival = EV_FIXSESSION_FILL;
	} else {
		arrival = from == frontier ? EV_FIXSESSION_IN_ORDER : EV_FIXSESSION_QUEUED;
	}
	if (arrival == EV_FIXSESSION_DUPLICATE) {
		if (m->gap_fill) {
			account(s, from, to, m->rec); /* the part of the range above may be new */
		} else {
			add_range(&s->facts.duplicates, from, from, 0, 1);
			if (m->poss_dup) /* without 43=Y the one finding is the fatal case */
				check_duplicate(s, m);
		}
	} else {
		account(s, from, to, m->rec);
		if (m->poss_dup && !m->gap_fill)
			add_range(&s->facts.resends, from, from, 0, 1);
		keep_original(s, m);
	}
	if (m->admin == '5')
		s->logged_out = 1;
	else if (m->admin == '1' && m->test_req_id && s->facts.peer_visible)
		test_request_asked(&s->mine, m);
	else if (m->admin == '0')
		heartbeat(s, &s->peers, m, 1);
	else if (m->admin == '3') {
		if (!m->has_ref_seq)
			say(s, EV_RULE_SESSION_REJECT, m->rec, 45, "a Reject without RefSeqNum (45)", "45=the rejected MsgSeqNum", "nothing");
		else if (s->facts.peer_visible && m->ref_seq >= s->peer_top) {
			char want[48], got[48];
			snprintf(want, sizeof want, "below %llu", (unsigned long long)s->peer_top);
			snprintf(got, sizeof got, "45=%llu", (unsigned long long)m->ref_seq);
			say(s, EV_RULE_SESSION_REJECT, m->rec, 45, "a Reject of a MsgSeqNum the peer has not sent in this copy", want, got);
		}
		if (m->has_ref_seq && arrival != EV_FIXSESSION_DUPLICATE)
			add_range(&s->facts.rejects, m->seq, m->ref_seq, 0, 0);
	}
	return arrival;
}

void ev_fixsession_peer(struct ev_fixsession *s, const struct ev_fixsession_msg *m)
{
	if (m->has_seq) {
		if (m->admin == 'A' && m->reset_flag)
			s->peer_top = m->seq + 1;
		else if (m->seq + 1 > s->peer_top && !m->poss_dup)
			s->peer_top = m->seq + 1;
	}
	switch (m->admin) {
	case '2': {
		if (!m->has_begin)
			return;
		uint64_t end = !m->has_end || m->end == 0 || m->end == FIX42_INFINITY ? INFINITE_END : m->end;
		if (s->nrequests == REQUESTS_MAX)
			memmove(s->requests, s->requests + 1, --s->nrequests * sizeof *s->requests);
		s->requests[s->nrequests].from = m->begin;
		s->requests[s->nrequests].to = end;
		s->nrequests++;
		add_range(&s->facts.resend_requests, m->begin, m->has_end ? m->end : 0, 0, 0);
		return;
	}
	case '1':
		if (m->test_req_id)
			test_request_asked(&s->peers, m);
		return;
	case '0':
		heartbeat(s, &s->mine, m, 0);
		return;
	case '3':
		if (!m->has_ref_seq)
			return;
		add_range(&s->facts.rejects, m->seq, m->ref_seq, 1, 0);
		if (m->ref_seq >= s->top && s->started) {
			char want[48], got[48];
			snprintf(want, sizeof want, "below %llu", (unsigned long long)s->top);
			snprintf(got, sizeof got, "45=%llu", (unsigned long long)m->ref_seq);
			say(s, EV_RULE_SESSION_REJECT, m->rec, 45, "the peer rejects a MsgSeqNum this side has not sent in this copy",
			    want, got);
		}
		return;
	case 'A':
	case '5':
		connection_ended(s);
		return;
	default:
		return;
	}
}

void ev_fixsession_finish(struct ev_fixsession *s)
{
	char gap[64];
	for (size_t i = 0; i < s->nholes; i++) {
		gap_name(gap, sizeof gap, s->holes[i].from, s->holes[i].to);
		say(s, EV_RULE_SEQ_GAP, &s->holes[i].opened, 34,
		    s->holes[i].filling ? "a gap only partly filled: these numbers never arrived (no resend, no GapFill)"
					: "a gap never filled: these numbers never arrived (no resend, no GapFill)",
		    "every MsgSeqNum, or a GapFill over it", gap);
	}
	connection_ended(s);
}
