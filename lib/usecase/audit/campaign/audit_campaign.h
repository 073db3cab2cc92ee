/* SPDX-License-Identifier: Apache-2.0 */
/* audit_campaign: every run of a campaign captured by capture, cold. Each
 * run's series recomputed (series_analysis), its native statistics checked
 * (or, without a series, what it printed checked against itself and the
 * plan), its journals audited as audit journal does (audit_journal, into
 * audit-journal.json), its stack options and profiles read, its files held
 * against the capture receipts and the seal; the campaign summed up per arm
 * and cell as the median of its runs' statistics (never a quantile of
 * pooled samples) and graded (lib/campaign/grade). What `audit campaign
 * DIR -o OUTDIR` does (doc/formats.md "Campaign summary").
 *
 * Two steps, because the tool renders in between: ev_audit_campaign_run
 * reads and judges the campaign, opens OUTDIR under a hidden name (so an
 * existing one is refused before the long part) and builds the summary
 * document; the tool renders it (summary.md, report.html) from the struct
 * and the readers below; ev_audit_campaign_publish writes summary.json,
 * the renderings the caller hands it, the exports (run-*.hgrm,
 * cell-*.hgrm, runs.csv), the receipt (the caller's, still empty when run
 * began, signed with sign_key) and moves OUTDIR into place, unless a
 * signal came first. Nothing is printed: findings, sentences about what
 * was left out and the journals' findings reach the caller through the
 * callbacks, progress through the meter. One struct per campaign, owned
 * by the caller: fill the inputs (zero the rest), call the two steps,
 * read the outputs, call ev_audit_campaign_free (also after a failure: an
 * OUTDIR not published is removed).
 *
 * From a sealed archive (dir a regular file; a seal required): the archive
 * is checked against its seal in one pass that copies every member into a
 * private directory (archive_copies.h), and the campaign is audited from
 * the copies exactly as from a tree. Every path it shows, writes or signs
 * names a copy as the archive does, ROOT/PATH (ROOT the seal's root), so
 * that the outputs are the tree audit's, run from the campaign's parent
 * as `audit campaign ROOT`; the archive's own findings count in the check
 * "inputs against the seal".
 */
#ifndef EV_AUDIT_CAMPAIGN_H
#define EV_AUDIT_CAMPAIGN_H

#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "lib/archive/seal.h"
#include "lib/campaign/plan.h"
#include "lib/campaign/policy_read.h"
#include "lib/core/finding.h"
#include "lib/core/meter.h"
#include "lib/core/publish.h"
#include "lib/core/sha256.h"
#include "lib/core/status.h"
#include "lib/receipt/receipt.h"
#include "lib/receipt/signature.h"
#include "lib/stats/hgrm.h"
#include "lib/stats/series.h"
#include "lib/usecase/common/archive_copies.h"
#include "lib/usecase/audit/journal/audit_journal.h"
#include "lib/usecase/audit/series_analysis.h"

#define EV_CAMPAIGN_MAX_RUNS 4096
#define EV_CAMPAIGN_MAX_POLICIES 64
#define EV_CAMPAIGN_SPECTRUM_STEPS 51      /* 0 to 5 nines, a tenth at a time */
#define EV_CAMPAIGN_TIMESERIES_POINTS 400
#define EV_CAMPAIGN_NQ 4
/* What a cell of runs without a series shows, in summary.json and the tables. */
#define EV_CAMPAIGN_CELL_PRINTED "printed, not recomputable (no series)"
/* At most this many sentences per grade condition in the receipt and in
 * summary.md; summary.json keeps them all. */
#define EV_CAMPAIGN_GRADE_SHOWN 3
/* The parts of a profile's split, in the order tables show them. */
#define EV_CAMPAIGN_PROFILE_PARTS 5
extern const char *const ev_audit_campaign_profile_parts[EV_CAMPAIGN_PROFILE_PARTS];

/* The quantiles a campaign summary shows, by name and as a percentile. */
extern const char *const ev_audit_campaign_q_names[EV_CAMPAIGN_NQ];
extern const char *const ev_audit_campaign_q_percent[EV_CAMPAIGN_NQ];

