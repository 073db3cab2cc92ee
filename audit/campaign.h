/* audit campaign's shared state, in four files: campaign_runs.c loads the
 * runs (lib/campaign/run) and audits each one (its series, its native
 * statistics, its journals), campaign_summary.c sums a campaign up per arm
 * and cell as the median of its runs, campaign_report.c writes the
 * Markdown and HTML report, campaign.c runs the command and publishes
 * OUTDIR. Only audit/campaign*.c include this. */
#ifndef AUDIT_CAMPAIGN_H
#define AUDIT_CAMPAIGN_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "lib/usecase/series_analysis.h"
#include "audit/svg.h"
#include "lib/receipt/signature.h"
#include "lib/archive/seal.h"
#include "lib/campaign/plan_read.h"
#include "lib/campaign/policy_read.h"
#include "lib/core/sha256.h"
#include "lib/core/status.h"
#include "lib/stats/hgrm.h"
#include "lib/stats/series.h"

#define MAX_RUNS 4096
#define MAX_POLICIES 64
#define SPECTRUM_STEPS 51      /* 0 to 5 nines, a tenth at a time */
#define TIMESERIES_POINTS 400
#define NQ 4
/* What a cell of runs without a series shows, in summary.json and the tables. */
#define CELL_PRINTED "printed, not recomputable (no series)"

/* The quantiles a campaign summary shows, by name and as a percentile. */
extern const char *const audit_campaign_q_names[NQ];
extern const char *const audit_campaign_q_percent[NQ];

struct run {
	char name[160], arm[64], cell[64], result[24], dir[PATH_MAX];
	char run_json_sha256[EV_SHA256_HEX_LEN + 1];
	int repeat;
	int profiled;          /* perf ran beside a side: shown apart, never in a cell's statistics */
	char series[PATH_MAX], native[PATH_MAX], delay[PATH_MAX], sjournal[PATH_MAX], pjournal[PATH_MAX];
	char native_log[PATH_MAX]; /* sockperf: the summary at the head of its full log, compared too */
	char native_stdout[PATH_MAX]; /* beside a report: what the sender printed, compared too */
	char sincoming[PATH_MAX], poutgoing[PATH_MAX]; /* the session's other direction: peer outgoing, sender incoming */
	enum ev_sockperf_clock sockperf_clock;
	uint64_t warmups, measured, rate;  /* warmups and measured: the plan's, from run.json */
	/* what the audit found */
	int analysed;
	char clock[EV_SERIES_CLOCK_MAX + 1], rule[24];
	uint64_t tps, source_hz;
	struct ev_moments m;
	double q[NQ];
	unsigned differ, findings;
	json_t *json; /* the run's part of summary.json */
	double spectrum[SPECTRUM_STEPS];
	size_t nspectrum;
	double ts_x[TIMESERIES_POINTS], ts_y[TIMESERIES_POINTS];
	size_t nts;
	struct ev_distribution dist; /* every value of the series, for the .hgrm export */
	/* a run without a series: what its program printed, in ns, checked
	 * against itself and the plan, never recomputed */
	int printed;
	double pq[NQ], pmean, pmax;
	unsigned char pq_have[NQ], pmean_have, pmax_have;
	unsigned inconsistent;
	/* its files against the capture receipts (campaign_pins.c) */
	unsigned pin_held, pin_unpinned, pin_altered;
	/* its grade (campaign_grade.c): each condition's verdict, merged */
	json_t *grade;
	char grade_of[16]; /* "quiet" or "diagnostic" */
};

struct campaign_audit;

/* What pins a run's bytes: "seal" (--seal), "capture receipt" (every
 * file read of the run is in one), "capture receipt, in part", or
 * "nothing". */
const char *audit_campaign_run_pinned_by(const struct campaign_audit *ca, const struct run *r);

