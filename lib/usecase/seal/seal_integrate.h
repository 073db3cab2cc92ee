/* SPDX-License-Identifier: Apache-2.0 */
/* seal_integrate: the selected part of the evidence, committed to a git
 * repository, checked against its sealed originals under one explicit
 * representation rule for modes, into a receipt. What `seal integrate`
 * does.
 *
 * Each member of the selection (lib/archive/selection) is looked up under
 * prefix in the commit's tree, or with worktree in the working tree and
 * the index (lib/git/gitrepo), and held to the seal: content (SHA-256),
 * size, and the executable bit, the one bit of a mode git keeps (no
 * executable bit -> 100644, any -> 100755: a sealed 0640 stored as 100644
 * is accepted, and said so). The receipt is the caller's (ev_receipt_new,
 * still empty): the integration fills it, signs it with sign_key and
 * writes it at receipt (or a fresh name in the current directory); a
 * signal before it is written leaves nothing.
 *
 * Each finding goes to on_finding as it is made; nothing is printed. One
 * struct per integration, owned by the caller: fill the inputs, call
 * ev_seal_integrate, read the outputs, call ev_seal_integrate_free (also
 * after a failure). No global state.
 */
#ifndef EV_SEAL_INTEGRATE_H
#define EV_SEAL_INTEGRATE_H

#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "lib/core/finding.h"
#include "lib/core/status.h"
#include "lib/receipt/signature.h"

struct ev_git;

struct ev_seal_integrate {
	/* inputs */
	const char *selection, *repo;        /* required */
	const char *rev;                     /* NULL: HEAD (not with worktree) */
	const char *prefix;                  /* the directory the selection was committed under; NULL: the top */
	int worktree;                        /* the working tree and the index, not a commit */
	const char *receipt;                 /* NULL: a fresh name in the current directory */
	struct ev_signing_key *sign_key;     /* NULL: unsigned */
	ev_finding_fn on_finding;            /* required */
	void *ctx;
	volatile sig_atomic_t *interrupted;  /* required */

	/* outputs */
	size_t members;                      /* selected members */
	uint64_t findings;
	unsigned accepted;                   /* modes represented by the rule */
	char commit[64];                     /* the commit checked (with worktree: HEAD's) */
	char receipt_path[PATH_MAX];
};

/* @return EV_OK when every selected member holds; EV_MISMATCH when one
 * does not (the receipt is written and says which); EV_USAGE (a bare
 * repository with worktree, a path too long), EV_INTERRUPTED or EV_ERROR:
 * then nothing is written. */
ev_status ev_seal_integrate(struct ev_seal_integrate *in, json_t *receipt, struct ev_error *err);

#endif
