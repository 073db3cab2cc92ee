/* SPDX-License-Identifier: Apache-2.0 */
/* replicate_status: what is where. Every receipt and seal found under the
 * directories given, gathered per sealed campaign (by its SEAL.json's
 * SHA-256): the hosts holding a verified copy and when each last verified
 * it, the audits and their verdicts, whether prune's receipt guards would
 * hold now, and what is missing, as one evidence-status/1 document
 * (doc/formats.md, "Inventory"). What `replicate status DIR...` does.
 *
 * From the files (lib/core/jsonwalk), or from a catalog's rows
 * (lib/catalog: the same document from what was indexed, and with recheck
 * each row held against its file's bytes now). Nothing is run, nothing
 * written. A file that cannot be read as a receipt or a seal is listed
 * (unreadable), one that is not a regular file is not opened (skipped);
 * links are never followed. One struct per
 * call, owned by the caller: fill the inputs, call ev_replicate_status,
 * read doc, call ev_replicate_status_free. No global state.
 */
#ifndef EV_REPLICATE_STATUS_H
#define EV_REPLICATE_STATUS_H

#include <stddef.h>

#include <jansson.h>

#include "lib/core/status.h"

struct ev_replicate_status {
	/* inputs */
	const char *const *dirs;          /* required: directories of receipts and seals */
	size_t ndirs;
	const char *const *trust_files;   /* trust lists: copies are counted by signing key; none: by host */
	size_t ntrust;
	long min_hosts;                   /* what prune needs (0: 2) */
	long long max_age;                /* seconds (0: any age): a copy counts toward min_hosts, an audit as
					     passing, only with a verification at most this old now; else stale */
	const char *tsa_ca;               /* may be NULL: else a seal's RFC 3161 timestamp is verified against it */
	const char *catalog;              /* may be NULL: the files walk; else the catalog's rows (dirs: only those
					     under them, on this host; none: every host's) */
	const char *seal_hex;             /* may be NULL: every campaign; else only this seal's */
	int recheck;                      /* with catalog: every row used held against its file's bytes now */

	/* outputs */
	json_t *doc;                      /* the status document */
	json_t *recheck_doc;              /* with recheck: {files, changed: [{path, indexed, now}], elsewhere} */
	size_t not_believed;              /* with catalog: rows their documents contradict, named in doc's
					     "not_believed" [{path, why}] (present only then) and not used */
};

/* @return EV_OK with doc; EV_MISMATCH, no doc (the catalog's file found
 * damaged: err names it, a finding); EV_USAGE (a DIR that is not a
 * directory), EV_REFUSED or EV_ERROR (a trust list that cannot be used,
 * I/O, the catalog); EV_USAGE too for seal_hex that nothing names. */
ev_status ev_replicate_status(struct ev_replicate_status *s, struct ev_error *err);

void ev_replicate_status_free(struct ev_replicate_status *s);

#endif
