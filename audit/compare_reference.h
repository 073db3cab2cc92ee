/* audit compare --reference (compare_reference.c). */
#ifndef AUDIT_COMPARE_REFERENCE_H
#define AUDIT_COMPARE_REFERENCE_H

#include "lib/core/status.h"
#include "lib/receipt/signature.h"

struct reference_opts {
	const char *summary;          /* audit campaign's OUTDIR or its summary.json */
	const char *arm, *cell;       /* the one held to the reference (NULL: the summary's only one) */
	const char *reference;        /* the descriptor (lib/stats/reference) */
	const char *reference_sha256; /* its pin, or NULL */
	const char *out;              /* OUTDIR, new */
	int json;
	struct ev_signing_key *sign_key;
};

/* Hold the summary's arm and cell to the reference: OUTDIR gets
 * reproduction.json, reproduction.md and receipt.json; the table and a
 * closing line with the verdict go to stdout. @return EV_OK, EV_MISMATCH
 * when the summary's audit or medians do not hold (the receipt says so),
 * EV_USAGE for a refused input (nothing written), EV_INTERRUPTED. */
ev_status audit_compare_reference(const struct reference_opts *o, struct ev_error *err);

#endif
