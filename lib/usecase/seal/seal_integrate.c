/* SPDX-License-Identifier: Apache-2.0 */
/* seal_integrate: the selection checked in a git repository against the
 * seal (seal_integrate.h). */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/archive/seal.h"
#include "lib/archive/selection.h"
#include "lib/core/json.h"
#include "lib/core/sha256.h"
#include "lib/git/gitrepo.h"
#include "lib/receipt/receipt.h"
#include "lib/usecase/seal/seal_integrate.h"

#define GIT_REGULAR 0100644u
#define GIT_EXECUTABLE 0100755u

struct tally {
	const struct ev_seal_integrate *o;
	json_t *receipt, *members;
	uint64_t findings;
	unsigned accepted;
};

static void finding(struct tally *t, const char *path, const char *check, const char *message,
		    const char *expected, const char *found)
{
	ev_finding_emit(t->o->on_finding, t->o->ctx, path, check, message, expected, found);
	t->findings++;
}

/* The git mode git would store for a sealed mode. */
static unsigned git_mode_for(unsigned sealed)
{
	return sealed & 0111 ? GIT_EXECUTABLE : GIT_REGULAR;
}

/* A working-tree file: content, size and git mode as git would take them. */
static ev_status read_worktree(const char *path, uint8_t sha[EV_SHA256_LEN], char blob[EV_GIT_ID_HEX + 1],
			       uint64_t *size, unsigned *mode, int *is_file, struct ev_error *err)
{
	struct stat sb;
	*is_file = 0;
	if (lstat(path, &sb) != 0)
		return errno == ENOENT ? EV_MISMATCH : ev_error_errno(err, errno, "%s: cannot check", path);
	if (!S_ISREG(sb.st_mode))
		return EV_OK;
	*is_file = 1;
	char *bytes = NULL;
	size_t len = 0;
	ev_status st = ev_file_read_all(path, (size_t)1 << 34, &bytes, &len, err);
	if (st == EV_OK && (st = ev_sha256_buffer(bytes, len, sha, err)) == EV_OK)
		st = ev_git_blob_id(bytes, len, blob, err);
	free(bytes);
	*size = len;
	*mode = sb.st_mode & 0100 ? GIT_EXECUTABLE : GIT_REGULAR;
	return st;
}

static ev_status check_member(const struct ev_seal_integrate *o, struct ev_git *g, const struct ev_member *m,
			      struct tally *t, struct ev_error *err)
{
	char where[PATH_MAX], mode[8], sha_hex[EV_SHA256_HEX_LEN + 1], want_hex[EV_SHA256_HEX_LEN + 1];
	if (snprintf(where, sizeof where, "%s%s%s", o->prefix ? o->prefix : "", o->prefix ? "/" : "", m->path) >=
	    (int)sizeof where)
		return ev_error_set(err, EV_USAGE, "%s: path too long", m->path);
	ev_mode_format(m->mode, mode, sizeof mode);
	if (m->type == EV_MEMBER_DIR)
		return EV_OK; /* git keeps files; a directory is there when its files are */
	uint8_t sha[EV_SHA256_LEN];
	char blob[EV_GIT_ID_HEX + 1];
	uint64_t size = 0;
	unsigned gmode = 0;
	int is_file = 0;
	ev_status st;
	if (o->worktree) {
		char file[PATH_MAX + 8];
		snprintf(file, sizeof file, "%s%s", ev_git_workdir(g), where);
		st = read_worktree(file, sha, blob, &size, &gmode, &is_file, err);
		if (st == EV_OK && is_file) {
			struct ev_git_entry ie;
			ev_status in = ev_git_index_lookup(g, where, &ie, err);
			if (in == EV_MISMATCH)
				finding(t, where, "untracked", "in the working tree but not tracked by git", "tracked", "untracked");
			else if (in != EV_OK)
				return in;
			else if (strcmp(ie.id, blob) != 0)
				finding(t, where, "unstaged", "the working tree's file is not the one staged (git add it)",
					ie.id, blob);
		}
	} else {
		struct ev_git_entry e;
		st = ev_git_lookup(g, where, &e, err);
		if (st == EV_OK && (e.kind == EV_GIT_FILE || e.kind == EV_GIT_EXEC)) {
			const void *data;
			size_t len;
			is_file = 1;
			gmode = e.mode;
			memcpy(blob, e.id, sizeof blob);
			if ((st = ev_git_blob(g, e.id, &data, &len, err)) == EV_OK)
				st = ev_sha256_buffer(data, len, sha, err);
			else
				return ev_error_wrap(err, "%s", where);
			size = len;
		} else if (st == EV_OK) {
			finding(t, where, "type", "not a file in the repository",
				"file", e.kind == EV_GIT_LINK ? "symlink" : e.kind == EV_GIT_DIR ? "dir" : "submodule");
			return EV_OK;
		}
	}
	if (st == EV_MISMATCH) {
		finding(t, where, "missing",
			o->prefix ? "a selected file the repository does not hold"
				  : "a selected file the repository does not hold (committed under a directory? say --prefix DIR)",
			NULL, NULL);
		return EV_OK;
	}
	if (st != EV_OK)
		return st;
	if (!is_file) {
		finding(t, where, "type", "not a regular file in the working tree", "file", "another type");
		return EV_OK;
	}
	uint64_t unfound = t->findings;
	ev_sha256_hex(sha, sha_hex);
	ev_sha256_hex(m->sha256, want_hex);
	if (size != m->size) {
		char a[32], b[32];
		snprintf(a, sizeof a, "%llu", (unsigned long long)m->size);
		snprintf(b, sizeof b, "%llu", (unsigned long long)size);
		finding(t, where, "size", "size differs", a, b);
	} else if (memcmp(sha, m->sha256, EV_SHA256_LEN) != 0) {
		finding(t, where, "sha256", "content differs (SHA-256)", want_hex, sha_hex);
	}
	char want_mode[64], got_mode[16];
	snprintf(want_mode, sizeof want_mode, "%06o (sealed %s)", git_mode_for(m->mode), mode);
	snprintf(got_mode, sizeof got_mode, "%06o", gmode);
	if (gmode != git_mode_for(m->mode))
		finding(t, where, "executable", "the executable bit differs from the sealed mode's", want_mode, got_mode);
	int represented = t->findings == unfound && (m->mode != 0644 && m->mode != 0755);
	if (represented)
		t->accepted++;
	json_t *row = json_pack("{s:s, s:s, s:s, s:s, s:s, s:b}", "path", m->path, "repository_path", where,
				"sealed_mode", mode, "git_mode", got_mode, "blob", blob, "holds",
				t->findings == unfound);
	if (represented) {
		char rule[96];
		snprintf(rule, sizeof rule, "sealed %s stored by git as %06o: accepted (git keeps only the executable bit)",
			 mode, gmode);
		json_object_set_new(row, "representation", json_string(rule));
	}
	json_array_append_new(t->members, row);
	return EV_OK;
}

