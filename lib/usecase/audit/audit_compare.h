/* SPDX-License-Identifier: Apache-2.0 */
/* audit_compare: two arms, two cells or two campaigns compared run for
 * run from what audit campaign recomputed (summary.json): per statistic
 * both medians of runs, their ratio and difference, every run's value,
 * the range of each side, a bootstrap interval over runs
 * (lib/stats/bootstrap), and a verdict that claims an order only when
 * every run of one side is below every run of the other
 * (evidence-run-comparison/1, doc/formats.md "Comparing runs"). What
 * `audit compare SUMMARY [SUMMARY] -o OUTDIR` does.
 *
 * Two steps, because the tool renders in between: ev_audit_compare_run
 * reads and checks the summaries (compare_side), pairs every arm and cell
 * of A the selection names with its partner in B, refuses a pair on
 * different scales or rules, or of mixed grades unless mixed_grades, opens
 * OUTDIR under a hidden name (so that an existing one is refused before
 * the long part), resamples each pair and builds the comparison document.
 * ev_audit_compare_publish writes comparison.json and the renderings the
 * caller hands it, the receipt (the caller's, still empty when run began,
 * signed with sign_key) and moves OUTDIR into place, unless a signal came
 * first. Findings about the summaries go to on_finding; nothing is
 * printed. One struct per comparison, owned by the caller: fill the
 * inputs, call the two steps, read the outputs, call
 * ev_audit_compare_free (also after a failure: an OUTDIR not published is
 * removed).
 */
#ifndef EV_AUDIT_COMPARE_H
#define EV_AUDIT_COMPARE_H

#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <jansson.h>

#include "lib/core/finding.h"
#include "lib/core/meter.h"
#include "lib/core/publish.h"
#include "lib/core/status.h"
#include "lib/receipt/signature.h"
#include "lib/stats/bootstrap.h"
#include "lib/usecase/common/archive_copies.h"
#include "lib/usecase/audit/compare_side.h"

/* One arm and cell of A against its partner in B. */
struct ev_compare_pair {
	struct ev_compare_group a, b;
	double med_a[EV_COMPARE_NSTATS], med_b[EV_COMPARE_NSTATS];
	struct ev_bootstrap_interval iv[EV_COMPARE_NSTATS];
	const char *verdict[EV_COMPARE_NSTATS];
};

/* The two sides of p differ in grade (compared only with mixed_grades). */
static inline int ev_compare_pair_mixed(const struct ev_compare_pair *p)
{
	return strcmp(p->a.grade, p->b.grade) != 0;
}

/* A rendering written into OUTDIR beside comparison.json. */
struct ev_compare_output {
	const char *name;
	const char *bytes;
	size_t len;
};

struct ev_audit_compare {
	/* inputs */
	const char *inputs[2];               /* summary A, and B (ninputs 2) */
	int ninputs;
	const char *arm[2], *cell[2];        /* with one input: the two compared; with two: A's, then B's */
	int narm, ncell;
	int mixed_grades;
	int unregistered;                    /* compare what no registration planned, and say so */
	uint64_t resamples, seed;
	const char *out;                     /* OUTDIR, new */
	struct ev_signing_key *sign_key;     /* NULL: unsigned */
	ev_finding_fn on_finding;            /* required: a summary's check that did not hold */
	void (*on_pair)(void *ctx, const struct ev_compare_pair *p); /* may be NULL: before each pair is resampled */
	void *ctx;
	const struct ev_meter *meter;        /* may be NULL: pairs resampled */
	volatile sig_atomic_t *interrupted;  /* required */
	/* may be NULL: else the inputs are member paths of this sealed archive
	 * (a summary's directory or its summary.json, from the seal's root or
	 * with it in front), copied out in the one pass that checks the
	 * archive against seal (pinned by seal_sha256 when given;
	 * archive_copies.h) and named as the archive names them; the archive's
	 * findings go to on_finding and fail the check "archive against its
	 * seal" */
	const char *archive, *seal, *seal_sha256;

	/* outputs */
	struct ev_compare_side sides[2];
	const struct ev_compare_side *sa, *sb; /* B is A's summary when one input is given */
	struct ev_compare_pair *pairs;
	size_t npairs;
	json_t *unpaired;                    /* arms and cells of A with no partner, each why */
	json_t *registration;                /* {"a", "b": each side's state, "registered", "why"} */
	json_t *doc;                         /* the comparison document */
	char *bytes;                         /* its canonical bytes, after ev_audit_compare_publish */
	size_t len;

	/* its own */
	struct ev_archive_copies copies;
	char copy[2][PATH_MAX];
	int from_archive;
	json_t *not_checked;
	struct ev_outdir od;
	int opened;
};

/* @return EV_OK with the pairs and the document; EV_USAGE (nothing to
 * compare, pairs on different scales, rules or grades, a comparison no
 * registration planned without unregistered), EV_REFUSED (an
 * OUTDIR that exists), EV_INTERRUPTED or EV_ERROR: nothing is written. */
ev_status ev_audit_compare_run(struct ev_audit_compare *c, json_t *receipt, struct ev_error *err);

/* comparison.json, then more (the renderings, in order), the receipt,
 * OUTDIR in place. @return EV_OK when the receipt passed, EV_MISMATCH
 * when a summary's check did not hold (OUTDIR is written and says so),
 * EV_INTERRUPTED or EV_ERROR: nothing of OUTDIR is left. */
ev_status ev_audit_compare_publish(struct ev_audit_compare *c, json_t *receipt, const struct ev_compare_output *more,
				   size_t nmore, struct ev_error *err);

void ev_audit_compare_free(struct ev_audit_compare *c);

#endif
