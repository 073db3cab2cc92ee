/* audit campaign: every run of a campaign captured by capture, its series
 * recomputed, its native statistics checked, its journals audited, and the
 * campaign summed up per arm and cell as the median of the runs'
 * statistics (never a quantile of pooled samples), every run shown, with
 * a self-contained HTML report. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/usecase/series_analysis.h"
#include "audit/audit.h"
#include "audit/svg.h"
#include "lib/campaign/run.h"
#include "lib/cli/progress.h"
#include "lib/core/input.h"
#include "lib/core/path.h"
#include "lib/core/publish.h"
#include "lib/core/json.h"
#include "lib/receipt/receipt.h"
#include "lib/core/sha256.h"
#include "lib/receipt/receipt_read.h"
#include "audit/campaign.h"
#include "lib/campaign/summary.h"

ev_status audit_campaign_publish(struct campaign_audit *ca, const char *name, const char *bytes, size_t len,
				 struct ev_error *err)
{
	char path[PATH_MAX];
	uint8_t d[EV_SHA256_LEN];
	char hex[EV_SHA256_HEX_LEN + 1];
	if (ev_path_join(path, sizeof path, ca->tmpdir, name) != 0)
		return ev_error_set(err, EV_USAGE, "%s: path too long", ca->out);
	ev_status st = ev_publish_bytes(path, bytes, len, 0644, err);
	if (st == EV_OK && (st = ev_sha256_buffer(bytes, len, d, err)) == EV_OK) {
		ev_sha256_hex(d, hex);
		char final[PATH_MAX];
		ev_path_join(final, sizeof final, ca->out, name);
		st = ev_receipt_add_output(ca->receipt, name, final, hex, err);
	}
	return st;
}

/* For the closing line: " (N printed, not recomputable (no series):
 * bytes pinned by WHAT N, ...)", or "" when every run has a series. */
static void printed_clause(const struct campaign_audit *ca, char *out, size_t cap)
{
	static const char *const by[] = {"seal", "capture receipt", "capture receipt, in part", "nothing"};
	size_t n = 0, count[4] = {0};
	for (size_t i = 0; i < ca->nruns; i++) {
		if (!ca->runs[i].printed)
			continue;
		n++;
		const char *p = audit_campaign_run_pinned_by(ca, &ca->runs[i]);
		for (size_t k = 0; k < 4; k++)
			count[k] += strcmp(p, by[k]) == 0;
	}
	out[0] = 0;
	if (!n)
		return;
	size_t used = (size_t)snprintf(out, cap, " (%zu " CELL_PRINTED ": bytes pinned by", n);
	const char *sep = " ";
	for (size_t k = 0; k < 4 && used < cap; k++)
		if (count[k]) {
			used += (size_t)snprintf(out + used, cap - used, "%s%s %zu", sep, by[k], count[k]);
			sep = ", ";
		}
	if (used < cap)
		snprintf(out + used, cap - used, ")");
}

