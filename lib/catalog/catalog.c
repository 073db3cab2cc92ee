/* SPDX-License-Identifier: Apache-2.0 */
/* catalog: seals, receipts and summaries indexed in SQLite or PostgreSQL
 * (catalog.h); the schema and its migrations, and the queries. What one
 * file becomes is catalog_index.c. */
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

/* Queries */

struct files_call {
	ev_catalog_file_fn fn;
	void *ctx;
	struct ev_error *err;
	ev_status st;
};

#define FILE_COLUMNS                                                                                          \
	"f.host, f.path, f.sha256, f.kind, f.why, f.timestamp, r.kind, r.command, r.host, r.result, r.finished,  \
	 r.comparable, r.seal, r.root, r.inputs, r.intact, r.from_archive"

static int file_row(void *ctx, size_t ncols, const char *const *v)
{
	struct files_call *call = ctx;
	if (ncols < 17)
		return 1;
	struct ev_catalog_file f = {
		.host = v[0], .path = v[1], .sha256 = v[2], .kind = v[3], .why = v[4],
		.timestamp = v[5] && strcmp(v[5], "1") == 0,
		.receipt_kind = v[6], .command = v[7], .receipt_host = v[8], .result = v[9], .finished = v[10],
		.comparable = v[11], .seal = v[12], .root = v[13], .inputs = v[14],
		.intact = v[15] && strcmp(v[15], "1") == 0, .from_archive = v[16] && strcmp(v[16], "1") == 0,
		.body = ncols > 17 ? v[17] : NULL,
	};
	call->st = call->fn(call->ctx, &f, call->err);
	return call->st != EV_OK;
}

ev_status ev_catalog_files(struct ev_catalog *c, const char *seal_hex, unsigned flags, ev_catalog_file_fn fn,
			   void *ctx, struct ev_error *err)
{
	struct files_call call = {fn, ctx, err, EV_OK};
	static const char *const all =
		"SELECT " FILE_COLUMNS " FROM files f LEFT JOIN receipts r ON r.sha256 = f.sha256";
	static const char *const all_bodies =
		"SELECT " FILE_COLUMNS ", d.body FROM files f LEFT JOIN receipts r ON r.sha256 = f.sha256"
		" LEFT JOIN documents d ON d.sha256 = f.sha256 AND f.kind = 'receipt'";
	/* each arm of the union is one index's lookup */
#define ONE_CAMPAIGN                                                                                          \
	" WHERE f.sha256 IN (SELECT CAST($1 AS TEXT) UNION SELECT sha256 FROM receipts WHERE seal = $1"                    \
	" UNION SELECT i.receipt FROM seal_members m JOIN receipt_inputs i ON i.sha256 = m.sha256 WHERE m.seal = $1" \
	" UNION SELECT sha256 FROM seal_members WHERE seal = $1)"
	static const char *const one = "SELECT " FILE_COLUMNS " FROM files f LEFT JOIN receipts r ON r.sha256 = f.sha256"
		ONE_CAMPAIGN;
	static const char *const one_bodies =
		"SELECT " FILE_COLUMNS ", d.body FROM files f LEFT JOIN receipts r ON r.sha256 = f.sha256"
		" LEFT JOIN documents d ON d.sha256 = f.sha256 AND f.kind = 'receipt'" ONE_CAMPAIGN;
#undef ONE_CAMPAIGN
	int bodies = (flags & EV_CATALOG_BODIES) != 0;
	const char *p[] = {seal_hex};
	ev_status st = seal_hex ? ev_db_query(c->db, bodies ? one_bodies : one, 1, p, file_row, &call, err)
				: ev_db_query(c->db, bodies ? all_bodies : all, 0, NULL, file_row, &call, err);
	return st != EV_OK ? st : call.st;
}

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
	if (d->n == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 256;
		char (*grown)[65] = realloc(d->list, cap * sizeof *grown);
		if (!grown) {
			d->failed = 1;
			return 1;
		}
		d->list = grown;
		d->cap = cap;
	}
	memcpy(d->list[d->n++], v[0], 65);
	return 0;
}

ev_status ev_catalog_seal(struct ev_catalog *c, const char *seal_hex, char *root, size_t cap,
			  char (**digests)[65], size_t *n, int *found, struct ev_error *err)
{
	const char *p[] = {seal_hex};
	struct digests d = {0};
	*digests = NULL;
	*n = 0;
	ev_status st = ev_db_query_text(c->db, "SELECT root FROM seals WHERE sha256 = $1", 1, p, root, cap, found, err);
	if (st == EV_OK && *found)
		st = ev_db_query(c->db, "SELECT sha256 FROM seal_members WHERE seal = $1 ORDER BY sha256", 1, p,
				 digest_row, &d, err);
	if (st == EV_OK && d.failed)
		st = ev_error_set(err, EV_ERROR, "out of memory");
	if (st != EV_OK) {
		free(d.list);
		return st;
	}
	*digests = d.list;
	*n = d.n;
	return EV_OK;
}

struct summaries_call {
	ev_catalog_summary_fn fn;
	void *ctx;
	struct ev_error *err;
	ev_status st;
	char last[65];
};

static int summary_row(void *ctx, size_t ncols, const char *const *v)
{
	struct summaries_call *call = ctx;
	if (ncols < 5 || !v[0])
		return 0;
	if (strcmp(call->last, v[0]) == 0) /* the same bytes found again */
		return 0;
	snprintf(call->last, sizeof call->last, "%s", v[0]);
	struct ev_catalog_summary s = {.sha256 = v[0], .host = v[1], .path = v[2], .plan_sha256 = v[3], .body = v[4]};
	call->st = call->fn(call->ctx, &s, call->err);
	return call->st != EV_OK;
}

ev_status ev_catalog_summaries(struct ev_catalog *c, const char *plan, ev_catalog_summary_fn fn, void *ctx,
			       struct ev_error *err)
{
	struct summaries_call call = {.fn = fn, .ctx = ctx, .err = err};
	const char *p[] = {plan};
	ev_status st = ev_db_query(c->db,
				   "SELECT s.sha256, f.host, f.path, s.plan_sha256, d.body FROM summaries s"
				   " JOIN files f ON f.sha256 = s.sha256 AND f.kind = 'summary'"
				   " JOIN documents d ON d.sha256 = s.sha256 WHERE s.plan = $1"
				   " ORDER BY s.captured, s.sha256,"
				   " CASE WHEN f.path LIKE '%/summary.json' THEN 0 ELSE 1 END, f.host, f.path",
				   1, p, summary_row, &call, err);
	return st != EV_OK ? st : call.st;
}

ev_status ev_catalog_cell_statistic(struct ev_catalog *c, const char *summary_sha256, const char *arm,
				    const char *cell, const char *statistic, char *out, size_t cap, int *found,
				    struct ev_error *err)
{
	const char *p[] = {summary_sha256, arm, cell, statistic};
	return ev_db_query_text(c->db,
				"SELECT value FROM cell_statistics WHERE summary = $1 AND arm = $2 AND cell = $3"
				" AND statistic = $4",
				4, p, out, cap, found, err);
}
