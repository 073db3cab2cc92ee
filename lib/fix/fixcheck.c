/* SPDX-License-Identifier: Apache-2.0 */
/* fixcheck: one endpoint's stream of records judged by every rule
 * (fixcheck.h). This file takes each record through the rules in order;
 * the rules on one message, the state across messages and the wording of
 * a finding are its parts (fixcheck_parts.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fix/fixcheck_parts.h"
#include "lib/core/path.h"

/* The parts, compiled in this unit (fixcheck_parts.h says why), in the
 * order a record meets them. */
#include "lib/fix/fixcheck_words.c"

static void on_envelope(void *ctx, enum ev_fix_rule rule, uint32_t at, const char *expected,
			const char *found)
{
	ev_fixcheck_report(ctx, rule, 0, at, NULL, expected, found);
}

/* A finding of the session layer, at its record. */
static void on_session(void *ctx, enum ev_fix_rule rule, const struct ev_fix_record *where, uint32_t tag,
		       const char *message, const char *expected, const char *found)
{
	struct ev_fixcheck *c = ctx;
	const struct ev_fix_record *saved = c->rec;
	c->rec = where;
	ev_fixcheck_report(c, rule, tag, NO_OFFSET, message, expected, found);
	c->rec = saved;
}

ev_status ev_fixcheck_new(struct ev_fixcheck **out, const struct ev_fixcheck_opts *opts,
			  ev_fix_finding_fn on_finding, void *ctx, struct ev_error *err)
{
	struct ev_fixcheck *c = calloc(1, sizeof *c);
	if (!c)
		return ev_error_set(err, EV_ERROR, "out of memory");
	c->o = *opts;
	c->fn = on_finding;
	c->ctx = ctx;
	c->sender_compid_len = opts->sender_compid ? (uint32_t)strlen(opts->sender_compid) : 0;
	c->begin_len = opts->spec ? (uint32_t)strlen(opts->spec->begin_string) : 0;
	c->order_len = opts->spec ? (uint32_t)strlen(opts->spec->order_msgtype) : 0;
	c->tracked = TRACKED_TAGS_MIN;
	if (opts->dict && opts->dict->max_tag >= c->tracked)
		c->tracked = opts->dict->max_tag + 1;
	c->seen = calloc(c->tracked, sizeof *c->seen);
	c->first_pos = calloc(c->tracked, sizeof *c->first_pos);
	c->inst_seen = calloc(c->tracked, sizeof *c->inst_seen);
	c->top_seen = calloc(c->tracked, sizeof *c->top_seen);
	if (opts->prints == EV_FINGERPRINT_COMPARE && ev_fixcross_init(&c->cross, opts->set, err) != EV_OK) {
		ev_fixcheck_free(c);
		return err->status;
	}
	size_t nspec = opts->spec ? opts->spec->nfields + opts->spec->ngroups : 0;
	c->spec_ok = calloc(nspec + 1, 1);
	c->prev_spec_ok = calloc(nspec + 1, 1);
	c->redo = calloc(nspec + 1, 1);
	c->spec_item_at = calloc(EV_FIX_MAX_FIELDS, sizeof *c->spec_item_at);
	if (!c->spec_ok || !c->prev_spec_ok || !c->redo || !c->spec_item_at) {
		ev_fixcheck_free(c);
		return ev_error_set(err, EV_ERROR, "out of memory");
	}
	if (opts->dict && (!(c->dense = calloc(opts->dict->nlayouts, sizeof *c->dense)) ||
			   !(c->top = calloc(opts->dict->nmessages, sizeof *c->top)))) {
		ev_fixcheck_free(c);
		return ev_error_set(err, EV_ERROR, "out of memory");
	}
	if (!c->seen || !c->first_pos || !c->inst_seen || !c->top_seen) {
		ev_fixcheck_free(c);
		return ev_error_set(err, EV_ERROR, "out of memory");
	}
	if (opts->spec)
		c->next_owner = opts->spec->owner_first;
	/* ExecutionReports are the peer's: only a copy holding both directions has them */
	if (opts->spec && opts->spec->execution_reports && opts->sender_compid &&
	    ev_fixorders_new(&c->orders, on_session, c, err) != EV_OK) {
		ev_fixcheck_free(c);
		return err->status;
	}
	if (ev_fixsession_new(&c->session, opts->spec ? opts->spec->sequence_first : 0, opts->sender_compid != NULL,
			      on_session, c, err) != EV_OK) {
		ev_fixcheck_free(c);
		return err->status;
	}
	/* the second copy's duplicates are held against the first copy's originals */
	ev_fixsession_keep_originals(c->session, opts->prints != EV_FINGERPRINT_COMPARE && !opts->without_originals);
	*out = c;
	return EV_OK;
}

