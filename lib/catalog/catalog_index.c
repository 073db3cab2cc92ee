/* SPDX-License-Identifier: Apache-2.0 */
/* catalog: what one file becomes in the catalog, and an index of many in
 * one transaction (catalog.h, ev_catalog_index). */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "lib/archive/seal.h"
#include "lib/campaign/registration.h"
#include "lib/campaign/session.h"
#include "lib/campaign/summary.h"
#include "lib/catalog/catalog.h"
#include "lib/catalog/catalog_parts.h"
#include "lib/core/grow.h"
#include "lib/core/input.h"
#include "lib/core/json.h"
#include "lib/core/jsonwalk.h"
#include "lib/core/path.h"
#include "lib/core/sha256.h"
#include "lib/core/stop.h"
#include "lib/receipt/receipt.h"
#include "lib/receipt/receipt_read.h"

/* A row this host had before the index: its path, its bytes' digest, and
 * whether the walk met it again. */
struct known {
	char *path;
	char sha256[EV_SHA256_HEX_LEN + 1];
	int seen;
};

struct indexer {
	struct ev_catalog *c;
	const struct ev_meter *meter;
	struct ev_catalog_counts *counts;
	struct known *known;
	size_t nknown, cap;
	char now[32];
};

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct known *)a)->path, ((const struct known *)b)->path);
}

static int known_row(void *ctx, size_t ncols, const char *const *v)
{
	struct indexer *ix = ctx;
	if (ncols < 2 || !v[0])
		return 0;
	if (ev_grow_array(&ix->known, &ix->cap, ix->nknown + 1, sizeof *ix->known) != 0)
		return 1;
	struct known *k = &ix->known[ix->nknown];
	if (!(k->path = strdup(v[0])))
		return 1;
	snprintf(k->sha256, sizeof k->sha256, "%s", v[1] ? v[1] : "");
	k->seen = 0;
	ix->nknown++;
	return 0;
}

static struct known *known_at(struct indexer *ix, const char *path)
{
	struct known key = {.path = (char *)path};
	return ix->nknown ? bsearch(&key, ix->known, ix->nknown, sizeof key, by_path) : NULL;
}

static ev_status put_file(struct indexer *ix, const char *path, const char *hex, const char *kind, const char *why,
			  int timestamp, struct ev_error *err)
{
	const char *p[] = {ix->c->host, path, hex, kind, why, timestamp ? "1" : "0", ix->now};
	return ev_db_exec(ix->c->db,
			  "INSERT INTO files (host, path, sha256, kind, why, timestamp, indexed_at)"
			  " VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (host, path) DO UPDATE SET"
			  " sha256 = excluded.sha256, kind = excluded.kind, why = excluded.why,"
			  " timestamp = excluded.timestamp, indexed_at = excluded.indexed_at",
			  7, p, err);
}

static ev_status put_document(struct indexer *ix, const char *hex, const char *bytes, struct ev_error *err)
{
	const char *p[] = {hex, bytes};
	return ev_db_exec(ix->c->db, "INSERT INTO documents (sha256, body) VALUES ($1, $2) ON CONFLICT DO NOTHING", 2,
			  p, err);
}

ev_status ev_catalog_receipt_fields(const json_t *doc, struct ev_catalog_receipt_fields *out, struct ev_error *err)
{
	const char *kind = ev_receipt_kind(doc);
	const json_t *inputs = ev_receipt_inputs(doc);
	int is_seal = kind && strcmp(kind, "seal") == 0;
	struct ev_error ignored;
	ev_error_clear(&ignored);
	*out = (struct ev_catalog_receipt_fields){
		.kind = kind,
		.host = ev_receipt_host(doc),
		.result = ev_receipt_result(doc),
		.finished = ev_receipt_finished(doc),
		.comparable = ev_receipt_comparable_digest(doc),
		.seal = ev_receipt_named_sha256(is_seal ? ev_receipt_outputs(doc) : inputs, EV_SEAL_FILENAME),
		.root = is_seal ? json_string_value(ev_receipt_fact(doc, "root")) : NULL,
		.registration = json_string_value(json_object_get(ev_receipt_fact(doc, "registration"), "line")),
		.intact = ev_receipt_comparable_holds(doc, &ignored) == 1,
		.from_archive = ev_receipt_named_sha256(inputs, "archive") != NULL,
	};
	ev_receipt_command(doc, out->command, sizeof out->command);
	/* a campaign audit reads thousands of inputs: "each once" is a set,
	 * not a search of what is joined so far */
	size_t i, n = json_array_size(inputs);
	char *end = out->inputs = malloc(n * (EV_SHA256_HEX_LEN + 1) + 1);
	json_t *once = json_object(), *in;
	if (!out->inputs || !once) {
		json_decref(once);
		ev_catalog_receipt_fields_free(out);
		return ev_error_set(err, EV_ERROR, "out of memory");
	}
	json_array_foreach(inputs, i, in) {
		const char *d = json_string_value(json_object_get(in, "sha256"));
		if (!d || !ev_sha256_hex_valid(d) || json_object_get(once, d))
			continue;
		json_object_set_new(once, d, json_true());
		if (end != out->inputs)
			*end++ = ' ';
		memcpy(end, d, EV_SHA256_HEX_LEN);
		end += EV_SHA256_HEX_LEN;
	}
	*end = '\0';
	json_decref(once);
	return EV_OK;
}

