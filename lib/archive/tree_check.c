#include "config.h"
#include "lib/archive/tree_check.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/core/sha256.h"
#include "lib/archive/tree.h"

/* Ancestors of the expected members: directories a subset copy must hold
 * even when they were not selected. Sorted for bsearch. */
struct ancestors {
	char **paths;
	size_t count;
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int collect_ancestors(const struct ev_seal *expected, struct ancestors *an)
{
	size_t cap = 0;
	memset(an, 0, sizeof *an);
	for (size_t i = 0; i < expected->count; i++) {
		const char *p = expected->members[i].path;
		for (const char *s = strchr(p, '/'); s; s = strchr(s + 1, '/')) {
			if (an->count == cap) {
				cap = cap ? cap * 2 : 64;
				char **bigger = realloc(an->paths, cap * sizeof *bigger);
				if (!bigger)
					return -1;
				an->paths = bigger;
			}
			if (!(an->paths[an->count++] = strndup(p, (size_t)(s - p))))
				return -1;
		}
	}
	if (an->count > 1)
		qsort(an->paths, an->count, sizeof *an->paths, cmp_str);
	return 0;
}

static int is_ancestor(const struct ancestors *an, const char *path)
{
	return an->count && bsearch(&path, an->paths, an->count, sizeof *an->paths, cmp_str);
}

static void free_ancestors(struct ancestors *an)
{
	for (size_t i = 0; i < an->count; i++)
		free(an->paths[i]);
	free(an->paths);
}

ev_status ev_tree_check(const char *dir, const struct ev_seal *expected, int subset,
			ev_finding_fn on_finding, void *ctx, const struct ev_meter *progress,
			volatile sig_atomic_t *interrupted, struct ev_error *err)
{
	struct ev_tree tree = {.rootfd = -1};
	struct ancestors an = {0};
	ev_status st = ev_tree_scan(dir, &tree, on_finding, ctx, err);
	if (st != EV_OK)
		goto out;
	if (subset && collect_ancestors(expected, &an) != 0) {
		st = ev_error_set(err, EV_ERROR, "out of memory");
		goto out;
	}
	size_t i = 0, j = 0;
	while (i < expected->count || j < tree.count) {
		int c = i == expected->count ? 1
			: j == tree.count    ? -1
					     : strcmp(expected->members[i].path, tree.entries[j].m.path);
		if (c < 0) {
			const struct ev_member *m = &expected->members[i++];
			ev_finding_emit(on_finding, ctx, m->path, "missing", "missing", ev_member_type_name(m->type),
				      NULL);
			continue;
		}
		if (c > 0) {
			const struct ev_tree_entry *e = &tree.entries[j++];
			if (subset && e->m.type == EV_MEMBER_DIR && is_ancestor(&an, e->m.path))
				continue;
			ev_finding_emit(on_finding, ctx, e->m.path, "extra", "not in the seal", NULL,
				      ev_member_type_name(e->m.type));
			continue;
		}
		const struct ev_member *want = &expected->members[i++];
		struct ev_tree_entry *e = &tree.entries[j++];
		struct ev_member got = e->m;
		int hashed = 0;
		if (want->type == EV_MEMBER_FILE && got.type == EV_MEMBER_FILE &&
		    want->size == got.size) {
			int fd = ev_tree_open_member(&tree, got.path);
			if (fd < 0) {
				ev_finding_emit(on_finding, ctx, got.path, "unreadable", "cannot be read", NULL,
					      strerror(errno));
				continue;
			}
			uint64_t size = 0;
			st = ev_sha256_fd_until(fd, got.path, got.sha256, &size, interrupted, err);
			close(fd);
			if (st != EV_OK)
				goto out;
			got.size = size;
			hashed = 1;
			ev_meter_advance(progress, size, 0);
		}
		ev_member_compare(want, &got, hashed, on_finding, ctx);
		ev_meter_advance(progress, 0, 1);
		if (interrupted && *interrupted) {
			st = ev_error_set(err, EV_INTERRUPTED, "interrupted by a signal; nothing claimed");
			goto out;
		}
	}
out:
	free_ancestors(&an);
	ev_tree_free(&tree);
	return st;
}

json_t *ev_tree_coverage(int subset, int seal_pinned, char *line, size_t cap)
{
	json_t *o = json_object(), *done = json_array(), *pins = json_array(), *not = json_array();
	json_array_append_new(done, json_string(subset ? "the SHA-256, size, mode and type of every selected member"
						       : "the SHA-256, size, mode and type of every sealed member"));
	if (!subset)
		json_array_append_new(done, json_string("every entry of the tree walked: none extra, none missing, no link "
							"or special file"));
	json_array_append_new(pins, json_string(seal_pinned ? "SEAL.json pinned by --seal-sha256"
							    : "SEAL.json not pinned: it is trusted as given (--seal-sha256 pins it)"));
	json_array_append_new(not, json_string("owners, groups, modification times, extended attributes and ACLs: "
					       "the seal does not hold them"));
	if (subset)
		json_array_append_new(not, json_string("the tree's other entries: a selection looks only for its members"));
	json_object_set_new(o, "recomputed", done);
	json_object_set_new(o, "pinned", pins);
	json_object_set_new(o, "not_checked", not);
	json_object_set_new(o, "not_read", json_string("none: every byte of every member was read"));
	snprintf(line, cap, "checked every %s member's content, size, mode and type%s; not checked: owners and "
		 "times (not sealed)%s%s", subset ? "selected" : "sealed", subset ? "" : ", and nothing else is there",
		 seal_pinned ? "" : "; SEAL.json not pinned", subset ? "; entries outside the selection" : "");
	return o;
}
