/* SPDX-License-Identifier: Apache-2.0 */
/* tree: a safe, complete walk of a directory tree on disk.
 *
 * The walk never follows a symbolic link, never leaves the root, and records
 * every entry as it is (its type, full mode bits, size, identity, times), so
 * that the caller decides: seal create refuses what it cannot represent,
 * seal verify reports what differs. Entries come back sorted by the byte
 * order of their member path, the order of a seal.
 *
 * Names are kept as raw bytes; name_problem says whether each is a valid
 * member path (path.h). A directory that cannot be read is reported to the
 * callback and the walk goes on.
 *
 * The tree owns all entries; ev_tree_free releases them. No global state.
 */
#ifndef EV_TREE_H
#define EV_TREE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "lib/core/finding.h"
#include "lib/archive/seal.h"
#include "lib/core/status.h"

#define EV_TREE_MAX_DEPTH 256

struct ev_tree_entry {
	struct ev_member m;      /* path, type, mode (all 07777 bits), size */
	const char *name_problem; /* NULL when m.path is a valid member path */
	dev_t dev;
	ino_t ino;
	struct timespec mtime, ctime;
};

struct ev_tree {
	int rootfd;              /* open directory, O_NOFOLLOW */
	dev_t root_dev;
	ino_t root_ino;
	struct ev_tree_entry *entries; /* sorted by path bytes */
	size_t count;
	uint64_t file_bytes;     /* sum of regular file sizes */
};

/* Walk root. Problems that do not stop the walk (an unreadable directory,
 * a tree nested too deep) go to on_finding with check "unreadable" or
 * "too-deep". @return EV_OK (even with findings) or EV_ERROR / EV_USAGE when
 * root itself cannot be used. */
ev_status ev_tree_scan(const char *root, struct ev_tree *tree, ev_finding_fn on_finding,
		       void *ctx, struct ev_error *err);

/* Release a tree filled by ev_tree_scan (whatever it returned), or one
 * initialized as {.rootfd = -1}. */
void ev_tree_free(struct ev_tree *tree);

/* Open a member for reading without following any symbolic link on the
 * way (each component is opened with O_NOFOLLOW relative to the root).
 * @return an fd, or -1 with errno set. */
int ev_tree_open_member(const struct ev_tree *tree, const char *path);

/* Open the directory that holds a member, the same way; *base points at
 * the member's last component inside path. @return an fd the caller
 * closes, or -1 with errno set. */
int ev_tree_open_parent(const struct ev_tree *tree, const char *path, const char **base);

#endif
