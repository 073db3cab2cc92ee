/* SPDX-License-Identifier: Apache-2.0 */
/* journal_mirror: a pair's second copy judged as its first, where it is the
 * same messages in the same order.
 *
 * Every rule of audit journal is a function of one copy's messages in
 * their order (the envelope, the dictionary, the session, the spec, the
 * counts): a copy of the same kind holding the same messages in the same
 * order gets the same verdicts. So where the first copy was judged
 * without a finding, in a plain session (no gap, resend, gap fill or
 * reset, whose matching across copies has rules of its own), the second
 * is read as always (every byte hashed for the receipt, its records and
 * framing checked by its reader) and each message held against the
 * first's by a keyed hash of the whole message, under the audit's fresh
 * key: two different messages agree with probability 2^-61 (fingerprint.h),
 * whoever wrote them. One difference, one piece of damage or one message
 * more or fewer, and the copy is read again and judged afresh, so that
 * every finding names its own copy's record. --judge-each-copy judges it
 * afresh anyway; tests/audit/t-journal-mirror-judges-as-judging-afresh.sh
 * holds the two to the same receipts. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "lib/core/grow.h"
#include "lib/usecase/audit/journal/parts.h"

static int plain_session(const struct ev_fixsession_facts *f)
{
	return !f->gaps.count && !f->resend_requests.count && !f->resends.count && !f->duplicates.count &&
	       !f->gap_fills.count && !f->resets.count && !f->rejects.count && !f->test_requests.count &&
	       !f->unanswered.count;
}

/* What may be mirrored at all, known before the first side is read. */
static int mirror_possible(const struct ev_audit_journal *run, const struct ev_journal_pair *p)
{
	const struct ev_journal_side *a = &p->side[0], *b = &p->side[1];
	return a->present && b->present && a->kind == b->kind &&
	       (a->kind == EV_FIXREAD_LLFIX || a->kind == EV_FIXREAD_RAW) && !run->latency && !run->judge_each_copy;
}

int ev_journal_mirror_fits(const struct ev_audit_journal *run, const struct ev_journal_pair *p, const struct ev_journal_side *s)
{
	const struct ev_journal_side *first = &p->side[0];
	uint64_t found = 0;
	for (int r = 0; r < EV_RULE_COUNT; r++)
		found += first->stats.by_rule[r];
	return s == &p->side[1] && mirror_possible(run, p) && !p->mirror.oom && p->findings.n == 0 && !found &&
	       !p->findings.oom && first->stats.skipped == 0 && first->stats.messages == p->mirror.n &&
	       plain_session(&first->session);
}

struct ev_journal_mirror *ev_journal_mirror_for(const struct ev_audit_journal *run, struct ev_journal_pair *p, const struct ev_journal_side *s)
{
	return s == &p->side[0] && mirror_possible(run, p) ? &p->mirror : NULL;
}

void ev_journal_mirror_keep(const struct ev_audit_journal *run, struct ev_journal_mirror *m, const char *msg, size_t len)
{
	if (m->oom)
		return;
	if (ev_grow_array(&m->h, &m->cap, m->n + 1, sizeof *m->h) != 0) {
		m->oom = 1; /* the second copy is then judged afresh */
		return;
	}
	m->h[m->n++] = ev_fingerprint_hash(&run->key, msg, len);
}

struct mirror_pass {
	const struct ev_audit_journal *run;
	const struct ev_journal_mirror *m;
	size_t next;
	volatile sig_atomic_t differs; /* the reading is left at once */
	uint64_t fed;
};

static void mirror_record(void *ctx, const struct ev_fix_record *r)
{
	struct mirror_pass *mp = ctx;
	if (mp->differs)
		return;
	if (mp->next >= mp->m->n || ev_fingerprint_hash(&mp->run->key, r->msg, r->len) != mp->m->h[mp->next])
		mp->differs = 1;
	else
		mp->next++;
}

static void mirror_damage(void *ctx, enum ev_fix_rule rule, const char *file, uint64_t record, uint64_t offset,
			  const char *message, const char *expected, const char *found)
{
	(void)rule, (void)file, (void)record, (void)offset, (void)message, (void)expected, (void)found;
	((struct mirror_pass *)ctx)->differs = 1;
}

static void mirror_fed(void *ctx, size_t bytes)
{
	struct mirror_pass *mp = ctx;
	mp->fed += bytes;
	ev_journal_progress_note(mp->run->progress, bytes, 0);
}

void ev_journal_forget_side(struct ev_journal_pair *p, struct ev_journal_side *s)
{
	p->findings.n = 0;
	p->findings.oom = 0;
	memset(&s->stats, 0, sizeof s->stats);
	memset(&s->session, 0, sizeof s->session);
	memset(&s->orders, 0, sizeof s->orders);
	s->has_orders = 0;
	for (size_t i = 0; i < s->ncompanions; i++) {
		free(s->companions[i].path);
		free(s->companions[i].checked);
	}
	free(s->companions);
	s->companions = NULL;
	s->ncompanions = s->companions_cap = 0;
}

ev_status ev_journal_mirror_side(const struct ev_audit_journal *run, struct ev_journal_pair *p, struct ev_journal_side *s,
				    const struct ev_journal_side *first, int *same, struct ev_error *err)
{
	struct mirror_pass mp = {run, &p->mirror, 0, 0, 0};
	struct ev_fixread_sink sink = {mirror_record, mirror_damage, &mp, mirror_fed, NULL, run->interrupted, &mp.differs};
	struct ev_fixread *reader = ev_fixread_new(s->kind, &sink);
	*same = 0;
	if (!reader)
		return ev_error_set(err, EV_ERROR, "out of memory");
	size_t files_done = 0;
	ev_status st = ev_journal_read_files(run, reader, s, &files_done, err);
	if (st == EV_INTERRUPTED && mp.differs && !*run->interrupted) {
		ev_error_clear(err); /* left at the first difference */
		st = EV_OK;
	} else if (st == EV_OK) {
		ev_fixread_finish(reader);
	}
	ev_fixread_free(reader);
	if (st != EV_OK)
		return st;
	if (mp.differs || mp.next != p->mirror.n) {
		ev_journal_progress_again(run->progress, mp.fed, files_done);
		return EV_OK;
	}
	*same = 1;
	s->mirrored = 1;
	s->stats = first->stats;
	/* as the comparison of two equal copies counts: every message looked
	 * up in the other copy and found the same */
	s->stats.compared = s->stats.matched = first->stats.messages;
	s->session = first->session;
	s->orders = first->orders;
	s->has_orders = first->has_orders;
	return EV_OK;
}
