/* SPDX-License-Identifier: Apache-2.0 */
/* audit_reproduction: a campaign's arm and cell held against a vendor's
 * published statistics (lib/stats/reference): per statistic the ratio of
 * the campaign's median of runs to the published value, beside the runs'
 * range, and a verdict that says "reproduced within X%" only when the
 * runs are quiet and the hardware and stack the campaign recorded are the
 * ones the reference names; otherwise "not comparable:" with each
 * difference, or "not reproduced:" with the statistic beyond the
 * tolerance (evidence-reproduction/1). What `audit compare --reference`
 * does.
 *
 * Two steps, because the tool renders in between: ev_audit_reproduction_run
 * reads the summary (compare_side) and the reference, holds them and
 * builds the document; ev_audit_reproduction_publish opens OUTDIR under a
 * hidden name, writes reproduction.json, the renderings the caller hands
 * it and the receipt (the caller's, still empty when run began, signed
 * with sign_key), and moves OUTDIR into place unless a signal came first.
 * Findings about the summary go to on_finding; nothing is printed. One
 * struct per call, owned by the caller: fill the inputs, call the two
 * steps, read the outputs, call ev_audit_reproduction_free (also after a
 * failure).
 */
#ifndef EV_AUDIT_REPRODUCTION_H
#define EV_AUDIT_REPRODUCTION_H

#include <signal.h>
#include <stddef.h>

#include <jansson.h>

#include "lib/core/finding.h"
#include "lib/core/status.h"
#include "lib/receipt/signature.h"
#include "lib/stats/reference.h"
#include "lib/usecase/audit/audit_compare.h"
#include "lib/usecase/audit/compare_side.h"

/* One statistic held to the reference. */
struct ev_held_stat {
	const char *name;
	double median, lo, hi, reference, ratio; /* ratio NAN when the reference is 0 */
	const char *printed;                     /* the published text */
};

struct ev_audit_reproduction {
	/* inputs */
	const char *summary;          /* audit campaign's OUTDIR or its summary.json */
	const char *arm, *cell;       /* the one held to the reference (NULL: the summary's only one) */
	const char *reference;        /* the descriptor (lib/stats/reference) */
	const char *reference_sha256; /* its pin, or NULL */
	const char *out;              /* OUTDIR, new */
	int unregistered;             /* hold to a reference no registration named, and say so */
	struct ev_signing_key *sign_key; /* NULL: unsigned */
	ev_finding_fn on_finding;     /* required: a summary's check that did not hold */
	void *ctx;
	volatile sig_atomic_t *interrupted; /* required */

	/* outputs */
	struct ev_compare_side side;
	struct ev_compare_group group;
	struct ev_reference ref;
	struct ev_held_stat held[EV_COMPARE_NSTATS];
	size_t nheld;
	json_t *differences;          /* what keeps the campaign from being held to it, as sentences */
	json_t *registration;         /* {"a", "b", "registered", "why"}: the summary's state, this reproduction's */
	char verdict[2048];
	json_t *doc;                  /* the reproduction document */
	char *bytes;                  /* its canonical bytes, after publishing */
	size_t len;

	/* its own */
	json_t *not_checked;
};

/* @return EV_OK with the document; EV_USAGE or EV_REFUSED for an input
 * that cannot be held (nothing written); EV_ERROR. */
ev_status ev_audit_reproduction_run(struct ev_audit_reproduction *r, json_t *receipt, struct ev_error *err);

/* @return EV_OK when the receipt passed, EV_MISMATCH when the summary's
 * audit or medians do not hold (OUTDIR is written and says so),
 * EV_REFUSED (an OUTDIR that exists), EV_INTERRUPTED or EV_ERROR: nothing
 * of OUTDIR is left. */
ev_status ev_audit_reproduction_publish(struct ev_audit_reproduction *r, json_t *receipt,
					const struct ev_compare_output *more, size_t nmore, struct ev_error *err);

void ev_audit_reproduction_free(struct ev_audit_reproduction *r);

#endif