void ev_catalog_receipt_fields_free(struct ev_catalog_receipt_fields *f)
{
	free(f->inputs);
	f->inputs = NULL;
}

static ev_status index_receipt(struct indexer *ix, const json_t *doc, const char *hex, struct ev_error *err)
{
	struct ev_catalog_receipt_fields f;
	ev_status st = ev_catalog_receipt_fields(doc, &f, err);
	if (st != EV_OK)
		return st;
	const char *p[] = {hex,
			   f.kind ?: "",
			   f.command,
			   f.host,
			   f.result,
			   f.finished,
			   f.comparable,
			   f.seal,
			   f.root,
			   f.inputs,
			   f.intact ? "1" : "0",
			   f.from_archive ? "1" : "0"};
	st = ev_db_exec(ix->c->db,
			"INSERT INTO receipts (sha256, kind, command, host, result, finished, comparable, seal, root,"
			" inputs, intact, from_archive) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)"
			" ON CONFLICT DO NOTHING",
			12, p, err);
	for (char *d = f.inputs; st == EV_OK && *d; d += *d == ' ') {
		char one[EV_SHA256_HEX_LEN + 1];
		memcpy(one, d, EV_SHA256_HEX_LEN);
		one[EV_SHA256_HEX_LEN] = '\0';
		d += EV_SHA256_HEX_LEN;
		const char *q[] = {hex, one};
		st = ev_db_exec(ix->c->db, "INSERT INTO receipt_inputs (receipt, sha256) VALUES ($1, $2) ON CONFLICT DO NOTHING",
				2, q, err);
	}
	ev_catalog_receipt_fields_free(&f);
	return st;
}

static ev_status index_seal(struct indexer *ix, const struct ev_seal *seal, const char *hex, struct ev_error *err)
{
	const char *p[] = {hex, seal->root};
	ev_status st = ev_db_exec(ix->c->db, "INSERT INTO seals (sha256, root) VALUES ($1, $2) ON CONFLICT DO NOTHING", 2,
				  p, err);
	for (size_t i = 0; i < seal->count && st == EV_OK; i++) {
		const struct ev_member *m = &seal->members[i];
		if (m->type != EV_MEMBER_FILE || !m->size) /* an empty file's digest is everyone's */
			continue;
		char d[EV_SHA256_HEX_LEN + 1];
		ev_sha256_hex(m->sha256, d);
		const char *q[] = {hex, d};
		st = ev_db_exec(ix->c->db, "INSERT INTO seal_members (seal, sha256) VALUES ($1, $2) ON CONFLICT DO NOTHING",
				2, q, err);
	}
	return st;
}

/* The plan digest an audit receipt beside the summary names, when that
 * receipt's outputs hold exactly these summary bytes. */
