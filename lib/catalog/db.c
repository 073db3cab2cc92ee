/* SPDX-License-Identifier: Apache-2.0 */
/* db: SQLite or PostgreSQL behind one small interface (db.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libpq-fe.h>
#include <sqlite3.h>

#include "lib/catalog/db.h"
#include "lib/core/dynlib.h"

/* libpq, opened by the first postgresql:// catalog a process opens, not
 * at every start (lib/core/dynlib.h). Its soname is its ABI since
 * PostgreSQL 8.2. */
static struct {
	__typeof__(PQclear) *PQclear;
	__typeof__(PQconnectdb) *PQconnectdb;
	__typeof__(PQerrorMessage) *PQerrorMessage;
	__typeof__(PQexec) *PQexec;
	__typeof__(PQexecParams) *PQexecParams;
	__typeof__(PQenterPipelineMode) *PQenterPipelineMode;
	__typeof__(PQexitPipelineMode) *PQexitPipelineMode;
	__typeof__(PQfinish) *PQfinish;
	__typeof__(PQgetResult) *PQgetResult;
	__typeof__(PQgetisnull) *PQgetisnull;
	__typeof__(PQgetvalue) *PQgetvalue;
	__typeof__(PQnfields) *PQnfields;
	__typeof__(PQntuples) *PQntuples;
	__typeof__(PQresultErrorField) *PQresultErrorField;
	__typeof__(PQresultErrorMessage) *PQresultErrorMessage;
	__typeof__(PQpipelineSync) *PQpipelineSync;
	__typeof__(PQresultStatus) *PQresultStatus;
	__typeof__(PQsendQueryParams) *PQsendQueryParams;
	__typeof__(PQstatus) *PQstatus;
} pq;
#define PQ_SYMBOL(name) {#name, (void **)&pq.name}
static const struct ev_dynlib_symbol pq_symbols[] = {
	PQ_SYMBOL(PQclear),
	PQ_SYMBOL(PQconnectdb),
	PQ_SYMBOL(PQerrorMessage),
	PQ_SYMBOL(PQexec),
	PQ_SYMBOL(PQexecParams),
	PQ_SYMBOL(PQenterPipelineMode),
	PQ_SYMBOL(PQexitPipelineMode),
	PQ_SYMBOL(PQfinish),
	PQ_SYMBOL(PQgetResult),
	PQ_SYMBOL(PQgetisnull),
	PQ_SYMBOL(PQgetvalue),
	PQ_SYMBOL(PQnfields),
	PQ_SYMBOL(PQntuples),
	PQ_SYMBOL(PQresultErrorField),
	PQ_SYMBOL(PQresultErrorMessage),
	PQ_SYMBOL(PQpipelineSync),
	PQ_SYMBOL(PQresultStatus),
	PQ_SYMBOL(PQsendQueryParams),
	PQ_SYMBOL(PQstatus),
};
static struct ev_dynlib libpq = EV_DYNLIB("libpq.so.5", "libpq5", "a PostgreSQL catalog", pq_symbols);

/* Statements are the catalog's string constants, so a few dozen prepared
 * ones cover every call; kept until close. */
#define STATEMENT_CACHE 64

struct cached {
	const char *sql; /* the caller's text, compared by content */
	sqlite3_stmt *stmt;
};

struct ev_db {
	char where[512];
	sqlite3 *lite;
	PGconn *pg;
	int in_transaction;
	size_t queued; /* PostgreSQL: writes sent in pipeline mode, their results not yet read */
	struct cached cache[STATEMENT_CACHE];
	size_t ncached;
	int damaged; /* the last failure was SQLite finding its file damaged */
};

int ev_db_is_server(const char *where)
{
	return strncmp(where, "postgresql://", 13) == 0 || strncmp(where, "postgres://", 11) == 0;
}

const char *ev_db_where(const struct ev_db *db)
{
	return db->where;
}

const char *ev_db_kind(const struct ev_db *db)
{
	return db->pg ? "postgresql" : "sqlite";
}

/* A server's URI may hold a password: errors name the server by what
 * follows the '@', or by the whole URI when it has none. */