void ev_fixcheck_free(struct ev_fixcheck *c)
{
	if (!c)
		return;
	free(c->seen);
	free(c->first_pos);
	free(c->inst_seen);
	free(c->top_seen);
	ev_fixcross_free(&c->cross);
	ev_fixsession_free(c->session);
	ev_fixorders_free(c->orders);
	ev_fixprint_free(&c->print);
	free(c->pending);
	free(c->spec_ok);
	free(c->prev_spec_ok);
	free(c->redo);
	free(c->spec_item_at);
	for (size_t i = 0; c->dense && i < c->o.dict->nlayouts; i++)
		free(c->dense[i]);
	free(c->dense);
	for (size_t i = 0; c->top && i < c->o.dict->nmessages; i++)
		free(c->top[i]);
	free(c->top);
	free(c);
}

const struct ev_fixcheck_stats *ev_fixcheck_stats(const struct ev_fixcheck *c)
{
	return &c->st;
}

const struct ev_fixsession_facts *ev_fixcheck_session(const struct ev_fixcheck *c)
{
	return ev_fixsession_facts(c->session);
}

const struct ev_fixorders_facts *ev_fixcheck_orders(const struct ev_fixcheck *c)
{
	return c->orders ? ev_fixorders_facts(c->orders) : NULL;
}

void ev_fixcheck_damage(struct ev_fixcheck *c, enum ev_fix_rule rule, const char *file,
			uint64_t record, uint64_t offset, const char *message,
			const char *expected, const char *found)
{
	struct ev_fix_record r = {.file = file, .record = record, .offset = offset};
	const struct ev_fix_record *saved = c->rec;
	c->rec = &r;
	ev_fixcheck_report(c, rule, 0, NO_OFFSET, message, expected, found);
	c->rec = saved;
}

#include "lib/fix/fixcheck_message.c"
#include "lib/fix/fixcheck_session.c"

static void fingerprint(struct ev_fixcheck *c, uint64_t seq, uint64_t invariant, uint64_t changeable)
{
	const struct ev_fixsession_msg *v = &c->view;
	struct ev_fingerprint p = {.seq = seq, .hash = changeable, .invariant = invariant,
				   .orig_ns = v->poss_dup && v->has_orig ? v->orig_ns : v->has_sending ? v->sending_ns : 0,
				   .offset = c->rec->offset, .len = c->msg.len,
				   .file = c->rec->file_index | (v->admin ? EV_FINGERPRINT_ADMIN : 0)};
	if (c->o.prints == EV_FINGERPRINT_RECORD) {
		struct ev_error ignored;
		ev_error_clear(&ignored);
		if (ev_fingerprint_add(c->o.set, &p, &ignored) != EV_OK)
			ev_fixcheck_report(c, EV_RULE_CROSS_AGREEMENT, 0, NO_OFFSET,
			       "out of memory for fingerprints: the endpoints cannot be compared", NULL, NULL);
		return;
	}
	struct ev_fixcross_kind k = {v->poss_dup, v->gap_fill, v->has_new_seq ? v->new_seq : 0};
	ev_fixcross_message(&c->cross, &p, &k, c->msg.data, c->msg.len, c->rec);
	c->st.compared = c->cross.compared;
	c->st.matched = c->cross.matched_count;
	c->st.resends_matched = c->cross.resends_matched;
	c->st.gap_filled = c->cross.gap_filled;
}

/* Keep this message and its verdicts for the next one. */
static void remember(struct ev_fixcheck *c)
{
	const struct ev_fix_msg *m = &c->msg;
	if (!c->rescanned)
		ev_fix_template_set(&c->tpl, m);
	if (!c->tpl.len)
		return;
	c->stamps_are_prev = 1;
	memcpy(c->prev_ok, c->ok, m->n);
	c->prev_all_ok = memchr(c->ok, 0, m->n) == NULL;
	if (c->o.spec) {
		size_t items = c->o.spec->nfields + c->o.spec->ngroups;
		memcpy(c->prev_spec_ok, c->spec_ok, items);
		c->prev_spec_all_ok = memchr(c->spec_ok, 0, items) == NULL;
	}
	c->prev_struct_ok = c->struct_ok && c->o.dict;
	c->prev_def = c->struct_def;
	c->prev_groups = c->groups;
	/* only the positions kept are read back (g < prev_groups) */
	memcpy(c->prev_group_pos, c->group_pos,
	       (c->groups < MEMO_GROUPS_MAX ? c->groups : MEMO_GROUPS_MAX) * sizeof *c->group_pos);
}

