/* selection: the selection manifest ("evidence-selection/1") written by
 * seal select and checked by seal verify --selection.
 *
 * It names an exact subset of a seal's members (with their types, modes,
 * sizes and digests, as in the seal), the SHA-256 of the seal it came from,
 * the root name and the include patterns that chose them.
 */
#ifndef SEAL_SELECTION_H
#define SEAL_SELECTION_H

#include "lib/seal.h"
#include "lib/status.h"

#define SELECTION_FORMAT "evidence-selection/1"

struct selection {
	struct ev_seal members;       /* root + the chosen members */
	char seal_sha256[EV_SHA256_HEX_LEN + 1];
};

/* Read and check a selection manifest (canonical bytes required). */
ev_status selection_load(const char *path, struct selection *sel, struct ev_error *err);
void selection_free(struct selection *sel);

#endif
