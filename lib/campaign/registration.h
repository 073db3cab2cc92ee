/* SPDX-License-Identifier: Apache-2.0 */
/* registration: what a campaign claims before its first run
 * (evidence-registration/1, doc/formats.md "Registration"): the pinned
 * plan by its SHA-256 (and so its set-up and grading rules), the grade it
 * requires, the statistics it will publish, each comparison it will make
 * (two arms, two cells, a reproduction against a reference file, a
 * history gate), how many sessions it plans, and a hypothesis in words.
 * Written once, before any run, it is what lets a reviewer tell a choice
 * made in advance from one made after seeing the results; the receipt log
 * and an RFC 3161 token beside it (capture register) say when.
 *
 * The one code that builds and reads the format. A registration is
 * canonical JSON with no key it does not name; reading one refuses any
 * other. No global state. */
#ifndef EV_REGISTRATION_H
#define EV_REGISTRATION_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "lib/campaign/plan_check.h"
#include "lib/core/sha256.h"
#include "lib/core/status.h"

#define EV_REGISTRATION_FORMAT "evidence-registration/1"

/* The statistics a campaign may register, as audit's summaries name them. */
#define EV_REGISTRATION_STATISTICS "p50 p95 p99 p99.9 mean max"

#define EV_REGISTRATION_MAX_CLAIMS 32
#define EV_REGISTRATION_HYPOTHESIS_MAX 4096

/* What is claimed, beside the plan. */
struct ev_registration_claims {
	const char *statistics[EV_REGISTRATION_MAX_CLAIMS]; /* each one of EV_REGISTRATION_STATISTICS, once */
	size_t nstatistics;                                 /* at least one */
	const char *arms[EV_REGISTRATION_MAX_CLAIMS][2];    /* audit compare --arm A --arm B: arms of the plan */
	size_t narms;
	const char *cells[EV_REGISTRATION_MAX_CLAIMS][2];   /* audit compare --cell X --cell Y: cells of the plan */
	size_t ncells;
	const char *references[EV_REGISTRATION_MAX_CLAIMS]; /* audit compare --reference FILE: its SHA-256 fixed */
	size_t nreferences;
	const char *gate;                                   /* audit history --gate RATIO ("1.1"), or NULL */
	uint64_t sessions;                                  /* planned; at least 1 */
	const char *require;                                /* "quiet", or NULL: as the plan's rules say */
	const char *hypothesis;                             /* in words (UTF-8), or NULL */
};

/* The registration of plan (loaded and checked by ev_campaign_plan_load)
 * claiming c, made on host now: *doc a new reference. @return EV_OK;
 * EV_REFUSED (err names the claim and what was expected: a plan that pins
 * nothing, a statistic twice or unknown, an arm or cell the plan does not
 * have, a reference that cannot be read, a gate that is not a ratio above
 * 1) or EV_ERROR. */
ev_status ev_registration_build(const struct ev_campaign_plan *plan, const struct ev_registration_claims *c,
				json_t **doc, struct ev_error *err);

/* Read path as a registration, held to every rule ev_registration_build
 * keeps; sha256 (may be NULL) gets the digest of its bytes. @return EV_OK
 * (*doc a new reference); EV_REFUSED naming the key; EV_ERROR. */
ev_status ev_registration_load(const char *path, json_t **doc, uint8_t sha256[EV_SHA256_LEN], struct ev_error *err);

/* What a registration read by ev_registration_load says; never NULL. */
const char *ev_registration_plan_sha256(const json_t *doc);
const char *ev_registration_require(const json_t *doc); /* "quiet" or "any" */

#endif
