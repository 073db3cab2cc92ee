/* SPDX-License-Identifier: Apache-2.0 */
/* catalog: seals, receipts and summaries indexed in SQLite or PostgreSQL
 * (catalog.h); the schema and its migrations, and the queries. What one
 * file becomes is catalog_index.c; every file it holds, catalog_files.c. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/catalog/catalog.h"
#include "lib/catalog/catalog_parts.h"
#include "lib/core/sha256.h"
#include "lib/core/grow.h"
#include "lib/receipt/receipt_read.h"
#include "lib/receipt/signature.h"

/* Migration N takes a catalog from schema N-1 to N; each is a list of
 * single statements in the SQL both databases speak. A new version adds a
 * list and never edits an old one. */
static const char *const schema_1[] = {
	"CREATE TABLE files (host TEXT NOT NULL, path TEXT NOT NULL, sha256 TEXT, kind TEXT NOT NULL, why TEXT,"
	" timestamp INTEGER NOT NULL DEFAULT 0, indexed_at TEXT NOT NULL, PRIMARY KEY (host, path))",
	"CREATE INDEX files_by_sha256 ON files (sha256)",
	"CREATE TABLE documents (sha256 TEXT PRIMARY KEY, body TEXT NOT NULL)",
	"CREATE TABLE receipts (sha256 TEXT PRIMARY KEY, kind TEXT, command TEXT, host TEXT, result TEXT,"
	" finished TEXT, comparable TEXT, seal TEXT, root TEXT, inputs TEXT NOT NULL, intact INTEGER NOT NULL,"
	" from_archive INTEGER NOT NULL)",
	"CREATE INDEX receipts_by_seal ON receipts (seal)",
	"CREATE TABLE receipt_inputs (receipt TEXT NOT NULL, sha256 TEXT NOT NULL, PRIMARY KEY (receipt, sha256))",
	"CREATE INDEX receipt_inputs_by_sha256 ON receipt_inputs (sha256)",
	"CREATE TABLE seals (sha256 TEXT PRIMARY KEY, root TEXT NOT NULL)",
	"CREATE TABLE seal_members (seal TEXT NOT NULL, sha256 TEXT NOT NULL, PRIMARY KEY (seal, sha256))",
	"CREATE INDEX seal_members_by_sha256 ON seal_members (sha256)",
	"CREATE TABLE summaries (sha256 TEXT PRIMARY KEY, plan TEXT, plan_sha256 TEXT, captured TEXT, seal TEXT,"
	" runs INTEGER NOT NULL)",
	"CREATE INDEX summaries_by_plan ON summaries (plan)",
	"CREATE TABLE cell_statistics (summary TEXT NOT NULL, arm TEXT NOT NULL, cell TEXT NOT NULL,"
	" statistic TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (summary, arm, cell, statistic))",
};

struct migration {
	const char *const *statements;
	size_t n;
};

static const struct migration migrations[EV_CATALOG_SCHEMA] = {
	{schema_1, sizeof schema_1 / sizeof *schema_1},
};

ev_status ev_catalog_default(char *out, size_t cap, struct ev_error *err)
{
	const char *data = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
	char dir[4096];
	if (data && data[0] == '/')
		snprintf(dir, sizeof dir, "%s/evidence", data);
	else if (home && home[0] == '/')
		snprintf(dir, sizeof dir, "%s/.local/share/evidence", home);
	else
		return ev_error_set(err, EV_ERROR, "no catalog named and neither XDG_DATA_HOME nor HOME is set; "
				    "give --catalog PATH");
	/* each level, as mkdir -p would, the last one the user's alone */
	for (char *p = dir + 1;; p++) {
		int last = *p == '\0';
		if (*p == '/' || last) {
			char keep = *p;
			*p = '\0';
			if (mkdir(dir, last ? 0700 : 0755) != 0 && errno != EEXIST)
				return ev_error_errno(err, errno, "%s: cannot make the catalog's directory", dir);
			*p = keep;
		}
		if (last)
			break;
	}
	if ((size_t)snprintf(out, cap, "%s/catalog.sqlite", dir) >= cap)
		return ev_error_set(err, EV_ERROR, "%s: the catalog's path is too long", dir);
	return EV_OK;
}

