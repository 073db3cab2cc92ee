/* SPDX-License-Identifier: Apache-2.0 */
/* gitrepo: a git repository read through libgit2, as evidence needs it: a
 * commit's tree walked entry by entry, a blob's bytes, a path looked up in
 * the commit, the index or the working tree, and whether the working tree
 * is clean. Never the working tree unless asked by name.
 *
 * Used by seal capsule, seal integrate and capture's source pins. One
 * struct ev_git per thread. free accepts NULL. libgit2 is initialised on
 * the first open (process-wide, its own reference count).
 */
#ifndef EV_GITREPO_H
#define EV_GITREPO_H

#include <stddef.h>
#include <stdint.h>

#include "lib/core/status.h"

#define EV_GIT_ID_HEX 40

enum ev_git_kind { EV_GIT_FILE, EV_GIT_EXEC, EV_GIT_DIR, EV_GIT_LINK, EV_GIT_SUBMODULE };

struct ev_git_entry {
	const char *path;            /* relative to the tree's top, '/'-separated */
	enum ev_git_kind kind;
	char id[EV_GIT_ID_HEX + 1];  /* blob, tree or (submodule) commit id */
	unsigned mode;               /* git's file mode: 0100644, 0100755, 0120000, 0160000, 040000 */
};

struct ev_git;

/* Open the repository at (or above) path and resolve rev (a commit, a
 * branch, a tag; NULL: HEAD) to a commit and its tree. @return EV_OK;
 * EV_USAGE naming path or rev when there is no such repository or commit. */
ev_status ev_git_open(struct ev_git **out, const char *path, const char *rev, struct ev_error *err);
void ev_git_free(struct ev_git *g);

const char *ev_git_commit_id(const struct ev_git *g);
const char *ev_git_tree_id(const struct ev_git *g);
/* The working tree's top, with a trailing '/'; NULL for a bare repository. */
const char *ev_git_workdir(const struct ev_git *g);

/* Every entry of the commit's tree, parents before children (a
 * submodule's own tree is not entered). fn may stop the walk by returning
 * an error status, which ev_git_walk returns. */
typedef ev_status (*ev_git_entry_fn)(void *ctx, const struct ev_git_entry *e, struct ev_error *err);
ev_status ev_git_walk(struct ev_git *g, ev_git_entry_fn fn, void *ctx, struct ev_error *err);

/* A blob's bytes, valid until the next ev_git_blob or ev_git_free. */
ev_status ev_git_blob(struct ev_git *g, const char *id, const void **data, size_t *len,
		      struct ev_error *err);

/* A blob's size, without reading its bytes. */
ev_status ev_git_blob_size(struct ev_git *g, const char *id, uint64_t *size, struct ev_error *err);

/* path in the commit's tree. @return EV_OK; EV_MISMATCH when absent. */
ev_status ev_git_lookup(struct ev_git *g, const char *path, struct ev_git_entry *out,
			struct ev_error *err);

/* path in the index (stage 0). @return EV_OK; EV_MISMATCH when absent. */
ev_status ev_git_index_lookup(struct ev_git *g, const char *path, struct ev_git_entry *out,
			      struct ev_error *err);

/* The git blob id of bytes, as git would store them. */
ev_status ev_git_blob_id(const void *data, size_t len, char id[EV_GIT_ID_HEX + 1], struct ev_error *err);

/* Is the working tree clean (no tracked file changed, staged or not, and
 * no untracked file; ignored files do not count)? *changes counts what is
 * not; first (cap bytes, may be NULL) gets the first such path, to name. */
ev_status ev_git_clean(struct ev_git *g, int *clean, size_t *changes, char *first, size_t cap,
		       struct ev_error *err);

#endif
