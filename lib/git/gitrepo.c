/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/git/gitrepo.h"

#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ev_git {
	git_repository *repo;
	git_commit *commit;
	git_tree *tree;
	git_blob *blob;
	char commit_id[EV_GIT_ID_HEX + 1], tree_id[EV_GIT_ID_HEX + 1];
};

static ev_status git_fail(struct ev_error *err, ev_status st, const char *what, const char *name)
{
	const git_error *e = git_error_last();
	return ev_error_set(err, st, "%s: %s (%s)", name, what, e && e->message ? e->message : "no reason given");
}

static enum ev_git_kind kind_of(git_filemode_t mode)
{
	switch (mode) {
	case GIT_FILEMODE_BLOB_EXECUTABLE: return EV_GIT_EXEC;
	case GIT_FILEMODE_TREE: return EV_GIT_DIR;
	case GIT_FILEMODE_LINK: return EV_GIT_LINK;
	case GIT_FILEMODE_COMMIT: return EV_GIT_SUBMODULE;
	default: return EV_GIT_FILE;
	}
}

ev_status ev_git_open(struct ev_git **out, const char *path, const char *rev, struct ev_error *err)
{
	*out = NULL;
	git_libgit2_init();
	/* libgit2 caches no tree over 4 KiB: a directory of a thousand runs
	 * would be inflated again for every path looked up in it. */
	git_libgit2_opts(GIT_OPT_SET_CACHE_OBJECT_LIMIT, GIT_OBJECT_TREE, (size_t)16 << 20);
	/* Every object read is hashed again and compared with its id (libgit2's
	 * default, stated): a blob's bytes are the ones its id names. */
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 1);
	struct ev_git *g = calloc(1, sizeof *g);
	if (!g)
		return ev_error_set(err, EV_ERROR, "out of memory");
	git_object *obj = NULL;
	ev_status st = EV_OK;
	if (git_repository_open_ext(&g->repo, path, 0, NULL) != 0)
		st = git_fail(err, EV_USAGE, "not a git repository", path);
	else if (git_revparse_single(&obj, g->repo, rev ? rev : "HEAD") != 0)
		st = git_fail(err, EV_USAGE, "no such commit in the repository", rev ? rev : "HEAD");
	else if (git_object_peel((git_object **)&g->commit, obj, GIT_OBJECT_COMMIT) != 0)
		st = git_fail(err, EV_USAGE, "does not name a commit", rev ? rev : "HEAD");
	else if (git_commit_tree(&g->tree, g->commit) != 0)
		st = git_fail(err, EV_ERROR, "cannot read the commit's tree", rev ? rev : "HEAD");
	git_object_free(obj);
	if (st != EV_OK) {
		ev_git_free(g);
		return st;
	}
	git_oid_tostr(g->commit_id, sizeof g->commit_id, git_commit_id(g->commit));
	git_oid_tostr(g->tree_id, sizeof g->tree_id, git_tree_id(g->tree));
	*out = g;
	return EV_OK;
}

void ev_git_free(struct ev_git *g)
{
	if (!g)
		return;
	git_blob_free(g->blob);
	git_tree_free(g->tree);
	git_commit_free(g->commit);
	git_repository_free(g->repo);
	free(g);
	git_libgit2_shutdown();
}

const char *ev_git_commit_id(const struct ev_git *g)
{
	return g->commit_id;
}

const char *ev_git_tree_id(const struct ev_git *g)
{
	return g->tree_id;
}

const char *ev_git_workdir(const struct ev_git *g)
{
	return git_repository_workdir(g->repo);
}

struct walk {
	ev_git_entry_fn fn;
	void *ctx;
	struct ev_error *err;
	ev_status st;
};

static int walk_one(const char *root, const git_tree_entry *te, void *payload)
{
	struct walk *w = payload;
	char path[4096];
	if (snprintf(path, sizeof path, "%s%s", root, git_tree_entry_name(te)) >= (int)sizeof path) {
		w->st = ev_error_set(w->err, EV_REFUSED, "%s%s: path too long", root, git_tree_entry_name(te));
		return -1;
	}
	struct ev_git_entry e = {.path = path, .kind = kind_of(git_tree_entry_filemode(te)),
				 .mode = (unsigned)git_tree_entry_filemode(te)};
	git_oid_tostr(e.id, sizeof e.id, git_tree_entry_id(te));
	if ((w->st = w->fn(w->ctx, &e, w->err)) != EV_OK)
		return -1;
	return 0;
}