const char *ev_catalog_configured(void)
{
	const char *c = getenv("EVIDENCE_CATALOG");
	return c && *c ? c : NULL;
}

static ev_status schema_version(struct ev_catalog *c, long *version, struct ev_error *err)
{
	char text[64];
	int found;
	ev_status st = ev_db_query_text(c->db, "SELECT value FROM catalog_meta WHERE key = 'schema'", 0, NULL, text,
					sizeof text, &found, err);
	*version = 0;
	if (st == EV_OK && found) {
		char *end;
		errno = 0;
		*version = strtol(text, &end, 10);
		if (errno || *end || *version < 1)
			return ev_error_set(err, EV_REFUSED, "catalog %s: its schema version is '%s'; expected a number "
					    "(is it a catalog?)", c->where, text);
	}
	return st;
}

static ev_status migrate(struct ev_catalog *c, struct ev_error *err)
{
	long version = 0;
	ev_status st = ev_db_begin_exclusive(c->db, err);
	if (st == EV_OK)
		st = ev_db_exec(c->db, "CREATE TABLE IF NOT EXISTS catalog_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
				0, NULL, err);
	if (st == EV_OK)
		st = schema_version(c, &version, err);
	if (st == EV_OK && version > EV_CATALOG_SCHEMA)
		st = ev_error_set(err, EV_REFUSED, "catalog %s: its schema is version %ld, newer than this evidence knows "
				  "(%d); nothing was read or written: use evidence %s's successor that made it, or "
				  "another catalog", c->where, version, EV_CATALOG_SCHEMA, PACKAGE_VERSION);
	for (long v = version + 1; st == EV_OK && v <= EV_CATALOG_SCHEMA; v++) {
		const struct migration *m = &migrations[v - 1];
		for (size_t i = 0; i < m->n && st == EV_OK; i++)
			st = ev_db_exec(c->db, m->statements[i], 0, NULL, err);
		char text[32];
		snprintf(text, sizeof text, "%ld", v);
		const char *p[] = {text};
		if (st == EV_OK)
			st = ev_db_exec(c->db,
					"INSERT INTO catalog_meta (key, value) VALUES ('schema', $1) "
					"ON CONFLICT (key) DO UPDATE SET value = excluded.value",
					1, p, err);
		if (st != EV_OK)
			ev_error_wrap(err, "catalog %s: migrating its schema to version %ld", c->where, v);
	}
	if (st == EV_OK)
		st = ev_db_commit(c->db, err);
	if (st != EV_OK)
		ev_db_rollback(c->db);
	return st;
}

ev_status ev_catalog_open(const char *where, struct ev_catalog **out, struct ev_error *err)
{
	*out = NULL;
	struct ev_catalog *c = calloc(1, sizeof *c);
	if (!c)
		return ev_error_set(err, EV_ERROR, "out of memory");
	if (gethostname(c->host, sizeof c->host - 1) != 0)
		snprintf(c->host, sizeof c->host, "unknown");
	char fallback[PATH_MAX];
	ev_status st = EV_OK;
	if (!where && !(where = ev_catalog_configured()) && (st = ev_catalog_default(fallback, sizeof fallback, err)) == EV_OK)
		where = fallback;
	if (st == EV_OK)
		st = ev_db_open(where, &c->db, err);
	if (st == EV_OK) {
		snprintf(c->where, sizeof c->where, "%s", ev_db_where(c->db));
		st = migrate(c, err);
	}
	if (st == EV_ERROR && c->db && ev_db_damaged(c->db)) /* a finding about the file, not our failure */
		st = EV_MISMATCH;
	if (st != EV_OK) {
		ev_catalog_close(c);
		return st;
	}
	*out = c;
	return EV_OK;
}

void ev_catalog_close(struct ev_catalog *c)
{
	if (!c)
		return;
	ev_db_close(c->db);
	free(c);
}

const char *ev_catalog_where(const struct ev_catalog *c)
{
	return c->where;
}

const char *ev_catalog_host(const struct ev_catalog *c)
{
	return c->host;
}

int ev_catalog_damaged(const struct ev_catalog *c)
{
	return ev_db_damaged(c->db);
}

/* Queries */

struct digests {
	char (*list)[65];
	size_t n, cap;
	int failed;
};

