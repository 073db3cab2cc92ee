/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/fix/fixcross.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/path.h"

ev_status ev_fixcross_init(struct ev_fixcross *x, const struct ev_fingerprint_set *set, struct ev_error *err)
{
	memset(x, 0, sizeof *x);
	x->set = set;
	if (!(x->matched = calloc(set->n ? set->n : 1, 1)))
		return ev_error_set(err, EV_ERROR, "out of memory");
	return EV_OK;
}

void ev_fixcross_free(struct ev_fixcross *x)
{
	free(x->matched);
	free(x->diff_mine);
	x->matched = NULL;
	x->diff_mine = NULL;
}

/* The first fingerprint with a seq at or above seq. */
static size_t lower_bound(const struct ev_fingerprint_set *s, uint64_t seq)
{
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (s->v[mid].seq < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The other side's unmatched fingerprint with this seq, or -1: one equal
 * to p when there is one, so that a MsgSeqNum used twice (a reset, a
 * resend) never pairs two identical records with two different ones. */
static long find_print(const struct ev_fixcross *x, const struct ev_fingerprint *p)
{
	const struct ev_fingerprint_set *s = x->set;
	uint64_t seq = p->seq;
	if (!s->n)
		return -1;
	size_t lo;
	/* Usually the seqs run without a gap: try the direct place first. */
	if (seq >= s->v[0].seq && seq - s->v[0].seq < s->n && s->v[seq - s->v[0].seq].seq == seq &&
	    (seq - s->v[0].seq == 0 || s->v[seq - s->v[0].seq - 1].seq != seq))
		lo = seq - s->v[0].seq;
	else
		lo = lower_bound(s, seq);
	long first = -1;
	for (size_t i = lo; i < s->n && s->v[i].seq == seq; i++) {
		if (x->matched[i])
			continue;
		if (ev_fingerprint_same(&s->v[i], p))
			return (long)i;
		if (first < 0)
			first = (long)i;
	}
	return first;
}

static void extra(struct ev_fixcross *x, const struct ev_fingerprint *p, const struct ev_fix_record *r)
{
	if (!x->extra++) {
		x->first_extra_seq = p->seq;
		x->first_extra_file = r->file;
		x->first_extra_record = r->record;
		x->first_extra_offset = r->offset;
	}
}

static struct ev_fix_record where(const struct ev_fix_record *r)
{
	return (struct ev_fix_record){.file = r->file, .record = r->record, .offset = r->offset};
}

/* A GapFill: the first side's messages it stands for must be session-level. */
static void gap_fill(struct ev_fixcross *x, const struct ev_fingerprint *p, uint64_t new_seq,
		     const struct ev_fix_record *r)
{
	const struct ev_fingerprint_set *s = x->set;
	for (size_t j = lower_bound(s, p->seq); j < s->n && s->v[j].seq < new_seq; j++) {
		if (x->matched[j])
			continue;
		x->matched[j] = 1;
		if (s->v[j].file & EV_FINGERPRINT_ADMIN) {
			x->gap_filled++;
			continue;
		}
		if (!x->gap_over_app++) {
			x->gap_app_seq = s->v[j].seq;
			x->gap_at = where(r);
		}
	}
}

void ev_fixcross_message(struct ev_fixcross *x, const struct ev_fingerprint *p, const struct ev_fixcross_kind *k,
			 const char *msg, uint32_t len, const struct ev_fix_record *r)
{
	long i = find_print(x, p);
	x->compared++;
	int twin = i >= 0 && ev_fingerprint_same(&x->set->v[i], p);
	if (twin) {
		x->matched[i] = 1;
		x->matched_count++;
	}
	if (k->gap_fill && k->new_seq > p->seq) {
		/* it stands for the originals of its numbers, which a copy
		 * of originals holds and one of the wire may hold too (sent,
		 * lost, then filled) */
		gap_fill(x, p, k->new_seq, r);
		return;
	}
	if (twin)
		return;
	int resend = 0;
	if (k->poss_dup) {
		if (i < 0) { /* its original matched already: this is a duplicate of it */
			size_t j = lower_bound(x->set, p->seq);
			if (j < x->set->n && x->set->v[j].seq == p->seq)
				i = (long)j;
		}
		if (i >= 0 && x->set->v[i].invariant == p->invariant) {
			const struct ev_fingerprint *o = &x->set->v[i];
			x->matched[i] = 1;
			x->resends_matched++;
			if (p->orig_ns && o->orig_ns && p->orig_ns != o->orig_ns && !x->orig_differing++) {
				x->orig_seq = p->seq;
				x->orig_want = o->orig_ns;
				x->orig_got = p->orig_ns;
				x->orig_at = where(r);
			}
			return;
		}
		resend = 1;
	}
	if (i < 0) {
		extra(x, p, r);
		return;
	}
	x->matched[i] = 1;
	const struct ev_fingerprint *o = &x->set->v[i];
	if (x->differing++)
		return;
	x->have_diff = 1;
	x->diff_is_resend = resend;
	x->diff_other = *o;
	x->diff_at = (struct ev_fix_record){.file = r->file, .record = r->record, .offset = r->offset};
	free(x->diff_mine);
	if ((x->diff_mine = malloc(len)) != NULL) {
		memcpy(x->diff_mine, msg, len);
		x->diff_mine_len = len;
	}
}

/* A message for showing whole: SOH as '|', other unprintable bytes \xHH. */
static void show_message(const char *m, uint32_t len, char *out, size_t cap)
{
	char tmp[EV_FIX_VALUE_MAX];
	uint32_t n = len < sizeof tmp - 1 ? len : (uint32_t)sizeof tmp - 1;
	for (uint32_t i = 0; i < n; i++)
		tmp[i] = m[i] == EV_FIX_SOH ? '|' : m[i];
	ev_path_quote_bytes(tmp, n, out, cap);
}

void ev_fixcross_report(struct ev_fixcross *x, const char *first_name, const char *const *first_files,
			ev_fix_reread_fn reread, void *reread_ctx, ev_fixcross_report_fn report, void *ctx)
{
	char a[EV_FIX_VALUE_MAX], b[EV_FIX_VALUE_MAX], msg[300];
	if (x->have_diff) {
		const struct ev_fingerprint *o = &x->diff_other;
		char other[EV_FIX_VALUE_MAX];
		uint32_t file = EV_FINGERPRINT_FILE(o);
		long got = reread ? reread(reread_ctx, file, o->offset, other, o->len < sizeof other ? o->len : sizeof other) : -1;
		if (got >= 0)
			show_message(other, (uint32_t)got, a, sizeof a);
		else
			snprintf(a, sizeof a, "the record at byte %llu of %s (%u bytes, no longer readable)",
				 (unsigned long long)o->offset, first_files ? first_files[file] : "?", o->len);
		if (x->diff_mine)
			show_message(x->diff_mine, x->diff_mine_len, b, sizeof b);
		else
			snprintf(b, sizeof b, "(out of memory)");
		snprintf(msg, sizeof msg,
			 x->diff_is_resend
				 ? "resend MsgSeqNum %llu differs from the %s's original (%s, byte %llu) in a field other than 43, 97, 122, 52, 9 and 10; %llu message%s in all"
				 : "message MsgSeqNum %llu differs from the %s's copy (%s, byte %llu); %llu message%s in all",
			 (unsigned long long)o->seq, first_name, first_files ? first_files[file] : "?",
			 (unsigned long long)o->offset, (unsigned long long)x->differing,
			 x->differing == 1 ? " differs" : "s differ");
		report(ctx, x->diff_is_resend ? EV_RULE_RESEND_CONTENT : EV_RULE_CROSS_AGREEMENT, &x->diff_at, msg, a, b);
	}
	if (x->orig_differing) {
		snprintf(msg, sizeof msg,
			 "resend MsgSeqNum %llu: OrigSendingTime (122) is not the SendingTime of the %s's original; %llu resend%s in all",
			 (unsigned long long)x->orig_seq, first_name, (unsigned long long)x->orig_differing,
			 x->orig_differing == 1 ? "" : "s");
		snprintf(a, sizeof a, "%llu.%09llu", (unsigned long long)(x->orig_want / 1000000000),
			 (unsigned long long)(x->orig_want % 1000000000));
		snprintf(b, sizeof b, "%llu.%09llu", (unsigned long long)(x->orig_got / 1000000000),
			 (unsigned long long)(x->orig_got % 1000000000));
		report(ctx, EV_RULE_RESEND_CONTENT, &x->orig_at, msg, a, b);
	}
	if (x->gap_over_app) {
		snprintf(msg, sizeof msg,
			 "a SequenceReset-GapFill stands for an application message of the %s: it was never delivered; %llu message%s in all",
			 first_name, (unsigned long long)x->gap_over_app, x->gap_over_app == 1 ? "" : "s");
		snprintf(a, sizeof a, "a resend of MsgSeqNum %llu", (unsigned long long)x->gap_app_seq);
		report(ctx, EV_RULE_GAP_FILL, &x->gap_at, msg, a, "a GapFill over it");
	}
	const struct ev_fingerprint_set *set = x->set;
	uint64_t missing = 0;
	size_t first_missing = 0;
	for (size_t i = 0; i < set->n; i++)
		if (!x->matched[i] && !missing++)
			first_missing = i;
	if (missing) {
		const struct ev_fingerprint *o = &set->v[first_missing];
		snprintf(msg, sizeof msg, "%llu message%s of the %s %s missing here (the first at byte %llu of %s)",
			 (unsigned long long)missing, missing == 1 ? "" : "s", first_name,
			 missing == 1 ? "is" : "are", (unsigned long long)o->offset,
			 first_files ? first_files[EV_FINGERPRINT_FILE(o)] : "?");
		snprintf(a, sizeof a, "MsgSeqNum %llu", (unsigned long long)o->seq);
		report(ctx, EV_RULE_CROSS_AGREEMENT, NULL, msg, a, "nothing");
	}
	if (x->extra) {
		struct ev_fix_record r = {.file = x->first_extra_file, .record = x->first_extra_record,
					  .offset = x->first_extra_offset};
		snprintf(msg, sizeof msg, "%llu message%s here that the %s does not have",
			 (unsigned long long)x->extra, x->extra == 1 ? "" : "s", first_name);
		snprintf(b, sizeof b, "MsgSeqNum %llu", (unsigned long long)x->first_extra_seq);
		report(ctx, EV_RULE_CROSS_AGREEMENT, &r, msg, "nothing", b);
	}
}
