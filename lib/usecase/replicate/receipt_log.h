/* SPDX-License-Identifier: Apache-2.0 */
/* receipt_log: an append-only log of the receipts and seals a host writes
 * or receives, as RFC 9162 builds a transparency log (lib/receipt/merkle),
 * so that a history rewritten quietly is caught. What `replicate log`
 * does.
 *
 * A log is a directory of files (lib/receipt/log_files: its layout and
 * every read and write of them; doc/formats.md "The receipt log").
 *
 * append: the log must still match its latest tree head before anything is
 * added (else refused: verify names what changed); receipts, seals,
 * registrations and sessions (lib/campaign/registration, session) are
 * logged; a file already in it
 * (by SHA-256) is refused. verify: every line read; every tree head's size
 * covered and its root recomputed (and, with trust, its signature by a
 * trusted key); every inclusion proof the entries name verified against
 * its head and its leaf; an entry removed, reordered or edited is named
 * (which entry, which tree size). consistency: RFC 9162's proof that the
 * tree an older head describes is a prefix of the tree a newer head
 * describes, computed from this log's entries and verified against both
 * roots: a host whose history another host saw is rewritten is caught.
 * Findings go to on_finding; nothing is printed. No global state.
 */
#ifndef EV_RECEIPT_LOG_H
#define EV_RECEIPT_LOG_H

#include <limits.h>
#include <stddef.h>

#include <jansson.h>

#include "lib/core/finding.h"
#include "lib/core/sha256.h"
#include "lib/core/status.h"
#include "lib/receipt/checkpoint.h"
#include "lib/receipt/log_files.h"
#include "lib/receipt/merkle.h"
#include "lib/receipt/signature.h"

struct ev_receipt_log {
	/* inputs */
	const char *dir;                     /* the log (made by the first append) */
	const char *origin;                  /* append, vkey: the log's name in its checkpoints; NULL: as recorded, or
	                                      * HOST + the log's absolute path at the first append */
	const struct ev_signing_key *sign_key; /* append: signs the tree head; NULL: unsigned */
	const struct ev_trust *trust;        /* verify: every head signed by one of these; NULL: not judged */
	ev_finding_fn on_finding;            /* verify's findings (NULL: counted, not shown; append makes none) */
	/* may be NULL; tlog_proof_path NULL when no key signed the append */
	void (*on_appended)(void *ctx, const char *file, size_t index, const char *proof_path, const char *tlog_proof_path);
	void *ctx;

	/* outputs */
	size_t size;                         /* entries, after append or as verified */
	size_t heads;                        /* tree heads verified */
	char root_hex[EV_SHA256_HEX_LEN + 1]; /* the root of every entry */
	char head_path[PATH_MAX];            /* append: the head written */
	char checkpoint_path[PATH_MAX];      /* append with a key: the checkpoint written ("" without one) */
	char log_origin[EV_NOTE_NAME_MAX];   /* the origin recorded in DIR/origin ("" none yet) */
	size_t checkpoints;                  /* verify: checkpoints verified */
	size_t cosignatures;                 /* verify: cosignatures by trusted keys verified */
	unsigned findings;
};

/* Append files (receipts or SEAL.json files) in order: each entry synced
 * before the tree head that covers it, the head before its checkpoint,
 * both before the proofs beside each file. A file already in the log is
 * refused, unless the append that added it stopped before it was whole (no
 * head covers it, or a proof is missing): the same append run again
 * writes what is missing, and keeps what is there. @return EV_OK;
 * EV_REFUSED (a log that no longer matches its head, a file already in
 * it, one that is no receipt or seal), EV_USAGE or EV_ERROR: err says why,
 * and nothing was appended. */
ev_status ev_receipt_log_append(struct ev_receipt_log *l, const char *const *files, size_t n, struct ev_error *err);

/* @return EV_OK when everything holds; EV_MISMATCH with findings; EV_ERROR
 * or EV_USAGE (no log there). Checkpoints and tlog-proofs that lie there
 * are verified too (with trust, their signatures). */
ev_status ev_receipt_log_verify(struct ev_receipt_log *l, struct ev_error *err);

/* The verifier key (Go's note.NewVerifier form) of the public key in
 * pub_path under this log's origin (l->origin, else the one recorded),
 * into vkey. @return EV_OK; EV_USAGE (no origin, a name that cannot be
 * one, not one Ed25519 public key); EV_ERROR. */
ev_status ev_receipt_log_vkey(struct ev_receipt_log *l, const char *pub_path, char vkey[EV_NOTE_VKEY_MAX],
			      struct ev_error *err);

/* The verifier key of the public key in pub_path as the witness named
 * name cosigns with it (signature type 0x04), into vkey. */
ev_status ev_witness_vkey(const char *name, const char *pub_path, char vkey[EV_NOTE_VKEY_MAX], struct ev_error *err);

/* The consistency of old_head (a tree head file, from this log or
 * another host's) with new_head, both against this log's entries.
 * *proof (a new reference) receives the evidence-consistency/1 document.
 * @return EV_OK consistent; EV_MISMATCH (why, why_cap bytes, says which
 * root did not hold); EV_ERROR or EV_USAGE. */
ev_status ev_receipt_log_consistency(struct ev_receipt_log *l, const char *old_head, const char *new_head,
				     json_t **proof, char *why, size_t why_cap, struct ev_error *err);

/* Push's head exchange, the pushing side: this log's latest tree head
 * (*head, a new reference; label, cap bytes, names this log's host as the
 * far end files it) and, for the head of old_size entries whose root is
 * old_root_hex that a replica kept from an earlier push (old_size 0:
 * none), RFC 9162's consistency proof from it (*proof, a new reference:
 * an array of hex). @return EV_OK; EV_MISMATCH when this log no longer
 * extends that head (why names the tree size and both roots: the history
 * was rewritten); EV_USAGE (a log with no tree head) or EV_ERROR. */
ev_status ev_receipt_log_offer(struct ev_receipt_log *l, size_t old_size, const char *old_root_hex, json_t **head,
			       json_t **proof, char *label, size_t cap, char *why, size_t why_cap, struct ev_error *err);

/* The pushing side again: this log's checkpoint of size entries (*note
 * malloc'd, *len bytes; NULL when the log wrote none: unsigned). */
ev_status ev_receipt_log_checkpoint(const struct ev_receipt_log *l, size_t size, char **note, size_t *len,
				    struct ev_error *err);

/* Keep a replica's cosignature LINE of this log's checkpoint of size
 * entries: the checkpoint and LINE as LOG/cosignatures/NAME/checkpoint-SIZE
 * (NAME the cosigner's, made a file name; the cosigner's name into name,
 * cap bytes).
 * @return EV_OK; EV_MISMATCH (why: LINE is not a cosignature line);
 * EV_ERROR. */
ev_status ev_receipt_log_keep_cosignature(const struct ev_receipt_log *l, size_t size, const char *line, char *name,
					  size_t cap, char *why, size_t why_cap, struct ev_error *err);

#endif