static ev_status run_campaign(struct campaign_audit *ca, struct ev_error *err)
{
	char plan[PATH_MAX];
	ev_status st;
	struct ev_outdir od = {0};
	struct ev_textbuf md = {0}, html = {0};
	json_t *summary = NULL;
	int opened = 0;
	if (!(ca->receipt = ev_receipt_new("audit", TOOL, ev_cli_invocation(), err)))
		return err->status;
	ev_path_join(plan, sizeof plan, ca->dir, "plan.json");
	int no_plan = 0;
	uint8_t plan_digest[EV_SHA256_LEN];
	if ((st = ev_input_check_beneath(ca->dir, "plan.json", ca->dir, &no_plan, err)) != EV_OK)
		goto out;
	if (!no_plan) {
		/* read, so held: the plan names the campaign and orders its cells */
		char hex[EV_SHA256_HEX_LEN + 1];
		if ((st = ev_plan_load(plan, &ca->plan, plan_digest, err)) != EV_OK)
			goto out;
		ev_sha256_hex(plan_digest, hex);
		if ((st = ev_receipt_add_input(ca->receipt, "plan", plan, hex, err)) != EV_OK)
			goto out;
	}
	if (ca->seal_path) {
		if ((st = ev_seal_load_pinned(ca->seal_path, ca->seal_sha256, &ca->seal, ca->seal_hex, NULL, NULL, err)) ==
		    EV_MISMATCH)
			st = ev_seal_refuse_unpinned(ca->seal_path, ca->seal_hex, ca->seal_sha256, err);
		if (st != EV_OK)
			goto out;
		if ((st = ev_receipt_add_input(ca->receipt, EV_SEAL_FILENAME, ca->seal_path, ca->seal_hex, err)) != EV_OK)
			goto out;
	}
	if ((st = audit_campaign_load_grading(ca, err)) != EV_OK)
		goto out;
	if ((st = audit_campaign_load_runs(ca, err)) != EV_OK)
		goto out;
	if ((st = audit_campaign_load_capture_pins(ca, err)) != EV_OK)
		goto out;
	if (!ca->nruns) {
		st = ev_error_set(err, EV_USAGE, "%s: no run with a run.json", ca->dir);
		goto out;
	}
	if ((st = ev_outdir_open(&od, ca->out, err)) != EV_OK)
		goto out;
	opened = 1;
	char parent[PATH_MAX];
	snprintf(parent, sizeof parent, "%s", ca->out);
	if (ev_path_join(ca->tmpdir, sizeof ca->tmpdir, dirname(parent), od.tmp_name) != 0) {
		st = ev_error_set(err, EV_USAGE, "%s: path too long", ca->out);
		goto out;
	}
	struct ev_progress progress;
	ev_progress_init(&progress, stderr, TOOL ": auditing runs", 0, ca->nruns);
	progress.noun = "runs";
	for (size_t i = 0; i < ca->nruns && st == EV_OK && !ev_cli_interrupted; i++) {
		ev_progress_item(&progress, "%s", ca->runs[i].name);
		st = audit_campaign_analyse_run(ca, &ca->runs[i], err);
		ev_progress_add(&progress, 0, 1);
	}
	ev_progress_done(&progress);
	if (st == EV_OK && !ev_cli_interrupted)
		st = audit_campaign_audit_journals(ca, err);
	if (st == EV_OK && !ev_cli_interrupted) {
		ca->options_not_read = json_array();
		ca->stack_options = audit_campaign_stack_options(ca, ca->options_not_read);
		struct ev_error perr;
		ev_error_clear(&perr);
		ca->profiles = audit_campaign_profiles(ca, &perr);
		if (perr.status != EV_OK) {
			*err = perr;
			st = perr.status;
		}
	}
	if (st == EV_OK && ev_cli_interrupted)
		st = ev_error_set(err, EV_INTERRUPTED, "%s: interrupted by a signal; nothing is claimed", ca->dir);
	const char *name = ev_plan_name(&ca->plan);
	if (st == EV_OK)
		st = audit_campaign_read_provenance(ca, name, err);
	if (st == EV_OK)
		st = audit_campaign_grade(ca, err);
	if (st == EV_OK)
		st = audit_campaign_check_capture_pins(ca, err);
	if (st == EV_OK)
		st = audit_campaign_check_printed(ca, err);
	if (st == EV_OK)
		st = audit_campaign_check_seal(ca, err);
	if (st != EV_OK)
		goto out;
	json_t *runs = json_array();
	for (size_t i = 0; i < ca->nruns; i++) {
		json_object_set_new(ca->runs[i].json, "in_cell_median", json_boolean(audit_campaign_run_summed(&ca->runs[i])));
		json_object_set_new(ca->runs[i].json, "pinned_by", json_string(audit_campaign_run_pinned_by(ca, &ca->runs[i])));
		json_array_append(runs, ca->runs[i].json);
	}
	summary = json_pack("{s:s, s:s, s:o, s:o, s:o}", "format", EV_CAMPAIGN_SUMMARY_FORMAT, "campaign",
			    name ? name : "", "cells", audit_campaign_cells_json(ca), "runs", runs, "conversion_scales", audit_campaign_scales_json(ca));
	if (ca->journals_audited)
		json_object_set_new(summary, "journal_findings", json_integer((json_int_t)ca->journal_findings));
	if (ca->stack_options)
		json_object_set(summary, "stack_options", ca->stack_options);
	if (ca->profiles)
		json_object_set(summary, "profiles", ca->profiles);
	json_object_set(summary, "provenance", ca->provenance);
	json_object_set(summary, "grade", ca->grade);
	char *bytes = NULL;
	size_t len = 0;
	if ((st = ev_json_dump(summary, &bytes, &len, err)) == EV_OK)
		st = audit_campaign_publish(ca, "summary.json", bytes, len, err);
	if (st == EV_OK && ca->json)
		fwrite(bytes, 1, len, stdout);
	free(bytes);
	audit_campaign_write_markdown(ca, &md, summary);
	audit_campaign_write_html(ca, &html, name ? name : "");
	if (md.oom || html.oom) {
		st = ev_error_set(err, EV_ERROR, "out of memory for the report");
		goto out;
	}
	if (st == EV_OK)
		st = audit_campaign_publish(ca, "summary.md", md.s, md.n, err);
	if (st == EV_OK)
		st = audit_campaign_publish(ca, "report.html", html.s, html.n, err);
	if (st == EV_OK)
		st = audit_campaign_write_exports(ca, err);
	if (st == EV_OK && ca->journals_audited) {
		char path[PATH_MAX], final[PATH_MAX];
		ev_path_join(path, sizeof path, ca->tmpdir, "audit-journal.json");
		ev_path_join(final, sizeof final, ca->out, "audit-journal.json");
		uint8_t d[EV_SHA256_LEN];
		char hex[EV_SHA256_HEX_LEN + 1];
		json_t *inner = NULL;
		if ((st = ev_receipt_load(path, &inner, d, err)) == EV_OK) {
			ev_sha256_hex(d, hex);
			st = ev_receipt_add_output_receipt(ca->receipt, "audit-journal.json", final, hex,
							   ev_receipt_comparable_digest(inner), err);
		}
		json_decref(inner);
	}
	ev_receipt_set_fact(ca->receipt, "campaign", json_string(name ? name : ""), err);
	ev_receipt_set_fact(ca->receipt, "runs", json_integer((json_int_t)ca->nruns), err);
	ev_receipt_set_fact(ca->receipt, "coverage", audit_campaign_coverage(ca), err);
	if (st == EV_OK && (st = ev_receipt_finish_signed(ca->receipt, ca->sign_key, err)) == EV_OK) {
		char *rb = NULL;
		size_t rlen = 0;
		char path[PATH_MAX];
		ev_path_join(path, sizeof path, ca->tmpdir, "receipt.json");
		if ((st = ev_json_dump(ca->receipt, &rb, &rlen, err)) == EV_OK)
			st = ev_publish_bytes(path, rb, rlen, 0644, err);
		free(rb);
	}
	/* the last moment a signal can keep the outputs from appearing */
	if (st == EV_OK && ev_cli_interrupted)
		st = ev_error_set(err, EV_INTERRUPTED, "%s: interrupted by a signal; nothing is claimed", ca->dir);
	if (st == EV_OK && (st = ev_outdir_commit(&od, 0755, err)) == EV_OK) {
		opened = 0;
		if (!ca->json) {
			fwrite(md.s, 1, md.n, stdout);
			printf("\nreport: %s/report.html\n", ca->out);
		}
		const char *result = ev_receipt_result(ca->receipt);
		char printed[256];
		printed_clause(ca, printed, sizeof printed);
		audit_campaign_grade_line(ca, ca->json ? stderr : stdout);
		fprintf(ca->json ? stderr : stdout, "%s: %zu runs%s; summary %s\n",
			strcmp(result, "pass") == 0 ? "OK" : "FAIL", ca->nruns, printed, ca->out);
		st = strcmp(result, "pass") == 0 ? EV_OK : EV_MISMATCH;
	}
out:
	if (opened)
		ev_outdir_abort(&od);
	ev_textbuf_free(&md);
	ev_textbuf_free(&html);
	json_decref(summary);
	for (size_t i = 0; ca->runs && i < ca->nruns; i++)
	{
		json_decref(ca->runs[i].json);
		json_decref(ca->runs[i].grade);
		ev_distribution_free(&ca->runs[i].dist);
	}
	free(ca->runs);
	ev_plan_free(&ca->plan);
	json_decref(ca->receipt);
	json_decref(ca->stack_options);
	json_decref(ca->profiles);
	json_decref(ca->options_not_read);
	json_decref(ca->unread);
	json_decref(ca->provenance);
	json_decref(ca->capture_pins);
	json_decref(ca->grade_rules);
	json_decref(ca->programs);
	json_decref(ca->grade);
	for (size_t i = 0; i < ca->npolicies; i++)
		ev_policy_free(&ca->policies[i]);
	ev_seal_free(&ca->seal);
	return st;
}

