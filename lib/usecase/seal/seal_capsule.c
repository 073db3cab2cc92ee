/* SPDX-License-Identifier: Apache-2.0 */
/* seal_capsule: a git commit sealed, and a capsule checked against a
 * commit (seal_capsule.h). */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/archive/archive_reader.h"
#include "lib/archive/archive_writer.h"
#include "lib/archive/namefold.h"
#include "lib/archive/tree_check.h"
#include "lib/core/grow.h"
#include "lib/core/json.h"
#include "lib/core/path.h"
#include "lib/core/sha256.h"
#include "lib/git/gitrepo.h"
#include "lib/usecase/seal/seal_capsule.h"

/* The commit's tree as a seal: members, sizes, and (with digest) the
 * SHA-256 of every blob. */
struct listing {
	const struct ev_seal_capsule *o;
	struct ev_git *git;
	struct ev_seal *seal;
	size_t cap;
	json_t *links, *submodules;
	unsigned refused;
	int digest;
	struct ev_namefold *fold;
};

static void refuse(struct listing *l, const char *path, const char *why)
{
	ev_finding_emit(l->o->on_refusal, l->o->ctx, path, "refused", why, NULL, NULL);
	l->refused++;
}

static ev_status add_member(struct listing *l, const struct ev_git_entry *e, struct ev_error *err)
{
	if (ev_grow_array(&l->seal->members, &l->cap, l->seal->count + 1, sizeof *l->seal->members) != 0)
		return ev_error_set(err, EV_ERROR, "out of memory");
	struct ev_member *m = &l->seal->members[l->seal->count];
	memset(m, 0, sizeof *m);
	if (!(m->path = strdup(e->path)))
		return ev_error_set(err, EV_ERROR, "out of memory");
	l->seal->count++;
	m->type = e->kind == EV_GIT_DIR ? EV_MEMBER_DIR : EV_MEMBER_FILE;
	m->mode = e->kind == EV_GIT_FILE ? 0644 : 0755;
	if (m->type == EV_MEMBER_DIR)
		return ev_namefold_add(l->fold, e->path, err);
	ev_status st = ev_git_blob_size(l->git, e->id, &m->size, err);
	if (st == EV_OK && l->digest) {
		const void *data;
		size_t len;
		if ((st = ev_git_blob(l->git, e->id, &data, &len, err)) == EV_OK)
			st = ev_sha256_buffer(data, len, m->sha256, err);
		ev_meter_advance(l->o->meter, len, 1);
	}
	if (st == EV_OK)
		st = ev_namefold_add(l->fold, e->path, err);
	return st;
}

static ev_status on_entry(void *ctx, const struct ev_git_entry *e, struct ev_error *err)
{
	struct listing *l = ctx;
	const char *problem = ev_path_problem(e->path, strlen(e->path));
	if (problem) {
		char shown[1024], why[1200];
		ev_path_quote(e->path, strlen(e->path), shown, sizeof shown);
		snprintf(why, sizeof why, "a name that %s cannot be a member", problem);
		refuse(l, shown, why);
		return EV_OK;
	}
	if (e->kind == EV_GIT_LINK) {
		const void *data;
		size_t len;
		ev_status st = ev_git_blob(l->git, e->id, &data, &len, err);
		if (st != EV_OK)
			return st;
		if (!l->o->record_links) {
			char why[600];
			snprintf(why, sizeof why, "a symbolic link (to %.*s): --symlinks record lists it in the "
				 "seal's source instead", (int)(len < 400 ? len : 400), (const char *)data);
			refuse(l, e->path, why);
		} else {
			json_array_append_new(l->links, json_pack("{s:s, s:s%}", "path", e->path, "target",
								 (const char *)data, len));
		}
		return EV_OK;
	}
	if (e->kind == EV_GIT_SUBMODULE) {
		if (!l->o->record_submodules)
			refuse(l, e->path, "a submodule: --submodules record lists it with its commit in the "
					   "seal's source instead");
		else
			json_array_append_new(l->submodules, json_pack("{s:s, s:s}", "path", e->path, "commit", e->id));
		return EV_OK;
	}
	return add_member(l, e, err);
}

static void count_refusal(void *ctx, const struct ev_finding *f)
{
	struct listing *l = ctx;
	l->o->on_refusal(l->o->ctx, f);
	l->refused++;
}

