/* SPDX-License-Identifier: Apache-2.0 */
/* db: one SQL database, SQLite (a file) or PostgreSQL (a server), behind
 * the few calls the catalog needs. Statements are written once, with
 * PostgreSQL's $1..$N parameters (rewritten to SQLite's ?N), in the SQL
 * both speak; every value goes in and comes out as text (NULL is SQL NULL),
 * so the catalog never depends on either library's types.
 *
 * Where: "postgresql://..." or "postgres://..." (a libpq connection URI)
 * is a server; anything else is the path of a SQLite file, made when
 * missing. One struct ev_db per connection, one thread at a time. No global
 * state.
 */
#ifndef EV_CATALOG_DB_H
#define EV_CATALOG_DB_H

#include <stddef.h>

#include "lib/core/status.h"

struct ev_db;

/* Is this where a PostgreSQL server is named? */
int ev_db_is_server(const char *where);

/* Open (SQLite: create when missing, with 0600 if new and a busy timeout
 * that waits for another writer; PostgreSQL: connect).
 * @return EV_OK; EV_ERROR (cannot open or connect, said with where). */
ev_status ev_db_open(const char *where, struct ev_db **out, struct ev_error *err);

/* Close; NULL is fine. An open transaction is rolled back. */
void ev_db_close(struct ev_db *db);

/* How errors name it: the path, or the server's URI with whatever comes
 * before its '@' (a password) left out. */
const char *ev_db_where(const struct ev_db *db);

/* "sqlite" or "postgresql". */
const char *ev_db_kind(const struct ev_db *db);

/* Run one statement with nparams text parameters ($1..$N). Inside a
 * transaction on PostgreSQL it is sent without waiting for its answer
 * (pipeline mode, in batches): a failure is then reported by this call or
 * by the next query, commit or exec that reads the answers, and the
 * transaction is lost either way.
 * @return EV_OK; EV_ERROR with the database's own words and where. */
ev_status ev_db_exec(struct ev_db *db, const char *sql, size_t nparams, const char *const *params,
		     struct ev_error *err);

/* Was the last failure the engine finding its file damaged (SQLite's
 * SQLITE_CORRUPT, SQLITE_NOTADB)? Its error then says "damaged". */
int ev_db_damaged(const struct ev_db *db);

/* A row: ncols values as text, NULL for SQL NULL; valid during the call. */
typedef int (*ev_db_row_fn)(void *ctx, size_t ncols, const char *const *values);

/* Run one query and call row for each row in order; row returning nonzero
 * stops the query (EV_OK still). */
ev_status ev_db_query(struct ev_db *db, const char *sql, size_t nparams, const char *const *params,
		      ev_db_row_fn row, void *ctx, struct ev_error *err);

/* The first column of the first row, copied into out (empty and *found 0
 * when there is no row or it is NULL). */
ev_status ev_db_query_text(struct ev_db *db, const char *sql, size_t nparams, const char *const *params,
			   char *out, size_t cap, int *found, struct ev_error *err);

/* A write transaction. ev_db_begin_exclusive also holds every other
 * writer off until commit (SQLite: BEGIN IMMEDIATE; PostgreSQL: a
 * transaction-scoped advisory lock), for migrations.
 * ev_db_rollback never fails in a way the caller can mend; it is quiet. */
ev_status ev_db_begin(struct ev_db *db, struct ev_error *err);
ev_status ev_db_begin_exclusive(struct ev_db *db, struct ev_error *err);
ev_status ev_db_commit(struct ev_db *db, struct ev_error *err);
void ev_db_rollback(struct ev_db *db);

#endif
