/* SPDX-License-Identifier: Apache-2.0 */
/* audit_campaign: the steps in order, and OUTDIR published as one
 * directory (lib/core/publish). The parts are in audit_campaign_*.c. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/campaign/summary.h"
#include "lib/core/input.h"
#include "lib/core/json.h"
#include "lib/core/path.h"
#include "lib/core/publish.h"
#include "lib/core/sha256.h"
#include "lib/core/text.h"
#include "lib/receipt/receipt.h"
#include "lib/receipt/receipt_read.h"
#include "lib/usecase/audit/campaign/parts.h"
#include "lib/usecase/common/outdir_receipt.h"

/* From an archive, the prefix that gives way so that a copy is named as
 * the archive names it; NULL from a tree. */
static const char *shown_from(const struct ev_audit_campaign *ca)
{
	return ca->archive ? ca->copies.shown_from : NULL;
}

void ev_audit_campaign_note(const struct ev_audit_campaign *ca, const char *fmt, ...)
{
	char text[2 * PATH_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	ev_text_rename(text, shown_from(ca), "");
	ca->on_note(ca->ctx, text);
}

void ev_audit_campaign_finding(const struct ev_audit_campaign *ca, const char *run, const struct ev_finding *f)
{
	const char *from = shown_from(ca);
	if (!from) {
		ca->on_finding(ca->ctx, run, f);
		return;
	}
	char subject[2 * PATH_MAX], message[2 * PATH_MAX];
	struct ev_finding shown = *f;
	snprintf(subject, sizeof subject, "%s", f->subject ? f->subject : "");
	snprintf(message, sizeof message, "%s", f->message ? f->message : "");
	ev_text_rename(subject, from, "");
	ev_text_rename(message, from, "");
	ev_text_rename(shown.expected, from, "");
	ev_text_rename(shown.found, from, "");
	shown.subject = f->subject ? subject : NULL;
	shown.message = f->message ? message : NULL;
	ca->on_finding(ca->ctx, run, &shown);
}

ev_status ev_audit_campaign_publish_file(struct ev_audit_campaign *ca, const char *name, const char *bytes, size_t len,
					 struct ev_error *err)
{
	return ev_outdir_receipt_add(ca->tmpdir, ca->out, name, bytes, len, ca->receipt, err);
}

static ev_status interrupted(const struct ev_audit_campaign *ca, struct ev_error *err)
{
	return ev_error_set(err, EV_INTERRUPTED, "%s: interrupted by a signal; nothing is claimed", ca->dir);
}

/* plan.json, when there is one, read and so held: it names the campaign
 * and orders its cells. */
static ev_status load_plan(struct ev_audit_campaign *ca, struct ev_error *err)
{
	char plan[PATH_MAX], hex[EV_SHA256_HEX_LEN + 1];
	uint8_t digest[EV_SHA256_LEN];
	int no_plan = 0;
	ev_status st;
	ev_path_join(plan, sizeof plan, ca->dir, "plan.json");
	if ((st = ev_input_check_beneath(ca->dir, "plan.json", ca->dir, &no_plan, err)) != EV_OK || no_plan)
		return st;
	if ((st = ev_plan_load(plan, &ca->plan, digest, err)) != EV_OK)
		return st;
	ev_sha256_hex(digest, hex);
	memcpy(ca->plan_sha256, hex, sizeof ca->plan_sha256);
	return ev_receipt_add_input(ca->receipt, "plan", plan, hex, err);
}

static ev_status load_seal(struct ev_audit_campaign *ca, struct ev_error *err)
{
	ev_status st;
	if (!ca->seal_path)
		return EV_OK;
	if (ca->archive) { /* read once already, by open_archive; named here, in the tree's order */
		if ((st = ev_receipt_add_input(ca->receipt, EV_SEAL_FILENAME, ca->seal_path, ca->seal_hex, err)) != EV_OK)
			return st;
		return ev_receipt_add_input(ca->receipt, "archive", ca->archive, ca->copies.archive_hex, err);
	}
	if ((st = ev_seal_load_pinned(ca->seal_path, ca->seal_sha256, &ca->seal, ca->seal_hex, NULL, NULL, err)) ==
	    EV_MISMATCH)
		st = ev_seal_refuse_unpinned(ca->seal_path, ca->seal_hex, ca->seal_sha256, err);
	if (st != EV_OK)
		return st;
	return ev_receipt_add_input(ca->receipt, EV_SEAL_FILENAME, ca->seal_path, ca->seal_hex, err);
}

/* An archive's own finding: the campaign's, shown as it is (its subject
 * already the member's path from the seal's root). */
static void archive_finding(void *ctx, const struct ev_finding *f)
{
	const struct ev_audit_campaign *ca = ctx;
	ca->on_finding(ca->ctx, NULL, f);
}

/* dir a sealed archive: checked against its seal in one pass that copies
 * every member out, and the campaign then read from the copies. A
 * directory (or what load_plan names as missing) is left to the tree. */
static ev_status open_archive(struct ev_audit_campaign *ca, struct ev_error *err)
{
	struct stat sb;
	if (stat(ca->dir, &sb) != 0 || !S_ISREG(sb.st_mode))
		return EV_OK;
	if (!ca->seal_path)
		return ev_error_set(err, EV_USAGE, "%s: an archive is audited against its seal: give --seal SEAL.json", ca->dir);
	ev_archive_copies_init(&ca->copies);
	ca->archive = ca->dir;
	ca->copies.archive = ca->archive;
	ca->copies.seal_path = ca->seal_path;
	ca->copies.seal_sha256 = ca->seal_sha256;
	ca->copies.purpose = "audit-campaign";
	ca->copies.on_finding = archive_finding;
	ca->copies.ctx = ca;
	ca->copies.interrupted = ca->interrupted;
	ca->copies.progress = ca->archive_meter;
	ev_status st = ev_archive_copies_make(&ca->copies, err);
	if (st != EV_OK && st != EV_MISMATCH) {
		ca->archive = NULL;
		return st;
	}
	/* the seal is the one the copies were checked against, read once */
	ca->seal = ca->copies.seal;
	ev_seal_init(&ca->copies.seal);
	memcpy(ca->seal_hex, ca->copies.seal_hex, sizeof ca->seal_hex);
	ca->dir = ca->copies.root;
	return EV_OK;
}

static ev_status open_outdir(struct ev_audit_campaign *ca, struct ev_error *err)
{
	ev_status st = ev_outdir_open(&ca->od, ca->out, err);
	if (st != EV_OK)
		return st;
	ca->opened = 1;
	return ev_outdir_receipt_tmpdir(&ca->od, ca->out, ca->tmpdir, sizeof ca->tmpdir, err);
}

static ev_status analyse_runs(struct ev_audit_campaign *ca, struct ev_error *err)
{
	ev_status st = EV_OK;
	ev_meter_goal(ca->meter, 0, ca->nruns);
	for (size_t i = 0; i < ca->nruns && st == EV_OK && !*ca->interrupted; i++) {
		if (ca->on_run)
			ca->on_run(ca->ctx, ca->runs[i].name);
		st = ev_audit_campaign_analyse_run(ca, &ca->runs[i], err);
		ev_meter_advance(ca->meter, 0, 1);
	}
	if (ca->on_run)
		ca->on_run(ca->ctx, NULL);
	return st;
}

static ev_status build_summary(struct ev_audit_campaign *ca)
{
	const char *name = ev_plan_name(&ca->plan);
	json_t *runs = json_array();
	for (size_t i = 0; i < ca->nruns; i++) {
		struct ev_audited_run *r = &ca->runs[i];
		json_object_set_new(r->json, "in_cell_median", json_boolean(ev_audit_campaign_run_summed(r)));
		json_object_set_new(r->json, "pinned_by", json_string(ev_audit_campaign_run_pinned_by(ca, r)));
		json_array_append(runs, r->json);
	}
	ca->summary = json_pack("{s:s, s:s, s:o, s:o, s:o}", "format", EV_CAMPAIGN_SUMMARY_FORMAT, "campaign",
				name ? name : "", "cells", ev_audit_campaign_cells_json(ca), "runs", runs,
				"conversion_scales", ev_audit_campaign_scales_json(ca));
	if (!ca->summary)
		return EV_ERROR;
	if (ca->journals_audited)
		json_object_set_new(ca->summary, "journal_findings", json_integer((json_int_t)ca->journal_findings));
	if (ca->stack_options)
		json_object_set(ca->summary, "stack_options", ca->stack_options);
	if (ca->profiles)
		json_object_set(ca->summary, "profiles", ca->profiles);
	json_object_set(ca->summary, "provenance", ca->provenance);
	json_object_set(ca->summary, "grade", ca->grade);
	return EV_OK;
}

static ev_status run_steps(struct ev_audit_campaign *ca, json_t *receipt, struct ev_error *err)
{
	ev_status st;
	ca->receipt = receipt;
	if ((st = open_archive(ca, err)) != EV_OK || (st = load_plan(ca, err)) != EV_OK || (st = load_seal(ca, err)) != EV_OK ||
	    (st = ev_audit_campaign_load_grading(ca, err)) != EV_OK || (st = ev_audit_campaign_load_runs(ca, err)) != EV_OK ||
	    (st = ev_audit_campaign_load_capture_pins(ca, err)) != EV_OK)
		return st;
	if (!ca->nruns)
		return ev_error_set(err, EV_USAGE, "%s: no run with a run.json", ca->dir);
	if ((st = open_outdir(ca, err)) != EV_OK)
		return st;
	st = analyse_runs(ca, err);
	if (st == EV_OK && !*ca->interrupted)
		st = ev_audit_campaign_audit_journals(ca, err);
	if (st == EV_OK && !*ca->interrupted) {
		ca->options_not_read = json_array();
		ca->stack_options = ev_audit_campaign_stack_options(ca, ca->options_not_read);
		struct ev_error perr;
		ev_error_clear(&perr);
		ca->profiles = ev_audit_campaign_profiles(ca, &perr);
		if (perr.status != EV_OK) {
			*err = perr;
			st = perr.status;
		}
	}
	if (st == EV_OK && *ca->interrupted)
		st = interrupted(ca, err);
	if (st == EV_OK)
		st = ev_audit_campaign_read_provenance(ca, ev_plan_name(&ca->plan), err);
	if (st == EV_OK)
		st = ev_audit_campaign_grade(ca, err);
	if (st == EV_OK)
		st = ev_audit_campaign_check_capture_pins(ca, err);
	if (st == EV_OK)
		st = ev_audit_campaign_check_printed(ca, err);
	if (st == EV_OK)
		st = ev_audit_campaign_judge_registration(ca, err);
	if (st == EV_OK)
		st = ev_audit_campaign_check_seal(ca, err);
	if (st == EV_OK && build_summary(ca) != EV_OK)
		st = ev_error_set(err, EV_ERROR, "out of memory for the summary");
	if (st == EV_OK && ev_json_rename(ca->summary, shown_from(ca), "") < 0)
		st = ev_error_set(err, EV_ERROR, "out of memory for the summary");
	return st;
}

ev_status ev_audit_campaign_run(struct ev_audit_campaign *ca, json_t *receipt, struct ev_error *err)
{
	ev_status st = run_steps(ca, receipt, err);
	ev_text_rename(err->text, shown_from(ca), "");
	if (ca->archive && ca->copies.findings && st != EV_OK && st != EV_INTERRUPTED) {
		char stopped[sizeof err->text];
		snprintf(stopped, sizeof stopped, "%s", err->text);
		ev_error_clear(err);
		st = ev_error_set(err, EV_MISMATCH, "%s: does not match its seal (%u finding%s, the first %s), and the audit "
				  "stopped at: %s", ca->archive, ca->copies.findings, ca->copies.findings == 1 ? "" : "s",
				  ca->copies.first, stopped);
	}
	return st;
}

/* audit-journal.json, written by the journals' audit, named among the
 * outputs with its comparable digest. */
static ev_status name_journal_receipt(struct ev_audit_campaign *ca, struct ev_error *err)
{
	char path[PATH_MAX], final[PATH_MAX], hex[EV_SHA256_HEX_LEN + 1];
	uint8_t d[EV_SHA256_LEN];
	json_t *inner = NULL;
	ev_path_join(path, sizeof path, ca->tmpdir, "audit-journal.json");
	ev_path_join(final, sizeof final, ca->out, "audit-journal.json");
	ev_status st = ev_receipt_load(path, &inner, d, err);
	if (st == EV_OK) {
		ev_sha256_hex(d, hex);
		st = ev_receipt_add_output_receipt(ca->receipt, "audit-journal.json", final, hex,
						   ev_receipt_comparable_digest(inner), err);
	}
	json_decref(inner);
	return st;
}

/* The facts only the end knows. */
static void set_facts(struct ev_audit_campaign *ca, struct ev_error *err)
{
	const char *name = ev_plan_name(&ca->plan);
	ev_receipt_set_fact(ca->receipt, "campaign", json_string(name ? name : ""), err);
	ev_receipt_set_fact(ca->receipt, "runs", json_integer((json_int_t)ca->nruns), err);
	ev_receipt_set_fact(ca->receipt, "coverage", ev_audit_campaign_coverage(ca), err);
}

ev_status ev_audit_campaign_publish(struct ev_audit_campaign *ca, const struct ev_campaign_output *more, size_t nmore,
				    struct ev_error *err)
{
	ev_status st = ev_json_dump(ca->summary, &ca->summary_bytes, &ca->summary_len, err);
	if (st == EV_OK)
		st = ev_audit_campaign_publish_file(ca, "summary.json", ca->summary_bytes, ca->summary_len, err);
	for (size_t i = 0; i < nmore && st == EV_OK; i++)
		st = ev_audit_campaign_publish_file(ca, more[i].name, more[i].bytes, more[i].len, err);
	if (st == EV_OK)
		st = ev_audit_campaign_write_exports(ca, err);
	if (st == EV_OK && ca->journals_audited)
		st = name_journal_receipt(ca, err);
	if (st == EV_OK) {
		set_facts(ca, err);
		if (ev_json_rename(ca->receipt, shown_from(ca), "") < 0)
			st = ev_error_set(err, EV_ERROR, "out of memory for the receipt");
	}
	if (st == EV_OK) {
		st = ev_outdir_receipt_commit(&ca->od, &ca->opened, ca->tmpdir, ca->out, ca->receipt, ca->sign_key,
					      ca->interrupted, err);
		if (st == EV_INTERRUPTED) { /* named by the campaign, as every other stop of this audit */
			ev_error_clear(err);
			st = interrupted(ca, err);
		}
	}
	if (st == EV_OK)
		st = strcmp(ev_receipt_result(ca->receipt), "pass") == 0 ? EV_OK : EV_MISMATCH;
	ev_text_rename(err->text, shown_from(ca), "");
	return st;
}

void ev_audit_campaign_free(struct ev_audit_campaign *ca)
{
	if (ca->opened)
		ev_outdir_abort(&ca->od);
	ca->opened = 0;
	for (size_t i = 0; ca->runs && i < ca->nruns; i++) {
		json_decref(ca->runs[i].json);
		json_decref(ca->runs[i].grade);
		json_decref(ca->runs[i].interference);
		ev_distribution_free(&ca->runs[i].dist);
	}
	free(ca->runs);
	ca->runs = NULL;
	ca->nruns = 0;
	free(ca->summary_bytes);
	ca->summary_bytes = NULL;
	ev_plan_free(&ca->plan);
	json_decref(ca->summary);
	json_decref(ca->stack_options);
	json_decref(ca->profiles);
	json_decref(ca->options_not_read);
	json_decref(ca->unread);
	json_decref(ca->provenance);
	json_decref(ca->capture_pins);
	json_decref(ca->grade_rules);
	json_decref(ca->programs);
	json_decref(ca->grade);
	json_decref(ca->registration);
	json_decref(ca->capture_registrations);
	ca->registration = ca->capture_registrations = NULL;
	ca->summary = ca->stack_options = ca->profiles = ca->options_not_read = ca->unread = NULL;
	ca->provenance = ca->capture_pins = ca->grade_rules = ca->programs = ca->grade = NULL;
	for (size_t i = 0; i < ca->npolicies; i++)
		ev_policy_free(&ca->policies[i]);
	ca->npolicies = 0;
	ev_seal_free(&ca->seal);
	if (ca->archive)
		ev_archive_copies_free(&ca->copies);
	ca->archive = NULL;
}
