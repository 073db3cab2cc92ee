/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/process/sources.h"

#include <stdio.h>

#include "lib/git/gitrepo.h"

static ev_status read_one(const char *program, const char *repo, int allow_dirty, json_t *out,
			  struct ev_error *err)
{
	struct ev_git *g = NULL;
	ev_status st = ev_git_open(&g, repo, NULL, err);
	if (st != EV_OK)
		return ev_error_wrap(err, "source of %s", program);
	int clean = 0;
	size_t changes = 0;
	char first[512] = "";
	if (!ev_git_workdir(g))
		st = ev_error_set(err, EV_USAGE,
				  "source of %s: %s is a bare repository: it has no working tree the binary "
				  "could have been built from",
				  program, repo);
	else
		st = ev_git_clean(g, &clean, &changes, first, sizeof first, err);
	if (st == EV_OK && !clean && !allow_dirty)
		st = ev_error_set(err, EV_REFUSED,
				  "source of %s: %s has %zu uncommitted change%s (first: %s), so %s may not be "
				  "commit %.12s; commit or stash them and rebuild, or pass --allow-dirty to run "
				  "and record the tree as dirty",
				  program, repo, changes, changes == 1 ? "" : "s", first, program, ev_git_commit_id(g));
	if (st == EV_OK)
		json_object_set_new(out, program,
				    json_pack("{s:s, s:s, s:s, s:b, s:I}", "repository", repo, "commit",
					      ev_git_commit_id(g), "tree", ev_git_tree_id(g), "clean", clean,
					      "changes", (json_int_t)changes));
	ev_git_free(g);
	return st;
}

ev_status ev_sources_read(const json_t *sources, int allow_dirty, json_t **out, struct ev_error *err)
{
	*out = json_object();
	if (!*out)
		return ev_error_set(err, EV_ERROR, "out of memory");
	const char *program;
	json_t *repo;
	json_object_foreach((json_t *)sources, program, repo) {
		ev_status st = read_one(program, json_string_value(repo), allow_dirty, *out, err);
		if (st != EV_OK) {
			json_decref(*out);
			*out = NULL;
			return st;
		}
	}
	return EV_OK;
}