struct campaign_audit {
	struct ev_signing_key *sign_key; /* --sign-key: receipt.json and audit-journal.json signed */
	const char *dir, *out;
	const char *perf;                    /* --perf, else /usr/bin/perf: never a program the evidence names */
	const char *onload_profiles;         /* --onload-profiles, else Onload's /usr/libexec/onload/profiles */
	const char *seal_path, *seal_sha256; /* --seal, --seal-sha256 */
	struct ev_trust *trust;              /* --trust: every capture receipt signed by one of these keys */
	json_t *capture_pins;                /* "runs/RUN/PATH" -> {"sha256", "receipt"} (campaign_pins.c) */
	size_t capture_receipts, capture_receipts_refused;
	struct ev_seal seal;                 /* with --seal: what each file read is held against */
	char seal_hex[EV_SHA256_HEX_LEN + 1]; /* "" without --seal */
	json_t *provenance;                  /* where and how it ran (campaign_provenance.c) */
	int json;
	struct ev_plan plan;      /* doc NULL: the campaign has no plan.json */
	struct run *runs;
	size_t nruns;
	json_t *receipt;
	char tmpdir[PATH_MAX];
	uint64_t journal_findings;
	int journals_audited;
	size_t journal_pairs;     /* runs whose journals were audited (one side alone when the other is missing) */
	size_t journals_missing;  /* runs with a declared journal that is not there: each a failed check */
	size_t journals_one_side; /* runs that declare one side's journal only (audited alone) */
	json_t *unread;           /* "the SIDE's output NAME": how many runs declare an output no reader here reads */
	size_t reverse_pairs;     /* runs whose other direction (peer outgoing, sender incoming) was audited */
	size_t stdout_compared, stdout_without_block; /* runs with a report whose stdout was compared, or printed none */
	json_t *stack_options;    /* per cell and side, requested and effective (NULL: no onload observer) */
	json_t *options_not_read; /* sentences: what of the requested options could not be read */
	json_t *profiles;         /* per profiled run and side, as audit profile reads it (NULL: none) */
	/* the grade (campaign_grade.c) */
	json_t *grade_rules;      /* the plan's "grades", else the shipped default */
	const char *grade_rules_from;
	char grade_rules_sha256[EV_SHA256_HEX_LEN + 1]; /* of the rules' canonical bytes */
	struct ev_policy policies[MAX_POLICIES]; /* policy.json, policy-2.json, ...: each capture session's */
	char policy_names[MAX_POLICIES][32];
	size_t npolicies;
	json_t *grade;            /* summary.json's "grade" */
	json_t *programs;         /* each side's programs as run.json's binaries name them: [{side, path, sha256}], once each */
};

/* The median of each statistic over the runs of arm and cell. */
struct cell_summary {
	size_t runs;
	double q[NQ], mean, largest_max;
	double spectrum[SPECTRUM_STEPS];
	size_t nspectrum;
	const char *rule;
	const char *unit;
	int printed;               /* of runs without a series: medians of what they printed */
	unsigned char q_have[NQ], mean_have; /* a statistic every counted run has */
};

ev_status audit_campaign_load_runs(struct campaign_audit *ca, struct ev_error *err);

/* One run: its series read, its statistics recomputed and checked. */
ev_status audit_campaign_analyse_run(struct campaign_audit *ca, struct run *r, struct ev_error *err);

/* The check "run RUN statistics" of each run without a series, once its
 * bytes were held (what pinned them is in its detail and summary.json). */
ev_status audit_campaign_check_printed(struct campaign_audit *ca, struct ev_error *err);

/* Both endpoints' journals of every run that has them, audited as
 * audit journal would, its receipt in the summary. */
ev_status audit_campaign_audit_journals(struct campaign_audit *ca, struct ev_error *err);

/* Arms and cells in the plan's order (else the runs'). */
size_t audit_campaign_arms_of(const struct campaign_audit *ca, const char **out, size_t cap);

size_t audit_campaign_cells_of(const struct campaign_audit *ca, const char **out, size_t cap);

/* Whether a run counts in its cell's medians: analysed, not empty, ok,
 * its audit passed, not profiled. summary.json says so per run
 * ("in_cell_median"), for audit compare. */
int audit_campaign_run_summed(const struct run *r);

/* A run's statistic k (the NQ quantiles, the mean, the max, then the
 * spectrum's points): recomputed, or for a run without a series as
 * printed (in ns). @return 0, or -1 when the run has none. */
int audit_campaign_run_statistic(const struct run *r, int k, double *v);

void audit_campaign_summarise_cell(const struct campaign_audit *ca, const char *arm, const char *cell,
			   struct cell_summary *cs);

int audit_campaign_cell_has_runs(const struct campaign_audit *ca, const char *arm, const char *cell);

json_t *audit_campaign_scales_json(const struct campaign_audit *ca);

json_t *audit_campaign_cells_json(const struct campaign_audit *ca);

/* What this campaign's pass means: per run, what could be recomputed;
 * the journals, audited here or left (named). */
json_t *audit_campaign_coverage(const struct campaign_audit *ca);

/* Requested against effective stack options, per cell and side, from the
 * runs' onload observers (campaign_options.c): a check per run (its
 * outputs hashed again) and per cell and side (the same options in every
 * run). @return the table's data for summary.json, or NULL when no run
 * has an onload observer; what could not be read goes to not_read. */
