/* SPDX-License-Identifier: Apache-2.0 */
/* receipt_log: an append-only log of the receipts and seals a host writes
 * or receives, as RFC 9162 builds a transparency log (lib/receipt/merkle),
 * so that a history rewritten quietly is caught. What `replicate log`
 * does.
 *
 * A log is a directory (doc/formats.md "The receipt log"):
 *   entries.jsonl   one canonical JSON line per entry, appended, never
 *                   rewritten: {"added", "file", "kind", "sha256"} (the
 *                   file's real path, its kind: "seal" or the receipt's,
 *                   the SHA-256 of its bytes); the line's bytes are the
 *                   leaf's data;
 *   heads/head-SIZE.json   a tree head after every append:
 *                   {"format": "evidence-tree-head/1", "host", "root_sha256",
 *                   "size", "time"}, signed with the key given;
 *   heads/checkpoint-SIZE   with a key, the same head as a C2SP checkpoint
 *                   (lib/receipt/checkpoint), signed under the origin;
 *   origin          the log's name in its checkpoints, one line, written by
 *                   the first append and never changed;
 *   .lock           appends are serialised with flock on it.
 *   cosignatures/NAME/checkpoint-SIZE   a checkpoint a replica (NAME) cosigned
 *                   when a push gave it this log's head (keep-head);
 * And beside each file appended, FILE.inclusion.json: its inclusion proof
 * against the tree head written by that append; with a key, also
 * FILE.tlog-proof, the same proof as a C2SP tlog-proof.
 *
 * append: the log must still match its latest tree head before anything is
 * added (else refused: verify names what changed); a file already in it
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
#include "lib/receipt/merkle.h"
#include "lib/receipt/signature.h"

#define EV_TREE_HEAD_FORMAT "evidence-tree-head/1"
#define EV_INCLUSION_FORMAT "evidence-inclusion/1"
#define EV_CONSISTENCY_FORMAT "evidence-consistency/1"

struct ev_receipt_log {
	/* inputs */
	const char *dir;                     /* the log (made by the first append) */
	const char *origin;                  /* append, vkey: the log's name in its checkpoints; NULL: as recorded, or
	                                      * HOST + the log's absolute path at the first append */
	const struct ev_signing_key *sign_key; /* append: signs the tree head; NULL: unsigned */
	const struct ev_trust *trust;        /* verify: every head signed by one of these; NULL: not judged */
	ev_finding_fn on_finding;            /* required: verify's findings */
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

/* Append files (receipts or SEAL.json files) in order. @return EV_OK;
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

/* A replica as a witness (c2sp.org/tlog-cosignature): with a key,
 * keep-head cosigns the checkpoint of every head it keeps, for the logs
 * whose keys it trusts. */
struct ev_witness {
	const struct ev_signing_key *key; /* NULL: heads are kept, nothing is cosigned */
	const struct ev_trust *trust;     /* the log keys it cosigns for; required with a key */
	const char *name;                 /* the cosigner's name in its signature lines */
};

/* The far end (`replicate keep-head DIR LABEL`): says on out "have SIZE
 * ROOT" (the last head kept in DIR/log-heads/LABEL, or "have 0 -"), reads
 * one line from in, {"head": HEAD, "proof": [hex...], "checkpoint": NOTE
 * (a signed log's)}, and keeps HEAD as DIR/log-heads/LABEL/head-SIZE.json
 * only when the proof shows the kept head's tree a prefix of it (RFC 9162
 * §2.1.4.2), answering "kept head-SIZE" or "refused: WHY". With w's key,
 * it cosigns too, as a witness does: only a checkpoint signed by a trusted
 * key, whose origin is the one first cosigned under LABEL (recorded in
 * DIR/log-heads/LABEL/origin), saying what the head says; the cosigned
 * checkpoint is kept beside the head (checkpoint-SIZE) and the answer is
 * "kept head-SIZE cosigned LINE", LINE the cosignature's. @return EV_OK
 * kept; EV_MISMATCH refused; EV_USAGE or EV_ERROR. */
ev_status ev_receipt_log_keep_head(int in, int out, const char *dir, const char *label, const struct ev_witness *w,
				   struct ev_error *err);

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

/* A log as a judge who is not the log reads it (replicate accept): its
 * origin, each entry's SHA-256 (its "sha256"), the tree over its leaves,
 * and the paths of the cosigned checkpoints lying in it
 * (cosignatures/NAME/checkpoint-SIZE, never through a link). Nothing is
 * verified here but the lines' form; the judge holds the checkpoints to
 * its own keys. */
struct ev_log_view {
	char origin[EV_NOTE_NAME_MAX];       /* "" when none is recorded */
	size_t n;                            /* entries */
	char (*sha256)[EV_SHA256_HEX_LEN + 1]; /* n of them */
	struct ev_merkle tree;
	char **cosigned;                     /* paths */
	size_t ncosigned;
};
/* @return EV_OK; EV_REFUSED (a line that is not an entry) or EV_ERROR,
 * naming the file. */
ev_status ev_log_view_read(const char *dir, struct ev_log_view *v, struct ev_error *err);
void ev_log_view_free(struct ev_log_view *v);

#endif
