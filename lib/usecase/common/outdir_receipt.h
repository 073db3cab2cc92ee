/* SPDX-License-Identifier: Apache-2.0 */
/* outdir_receipt: an OUTDIR published whole with its receipt, as audit
 * compare, audit compare --reference and audit campaign publish theirs.
 * Once ev_outdir_open (lib/core/publish) has made OUTDIR's hidden
 * temporary, every output goes there and is named in the receipt (with
 * OUTDIR's final path and its SHA-256); the receipt goes last, as
 * receipt.json, and OUTDIR is moved into place unless a signal came
 * first. No global state.
 */
#ifndef EV_OUTDIR_RECEIPT_H
#define EV_OUTDIR_RECEIPT_H

#include <signal.h>
#include <stddef.h>

#include <jansson.h>

#include "lib/core/publish.h"
#include "lib/core/status.h"
#include "lib/receipt/signature.h"

/* The hidden temporary of od (opened for out) as a path, into tmpdir.
 * @return EV_OK, or EV_USAGE when it does not fit. */
ev_status ev_outdir_receipt_tmpdir(const struct ev_outdir *od, const char *out, char *tmpdir, size_t cap,
				   struct ev_error *err);

/* bytes as tmpdir/name, an output of receipt named as out/name. */
ev_status ev_outdir_receipt_add(const char *tmpdir, const char *out, const char *name, const char *bytes, size_t len,
				json_t *receipt, struct ev_error *err);

/* The receipt, finished and signed with key (may be NULL), published as
 * receipt.json in tmpdir, then od committed as out, unless a signal came
 * first (interrupted): the last moment one can keep the outputs from
 * appearing (EV_INTERRUPTED, nothing published). *opened is cleared once
 * od is committed. */
ev_status ev_outdir_receipt_commit(struct ev_outdir *od, int *opened, const char *tmpdir, const char *out,
				   json_t *receipt, const struct ev_signing_key *key, volatile sig_atomic_t *interrupted,
				   struct ev_error *err);

#endif
