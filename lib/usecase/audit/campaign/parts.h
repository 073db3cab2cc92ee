/* SPDX-License-Identifier: Apache-2.0 */
/* What the parts of audit_campaign share, and nothing outside them
 * includes: audit_campaign_runs.c loads the runs (lib/campaign/run) and
 * audits each one (its series, its native statistics, its journals),
 * audit_campaign_summary.c sums a campaign up per arm and cell as the
 * median of its runs, _options.c reads the stack options, _profiles.c the
 * profiled runs, _pins.c holds files to the capture receipts,
 * _provenance.c says where it ran and holds files to the seal, _grade.c
 * grades, _registration.c judges the registration and its sessions, _exports.c writes the .hgrm files and runs.csv, and
 * audit_campaign.c runs the steps and publishes OUTDIR. */
#ifndef EV_AUDIT_CAMPAIGN_PARTS_H
#define EV_AUDIT_CAMPAIGN_PARTS_H

#include "lib/usecase/audit/campaign/audit_campaign.h"

/* A finding for on_finding, a copy's path shown as the archive names it. */
void ev_audit_campaign_finding(const struct ev_audit_campaign *ca, const char *run, const struct ev_finding *f);

/* A sentence for on_note, formatted, a copy's path shown as the archive
 * names it. */
void ev_audit_campaign_note(const struct ev_audit_campaign *ca, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

ev_status ev_audit_campaign_load_runs(struct ev_audit_campaign *ca, struct ev_error *err);

/* One run: its series read, its statistics recomputed and checked. */
ev_status ev_audit_campaign_analyse_run(struct ev_audit_campaign *ca, struct ev_audited_run *r, struct ev_error *err);

/* The check "run RUN statistics" of each run without a series, once its
 * bytes were held (what pinned them is in its detail and summary.json). */
ev_status ev_audit_campaign_check_printed(struct ev_audit_campaign *ca, struct ev_error *err);

/* Both endpoints' journals of every run that has them, audited as
 * audit journal would, its receipt in the summary. */
ev_status ev_audit_campaign_audit_journals(struct ev_audit_campaign *ca, struct ev_error *err);

json_t *ev_audit_campaign_scales_json(const struct ev_audit_campaign *ca);

json_t *ev_audit_campaign_cells_json(const struct ev_audit_campaign *ca);

/* What this campaign's pass means: per run, what could be recomputed;
 * the journals, audited here or left (named). */
json_t *ev_audit_campaign_coverage(const struct ev_audit_campaign *ca);

/* Requested against effective stack options, per cell and side, from the
 * runs' onload observers (audit_campaign_options.c): a check per run (its
 * outputs hashed again) and per cell and side (the same options in every
 * run). @return the table's data for summary.json, or NULL when no run
 * has an onload observer; what could not be read goes to not_read. */
json_t *ev_audit_campaign_stack_options(struct ev_audit_campaign *ca, json_t *not_read);

/* Every profiled run's sides read as audit profile does
 * (audit_campaign_profiles.c), their checks prefixed "run NAME ".
 * @return {"runs": {RUN: {SIDE: facts}}, "cells": {CELL: {SIDE: {"runs":
 * N, "split": medians}}}}, or NULL when no run was profiled;
 * EV_INTERRUPTED or an error that stops the audit goes to err. */
json_t *ev_audit_campaign_profiles(struct ev_audit_campaign *ca, struct ev_error *err);

/* The grading rules (the plan's "grades", checked, else the shipped
 * default) and every session's policy snapshot, each a receipt input. */
ev_status ev_audit_campaign_load_grading(struct ev_audit_campaign *ca, struct ev_error *err);

struct ev_run;
/* One run's verdicts into r->grade (lib/campaign/grade). */
void ev_audit_campaign_grade_run(struct ev_audit_campaign *ca, struct ev_audited_run *r, const struct ev_run *run);

/* The campaign's grade over its runs into ca->grade and each run's
 * summary: a fact and a check "grade" (failed only when the rules
 * require quiet and the campaign is not). */
ev_status ev_audit_campaign_grade(struct ev_audit_campaign *ca, struct ev_error *err);

/* The registration the campaign was run under (registration.json), and
 * its sessions, judged (audit_campaign_registration.c): the checks
 * "registered", "registered before the first run", "published as
 * registered", "receipt log holds", "sessions accounted for" (each made
 * when its evidence is given, else named in the registration's
 * not_checked, the state then unproven); without one, unregistered.
 * ca->registration set. @return EV_OK (a check that
 * failed is in the receipt); EV_USAGE (--log not a log, --publish not
 * statistics) or EV_ERROR. */
ev_status ev_audit_campaign_judge_registration(struct ev_audit_campaign *ca, struct ev_error *err);

/* Where and how the campaign ran, from policy.json and the capture
 * receipts (each added to the receipt's inputs), into ca->provenance. */
ev_status ev_audit_campaign_read_provenance(struct ev_audit_campaign *ca, const char *name, struct ev_error *err);

/* Every capture receipt in the campaign (receipt-capture*.json): intact,
 * and with a trust set signed by a trusted key, else a failed check and
 * its pins unused; what each pins of the runs into ca->capture_pins. */
ev_status ev_audit_campaign_load_capture_pins(struct ev_audit_campaign *ca, struct ev_error *err);

/* Every input read under runs/ (this receipt's and audit-journal.json's)
 * held against the capture receipts: an altered file is a failed check
 * of its run, named; each run's pin counts set. */
ev_status ev_audit_campaign_check_capture_pins(struct ev_audit_campaign *ca, struct ev_error *err);

/* fn(ctx, rel, hex, path) for every input the audit read under the
 * campaign directory, this receipt's and audit-journal.json's (rel: its
 * path relative to the campaign, hex: its SHA-256). @return EV_OK, or
 * the error reading audit-journal.json. */
typedef void (*ev_audit_campaign_input_fn)(void *ctx, const char *rel, const char *hex, const char *path);
ev_status ev_audit_campaign_each_input(struct ev_audit_campaign *ca, ev_audit_campaign_input_fn fn, void *ctx,
				       struct ev_error *err);

/* With a seal: the check "inputs against the seal", every input read
 * under the campaign directory (this receipt's, and the journals' in
 * audit-journal.json) a member of the seal with its SHA-256. */
ev_status ev_audit_campaign_check_seal(struct ev_audit_campaign *ca, struct ev_error *err);

/* Write name (bytes) into OUTDIR's temporary directory and name it in
 * the receipt's outputs with its SHA-256. */
ev_status ev_audit_campaign_publish_file(struct ev_audit_campaign *ca, const char *name, const char *bytes, size_t len,
					 struct ev_error *err);

/* The exports (audit_campaign_exports.c): each analysed run's
 * distribution as run-RUN.hgrm, each cell's counted runs together as
 * cell-ARM-CELL.hgrm (HdrHistogram's percentile distribution text,
 * lib/stats/hgrm), and runs.csv, a row of recomputed statistics per run. */
ev_status ev_audit_campaign_write_exports(struct ev_audit_campaign *ca, struct ev_error *err);

#endif
