/* SPDX-License-Identifier: Apache-2.0 */
/* attestation: a receipt as an in-toto Statement v1 in a DSSE envelope,
 * so that tools outside this project can verify it.
 *
 * The statement (its canonical JSON bytes are the payload):
 *     {"_type": "https://in-toto.io/Statement/v1",
 *      "subject": [{"name": PATH or NAME, "digest": {"sha256": HEX}}, ...],
 *      "predicateType": EV_ATTESTATION_PREDICATE_TYPE,
 *      "predicate": the receipt, whole}
 * Its subjects are the receipt's inputs, then its outputs, each that has
 * a SHA-256, named by its path when it has one, else by its name.
 * The envelope (DSSE v1):
 *     {"payload": BASE64(statement), "payloadType": "application/vnd.in-toto+json",
 *      "signatures": [{"keyid": KEY_SHA256, "sig": BASE64(Ed25519(PAE))}, ...]}
 * where PAE = "DSSEv1" SP LEN(payloadType) SP payloadType SP LEN(payload)
 * SP payload (lengths in ASCII decimal, payload the decoded bytes), and
 * keyid is the key's id as receipts name it (the SHA-256 of its raw
 * public key). Base64 is the standard alphabet with padding.
 *
 * Checked: exactly those three envelope fields; the payloadType; every
 * signature by a trusted key verifies, and there is one; the statement's
 * _type and predicateType; the predicate is a receipt whose comparable
 * digest holds; the subjects are exactly the ones its inputs and outputs
 * give. Each refusal says which. No global state.
 */
#ifndef EV_ATTESTATION_H
#define EV_ATTESTATION_H

#include <stddef.h>

#include <jansson.h>

#include "lib/core/sha256.h"
#include "lib/core/status.h"
#include "lib/receipt/signature.h"

#define EV_ATTESTATION_STATEMENT_TYPE "https://in-toto.io/Statement/v1"
#define EV_ATTESTATION_PAYLOAD_TYPE "application/vnd.in-toto+json"
#define EV_ATTESTATION_PREDICATE_TYPE "urn:evidence:receipt:v1"

/* Whether doc looks like a DSSE envelope (it has a payloadType), as
 * opposed to a receipt. */
int ev_attestation_is_envelope(const json_t *doc);

/* An in-toto Statement v1 of subjects (an array of {name, digest}),
 * predicate_type and predicate, both references taken (NULL when either
 * is NULL, or memory ran out). */
json_t *ev_statement_new(json_t *subjects, const char *predicate_type, json_t *predicate);
/* The DSSE envelope of any statement, signed by each of keys (nkeys >= 1).
 * @return EV_OK with *envelope (a new reference); EV_ERROR. */
ev_status ev_attestation_envelope(const json_t *statement, const struct ev_signing_key *const *keys, size_t nkeys,
				  json_t **envelope, struct ev_error *err);
/* Open any envelope: exactly its three fields, the payloadType, and (with
 * trust; NULL: signatures not judged) every signature by a trusted key
 * verifying, at least one; the payload a Statement v1. On EV_OK
 * *statement is a new reference and signer (may be NULL) the first
 * trusted key's id. @return EV_OK; EV_MISMATCH with why; EV_ERROR. */
ev_status ev_attestation_open(const json_t *envelope, const struct ev_trust *trust, json_t **statement,
			      char signer[EV_SHA256_HEX_LEN + 1], char *why, size_t why_cap, struct ev_error *err);
/* The envelope of receipt, signed by each of keys (nkeys >= 1).
 * @return EV_OK with *envelope (a new reference); EV_ERROR. */
ev_status ev_attestation_make(const json_t *receipt, const struct ev_signing_key *const *keys, size_t nkeys,
			      json_t **envelope, struct ev_error *err);

/* Judge envelope against trust. On EV_OK *receipt (may be NULL) receives
 * the receipt inside (a new reference) and signer (may be NULL, 65 bytes)
 * the id of the first trusted key that signed it. @return EV_OK;
 * EV_MISMATCH with a sentence in why (why_cap bytes) naming the fact that
 * failed; EV_ERROR. */
ev_status ev_attestation_check(const json_t *envelope, const struct ev_trust *trust, json_t **receipt,
			       char signer[EV_SHA256_HEX_LEN + 1], char *why, size_t why_cap, struct ev_error *err);

#endif