static void shown_name(const char *where, char *out, size_t cap)
{
	const char *at = ev_db_is_server(where) ? strrchr(where, '@') : NULL;
	if (at)
		snprintf(out, cap, "postgresql://...@%s", at + 1);
	else
		snprintf(out, cap, "%s", where);
}

/* libpq's messages end with a newline and may run over lines. */
static void one_line(const char *in, char *out, size_t cap)
{
	size_t n = 0;
	for (; *in && n + 1 < cap; in++)
		out[n++] = (*in == '\n' || *in == '\r') ? ' ' : *in;
	while (n && out[n - 1] == ' ')
		n--;
	out[n] = '\0';
}

static int lite_damaged(struct ev_db *db)
{
	int code = sqlite3_errcode(db->lite) & 0xff;
	return code == SQLITE_CORRUPT || code == SQLITE_NOTADB;
}

/* SQLite's message (msg, or its last one), with the system's error where
 * a call of the file system failed: "disk I/O error" alone names neither. */
static const char *lite_why(struct ev_db *db, const char *msg, char *buf, size_t cap)
{
	int code = sqlite3_errcode(db->lite) & 0xff, sys = sqlite3_system_errno(db->lite);
	if (!msg)
		msg = sqlite3_errmsg(db->lite);
	if (code == SQLITE_FULL && !sys) /* SQLite reports a write's ENOSPC so, and forgets the errno */
		sys = ENOSPC;
	if (sys && (code == SQLITE_IOERR || code == SQLITE_FULL || code == SQLITE_CANTOPEN))
		snprintf(buf, cap, "%s (%s)", msg, strerror(sys));
	else
		snprintf(buf, cap, "%s", msg);
	return buf;
}

static ev_status lite_error(struct ev_db *db, const char *what, struct ev_error *err)
{
	char why[512];
	if ((db->damaged = lite_damaged(db)))
		return ev_error_set(err, EV_ERROR, "catalog %s: damaged: %s: %s; replicate index --check names what is "
				    "damaged", db->where, what, lite_why(db, NULL, why, sizeof why));
	return ev_error_set(err, EV_ERROR, "catalog %s: %s: %s", db->where, what, lite_why(db, NULL, why, sizeof why));
}

int ev_db_damaged(const struct ev_db *db)
{
	return db->damaged;
}

