/* SPDX-License-Identifier: Apache-2.0 */
/* audit journal: FIX journals judged cold (lib/usecase/audit/journal/audit_journal),
 * and what it found shown: each finding, a line per side and its
 * session, the verdict. */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "audit/audit.h"
#include "lib/cli/progress.h"
#include "lib/core/input.h"
#include "lib/receipt/receipt.h"
#include "lib/usecase/audit/journal/audit_journal.h"

static void print_finding(const struct ev_journal_pair *p, const struct ev_fix_finding *f)
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

static uint64_t side_findings(const struct ev_journal_side *s)
{
	uint64_t n = 0;
	for (int r = 0; r < EV_RULE_COUNT; r++)
		n += s->stats.by_rule[r];
	return n;
}

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
static void print_session(const struct ev_journal_pair *p, const struct ev_journal_side *s)
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

static void print_summary(const struct ev_audit_journal *run)
{
	uint64_t total = run->findings;
	uint64_t orders = 0, sides = 0;
	for (size_t i = 0; i < run->npairs; i++) {
		const struct ev_journal_pair *p = &run->pairs[i];
		for (int k = 0; k < 2; k++) {
			const struct ev_journal_side *s = &p->side[k];
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
	       total == 1 ? "" : "s", run->receipt_path);
}

/* A spec whose counts miss the journals says so first, once: the other
 * findings follow from it. */
static void print_count_hint(const struct ev_audit_journal *run)
{
	for (size_t i = 0; i < run->npairs; i++)
		for (int k = 0; k < 2; k++) {
			const struct ev_fixspec *spec = &run->pairs[i].spec;
			uint64_t want = spec->warmups + spec->measured;
			const struct ev_journal_side *s = &run->pairs[i].side[k];
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

void audit_journal_print_findings(const struct ev_audit_journal *run)
{
	print_count_hint(run);
	for (size_t i = 0; i < run->npairs; i++) {
		const struct ev_journal_pair *p = &run->pairs[i];
		for (size_t f = 0; f < p->findings.n; f++)
			print_finding(p, &p->findings.v[f]);
		for (int k = 0; k < 2; k++) {
			const struct ev_journal_side *s = &p->side[k];
			for (int q = 0; run->max_findings && q < EV_RULE_COUNT; q++)
				if (s->stats.by_rule[q] > run->max_findings)
					fprintf(stderr, TOOL ": pair %zu %s: %s: %" PRIu64 " more not shown (--max-findings)\n",
						p->number, s->role, ev_fix_rule_name((enum ev_fix_rule)q),
						s->stats.by_rule[q] - run->max_findings);
		}
	}
}

/* --- the command ---------------------------------------------------------------- */

static void show_archive_finding(void *ctx, const struct ev_finding *shown, const struct ev_finding *recorded)
{
	ev_cli_findings_add(ctx, shown, recorded);
}

/* The one use case, its progress line, then what it found. */
static ev_status audit_journal(struct ev_audit_journal *run, int json, struct ev_error *err)
{
	json_t *receipt = ev_receipt_new("audit", TOOL, ev_cli_invocation(), err);
	if (!receipt)
		return err->status;
	struct ev_cli_findings archive_findings;
	ev_cli_findings_init(&archive_findings, stderr, TOOL ": ", json, receipt, 0);
	struct ev_progress progress;
	ev_progress_init(&progress, stderr, TOOL ": auditing", 0, 0);
	if (!run->archive)
		progress.noun = "files";
	struct ev_meter meter = ev_progress_meter(&progress);
	run->meter = progress.enabled ? &meter : NULL;
	run->interrupted = &ev_cli_interrupted;
	run->on_archive_finding = show_archive_finding;
	run->ctx = &archive_findings;
	ev_status st = ev_audit_journal_run(run, receipt, err);
	ev_progress_done(&progress);
	run->meter = NULL;
	if (st == EV_OK || st == EV_MISMATCH) {
		ev_status pst = EV_OK;
		if (json)
			pst = ev_json_print(receipt, stdout, err);
		else {
			audit_journal_print_findings(run);
			print_summary(run);
		}
		if (pst != EV_OK)
			st = pst;
	}
	ev_cli_findings_free(&archive_findings);
	json_decref(receipt);
	return st;
}

/* "sender=VALUE" or "receiver=VALUE": 0 or 1 with *value set, else -1. */
static int side_of(const char *arg, const char **value)
{
	const char *eq = strchr(arg, '=');
	int k = eq && (size_t)(eq - arg) == 6 && strncmp(arg, "sender", 6) == 0     ? 0
		: eq && (size_t)(eq - arg) == 8 && strncmp(arg, "receiver", 8) == 0 ? 1
											  : -1;
	if (k < 0 || !eq[1])
		return -1;
	*value = eq + 1;
	return k;
}

/* Kept whole: one case per option, read as a table, then the checks that
 * pair options, the one call and the printing. */
int audit_journal_main(int argc, char **argv)
{
	struct ev_audit_journal run;
	ev_audit_journal_init(&run);
	int json = 0;
	const char *senders[EV_AUDIT_JOURNAL_MAX_PAIRS], *receivers[EV_AUDIT_JOURNAL_MAX_PAIRS];
	const char *trust[16]; /* --trust files: a lab's hosts' keys */
	size_t ntrust = 0;
	size_t nsenders = 0, nreceivers = 0;
	int c;
	struct ev_cli_getopt opts;
	ev_cli_getopt_init(&opts, &audit_tool, "journal");
	optind = 1;
	while ((c = ev_cli_getopt_next(&opts, argc, argv)) != -1) {
		switch (c) {
		case AUDIT_JOURNAL_OPT_SIGN_KEY:
			if (ev_cli_sign_key(TOOL, optarg, &run.sign_key))
				return 2;
			break;
		case AUDIT_JOURNAL_OPT_ARCHIVE: run.archive = optarg; break;
		case AUDIT_JOURNAL_OPT_CLOCK:
		case AUDIT_JOURNAL_OPT_CLOCK_RECORD: {
			const char *value;
			int k = side_of(optarg, &value);
			int record = c == AUDIT_JOURNAL_OPT_CLOCK_RECORD;
			if (k < 0)
				return ev_cli_usage(&audit_tool, "journal", "option --%s: expected sender=%s or receiver=%s, found '%s'",
						 record ? "clock-record" : "clock", record ? "FILE" : "NAME", record ? "FILE" : "NAME",
						 optarg);
			*(record ? &run.clock_record[k] : &run.clock[k]) = value;
			break;
		}
		case AUDIT_JOURNAL_OPT_CLOCK_BOUND: run.clock_bound_ns = (long long)opts.count; break;

		case AUDIT_JOURNAL_OPT_SENDER_COMPID: run.sender_compid = optarg; break;
		case AUDIT_JOURNAL_OPT_DICT:
			if (run.ndicts == EV_AUDIT_JOURNAL_MAX_DICTS)
				return ev_cli_usage(&audit_tool, "journal", "at most %d --dict", EV_AUDIT_JOURNAL_MAX_DICTS);
			run.dicts[run.ndicts++] = optarg;
			break;
		case AUDIT_JOURNAL_OPT_FORMAT:
		case AUDIT_JOURNAL_OPT_SENDER_FORMAT:
		case AUDIT_JOURNAL_OPT_RECEIVER_FORMAT: {
			int kind = ev_fixread_kind_parse(optarg);
			const char *name = c == AUDIT_JOURNAL_OPT_FORMAT ? "--format"
					   : c == AUDIT_JOURNAL_OPT_SENDER_FORMAT ? "--sender-format" : "--receiver-format";
			if (kind < 0)
				return ev_cli_usage(&audit_tool, "journal", "option %s: expected llfix, raw, qf-store or qf-log, found '%s'",
						 name, optarg);
			*(c == AUDIT_JOURNAL_OPT_FORMAT ? &run.format : &run.side_format[c == AUDIT_JOURNAL_OPT_RECEIVER_FORMAT]) = kind;
			break;
		}
		case AUDIT_JOURNAL_OPT_HGRM: run.hgrm_dir = optarg; break;
		case EV_CLI_HELP:
			return ev_cli_help(&audit_tool, "journal");
		case AUDIT_JOURNAL_OPT_JOBS: run.jobs = (size_t)opts.count; break;
		case AUDIT_JOURNAL_OPT_JSON: json = 1; break;
		case AUDIT_JOURNAL_OPT_JUDGE_EACH_COPY: run.judge_each_copy = 1; break;
		case AUDIT_JOURNAL_OPT_LATENCY: run.latency = 1; break;
		case AUDIT_JOURNAL_OPT_QUANTILE_RULE: {
			int rule = ev_qrule_parse(optarg);
			if (rule < 0)
				return ev_cli_usage(&audit_tool, "journal",
						 "option --quantile-rule: expected nearest-rank, floor-index, round-half-up "
						 "or linear, found '%s'", optarg);
			run.quantile_rule = (enum ev_qrule)rule;
			break;
		}
		case AUDIT_JOURNAL_OPT_MAX_FINDINGS: run.max_findings = (unsigned)opts.count; break;
		case AUDIT_JOURNAL_OPT_MEASURED: run.measured = opts.count; break;
		case AUDIT_JOURNAL_OPT_RECEIPT: run.receipt = optarg; break;
		case AUDIT_JOURNAL_OPT_SPEC: run.spec_path = optarg; break;
		case AUDIT_JOURNAL_OPT_RECEIVER:
			if (nreceivers == EV_AUDIT_JOURNAL_MAX_PAIRS)
				return ev_cli_usage(&audit_tool, "journal", "at most %d pairs", EV_AUDIT_JOURNAL_MAX_PAIRS);
			receivers[nreceivers++] = optarg;
			break;
		case AUDIT_JOURNAL_OPT_SEAL: run.seal = optarg; break;
		case AUDIT_JOURNAL_OPT_SEAL_SHA256: run.seal_sha256 = optarg; break;
		case AUDIT_JOURNAL_OPT_SENDER:
			if (nsenders == EV_AUDIT_JOURNAL_MAX_PAIRS)
				return ev_cli_usage(&audit_tool, "journal", "at most %d pairs", EV_AUDIT_JOURNAL_MAX_PAIRS);
			senders[nsenders++] = optarg;
			break;
		case AUDIT_JOURNAL_OPT_TRUST:
			if (ntrust == sizeof trust / sizeof *trust)
				return ev_cli_usage(&audit_tool, "journal", "at most %zu --trust", sizeof trust / sizeof *trust);
			trust[ntrust++] = optarg; /* read once the relations hold */
			break;
		case AUDIT_JOURNAL_OPT_WARMUPS: run.warmups = opts.count; break;
		default:
			return ev_cli_usage(&audit_tool, "journal", "%s", ev_cli_option_problem(argv));
		}
	}
	if (ev_cli_getopt_relations(&opts))
		return 2;
	if (optind != argc)
		return ev_cli_usage(&audit_tool, "journal", "unexpected argument '%s' (journals are named by --sender and --receiver)",
				 argv[optind]);
	if (!nsenders && !nreceivers)
		return ev_cli_usage(&audit_tool, "journal", "no journal given (--sender PATH, --receiver PATH)");
	if (nsenders && nreceivers && nsenders != nreceivers)
		return ev_cli_usage(&audit_tool, "journal", "%zu --sender and %zu --receiver: pairs need one of each, in order",
				 nsenders, nreceivers);
	if ((run.clock_record[0] || run.clock_record[1]) && !run.clock_bound_ns)
		return ev_cli_usage(&audit_tool, "journal",
				 "option --clock-record needs --clock-bound NS, the largest error a figure across two clocks may have and be called a one-way latency");
	if (!run.clock_record[0] != !run.clock_record[1])
		return ev_cli_usage(&audit_tool, "journal", "option --clock-record: give one of each host, sender=FILE and receiver=FILE (a figure across two clocks needs both)");
	for (size_t i = 0; i < ntrust; i++)
		if (ev_cli_trust_add(TOOL, &run.clock_trust, trust[i]))
			return 2;
	if (run.hgrm_dir) {
		struct stat hs;
		if (stat(run.hgrm_dir, &hs) != 0 || !S_ISDIR(hs.st_mode))
			return ev_cli_usage(&audit_tool, "journal", "option --hgrm: %s is %s, not a directory; create it first",
					 run.hgrm_dir, stat(run.hgrm_dir, &hs) != 0 ? "absent" : ev_input_kind(hs.st_mode));
	}
	struct ev_error err;
	ev_error_clear(&err);
	if (ev_audit_journal_prepare(&run, senders, receivers, nsenders, nreceivers, &err) != EV_OK) {
		if (err.status == EV_USAGE)
			return ev_cli_usage(&audit_tool, "journal", "%s", err.text);
		ev_cli_error(TOOL, &err);
		ev_audit_journal_free(&run);
		return 2;
	}
	ev_cli_catch_signals();
	ev_status st = audit_journal(&run, json, &err);
	if (st >= EV_ERROR)
		ev_cli_error(TOOL, &err);
	ev_audit_journal_free(&run);
	ev_signing_key_free(run.sign_key);
	ev_trust_free(run.clock_trust);
	return ev_status_exit_code(st);
}
