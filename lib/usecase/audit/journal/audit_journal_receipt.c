/* SPDX-License-Identifier: Apache-2.0 */
/* audit_journal's receipt: each pair's sides, their session and orders,
 * the first findings, what a pass covers, and a check per rule
 * (doc/formats.md, "FIX journals"). */
#include "config.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "lib/archive/seal.h"
#include "lib/receipt/receipt.h"
#include "lib/usecase/audit/journal/parts.h"

static const char *base_of(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

static json_t *finding_json(const struct ev_journal_pair *p, const struct ev_fix_finding *f)
{
	json_t *o = json_pack("{s:s, s:I, s:s, s:s}", "rule", ev_fix_rule_name(f->rule), "pair",
			      (json_int_t)p->number, "side", f->side, "message", f->message);
	if (f->file) {
		json_object_set_new(o, "file", json_string(base_of(f->file)));
		json_object_set_new(o, "offset", json_integer((json_int_t)f->offset));
	}
	if (f->record)
		json_object_set_new(o, "record", json_integer((json_int_t)f->record));
	if (f->tag)
		json_object_set_new(o, "tag", json_integer(f->tag));
	if (f->expected[0])
		json_object_set_new(o, "expected", json_string(f->expected));
	if (f->found[0])
		json_object_set_new(o, "found", json_string(f->found));
	return o;
}

static json_t *ranges_json(const struct ev_fixsession_ranges *r, const char *from, const char *to,
			   const char *flag, const char *flag_yes, const char *flag_no)
{
	json_t *list = json_array();
	for (size_t i = 0; i < r->n; i++) {
		json_t *o = json_pack("{s:I}", from, (json_int_t)r->v[i].from);
		if (to)
			json_object_set_new(o, to, json_integer((json_int_t)r->v[i].to));
		if (flag)
			json_object_set_new(o, flag, json_string(r->v[i].by_peer == 1 ? flag_yes
								 : r->v[i].by_peer == 2 ? "SequenceReset-Reset"
											 : flag_no));
		json_array_append_new(list, o);
	}
	return json_pack("{s:I, s:I, s:o, s:I}", "count", (json_int_t)r->count, "messages",
			 (json_int_t)r->messages, "first", list, "not_listed", (json_int_t)(r->count - r->n));
}

/* What the session layer saw in one copy, each with its MsgSeqNum range. */
static json_t *session_json(const struct ev_journal_side *s)
{
	const struct ev_fixsession_facts *f = &s->session;
	json_t *o = json_object();
	json_object_set_new(o, "peer_in_copy", json_boolean(f->peer_visible));
	json_object_set_new(o, "gaps", ranges_json(&f->gaps, "from", "to", NULL, NULL, NULL));
	json_object_set_new(o, "resend_requests", ranges_json(&f->resend_requests, "begin", "end", NULL, NULL, NULL));
	json_object_set_new(o, "resends", ranges_json(&f->resends, "from", "to", NULL, NULL, NULL));
	json_object_set_new(o, "duplicates", ranges_json(&f->duplicates, "from", "to", NULL, NULL, NULL));
	json_object_set_new(o, "gap_fills", ranges_json(&f->gap_fills, "from", "to", NULL, NULL, NULL));
	json_object_set_new(o, "resets", ranges_json(&f->resets, "expected", "next", "by", "Logon 141=Y", ""));
	json_object_set_new(o, "rejects", ranges_json(&f->rejects, "seq", "ref_seq", "by", "the peer", "this side"));
	json_object_set_new(o, "test_requests_answered", json_integer((json_int_t)f->test_requests_answered));
	json_object_set_new(o, "test_requests_unanswered",
			    ranges_json(&f->unanswered, "seq", NULL, "asked_by", "the peer", "this side"));
	if (s->stats.compared) {
		json_object_set_new(o, "resends_held_against_originals", json_integer((json_int_t)s->stats.resends_matched));
		json_object_set_new(o, "originals_a_gap_fill_stands_for", json_integer((json_int_t)s->stats.gap_filled));
	}
	return o;
}

static json_t *orders_json(const struct ev_fixorders_facts *f)
{
	json_t *listed = json_array();
	for (uint64_t i = 0; i < f->unanswered && i < EV_FIXORDERS_LISTED; i++)
		json_array_append_new(listed, json_pack("{s:s, s:I}", "clordid", f->unanswered_ids[i], "record",
							(json_int_t)f->unanswered_records[i]));
	json_t *o = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "orders", (json_int_t)f->orders,
			      "cancel_requests", (json_int_t)f->cancel_requests, "replace_requests",
			      (json_int_t)f->replace_requests, "execution_reports", (json_int_t)f->execution_reports,
			      "cancel_rejects", (json_int_t)f->cancel_rejects, "duplicates", (json_int_t)f->duplicates,
			      "answered", (json_int_t)f->answered);
	json_object_set_new(o, "unanswered", json_pack("{s:I, s:o}", "count", (json_int_t)f->unanswered, "first",
						       listed));
	json_object_set_new(o, "final", json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "filled", (json_int_t)f->filled,
						  "partially_filled", (json_int_t)f->partially_filled, "canceled",
						  (json_int_t)f->canceled, "rejected", (json_int_t)f->rejected, "expired",
						  (json_int_t)f->expired, "open", (json_int_t)f->open, "replaced_once_or_more",
						  (json_int_t)f->replaced));
	return o;
}

