/* SPDX-License-Identifier: Apache-2.0 */
/* seal_capsule: the source a campaign was built from, sealed from a git
 * commit (never the working tree), and checked against a commit later.
 * What `seal capsule` and `seal capsule --verify` do.
 *
 * The commit's tree is listed through libgit2 (lib/git/gitrepo) as a
 * seal: files 0644 or 0755 as git stores them, every name checked as a
 * member path and against its case and normalization twins. A symbolic
 * link or a submodule is refused (each one to on_refusal, all of them,
 * before anything is written) unless recorded in the seal's source.
 * ev_seal_capsule_create then reads every blob once, hashing and
 * archiving it in the same pass, into OUTDIR published whole
 * (lib/usecase/seal/seal_outdir) with its receipt.
 * ev_seal_capsule_verify holds CAPSULE (its OUTDIR, a SEAL.json, or a
 * tree on disk) to the commit it names or the one given: the capsule's
 * seal against the commit's listing with every blob hashed, its archive
 * against its own seal, a tree's files against the commit; the receipt
 * is the caller's (ev_receipt_new, still empty), signed with the archive
 * options' key and written at receipt (or a fresh name).
 *
 * Nothing is printed. One struct per call, owned by the caller: fill the
 * inputs, call one of the two, read the outputs, call
 * ev_seal_capsule_free (also after a failure). No global state.
 */
#ifndef EV_SEAL_CAPSULE_H
#define EV_SEAL_CAPSULE_H

#include <limits.h>
#include <signal.h>
#include <stdint.h>

#include <jansson.h>

#include "lib/archive/seal.h"
#include "lib/core/finding.h"
#include "lib/core/meter.h"
#include "lib/core/status.h"
#include "lib/receipt/receipt.h"
#include "lib/usecase/seal/seal_outdir.h"

struct ev_git;

struct ev_seal_capsule {
	/* inputs */
	const char *repo;                   /* required */
	const char *commit;                 /* create: NULL, HEAD; verify: NULL, the one the capsule names */
	const char *outdir, *name;          /* create: OUTDIR; the root's name (NULL: REPO-COMMIT12) */
	const char *target, *receipt;       /* verify: CAPSULE; its receipt (NULL: a fresh name) */
	int record_links, record_submodules; /* list them in the seal's source instead of refusing */
	struct ev_seal_archive_opts archive; /* create: the archive; both: sign_key signs the receipt */
	ev_finding_fn on_refusal;           /* required: each member the commit cannot be sealed with */
	ev_finding_fn on_finding;           /* verify, required: each difference */
	void *ctx;
	const struct ev_meter *meter;       /* may be NULL: create's archiving, verify's hashing */
	volatile sig_atomic_t *interrupted; /* required */
	const struct ev_invocation *invocation; /* how the command was run, for the receipt; may be NULL */

	/* outputs */
	char commit_id[64], tree_id[64];    /* the commit read */
	const char *named;                  /* verify: the commit the capsule names (NULL: none), in capsule */
	struct ev_seal seal;                /* create: the seal written; verify: the commit's listing */
	struct ev_seal capsule;             /* verify: the capsule's own seal */
	struct ev_seal_outdir out;          /* create: OUTDIR as published */
	json_t *receipt_doc;                /* create: the receipt written into OUTDIR */
	unsigned refused;                   /* members refused */
	uint64_t findings;                  /* verify: differences */
	char receipt_path[PATH_MAX];        /* verify: where its receipt went */
};

/* @return EV_OK with OUTDIR published; EV_REFUSED when members were
 * refused (each handed to on_refusal; nothing written); EV_USAGE (a root
 * name that cannot be a member), EV_INTERRUPTED or EV_ERROR: nothing of
 * OUTDIR is left behind. */
ev_status ev_seal_capsule_create(struct ev_seal_capsule *c, struct ev_error *err);

/* @return EV_OK when every member matches; EV_MISMATCH when not (the
 * receipt is written and says which); EV_REFUSED, EV_USAGE,
 * EV_INTERRUPTED or EV_ERROR: no receipt is written. */
ev_status ev_seal_capsule_verify(struct ev_seal_capsule *c, json_t *receipt, struct ev_error *err);

void ev_seal_capsule_free(struct ev_seal_capsule *c);

#endif
