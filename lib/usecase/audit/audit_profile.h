/* SPDX-License-Identifier: Apache-2.0 */
/* audit_profile: what capture's perf recorded of a run, read cold, into a
 * receipt. What `audit profile RUN_DIR` and `audit profile --seal SEAL
 * --run RUN ARCHIVE` do.
 *
 * From a directory, run.json is read (lib/campaign/run) and each profiled
 * side read by profile_side. From an archive, the archive is checked
 * against its seal in one pass and the run's run.json and profile/
 * members copied as they stream by into a private directory
 * (profile_extract), read as a run directory, and removed on every path
 * out. The receipt is made here, signed with sign_key and written at
 * receipt (or a fresh name in the current directory); a signal before it
 * is written leaves nothing.
 *
 * Findings about the run go to on_finding, the archive's own to
 * on_archive_finding; nothing is printed. One struct per audit, owned by
 * the caller: fill the inputs, call ev_audit_profile, read the outputs,
 * call ev_audit_profile_free (also after a failure). No global state.
 */
#ifndef EV_AUDIT_PROFILE_H
#define EV_AUDIT_PROFILE_H

#include <limits.h>
#include <signal.h>
#include <stddef.h>

#include <jansson.h>

#include "lib/core/finding.h"
#include "lib/core/status.h"
#include "lib/receipt/signature.h"

struct ev_audit_profile {
	/* inputs */
	struct ev_signing_key *sign_key;    /* NULL: unsigned */
	const char *run_dir;                /* the run's directory, or with seal the archive */
	const char *seal, *seal_sha256, *run; /* an archive's run: its seal, the seal's pin, RUN from its root */
	const char *perf;                   /* the perf to run (an absolute path; the evidence never names it) */
	const char *receipt;                /* NULL: a fresh name in the current directory */
	ev_finding_fn on_finding;           /* required */
	ev_finding_fn on_archive_finding;   /* required with seal */
	void *ctx;
	volatile sig_atomic_t *interrupted; /* required */
	const struct ev_invocation *invocation; /* how the command was run, for the receipt; may be NULL */

	/* outputs */
	char shown[PATH_MAX * 2];           /* the run as findings name it: RUN_DIR, or ARCHIVE:RUN */
	json_t *receipt_doc;                /* the receipt written (its fact "profile": each side's) */
	char receipt_path[PATH_MAX + 64];
	size_t profiled;                    /* sides profiled */
	unsigned findings;                  /* about the run */
	int archive_failed;                 /* the archive's copy of the run did not match its seal: nothing read */
};

/* @return EV_OK when every check passed; EV_MISMATCH otherwise (the receipt
 * is written and says which; with archive_failed, err says why nothing
 * was read); EV_REFUSED (an existing receipt, no side profiled, a seal
 * that is not its pin), EV_USAGE, EV_INTERRUPTED or EV_ERROR: then no
 * receipt is written. */
ev_status ev_audit_profile(struct ev_audit_profile *a, struct ev_error *err);

void ev_audit_profile_free(struct ev_audit_profile *a);

#endif
