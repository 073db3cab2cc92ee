/* SPDX-License-Identifier: Apache-2.0 */
/* acceptance: a lab's acceptance policy (evidence-acceptance/1), what
 * "this campaign is acceptable" means, in one signed document a reviewer
 * holds (doc/formats.md "Acceptance policies"):
 *
 *     {"format": "evidence-acceptance/1", "name": N, "version": V,
 *      "expires": "YYYY-MM-DDTHH:MM:SSZ",
 *      "keys": {KEYNAME: base64(raw 32-byte Ed25519 public key), ...},
 *      "signers": {"seal": [KEYNAME...], "replica": [...], "audit": [...]},
 *      "timestamp": null | {"tsa_ca": PEM certificates},
 *      "replicas": K, "audits": K,
 *      "checkpoints": null | {"origin": O, "log_key": KEYNAME,
 *                             "witnesses": [KEYNAME...], "quorum": K},
 *      "grade": "quiet" | "any",
 *      "reference": null | {"sha256": HEX},
 *      "signature": {...as a signed receipt's}}
 *
 * Every key is required and no other is allowed: a policy says each
 * condition, even to say it requires nothing, so that a reader never
 * guesses a default. Reading judges the form only (each refusal names the
 * key); whether the signature holds and the policy has not expired is the
 * caller's condition to judge (lib/usecase/replicate/replicate_accept), because
 * both are verdicts about a policy, not errors in reading one.
 * The struct owns what it holds; no global state.
 */
#ifndef EV_ACCEPTANCE_H
#define EV_ACCEPTANCE_H
#include <stddef.h>
#include <time.h>
#include <jansson.h>
#include "lib/core/sha256.h"
#include "lib/core/status.h"
#include "lib/receipt/checkpoint.h"
#include "lib/receipt/signature.h"

#define EV_ACCEPTANCE_FORMAT "evidence-acceptance/1"

/* The receipt kinds a policy names signers for, in the order it judges them. */
enum ev_acceptance_kind { EV_ACCEPT_SEAL, EV_ACCEPT_REPLICA, EV_ACCEPT_AUDIT, EV_ACCEPT_KINDS };

struct ev_acceptance_key {
	char name[EV_NOTE_NAME_MAX];
	unsigned char pub[32];
	char id[EV_SHA256_HEX_LEN + 1]; /* its key_sha256, as receipts name it */
};

struct ev_acceptance {
	json_t *doc;                      /* the policy as read */
	char sha256[EV_SHA256_HEX_LEN + 1]; /* of its bytes */
	const char *name, *expires;       /* into doc */
	long long version;
	time_t expires_at;
	struct ev_acceptance_key *keys;
	size_t nkeys;
	struct ev_trust *signers[EV_ACCEPT_KINDS]; /* the keys each kind may be signed by (NULL: none named) */
	const char *tsa_ca;               /* PEM, into doc; NULL: no timestamp required */
	size_t replicas, audits;
	int checkpoints;                  /* 0: none required */
	const char *origin;               /* into doc */
	size_t log_key;                   /* index into keys */
	size_t *witnesses, nwitnesses;    /* indices into keys */
	size_t quorum;
	int grade_quiet;
	const char *reference_sha256;     /* into doc; NULL: none required */
};

/* The name a kind has in "signers" ("seal", "replica", "audit"). */
const char *ev_acceptance_kind_name(enum ev_acceptance_kind kind);

/* Read a policy already parsed (doc: a new reference is taken), named
 * name in errors. @return EV_OK; EV_REFUSED naming the key that is
 * missing, unknown or malformed. */
ev_status ev_acceptance_read(json_t *doc, const char *name, struct ev_acceptance *p, struct ev_error *err);

/* Load a policy file: canonical JSON, evidence-acceptance/1, read as
 * above. @return as ev_acceptance_read; EV_ERROR when it cannot be read. */
ev_status ev_acceptance_load(const char *path, struct ev_acceptance *p, struct ev_error *err);

void ev_acceptance_free(struct ev_acceptance *p);

/* The index of the key whose key_sha256 is id, or (size_t)-1. */
size_t ev_acceptance_key_by_id(const struct ev_acceptance *p, const char *id);

#endif
