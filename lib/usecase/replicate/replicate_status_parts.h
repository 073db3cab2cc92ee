/* SPDX-License-Identifier: Apache-2.0 */
/* replicate_status_parts: what the files of replicate status share, and no one else:
 * the receipts and seals gathered (from the walk, replicate_status.c, or
 * from the catalog's rows, status_catalog.c) and judged per campaign
 * (status_judge.c). */
#ifndef EV_REPLICATE_STATUS_PARTS_H
#define EV_REPLICATE_STATUS_PARTS_H

#include <stddef.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "lib/core/sha256.h"
#include "lib/core/status.h"
#include "lib/receipt/signature.h"
#include "lib/usecase/replicate/replicate_status.h"

struct found {
	char *block;         /* one allocation: the strings below and inputs (100,000 receipts, bench/catalog) */
	const char *path;    /* as shown: HOST:PATH for a file indexed on another host */
	char sha256[EV_SHA256_HEX_LEN + 1];
	const char *kind, *host, *result, *finished, *comparable, *command, *seal, *root;
	const char *registration; /* an audit campaign's registration line, or NULL */
	char (*inputs)[EV_SHA256_HEX_LEN + 1]; /* the inputs' digests */
	size_t ninputs;
	int intact, trusted, from_archive; /* trusted: signed by a key of --trust */
	char signer[EV_SHA256_HEX_LEN + 1];
	int claimed;         /* tied to some campaign */
	json_t *also;        /* other paths of the same bytes (a receipt fetched, kept twice); NULL: none */
};

struct seal_file {
	char *path;
	char sha256[EV_SHA256_HEX_LEN + 1];
	char *root;
	char (*digests)[EV_SHA256_HEX_LEN + 1]; /* its non-empty files', sorted */
	size_t ndigests;
	int stamped;         /* FILE.tsr beside it */
	const char *not_here; /* why its timestamp cannot be checked here (another host's, a path not opened) */
};

/* A seal's place in struct status's seals, by its digest. */
struct seal_place {
	const char *sha256;
	size_t place;
};

struct status {
	struct found *receipts;
	size_t nreceipts, cap;
	struct seal_file *seals;
	size_t nseals, seals_cap;
	struct seal_place *by_digest; /* while the campaigns are judged: seals sorted by digest, then place */
	json_t *unreadable, *skipped;
	json_t *not_believed; /* catalog rows their documents contradict: [{path, why}] */
	json_t *by_sha256; /* a receipt's digest -> its index: the same bytes found again */
	struct ev_trust *trust;
	size_t untrusted; /* with trust: passing, intact replica receipts no trusted key signs, left out */
	long min_hosts;
	long long max_age; /* 0: any age */
	time_t now;        /* what ages are measured from, once for the whole document */
	const char *tsa_ca;
};

/* A receipt's fields as status judges them, from its document (the walk)
 * or from the catalog's row. */
struct receipt_fields {
	const char *kind, *host, *result, *finished, *comparable, *command, *seal, *root, *inputs, *registration;
	int intact, from_archive;
};

static inline const char *ev_inventory_field(const json_t *doc, const char *key)
{
	return json_string_value(json_object_get(doc, key));
}

/* Digests in hex, as qsort and bsearch order them. */
static inline int by_text(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* {"path", "why"} appended to list. */
void ev_inventory_note(json_t *list, const char *path, const char *why);
/* strdup, NULL for NULL. */
char *ev_inventory_copy(const char *s);
/* One receipt kept (its fields copied; a second copy of the same bytes
 * is added to the first's "also"); doc (may be NULL) is only read, for
 * its signature, with --trust. */
ev_status ev_inventory_keep_receipt(struct status *s, const char *path, const char *hex,
				    const struct receipt_fields *rf, const json_t *doc, struct ev_error *err);
/* Room for one more seal in s->seals. */
ev_status ev_inventory_grow_seals(struct status *s, struct ev_error *err);
/* Every file of the catalog out names (or under its dirs, on this host;
 * or of one seal), each row believed only as its document says. */
ev_status ev_inventory_gather_catalog(struct status *s, struct ev_replicate_status *out, struct ev_error *err);
/* A row per sealed campaign (only: one seal's), in the order first found. */
json_t *ev_inventory_campaigns(struct status *s, const char *only);

#endif
