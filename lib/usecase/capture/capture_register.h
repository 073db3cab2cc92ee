/* SPDX-License-Identifier: Apache-2.0 */
/* capture_register: a campaign's claims fixed before its first run. What
 * `capture register` does.
 *
 * The plan is read and held to every rule capture run holds it to
 * (lib/campaign/plan_check); the registration (lib/campaign/registration)
 * is built from it and the claims and published at out, never replacing a
 * file; then, when asked, it is given a trusted time beside it (out.tsq,
 * out.tsr: lib/usecase/seal/timestamp_file, as seal timestamp does) and
 * appended to the host's receipt log (lib/usecase/replicate/receipt_log,
 * as replicate log append does). Each step is whole or not made: a
 * registration published and then not timestamped or logged stays, and
 * seal timestamp or replicate log append can finish it. Nothing is
 * printed. No global state.
 */
#ifndef EV_CAPTURE_REGISTER_H
#define EV_CAPTURE_REGISTER_H

#include <limits.h>
#include <signal.h>
#include <stddef.h>

#include "lib/campaign/registration.h"
#include "lib/core/sha256.h"
#include "lib/core/status.h"
#include "lib/receipt/signature.h"
#include "lib/receipt/timestamp.h"

struct ev_capture_register {
	/* inputs */
	const char *plan_path;
	const char *out;                     /* the registration (a new file) */
	struct ev_registration_claims claims;
	const char *tsa_url, *tsa_ca;        /* both, or neither: no trusted time */
	long timeout_seconds;                /* the TSA's; 0: 30 */
	const char *log_dir;                 /* the host's receipt log, or NULL */
	const struct ev_signing_key *log_key; /* signs the log's new tree head and its checkpoint; NULL: unsigned */
	volatile sig_atomic_t *interrupted;  /* set: no further step is begun */

	/* outputs */
	char sha256[EV_SHA256_HEX_LEN + 1];  /* the registration's bytes */
	char plan_name[256];
	struct ev_timestamp_verdict stamp;   /* with a TSA: the token's genTime, TSA, serial */
	char tsr[PATH_MAX + 8];
	size_t log_index;                    /* with a log: the registration's entry (0-based) */
	char log_head[PATH_MAX];
};

/* @return EV_OK; EV_REFUSED (a plan, a claim, an out that exists, a log
 * that no longer matches its head), EV_MISMATCH (the TSA's reply did not
 * verify: why in err), EV_INTERRUPTED, EV_USAGE or EV_ERROR; err says
 * which step and what was made before it. */
ev_status ev_capture_register(struct ev_capture_register *o, struct ev_error *err);

#endif