/* Kept whole: the per-message hot path (one call per record of a journal
 * of hundreds of millions); its steps read one scan of the message in
 * order, and the memo kept of the previous message stays consistent only
 * where one function decides it. */
void ev_fixcheck_record(struct ev_fixcheck *c, const struct ev_fix_record *r)
{
	if (c->o.judge_afresh) { /* no template: no shape, so nothing is reused */
		c->tpl.len = 0;
		c->stamps_are_prev = 0;
		c->prev_struct_ok = 0;
	}
	c->rec = r;
	c->record_no++;
	c->st.bytes += r->len;
	struct ev_fix_msg *m = &c->msg;
	unsigned ignored;
	c->rescanned = ev_fix_rescan(r->msg, r->len, &c->tpl, m, c->changed, &ignored, on_envelope, c);
	if (c->rescanned) {
		c->shape = 1;
		ev_fixcheck_same_from_diff(c);
	} else {
		ev_fix_scan(r->msg, r->len, c->o.dict ? &c->o.dict->data_tags : NULL, m, on_envelope, c);
		c->shape = c->tpl.len && m->n == c->tpl.n;
		for (uint32_t i = 0; c->shape && i < m->n; i++)
			c->shape = m->f[i].tag == c->tpl.f[i].tag;
		if (c->shape) {
			ev_fixcheck_same_by_fields(c);
		} else {
			memset(c->same, 0, m->n);
			c->prev_struct_ok = 0;
		}
	}
	c->struct_ok = 0;
	c->groups = 0;

	/* Stamp the tags of this message, each at its first position, unless
	 * the stamps of the previous message, of the same tags, still hold. */
	if (!c->shape || !c->stamps_are_prev) {
		if (++c->serial == 0) { /* wrapped: start the stamps again */
			memset(c->seen, 0, c->tracked * sizeof *c->seen);
			c->serial = 1;
			c->spec_map_serial = 0;
		}
		for (uint32_t i = 0; i < m->n; i++) {
			uint32_t tag = m->f[i].tag;
			if (tag < c->tracked && c->seen[tag] != c->serial) {
				c->seen[tag] = c->serial;
				c->first_pos[tag] = i;
			}
		}
		c->stamps_are_prev = 0;
	}
	if (c->o.sender_compid) {
		const struct ev_fix_field *s = field_of(c, 49);
		if (!s || !same(s, m, c->o.sender_compid, c->sender_compid_len)) {
			ev_fixcheck_session_view(c);
			ev_fixsession_peer(c->session, &c->view);
			if (c->orders)
				ev_fixcheck_follow_order(c, r, 1);
			if (c->o.latency)
				ev_fixcheck_note_latency(c, &c->o.latency[1], r);
			c->st.skipped++;
			c->st.bytes -= r->len;
			c->rec = NULL;
			/* The template may be this message now: the verdicts kept
			 * are not about it, so nothing is kept. */
			c->tpl.len = 0;
			c->prev_struct_ok = 0;
			c->stamps_are_prev = 0;
			return;
		}
	}
	c->st.messages++;
	/* A message whose fields could not all be read (field-syntax) is
	 * judged only for what continues across messages, from the fields
	 * read before the damage: a rule on its values or structure would
	 * only repeat the one finding. */
	int readable = m->syntax_ok;
	if (readable) {
		if (c->o.dict) {
			ev_fixcheck_dictionary_rules(c);
		} else {
			for (uint32_t i = 0; i < m->n; i++)
				ev_fixcheck_value_rules(c, i, NULL);
		}
		ev_fixcheck_session_rules(c);
	}
	ev_fixcheck_session_view(c);
	struct ev_fixsession_msg *v = &c->view;
	if (c->o.latency)
		ev_fixcheck_note_latency(c, &c->o.latency[0], r);
	uint64_t invariant = 0, changeable = 0;
	if (c->o.key) {
		/* only a message split as the one printed just before may be
		 * patched from it */
		int next = c->rescanned && c->printed_at == c->record_no - 1;
		ev_fixprint_parts(&c->print, c->o.key, m, next ? c->changed_fields : NULL, c->nchanged, &invariant,
				  &changeable);
		c->printed_at = c->record_no;
		v->invariant = invariant;
	}
	if (!v->has_seq) {
		uint32_t tag = c->o.spec ? c->o.spec->sequence_tag : 34;
		const struct ev_fix_field *f = field_of(c, tag);
		if (readable)
			ev_fixcheck_report(c, EV_RULE_SEQNUM, tag, f ? f->off : NO_OFFSET, "no MsgSeqNum to follow", "a number",
			       f ? "another value" : "none");
	}
	uint64_t frontier = ev_fixsession_frontier(c->session);
	if (!v->has_seq && !readable) { /* damage reported once: taken to be the next number */
		v->has_seq = 1;
		v->seq = ev_fixsession_next_new(c->session);
	}
	enum ev_fixsession_arrival arrival = ev_fixsession_mine(c->session, v);
	uint64_t seq = v->has_seq ? v->seq : UINT64_MAX;
	const struct ev_fixspec *s = c->o.spec;
	const struct ev_fix_field *begin = field_of(c, 8);
	if (s && readable && begin && !same(begin, m, s->begin_string, c->begin_len))
		ev_fixcheck_report_field(c, EV_RULE_SPEC_VALUE, (uint32_t)(begin - m->f), s->begin_string);
	/* MsgType wherever it stands: envelope-order judged its place. */
	const struct ev_fix_field *t = field_of(c, 35);
	int order = 0;
	if (s && t) {
		if (same(t, m, s->order_msgtype, c->order_len)) {
			order = 1;
		} else {
			/* the session layer's own messages are always allowed: a spec
			 * lists application types */
			int allowed = t->len == 1 && m->data[t->off] && strchr("012345A", m->data[t->off]);
			for (size_t k = 0; k < s->nother && !allowed; k++)
				allowed = same(t, m, s->other_msgtypes[k], (uint32_t)strlen(s->other_msgtypes[k]));
			if (!allowed)
				ev_fixcheck_report_field(c, EV_RULE_SPEC_MSGTYPE, (uint32_t)(t - m->f), s->order_msgtype);
		}
	}
	if (order) {
		if (readable)
			ev_fixcheck_spec_rules(c);
		if (arrival != EV_FIXSESSION_DUPLICATE) { /* a duplicate is no new order */
			struct owner_check o;
			c->st.orders++;
			ev_fixcheck_owner_of(c, readable, seq, &o);
			int now = seq == frontier || arrival == EV_FIXSESSION_UNNUMBERED;
			if (!now || !o.owner_ok || o.value != c->next_owner)
				ev_fixcheck_owner_text(c, &o);
			if (now)
				ev_fixcheck_check_owner(c, &o);
			else
				ev_fixcheck_hold_owner(c, &o);
		}
	} else {
		c->st.others++;
		if (s) /* an order's verdicts are not an other message's */
			memset(c->spec_ok, 0, s->nfields + s->ngroups);
	}
	if (c->orders && arrival != EV_FIXSESSION_DUPLICATE)
		ev_fixcheck_follow_order(c, r, 0);
	/* every message, session ones too: a Logon changed in one copy is a
	 * difference between the endpoints as much as an order is */
	if (c->o.prints != EV_FINGERPRINT_NONE)
		fingerprint(c, seq, invariant, changeable);
	ev_fixcheck_release_owners(c, ev_fixsession_frontier(c->session));
	remember(c);
	c->rec = NULL;
}

