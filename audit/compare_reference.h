/* SPDX-License-Identifier: Apache-2.0 */
/* audit compare --reference (compare_reference.c). */
#ifndef AUDIT_COMPARE_REFERENCE_H
#define AUDIT_COMPARE_REFERENCE_H

#include "lib/core/status.h"
#include "lib/usecase/audit/audit_reproduction.h"

/* Hold the summary's arm and cell to the reference (r's inputs: summary,
 * arm, cell, reference, its pin, OUTDIR, key): OUTDIR gets
 * reproduction.json, reproduction.md and receipt.json; the table (or with
 * json the document) and a closing line with the verdict go to stdout.
 * @return EV_OK, EV_MISMATCH when the summary's audit or medians do not
 * hold (the receipt says so), EV_USAGE for a refused input (nothing
 * written), EV_INTERRUPTED. */
ev_status audit_compare_reference(struct ev_audit_reproduction *r, int json, struct ev_error *err);

#endif