/* One run, as read and judged. */
struct ev_audited_run {
	char name[160], arm[64], cell[64], result[24], dir[PATH_MAX];
	char run_json_sha256[EV_SHA256_HEX_LEN + 1];
	char started[40];      /* its first process's exec (UTC, ns), by its host's clock; "" unknown */
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
	double q[EV_CAMPAIGN_NQ];
	unsigned differ, findings;
	json_t *json; /* the run's part of summary.json */
	double spectrum[EV_CAMPAIGN_SPECTRUM_STEPS];
	size_t nspectrum;
	double ts_x[EV_CAMPAIGN_TIMESERIES_POINTS], ts_y[EV_CAMPAIGN_TIMESERIES_POINTS];
	size_t nts;
	struct ev_distribution dist; /* every value of the series, for the .hgrm export */
	/* a run without a series: what its program printed, in ns, checked
	 * against itself and the plan, never recomputed */
	int printed;
	double pq[EV_CAMPAIGN_NQ], pmean, pmax;
	unsigned char pq_have[EV_CAMPAIGN_NQ], pmean_have, pmax_have;
	unsigned inconsistent;
	/* its files against the capture receipts (audit_campaign_pins.c) */
	unsigned pin_held, pin_unpinned, pin_altered;
	/* its grade (audit_campaign_grade.c): each condition's verdict, merged */
	json_t *grade;
	char grade_of[16]; /* "quiet" or "diagnostic" */
	json_t *interference; /* its counters in figures (ev_grade_interference_figures), for its row */
};

struct ev_audit_campaign {
	/* inputs */
	const char *dir, *out;               /* the campaign (a directory, or its sealed archive); OUTDIR, new */
	struct ev_signing_key *sign_key;     /* NULL: unsigned; else receipt.json and audit-journal.json signed */
	const char *perf;                    /* --perf, else /usr/bin/perf: never a program the evidence names */
	const char *onload_profiles;         /* else Onload's /usr/libexec/onload/profiles */
	const char *seal_path, *seal_sha256; /* may be NULL: the seal every file read is held to, and its pin */
	struct ev_trust *trust;              /* may be NULL: else every capture receipt signed by one of these keys */
	const char *log_dir;                 /* may be NULL: the receipt log the registration and its sessions are in */
	const char *log_head;                /* may be NULL: a tree head of that log a replica kept (keep-head) */
	const char *tsa_ca;                  /* may be NULL: the CA the registration's RFC 3161 token is held to */
	const char *publish;                 /* may be NULL: the statistics published, comma-separated (else as registered) */
	const char *tool;                    /* required: names the tool in audit-journal.json */
	const struct ev_invocation *invocation; /* may be NULL: how the tool was run, for audit-journal.json */
	/* required: a finding about the run named run, or (run NULL) the campaign */
	void (*on_finding)(void *ctx, const char *run, const struct ev_finding *f);
	/* required: a sentence about what was left out, refused or not
	 * used, naming its file or run, shown as it is */
	void (*on_note)(void *ctx, const char *text);
	/* may be NULL: each run's name before it is analysed, then NULL once all were */
	void (*on_run)(void *ctx, const char *run);
	/* may be NULL: the journals' audit, done, its findings kept in jr */
	void (*on_journals)(void *ctx, const struct ev_audit_journal *jr);
	void *ctx;
	const struct ev_meter *meter;        /* may be NULL: runs analysed */
	const struct ev_meter *archive_meter; /* may be NULL: from an archive, its members' bytes read */
	const struct ev_meter *journals_meter; /* may be NULL: the journals' bytes audited */
	volatile sig_atomic_t *interrupted;  /* required: nothing is claimed once it is set */

	/* outputs, after ev_audit_campaign_run */
	struct ev_plan plan;                 /* doc NULL: the campaign has no plan.json */
	char plan_sha256[EV_SHA256_HEX_LEN + 1]; /* of plan.json's bytes; "" without one */
	struct ev_audited_run *runs;
	size_t nruns;
	json_t *summary;                     /* summary.json's document */
	json_t *provenance;                  /* where and how it ran (audit_campaign_provenance.c) */
	json_t *stack_options;               /* per cell and side, requested and effective (NULL: no onload observer) */
	json_t *profiles;                    /* per profiled run and side, as audit profile reads it (NULL: none) */
	json_t *grade;                       /* summary.json's "grade" */
	json_t *registration;                /* the receipt's fact "registration" (audit_campaign_registration.c); never in
	                                      * summary.json, which two audits of one campaign compute alike */
	const char *grade_rules_from;        /* "the plan", or the shipped default's name */
	char grade_rules_sha256[EV_SHA256_HEX_LEN + 1]; /* of the rules' canonical bytes */
	json_t *programs;                    /* each side's programs as run.json's binaries name them: [{side, path, sha256}], once each */
	char seal_hex[EV_SHA256_HEX_LEN + 1]; /* "" without a seal */
	uint64_t journal_findings;
	int journals_audited;
	/* after ev_audit_campaign_publish */
	char *summary_bytes;                 /* summary.json's canonical bytes */
	size_t summary_len;

