/* SPDX-License-Identifier: Apache-2.0 */
/* tree_remove: remove a checked tree from below, each entry only when it
 * is provably still what was checked.
 *
 * A tree is scanned (tree.h), then checked against its seal (tree_check.h),
 * then removed. Between the scan and each unlink another process may have
 * written to a file; those bytes must never be lost. So each file is
 * removed only when, at that moment:
 *   - it is the same inode, with the size, modification and change times
 *     the scan saw (any write since the scan moves the change time);
 *   - when its change time falls within EV_TREE_REMOVE_CTIME_SLACK of the
 *     scan (a write in the same clock tick would not move it), its content
 *     is hashed again under the lease and matches the seal;
 *   - no other process has it open: a write lease (fcntl F_SETLEASE) is
 *     granted only then, and while it is held nobody can open it without
 *     the lease showing the attempt.
 * A file that fails any of these is kept and reported; the directories that
 * hold it stay. One race is left that no removal can close: a process that
 * found the name just before it went waits on the lease, then holds the
 * file without a name; it is seen (the lease shows the attempt) and
 * reported with check "open", though the file is gone. Where the file system or the caller's rights refuse a lease,
 * the open-file proof is not made: the file is still removed on the other
 * checks, and the caller learns how many files and why, to name in its
 * receipt.
 *
 * The caller moves the tree aside under a name nobody else uses before it
 * calls this, so no new path reaches it. No global state; the caller's
 * interrupt flag is read between entries.
 */
#ifndef EV_TREE_REMOVE_H
#define EV_TREE_REMOVE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "lib/core/finding.h"
#include "lib/archive/seal.h"
#include "lib/core/status.h"
#include "lib/archive/tree.h"

/* A file whose change time is this close to the scan (or later) is hashed
 * again before removal: file times move in clock ticks, not nanoseconds. */
#define EV_TREE_REMOVE_CTIME_SLACK_SEC 2

struct ev_tree_removal {
	unsigned char *removed;   /* per tree entry: 1 once it is gone (caller's
				     array of tree->count) */
	size_t kept;              /* entries left in place, their directories
				     included */
	size_t rehashed;          /* files hashed again before removal */
	size_t unleased;          /* files removed without the open-file proof */
	char unleased_why[160];   /* the first refusal, e.g. "Permission denied" */
};

/* Remove tree's entries deepest first, each as above; the root itself is
 * left to the caller. scanned_at: when the scan began (CLOCK_REALTIME).
 * expected: the members the tree was checked against (their digests for a
 * rehash). Each entry kept goes to on_kept with check "changed" (expected
 * and found say what moved), "open" (another process holds or is opening
 * it) or "added" (a directory holds entries nobody checked).
 * @return EV_OK when every entry was looked at (kept or not),
 * EV_INTERRUPTED, or EV_ERROR when an unlink or a read fails (err says
 * which; the entries not yet looked at stay). */
ev_status ev_tree_remove_unchanged(const struct ev_tree *tree, const struct ev_seal *expected,
				   const struct timespec *scanned_at, ev_finding_fn on_kept, void *ctx,
				   struct ev_tree_removal *out, volatile sig_atomic_t *interrupted,
				   struct ev_error *err);

#endif