static json_t *side_json(const struct ev_journal_pair *p, const struct ev_journal_side *s)
{
	json_t *files = json_array(), *rules = json_object();
	for (size_t i = 0; i < s->nfiles; i++)
		json_array_append_new(files, json_pack("{s:s, s:I, s:I}", "name", base_of(s->files[i]),
						       "records", (json_int_t)s->records[i], "bytes",
						       (json_int_t)s->bytes[i]));
	for (int r = 0; r < EV_RULE_COUNT; r++)
		if (s->stats.by_rule[r])
			json_object_set_new(rules, ev_fix_rule_name((enum ev_fix_rule)r),
					    json_integer((json_int_t)s->stats.by_rule[r]));
	json_t *o = json_pack("{s:s, s:o, s:I, s:I, s:I, s:I, s:o}", "format",
			      ev_fixread_kind_name(s->kind), "files", files, "messages",
			      (json_int_t)s->stats.messages, "orders", (json_int_t)s->stats.orders,
			      "others", (json_int_t)s->stats.others, "expected_orders",
			      (json_int_t)(p->spec.warmups + p->spec.measured), "findings_by_rule", rules);
	if (s->stats.skipped)
		json_object_set_new(o, "skipped_other_direction", json_integer((json_int_t)s->stats.skipped));
	if (s->stats.compared)
		json_object_set_new(o, "messages_compared", json_integer((json_int_t)s->stats.compared));
	if (s->mirrored)
		json_object_set_new(o, "judged_as", json_string(p->side[0].role));
	json_object_set_new(o, "session", session_json(s));
	if (s->has_orders)
		json_object_set_new(o, "orders", orders_json(&s->orders));
	if (s->ncompanions) {
		json_t *beside = json_object();
		for (size_t c = 0; c < s->ncompanions; c++)
			json_object_set_new(beside, base_of(s->companions[c].path), json_string(s->companions[c].checked));
		json_object_set_new(o, "read_beside", beside);
	}
	return o;
}

/* What a pass means here, in the receipt and in one line: every rule on
 * every record, the copies compared where both were given; what was read
 * and set aside, and what no rule covers. */
static json_t *journal_coverage(const struct ev_audit_journal *run, char *line, size_t cap)
{
	json_t *o = json_object(), *done = json_array(), *not = json_array();
	size_t both = 0, one = 0;
	uint64_t skipped = 0;
	for (size_t i = 0; i < run->npairs; i++) {
		const struct ev_journal_pair *p = &run->pairs[i];
		if (p->side[0].present && p->side[1].present)
			both++;
		else
			one++;
		for (int k = 0; k < 2; k++)
			skipped += p->side[k].present ? p->side[k].stats.skipped : 0;
	}
	char text[256];
	snprintf(text, sizeof text, "every record of every journal file read by its format's reader and held to all %d "
		 "rules (envelope, dictionary, session, spec, journal)", EV_RULE_COUNT);
	json_array_append_new(done, json_string(text));
	if (both) {
		snprintf(text, sizeof text, "in %zu pair%s, every message of the two copies compared byte for byte", both,
			 both == 1 ? "" : "s");
		json_array_append_new(done, json_string(text));
	}
	json_array_append_new(done, json_string("the orders counted against warmups + measured, the owner tag in the "
						"order the application sees them"));
	json_array_append_new(done, json_string("the session layer: every gap filled, resends and gap fills by their "
						"rules, resets, TestRequests and Rejects"));
	if (one) {
		snprintf(text, sizeof text, "%zu pair%s with one side only: the copies were not compared", one,
			 one == 1 ? "" : "s");
		json_array_append_new(not, json_string(text));
	}
	if (skipped) {
		snprintf(text, sizeof text, "%" PRIu64 " messages of the other direction in a log: read, left out", skipped);
		json_array_append_new(not, json_string(text));
	}
	size_t without_peer = 0;
	for (size_t i = 0; i < run->npairs; i++)
		for (int k = 0; k < 2; k++)
			without_peer += run->pairs[i].side[k].present && !run->pairs[i].side[k].session.peer_visible;
	if (without_peer) {
		snprintf(text, sizeof text,
			 "%zu cop%s without the peer's direction (a store, an llfix journal): whether each gap was asked "
			 "for (resend-request), TestRequests answered (test-request) and a Reject's RefSeqNum: not judged there",
			 without_peer, without_peer == 1 ? "y" : "ies");
		json_array_append_new(not, json_string(text));
	}
	json_array_append_new(not, json_string("a QuickFIX store's next target sequence number: the peer's messages "
					       "are in the peer's journal"));
	size_t following = 0;
	for (size_t i = 0; i < run->npairs; i++)
		for (int k = 0; k < 2; k++)
			following += run->pairs[i].side[k].present && run->pairs[i].side[k].has_orders;
	if (following) {
		snprintf(text, sizeof text, "the application layer, in %zu cop%s holding both directions: every "
			 "ExecutionReport held to the order state matrices, its quantities and AvgPx, every order answered",
			 following, following == 1 ? "y" : "ies");
		json_array_append_new(done, json_string(text));
	}
	if (!run->spec.execution_reports)
		json_array_append_new(not, json_string("ExecutionReports: the spec declares none (no \"orders\" section), "
						       "so no order is followed through its states"));
	else if (without_peer)
		json_array_append_new(not, json_string("ExecutionReports in a copy without the peer's direction: none "
						       "there to follow"));
	json_array_append_new(not, json_string(run->latency ? "the copies' own times against SendingTime: measured "
							      "(--latency), not judged by a rule"
							    : "the copies' own times against SendingTime: not measured "
							      "(audit journal --latency does)"));
	json_object_set_new(o, "recomputed", done);
	json_object_set_new(o, "not_checked", not);
	json_object_set_new(o, "not_read", json_string("none: every byte of every journal file, zero tails included"));
	snprintf(line, cap, "checked every record against %d rules%s%s%s", EV_RULE_COUNT,
		 both ? "; copies compared message by message" : "", one ? "; some pairs have one side only" : "",
		 skipped ? "; the log's other direction left out" : "");
	return o;
}

