/* SPDX-License-Identifier: Apache-2.0 */
/* checkpoint: the receipt log's tree heads in the formats others verify:
 * C2SP signed notes (c2sp.org/signed-note), checkpoints
 * (c2sp.org/tlog-checkpoint) and proofs (c2sp.org/tlog-proof), as Go's
 * golang.org/x/mod/sumdb/note and sumdb/tlog read them.
 *
 * A checkpoint's note text is three lines, no extension lines:
 *     ORIGIN\n SIZE\n base64(ROOT)\n
 * (ROOT: RFC 6962's Merkle tree hash, lib/receipt/merkle's), then a blank
 * line and one signature line per key, "— NAME base64(KEYID || SIG)\n",
 * with NAME the origin, SIG Ed25519 over the note text, and KEYID the
 * first four bytes (big-endian) of SHA-256(NAME || 0x0A || 0x01 ||
 * the raw 32-byte public key). A tlog-proof is
 *     c2sp.org/tlog-proof@v1\n index N\n one base64 hash per line of
 *     PATH(N, D[SIZE]), leaf side first\n \n the checkpoint verbatim.
 *
 * Names (origins and key names) written and accepted here are printable
 * ASCII without space or '+', at most EV_NOTE_NAME_MAX - 1 bytes: the
 * spec asks for no Unicode space and no '+'; we ask for less than it
 * allows, so that a name is one word in every terminal and file name.
 * Reading is strict: what we would not write (leading zeroes, a missing
 * final newline, a control character, a hash that is not 32 bytes) is
 * refused with the line it is on. No global state.
 */
#ifndef EV_CHECKPOINT_H
#define EV_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "lib/core/status.h"
#include "lib/receipt/merkle.h"
#include "lib/receipt/signature.h"

#define EV_TLOG_PROOF_HEADER "c2sp.org/tlog-proof@v1"
#define EV_NOTE_NAME_MAX 256
#define EV_NOTE_ED25519 0x01     /* signed-note's signature type for Ed25519 */
#define EV_NOTE_COSIGNATURE 0x04 /* tlog-cosignature's: a timestamped Ed25519 cosignature */
/* Go's verifier key: NAME+KEYID(8 hex)+base64(0x01 || key), no NUL */
#define EV_NOTE_VKEY_MAX (EV_NOTE_NAME_MAX + 1 + 8 + 1 + 44 + 1)

/* Whether name may be an origin or a key name (see above). @return 1 or 0. */
int ev_note_name_ok(const char *name);

/* The verifier key of pub (raw Ed25519) under name for signature type
 * (EV_NOTE_ED25519: the form Go's note.NewVerifier reads;
 * EV_NOTE_COSIGNATURE: a witness's, as tlog-cosignature writes it), into
 * vkey (EV_NOTE_VKEY_MAX bytes). */
ev_status ev_note_vkey(const char *name, unsigned type, const unsigned char pub[32], char vkey[EV_NOTE_VKEY_MAX],
		       struct ev_error *err);

/* The checkpoint of the tree of size leaves whose root is root, signed by
 * key under the name origin. *note (malloc'd, NUL-terminated, *len bytes
 * before the NUL). */
ev_status ev_checkpoint_make(const char *origin, size_t size, const ev_merkle_hash root,
			     const struct ev_signing_key *key, char **note, size_t *len, struct ev_error *err);

struct ev_checkpoint {
	char origin[EV_NOTE_NAME_MAX];
	size_t size;
	ev_merkle_hash root;
	size_t signatures; /* signature lines, whoever made them */
	size_t trusted;    /* of them, by a trusted key under the origin's name, verified */
	size_t cosigned;   /* of them, cosignatures (c2sp.org/tlog-cosignature) by a trusted key, verified */
	char cosigners[EV_NOTE_NAME_MAX]; /* the first of those cosigners' names ("" none) */
};

/* A witness's cosignature line of checkpoint (len bytes; its signatures
 * are not cosigned: the message is "cosignature/v1\ntime T\n" and the
 * note text) at POSIX time t, by key under name: "— NAME base64(KEYID ||
 * u64 t || SIG)\n" (KEYID for type 0x04) into line (cap bytes). */
ev_status ev_cosignature_make(const char *checkpoint, size_t len, const char *name, uint64_t t,
			      const struct ev_signing_key *key, char *line, size_t cap, struct ev_error *err);

/* Read the checkpoint note (len bytes). With trust (may be NULL: not
 * judged), it holds only as signed-note says a verifier must: at least one
 * signature by a trusted key named as the origin verifies, and no
 * signature whose name and key ID are a trusted key's fails (others are
 * ignored); a cosignature whose name and type-0x04 key ID are a trusted
 * key's must verify too, and is counted in cp->cosigned. @return EV_OK; EV_MISMATCH with a sentence in why (why_cap
 * bytes) naming the line or the signature. */
ev_status ev_checkpoint_read(const char *note, size_t len, const struct ev_trust *trust, struct ev_checkpoint *cp,
			     char *why, size_t why_cap);

/* The tlog-proof of the leaf at index: path (n hashes, PATH(index,
 * D[size])) and the checkpoint it proves against (checkpoint_len bytes).
 * *out malloc'd, NUL-terminated, *len bytes. */
ev_status ev_tlog_proof_make(size_t index, const ev_merkle_hash *path, size_t n, const char *checkpoint,
			     size_t checkpoint_len, char **out, size_t *len, struct ev_error *err);

struct ev_tlog_proof {
	size_t index;
	ev_merkle_hash path[EV_MERKLE_MAX_PROOF];
	size_t n;
	const char *checkpoint; /* inside the text read */
	size_t checkpoint_len;
};

/* Read a tlog-proof (len bytes; an "extra" line is refused: we write none
 * and it would be unauthenticated). @return EV_OK; EV_MISMATCH with why. */
ev_status ev_tlog_proof_read(const char *text, size_t len, struct ev_tlog_proof *p, char *why, size_t why_cap);

#endif