static ev_status open_sqlite(struct ev_db *db, const char *path, struct ev_error *err)
{
	struct stat sb;
	if (lstat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
		return ev_error_set(err, EV_USAGE, "catalog %s: is not a regular file; expected a SQLite catalog file or "
				    "postgresql://...", path);
	if (lstat(path, &sb) != 0) { /* a new catalog is the user's alone */
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			return ev_error_errno(err, errno, "catalog %s: cannot create it", path);
		if (fd >= 0)
			close(fd);
	}
	if (sqlite3_open_v2(path, &db->lite, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, NULL) != SQLITE_OK) {
		ev_status st = ev_error_set(err, EV_ERROR, "catalog %s: cannot open it: %s", path,
					    db->lite ? sqlite3_errmsg(db->lite) : "out of memory");
		return st;
	}
	sqlite3_busy_timeout(db->lite, 60000); /* another host's index waits, it does not fail */
	sqlite3_extended_result_codes(db->lite, 1);
	/* a catalog is a regular database, not some other file named so. Its
	 * page cache is 64 MiB, not SQLite's 2: an index of 100,000 receipts is
	 * one transaction, and a small cache spilled its pages to the WAL and
	 * read them back (20.0 s against 14.8 s, bench/catalog's tree of 10,000
	 * seals); a query reads only the pages it needs, so a short one costs
	 * nothing more. */
	char *msg = NULL;
	if (sqlite3_exec(db->lite, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON; PRAGMA cache_size=-65536;", NULL,
			 NULL, &msg) != SQLITE_OK) {
		char why[512];
		ev_error_set(err, EV_ERROR, "catalog %s: %s: %s", path,
			     lite_damaged(db) ? "not a SQLite database it can use" : "cannot use it",
			     lite_why(db, msg, why, sizeof why));
		sqlite3_free(msg);
		return EV_ERROR;
	}
	return EV_OK;
}

ev_status ev_db_open(const char *where, struct ev_db **out, struct ev_error *err)
{
	*out = NULL;
	struct ev_db *db = calloc(1, sizeof *db);
	if (!db)
		return ev_error_set(err, EV_ERROR, "out of memory");
	shown_name(where, db->where, sizeof db->where);
	ev_status st = EV_OK;
	if (ev_db_is_server(where)) {
		if (ev_dynlib_load(&libpq, err) != EV_OK) {
			ev_error_wrap(err, "catalog %s: cannot connect", db->where);
			free(db);
			return EV_ERROR;
		}
		db->pg = pq.PQconnectdb(where);
		if (!db->pg || pq.PQstatus(db->pg) != CONNECTION_OK) {
			char why[512];
			one_line(db->pg ? pq.PQerrorMessage(db->pg) : "out of memory", why, sizeof why);
			st = ev_error_set(err, EV_ERROR, "catalog %s: cannot connect: %s", db->where, why);
		} else {
			PGresult *r = pq.PQexec(db->pg, "SET client_min_messages = warning");
			pq.PQclear(r);
		}
	} else {
		st = open_sqlite(db, where, err);
	}
	if (st != EV_OK) {
		ev_db_close(db);
		return st;
	}
	*out = db;
	return EV_OK;
}

void ev_db_close(struct ev_db *db)
{
	if (!db)
		return;
	if (db->in_transaction)
		ev_db_rollback(db);
	for (size_t i = 0; i < db->ncached; i++)
		sqlite3_finalize(db->cache[i].stmt);
	if (db->lite)
		sqlite3_close(db->lite);
	if (db->pg)
		pq.PQfinish(db->pg);
	free(db);
}

/* $N becomes ?N: the one place the two dialects differ in our SQL. */
static char *sqlite_text(const char *sql)
{
	char *s = strdup(sql);
	if (!s)
		return NULL;
	for (char *p = s; *p; p++)
		if (*p == '$' && p[1] >= '0' && p[1] <= '9')
			*p = '?';
	return s;
}

static ev_status lite_prepare(struct ev_db *db, const char *sql, sqlite3_stmt **out, struct ev_error *err)
{
	for (size_t i = 0; i < db->ncached; i++)
		if (db->cache[i].sql == sql || strcmp(db->cache[i].sql, sql) == 0) {
			*out = db->cache[i].stmt;
			sqlite3_reset(*out);
			sqlite3_clear_bindings(*out);
			return EV_OK;
		}
	char *text = sqlite_text(sql);
	if (!text)
		return ev_error_set(err, EV_ERROR, "out of memory");
	int rc = sqlite3_prepare_v2(db->lite, text, -1, out, NULL);
	free(text);
	if (rc != SQLITE_OK)
		return lite_error(db, "a statement failed to prepare", err);
	if (db->ncached < STATEMENT_CACHE)
		db->cache[db->ncached++] = (struct cached){.sql = sql, .stmt = *out};
	return EV_OK;
}

static int is_cached(const struct ev_db *db, const sqlite3_stmt *stmt)
{
	for (size_t i = 0; i < db->ncached; i++)
		if (db->cache[i].stmt == stmt)
			return 1;
	return 0;
}

static ev_status lite_run(struct ev_db *db, const char *sql, size_t nparams, const char *const *params,
			  ev_db_row_fn row, void *ctx, struct ev_error *err)
{
	sqlite3_stmt *stmt;
	ev_status st = lite_prepare(db, sql, &stmt, err);
	if (st != EV_OK)
		return st;
	for (size_t i = 0; i < nparams; i++)
		if (params[i] ? sqlite3_bind_text(stmt, (int)i + 1, params[i], -1, SQLITE_TRANSIENT)
			      : sqlite3_bind_null(stmt, (int)i + 1)) {
			st = lite_error(db, "a value could not be bound", err);
			break;
		}
	int rc = SQLITE_DONE;
	while (st == EV_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		if (!row)
			continue;
		int n = sqlite3_column_count(stmt);
		const char *values[32];
		if (n > 32)
			n = 32;
		for (int c = 0; c < n; c++)
			values[c] = (const char *)sqlite3_column_text(stmt, c);
		if (row(ctx, (size_t)n, values)) {
			rc = SQLITE_DONE;
			break;
		}
	}
	if (st == EV_OK && rc != SQLITE_DONE)
		st = lite_error(db, "a statement failed", err);
	if (is_cached(db, stmt))
		sqlite3_reset(stmt);
	else
		sqlite3_finalize(stmt);
	return st;
}

/* A failed result, in the words every caller uses: the server gone (class
 * 08, the connection broke; 57P, the server is shutting down), or the
 * statement failed. */
static ev_status pg_failed(struct ev_db *db, PGresult *r, struct ev_error *err)
{
	char why[512];
	one_line(r && *pq.PQresultErrorMessage(r) ? pq.PQresultErrorMessage(r) : pq.PQerrorMessage(db->pg), why, sizeof why);
	const char *state = r ? pq.PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
	int gone = pq.PQstatus(db->pg) != CONNECTION_OK || !state || strncmp(state, "08", 2) == 0 ||
		   strncmp(state, "57P", 3) == 0;
	if (gone)
		return ev_error_set(err, EV_ERROR, "catalog %s: the server went away: %s", db->where, why);
	return ev_error_set(err, EV_ERROR, "catalog %s: a statement failed: %s", db->where, why);
}

/* Writes inside a transaction are sent without waiting for each answer
 * (libpq's pipeline mode): one round trip per batch, not per row, which was
 * most of an index into a server (12.7 s for 20,000 files). A batch this
 * size keeps both directions' buffers from filling while the other side
 * waits. */
#define PIPELINE_BATCH 256

/* Every queued write's result read, the first failure reported; pipeline
 * mode left, so the next statement runs as before. */
static ev_status pg_drain(struct ev_db *db, struct ev_error *err)
{
	if (!db->queued)
		return EV_OK;
	ev_status st = EV_OK;
	if (!pq.PQpipelineSync(db->pg))
		st = pg_failed(db, NULL, err);
	int nulls = 0; /* one NULL ends each statement's results; two in a row, nothing more will come */
	while (st == EV_OK || pq.PQstatus(db->pg) == CONNECTION_OK) {
		PGresult *r = pq.PQgetResult(db->pg);
		if (!r) {
			if (++nulls == 2 || pq.PQstatus(db->pg) != CONNECTION_OK) {
				if (st == EV_OK)
					st = pg_failed(db, NULL, err);
				break;
			}
			continue;
		}
		nulls = 0;
		ExecStatusType s = pq.PQresultStatus(r);
		int synced = s == PGRES_PIPELINE_SYNC;
		if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK && s != PGRES_PIPELINE_SYNC && s != PGRES_PIPELINE_ABORTED &&
		    st == EV_OK)
			st = pg_failed(db, r, err); /* the first; the ones after it were aborted */
		pq.PQclear(r);
		if (synced)
			break;
	}
	db->queued = 0;
	pq.PQexitPipelineMode(db->pg);
	return st;
}