int audit_campaign_main(int argc, char **argv)
{
	struct campaign_audit ca = {0};
	int c, rc;
	struct ev_cli_getopt opts;
	ev_cli_getopt_init(&opts, &audit_tool, "campaign");
	optind = 1;
	while ((c = getopt_long(argc, argv, opts.shortopts, opts.longopts, NULL)) != -1) {
		switch (c) {
		case 'h': rc = ev_cli_help(&audit_tool, "campaign"); goto done;
		case 'j': ca.json = 1; break;
		case 'o': ca.out = optarg; break;
		case 'P': ca.seal_sha256 = optarg; break;
		case 'O': ca.onload_profiles = optarg; break;
		case 'S': ca.seal_path = optarg; break;
		case 'p':
			if (optarg[0] != '/')
				{ rc = ev_cli_usage(&audit_tool, "campaign", "option --perf: expected an absolute path, found '%s'", optarg); goto done; }
			ca.perf = optarg;
			break;
		case 'K':
			if (ev_cli_sign_key(TOOL, optarg, &ca.sign_key))
				{ rc = 2; goto done; }
			break;
		case 't':
			if (ev_cli_trust_add(TOOL, &ca.trust, optarg))
				{ rc = 2; goto done; }
			break;
		default: { rc = ev_cli_usage(&audit_tool, "campaign", "%s", ev_cli_option_problem(argv)); goto done; }
		}
	}
	if (optind + 1 != argc)
		{ rc = ev_cli_usage(&audit_tool, "campaign", optind == argc ? "no campaign directory given" : "one campaign at a time"); goto done; }
	if (!ca.out)
		{ rc = ev_cli_usage(&audit_tool, "campaign", "no output directory given (-o OUTDIR)"); goto done; }
	if (ca.seal_sha256 && !ca.seal_path)
		return ev_cli_usage(&audit_tool, "campaign", "--seal-sha256 pins a --seal; none given");
	if (ca.seal_sha256 && !ev_sha256_hex_valid(ca.seal_sha256))
		{ rc = ev_cli_usage(&audit_tool, "campaign", "option --seal-sha256: expected 64 lower-case hex digits"); goto done; }
	ca.dir = argv[optind];
	struct ev_error err;
	ev_error_clear(&err);
	ev_cli_catch_signals();
	ev_status st = run_campaign(&ca, &err);
	if (st >= EV_ERROR)
		ev_cli_error(TOOL, &err);
	rc = ev_status_exit_code(st);
done:
	ev_signing_key_free(ca.sign_key);
	ev_trust_free(ca.trust);
	return rc;
}