ev_status ev_journal_build_receipt(struct ev_audit_journal *run, json_t *r, uint64_t *total, struct ev_error *err)
{
	ev_receipt_add_input(r, "spec", run->spec_path, run->spec_hex, err);
	for (int k = 0; k < 2; k++)
		if (run->clock_record[k])
			ev_receipt_add_input(r, k ? "clock record of the receiver's host" : "clock record of the sender's host",
					     run->clock_record[k], run->clock_record_hex[k], err);
	for (size_t i = 0; i < run->ndicts; i++)
		ev_receipt_add_input(r, "dictionary", run->dicts[i], run->dict_hex[i], err);
	if (run->archive)
		ev_receipt_add_input(r, "archive", run->archive, run->archive_hex, err);
	if (run->seal)
		ev_receipt_add_input(r, EV_SEAL_FILENAME, run->seal, run->seal_hex, err);
	json_t *pairs = json_array(), *first = json_array();
	uint64_t by_rule[EV_RULE_COUNT] = {0};
	for (size_t i = 0; i < run->npairs; i++) {
		struct ev_journal_pair *p = &run->pairs[i];
		json_t *pj = json_object();
		for (int k = 0; k < 2; k++) {
			struct ev_journal_side *s = &p->side[k];
			if (!s->present)
				continue;
			char digest[EV_SHA256_HEX_LEN + 1], name[PATH_MAX + 64];
			for (size_t f = 0; f < s->nfiles; f++) {
				ev_sha256_hex(s->digests[f], digest);
				snprintf(name, sizeof name, "pair %zu %s %s", p->number, s->role, base_of(s->files[f]));
				ev_receipt_add_input(r, name, s->files[f], digest, err);
			}
			for (size_t c = 0; c < s->ncompanions; c++) {
				snprintf(name, sizeof name, "pair %zu %s %s", p->number, s->role,
					 base_of(s->companions[c].path));
				ev_receipt_add_input(r, name, s->companions[c].path, s->companions[c].hex, err);
			}
			json_object_set_new(pj, s->role, side_json(p, s));
			for (int q = 0; q < EV_RULE_COUNT; q++)
				by_rule[q] += s->stats.by_rule[q];
		}
		if (p->latency)
			json_object_set(pj, "latency", p->latency);
		json_array_append_new(pairs, pj);
		for (size_t f = 0; f < p->findings.n; f++)
			json_array_append_new(first, finding_json(p, &p->findings.v[f]));
	}
	ev_receipt_set_fact(r, "pairs", pairs, err);
	ev_receipt_set_fact(r, "coverage", journal_coverage(run, run->coverage_line, sizeof run->coverage_line), err);
	ev_receipt_set_fact(r, "first_findings", first, err);
	ev_receipt_set_fact(r, "max_findings_per_rule", json_integer(run->max_findings), err);
	*total = run->archive_findings;
	for (int q = 0; q < EV_RULE_COUNT; q++) {
		char detail[64];
		snprintf(detail, sizeof detail, "%" PRIu64 " finding%s", by_rule[q], by_rule[q] == 1 ? "" : "s");
		ev_receipt_add_check(r, ev_fix_rule_name((enum ev_fix_rule)q), by_rule[q] == 0, detail, err);
		*total += by_rule[q];
	}
	return err->status == EV_OK ? EV_OK : err->status;
}

/* "12..14, 19" from ranges; "and N more" past what is kept. */
