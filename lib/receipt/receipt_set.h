/* SPDX-License-Identifier: Apache-2.0 */
/* receipt_set: a set of receipts judged together (replicate compare, push,
 * prune).
 *
 * Each receipt is loaded strictly (receipt.h), its "comparable" digest is
 * recomputed, and with a trust set its signature is checked. Then the set
 * is compared against its first receipt, item by item (receipt_diff.h).
 * Problems and differences go to a callback with the receipt's path, so
 * the tool prints every one. The set owns the loaded documents.
 */
#ifndef EV_RECEIPT_SET_H
#define EV_RECEIPT_SET_H

#include <stddef.h>

#include <jansson.h>

#include "lib/core/finding.h"
#include "lib/core/sha256.h"
#include "lib/receipt/signature.h"
#include "lib/core/status.h"

struct ev_judged_receipt {
	const char *path;
	json_t *doc;
	char file_sha256[EV_SHA256_HEX_LEN + 1];
	const char *kind, *host, *result, *comparable; /* point into doc */
	int intact;        /* comparable matches the content */
	int signed_ok;     /* verified under a trusted key (only with a trust set) */
	char signer[EV_SHA256_HEX_LEN + 1];
};

struct ev_receipt_set {
	struct ev_judged_receipt *items;
	size_t count;
};

/* Called for every problem and difference, naming the receipt it is about. */
typedef void (*ev_receipt_finding_fn)(void *ctx, const char *receipt_path,
				   const struct ev_finding *f);

/* Load and judge every receipt. trust may be NULL (signatures are then not
 * judged). Problems ("altered": comparable does not match the content;
 * "signature": unsigned, untrusted or altered after signing) go to fn.
 * @return the number of problems; err is set (and the set freed) only
 * when a receipt cannot be read at all (EV_ERROR or EV_REFUSED in *st). */
unsigned ev_receipt_set_load(struct ev_receipt_set *set, char *const *paths, size_t n,
			  const struct ev_trust *trust, ev_receipt_finding_fn fn, void *ctx,
			  ev_status *st, struct ev_error *err);

/* Compare every receipt with the first. @return the number of receipts
 * whose comparable part differs from the first's; each difference goes to
 * fn with the differing receipt's path. */
size_t ev_receipt_set_disagreements(const struct ev_receipt_set *set, ev_receipt_finding_fn fn, void *ctx);

/* `replicate compare --json`: the set as it was judged, findings being
 * the problems and differences fn was given, each with its "receipt" (as
 * ev_finding_to_json gives them). judged_signatures: the set was loaded
 * with a trust set (each receipt then says who signed it, or null). */
#define EV_COMPARISON_FORMAT "evidence-comparison/1"
json_t *ev_receipt_set_comparison(const struct ev_receipt_set *set, int agree, json_t *findings,
				  int judged_signatures);

void ev_receipt_set_free(struct ev_receipt_set *set);

#endif