static int digest_row(void *ctx, size_t ncols, const char *const *v)
{
	struct digests *d = ctx;
	if (!ncols || !v[0] || strlen(v[0]) != 64)
		return 0;
	if (ev_grow_array(&d->list, &d->cap, d->n + 1, sizeof *d->list) != 0) {
		d->failed = 1;
		return 1;
	}
	memcpy(d->list[d->n++], v[0], 65);
	return 0;
}

struct text_call {
	char *text;
	int failed;
};

static int text_row(void *ctx, size_t ncols, const char *const *v)
{
	struct text_call *t = ctx;
	if (ncols && v[0] && !(t->text = strdup(v[0])))
		t->failed = 1;
	return 1;
}

/* The bytes the documents table holds for hex (malloc'd), or NULL. */
static ev_status document_of(struct ev_catalog *c, const char *hex, char **body, struct ev_error *err)
{
	const char *p[] = {hex};
	struct text_call t = {0};
	ev_status st = ev_db_query(c->db, "SELECT body FROM documents WHERE sha256 = $1", 1, p, text_row, &t, err);
	if (st == EV_OK && t.failed)
		st = ev_error_set(err, EV_ERROR, "out of memory");
	*body = st == EV_OK ? t.text : (free(t.text), NULL);
	return st;
}

ev_status ev_catalog_seal(struct ev_catalog *c, const char *seal_hex, char *root, size_t cap,
			  char (**digests)[65], size_t *n, int *found, char *doubt, size_t doubt_cap,
			  struct ev_error *err)
{
	const char *p[] = {seal_hex};
	struct digests d = {0};
	char row_root[256], *body = NULL, *doc_root = NULL;
	*digests = NULL;
	*n = 0;
	doubt[0] = '\0';
	root[0] = '\0';
	ev_status st = ev_db_query_text(c->db, "SELECT root FROM seals WHERE sha256 = $1", 1, p, row_root,
					sizeof row_root, found, err);
	if (st == EV_OK && *found)
		st = ev_db_query(c->db, "SELECT sha256 FROM seal_members WHERE seal = $1 ORDER BY sha256", 1, p,
				 digest_row, &d, err);
	if (st == EV_OK && d.failed)
		st = ev_error_set(err, EV_ERROR, "out of memory");
	if (st == EV_OK && *found)
		st = document_of(c, seal_hex, &body, err);
	if (st == EV_OK && *found)
		st = ev_catalog_seal_believed(seal_hex, body, row_root, d.list, d.n, &doc_root, digests, n, doubt,
					      doubt_cap, err);
	if (st == EV_OK && doc_root)
		snprintf(root, cap, "%s", doc_root);
	free(d.list);
	free(body);
	if (st != EV_OK || !doc_root) { /* no document to take them from */
		free(*digests);
		*digests = NULL;
		*n = 0;
	}
	free(doc_root);
	return st;
}

/* A summary's file rows, gathered before any is judged: judging one asks
 * the database again. */
struct summary_row {
	char *sha256, *host, *path, *plan_sha256, *body, *plan, *captured, *seal, *runs;
};

struct summary_rows {
	struct summary_row *list;
	size_t n, cap;
	int failed;
};

static char *dup_or_null(const char *s, int *failed)
{
	char *d = s ? strdup(s) : NULL;
	if (s && !d)
		*failed = 1;
	return d;
}

static int gather_summary(void *ctx, size_t ncols, const char *const *v)
{
	struct summary_rows *rs = ctx;
	if (ncols < 9 || !v[0])
		return 0;
	if (ev_grow_array(&rs->list, &rs->cap, rs->n + 1, sizeof *rs->list) != 0) {
		rs->failed = 1;
		return 1;
	}
	struct summary_row *r = &rs->list[rs->n++];
	char **fields[] = {&r->sha256, &r->host, &r->path, &r->plan_sha256, &r->body,
			   &r->plan, &r->captured, &r->seal, &r->runs};
	for (size_t i = 0; i < 9; i++)
		*fields[i] = dup_or_null(v[i], &rs->failed);
	return rs->failed;
}

