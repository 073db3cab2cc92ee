/* SPDX-License-Identifier: Apache-2.0 */
/* audit campaign: the options read, lib/usecase/audit/campaign/audit_campaign called in
 * its two steps around the rendering (campaign_report.c: summary.md and
 * report.html), and what it found printed. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit.h"
#include "audit/campaign.h"
#include "lib/campaign/registration.h"
#include "lib/cli/progress.h"
#include "lib/core/json.h"
#include "lib/core/sha256.h"
#include "lib/core/text.h"
#include "lib/receipt/receipt.h"

/* For the closing line: " (N printed, not recomputable (no series):
 * bytes pinned by WHAT N, ...)", or "" when every run has a series. */
static void printed_clause(const struct ev_audit_campaign *ca, char *out, size_t cap)
{
	static const char *const by[] = {"seal", "capture receipt", "capture receipt, in part", "nothing"};
	size_t n = 0, count[4] = {0};
	for (size_t i = 0; i < ca->nruns; i++) {
		if (!ca->runs[i].printed)
			continue;
		n++;
		const char *p = ev_audit_campaign_run_pinned_by(ca, &ca->runs[i]);
		for (size_t k = 0; k < 4; k++)
			count[k] += strcmp(p, by[k]) == 0;
	}
	out[0] = 0;
	if (!n)
		return;
	size_t used = (size_t)snprintf(out, cap, " (%zu " EV_CAMPAIGN_CELL_PRINTED ": bytes pinned by", n);
	const char *sep = " ";
	for (size_t k = 0; k < 4 && used < cap; k++)
		if (count[k]) {
			used += (size_t)snprintf(out + used, cap - used, "%s%s %zu", sep, by[k], count[k]);
			sep = ", ";
		}
	if (used < cap)
		snprintf(out + used, cap - used, ")");
}

/* "audit: RUN: finding", or "audit: finding" about the campaign. */
static void show_finding(void *ctx, const char *run, const struct ev_finding *f)
{
	(void)ctx;
	char prefix[256];
	snprintf(prefix, sizeof prefix, run ? TOOL ": %s: " : TOOL ": ", run);
	ev_cli_finding(stderr, prefix, f);
}

static void show_note(void *ctx, const char *text)
{
	(void)ctx;
	fprintf(stderr, TOOL ": %s\n", text);
}

static void show_run(void *ctx, const char *run)
{
	if (run)
		ev_progress_item(ctx, "%s", run);
	else
		ev_progress_done(ctx);
}

static void show_journals(void *ctx, const struct ev_audit_journal *jr)
{
	(void)ctx;
	audit_journal_print_findings(jr);
}

/* What stdout carries: the tables (0), summary.json (--json), or the
 * receipt and summary.json, one line each (--print-receipt). */
enum campaign_stdout { SHOW_TABLES, SHOW_SUMMARY, SHOW_RECEIPT };

static ev_status run_campaign(struct ev_audit_campaign *ca, enum campaign_stdout show, struct ev_error *err)
{
	int json = show != SHOW_TABLES;
	struct ev_textbuf md = {0}, html = {0};
	struct ev_progress progress;
	ev_progress_init(&progress, stderr, TOOL ": auditing runs", 0, 0);
	progress.noun = "runs";
	struct ev_meter meter = ev_progress_meter(&progress);
	struct ev_progress reading; /* from an archive: the one pass that checks and copies it */
	ev_progress_init(&reading, stderr, TOOL ": reading the archive", 0, 0);
	struct ev_meter archive_meter = ev_progress_meter(&reading);
	struct ev_progress journals;
	ev_progress_init(&journals, stderr, TOOL ": auditing the journals", 0, 0);
	journals.noun = "files";
	struct ev_meter journals_meter = ev_progress_meter(&journals);
	ca->tool = TOOL;
	ca->invocation = ev_cli_invocation();
	ca->on_finding = show_finding;
	ca->on_note = show_note;
	ca->on_run = show_run;
	ca->on_journals = show_journals;
	ca->ctx = &progress;
	ca->meter = &meter;
	ca->archive_meter = &archive_meter;
	ca->journals_meter = journals.enabled ? &journals_meter : NULL;
	ca->interrupted = &ev_cli_interrupted;
	json_t *receipt = ev_receipt_new("audit", TOOL, ev_cli_invocation(), err);
	ev_status st = receipt ? ev_audit_campaign_run(ca, receipt, err) : err->status;
	ev_progress_done(&reading);
	ev_progress_done(&journals);
	ev_progress_done(&progress);
	if (st == EV_MISMATCH) /* an archive that does not match its seal, read no further */
		ev_cli_error(TOOL, err);
	if (st != EV_OK)
		goto out;
	const char *name = ev_plan_name(&ca->plan);
	audit_campaign_write_markdown(ca, &md, ca->summary);
	audit_campaign_write_html(ca, &html, name ? name : "");
	if (md.oom || html.oom) {
		st = ev_error_set(err, EV_ERROR, "out of memory for the report");
		goto out;
	}
	const struct ev_campaign_output renderings[] = {{"summary.md", md.s, md.n}, {"report.html", html.s, html.n}};
	st = ev_audit_campaign_publish(ca, renderings, 2, err);
	if (st != EV_OK && st != EV_MISMATCH)
		goto out;
	if (show == SHOW_RECEIPT) {
		char *bytes = NULL;
		size_t len = 0;
		if (ev_json_dump(receipt, &bytes, &len, err) != EV_OK) {
			st = err->status;
			goto out;
		}
		fwrite(bytes, 1, len, stdout);
		free(bytes);
		fwrite(ca->summary_bytes, 1, ca->summary_len, stdout);
	} else if (json) {
		fwrite(ca->summary_bytes, 1, ca->summary_len, stdout);
	} else {
		fwrite(md.s, 1, md.n, stdout);
		printf("\nreport: %s/report.html\n", ca->out);
	}
	char printed[256];
	printed_clause(ca, printed, sizeof printed);
	audit_campaign_grade_line(ca, json ? stderr : stdout);
	fprintf(json ? stderr : stdout, "registration: %s\n", json_string_value(json_object_get(ca->registration, "line")));
	fprintf(json ? stderr : stdout, "%s: %zu runs%s; summary %s\n", st == EV_OK ? "OK" : "FAIL", ca->nruns,
		printed, ca->out);
out:
	ev_textbuf_free(&md);
	ev_textbuf_free(&html);
	json_decref(receipt);
	return st;
}

