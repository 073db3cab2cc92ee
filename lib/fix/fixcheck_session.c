/* SPDX-License-Identifier: Apache-2.0 */
/* fixcheck_session: the state across messages: the session layer's view
 * and rules, the owner tag in the order the application sees orders (held
 * above a gap), the orders followed through their reports, the latency
 * stamps (fixcheck_parts.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/grow.h"
#include "lib/core/path.h"
#include "lib/fix/fixcheck_parts.h"
#include "lib/fix/fixformat.h"

static void ev_fixcheck_session_rules(struct ev_fixcheck *c)
{
	const struct ev_fix_field *s = field_of(c, 49), *t = field_of(c, 56), *time = field_of(c, 52);
	/* 49 and 56 where they were, unchanged, and the first ones a message ago */
	int compids_hold = c->shape && c->compids_checked_at == c->record_no - 1 &&
			   c->compids_serial == c->serial && !(c->changed_session & CHANGED_COMPID);
	if (compids_hold) {
		c->compids_checked_at = c->record_no;
	} else if (s && t && s->len < COMPID_MAX && t->len < COMPID_MAX) {
		if (!c->have_compids) {
			memcpy(c->compid[0], c->msg.data + s->off, s->len);
			memcpy(c->compid[1], c->msg.data + t->off, t->len);
			c->compid_len[0] = s->len;
			c->compid_len[1] = t->len;
			c->have_compids = 1;
			c->compids_checked_at = c->record_no;
			c->compids_serial = c->serial;
		} else if (same(s, &c->msg, c->compid[0], c->compid_len[0]) &&
			   same(t, &c->msg, c->compid[1], c->compid_len[1])) {
			c->compids_checked_at = c->record_no;
			c->compids_serial = c->serial;
		} else {
			char want[2 * COMPID_MAX + 16], got[2 * EV_FIX_VALUE_MAX + 16], a[EV_FIX_VALUE_MAX],
				b[EV_FIX_VALUE_MAX];
			snprintf(want, sizeof want, "49=%.*s 56=%.*s", (int)c->compid_len[0], c->compid[0],
				 (int)c->compid_len[1], c->compid[1]);
			ev_fixcheck_show(c->msg.data + s->off, s->len, a, sizeof a);
			ev_fixcheck_show(c->msg.data + t->off, t->len, b, sizeof b);
			snprintf(got, sizeof got, "49=%s 56=%s", a, b);
			ev_fixcheck_report(c, EV_RULE_COMPID, 49, s->off, NULL, want, got);
		}
	}
	uint64_t secs;
	uint32_t ns;
	if (time && ev_fix_utc_timestamp_memo(&c->times[time - c->msg.f], c->msg.data + time->off,
					      time->len, &secs, &ns) == 0) {
		int back = c->have_time && (secs < c->last_secs || (secs == c->last_secs && ns < c->last_ns));
		/* A resend is stamped when the engine starts answering the
		 * ResendRequest, and may follow the GapFill it sent first: QuickFIX
		 * stamps its resent batch once, before the GapFill that precedes it
		 * on the wire. Its time is not the clock going back; what follows
		 * is held to the latest time seen. */
		const struct ev_fix_field *dup = field_of(c, 43);
		int resend = dup && dup->len == 1 && c->msg.data[dup->off] == 'Y';
		if (back && !resend) {
			char want[64];
			snprintf(want, sizeof want, "at or after %014llu.%09u", (unsigned long long)c->last_secs,
				 c->last_ns);
			ev_fixcheck_report_field(c, EV_RULE_SENDING_TIME, (uint32_t)(time - c->msg.f), want);
		}
		if (!back || !resend) {
			c->have_time = 1;
			c->last_secs = secs;
			c->last_ns = ns;
		}
		c->sending_read_at = c->record_no; /* the session layer reads it from here */
		c->sending_secs = secs;
		c->sending_nanos = ns;
	}
}

static int flag_y(const struct ev_fixcheck *c, uint32_t tag)
{
	const struct ev_fix_field *f = field_of(c, tag);
	return f && f->len == 1 && c->msg.data[f->off] == 'Y';
}

static int number_of(const struct ev_fixcheck *c, uint32_t tag, uint64_t *v)
{
	const struct ev_fix_field *f = field_of(c, tag);
	return f && ev_fix_parse_u64(c->msg.data + f->off, f->len, v) == 0;
}

static int time_of(struct ev_fixcheck *c, uint32_t tag, uint64_t *ns)
{
	uint64_t secs;
	uint32_t nanos;
	if (tag == 52 && c->sending_read_at == c->record_no) {
		secs = c->sending_secs;
		nanos = c->sending_nanos;
	} else {
		const struct ev_fix_field *f = field_of(c, tag);
		if (!f || ev_fix_utc_timestamp_memo(&c->times[f - c->msg.f], c->msg.data + f->off, f->len, &secs,
						    &nanos) != 0)
			return 0;
	}
	/* the date changes rarely: its nanoseconds since 1970 once a day */
	uint64_t day = secs / 1000000, in_day = secs % 1000000;
	if (day != c->day) {
		c->day = day;
		c->day_ns = ev_fix_timestamp_ns(day * 1000000, 0);
	}
	*ns = c->day_ns + ((in_day / 10000) * 3600 + (in_day / 100 % 100) * 60 + in_day % 100) * 1000000000ull + nanos;
	return 1;
}