/* A write inside a transaction, queued (sent, its answer read by the next
 * drain). */
static ev_status pg_queue(struct ev_db *db, const char *sql, size_t nparams, const char *const *params,
			  struct ev_error *err)
{
	if (!db->queued && !pq.PQenterPipelineMode(db->pg))
		return pg_failed(db, NULL, err);
	if (!pq.PQsendQueryParams(db->pg, sql, (int)nparams, NULL, params, NULL, NULL, 0)) {
		ev_status st = pg_failed(db, NULL, err);
		struct ev_error ignored; /* the send's failure is the one to report */
		ev_error_clear(&ignored);
		db->queued++;
		pg_drain(db, &ignored);
		return st;
	}
	return ++db->queued >= PIPELINE_BATCH ? pg_drain(db, err) : EV_OK;
}

/* A statement run now, its rows to row: every write queued before it
 * answered first. */
static ev_status pg_now(struct ev_db *db, const char *sql, size_t nparams, const char *const *params,
			ev_db_row_fn row, void *ctx, struct ev_error *err)
{
	ev_status st = pg_drain(db, err);
	if (st != EV_OK)
		return st;
	PGresult *r = pq.PQexecParams(db->pg, sql, (int)nparams, NULL, params, NULL, NULL, 0);
	ExecStatusType s = r ? pq.PQresultStatus(r) : PGRES_FATAL_ERROR;
	if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK) {
		st = pg_failed(db, r, err);
		pq.PQclear(r);
		return st;
	}
	int rows = pq.PQntuples(r), cols = pq.PQnfields(r);
	if (cols > 32)
		cols = 32;
	for (int i = 0; row && i < rows; i++) {
		const char *values[32];
		for (int c = 0; c < cols; c++)
			values[c] = pq.PQgetisnull(r, i, c) ? NULL : pq.PQgetvalue(r, i, c);
		if (row(ctx, (size_t)cols, values))
			break;
	}
	pq.PQclear(r);
	return EV_OK;
}

