/* SPDX-License-Identifier: Apache-2.0 */
/* replicate_check: receipts of any kind, and in-toto envelopes of them,
 * held against a trust list. What `replicate check` does.
 *
 * A receipt holds when it is intact (its comparable digest matches its
 * content, lib/receipt/receipt_set) and signed by a trusted key, and,
 * where an RFC 3161 timestamp lies beside it and a TSA certificate is
 * given, that timestamp verifies; an envelope holds when its DSSE
 * signature is a trusted key's and its statement's subjects are its
 * receipt's (lib/receipt/attestation). Every file is judged; nothing is
 * printed. One struct per call, owned by the caller: fill the inputs,
 * call ev_replicate_check, read the outputs, free with
 * ev_replicate_check_free. No global state.
 */
#ifndef EV_REPLICATE_CHECK_H
#define EV_REPLICATE_CHECK_H

#include <stddef.h>

#include <jansson.h>

#include "lib/core/status.h"
#include "lib/receipt/signature.h"

#define EV_TRUST_CHECK_FORMAT "evidence-trust-check/1"

/* One file judged: its row of doc (path, its sha256 or "envelope", kind,
 * host, result, holds, signed_by, problems, trusted_time) and what a
 * person is shown beside a receipt that holds. */
struct ev_replicate_check_entry {
	const json_t *row;
	int envelope;
	char when[400]; /* "; trusted time T by TSA", "; timestamped (give --tsa-ca to verify it)" or "" */
};

struct ev_replicate_check {
	/* inputs */
	char *const *paths; /* receipts and envelopes, each a file */
	size_t npaths;
	const struct ev_trust *trust; /* required */
	const char *tsa_ca;           /* may be NULL: a timestamp beside a receipt is then only named */

	/* outputs */
	json_t *doc; /* evidence-trust-check/1: {hold, receipts: [row...]} */
	struct ev_replicate_check_entry *entries; /* the envelopes in the order given, then the receipts */
	size_t nentries, bad, envelopes;
};

/* @return EV_OK once every file was judged (bad of nentries do not hold);
 * EV_ERROR or EV_REFUSED when a file cannot be read as JSON, or a
 * receipt at all: err names it, and the outputs are empty. */
ev_status ev_replicate_check(struct ev_replicate_check *c, struct ev_error *err);

void ev_replicate_check_free(struct ev_replicate_check *c);

#endif
