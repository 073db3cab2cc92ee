/* SPDX-License-Identifier: Apache-2.0 */
/* catalog, the sessions (catalog.h): every capture session of a plan the
 * catalog holds, believed only from its documents' bytes, and whether an
 * audit published it. What lets audit history show the sessions that were
 * run and never published beside those that were. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "lib/catalog/catalog.h"
#include "lib/catalog/catalog_parts.h"
#include "lib/catalog/db.h"
#include "lib/core/json.h"
#include "lib/core/sha256.h"
#include "lib/receipt/receipt.h"
#include "lib/receipt/receipt_read.h"

struct session_rows {
	json_t *docs;   /* sha256 -> {"where", "doc"}: each session document once, believed */
	json_t *doubts; /* rows whose body does not hash to their digest */
	int failed;
};

/* A document the catalog kept, held to its digest: its body's bytes must
 * hash to it, or the row is not believed. */
static json_t *believed(const char *hex, const char *body)
{
	uint8_t d[EV_SHA256_LEN];
	char now[EV_SHA256_HEX_LEN + 1];
	struct ev_error ignored;
	ev_error_clear(&ignored);
	if (!hex || !body || ev_sha256_buffer(body, strlen(body), d, &ignored) != EV_OK)
		return NULL;
	ev_sha256_hex(d, now);
	return strcmp(now, hex) == 0 ? json_loads(body, 0, NULL) : NULL;
}

static int gather_session(void *ctx, size_t ncols, const char *const *v)
{
	struct session_rows *rs = ctx;
	if (ncols < 4 || !v[0] || json_object_get(rs->docs, v[0]))
		return 0;
	char where[4096];
	snprintf(where, sizeof where, "%s:%s", v[1] ?: "?", v[2] ?: "?");
	json_t *doc = believed(v[0], v[3]);
	if (!doc)
		json_array_append_new(rs->doubts, json_pack("{s:s, s:s}", "where", where, "why",
							    "its kept bytes do not hash to its row's SHA-256"));
	else if (json_object_set_new(rs->docs, v[0], json_pack("{s:s, s:o}", "where", where, "doc", doc)) != 0)
		rs->failed = 1;
	return rs->failed;
}

struct audited {
	const char *start;
	int found;
};

/* An audit receipt, believed from its bytes, intact, naming start among
 * its inputs. */
static int audit_naming(void *ctx, size_t ncols, const char *const *v)
{
	struct audited *a = ctx;
	json_t *r = ncols >= 2 ? believed(v[0], v[1]) : NULL;
	struct ev_error ignored;
	ev_error_clear(&ignored);
	if (r && strcmp(ev_receipt_kind(r) ?: "", "audit") == 0 && ev_receipt_comparable_holds(r, &ignored) == 1) {
		size_t i;
		json_t *in;
		json_array_foreach(ev_receipt_inputs(r), i, in)
			a->found |= strcmp(json_string_value(json_object_get(in, "sha256")) ?: "", a->start) == 0;
	}
	json_decref(r);
	return a->found;
}

static const char *text(const json_t *doc, const char *key)
{
	return json_string_value(json_object_get(doc, key));
}

static int by_start_time(const void *a, const void *b)
{
	const struct ev_catalog_session *x = a, *y = b;
	int t = strcmp(text(x->start, "time") ?: "", text(y->start, "time") ?: "");
	return t ? t : strcmp(x->sha256, y->sha256);
}

ev_status ev_catalog_sessions(struct ev_catalog *c, const char *plan_sha256, ev_catalog_session_fn fn, void *ctx,
			      size_t *not_believed, struct ev_error *err)
{
	struct session_rows rs = {.docs = json_object(), .doubts = json_array()};
	struct ev_catalog_session *list = NULL;
	size_t n = 0;
	ev_status st = rs.docs && rs.doubts ? EV_OK : ev_error_set(err, EV_ERROR, "out of memory");
	if (st == EV_OK)
		st = ev_db_query(c->db,
				 "SELECT f.sha256, f.host, f.path, d.body FROM files f JOIN documents d ON d.sha256 = f.sha256"
				 " WHERE f.kind = 'session' ORDER BY f.sha256, f.host, f.path",
				 0, NULL, gather_session, &rs, err);
	if (st == EV_OK && rs.failed)
		st = ev_error_set(err, EV_ERROR, "out of memory");
	*not_believed = json_array_size(rs.doubts);
	if (st == EV_OK && !(list = calloc(json_object_size(rs.docs) + 1, sizeof *list)))
		st = ev_error_set(err, EV_ERROR, "out of memory");
	const char *hex;
	json_t *v;
	json_object_foreach(st == EV_OK ? rs.docs : NULL, hex, v) {
		const json_t *doc = json_object_get(v, "doc");
		if (strcmp(text(doc, "event") ?: "", "start") != 0 || strcmp(text(doc, "plan") ?: "", plan_sha256) != 0)
			continue;
		struct ev_catalog_session *s = &list[n++];
		s->sha256 = hex;
		s->where = text(v, "where");
		s->start = doc;
		const char *other;
		json_t *w;
		json_object_foreach(rs.docs, other, w)
			if (strcmp(text(json_object_get(w, "doc"), "start") ?: "", hex) == 0)
				s->end = json_object_get(w, "doc");
		struct audited a = {.start = hex};
		const char *p[] = {hex};
		st = ev_db_query(c->db, "SELECT d.sha256, d.body FROM receipt_inputs i JOIN documents d ON d.sha256 = i.receipt"
				 " WHERE i.sha256 = $1", 1, p, audit_naming, &a, err);
		if (st != EV_OK)
			break;
		s->audited = a.found;
	}
	if (st == EV_OK)
		qsort(list, n, sizeof *list, by_start_time);
	for (size_t i = 0; i < n && st == EV_OK; i++)
		st = fn(ctx, &list[i], err);
	free(list);
	json_decref(rs.docs);
	json_decref(rs.doubts);
	return st;
}