/* What the session layer reads of this message, into c->view. */
static void ev_fixcheck_session_view(struct ev_fixcheck *c)
{
	struct ev_fixsession_msg *v = &c->view;
	/* An application message laid out as the one viewed just before, its
	 * MsgType and PossDupFlag unchanged: only the number and the times
	 * are read again (what a full read gives, the rest kept). */
	if (c->shape && !v->admin && c->viewed_at == c->record_no - 1 && c->viewed_serial == c->serial &&
	    !(c->changed_session & (CHANGED_MSGTYPE | CHANGED_POSSDUP))) {
		v->rec = c->rec;
		v->invariant = 0;
		v->seq = v->sending_ns = v->orig_ns = 0;
		v->has_seq = number_of(c, c->o.spec ? c->o.spec->sequence_tag : 34, &v->seq);
		v->has_sending = time_of(c, 52, &v->sending_ns);
		v->has_orig = v->poss_dup && time_of(c, 122, &v->orig_ns);
		c->viewed_at = c->record_no;
		return;
	}
	c->viewed_at = c->record_no;
	c->viewed_serial = c->serial;
	memset(v, 0, sizeof *v);
	v->rec = c->rec;
	v->has_seq = number_of(c, c->o.spec ? c->o.spec->sequence_tag : 34, &v->seq);
	const struct ev_fix_field *t = field_of(c, 35);
	if (t && t->len == 1 && strchr("012345A", c->msg.data[t->off]) && c->msg.data[t->off])
		v->admin = c->msg.data[t->off];
	v->poss_dup = flag_y(c, 43);
	if (v->admin) { /* the session-level fields only a session-level message carries */
		if (v->admin == '4')
			v->gap_fill = flag_y(c, 123);
		if (v->admin == 'A')
			v->reset_flag = flag_y(c, 141);
		v->has_new_seq = number_of(c, 36, &v->new_seq);
		v->has_begin = number_of(c, 7, &v->begin);
		v->has_end = number_of(c, 16, &v->end);
		v->has_ref_seq = number_of(c, 45, &v->ref_seq);
		const struct ev_fix_field *id = field_of(c, 112);
		if (id) {
			v->test_req_id = c->msg.data + id->off;
			v->test_req_len = id->len;
		}
	}
	v->has_sending = time_of(c, 52, &v->sending_ns);
	if (v->poss_dup)
		v->has_orig = time_of(c, 122, &v->orig_ns);
}

static void ev_fixcheck_note_latency(struct ev_fixcheck *c, struct ev_fixlatency_stream *l, const struct ev_fix_record *r)
{
	const struct ev_fixsession_msg *v = &c->view;
	const struct ev_fix_field *from = field_of(c, 49), *to = field_of(c, 56);
	ev_fixlatency_add(l, v->has_seq, v->seq, r->stamp_ns, v->has_sending, v->sending_ns, v->poss_dup,
			  from ? c->msg.data + from->off : NULL, from ? from->len : 0,
			  to ? c->msg.data + to->off : NULL, to ? to->len : 0);
}

static void text_of(const struct ev_fixcheck *c, uint32_t tag, struct ev_fixorders_text *t)
{
	const struct ev_fix_field *f = field_of(c, tag);
	t->v = f ? c->msg.data + f->off : NULL;
	t->len = f ? f->len : 0;
}

static void decimal_of(const struct ev_fixcheck *c, uint32_t tag, struct ev_fixorders_number *n)
{
	const struct ev_fix_field *f = field_of(c, tag);
	memset(n, 0, sizeof *n);
	if (!f)
		return;
	n->present = 1;
	const char *v = c->msg.data + f->off;
	if (f->len == 0 || f->len > 40 || !ev_fix_format_ok(EV_FIX_T_FLOAT, v, f->len))
		return;
	/* a price may carry more places than a quantity needs (AvgPx as a
	 * double prints them): read, not exact */
	n->exact = ev_fixorders_quantity(v, f->len, &n->units) == 0;
	char text[48];
	memcpy(text, v, f->len);
	text[f->len] = 0;
	n->value = strtod(text, NULL);
	const char *dot = memchr(v, '.', f->len);
	n->decimals = dot ? (int)(f->len - (uint32_t)(dot - v) - 1) : 0;
	n->ok = 1;
}

static char char_of(const struct ev_fixcheck *c, uint32_t tag)
{
	const struct ev_fix_field *f = field_of(c, tag);
	return f && f->len == 1 ? c->msg.data[f->off] : 0;
}

/* A request of this copy (D, F, G) or an answer of the peer (8, 9), for
 * the application layer. */