ev_status ev_git_walk(struct ev_git *g, ev_git_entry_fn fn, void *ctx, struct ev_error *err)
{
	struct walk w = {fn, ctx, err, EV_OK};
	if (git_tree_walk(g->tree, GIT_TREEWALK_PRE, walk_one, &w) != 0 && w.st == EV_OK)
		return git_fail(err, EV_ERROR, "cannot walk the tree", g->tree_id);
	return w.st;
}

ev_status ev_git_blob(struct ev_git *g, const char *id, const void **data, size_t *len,
		      struct ev_error *err)
{
	git_oid oid;
	git_blob_free(g->blob);
	g->blob = NULL;
	if (git_oid_fromstr(&oid, id) != 0 || git_blob_lookup(&g->blob, g->repo, &oid) != 0)
		return git_fail(err, EV_ERROR, "cannot read the blob", id);
	*data = git_blob_rawcontent(g->blob);
	*len = (size_t)git_blob_rawsize(g->blob);
	return EV_OK;
}

ev_status ev_git_blob_size(struct ev_git *g, const char *id, uint64_t *size, struct ev_error *err)
{
	git_oid oid;
	git_odb *odb = NULL;
	size_t len = 0;
	git_object_t type;
	int rc = git_oid_fromstr(&oid, id);
	if (rc == 0)
		rc = git_repository_odb(&odb, g->repo);
	if (rc == 0)
		rc = git_odb_read_header(&len, &type, odb, &oid);
	git_odb_free(odb);
	if (rc != 0)
		return git_fail(err, EV_ERROR, "cannot read the blob's size", id);
	*size = len;
	return EV_OK;
}

ev_status ev_git_lookup(struct ev_git *g, const char *path, struct ev_git_entry *out,
			struct ev_error *err)
{
	git_tree_entry *te = NULL;
	int rc = git_tree_entry_bypath(&te, g->tree, path);
	if (rc == GIT_ENOTFOUND)
		return EV_MISMATCH;
	if (rc != 0)
		return git_fail(err, EV_ERROR, "cannot look the path up", path);
	out->path = path;
	out->kind = kind_of(git_tree_entry_filemode(te));
	out->mode = (unsigned)git_tree_entry_filemode(te);
	git_oid_tostr(out->id, sizeof out->id, git_tree_entry_id(te));
	git_tree_entry_free(te);
	return EV_OK;
}

ev_status ev_git_index_lookup(struct ev_git *g, const char *path, struct ev_git_entry *out,
			      struct ev_error *err)
{
	git_index *idx = NULL;
	if (git_repository_index(&idx, g->repo) != 0)
		return git_fail(err, EV_ERROR, "cannot read the index", "repository");
	const git_index_entry *ie = git_index_get_bypath(idx, path, 0);
	ev_status st = EV_MISMATCH;
	if (ie) {
		out->path = path;
		out->mode = ie->mode;
		out->kind = kind_of((git_filemode_t)ie->mode);
		git_oid_tostr(out->id, sizeof out->id, &ie->id);
		st = EV_OK;
	}
	git_index_free(idx);
	return st;
}

ev_status ev_git_blob_id(const void *data, size_t len, char id[EV_GIT_ID_HEX + 1], struct ev_error *err)
{
	git_oid oid;
	git_libgit2_init();
	int rc = git_odb_hash(&oid, data, len, GIT_OBJECT_BLOB);
	git_libgit2_shutdown();
	if (rc != 0)
		return git_fail(err, EV_ERROR, "cannot hash as a blob", "content");
	git_oid_tostr(id, EV_GIT_ID_HEX + 1, &oid);
	return EV_OK;
}

ev_status ev_git_clean(struct ev_git *g, int *clean, size_t *changes, char *first, size_t cap,
		       struct ev_error *err)
{
	git_status_options opts;
	git_status_options_init(&opts, GIT_STATUS_OPTIONS_VERSION);
	opts.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
	opts.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS |
		     GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
	git_status_list *list = NULL;
	if (git_status_list_new(&list, g->repo, &opts) != 0)
		return git_fail(err, EV_ERROR, "cannot read the working tree's status", "repository");
	*changes = git_status_list_entrycount(list);
	*clean = *changes == 0;
	if (first && cap) {
		first[0] = '\0';
		const git_status_entry *e = *changes ? git_status_byindex(list, 0) : NULL;
		const git_diff_delta *d = e ? (e->index_to_workdir ? e->index_to_workdir : e->head_to_index) : NULL;
		if (d)
			snprintf(first, cap, "%s%s", d->new_file.path ? d->new_file.path : d->old_file.path,
				 e->status & GIT_STATUS_WT_NEW ? " (untracked)" : "");
	}
	git_status_list_free(list);
	return EV_OK;
}
