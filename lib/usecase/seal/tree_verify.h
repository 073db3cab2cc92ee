/* SPDX-License-Identifier: Apache-2.0 */
/* tree_verify: a directory held against its seal, or against a selection
 * made from it. What `seal verify DIR` does, and what `replicate prune DIR`
 * checks before it removes anything, so that both mean the same by "the
 * tree is the sealed one".
 *
 * Two steps, because prune looks at other evidence between them:
 * ev_tree_verify_expect reads what the tree must hold (SEAL.json, its
 * bytes proved first when pinned; the selection, which must have been made
 * from that seal and whose every member must be the seal's member) and
 * records it in the receipt: the inputs SEAL.json, then the directory
 * under dir_input, then "selection", and the check "selection-from-seal"
 * when both are given. ev_tree_verify_check then walks the tree and hashes
 * every member against it (lib/archive/tree_check). The caller adds its
 * own check of the tree's result (its name and wording are the command's),
 * finishes and writes the receipt.
 *
 * Findings go to on_finding as they are made, all of them; nothing is
 * printed. One struct per verification, owned by the caller: fill the
 * inputs, call the two steps, read the outputs, call ev_tree_verify_free
 * (also after a failure). No global state.
 */
#ifndef EV_TREE_VERIFY_H
#define EV_TREE_VERIFY_H

#include <signal.h>
#include <stdint.h>

#include <jansson.h>

#include "lib/archive/seal.h"
#include "lib/archive/selection.h"
#include "lib/core/finding.h"
#include "lib/core/meter.h"
#include "lib/core/sha256.h"
#include "lib/core/status.h"

struct ev_tree_verify {
	/* inputs */
	const char *dir;
	const char *dir_input, *dir_recorded; /* the directory's input name and path in the receipt */
	const char *seal, *seal_sha256;       /* seal may be NULL when a selection is given */
	const char *selection;                /* NULL: every member of the seal, and nothing else */
	/* a SEAL.json that is not the pinned one: 1, a failed check
	 * "seal-sha256" and its finding, EV_MISMATCH (the receipt says so);
	 * 0, EV_REFUSED at once (a command that relies on the seal) */
	int pin_is_a_check;
	ev_finding_fn on_finding;             /* required */
	void *ctx;
	const struct ev_meter *meter;         /* may be NULL; advanced by the check */
	volatile sig_atomic_t *interrupted;   /* may be NULL */

	/* outputs */
	struct ev_seal seal_doc;
	struct ev_selection sel;
	char seal_hex[EV_SHA256_HEX_LEN + 1]; /* "" until SEAL.json was read */
	const struct ev_seal *expected;       /* what the tree must hold: the seal's or the selection's members */
	uint64_t findings;                    /* every finding passed to on_finding */
};

/* What the tree must hold, into v->expected and receipt.
 * @return EV_OK; EV_MISMATCH when SEAL.json is not its pin and
 * pin_is_a_check (nothing else was read: the receipt is complete);
 * EV_REFUSED when it is not its pin otherwise; EV_ERROR, EV_USAGE when a
 * file cannot be read or is malformed. A selection that disagrees with
 * the seal is findings, not a failure: the check still runs. */
ev_status ev_tree_verify_expect(struct ev_tree_verify *v, json_t *receipt, struct ev_error *err);

/* Every member of v->dir against v->expected (after ev_tree_verify_expect
 * returned EV_OK). @return EV_OK once every member was compared, findings
 * or not (v->findings counts them); EV_INTERRUPTED; EV_ERROR or EV_USAGE
 * when the tree cannot be walked or a file fails while it is read. */
ev_status ev_tree_verify_check(struct ev_tree_verify *v, struct ev_error *err);

void ev_tree_verify_free(struct ev_tree_verify *v);

#endif