static void ev_fixcheck_follow_order(struct ev_fixcheck *c, const struct ev_fix_record *r, int peer)
{
	char type = char_of(c, 35);
	if (peer ? type != '8' && type != '9' : type != 'D' && type != 'F' && type != 'G')
		return;
	struct ev_fixorders_msg m = {.type = type, .poss_dup = c->view.poss_dup,
				     .exec_type = char_of(c, 150), .ord_status = char_of(c, 39)};
	text_of(c, 11, &m.clordid);
	text_of(c, 41, &m.orig_clordid);
	text_of(c, 17, &m.exec_id);
	decimal_of(c, 38, &m.order_qty);
	decimal_of(c, 14, &m.cum_qty);
	decimal_of(c, 151, &m.leaves_qty);
	decimal_of(c, 32, &m.last_qty);
	decimal_of(c, 31, &m.last_px);
	decimal_of(c, 6, &m.avg_px);
	if (peer)
		ev_fixorders_answer(c->orders, &m, r);
	else
		ev_fixorders_request(c->orders, &m, r);
}

/* The owner value (ClOrdID) of this order, judged when the application
 * would see it. Its text (found) is made only when it will be needed:
 * a held order, a finding. */
static void ev_fixcheck_owner_of(struct ev_fixcheck *c, int readable, uint64_t seq, struct owner_check *o)
{
	const struct ev_fixspec *s = c->o.spec;
	const struct ev_fix_field *owner = field_of(c, s->owner_tag);
	o->seq = seq;
	o->value = 0;
	o->tag = s->owner_tag;
	o->readable = readable;
	o->present = owner != NULL;
	o->owner_ok = owner && ev_fix_parse_u64(c->msg.data + owner->off, owner->len, &o->value) == 0;
	o->off = owner ? owner->off : NO_OFFSET;
	o->file = c->rec->file;
	o->record = c->rec->record;
	o->offset = c->rec->offset;
	o->file_index = c->rec->file_index;
	o->found[0] = 0;
}

static void ev_fixcheck_owner_text(struct ev_fixcheck *c, struct owner_check *o)
{
	const struct ev_fix_field *owner = field_of(c, o->tag);
	if (owner) {
		int n = snprintf(o->found, sizeof o->found, "%u=", owner->tag);
		ev_fixcheck_show(c->msg.data + owner->off, owner->len, o->found + n, sizeof o->found - (size_t)n);
	}
}

/* The owner tag counts up by one across the orders; readable as for
 * the sequence: an unreadable message's missing owner is taken to be the
 * next. */
static void ev_fixcheck_check_owner(struct ev_fixcheck *c, const struct owner_check *o)
{
	char want[64];
	if (o->owner_ok && o->value == c->next_owner) {
		c->next_owner = o->value + 1;
		return;
	}
	if (!o->owner_ok && !o->readable) {
		c->next_owner++;
		return;
	}
	const struct ev_fix_record *saved = c->rec;
	struct ev_fix_record at = {.file = o->file, .record = o->record, .offset = o->offset, .file_index = o->file_index};
	c->rec = &at;
	snprintf(want, sizeof want, "%u=%llu", o->tag, (unsigned long long)c->next_owner);
	ev_fixcheck_report(c, EV_RULE_OWNER_SEQUENCE, o->tag, o->off, NULL, want, o->present ? o->found : "nothing");
	c->rec = saved;
	c->next_owner = o->owner_ok ? o->value + 1 : c->next_owner + 1;
}

static void ev_fixcheck_hold_owner(struct ev_fixcheck *c, const struct owner_check *o)
{
	if (c->npending - c->pending_head >= HELD_ORDERS_MAX)
		ev_fixcheck_check_owner(c, &c->pending[c->pending_head++]);
	if (c->pending_head && c->pending_head == c->npending)
		c->pending_head = c->npending = 0;
	/* the space of judged ones is reused once it is half the array:
	 * at most twice the held orders, each moved once per half */
	if (c->npending == c->pending_cap && c->pending_head && c->pending_head >= c->pending_cap / 2) {
		memmove(c->pending, c->pending + c->pending_head, (c->npending - c->pending_head) * sizeof *c->pending);
		c->npending -= c->pending_head;
		c->pending_head = 0;
	}
	if (ev_grow_array(&c->pending, &c->pending_cap, c->npending + 1, sizeof *c->pending) != 0) {
		ev_fixcheck_check_owner(c, o); /* out of memory: judged now, in arrival order */
		return;
	}
	size_t i = c->npending++;
	while (i > c->pending_head && c->pending[i - 1].seq > o->seq) {
		c->pending[i] = c->pending[i - 1];
		i--;
	}
	c->pending[i] = *o;
}

/* The orders held above a gap that is now filled. */
static void ev_fixcheck_release_owners(struct ev_fixcheck *c, uint64_t frontier)
{
	while (c->pending_head < c->npending && c->pending[c->pending_head].seq < frontier)
		ev_fixcheck_check_owner(c, &c->pending[c->pending_head++]);
}