	/* its own */
	json_t *receipt;                     /* the caller's */
	json_t *capture_pins;                /* "runs/RUN/PATH" -> {"sha256", "receipt"} (audit_campaign_pins.c) */
	json_t *capture_registrations;       /* capture receipt name -> the registration's SHA-256 it names */
	size_t capture_receipts, capture_receipts_refused;
	struct ev_seal seal;                 /* with a seal: what each file read is held against */
	const char *archive;      /* the archive given as dir, whose copies dir now names; NULL: a tree */
	struct ev_archive_copies copies; /* from an archive: its members, copied in the pass that checked them */
	size_t journal_pairs;     /* runs whose journals were audited (one side alone when the other is missing) */
	size_t journals_missing;  /* runs with a declared journal that is not there: each a failed check */
	size_t journals_one_side; /* runs that declare one side's journal only (audited alone) */
	json_t *unread;           /* "the SIDE's output NAME": how many runs declare an output no reader here reads */
	size_t reverse_pairs;     /* runs whose other direction (peer outgoing, sender incoming) was audited */
	size_t stdout_compared, stdout_without_block; /* runs with a report whose stdout was compared, or printed none */
	json_t *options_not_read; /* sentences: what of the requested options could not be read */
	json_t *grade_rules;      /* the plan's "grades", else the shipped default */
	struct ev_policy policies[EV_CAMPAIGN_MAX_POLICIES]; /* policy.json, policy-2.json, ...: each capture session's */
	char policy_names[EV_CAMPAIGN_MAX_POLICIES][32];
	size_t npolicies;
	struct ev_outdir od;
	int opened;
	char tmpdir[PATH_MAX];
};

/* A rendering written into OUTDIR beside summary.json. */
struct ev_campaign_output {
	const char *name;
	const char *bytes;
	size_t len;
};

/* @return EV_OK with the runs judged and the summary built; EV_USAGE (no
 * run, a path too long, an archive without a seal), EV_REFUSED (an OUTDIR
 * that exists, a seal not pinned as given), EV_INTERRUPTED or EV_ERROR:
 * nothing is written. From an archive that does not match its seal, a
 * campaign that cannot be read to the end (a run.json damaged inside it)
 * is EV_MISMATCH, naming the archive's first finding and where the audit
 * stopped: nothing is written, and nothing passes. */
ev_status ev_audit_campaign_run(struct ev_audit_campaign *ca, json_t *receipt, struct ev_error *err);

/* summary.json, then more (the renderings, in order), the exports, the
 * receipt, OUTDIR in place. @return EV_OK when the receipt passed,
 * EV_MISMATCH when a check failed (OUTDIR is written and says so),
 * EV_INTERRUPTED or EV_ERROR: nothing of OUTDIR is left. */
ev_status ev_audit_campaign_publish(struct ev_audit_campaign *ca, const struct ev_campaign_output *more, size_t nmore,
				    struct ev_error *err);

void ev_audit_campaign_free(struct ev_audit_campaign *ca);

/* What the renderings read. */

/* The median of each statistic over the runs of arm and cell. */
struct ev_cell_summary {
	size_t runs;
	double q[EV_CAMPAIGN_NQ], mean, largest_max;
	double spectrum[EV_CAMPAIGN_SPECTRUM_STEPS];
	size_t nspectrum;
	const char *rule;
	const char *unit;
	int printed;               /* of runs without a series: medians of what they printed */
	unsigned char q_have[EV_CAMPAIGN_NQ], mean_have; /* a statistic every counted run has */
};

/* What pins a run's bytes: "seal", "capture receipt" (every file read of
 * the run is in one), "capture receipt, in part", or "nothing". */
const char *ev_audit_campaign_run_pinned_by(const struct ev_audit_campaign *ca, const struct ev_audited_run *r);

/* Arms and cells in the plan's order (else the runs'). */
size_t ev_audit_campaign_arms_of(const struct ev_audit_campaign *ca, const char **out, size_t cap);

size_t ev_audit_campaign_cells_of(const struct ev_audit_campaign *ca, const char **out, size_t cap);

/* Whether a run counts in its cell's medians: analysed, not empty, ok,
 * its audit passed, not profiled. summary.json says so per run
 * ("in_cell_median"), for audit compare. */
int ev_audit_campaign_run_summed(const struct ev_audited_run *r);

/* A run's statistic k (the EV_CAMPAIGN_NQ quantiles, the mean, the max,
 * then the spectrum's points): recomputed, or for a run without a series
 * as printed (in ns). @return 0, or -1 when the run has none. */
int ev_audit_campaign_run_statistic(const struct ev_audited_run *r, int k, double *v);

void ev_audit_campaign_summarise_cell(const struct ev_audit_campaign *ca, const char *arm, const char *cell,
				      struct ev_cell_summary *cs);

int ev_audit_campaign_cell_has_runs(const struct ev_audit_campaign *ca, const char *arm, const char *cell);

#endif