int audit_campaign_main(int argc, char **argv)
{
	struct ev_audit_campaign ca = {0};
	enum campaign_stdout show = SHOW_TABLES;
	int stop_when_stdin_closes = 0;
	int c, rc;
	struct ev_cli_getopt opts;
	ev_cli_getopt_init(&opts, &audit_tool, "campaign");
	optind = 1;
	while ((c = ev_cli_getopt_next(&opts, argc, argv)) != -1) {
		switch (c) {
		case EV_CLI_HELP: rc = ev_cli_help(&audit_tool, "campaign"); goto done;
		case AUDIT_CAMPAIGN_OPT_JSON: show = SHOW_SUMMARY; break;
		case AUDIT_CAMPAIGN_OPT_PRINT_RECEIPT: show = SHOW_RECEIPT; break;
		case AUDIT_CAMPAIGN_OPT_STOP_WHEN_STDIN_CLOSES: stop_when_stdin_closes = 1; break;
		case AUDIT_CAMPAIGN_OPT_OUTPUT: ca.out = optarg; break;
		case AUDIT_CAMPAIGN_OPT_SEAL_SHA256: ca.seal_sha256 = optarg; break;
		case AUDIT_CAMPAIGN_OPT_ONLOAD_PROFILES: ca.onload_profiles = optarg; break;
		case AUDIT_CAMPAIGN_OPT_SEAL: ca.seal_path = optarg; break;
		case AUDIT_CAMPAIGN_OPT_LOG: ca.log_dir = optarg; break;
		case AUDIT_CAMPAIGN_OPT_LOG_HEAD: ca.log_head = optarg; break;
		case AUDIT_CAMPAIGN_OPT_TSA_CA: ca.tsa_ca = optarg; break;
		case AUDIT_CAMPAIGN_OPT_PUBLISH: ca.publish = optarg; break;
		case AUDIT_CAMPAIGN_OPT_PERF:
			if (optarg[0] != '/')
				{ rc = ev_cli_usage(&audit_tool, "campaign", "option --perf: expected an absolute path, found '%s'", optarg); goto done; }
			ca.perf = optarg;
			break;
		case AUDIT_CAMPAIGN_OPT_SIGN_KEY:
			if (ev_cli_sign_key(TOOL, optarg, &ca.sign_key))
				{ rc = 2; goto done; }
			break;
		case AUDIT_CAMPAIGN_OPT_TRUST:
			if (ev_cli_trust_add(TOOL, &ca.trust, optarg))
				{ rc = 2; goto done; }
			break;
		default: { rc = ev_cli_usage(&audit_tool, "campaign", "%s", ev_cli_option_problem(argv)); goto done; }
		}
	}
	if (ev_cli_getopt_relations(&opts))
		{ rc = 2; goto done; }
	for (const char *w = ca.publish; w && *w; w += strcspn(w, ",") + (w[strcspn(w, ",")] == ',')) {
		char word[32];
		snprintf(word, sizeof word, "%.*s", (int)strcspn(w, ","), w);
		if (!ev_text_word_in(EV_REGISTRATION_STATISTICS, word))
			{ rc = ev_cli_usage(&audit_tool, "campaign", "option --publish: expected statistics of %s, comma-separated, found '%s'", EV_REGISTRATION_STATISTICS, word); goto done; }
	}
	if (optind + 1 != argc)
		{ rc = ev_cli_usage(&audit_tool, "campaign", optind == argc ? "no campaign directory or archive given" : "one campaign at a time"); goto done; }
	if (!ca.out)
		{ rc = ev_cli_usage(&audit_tool, "campaign", "no output directory given (-o OUTDIR)"); goto done; }
	ca.dir = argv[optind];
	struct ev_error err;
	ev_error_clear(&err);
	ev_cli_catch_signals();
	if (stop_when_stdin_closes && ev_cli_stop_when_stdin_closes() != 0)
		{ fprintf(stderr, TOOL ": cannot watch stdin\n"); rc = 2; goto done; }
	ev_status st = run_campaign(&ca, show, &err);
	ev_audit_campaign_free(&ca);
	if (st >= EV_ERROR)
		ev_cli_error(TOOL, &err);
	rc = ev_status_exit_code(st);
done:
	ev_signing_key_free(ca.sign_key);
	ev_trust_free(ca.trust);
	return rc;
}
