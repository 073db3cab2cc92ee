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

/* The other side's unmatched fingerprint with this seq, or -1: one equal
 * to p when there is one, so that a MsgSeqNum used twice (a reset, a
 * resend) never pairs two identical records with two different ones. */
static long find_print(const struct ev_fixcross *x, const struct ev_fingerprint *p)
{
	const struct ev_fingerprint_set *s = x->set;
	uint64_t seq = p->seq;
	if (!s->n)
		return -1;
	size_t lo = 0, hi = s->n;
	/* Usually the seqs run without a gap: try the direct place first. */
	if (seq >= s->v[0].seq && seq - s->v[0].seq < s->n && s->v[seq - s->v[0].seq].seq == seq &&
	    (seq - s->v[0].seq == 0 || s->v[seq - s->v[0].seq - 1].seq != seq))
		lo = seq - s->v[0].seq, hi = lo + 1;
	else
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (s->v[mid].seq < seq)
				lo = mid + 1;
			else
				hi = mid;
		}
	long first = -1;
	for (size_t i = lo; i < s->n && s->v[i].seq == seq; i++) {
		if (x->matched[i])
			continue;
		if (s->v[i].hash == p->hash && s->v[i].len == p->len)
			return (long)i;
		if (first < 0)
			first = (long)i;
	}
	return first;
}

void ev_fixcross_message(struct ev_fixcross *x, const struct ev_fingerprint *p, const char *msg, uint32_t len,
			 const struct ev_fix_record *r)
{
	long i = find_print(x, p);
	x->compared++;
	if (i < 0) {
		if (!x->extra++) {
			x->first_extra_seq = p->seq;
			x->first_extra_file = r->file;
			x->first_extra_record = r->record;
			x->first_extra_offset = r->offset;
		}
		return;
	}
	x->matched[i] = 1;
	const struct ev_fingerprint *o = &x->set->v[i];
	if (o->hash == p->hash && o->len == p->len) {
		x->matched_count++;
		return;
	}
	if (x->differing++)
		return;
	x->have_diff = 1;
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
		long got = reread ? reread(reread_ctx, o->file, o->offset, other, o->len < sizeof other ? o->len : sizeof other) : -1;
		if (got >= 0)
			show_message(other, (uint32_t)got, a, sizeof a);
		else
			snprintf(a, sizeof a, "the record at byte %llu of %s (%u bytes, no longer readable)",
				 (unsigned long long)o->offset, first_files ? first_files[o->file] : "?", o->len);
		if (x->diff_mine)
			show_message(x->diff_mine, x->diff_mine_len, b, sizeof b);
		else
			snprintf(b, sizeof b, "(out of memory)");
		snprintf(msg, sizeof msg,
			 "message MsgSeqNum %llu differs from the %s's copy (%s, byte %llu); %llu message%s in all",
			 (unsigned long long)o->seq, first_name, first_files ? first_files[o->file] : "?",
			 (unsigned long long)o->offset, (unsigned long long)x->differing,
			 x->differing == 1 ? " differs" : "s differ");
		report(ctx, &x->diff_at, msg, a, b);
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
			 first_files ? first_files[o->file] : "?");
		snprintf(a, sizeof a, "MsgSeqNum %llu", (unsigned long long)o->seq);
		report(ctx, NULL, msg, a, "nothing");
	}
	if (x->extra) {
		struct ev_fix_record r = {.file = x->first_extra_file, .record = x->first_extra_record,
					  .offset = x->first_extra_offset};
		snprintf(msg, sizeof msg, "%llu message%s here that the %s does not have",
			 (unsigned long long)x->extra, x->extra == 1 ? "" : "s", first_name);
		snprintf(b, sizeof b, "MsgSeqNum %llu", (unsigned long long)x->first_extra_seq);
		report(ctx, &r, msg, "nothing", b);
	}
}
