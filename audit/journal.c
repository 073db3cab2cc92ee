/* audit journal: every FIX message both endpoints of a pair persisted,
 * recomputed cold, and the two copies held against each other. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "audit/audit.h"
#include "audit/journal.h"
#include "lib/fix/fixcheck.h"
#include "lib/fix/fixdict.h"
#include "lib/fix/fingerprint.h"
#include "lib/fix/fixread.h"
#include "lib/core/input.h"
#include "lib/archive/seal.h"
#include "lib/fix/fixspec.h"
#include "lib/core/json.h"
#include "lib/receipt/receipt.h"
#include "lib/core/sha256.h"

#define DEFAULT_MAX_FINDINGS 10

/* The first side's record again, from disk, to show a disagreement. */
static long reread(void *ctx, uint32_t file, uint64_t offset, char *buf, size_t cap)
{
	const struct side *s = ctx;
	if (file >= s->nfiles)
		return -1;
	int fd = open(s->files[file], O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = pread(fd, buf, cap, (off_t)offset);
	close(fd);
	return n;
}

/* One side, from disk: every file through its reader into the checker,
 * hashed on the way. */
static ev_status audit_side(const struct journal_run *run, struct pair *p, struct side *s,
			    enum ev_fingerprint_mode mode, const struct side *first, struct journal_mirror *keep,
			    int *halted, struct ev_error *err)
{
	struct side_session ss;
	size_t files_done = 0;
	ev_status st = audit_journal_side_open(run, p, s, mode, keep, &ss, err);
	if (st != EV_OK)
		return st;
	st = audit_journal_read_files(run, ss.reader, s, &files_done, err);
	if (st == EV_INTERRUPTED && ss.halt && !ev_cli_interrupted) {
		ev_error_clear(err); /* left at a finding: judged again in full */
		audit_journal_progress_again(run->progress, ss.fed, files_done);
		audit_journal_side_abandon(&ss);
		*halted = 1;
		return EV_OK;
	}
	if (st == EV_OK)
		audit_journal_side_close(&ss, first, reread);
	else
		audit_journal_side_abandon(&ss);
	return st;
}

/* A pair from disk: the sender's side first, recording fingerprints, then
 * the receiver's, held against the sender's message by message where it
 * may be (journal_mirror.c), otherwise judged afresh and compared. */
static void run_pair(const struct journal_run *run, struct pair *p)
{
	struct ev_error *err = &p->err;
	int both = p->side[0].present && p->side[1].present, same = 0, halted = 0;
	struct side *a = p->side[0].present ? &p->side[0] : &p->side[1];
	struct journal_mirror *keep = audit_journal_mirror_for(run, p, a);
	ev_status st = audit_side(run, p, a, both ? EV_FINGERPRINT_RECORD : EV_FINGERPRINT_NONE, a, keep, &halted, err);
	if (st == EV_OK && keep) {
		if (audit_journal_mirror_fits(run, p, &p->side[1]))
			st = audit_journal_mirror_side(run, p, &p->side[1], a, &same, err);
		if (st == EV_OK && !same && !halted) { /* again, with fingerprints to compare the other copy by */
			uint64_t fed = 0;
			for (size_t i = 0; i < a->nfiles; i++)
				fed += a->bytes[i];
			audit_journal_progress_again(run->progress, fed, a->nfiles);
		}
		if (st == EV_OK && !same) {
			audit_journal_forget_side(p, a);
			st = audit_side(run, p, a, EV_FINGERPRINT_RECORD, a, NULL, &halted, err);
		}
	}
	free(p->mirror.h);
	memset(&p->mirror, 0, sizeof p->mirror);
	if (st == EV_OK && both && !same)
		st = audit_side(run, p, &p->side[1], EV_FINGERPRINT_COMPARE, a, NULL, &halted, err);
	if (st != EV_OK)
		ev_error_wrap(err, "pair %zu", p->number);
	p->st = st;
	ev_fingerprint_set_free(&p->prints);
}

struct pool {
	const struct journal_run *run;
	atomic_size_t next, finished;
};

static void *worker(void *arg)
{
	struct pool *pool = arg;
	for (;;) {
		size_t i = atomic_fetch_add(&pool->next, 1);
		if (i >= pool->run->npairs)
			break;
		run_pair(pool->run, &pool->run->pairs[i]);
	}
	atomic_fetch_add(&pool->finished, 1);
	return NULL;
}

/* Redraw the progress line from the counters until every worker is done. */
static void watch_progress(struct journal_progress *pr, struct pool *pool, size_t workers)
{
	const struct timespec tick = {0, 50 * 1000 * 1000};
	uint64_t shown = 0, shown_files = 0, grown = 0, grown_files = 0;
	while (atomic_load(&pool->finished) < workers) {
		nanosleep(&tick, NULL);
		uint64_t again = atomic_load(&pr->again_bytes), again_files = atomic_load(&pr->again_files);
		pr->line.total_bytes += again - grown;
		pr->line.total_members += again_files - grown_files;
		grown = again;
		grown_files = again_files;
		uint64_t fed = atomic_load(&pr->fed), files = atomic_load(&pr->files);
		ev_progress_add(&pr->line, fed - shown, files - shown_files);
		shown = fed;
		shown_files = files;
	}
}

static ev_status run_pairs(struct journal_run *run, struct ev_error *err)
{
	struct pool pool = {.run = run};
	size_t n = run->jobs < run->npairs ? run->jobs : run->npairs;
	/* With a line to draw, this thread draws it; else it works too. */
	int drawing = run->progress && run->progress->line.enabled;
	pthread_t threads[JOURNAL_MAX_PAIRS];
	size_t started = 0, spawn = drawing ? n : n - 1;
	for (; started < spawn; started++)
		if (pthread_create(&threads[started], NULL, worker, &pool) != 0)
			break;
	if (drawing && started > 0)
		watch_progress(run->progress, &pool, started);
	else
		worker(&pool);
	for (size_t i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	for (size_t i = 0; i < run->npairs; i++)
		if (run->pairs[i].st != EV_OK)
			return ev_error_set(err, run->pairs[i].st, "%s", run->pairs[i].err.text);
	return EV_OK;
}

/* --- reporting ---------------------------------------------------------------- */

static void print_finding(const struct pair *p, const struct ev_fix_finding *f)
{
	char where[PATH_MAX + 96] = "";
	if (f->file && f->record)
		snprintf(where, sizeof where, "%s: record %" PRIu64 " (byte %" PRIu64 "): ", f->file,
			 f->record, f->offset);
	else if (f->file)
		snprintf(where, sizeof where, "%s: byte %" PRIu64 ": ", f->file, f->offset);
	fprintf(stderr, TOOL ": pair %zu %s: %s%s: %s", p->number, f->side, where,
		ev_fix_rule_name(f->rule), f->message);
	if (f->expected[0] || f->found[0])
		fprintf(stderr, " (expected %s, found %s)", f->expected[0] ? f->expected : "nothing",
			f->found[0] ? f->found : "nothing");
	fputc('\n', stderr);
}

static uint64_t side_findings(const struct side *s)
{
	uint64_t n = 0;
	for (int r = 0; r < EV_RULE_COUNT; r++)
		n += s->stats.by_rule[r];
	return n;
}

static const char *base_of(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

static json_t *finding_json(const struct pair *p, const struct ev_fix_finding *f)
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
static json_t *session_json(const struct side *s)
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

static json_t *side_json(const struct pair *p, const struct side *s)
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
static json_t *journal_coverage(const struct journal_run *run, char *line, size_t cap)
{
	json_t *o = json_object(), *done = json_array(), *not = json_array();
	size_t both = 0, one = 0;
	uint64_t skipped = 0;
	for (size_t i = 0; i < run->npairs; i++) {
		const struct pair *p = &run->pairs[i];
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

static ev_status build_receipt(struct journal_run *run, json_t *r, uint64_t *total,
			       struct ev_error *err)
{
	ev_receipt_add_input(r, "spec", run->spec_path, run->spec_hex, err);
	for (size_t i = 0; i < run->ndicts; i++)
		ev_receipt_add_input(r, "dictionary", run->dicts[i], run->dict_hex[i], err);
	if (run->archive)
		ev_receipt_add_input(r, "archive", run->archive, run->archive_hex, err);
	if (run->seal)
		ev_receipt_add_input(r, EV_SEAL_FILENAME, run->seal, run->seal_hex, err);
	json_t *pairs = json_array(), *first = json_array();
	uint64_t by_rule[EV_RULE_COUNT] = {0};
	for (size_t i = 0; i < run->npairs; i++) {
		struct pair *p = &run->pairs[i];
		json_t *pj = json_object();
		for (int k = 0; k < 2; k++) {
			struct side *s = &p->side[k];
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
static void ranges_text(const struct ev_fixsession_ranges *r, char *out, size_t cap)
{
	size_t n = 0;
	out[0] = 0;
	for (size_t i = 0; i < r->n && n + 48 < cap; i++) {
		if (r->v[i].from == r->v[i].to)
			n += (size_t)snprintf(out + n, cap - n, "%s%" PRIu64, i ? ", " : "", r->v[i].from);
		else
			n += (size_t)snprintf(out + n, cap - n, "%s%" PRIu64 "..%" PRIu64, i ? ", " : "", r->v[i].from,
					      r->v[i].to);
	}
	if (r->count > r->n && n < cap)
		snprintf(out + n, cap - n, " and %" PRIu64 " more", r->count - r->n);
}

/* One line per kind of session event the copy holds; nothing for a
 * session that ran without one. */
static void print_session(const struct pair *p, const struct side *s)
{
	const struct ev_fixsession_facts *f = &s->session;
	char text[1024];
	struct { const struct ev_fixsession_ranges *r; const char *what; int by_message; } kinds[] = {
		{&f->gaps, "gaps (MsgSeqNum above the next expected)", 0},
		{&f->resend_requests, "ResendRequests from the peer (BeginSeqNo..EndSeqNo, 0: to the end)", 0},
		{&f->resends, "resends (PossDupFlag 43=Y, first copy here)", 1},
		{&f->duplicates, "possible duplicates (43=Y, already here)", 1},
		{&f->gap_fills, "SequenceReset-GapFills (the numbers each fills)", 0},
		{&f->resets, "resets (the number expected..the number after)", 0},
		{&f->unanswered, "TestRequests unanswered before the connection ended", 0},
	};
	for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
		if (!kinds[k].r->count)
			continue;
		ranges_text(kinds[k].r, text, sizeof text);
		printf("pair %zu %-8s session: %s: %" PRIu64 ": %s\n", p->number, s->role, kinds[k].what,
		       kinds[k].by_message ? kinds[k].r->messages : kinds[k].r->count, text);
	}
	if (f->rejects.count) {
		size_t n = 0;
		for (size_t i = 0; i < f->rejects.n && n + 64 < sizeof text; i++)
			n += (size_t)snprintf(text + n, sizeof text - n, "%s%s rejected MsgSeqNum %" PRIu64, i ? ", " : "",
					      f->rejects.v[i].by_peer ? "the peer" : "this side", f->rejects.v[i].to);
		printf("pair %zu %-8s session: session-level Rejects: %" PRIu64 ": %s\n", p->number, s->role,
		       f->rejects.count, text);
	}
	if (f->test_requests_answered)
		printf("pair %zu %-8s session: TestRequests answered (Heartbeat echoing 112): %" PRIu64 "\n", p->number,
		       s->role, f->test_requests_answered);
	if (s->has_orders) {
		const struct ev_fixorders_facts *o = &s->orders;
		char first[EV_FIXORDERS_LISTED * (EV_FIXORDERS_ID_MAX + 4)] = "";
		size_t n = 0;
		for (uint64_t i = 0; i < o->unanswered && i < EV_FIXORDERS_LISTED; i++)
			n += (size_t)snprintf(first + n, sizeof first - n, "%s%s", i ? ", " : ": ClOrdID ",
					      o->unanswered_ids[i]);
		printf("pair %zu %-8s orders: %" PRIu64 " sent, %" PRIu64 " ExecutionReports, %" PRIu64 " answered (%" PRIu64
		       " filled, %" PRIu64 " canceled, %" PRIu64 " rejected, %" PRIu64 " expired, %" PRIu64 " open), %" PRIu64
		       " cancel and %" PRIu64 " replace requests, %" PRIu64 " unanswered%s%s\n",
		       p->number, s->role, o->orders, o->execution_reports, o->answered, o->filled, o->canceled, o->rejected,
		       o->expired, o->open, o->cancel_requests, o->replace_requests, o->unanswered, first,
		       o->unanswered > EV_FIXORDERS_LISTED ? " and more" : "");
	}
	if (s->stats.resends_matched || s->stats.gap_filled)
		printf("pair %zu %-8s session: against the %s: %" PRIu64 " resends equal to their originals but for 43, 97, "
		       "122, 52, 9 and 10; %" PRIu64 " originals replaced by GapFills, all session-level\n",
		       p->number, s->role, p->side[0].role, s->stats.resends_matched, s->stats.gap_filled);
}

static void print_summary(const struct journal_run *run, uint64_t total, const char *receipt)
{
	uint64_t orders = 0, sides = 0;
	for (size_t i = 0; i < run->npairs; i++) {
		const struct pair *p = &run->pairs[i];
		for (int k = 0; k < 2; k++) {
			const struct side *s = &p->side[k];
			if (!s->present)
				continue;
			sides++;
			orders += s->stats.orders;
			uint64_t recs = 0;
			for (size_t f = 0; f < s->nfiles; f++)
				recs += s->records[f];
			char skipped[64] = "";
			if (s->stats.skipped)
				snprintf(skipped, sizeof skipped, " (%" PRIu64 " of the other direction left out)",
					 s->stats.skipped);
			printf("pair %zu %-8s %s: %s, %zu file%s, %" PRIu64 " records%s: %" PRIu64
			       " orders (expected %" PRIu64 "), %" PRIu64 " other messages, %" PRIu64 " findings\n",
			       p->number, s->role, s->path, ev_fixread_kind_name(s->kind), s->nfiles,
			       s->nfiles == 1 ? "" : "s", recs, skipped, s->stats.orders,
			       p->spec.warmups + p->spec.measured, s->stats.others, side_findings(s));
			if (s->mirrored)
				printf("pair %zu %-8s judged as the %s's copy: the same %" PRIu64
				       " messages in the same order (--judge-each-copy judges it afresh)\n",
				       p->number, s->role, p->side[0].role, s->stats.messages);
			print_session(p, s);
		}
		if (p->latency_text)
			fputs(p->latency_text, stdout);
	}
	printf("%s\n", run->coverage_line);
	printf("%s: %" PRIu64 " side%s, %" PRIu64 " orders, %" PRIu64 " finding%s; receipt %s\n",
	       total ? "FAIL" : "OK", sides, sides == 1 ? "" : "s", orders, total,
	       total == 1 ? "" : "s", receipt);
}

/* A spec whose counts miss the journals says so first, once: the other
 * findings follow from it. */
static void print_count_hint(const struct journal_run *run)
{
	for (size_t i = 0; i < run->npairs; i++)
		for (int k = 0; k < 2; k++) {
			const struct ev_fixspec *spec = &run->pairs[i].spec;
			uint64_t want = spec->warmups + spec->measured;
			const struct side *s = &run->pairs[i].side[k];
			if (!s->present || s->stats.orders == want)
				continue;
			fprintf(stderr,
				TOOL ": pair %zu %s: expected %" PRIu64 " orders (%" PRIu64 " warmups + %" PRIu64
				" measured), found %" PRIu64 ": if the run was of another size, say --warmups and "
				"--measured\n",
				run->pairs[i].number, s->role, want, spec->warmups, spec->measured, s->stats.orders);
			return;
		}
}

static void print_findings(const struct journal_run *run)
{
	print_count_hint(run);
	for (size_t i = 0; i < run->npairs; i++) {
		const struct pair *p = &run->pairs[i];
		for (size_t f = 0; f < p->findings.n; f++)
			print_finding(p, &p->findings.v[f]);
		for (int k = 0; k < 2; k++) {
			const struct side *s = &p->side[k];
			for (int q = 0; run->max_findings && q < EV_RULE_COUNT; q++)
				if (s->stats.by_rule[q] > run->max_findings)
					fprintf(stderr, TOOL ": pair %zu %s: %s: %" PRIu64 " more not shown (--max-findings)\n",
						p->number, s->role, ev_fix_rule_name((enum ev_fix_rule)q),
						s->stats.by_rule[q] - run->max_findings);
		}
	}
}

/* --- setting up --------------------------------------------------------------- */

static ev_status hash_file(const char *path, char hex[EV_SHA256_HEX_LEN + 1], struct ev_error *err)
{
	uint8_t d[EV_SHA256_LEN];
	ev_status st = ev_sha256_path(path, d, NULL, err);
	if (st == EV_OK)
		ev_sha256_hex(d, hex);
	return st;
}

static ev_status prepare_side(struct journal_run *run, struct side *s, uint64_t *total,
			      uint64_t *files, struct ev_error *err)
{
	int chosen = run->side_format[strcmp(s->role, "receiver") == 0];
	if (chosen < 0)
		chosen = run->format;
	int kind = chosen >= 0 ? chosen : ev_fixread_detect(s->path, err);
	if (kind < 0)
		return err->status;
	s->kind = (enum ev_fixread_kind)kind;
	ev_status st = ev_fixread_list(s->kind, s->path, &s->files, &s->nfiles, err);
	if (st != EV_OK)
		return st;
	if (!s->nfiles)
		return ev_error_set(err, EV_USAGE, "%s: holds no journal file (N.bin)", s->path);
	s->digests = calloc(s->nfiles, sizeof *s->digests);
	s->bytes = calloc(s->nfiles, sizeof *s->bytes);
	s->records = calloc(s->nfiles, sizeof *s->records);
	if (!s->digests || !s->bytes || !s->records)
		return ev_error_set(err, EV_ERROR, "out of memory");
	*files += s->nfiles;
	for (size_t i = 0; i < s->nfiles; i++) { /* for the progress line's goal */
		struct stat sb;
		if (stat(s->files[i], &sb) == 0)
			*total += (uint64_t)sb.st_size;
	}
	return EV_OK;
}

/* The first message of a side, for what must hold before any message is
 * judged: the first record of its first file, its first bytes only. */
struct first_message {
	char bytes[4096];
	uint32_t len;
	int found;
};

static void first_record(void *ctx, const struct ev_fix_record *r)
{
	struct first_message *f = ctx;
	if (f->found++)
		return;
	f->len = r->len < sizeof f->bytes ? r->len : (uint32_t)sizeof f->bytes;
	memcpy(f->bytes, r->msg, f->len);
}

static void first_damage(void *ctx, enum ev_fix_rule rule, const char *file, uint64_t record,
			 uint64_t offset, const char *message, const char *expected, const char *found)
{
	/* the audit itself reports the damage */
	(void)ctx, (void)rule, (void)file, (void)record, (void)offset, (void)message, (void)expected, (void)found;
}

static ev_status read_first_message(const struct side *s, struct first_message *f, struct ev_error *err)
{
	struct ev_fixread_sink sink = {first_record, first_damage, f, NULL, NULL, NULL, NULL};
	struct ev_fixread *r = ev_fixread_new(s->kind, &sink);
	unsigned char *buf = malloc(1 << 16);
	ev_status st = EV_OK;
	memset(f, 0, sizeof *f);
	/* a journal is a regular file: a FIFO or a device is refused here,
	 * before anything is printed (ev_input_open never waits on one) */
	int fd = -1;
	if (!r || !buf)
		st = ev_error_set(err, EV_ERROR, "out of memory");
	else if ((fd = ev_input_open(s->files[0], "journal", err)) < 0)
		st = err->status;
	else if ((st = ev_fixread_begin(r, s->files[0], 0, err)) == EV_OK) {
		ssize_t got;
		while (!f->found && (got = read(fd, buf, 1 << 16)) > 0) {
			if (ev_cli_interrupted) {
				st = ev_error_set(err, EV_INTERRUPTED,
						  "%s: interrupted by a signal; nothing is claimed", s->files[0]);
				break;
			}
			if ((st = ev_fixread_feed(r, buf, (size_t)got, err)) != EV_OK)
				break;
		}
	}
	if (fd >= 0)
		close(fd);
	free(buf);
	ev_fixread_free(r);
	return st;
}

/* The dictionaries must be of the version the messages are: else every
 * message would fail the dictionary's rules, thousands of findings that
 * say nothing. Judged on the first message of the first side, before any
 * is audited; a side whose first message cannot be read is left to the
 * audit, which names the damage. */
static ev_status dictionary_fits(const struct journal_run *run, struct ev_error *err)
{
	const struct side *s = NULL;
	for (size_t i = 0; i < run->npairs && !s; i++)
		for (int k = 0; k < 2 && !s; k++)
			if (run->pairs[i].side[k].present && run->pairs[i].side[k].nfiles)
				s = &run->pairs[i].side[k];
	struct first_message f;
	ev_status st;
	if (!s || (st = read_first_message(s, &f, err)) != EV_OK)
		return s ? st : EV_OK;
	if (!f.found)
		return EV_OK;
	char begin[24], wanted[2][24] = {"", ""}, given[256] = "";
	ev_fix_versions_of(f.bytes, f.len, begin, wanted[1]);
	snprintf(wanted[0], sizeof wanted[0], "%s", begin);
	for (size_t i = 0, used = 0; i < run->dict->nversions; i++) {
		int n = snprintf(given + used, sizeof given - used, "%s%s", i ? ", " : "", run->dict->versions[i]);
		if (n > 0 && (size_t)n < sizeof given - used)
			used += (size_t)n;
	}
	for (int w = 0; w < 2; w++) {
		if (!wanted[w][0] || ev_fixdict_has_version(run->dict, wanted[w]))
			continue;
		const char *file = ev_fixdict_shipped_file(wanted[w]);
		char hint[96];
		snprintf(hint, sizeof hint, file ? "--dict %s" : "a QuickFIX dictionary of %s", file ? file : wanted[w]);
		return ev_error_set(err, EV_USAGE,
				    "%s: its messages are %s%s%s, and the dictionaries given are %s: name the "
				    "dictionary of that version (%s%s)",
				    s->files[0], begin, w ? " with application version " : "", w ? wanted[1] : "",
				    given[0] ? given : "of no version", hint,
				    w == 0 && strncmp(begin, "FIXT", 4) == 0 ? " with its application dictionary" : "");
	}
	return EV_OK;
}

void audit_journal_free(struct journal_run *run)
{
	for (size_t i = 0; run->pairs && i < run->npairs; i++) {
		struct pair *p = &run->pairs[i];
		for (int k = 0; k < 2; k++) {
			ev_fixread_files_free(p->side[k].files, p->side[k].nfiles);
			for (size_t c = 0; c < p->side[k].ncompanions; c++) {
				free(p->side[k].companions[c].path);
				free(p->side[k].companions[c].checked);
			}
			free(p->side[k].companions);
			free(p->side[k].digests);
			free(p->side[k].bytes);
			free(p->side[k].records);
			ev_fixlatency_stream_free(&p->side[k].latency[0]);
			ev_fixlatency_stream_free(&p->side[k].latency[1]);
		}
		json_decref(p->latency);
		free(p->latency_text);
		free(p->findings.v);
		ev_fingerprint_set_free(&p->prints);
	}
	free(run->pairs);
	ev_fixdict_free(run->dict);
	ev_fixspec_free(&run->spec);
}

static ev_status write_receipt(struct journal_run *run, json_t *r, char *path, size_t cap,
			       struct ev_error *err)
{
	ev_status st = ev_receipt_finish_signed(r, run->sign_key, err);
	if (st != EV_OK)
		return st;
	st = ev_receipt_write_chosen(r, run->receipt, EV_RECEIPT_DEFAULT_DIR, "audit-journal", path, cap, err);
	if (st == EV_OK && run->json) {
		st = ev_json_print(r, stdout, err);
	}
	return st;
}

ev_status audit_journal_run_all(struct journal_run *run, struct ev_error *err)
{
	ev_status st;
	json_t *receipt = NULL;
	char receipt_path[PATH_MAX];
	if ((st = ev_receipt_refuse_existing(run->receipt, err)) != EV_OK)
		return st;
	if ((st = ev_fixspec_load(run->spec_path, &run->spec, run->spec_hex, err)) != EV_OK)
		return st;
	if (run->warmups >= 0)
		run->spec.warmups = (uint64_t)run->warmups;
	if (run->measured >= 0)
		run->spec.measured = (uint64_t)run->measured;
	for (size_t i = 0; i < run->npairs; i++) {
		struct pair *p = &run->pairs[i];
		p->spec = run->spec;
		if (p->own_counts) {
			p->spec.warmups = p->warmups;
			p->spec.measured = p->measured;
		}
	}
	if (!run->sender_compid)
		for (size_t i = 0; i < run->spec.nfields; i++)
			if (run->spec.fields[i].tag == 49 && run->spec.fields[i].value)
				run->sender_compid = run->spec.fields[i].value;
	for (size_t i = 0; i < run->ndicts; i++)
		if ((st = hash_file(run->dicts[i], run->dict_hex[i], err)) != EV_OK)
			return st;
	if ((st = ev_fixdict_load(&run->dict, run->dicts, run->ndicts, err)) != EV_OK)
		return st;
	if ((st = ev_fingerprint_key_new(&run->key, err)) != EV_OK)
		return st;
	if (!(run->doc = receipt = ev_receipt_new("audit", TOOL, err)))
		return err->status;
	if (run->archive) {
		st = audit_journal_from_archive(run, err);
	} else {
		uint64_t bytes = 0, files = 0;
		for (size_t i = 0; i < run->npairs && st == EV_OK; i++)
			for (int k = 0; k < 2 && st == EV_OK; k++)
				if (run->pairs[i].side[k].present)
					st = prepare_side(run, &run->pairs[i].side[k], &bytes, &files, err);
		if (st == EV_OK)
			st = dictionary_fits(run, err);
		if (st == EV_OK) {
			struct journal_progress progress = {0};
			ev_progress_init(&progress.line, stderr, TOOL ": auditing", bytes, files);
			progress.line.noun = "files";
			run->progress = &progress;
			st = run_pairs(run, err);
			ev_progress_done(&progress.line);
			run->progress = NULL;
		}
	}
	uint64_t total = 0;
	for (size_t i = 0; i < run->npairs && st == EV_OK && run->latency; i++)
		st = audit_journal_latency(run, &run->pairs[i], receipt, err);
	if (st != EV_OK) {
		audit_journal_latency_release(run, 1);
		json_decref(receipt);
		return st;
	}
	if ((st = build_receipt(run, receipt, &total, err)) == EV_OK &&
	    (st = write_receipt(run, receipt, receipt_path, sizeof receipt_path, err)) == EV_OK) {
		if (!run->json) {
			print_findings(run);
			if (!run->quiet)
				print_summary(run, total, receipt_path);
		}
		run->findings = total;
		st = total ? EV_MISMATCH : EV_OK;
	}
	audit_journal_latency_release(run, st != EV_OK && st != EV_MISMATCH);
	json_decref(receipt);
	return st;
}

/* A file that ships with evidence: installed, else beside the sources. */
static const char *default_data(const char *rel, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s/%s", EV_PKGDATADIR, rel);
	if (access(buf, R_OK) == 0)
		return buf;
	snprintf(buf, cap, "%s/share/%s", EV_TOP_SRCDIR, rel);
	return access(buf, R_OK) == 0 ? buf : NULL;
}

void audit_journal_init(struct journal_run *run)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	memset(run, 0, sizeof *run);
	run->format = -1;
	run->side_format[0] = run->side_format[1] = -1;
	run->warmups = -1;
	run->measured = -1;
	run->max_findings = DEFAULT_MAX_FINDINGS;
	run->jobs = cores > 0 ? (size_t)cores : 1;
}

ev_status audit_journal_prepare(struct journal_run *run, const char *const *senders, const char *const *receivers,
			  size_t nsenders, size_t nreceivers, struct ev_error *err)
{
	if (!run->spec_path &&
	    !(run->spec_path = default_data("audit/llfix-tx-new-order.json", run->spec_buf, sizeof run->spec_buf)))
		return ev_error_set(err, EV_USAGE, "no --spec given, and the default spec is not installed");
	if (!run->ndicts) {
		run->dicts[0] = (char *)default_data("fix/FIXT11.xml", run->dict_buf[0], sizeof run->dict_buf[0]);
		run->dicts[1] = (char *)default_data("fix/FIX50.xml", run->dict_buf[1], sizeof run->dict_buf[1]);
		if (!run->dicts[0] || !run->dicts[1])
			return ev_error_set(err, EV_USAGE, "no --dict given, and the default dictionaries are not installed");
		run->ndicts = 2;
	}
	run->npairs = nsenders > nreceivers ? nsenders : nreceivers;
	if (!(run->pairs = calloc(run->npairs ? run->npairs : 1, sizeof *run->pairs)))
		return ev_error_set(err, EV_ERROR, "out of memory");
	for (size_t i = 0; i < run->npairs; i++) {
		struct pair *p = &run->pairs[i];
		p->number = i + 1;
		p->side[0] = (struct side){.role = "sender", .path = i < nsenders ? senders[i] : NULL,
					   .present = i < nsenders && senders[i]};
		p->side[1] = (struct side){.role = "receiver", .path = i < nreceivers ? receivers[i] : NULL,
					   .present = i < nreceivers && receivers[i]};
		ev_error_clear(&p->err);
	}
	return EV_OK;
}

int audit_journal_main(int argc, char **argv)
{
	struct journal_run run;
	audit_journal_init(&run);
	const char *senders[JOURNAL_MAX_PAIRS], *receivers[JOURNAL_MAX_PAIRS];
	size_t nsenders = 0, nreceivers = 0;
	long v;
	int c;
	struct ev_cli_getopt opts;
	ev_cli_getopt_init(&opts, &audit_tool, "journal");
	optind = 1;
	while ((c = getopt_long(argc, argv, opts.shortopts, opts.longopts, NULL)) != -1) {
		switch (c) {
		case 'K':
			if (ev_cli_sign_key(TOOL, optarg, &run.sign_key))
				return 2;
			break;
		case 'a': run.archive = optarg; break;
		case 'C': {
			const char *eq = strchr(optarg, '=');
			int k = eq && (size_t)(eq - optarg) == 6 && strncmp(optarg, "sender", 6) == 0     ? 0
				: eq && (size_t)(eq - optarg) == 8 && strncmp(optarg, "receiver", 8) == 0 ? 1
													  : -1;
			if (k < 0 || !eq[1])
				return ev_cli_usage(&audit_tool, "journal",
						 "option --clock: expected sender=NAME or receiver=NAME, found '%s'", optarg);
			run.clock[k] = eq + 1;
			break;
		}
		case 'c': run.sender_compid = optarg; break;
		case 'd':
			if (run.ndicts == JOURNAL_MAX_DICTS)
				return ev_cli_usage(&audit_tool, "journal", "at most %d --dict", JOURNAL_MAX_DICTS);
			run.dicts[run.ndicts++] = optarg;
			break;
		case 'f':
		case 'F':
		case 'G': {
			int kind = ev_fixread_kind_parse(optarg);
			const char *name = c == 'f' ? "--format" : c == 'F' ? "--sender-format" : "--receiver-format";
			if (kind < 0)
				return ev_cli_usage(&audit_tool, "journal", "option %s: expected llfix, raw, qf-store or qf-log, found '%s'",
						 name, optarg);
			*(c == 'f' ? &run.format : &run.side_format[c == 'G']) = kind;
			break;
		}
		case 'H': run.hgrm_dir = optarg; break;
		case 'h':
			return ev_cli_help(&audit_tool, "journal");
		case 'J':
			if (ev_cli_parse_long(optarg, 1, 256, &v))
				return ev_cli_usage(&audit_tool, "journal", "option --jobs: expected 1-256, found '%s'", optarg);
			run.jobs = (size_t)v;
			break;
		case 'j': run.json = 1; break;
		case 'E': run.judge_each_copy = 1; break;
		case 'L': run.latency = 1; break;
		case 'q': {
			int rule = ev_qrule_parse(optarg);
			if (rule < 0)
				return ev_cli_usage(&audit_tool, "journal",
						 "option --quantile-rule: expected nearest-rank, floor-index, round-half-up "
						 "or linear, found '%s'", optarg);
			run.quantile_rule = (enum ev_qrule)rule;
			break;
		}
		case 'M':
			if (ev_cli_parse_long(optarg, 0, 1000000, &v))
				return ev_cli_usage(&audit_tool, "journal", "option --max-findings: expected 0-1000000, found '%s'", optarg);
			run.max_findings = (unsigned)v;
			break;
		case 'm':
			if (ev_cli_parse_long(optarg, 0, LONG_MAX, &run.measured))
				return ev_cli_usage(&audit_tool, "journal", "option --measured: expected a count, found '%s'", optarg);
			break;
		case 'o': run.receipt = optarg; break;
		case 'p': run.spec_path = optarg; break;
		case 'R':
			if (nreceivers == JOURNAL_MAX_PAIRS)
				return ev_cli_usage(&audit_tool, "journal", "at most %d pairs", JOURNAL_MAX_PAIRS);
			receivers[nreceivers++] = optarg;
			break;
		case 'S': run.seal = optarg; break;
		case 'P': run.seal_sha256 = optarg; break;
		case 's':
			if (nsenders == JOURNAL_MAX_PAIRS)
				return ev_cli_usage(&audit_tool, "journal", "at most %d pairs", JOURNAL_MAX_PAIRS);
			senders[nsenders++] = optarg;
			break;
		case 'w':
			if (ev_cli_parse_long(optarg, 0, LONG_MAX, &run.warmups))
				return ev_cli_usage(&audit_tool, "journal", "option --warmups: expected a count, found '%s'", optarg);
			break;
		default:
			return ev_cli_usage(&audit_tool, "journal", "%s", ev_cli_option_problem(argv));
		}
	}
	if (optind != argc)
		return ev_cli_usage(&audit_tool, "journal", "unexpected argument '%s' (journals are named by --sender and --receiver)",
				 argv[optind]);
	if (!nsenders && !nreceivers)
		return ev_cli_usage(&audit_tool, "journal", "no journal given (--sender PATH, --receiver PATH)");
	if (nsenders && nreceivers && nsenders != nreceivers)
		return ev_cli_usage(&audit_tool, "journal", "%zu --sender and %zu --receiver: pairs need one of each, in order",
				 nsenders, nreceivers);
	if (!!run.archive != !!run.seal)
		return ev_cli_usage(&audit_tool, "journal", "--archive and --seal go together");
	if ((run.hgrm_dir || run.clock[0] || run.clock[1]) && !run.latency)
		return ev_cli_usage(&audit_tool, "journal", "--hgrm and --clock go with --latency");
	if (run.hgrm_dir) {
		struct stat hs;
		if (stat(run.hgrm_dir, &hs) != 0 || !S_ISDIR(hs.st_mode))
			return ev_cli_usage(&audit_tool, "journal", "option --hgrm: %s is %s, not a directory; create it first",
					 run.hgrm_dir, stat(run.hgrm_dir, &hs) != 0 ? "absent" : ev_input_kind(hs.st_mode));
	}
	if (run.seal_sha256 && !run.seal)
		return ev_cli_usage(&audit_tool, "journal", "--seal-sha256 pins a --seal; none given");
	if (run.seal_sha256 && !ev_sha256_hex_valid(run.seal_sha256))
		return ev_cli_usage(&audit_tool, "journal", "option --seal-sha256: expected 64 lower-case hex digits");
	struct ev_error err;
	ev_error_clear(&err);
	if (audit_journal_prepare(&run, senders, receivers, nsenders, nreceivers, &err) != EV_OK) {
		if (err.status == EV_USAGE)
			return ev_cli_usage(&audit_tool, "journal", "%s", err.text);
		ev_cli_error(TOOL, &err);
		audit_journal_free(&run);
		return 2;
	}
	ev_cli_catch_signals();
	ev_status st = audit_journal_run_all(&run, &err);
	if (st >= EV_ERROR)
		ev_cli_error(TOOL, &err);
	audit_journal_free(&run);
	ev_signing_key_free(run.sign_key);
	return ev_status_exit_code(st);
}
