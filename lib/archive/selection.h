/* SPDX-License-Identifier: Apache-2.0 */
/* selection: the selection manifest ("evidence-selection/1") written by
 * seal select, checked by seal verify --selection and replicate prune
 * --selection.
 *
 * It names an exact subset of a seal's members (with their types, modes,
 * sizes and digests, as in the seal), the SHA-256 of the seal it came from,
 * the root name and the include patterns that chose them.
 * The selection owns its members; ev_selection_free releases them.
 */
#ifndef EV_SELECTION_H
#define EV_SELECTION_H

#include "lib/archive/seal.h"
#include "lib/core/status.h"

#define EV_SELECTION_FORMAT "evidence-selection/1"

struct ev_selection {
	struct ev_seal members;       /* root + the chosen members */
	char seal_sha256[EV_SHA256_HEX_LEN + 1];
};

/* Read and check a selection manifest (canonical bytes required).
 * On failure sel is left empty (safe to free). */
ev_status ev_selection_load(const char *path, struct ev_selection *sel, struct ev_error *err);

/* Write a selection at path (canonical, never replacing a file,
 * lib/core/publish): subset's root and members (ev_seal_finish'ed), the
 * seal it came from (seal_sha256, 64 hex digits) and the include
 * patterns that chose them, in the order given. */
ev_status ev_selection_publish(const char *path, const struct ev_seal *subset, const char *seal_sha256,
			       const char *const *includes, size_t nincludes, struct ev_error *err);

/* Release what ev_selection_load filled; a zeroed sel is accepted. */
void ev_selection_free(struct ev_selection *sel);

#endif
