/* SPDX-License-Identifier: Apache-2.0 */
/* sources: the repository each pinned binary was built from, as the plan's
 * "sources" name them: its HEAD commit, tree id and whether the working
 * tree is clean, read through libgit2 once per session before anything
 * runs. A dirty tree is refused (the binary would not be the commit it
 * claims) unless the user allows it, and then recorded as dirty.
 *
 * Only lib/process and capture's use cases (lib/usecase/capture)
 * include this. */
#ifndef EV_SOURCES_H
#define EV_SOURCES_H

#include <jansson.h>

#include "lib/core/status.h"

/* Read every source of sources (program -> repository; NULL: none).
 * *out gets {program: {repository, commit, tree, clean, changes}}. A dirty
 * tree is EV_REFUSED, naming the repository and its first change, unless
 * allow_dirty. @return EV_OK, EV_REFUSED, EV_USAGE (no such repository). */
ev_status ev_sources_read(const json_t *sources, int allow_dirty, json_t **out, struct ev_error *err);

#endif
