/* SPDX-License-Identifier: Apache-2.0 */
/* status_catalog: replicate status from a catalog's rows, gathered as the
 * walk gathers files, each believed only as its document says
 * (replicate_status_parts.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/catalog/catalog.h"
#include "lib/core/grow.h"
#include "lib/core/input.h"
#include "lib/core/jsonwalk.h"
#include "lib/core/text.h"
#include "lib/usecase/replicate/replicate_status_parts.h"

/* Whether a path a catalog row names may be opened here: the catalog is
 * a stranger's input (another host writes a shared one), so only an
 * absolute, clean path of a *.json file, walked from / without a link on
 * the way (lib/core/input), the kind of path replicate index keeps. */
static int openable(const char *path, char *why, size_t cap)
{
	size_t n = strlen(path);
	struct ev_error e;
	ev_error_clear(&e);
	if (path[0] != '/' || n < 6 || strcmp(path + n - 5, ".json") != 0) {
		snprintf(why, cap, "not opened: not an absolute path of a .json file");
		return 0;
	}
	if (ev_input_check_beneath("/", path + 1, "the catalog's row", NULL, &e) != EV_OK) {
		snprintf(why, cap, "not opened: %s", e.text);
		return 0;
	}
	return 1;
}

/* The catalog's rows, gathered as the walk gathers files. */
struct row {
	char *block; /* one allocation: every string below and rf's */
	const char *host, *path, *sha256, *kind, *why, *body, *doubt;
	struct receipt_fields rf;
	int timestamp, here;
};

struct rows {
	struct row *list;
	size_t n, cap;
	const char *here;
	char (*dirs)[PATH_MAX]; /* absolute; NULL: every row */
	size_t ndirs;
};

static size_t dir_of(const struct rows *rs, const struct row *r)
{
	for (size_t i = 0; i < rs->ndirs; i++) {
		size_t len = strlen(rs->dirs[i]);
		if (r->here && strncmp(r->path, rs->dirs[i], len) == 0 && (r->path[len] == '/' || strcmp(rs->dirs[i], "/") == 0))
			return i;
	}
	return (size_t)-1;
}

static ev_status keep_row(void *ctx, const struct ev_catalog_file *f, struct ev_error *err)
{
	struct rows *rs = ctx;
	struct row r = {.here = strcmp(f->host, rs->here) == 0};
	if (rs->dirs && (!r.here || dir_of(rs, &(struct row){.path = f->path, .here = 1}) == (size_t)-1))
		return EV_OK;
	if (ev_grow_array(&rs->list, &rs->cap, rs->n + 1, sizeof *rs->list) != 0)
		return ev_error_set(err, EV_ERROR, "out of memory");
	const char *from[] = {f->host, f->path, f->sha256, f->kind, f->why, f->body, f->doubt,
			      f->receipt_kind, f->receipt_host, f->result, f->finished, f->comparable,
			      f->command, f->seal, f->root, f->inputs, f->registration};
	const char **const to[] = {&r.host, &r.path, &r.sha256, &r.kind, &r.why, &r.body, &r.doubt,
				   &r.rf.kind, &r.rf.host, &r.rf.result, &r.rf.finished, &r.rf.comparable,
				   &r.rf.command, &r.rf.seal, &r.rf.root, &r.rf.inputs, &r.rf.registration};
	enum { NFROM = sizeof from / sizeof *from };
	if (!f->host || !f->path || !f->kind || !(r.block = malloc(ev_strings_size(from, NFROM))))
		return ev_error_set(err, EV_ERROR, "out of memory");
	ev_strings_copy(r.block, from, to, NFROM);
	r.timestamp = f->timestamp;
	r.rf.intact = f->intact;
	r.rf.from_archive = f->from_archive;
	rs->list[rs->n++] = r;
	return EV_OK;
}

/* The walk's order: by directory given, then this host before others, by
 * host, then by path as the walk meets it. */
static int row_order(const void *a, const void *b, void *ctx)
{
	const struct rows *sorting = ctx;
	const struct row *x = a, *y = b;
	if (sorting->dirs) {
		size_t dx = dir_of(sorting, x), dy = dir_of(sorting, y);
		if (dx != dy)
			return dx < dy ? -1 : 1;
	}
	if (x->here != y->here)
		return x->here ? -1 : 1;
	int h = strcmp(x->host, y->host);
	return h ? h : ev_jsonwalk_order(x->path, y->path);
}

static ev_status catalog_seal(struct status *s, struct ev_catalog *cat, const struct row *r, const char *shown,
			      struct ev_error *err)
{
	ev_status st = ev_inventory_grow_seals(s, err);
	if (st != EV_OK)
		return st;
	struct seal_file *f = &s->seals[s->nseals];
	memset(f, 0, sizeof *f);
	char root[256], doubt[1024];
	int found;
	char (*digests)[65];
	st = ev_catalog_seal(cat, r->sha256, root, sizeof root, &digests, &f->ndigests, &found, doubt, sizeof doubt, err);
	if (st != EV_OK)
		return st;
	if (!found) { /* a row without its seal: the catalog is not whole */
		ev_inventory_note(s->unreadable, shown, "the catalog holds this file but not its seal's members; index it again");
		free(digests);
		return EV_OK;
	}
	if (doubt[0]) /* its rows are not what its document says: named; the document speaks */
		ev_inventory_note(s->not_believed, shown, doubt);
	if (!digests && !root[0]) /* nor is there a document to take them from */
		return EV_OK;
	f->digests = digests;
	snprintf(f->sha256, sizeof f->sha256, "%s", r->sha256);
	f->path = ev_inventory_copy(shown);
	f->root = ev_inventory_copy(root);
	f->stamped = r->timestamp;
	char why[EV_ERROR_TEXT_MAX + 16];
	if (!r->here)
		f->not_here = "indexed on another host; check it there";
	else if (r->timestamp && !openable(r->path, why, sizeof why))
		f->not_here = "its path in the catalog is not opened here (not clean, or a link on the way)";
	s->nseals++;
	return f->path && f->root ? EV_OK : ev_error_set(err, EV_ERROR, "out of memory");
}