ev_status ev_seal_integrate(struct ev_seal_integrate *o, json_t *receipt, struct ev_error *err)
{
	struct ev_selection sel;
	struct ev_git *g = NULL;
	struct tally t = {.o = o, .receipt = receipt};
	uint8_t sel_sha[EV_SHA256_LEN];
	char hex[EV_SHA256_HEX_LEN + 1];
	memset(&sel, 0, sizeof sel);
	ev_status st = ev_sha256_path(o->selection, sel_sha, NULL, err);
	if (st == EV_OK)
		st = ev_selection_load(o->selection, &sel, err);
	if (st == EV_OK)
		st = ev_git_open(&g, o->repo, o->worktree ? NULL : o->rev, err);
	if (st == EV_OK && o->worktree && !ev_git_workdir(g))
		st = ev_error_set(err, EV_USAGE, "%s: a bare repository has no working tree", o->repo);
	if (st != EV_OK)
		goto out;
	t.members = json_array();
	ev_sha256_hex(sel_sha, hex);
	ev_receipt_add_input(t.receipt, "selection", o->selection, hex, err);
	ev_receipt_add_input(t.receipt, "repository", ev_git_workdir(g) ? ev_git_workdir(g) : o->repo, NULL, err);
	if (!o->worktree) /* the tree checked, for a continuation to rerun the same one */
		json_object_set_new(json_array_get(json_object_get(t.receipt, "inputs"), 1), "git_tree",
				    json_string(ev_git_tree_id(g)));
	for (size_t i = 0; i < sel.members.count && st == EV_OK; i++) {
		/* a stop never passes: what was not checked is not claimed */
		if (*o->interrupted)
			st = ev_error_set(err, EV_INTERRUPTED, "interrupted by a signal; nothing is claimed, "
					  "no receipt written");
		else
			st = check_member(o, g, &sel.members.members[i], &t, err);
	}
	if (st == EV_OK && *o->interrupted)
		st = ev_error_set(err, EV_INTERRUPTED, "interrupted by a signal; nothing is claimed, "
				  "no receipt written");
	if (st != EV_OK)
		goto out;
	ev_receipt_set_fact(t.receipt, "checked", json_string(o->worktree ? "working tree and index" : "commit"), err);
	ev_receipt_set_fact(t.receipt, "commit", json_string(ev_git_commit_id(g)), err);
	ev_receipt_set_fact(t.receipt, "tree", json_string(ev_git_tree_id(g)), err);
	ev_receipt_set_fact(t.receipt, "seal_sha256", json_string(sel.seal_sha256), err);
	ev_receipt_set_fact(t.receipt, "prefix", json_string(o->prefix ? o->prefix : ""), err);
	ev_receipt_set_fact(t.receipt, "mode_rule",
			    json_string("a sealed mode maps to the mode git stores: no executable bit -> 100644, "
					"any -> 100755; accepted; content, size and the executable bit must hold"), err);
	ev_receipt_set_fact(t.receipt, "members", json_incref(t.members), err);
	char detail[128];
	snprintf(detail, sizeof detail, "%zu members, %" PRIu64 " findings, %u modes represented by the rule",
		 sel.members.count, t.findings, t.accepted);
	ev_receipt_add_check(t.receipt, "members", t.findings == 0, detail, err);
	ev_receipt_set_fact(t.receipt, "coverage",
			    json_pack("{s:[s, s], s:[s, s]}", "recomputed",
				      "every selected member's content, size and executable bit in git against the seal",
				      o->worktree ? "the working tree and the index, each member found in both"
						  : "the commit's tree, each member found in it",
				      "not_checked", "the files git holds beyond the selection",
				      "the seal's other members (not selected)"),
			    err);
	if ((st = ev_receipt_finish_signed(t.receipt, o->sign_key, err)) != EV_OK)
		goto out;
	if ((st = ev_receipt_write_chosen(t.receipt, o->receipt, EV_RECEIPT_DEFAULT_DIR, "integration", o->receipt_path,
					  sizeof o->receipt_path, err)) != EV_OK)
		goto out;
	o->members = sel.members.count;
	o->findings = t.findings;
	o->accepted = t.accepted;
	snprintf(o->commit, sizeof o->commit, "%s", ev_git_commit_id(g));
	st = t.findings ? EV_MISMATCH : EV_OK;
out:
	json_decref(t.members);
	ev_selection_free(&sel);
	ev_git_free(g);
	return st;
}