static void summary_rows_free(struct summary_rows *rs)
{
	for (size_t i = 0; i < rs->n; i++) {
		struct summary_row *r = &rs->list[i];
		free(r->sha256), free(r->host), free(r->path), free(r->plan_sha256), free(r->body);
		free(r->plan), free(r->captured), free(r->seal), free(r->runs);
	}
	free(rs->list);
}

/* The plan digest the audit receipt beside one copy of a summary names, as
 * the catalog holds that receipt's document (its bytes held to its digest):
 * what the index read from the file beside it, read again. */
static ev_status plan_beside(struct ev_catalog *c, const char *host, const char *path, const char *summary_hex,
			     const struct ev_trust *trust, int *trusted, char *out, size_t cap, struct ev_error *err)
{
	out[0] = '\0';
	*trusted = 0;
	char beside[PATH_MAX];
	const char *slash = strrchr(path, '/');
	if (!slash || (size_t)(slash - path) + sizeof "/receipt.json" > sizeof beside)
		return EV_OK;
	snprintf(beside, sizeof beside, "%.*s/receipt.json", (int)(slash - path), path);
	const char *p[] = {host, beside};
	char hex[EV_SHA256_HEX_LEN + 1], *body = NULL, doubt[256];
	int found;
	ev_status st = ev_db_query_text(c->db,
					"SELECT sha256 FROM files WHERE host = $1 AND path = $2 AND kind = 'receipt'", 2, p,
					hex, sizeof hex, &found, err);
	if (st == EV_OK && found)
		st = document_of(c, hex, &body, err);
	json_t *r = NULL;
	if (st == EV_OK && found && ev_catalog_document_holds(hex, body, doubt, sizeof doubt))
		r = json_loads(body, 0, NULL);
	free(body);
	const char *out_sha = r ? ev_receipt_output_sha256(r, "summary.json") : NULL;
	const char *plan = r ? ev_receipt_input_sha256(r, "plan") : NULL;
	int names_it = r && strcmp(ev_receipt_kind(r) ?: "", "audit") == 0 && out_sha && strcmp(out_sha, summary_hex) == 0;
	if (names_it && plan && ev_sha256_hex_valid(plan))
		snprintf(out, cap, "%s", plan);
	if (names_it && trust) {
		char signer[EV_SHA256_HEX_LEN + 1], why[256];
		struct ev_error ignored;
		ev_error_clear(&ignored);
		*trusted = ev_receipt_check_signature(r, trust, signer, why, sizeof why, &ignored) == EV_OK;
	}
	json_decref(r);
	return st;
}

struct statistic_rows {
	json_t *expected; /* "arm\037cell\037statistic" -> value, from the document */
	char *doubt;
	size_t cap;
	size_t edited; /* rows that differ: the first few named, the rest counted */
};

#define STATISTICS_NAMED 3

static int expect_statistic(void *ctx, const char *arm, const char *cell, const char *statistic, const char *value)
{
	struct statistic_rows *sr = ctx;
	char key[512];
	snprintf(key, sizeof key, "%s\037%s\037%s", arm, cell, statistic);
	if (!json_object_get(sr->expected, key)) /* the index keeps the first of a repeated cell */
		json_object_set_new(sr->expected, key, json_string(value));
	return 0;
}

static void append_doubt(char *doubt, size_t cap, const char *what)
{
	size_t len = strlen(doubt);
	if (len + 1 < cap)
		snprintf(doubt + len, cap - len, "%s%s", len ? "; " : "row-edited: ", what);
}

static int held_statistic(void *ctx, size_t ncols, const char *const *v)
{
	struct statistic_rows *sr = ctx;
	if (ncols < 4 || !v[0] || !v[1] || !v[2] || !v[3])
		return 0;
	char key[512], what[768];
	snprintf(key, sizeof key, "%s\037%s\037%s", v[0], v[1], v[2]);
	const char *want = json_string_value(json_object_get(sr->expected, key));
	if ((!want || strcmp(want, v[3]) != 0) && sr->edited++ < STATISTICS_NAMED) {
		snprintf(what, sizeof what, "cell_statistics (%s of %s/%s) says %s, its document says %s", v[2], v[0], v[1],
			 v[3], want ? want : "nothing");
		append_doubt(sr->doubt, sr->cap, what);
	}
	if (want)
		json_object_del(sr->expected, key);
	return 0;
}