json_t *audit_campaign_stack_options(struct campaign_audit *ca, json_t *not_read);

/* Every profiled run's sides read as audit profile does (campaign_profiles.c),
 * their checks prefixed "run NAME ". @return {"runs": {RUN: {SIDE: facts}},
 * "cells": {CELL: {SIDE: {"runs": N, "split": medians}}}}, or NULL when no
 * run was profiled; EV_INTERRUPTED or an error that stops the audit goes
 * to err. */
json_t *audit_campaign_profiles(struct campaign_audit *ca, struct ev_error *err);

/* Their table, per cell medians, and (html) a partition chart per run
 * and side: split, objects, symbols, each as wide as its share. */
void audit_campaign_write_profiles(const json_t *profiles, struct ev_textbuf *t, int html);

/* Its tables, in Markdown or (html) HTML; nothing when options is NULL. */
void audit_campaign_write_stack_options(const json_t *options, struct ev_textbuf *t, int html);

/* The grading rules (the plan's "grades", checked, else the shipped
 * default) and every session's policy snapshot, each a receipt input. */
ev_status audit_campaign_load_grading(struct campaign_audit *ca, struct ev_error *err);

struct ev_run;
/* One run's verdicts into r->grade (lib/campaign/grade). */
void audit_campaign_grade_run(struct campaign_audit *ca, struct run *r, const struct ev_run *run);

/* The campaign's grade over its runs into ca->grade and each run's
 * summary: a fact and a check "grade" (failed only when the rules
 * require quiet and the campaign is not). */
ev_status audit_campaign_grade(struct campaign_audit *ca, struct ev_error *err);

/* "grade: diagnostic by the rules ...: N conditions failed, M unknown". */
void audit_campaign_grade_line(const struct campaign_audit *ca, FILE *to);

/* The Grade section: each condition, its verdict and evidence. */
void audit_campaign_write_grade(const struct campaign_audit *ca, struct ev_textbuf *t, int html);

/* Where and how the campaign ran, from policy.json and the capture
 * receipts (each added to the receipt's inputs), into ca->provenance. */
ev_status audit_campaign_read_provenance(struct campaign_audit *ca, const char *name, struct ev_error *err);

/* Every capture receipt in the campaign (receipt-capture*.json): intact,
 * and with --trust signed by a trusted key, else a failed check and its
 * pins unused; what each pins of the runs into ca->capture_pins. */
ev_status audit_campaign_load_capture_pins(struct campaign_audit *ca, struct ev_error *err);

/* Every input read under runs/ (this receipt's and audit-journal.json's)
 * held against the capture receipts: an altered file is a failed check
 * of its run, named; each run's pin counts set. */
ev_status audit_campaign_check_capture_pins(struct campaign_audit *ca, struct ev_error *err);

/* fn(ctx, rel, hex, path) for every input the audit read under the
 * campaign directory, this receipt's and audit-journal.json's (rel: its
 * path relative to the campaign, hex: its SHA-256). @return EV_OK, or
 * the error reading audit-journal.json. */
typedef void (*audit_campaign_input_fn)(void *ctx, const char *rel, const char *hex, const char *path);
ev_status audit_campaign_each_input(struct campaign_audit *ca, audit_campaign_input_fn fn, void *ctx,
				    struct ev_error *err);

/* With --seal: the check "inputs against the seal", every input read
 * under the campaign directory (this receipt's, and the journals' in
 * audit-journal.json) a member of the seal with its SHA-256. */
ev_status audit_campaign_check_seal(struct campaign_audit *ca, struct ev_error *err);

/* Write name (bytes) into OUTDIR's temporary directory and name it in
 * the receipt's outputs with its SHA-256. */
ev_status audit_campaign_publish(struct campaign_audit *ca, const char *name, const char *bytes, size_t len,
				 struct ev_error *err);

/* The exports (campaign_exports.c): each analysed run's distribution as
 * run-RUN.hgrm, each cell's counted runs together as cell-ARM-CELL.hgrm
 * (HdrHistogram's percentile distribution text, lib/stats/hgrm), and
 * runs.csv, a row of recomputed statistics per run. */
ev_status audit_campaign_write_exports(struct campaign_audit *ca, struct ev_error *err);

void audit_campaign_write_markdown(const struct campaign_audit *ca, struct ev_textbuf *t, json_t *summary);

void audit_campaign_write_html(const struct campaign_audit *ca, struct ev_textbuf *t, const char *campaign);

#endif