/* The seal the commit gives, with digests when asked (verify). */
static ev_status list_commit(struct ev_seal_capsule *o, struct ev_git *g, const char *root,
			     int digest, struct ev_seal *seal, struct ev_error *err)
{
	ev_seal_init(seal);
	struct listing l = {.o = o, .git = g, .seal = seal, .links = json_array(),
			    .submodules = json_array(), .digest = digest, .fold = ev_namefold_new()};
	ev_status st = l.fold ? EV_OK : ev_error_set(err, EV_ERROR, "out of memory");
	if (st == EV_OK && !(seal->root = strdup(root)))
		st = ev_error_set(err, EV_ERROR, "out of memory");
	if (st == EV_OK)
		st = ev_git_walk(g, on_entry, &l, err);
	if (st == EV_OK)
		ev_namefold_report(l.fold, count_refusal, &l);
	if (st == EV_OK && l.refused)
		st = ev_error_set(err, EV_REFUSED, "commit %s: %u member%s refused; nothing was written",
				  ev_git_commit_id(g), l.refused, l.refused == 1 ? "" : "s");
	if (st == EV_OK) {
		json_t *git = json_pack("{s:s, s:s}", "commit", ev_git_commit_id(g), "tree", ev_git_tree_id(g));
		if (json_array_size(l.links))
			json_object_set(git, "symlinks", l.links);
		if (json_array_size(l.submodules))
			json_object_set(git, "submodules", l.submodules);
		seal->source = json_pack("{s:o}", "git", git);
		ev_seal_finish(seal);
	}
	o->refused = l.refused;
	json_decref(l.links);
	json_decref(l.submodules);
	ev_namefold_free(l.fold);
	return st;
}

static ev_status write_members(const struct ev_seal_capsule *o, struct ev_git *g, const struct ev_seal *seal,
			       struct ev_seal_outdir *out, struct ev_error *err)
{
	ev_status st = EV_OK;
	ev_meter_goal(o->meter, seal->bytes, seal->count);
	for (size_t i = 0; i < seal->count && st == EV_OK; i++) {
		struct ev_member *m = &seal->members[i];
		struct ev_git_entry e;
		ev_meter_advance(o->meter, m->type == EV_MEMBER_FILE ? m->size : 0, 1);
		if ((st = ev_archive_writer_begin(out->writer, m, err)) != EV_OK || m->type != EV_MEMBER_FILE)
			continue;
		const void *data;
		size_t len = 0;
		if ((st = ev_git_lookup(g, m->path, &e, err)) == EV_MISMATCH)
			st = ev_error_set(err, EV_ERROR, "%s: gone from the commit", m->path);
		if (st == EV_OK)
			st = ev_git_blob(g, e.id, &data, &len, err);
		if (st == EV_OK && (uint64_t)len != m->size)
			st = ev_error_set(err, EV_ERROR, "%s: blob size changed while read", m->path);
		if (st == EV_OK && (st = ev_sha256_buffer(data, len, m->sha256, err)) == EV_OK)
			st = ev_archive_writer_data(out->writer, data, len, err);
		if (*o->interrupted)
			st = ev_error_set(err, EV_INTERRUPTED, "interrupted by a signal; nothing was written");
	}
	return st;
}

static void default_root(const struct ev_seal_capsule *o, struct ev_git *g, char *out, size_t cap)
{
	char top[PATH_MAX];
	const char *wd = ev_git_workdir(g);
	snprintf(top, sizeof top, "%s", wd ? wd : o->repo);
	size_t n = strlen(top);
	while (n > 1 && top[n - 1] == '/')
		top[--n] = 0;
	snprintf(out, cap, "%s-%.12s", basename(top), ev_git_commit_id(g));
}