/* Holds one summary's row and statistics to its document (and the plan
 * digest to the audit receipt beside a copy of it): doubt empty when they
 * agree. copies: every file row of these bytes (each may have a receipt
 * beside it). */
struct summary_word {
	int usable;                          /* a whole document of the plan asked for */
	int trusted;                         /* an audit receipt naming it is signed by a key of the trust list */
	char plan_sha256[EV_SHA256_HEX_LEN + 1]; /* named by an audit receipt beside a copy; "" none */
	char captured[64];                   /* its last capture's end; "" none */
};

static ev_status summary_believed(struct ev_catalog *c, const char *plan, const struct ev_trust *trust,
				  const struct summary_row *r, const struct summary_row *copies, size_t ncopies,
				  struct summary_word *word, char *doubt, size_t cap, struct ev_error *err)
{
	doubt[0] = '\0';
	memset(word, 0, sizeof *word);
	if (!ev_catalog_document_holds(r->sha256, r->body, doubt, cap))
		return EV_OK;
	json_error_t je;
	json_t *doc = json_loads(r->body, 0, &je);
	if (!doc) {
		snprintf(doubt, cap, "document-corrupt: its bytes are not JSON: %s", je.text);
		return EV_OK;
	}
	const char *campaign = json_string_value(json_object_get(doc, "campaign"));
	word->usable = campaign && strcmp(campaign, plan) == 0;
	snprintf(word->captured, sizeof word->captured, "%s", ev_catalog_summary_captured(doc) ?: "");
	char runs[32], what[512];
	snprintf(runs, sizeof runs, "%zu", json_array_size(json_object_get(doc, "runs")));
	const char *prov_seal = json_string_value(json_object_get(json_object_get(doc, "provenance"), "seal_sha256"));
	const struct {
		const char *column, *says, *document;
	} checks[] = {
		{"summaries.plan", r->plan, json_string_value(json_object_get(doc, "campaign"))},
		{"summaries.captured", r->captured, ev_catalog_summary_captured(doc)},
		{"summaries.seal", r->seal, prov_seal},
		{"summaries.runs", r->runs, runs},
	};
	for (size_t i = 0; i < sizeof checks / sizeof *checks; i++)
		if (!((!checks[i].says && !checks[i].document) ||
		      (checks[i].says && checks[i].document && strcmp(checks[i].says, checks[i].document) == 0))) {
			snprintf(what, sizeof what, "%s says %s, its document says %s", checks[i].column,
				 checks[i].says ? checks[i].says : "nothing", checks[i].document ? checks[i].document : "nothing");
			append_doubt(doubt, cap, what);
		}
	/* the plan digest: one that an audit receipt beside a copy names */
	ev_status st = EV_OK;
	int named = 0, any = 0;
	for (size_t i = 0; i < ncopies && st == EV_OK && (!named || (trust && !word->trusted)); i++) {
		char beside[EV_SHA256_HEX_LEN + 1];
		int trusted;
		st = plan_beside(c, copies[i].host, copies[i].path, r->sha256, trust, &trusted, beside, sizeof beside, err);
		word->trusted |= trusted;
		if (beside[0] && !any) /* the first, as the index keeps it */
			snprintf(word->plan_sha256, sizeof word->plan_sha256, "%s", beside);
		any |= beside[0] != '\0';
		if (beside[0] && r->plan_sha256 && strcmp(beside, r->plan_sha256) == 0 && !named) {
			named = 1; /* the row's own, as the index kept it */
			snprintf(word->plan_sha256, sizeof word->plan_sha256, "%s", beside);
		}
	}
	if (st == EV_OK && !named && (r->plan_sha256 || any)) {
		snprintf(what, sizeof what, "summaries.plan_sha256 says %s, %s", r->plan_sha256 ? r->plan_sha256 : "nothing",
			 any ? "the audit receipt beside it names another" : "no audit receipt beside it names one");
		append_doubt(doubt, cap, what);
	}
	struct statistic_rows sr = {json_object(), doubt, cap, 0};
	if (st == EV_OK && !sr.expected)
		st = ev_error_set(err, EV_ERROR, "out of memory");
	if (st == EV_OK)
		ev_catalog_summary_statistics(doc, expect_statistic, &sr);
	const char *p[] = {r->sha256};
	if (st == EV_OK)
		st = ev_db_query(c->db, "SELECT arm, cell, statistic, value FROM cell_statistics WHERE summary = $1", 1, p,
				 held_statistic, &sr, err);
	if (st == EV_OK && sr.edited > STATISTICS_NAMED) {
		snprintf(what, sizeof what, "and %zu more cell_statistics rows", sr.edited - STATISTICS_NAMED);
		append_doubt(doubt, cap, what);
	}
	if (st == EV_OK && json_object_size(sr.expected)) {
		snprintf(what, sizeof what, "cell_statistics lacks %zu of the statistics its document holds",
			 json_object_size(sr.expected));
		append_doubt(doubt, cap, what);
	}
	json_decref(sr.expected);
	json_decref(doc);
	return st;
}

