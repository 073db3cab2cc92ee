/* SPDX-License-Identifier: Apache-2.0 */
/* continuation_run: a failed receipt continued without rewriting it. What
 * every tool's `continue` does (lib/cli/continue_cli is its face).
 *
 * The original is read (never written; its bytes proved first when a pin
 * is given) and its differences found (lib/receipt/continuation); the
 * accept rules must each name a check the original failed and accept at
 * least one of its findings. Then the original's command line (its
 * receipt's "invocation") runs again with this same executable, in the
 * original's directory, its receipt sent to a private temporary file, and
 * must read inputs with the original's SHA-256s and write a receipt of
 * the same kind. The continuation receipt holds the original's SHA-256,
 * the rules, what they accepted, what remains and the fresh receipt whole;
 * it is signed with sign_key and written at receipt_path (or beside the
 * original, named for it). Nothing is printed. One struct per
 * continuation, owned by the caller: fill the inputs, call
 * ev_continuation_run, read the outputs, call ev_continuation_free (also
 * after a failure: the temporary directory goes with it).
 */
#ifndef EV_CONTINUATION_RUN_H
#define EV_CONTINUATION_RUN_H

#include <limits.h>
#include <signal.h>
#include <stddef.h>

#include <jansson.h>

#include "lib/core/sha256.h"
#include "lib/core/scratch.h"
#include "lib/core/status.h"
#include "lib/receipt/continuation.h"
#include "lib/receipt/receipt.h"
#include "lib/receipt/signature.h"

#define EV_CONTINUE_MAX_ACCEPTS 64

/* A subcommand whose failed receipts can be continued. */
struct ev_continuable {
	const char *subcommand;            /* "journal" */
	const char *receipt_option;        /* the option its receipt file goes to: "--receipt" */
	const char *const *drop;           /* more options (with a value) to leave out, NULL-ended */
	const char *const *append;         /* arguments added to the rerun, NULL-ended; the last
					      option given wins, so these override the original's */
};

struct ev_continuation {
	/* inputs */
	const char *tool;                  /* the tool's name: the original must be its receipt */
	const char *original, *original_sha; /* the failed receipt, and its pin (may be NULL) */
	const char *receipt_path;          /* NULL: beside the original, named for it */
	struct ev_accept accepts[EV_CONTINUE_MAX_ACCEPTS];
	size_t naccepts;
	struct ev_signing_key *sign_key;   /* NULL: unsigned */
	const struct ev_invocation *invocation; /* how the continuation was run, for its receipt */
	volatile sig_atomic_t *interrupted; /* required: the rerun is stopped and nothing written */

	/* outputs */
	const struct ev_continuable *sub;  /* the subcommand rerun */
	json_t *orig, *fresh, *out;        /* the original, the rerun's receipt, the continuation's */
	char orig_hex[EV_SHA256_HEX_LEN + 1];
	struct ev_difference *orig_diffs, *fresh_diffs;
	size_t norig, nfresh;
	size_t accepted, remaining;        /* of the rerun's differences */
	char path[PATH_MAX];               /* where the continuation receipt was written */

	/* its own */
	struct ev_scratch tmp;             /* the rerun's receipt and log */
};

/* @return EV_OK when the rerun holds with the accepted differences;
 * EV_MISMATCH when a difference remains (the receipt is written and says
 * which); EV_USAGE or EV_REFUSED (a rule that accepts nothing, a rerun on
 * other inputs, a receipt of another kind or tool), EV_INTERRUPTED or
 * EV_ERROR: then nothing is written. */
ev_status ev_continuation_run(struct ev_continuation *c, const struct ev_continuable *subs, size_t nsubs,
			      struct ev_error *err);

void ev_continuation_free(struct ev_continuation *c);

#endif