ev_status ev_seal_capsule_create(struct ev_seal_capsule *o, struct ev_error *err)
{
	struct ev_git *g = NULL;
	struct ev_seal *seal_p = &o->seal;
	struct ev_seal_outdir *out_p = &o->out;
	json_t *receipt = NULL;
	char root[256];
	ev_status st = ev_git_open(&g, o->repo, o->commit, err);
	if (st != EV_OK)
		return st;
	if (o->name)
		snprintf(root, sizeof root, "%s", o->name);
	else
		default_root(o, g, root, sizeof root);
	const char *problem = ev_path_component_problem(root, strlen(root));
	if (problem) {
		st = ev_error_set(err, EV_USAGE, "root name \"%s\" %s; choose one with --name", root, problem);
		goto out;
	}
	if ((st = list_commit(o, g, root, 0, seal_p, err)) != EV_OK ||
	    (st = ev_seal_outdir_begin(out_p, o->outdir, &o->archive, seal_p, err)) != EV_OK ||
	    (st = write_members(o, g, seal_p, out_p, err)) != EV_OK)
		goto out;
	if (!(receipt = ev_receipt_new("seal", "seal", o->invocation, err))) {
		st = err->status;
		goto out;
	}
	const char *wd = ev_git_workdir(g);
	if ((st = ev_receipt_add_input(receipt, "repository", wd ? wd : o->repo, NULL, err)) ||
	    (st = ev_receipt_set_fact(receipt, "source", json_incref(seal_p->source), err)) ||
	    (st = ev_receipt_set_fact(receipt, "coverage",
				      json_pack("{s:[s, s], s:[s, s]}", "recomputed",
						"every blob of the commit's tree read through libgit2, hashed (SHA-256) "
						"and archived in the same pass",
						"every mode as git stores it, every name checked as a member path",
						"not_checked", "the working tree and the index (never read)",
						"links and submodules recorded in the seal's source, not archived"),
				      err)) ||
	    (st = ev_receipt_add_check(receipt, "members-refused", 1, "none", err)) ||
	    (st = ev_seal_outdir_finish(out_p, seal_p, receipt, o->interrupted, err)))
		goto out;
	o->receipt_doc = json_incref(receipt);
	snprintf(o->commit_id, sizeof o->commit_id, "%s", ev_git_commit_id(g));
	snprintf(o->tree_id, sizeof o->tree_id, "%s", ev_git_tree_id(g));
out:
	json_decref(receipt);
	ev_git_free(g);
	return st;
}

/* --- verify ---------------------------------------------------------------- */

struct verdict {
	struct ev_seal_capsule *o;
	json_t *receipt;
	uint64_t findings;
};

static void on_finding(void *ctx, const struct ev_finding *f)
{
	struct verdict *v = ctx;
	v->findings++;
	v->o->on_finding(v->o->ctx, f);
}

/* The capsule's seal against the commit's, member by member. */
static void compare_seals(const struct ev_seal *want, const struct ev_seal *got, struct verdict *v)
{
	size_t i = 0, j = 0;
	while (i < want->count || j < got->count) {
		int cmp = i == want->count ? 1 : j == got->count ? -1 : strcmp(want->members[i].path, got->members[j].path);
		if (cmp < 0)
			ev_finding_emit(on_finding, v, want->members[i++].path, "missing", "in the commit, not in the capsule", NULL, NULL);
		else if (cmp > 0)
			ev_finding_emit(on_finding, v, got->members[j++].path, "extra", "in the capsule, not in the commit", NULL, NULL);
		else
			ev_member_compare(&want->members[i++], &got->members[j++], 1, on_finding, v);
	}
}