static ev_status pg_run(struct ev_db *db, const char *sql, size_t nparams, const char *const *params,
			ev_db_row_fn row, void *ctx, struct ev_error *err)
{
	if (!row && db->in_transaction)
		return pg_queue(db, sql, nparams, params, err);
	return pg_now(db, sql, nparams, params, row, ctx, err);
}

ev_status ev_db_query(struct ev_db *db, const char *sql, size_t nparams, const char *const *params,
		      ev_db_row_fn row, void *ctx, struct ev_error *err)
{
	return db->pg ? pg_run(db, sql, nparams, params, row, ctx, err)
		      : lite_run(db, sql, nparams, params, row, ctx, err);
}

ev_status ev_db_exec(struct ev_db *db, const char *sql, size_t nparams, const char *const *params,
		     struct ev_error *err)
{
	return ev_db_query(db, sql, nparams, params, NULL, NULL, err);
}

struct first_text {
	char *out;
	size_t cap;
	int *found;
};

static int keep_first(void *ctx, size_t ncols, const char *const *values)
{
	struct first_text *f = ctx;
	if (ncols && values[0]) {
		snprintf(f->out, f->cap, "%s", values[0]);
		*f->found = 1;
	}
	return 1;
}

ev_status ev_db_query_text(struct ev_db *db, const char *sql, size_t nparams, const char *const *params,
			   char *out, size_t cap, int *found, struct ev_error *err)
{
	struct first_text f = {out, cap, found};
	out[0] = '\0';
	*found = 0;
	return ev_db_query(db, sql, nparams, params, keep_first, &f, err);
}

/* Plain statements, outside the statement cache. */
/* BEGIN, COMMIT, ROLLBACK and the like: run now, never queued. */
static ev_status simple(struct ev_db *db, const char *sql, struct ev_error *err)
{
	if (db->pg)
		return pg_now(db, sql, 0, NULL, NULL, NULL, err);
	char *msg = NULL;
	if (sqlite3_exec(db->lite, sql, NULL, NULL, &msg) != SQLITE_OK) {
		char why[512];
		ev_error_set(err, EV_ERROR, "catalog %s: %s: %s", db->where, sql, lite_why(db, msg, why, sizeof why));
		sqlite3_free(msg);
		return EV_ERROR;
	}
	return EV_OK;
}

ev_status ev_db_begin(struct ev_db *db, struct ev_error *err)
{
	/* IMMEDIATE: a SQLite writer takes the lock now, so two writers wait
	 * for each other instead of one failing at its first write */
	ev_status st = simple(db, db->pg ? "BEGIN" : "BEGIN IMMEDIATE", err);
	db->in_transaction = st == EV_OK;
	return st;
}

ev_status ev_db_begin_exclusive(struct ev_db *db, struct ev_error *err)
{
	ev_status st = ev_db_begin(db, err);
	if (st == EV_OK && db->pg) /* the key is "evid" in ASCII: ours among any others */
		st = simple(db, "SELECT pg_advisory_xact_lock(1702259044)", err);
	return st;
}

ev_status ev_db_commit(struct ev_db *db, struct ev_error *err)
{
	ev_status st = simple(db, "COMMIT", err);
	if (st == EV_OK)
		db->in_transaction = 0;
	return st;
}

void ev_db_rollback(struct ev_db *db)
{
	struct ev_error ignored;
	ev_error_clear(&ignored);
	if (db->in_transaction)
		simple(db, "ROLLBACK", &ignored);
	db->in_transaction = 0;
}
