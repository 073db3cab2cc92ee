/* SPDX-License-Identifier: Apache-2.0 */
/* compare_side: a campaign summary as the user named it (summary.json, or
 * audit campaign's OUTDIR), its audit receipt held against it, and the
 * runs one arm and cell of it counts in its medians; shared by the
 * comparison of two sides (lib/usecase/audit/audit_compare) and the comparison
 * with a published reference (audit compare --reference). A check that
 * does not hold is a failed check in the receipt and a finding to
 * on_finding ("summary A: PATH"); nothing is printed. */
#ifndef EV_COMPARE_SIDE_H
#define EV_COMPARE_SIDE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include <signal.h>

#include <jansson.h>

#include "lib/core/finding.h"

#include "lib/core/sha256.h"
#include "lib/core/status.h"

#define EV_COMPARE_NSTATS 6

/* p50, p95, p99, p99.9, mean, max: what a summary gives per run. */
extern const char *const ev_compare_stat_names[EV_COMPARE_NSTATS];

/* One summary as the user named it. */
struct ev_compare_side {
	const char *given;
	char summary[PATH_MAX]; /* its summary.json */
	char receipt[PATH_MAX]; /* audit campaign's receipt.json beside it */
	json_t *doc;
	char sha256[EV_SHA256_HEX_LEN + 1];
	const char *campaign;
	json_t *registration;   /* its audit receipt's fact "registration" (ev_compare_side_read_registration), or NULL */
};

/* The runs one arm and cell of a summary counts in its medians. */
struct ev_compare_group {
	const struct ev_compare_side *side;
	const char *arm, *cell, *unit, *rule;
	const json_t *cell_doc; /* its entry in the summary's cells */
	uint64_t ticks_per_second;
	size_t n;
	const char **names;
	double *v[EV_COMPARE_NSTATS];
	const char *grade;      /* "quiet" when every run counted is, "diagnostic", or "ungraded" (an older summary) */
};

/* Read the summary given (a directory: its summary.json, its receipt.json
 * beside) as side which ('A', 'B'); an input of receipt. Refused when it
 * is no summary, or lists an arm and cell twice. */
ev_status ev_compare_load_side(struct ev_compare_side *s, const char *given, json_t *receipt, char which, struct ev_error *err);

/* The check "summary W audited": its receipt passed and names its bytes;
 * without a receipt beside it, a sentence in not_checked. */
ev_status ev_compare_check_side_receipt(const struct ev_compare_side *s, char which, json_t *receipt, json_t *not_checked,
					ev_finding_fn on_finding, void *ctx, struct ev_error *err);

/* The runs of cell_doc's arm and cell that s counts (in_cell_median), in
 * its order, each statistic's value; g->grade from their grades. */
ev_status ev_compare_group_load(struct ev_compare_group *g, const struct ev_compare_side *s, const json_t *cell_doc, struct ev_error *err);

void ev_compare_group_free(struct ev_compare_group *g);

/* The check that the summary's own medians of g are its runs'. */
ev_status ev_compare_check_group_medians(const struct ev_compare_group *g, char which, json_t *receipt,
					 ev_finding_fn on_finding, void *ctx, struct ev_error *err);

/* The smallest and largest of v[0..n), n > 0. */
void ev_compare_range_of(const double *v, size_t n, double *lo, double *hi);

/* s->registration: the fact "registration" of the audit campaign
 * receipt beside the summary, when that receipt holds (its comparable
 * digest, and it names these bytes of summary.json): the registration is
 * judged with evidence from outside the campaign (the log, the TSA's CA),
 * so it lives in the receipt, never in summary.json, which two audits of
 * one campaign compute alike. Else NULL. */
void ev_compare_side_read_registration(struct ev_compare_side *s);

/* A side's registration as its audit receipt says: "registered", "failed", "unproven"
 * (what was checked held, its order or sessions were not judged), or
 * "unregistered" (also a summary written before registrations were). */
const char *ev_compare_side_registration(const struct ev_compare_side *s);

/* What a comparison compares: two arms, two cells (each NULL when not
 * selected), or a published reference by its descriptor's SHA-256. */
struct ev_compare_selection {
	const char *arms[2], *cells[2];
	const char *reference_sha256;
};

/* Whether the comparison sel of a with b (the same side when one summary
 * is given) was registered: both sides registered (and held), under one
 * registration, which registers the arms, the cells, or the reference
 * selected; two sessions of one registration compared whole are its own.
 * @return 1; 0 with why (cap bytes) naming what was not registered and
 * what the registration does register. */
int ev_compare_registered(const struct ev_compare_side *a, const struct ev_compare_side *b,
			  const struct ev_compare_selection *sel, char *why, size_t cap);

/* The registration state of the comparison sel of a with b, judged as
 * ev_compare_registered says: *doc a new {"a", "b", "registered", "why"}.
 * @return EV_OK; EV_USAGE when it was not registered and unregistered is
 * 0 (err says what was not and what to do). */
ev_status ev_compare_registration(const struct ev_compare_side *a, const struct ev_compare_side *b,
				  const struct ev_compare_selection *sel, int unregistered, json_t **doc,
				  struct ev_error *err);

/* That document in one line for a reader: "registration: A registered,
 * B registered; the comparison was registered", or "...; the comparison
 * was NOT registered (WHY): compared under --unregistered". */
void ev_compare_registration_sentence(const json_t *doc, char *out, size_t cap);

/* The summary's cell entry of arm and cell, or NULL. */
const json_t *ev_compare_cell_named(const struct ev_compare_side *s, const char *arm, const char *cell);

#endif
