/* receipts: a set of receipts judged together (compare, push, prune).
 *
 * Each receipt is loaded strictly (receipt.h), its "comparable" digest is
 * recomputed, and with a trust set its signature is checked. Then the set
 * is compared against its first receipt, item by item (receipt_diff.h).
 * Problems and differences go to a callback with the receipt's path, so
 * the tool prints every one. The set owns the loaded documents.
 */
#ifndef REPLICATE_RECEIPTS_H
#define REPLICATE_RECEIPTS_H

#include <stddef.h>

#include <jansson.h>

#include "lib/core/finding.h"
#include "lib/core/sha256.h"
#include "lib/receipt/signature.h"
#include "lib/core/status.h"

struct judged_receipt {
	const char *path;
	json_t *doc;
	char file_sha256[EV_SHA256_HEX_LEN + 1];
	const char *kind, *host, *result, *comparable; /* point into doc */
	int intact;        /* comparable matches the content */
	int signed_ok;     /* verified under a trusted key (only with a trust set) */
	char signer[EV_SHA256_HEX_LEN + 1];
};

struct receipt_set {
	struct judged_receipt *items;
	size_t count;
};

/* Called for every problem and difference, naming the receipt it is about. */
typedef void (*receipt_finding_fn)(void *ctx, const char *receipt_path,
				   const struct ev_finding *f);

/* Load and judge every receipt. trust may be NULL (signatures are then not
 * judged). Problems ("altered": comparable does not match the content;
 * "signature": unsigned, untrusted or altered after signing) go to fn.
 * @return the number of problems; err is set (and the set freed) only
 * when a receipt cannot be read at all (EV_ERROR or EV_REFUSED in *st). */
unsigned replicate_receipt_set_load(struct receipt_set *set, char *const *paths, size_t n,
			  const struct ev_trust *trust, receipt_finding_fn fn, void *ctx,
			  ev_status *st, struct ev_error *err);

/* Compare every receipt with the first. @return the number of receipts
 * whose comparable part differs from the first's; each difference goes to
 * fn with the differing receipt's path. */
size_t replicate_receipt_set_disagreements(const struct receipt_set *set, receipt_finding_fn fn, void *ctx);

void replicate_receipt_set_free(struct receipt_set *set);


/* text as it may appear in a file name: letters, digits, '-' and '.' kept,
 * anything else '_'; "unknown" for NULL. */
void replicate_file_label(const char *text, char *out, size_t cap);

#endif