/* Every file of the catalog (or under dirs, on this host; or of one
 * campaign) into s, in the walk's order; rechecked, when asked, against
 * the files' bytes now. */
ev_status ev_inventory_gather_catalog(struct status *s, struct ev_replicate_status *out, struct ev_error *err)
{
	struct ev_catalog *cat = NULL;
	struct rows rs = {0};
	ev_status st = ev_catalog_open(out->catalog, &cat, err);
	if (st != EV_OK)
		return st;
	rs.here = ev_catalog_host(cat);
	if (out->ndirs && !(rs.dirs = calloc(out->ndirs, sizeof *rs.dirs)))
		st = ev_error_set(err, EV_ERROR, "out of memory");
	for (size_t i = 0; i < out->ndirs && st == EV_OK; i++) {
		rs.ndirs++;
		if (!realpath(out->dirs[i], rs.dirs[i]))
			st = ev_error_errno(err, errno, "%s: cannot read it", out->dirs[i]);
	}
	if (st == EV_OK)
		st = ev_catalog_files(cat, out->seal_hex, s->trust ? EV_CATALOG_BODIES : 0, keep_row, &rs, err);
	if (st == EV_OK && rs.n > 1) {
		qsort_r(rs.list, rs.n, sizeof *rs.list, row_order, &rs);
	}
	json_t *changed = json_array(), *elsewhere = json_array();
	size_t rechecked = 0;
	for (size_t i = 0; i < rs.n && st == EV_OK; i++) {
		const struct row *r = &rs.list[i];
		char shown[PATH_MAX + 300];
		snprintf(shown, sizeof shown, "%s%s%s", r->here ? "" : r->host, r->here ? "" : ":", r->path);
		if (out->recheck && r->sha256 && !r->here) {
			json_array_append_new(elsewhere, json_string(shown));
		} else if (out->recheck && r->sha256) { /* the file's bytes now, against the row */
			uint8_t d[EV_SHA256_LEN];
			char now[EV_ERROR_TEXT_MAX + 16] = "";
			struct ev_error e;
			ev_error_clear(&e);
			struct stat sb;
			rechecked++;
			if (!openable(r->path, now, sizeof now))
				;
			else if (lstat(r->path, &sb) != 0)
				snprintf(now, sizeof now, "gone");
			else if (!S_ISREG(sb.st_mode))
				snprintf(now, sizeof now, "%s", ev_input_kind(sb.st_mode));
			else if (ev_sha256_path(r->path, d, NULL, &e) == EV_OK)
				ev_sha256_hex(d, now);
			else
				snprintf(now, sizeof now, "unreadable");
			if (strcmp(now, r->sha256) != 0)
				json_array_append_new(changed, json_pack("{s:s, s:s, s:s}", "path", shown, "indexed",
									 r->sha256, "now", now));
		}
		if ((strcmp(r->kind, "receipt") == 0 || strcmp(r->kind, "seal") == 0) &&
		    (!r->sha256 || !ev_sha256_hex_valid(r->sha256))) { /* a catalog is a stranger's input too */
			ev_inventory_note(s->unreadable, shown, "the catalog's row for it has no valid SHA-256; index it again");
		} else if (strcmp(r->kind, "unreadable") == 0 || strcmp(r->kind, "skipped") == 0) {
			ev_inventory_note(strcmp(r->kind, "skipped") == 0 ? s->skipped : s->unreadable, shown, r->why ?: "");
		} else if (strcmp(r->kind, "seal") == 0) {
			st = catalog_seal(s, cat, r, shown, err);
		} else if (strcmp(r->kind, "receipt") == 0 && r->doubt && !r->rf.kind) { /* no document either */
			ev_inventory_note(s->not_believed, shown, r->doubt);
		} else if (strcmp(r->kind, "receipt") == 0 && r->rf.kind) {
			if (r->doubt) /* the row named; the document's fields judged */
				ev_inventory_note(s->not_believed, shown, r->doubt);
			json_t *doc = NULL;
			if (s->trust && r->body)
				doc = json_loads(r->body, 0, NULL);
			st = ev_inventory_keep_receipt(s, shown, r->sha256, &r->rf, doc, err);
			json_decref(doc);
		}
	}
	if (out->recheck)
		out->recheck_doc = json_pack("{s:I, s:o, s:o}", "files", (json_int_t)rechecked, "changed", changed,
					     "elsewhere", elsewhere);
	else
		json_decref(changed), json_decref(elsewhere);
	for (size_t i = 0; i < rs.n; i++) {
		struct row *r = &rs.list[i];
		free(r->block);
	}
	free(rs.list);
	free(rs.dirs);
	if (st == EV_ERROR && ev_catalog_damaged(cat)) /* what the catalog says cannot be read: a finding */
		st = EV_MISMATCH;
	ev_catalog_close(cat);
	return st;
}