ev_status ev_catalog_summaries(struct ev_catalog *c, const char *plan, const struct ev_trust *trust,
			       ev_catalog_summary_fn fn, void *ctx, struct ev_error *err)
{
	struct summary_rows rs = {0};
	const char *p[] = {plan};
	ev_status st = ev_db_query(c->db,
				   "SELECT s.sha256, f.host, f.path, s.plan_sha256, d.body, s.plan, s.captured, s.seal,"
				   " s.runs FROM summaries s"
				   " JOIN files f ON f.sha256 = s.sha256 AND f.kind = 'summary'"
				   " LEFT JOIN documents d ON d.sha256 = s.sha256 WHERE s.plan = $1"
				   " ORDER BY s.captured, s.sha256,"
				   " CASE WHEN f.path LIKE '%/summary.json' THEN 0 ELSE 1 END, f.host, f.path",
				   1, p, gather_summary, &rs, err);
	if (st == EV_OK && rs.failed)
		st = ev_error_set(err, EV_ERROR, "out of memory");
	/* each summary once (the same bytes found again: shown at the first),
	 * held to its document, then given in the order its document says */
	struct judged {
		size_t first, end;
		struct summary_word word;
		char *doubt;
	} *js = calloc(rs.n ? rs.n : 1, sizeof *js);
	size_t nj = 0;
	if (st == EV_OK && !js)
		st = ev_error_set(err, EV_ERROR, "out of memory");
	for (size_t i = 0; i < rs.n && st == EV_OK;) {
		size_t end = i + 1;
		while (end < rs.n && strcmp(rs.list[end].sha256, rs.list[i].sha256) == 0)
			end++;
		char doubt[2048];
		struct judged *j = &js[nj++];
		j->first = i, j->end = end;
		st = summary_believed(c, plan, trust, &rs.list[i], &rs.list[i], end - i, &j->word, doubt, sizeof doubt, err);
		if (st == EV_OK && doubt[0] && !(j->doubt = strdup(doubt)))
			st = ev_error_set(err, EV_ERROR, "out of memory");
		i = end;
	}
	/* by the document's capture time, then by the bytes: a stable insertion sort,
	 * for the rows come nearly in that order already */
	for (size_t i = 1; i < nj && st == EV_OK; i++) {
		struct judged key = js[i];
		size_t k = i;
		while (k > 0) {
			int by = strcmp(js[k - 1].word.captured, key.word.captured);
			if (by < 0 || (by == 0 && strcmp(rs.list[js[k - 1].first].sha256, rs.list[key.first].sha256) <= 0))
				break;
			js[k] = js[k - 1];
			k--;
		}
		js[k] = key;
	}
	for (size_t i = 0; i < nj && st == EV_OK; i++) {
		const struct summary_row *r = &rs.list[js[i].first];
		struct ev_catalog_summary s = {.sha256 = r->sha256, .host = r->host, .path = r->path,
					       .plan_sha256 = js[i].word.plan_sha256[0] ? js[i].word.plan_sha256 : NULL,
					       .body = r->body, .doubt = js[i].doubt, .usable = js[i].word.usable,
					       .trusted = js[i].word.trusted};
		st = fn(ctx, &s, err);
	}
	for (size_t i = 0; i < nj; i++)
		free(js[i].doubt);
	free(js);
	summary_rows_free(&rs);
	return st;
}
