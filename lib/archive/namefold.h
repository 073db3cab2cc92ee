/* SPDX-License-Identifier: Apache-2.0 */
/* namefold: member names that one file system would store as one file.
 *
 * Two member paths collide when their bytes differ but their canonical
 * caseless forms are equal (Unicode D145: NFD, full case folding, NFD
 * again, computed by libunistring). The default file systems of macOS
 * (APFS, HFS+) and Windows (NTFS) ignore case, and macOS ignores
 * normalization, so a tree holding "journal" and "Journal", or "café" in
 * NFC and in NFD, loses a member when it is copied there. Replicas must be
 * exact wherever they land, so the tools refuse such pairs.
 *
 * Collect names, then ask for the collisions. The set copies every name
 * it is given. One set per thread; no global state.
 */
#ifndef EV_NAMEFOLD_H
#define EV_NAMEFOLD_H

#include <stddef.h>

#include "lib/core/finding.h"
#include "lib/core/status.h"

struct ev_namefold;

/* @return a new empty set, or NULL when out of memory. */
struct ev_namefold *ev_namefold_new(void);

/* Free the set; NULL accepted. */
void ev_namefold_free(struct ev_namefold *set);

/* Add one valid member path (path.h). Adding the same bytes twice is not a
 * collision (duplicates are another check's business).
 * @return EV_OK, or EV_ERROR when out of memory. */
ev_status ev_namefold_add(struct ev_namefold *set, const char *path, struct ev_error *err);

/* Report every colliding pair once, as a finding with check "collision",
 * subject the later name in byte order, and found both names with every
 * byte outside printable ASCII shown as \xHH.
 * @return the number of collisions reported. */
unsigned ev_namefold_report(struct ev_namefold *set, ev_finding_fn on_finding, void *ctx);

#endif
