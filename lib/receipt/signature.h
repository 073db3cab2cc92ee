/* SPDX-License-Identifier: Apache-2.0 */
/* signature: Ed25519 keys and signed receipts (OpenSSL EVP).
 *
 * A signed receipt carries
 *     "signature": {"algorithm": "ed25519",
 *                   "key_sha256": <SHA-256 of the raw 32-byte public key>,
 *                   "value": <the 64-byte signature, lower-case hex>}
 * over the canonical bytes of the receipt without its "signature" member.
 * The signature object holds exactly those three fields: being outside
 * what is signed, anything else in it is refused, never carried along.
 * Since receipts are read only in canonical form, any edit of a signed
 * receipt, however harmless it looks, breaks the signature.
 *
 * Keys are PEM: PKCS#8 "PRIVATE KEY" (written 0600, and refused when group
 * or others may read it, when another user owns it, or when it is not a
 * regular file, as ssh does) and SubjectPublicKeyInfo "PUBLIC
 * KEY", so `openssl pkey` and `openssl pkeyutl -rawin` read them too.
 *
 * Used by every receipt writer (--sign-key), and by replicate (keygen,
 * compare, prune and status --trust, check).
 * Keys are owned by the caller's structs; free functions accept NULL.
 * No global state.
 */
#ifndef EV_SIGNATURE_H
#define EV_SIGNATURE_H

#include <stddef.h>

#include <jansson.h>

#include "lib/core/sha256.h"
#include "lib/core/status.h"

#define EV_SIGNATURE_ALGORITHM "ed25519"

struct ev_signing_key;
struct ev_trust;

/* Make a key pair: private key at key_path (mode 0600), public key at
 * pub_path (0644). Both are published atomically; an existing file is
 * refused and nothing is written. key_sha256_hex (may be NULL, 65 bytes)
 * receives the new key's id. */
ev_status ev_signature_keygen(const char *key_path, const char *pub_path,
			      char key_sha256_hex[EV_SHA256_HEX_LEN + 1], struct ev_error *err);

/* Load a private key. Refused (EV_REFUSED) when the file is not a regular
 * file, or group or others may read or write it. */
ev_status ev_signing_key_load(const char *path, struct ev_signing_key **out,
			      struct ev_error *err);
void ev_signing_key_free(struct ev_signing_key *key);

/* Ed25519 over bytes (for a DSSE envelope's pre-authentication
 * encoding): the 64-byte signature into sig; key_sha256_hex (may be NULL)
 * receives the key's id. */
ev_status ev_signature_sign_bytes(const struct ev_signing_key *key, const void *bytes, size_t len,
				  unsigned char sig[64], char key_sha256_hex[EV_SHA256_HEX_LEN + 1], struct ev_error *err);

/* The raw 32-byte Ed25519 public key of a signing key (RFC 8032's
 * encoding, what C2SP signed notes derive key IDs from). */
void ev_signing_key_public(const struct ev_signing_key *key, unsigned char pub[32]);

/* The raw 32-byte public key of trusted key i (< ev_trust_count), and its
 * id into key_sha256_hex (may be NULL). */
void ev_trust_public(const struct ev_trust *t, size_t i, unsigned char pub[32],
		     char key_sha256_hex[EV_SHA256_HEX_LEN + 1]);

/* Whether sig (sig_len bytes) is an Ed25519 signature over bytes by the
 * trusted key whose id is key_sha256_hex. @return 1 it verifies, 0 it
 * does not, -1 no trusted key has that id. */
int ev_trust_verify_bytes(const struct ev_trust *t, const char *key_sha256_hex, const void *bytes, size_t len,
			  const unsigned char *sig, size_t sig_len);

/* Sign r in place: remove any "signature", sign its canonical bytes, add
 * the signature member. */
ev_status ev_receipt_sign(json_t *r, const struct ev_signing_key *key, struct ev_error *err);

/* Finish r (ev_receipt_finish) and, when key is not NULL, sign it: how
 * every receipt writer ends its receipt, so that --sign-key means the same
 * in every command. */
ev_status ev_receipt_finish_signed(json_t *r, const struct ev_signing_key *key, struct ev_error *err);

/* A set of trusted public keys, filled from PEM files (each may hold
 * several "PUBLIC KEY" blocks; other key types are refused). */
struct ev_trust *ev_trust_new(void);
ev_status ev_trust_add_file(struct ev_trust *t, const char *path, struct ev_error *err);
/* Add one raw 32-byte Ed25519 public key (as a policy carries it). */
ev_status ev_trust_add_raw(struct ev_trust *t, const unsigned char pub[32], struct ev_error *err);
size_t ev_trust_count(const struct ev_trust *t);

/* The trust set of n files (*out NULL when n is 0: signatures are then
 * not judged). @return EV_OK; else err names the file, and *out is NULL. */
ev_status ev_trust_from_files(const char *const *files, size_t n, struct ev_trust **out, struct ev_error *err);
void ev_trust_free(struct ev_trust *t);

/* Judge r's signature against the trusted keys.
 * @return EV_OK when it verifies under a trusted key (whose id goes to
 * key_sha256_hex, may be NULL); EV_MISMATCH with a sentence in why (why_cap
 * bytes) when r is unsigned, signed by a key not trusted, or altered since
 * it was signed; EV_ERROR on an internal failure (err set). */
ev_status ev_receipt_check_signature(const json_t *r, const struct ev_trust *t,
				     char key_sha256_hex[EV_SHA256_HEX_LEN + 1], char *why,
				     size_t why_cap, struct ev_error *err);

#endif