static int is_dir(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

ev_status ev_seal_capsule_verify(struct ev_seal_capsule *o, json_t *receipt, struct ev_error *err)
{
	struct ev_git *g = NULL;
	struct ev_seal capsule, commit;
	struct verdict v = {.o = o, .receipt = receipt};
	const char *named = NULL;
	char seal_path[PATH_MAX] = "", archive[PATH_MAX] = "", tree[PATH_MAX] = "";
	char *seal_bytes = NULL;
	size_t seal_len = 0;
	ev_seal_init(&capsule);
	ev_seal_init(&commit);
	ev_status st = ev_receipt_refuse_existing(o->receipt, err);
	if (st != EV_OK)
		return st;
	/* what CAPSULE is: a seal, a capsule's OUTDIR, an extracted archive, a tree */
	if (!is_dir(o->target)) {
		snprintf(seal_path, sizeof seal_path, "%s", o->target);
	} else {
		snprintf(seal_path, sizeof seal_path, "%s/" EV_SEAL_FILENAME, o->target);
		if (access(seal_path, F_OK) != 0)
			seal_path[0] = 0;
		for (int k = 0; seal_path[0] && k < 2; k++) {
			if (ev_path_join(archive, sizeof archive, o->target,
					 ev_archive_filename(k ? EV_COMPRESS_GZIP : EV_COMPRESS_ZSTD)) == 0 &&
			    access(archive, F_OK) == 0)
				break;
			archive[0] = 0;
		}
	}
	if (seal_path[0] && (st = ev_seal_load(seal_path, &capsule, NULL, &seal_bytes, &seal_len, err)) != EV_OK)
		goto out;
	if (is_dir(o->target) && !archive[0]) { /* a tree on disk */
		if (seal_path[0] && ev_path_join(tree, sizeof tree, o->target, capsule.root) != 0)
			tree[0] = '\0'; /* too long to name: as if there were no tree */
		else if (!seal_path[0])
			snprintf(tree, sizeof tree, "%s", o->target);
	}
	json_t *src = capsule.source ? json_object_get(json_object_get(capsule.source, "git"), "commit") : NULL;
	named = json_string_value(src);
	if ((st = ev_git_open(&g, o->repo, o->commit ? o->commit : named, err)) != EV_OK)
		goto out;
	char root[256], base[PATH_MAX];
	snprintf(base, sizeof base, "%s", tree[0] ? tree : "");
	snprintf(root, sizeof root, "%s", seal_path[0] ? capsule.root : basename(base));
	if ((st = list_commit(o, g, root, 1, &commit, err)) != EV_OK)
		goto out;
	ev_receipt_add_input(v.receipt, "capsule", o->target, NULL, err);
	ev_receipt_set_fact(v.receipt, "commit", json_string(ev_git_commit_id(g)), err);
	ev_receipt_set_fact(v.receipt, "tree", json_string(ev_git_tree_id(g)), err);
	if (seal_path[0])
		compare_seals(&commit, &capsule, &v);
	if (archive[0]) /* the archive against the capsule's own seal */
	{
		struct ev_archive_check result;
		memset(&result, 0, sizeof result);
		st = ev_archive_check(archive, &capsule, seal_bytes, seal_len, on_finding, &v, NULL,
				      o->interrupted, &result, err);
	}
	if (st == EV_OK && tree[0])
		st = ev_tree_check(tree, &commit, 0, on_finding, &v, NULL, o->interrupted, err);
	if (st != EV_OK)
		goto out;
	ev_receipt_add_check(v.receipt, "members", v.findings == 0, v.findings ? "differences named" : "every member matches", err);
	json_t *done = json_pack("[s]", "every member of the commit's tree, read through libgit2, hashed and held "
				 "against the capsule, member for member");
	if (seal_path[0])
		json_array_append_new(done, json_string("the capsule's SEAL.json against the commit's listing"));
	if (archive[0])
		json_array_append_new(done, json_string("every member of the capsule's archive against its SEAL.json"));
	if (tree[0])
		json_array_append_new(done, json_string("every file of the tree on disk hashed against the commit"));
	ev_receipt_set_fact(v.receipt, "coverage",
			    json_pack("{s:o, s:[s]}", "recomputed", done, "not_checked",
				      "anything of the repository outside this commit's tree"), err);
	if ((st = ev_receipt_finish_signed(v.receipt, o->archive.sign_key, err)) != EV_OK ||
	    (st = ev_receipt_write_chosen(v.receipt, o->receipt, EV_RECEIPT_DEFAULT_DIR, "verify", o->receipt_path,
					  sizeof o->receipt_path, err)) != EV_OK)
		goto out;
	o->findings = v.findings;
	st = v.findings ? EV_MISMATCH : EV_OK;
out:
	free(seal_bytes);
	if (g) {
		snprintf(o->commit_id, sizeof o->commit_id, "%s", ev_git_commit_id(g));
		snprintf(o->tree_id, sizeof o->tree_id, "%s", ev_git_tree_id(g));
	}
	o->capsule = capsule; /* kept: named points into it */
	o->seal = commit;
	o->named = named;
	ev_git_free(g);
	return st;
}

void ev_seal_capsule_free(struct ev_seal_capsule *c)
{
	ev_seal_outdir_free(&c->out);
	ev_seal_free(&c->seal);
	ev_seal_free(&c->capsule);
	json_decref(c->receipt_doc);
	c->receipt_doc = NULL;
	c->named = NULL;
}