void ev_fixcheck_finish(struct ev_fixcheck *c)
{
	const struct ev_fixspec *s = c->o.spec;
	ev_fixsession_finish(c->session);
	ev_fixcheck_release_owners(c, UINT64_MAX);
	if (c->orders)
		ev_fixorders_finish(c->orders, s && s->unanswered_is_finding);
	if (!s)
		return;
	uint64_t want = s->warmups + s->measured;
	if (c->st.orders != want) {
		char a[96], b[32];
		snprintf(a, sizeof a, "%llu (%llu warmups + %llu measured)", (unsigned long long)want,
			 (unsigned long long)s->warmups, (unsigned long long)s->measured);
		snprintf(b, sizeof b, "%llu", (unsigned long long)c->st.orders);
		ev_fixcheck_report(c, EV_RULE_ORDER_COUNT, 0, NO_OFFSET, NULL, a, b);
	}
}

/* A cross-agreement finding, at where (NULL: no record). */
static void report_cross(void *ctx, enum ev_fix_rule rule, const struct ev_fix_record *where, const char *message,
			 const char *expected, const char *found)
{
	struct ev_fixcheck *c = ctx;
	c->rec = where;
	ev_fixcheck_report(c, rule, 0, NO_OFFSET, message, expected, found);
	c->rec = NULL;
}

void ev_fixcheck_cross(struct ev_fixcheck *c, const char *first_name,
		       const char *const *first_files, ev_fix_reread_fn reread, void *reread_ctx)
{
	ev_fixcross_report(&c->cross, first_name, first_files, reread, reread_ctx, report_cross, c);
}
