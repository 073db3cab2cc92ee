/* SPDX-License-Identifier: Apache-2.0 */
/* replicate_accept: one verdict on a campaign, against a lab's signed
 * acceptance policy (lib/receipt/acceptance), offline. What `replicate
 * accept` does.
 *
 * The evidence is whatever lies beneath a directory (a campaign's, a
 * reviewer's copy of one): the seal (one SEAL.json, or its copies),
 * receipts of any kind, SEAL.json.tsr, and receipt logs (a directory with
 * heads/ and entries.jsonl) with the checkpoints replicas cosigned. Every
 * receipt is a stranger's input: read strictly, its comparable digest
 * recomputed, its signature held to the keys the policy lets sign its
 * kind; one that fails is not counted, and is said. Each condition is
 * judged, in the policy's order, whatever came before, so that the
 * verdict names the first unmet and everything that held:
 *
 *   policy       signed by a key the reviewer trusts; not expired;
 *   seal         a passing seal receipt of this seal, by a seal signer;
 *   timestamp    SEAL.json's RFC 3161 token chains to the policy's CA;
 *   replicas     passing replica receipts of this seal on K distinct hosts;
 *   audits       passing audit-campaign receipts of this seal on K distinct
 *                hosts, all with the same summary.json (they agree);
 *   checkpoints  a quorum of the policy's witnesses cosigned checkpoints of
 *                the policy's log, by its key, that include the seal and
 *                every receipt counted above; two that disagree (a split
 *                view) fail it, naming both;
 *   grade        every agreeing audit graded the campaign quiet;
 *   reference    a passing `audit compare --reference` receipt of that
 *                summary and the policy's reference says "reproduced
 *                within".
 * No global state; nothing is written.
 */
#ifndef EV_REPLICATE_ACCEPT_H
#define EV_REPLICATE_ACCEPT_H
#include <limits.h>
#include <time.h>
#include <jansson.h>
#include "lib/core/sha256.h"
#include "lib/core/status.h"
#include "lib/receipt/acceptance.h"
#include "lib/receipt/signature.h"

#define EV_ACCEPT_VERDICT_FORMAT "evidence-acceptance-verdict/1"

enum ev_accept_condition_id {
	EV_ACCEPT_C_POLICY, EV_ACCEPT_C_SEAL, EV_ACCEPT_C_TIMESTAMP, EV_ACCEPT_C_REPLICAS, EV_ACCEPT_C_AUDITS,
	EV_ACCEPT_C_CHECKPOINTS, EV_ACCEPT_C_GRADE, EV_ACCEPT_C_REFERENCE, EV_ACCEPT_CONDITIONS
};
enum ev_accept_state { EV_ACCEPT_HELD, EV_ACCEPT_UNMET, EV_ACCEPT_NOT_REQUIRED };

struct ev_accept_condition {
	const char *name;          /* "policy", "seal", ... */
	enum ev_accept_state state;
	char said[4096];           /* what held, or what did not and why */
};

struct ev_replicate_accept {
	/* inputs */
	const char *policy_path;
	const struct ev_trust *trust; /* the reviewer's: the keys a policy may be signed by */
	const char *dir;              /* the evidence */
	const char *seal;             /* NULL: the one seal beneath dir */
	time_t now;                   /* what "expired" is judged against */
	/* outputs */
	struct ev_acceptance policy;
	char seal_sha256[EV_SHA256_HEX_LEN + 1];
	char seal_path[PATH_MAX];
	char seal_root[256];          /* the seal's root: the campaign's name */
	char summary_sha256[EV_SHA256_HEX_LEN + 1]; /* the agreeing audits' summary.json ("" none) */
	struct ev_accept_condition conditions[EV_ACCEPT_CONDITIONS];
	int first_unmet;              /* a condition id, or -1: accepted */
	json_t *relied_on;            /* [{path, sha256, kind, host, signed_by}]: each document a held condition read */
	json_t *audits;               /* the agreeing audit receipts, whole */
};

/* Judge the evidence. @return EV_OK (accepted) or EV_MISMATCH (not:
 * first_unmet names the condition), with every condition filled;
 * EV_USAGE (no seal, or several, beneath dir), EV_REFUSED (a policy that
 * cannot be read as one) or EV_ERROR, err naming the file. */
ev_status ev_replicate_accept_judge(struct ev_replicate_accept *a, struct ev_error *err);

/* The verdict as evidence-acceptance-verdict/1 (a new reference). */
json_t *ev_replicate_accept_verdict_json(const struct ev_replicate_accept *a);

void ev_replicate_accept_free(struct ev_replicate_accept *a);

#endif
