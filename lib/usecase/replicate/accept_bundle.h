/* SPDX-License-Identifier: Apache-2.0 */
/* accept_bundle: replicate accept's verdict and the evidence it read, as
 * one in-toto bundle (CAMPAIGN.intoto.jsonl: JSON Lines, one DSSE
 * envelope of an in-toto Statement v1 per line, doc/formats.md "The
 * acceptance bundle") that a reviewer takes away and checks with tools
 * that are not ours, and that `replicate accept` judges again as it
 * judges a directory.
 *
 * Lines, each signed with the keys given:
 *   https://slsa.dev/verification_summary/v1   the verdict (a VSA): the
 *       seal as subject and resource, the policy by digest, every
 *       document the verdict read by digest, PASSED or FAILED;
 *   https://in-toto.io/attestation/test-result/v0.1   each audit relied
 *       on: its checks passed and failed, its plan and rules as
 *       configuration;
 *   urn:evidence:receipt:v1   each receipt relied on, whole, its own
 *       signature inside (lib/receipt/attestation);
 *   urn:evidence:seal:v1, urn:evidence:rfc3161-timestamp:v1,
 *   urn:evidence:receipt-log:v1, urn:evidence:cosigned-checkpoint:v1
 *       the seal, its RFC 3161 request and reply, the log's origin and
 *       entries, each cosigned checkpoint: carried whole, so that the
 *       bundle alone can be judged again. Each carries its own proof (the
 *       seal's digest, the TSA's signature, the log's and witnesses'
 *       signed notes); the envelope only packs it.
 * No global state.
 */
#ifndef EV_ACCEPT_BUNDLE_H
#define EV_ACCEPT_BUNDLE_H
#include <stddef.h>
#include "lib/core/status.h"
#include "lib/receipt/signature.h"
#include "lib/usecase/replicate/accept_bundle_read.h"
#include "lib/usecase/replicate/replicate_accept.h"

#define EV_VSA_PREDICATE_TYPE "https://slsa.dev/verification_summary/v1"
#define EV_TEST_RESULT_PREDICATE_TYPE "https://in-toto.io/attestation/test-result/v0.1"
#define EV_VERIFIER_ID "https://evidence.invalid/replicate-accept"

/* Write a's verdict and what it read to path (a new file, never
 * replaced), each line signed by each of keys. @return EV_OK; EV_REFUSED
 * (path exists); EV_ERROR naming the file that could not be read. */
ev_status ev_accept_bundle_write(const struct ev_replicate_accept *a, const struct ev_signing_key *const *keys,
				 size_t nkeys, const char *path, struct ev_error *err);

#endif