static void plan_of_summary(const char *path, const char *hex, char *out, size_t cap)
{
	char dir[PATH_MAX], beside[PATH_MAX];
	out[0] = '\0';
	snprintf(dir, sizeof dir, "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash)
		return;
	*slash = '\0';
	if (ev_path_join(beside, sizeof beside, dir, "receipt.json") != 0)
		return;
	struct stat sb;
	if (lstat(beside, &sb) != 0 || !S_ISREG(sb.st_mode))
		return;
	json_t *r = NULL;
	struct ev_error ignored;
	ev_error_clear(&ignored);
	if (ev_receipt_load(beside, &r, NULL, &ignored) != EV_OK)
		return;
	const char *out_sha = ev_receipt_output_sha256(r, "summary.json");
	const char *plan = ev_receipt_input_sha256(r, "plan");
	if (strcmp(ev_receipt_kind(r) ?: "", "audit") == 0 && out_sha && strcmp(out_sha, hex) == 0 && plan &&
	    ev_sha256_hex_valid(plan))
		snprintf(out, cap, "%s", plan);
	json_decref(r);
}

struct statistic_writer {
	struct indexer *ix;
	const char *hex;
	struct ev_error *err;
	ev_status st;
};

static int put_statistic(void *ctx, const char *arm, const char *cell, const char *statistic, const char *value)
{
	struct statistic_writer *w = ctx;
	const char *q[] = {w->hex, arm, cell, statistic, value};
	w->st = ev_db_exec(w->ix->c->db,
			   "INSERT INTO cell_statistics (summary, arm, cell, statistic, value)"
			   " VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING",
			   5, q, w->err);
	return w->st != EV_OK;
}

static ev_status index_summary(struct indexer *ix, const char *path, const json_t *doc, const char *hex,
			       struct ev_error *err)
{
	const json_t *prov = json_object_get(doc, "provenance");
	char plan_sha[EV_SHA256_HEX_LEN + 1], runs[32];
	plan_of_summary(path, hex, plan_sha, sizeof plan_sha);
	snprintf(runs, sizeof runs, "%zu", json_array_size(json_object_get(doc, "runs")));
	const char *p[] = {hex, json_string_value(json_object_get(doc, "campaign")), plan_sha[0] ? plan_sha : NULL,
			   ev_catalog_summary_captured(doc), json_string_value(json_object_get(prov, "seal_sha256")), runs};
	ev_status st = ev_db_exec(ix->c->db,
				  "INSERT INTO summaries (sha256, plan, plan_sha256, captured, seal, runs)"
				  " VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (sha256) DO UPDATE SET"
				  " plan_sha256 = COALESCE(summaries.plan_sha256, excluded.plan_sha256)",
				  6, p, err);
	/* the statistics as history reads them from the document, one mapping */
	struct statistic_writer w = {ix, hex, err, EV_OK};
	if (st == EV_OK)
		ev_catalog_summary_statistics(doc, put_statistic, &w);
	return st == EV_OK ? w.st : st;
}

static ev_status forget(struct indexer *ix, const char *path, struct ev_error *err)
{
	const char *p[] = {ix->c->host, path};
	return ev_db_exec(ix->c->db, "DELETE FROM files WHERE host = $1 AND path = $2", 2, p, err);
}

static ev_status index_one(void *ctx, const char *path, const struct stat *sb, struct ev_error *err)
{
	struct indexer *ix = ctx;
	if (ev_stop_requested())
		return ev_error_set(err, EV_INTERRUPTED, "stopped by a signal; the catalog is as it was");
	struct known *k = known_at(ix, path);
	if (k)
		k->seen = 1;
	ev_meter_advance(ix->meter, (uint64_t)sb->st_size, 1);
	if (!S_ISREG(sb->st_mode)) { /* named, never opened */
		ix->counts->skipped++;
		return put_file(ix, path, NULL, "skipped", ev_input_kind(sb->st_mode), 0, err);
	}
	json_t *doc = NULL;
	uint8_t d[EV_SHA256_LEN];
	char hex[EV_SHA256_HEX_LEN + 1], *bytes = NULL;
	size_t len = 0;
	struct ev_error e;
	ev_error_clear(&e);
	if (ev_json_load(path, NULL, 0, &doc, d, &bytes, &len, &e) != EV_OK) {
		ix->counts->unreadable++;
		return put_file(ix, path, NULL, "unreadable", e.text, 0, err);
	}
	ev_sha256_hex(d, hex);
	ev_status st = EV_OK;
	const char *format = json_string_value(json_object_get(doc, "format")) ?: "";
	if (k && strcmp(k->sha256, hex) == 0) {
		ix->counts->unchanged++;
	} else if (strlen(bytes) != len) { /* text columns hold no NUL */
		ix->counts->unreadable++;
		st = put_file(ix, path, NULL, "unreadable", "holds a NUL byte", 0, err);
	} else if (strcmp(format, EV_RECEIPT_FORMAT) == 0) {
		st = put_document(ix, hex, bytes, err);
		if (st == EV_OK)
			st = index_receipt(ix, doc, hex, err);
		if (st == EV_OK)
			st = put_file(ix, path, hex, "receipt", NULL, 0, err);
		ix->counts->receipts++;
	} else if (strcmp(format, EV_SEAL_FORMAT) == 0) {
		struct ev_seal seal;
		if (ev_seal_from_json(doc, path, 0, &seal, &e) != EV_OK) {
			ix->counts->unreadable++;
			st = put_file(ix, path, NULL, "unreadable", e.text, 0, err);
		} else {
			char tsr[PATH_MAX];
			struct stat tb;
			int stamped = snprintf(tsr, sizeof tsr, "%s.tsr", path) < (int)sizeof tsr && lstat(tsr, &tb) == 0 &&
				      S_ISREG(tb.st_mode);
			st = put_document(ix, hex, bytes, err);
			if (st == EV_OK)
				st = index_seal(ix, &seal, hex, err);
			if (st == EV_OK)
				st = put_file(ix, path, hex, "seal", NULL, stamped, err);
			ev_seal_free(&seal);
			ix->counts->seals++;
		}
	} else if (strcmp(format, EV_CAMPAIGN_SUMMARY_FORMAT) == 0) {
		st = put_document(ix, hex, bytes, err);
		if (st == EV_OK)
			st = index_summary(ix, path, doc, hex, err);
		if (st == EV_OK)
			st = put_file(ix, path, hex, "summary", NULL, 0, err);
		ix->counts->summaries++;
	} else if (strcmp(format, EV_SESSION_FORMAT) == 0 || strcmp(format, EV_REGISTRATION_FORMAT) == 0) {
		/* held to its format's rules (its own loader) before it is kept */
		json_t *held = NULL;
		ev_status hs = strcmp(format, EV_SESSION_FORMAT) == 0 ? ev_session_load(path, &held, NULL, &e)
								     : ev_registration_load(path, &held, NULL, &e);
		json_decref(held);
		if (hs != EV_OK) {
			ix->counts->unreadable++;
			st = put_file(ix, path, NULL, "unreadable", e.text, 0, err);
		} else {
			st = put_document(ix, hex, bytes, err);
			if (st == EV_OK)
				st = put_file(ix, path, hex, strcmp(format, EV_SESSION_FORMAT) == 0 ? "session" : "registration",
					      NULL, 0, err);
			ix->counts->sessions++;
		}
	} else if (k) { /* evidence once, other JSON now */
		st = forget(ix, path, err);
	}
	json_decref(doc);
	free(bytes);
	return st;
}

static ev_status forget_missing(struct indexer *ix, const char *dir, struct ev_error *err)
{
	size_t len = strlen(dir);
	ev_status st = EV_OK;
	for (size_t i = 0; i < ix->nknown && st == EV_OK; i++) {
		const struct known *k = &ix->known[i];
		if (k->seen || strncmp(k->path, dir, len) != 0 || (k->path[len] != '/' && strcmp(dir, "/") != 0))
			continue;
		st = forget(ix, k->path, err);
		ix->counts->removed++;
	}
	return st;
}

ev_status ev_catalog_index(struct ev_catalog *c, const char *const *paths, size_t npaths, unsigned flags,
			   const struct ev_meter *meter, struct ev_catalog_counts *counts, struct ev_error *err)
{
	struct indexer ix = {.c = c, .meter = meter, .counts = counts};
	memset(counts, 0, sizeof *counts);
	ev_utc_stamp(ix.now, sizeof ix.now);
	char (*absolute)[PATH_MAX] = calloc(npaths ? npaths : 1, sizeof *absolute);
	if (!absolute)
		return ev_error_set(err, EV_ERROR, "out of memory");
	ev_status st = EV_OK;
	/* every path is looked at before anything is written */
	for (size_t i = 0; i < npaths && st == EV_OK; i++) {
		struct stat sb;
		if (lstat(paths[i], &sb) != 0)
			st = ev_error_errno(err, errno, "%s: cannot index it", paths[i]);
		else if (!S_ISDIR(sb.st_mode) && !S_ISREG(sb.st_mode))
			st = ev_error_set(err, EV_USAGE, "%s: is %s; expected a directory of receipts and seals, or one such file",
					  paths[i], ev_input_kind(sb.st_mode));
		else if (!realpath(paths[i], absolute[i]))
			st = ev_error_errno(err, errno, "%s: cannot index it", paths[i]);
	}
	const char *host[] = {c->host};
	if (st == EV_OK)
		st = ev_db_begin(c->db, err);
	if (st == EV_OK && ev_db_query(c->db, "SELECT path, sha256 FROM files WHERE host = $1", 1, host, known_row, &ix,
				       err) == EV_OK && ix.nknown > 1)
		qsort(ix.known, ix.nknown, sizeof *ix.known, by_path);
	for (size_t i = 0; i < npaths && st == EV_OK; i++) {
		struct stat sb;
		if (lstat(absolute[i], &sb) != 0) {
			st = ev_error_errno(err, errno, "%s: cannot index it", paths[i]);
		} else if (S_ISDIR(sb.st_mode)) {
			st = ev_jsonwalk(absolute[i], index_one, &ix, err);
			if (st == EV_OK && (flags & EV_CATALOG_FORGET_MISSING))
				st = forget_missing(&ix, absolute[i], err);
		} else {
			st = index_one(&ix, absolute[i], &sb, err);
		}
	}
	if (st == EV_OK && ev_stop_requested())
		st = ev_error_set(err, EV_INTERRUPTED, "stopped by a signal; the catalog is as it was");
	if (st == EV_OK)
		st = ev_db_commit(c->db, err);
	if (st != EV_OK) {
		ev_db_rollback(c->db);
		if (st != EV_INTERRUPTED && st != EV_USAGE)
			ev_error_wrap(err, "nothing of this index was kept");
	}
	for (size_t i = 0; i < ix.nknown; i++)
		free(ix.known[i].path);
	free(ix.known);
	free(absolute);
	return st;
}
