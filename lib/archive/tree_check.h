/* SPDX-License-Identifier: Apache-2.0 */
/* tree_check: compare a tree on disk with the members a seal (or a
 * selection) expects, hashing every file whose type and size agree, and
 * report every difference.
 *
 * Findings: "missing", "extra", "type", "mode", "size", "sha256",
 * "unreadable", and the walk's own "unreadable"/"too-deep". Nothing on
 * disk is followed through a symbolic link (tree.h). With subset set, the
 * tree is a copy of a selection: the directories that lead to expected
 * members are expected too, even when they were not selected.
 *
 * Used by seal verify and replicate prune. No global state; the caller's
 * interrupt flag is read between members.
 */
#ifndef EV_TREE_CHECK_H
#define EV_TREE_CHECK_H

#include <signal.h>

#include <jansson.h>

#include "lib/core/finding.h"
#include "lib/core/meter.h"
#include "lib/archive/seal.h"
#include "lib/core/status.h"

/* Check dir against expected. progress (may be NULL) is advanced by bytes
 * hashed and members done; interrupted (may be NULL) stops the check with
 * EV_INTERRUPTED when it becomes nonzero.
 * @return EV_OK once every member was compared (findings or not; the
 * callback counts them), EV_ERROR/EV_USAGE when dir cannot be walked or a
 * file fails while it is read, EV_INTERRUPTED. */
ev_status ev_tree_check(const char *dir, const struct ev_seal *expected, int subset,
			ev_finding_fn on_finding, void *ctx, const struct ev_meter *progress,
			volatile sig_atomic_t *interrupted, struct ev_error *err);

/* What a pass of ev_tree_check means, for a receipt's "coverage" fact
 * (as ev_archive_coverage), and in one line into line. subset: only the
 * selection's members were looked for; seal_pinned: --seal-sha256 pinned
 * the seal. @return a new object. */
json_t *ev_tree_coverage(int subset, int seal_pinned, char *line, size_t cap);

#endif
