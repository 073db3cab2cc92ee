/* SPDX-License-Identifier: Apache-2.0 */
/* catalog: an index of every seal, receipt and campaign summary found on
 * one or several hosts, in a SQLite file (one per host, the default) or a
 * PostgreSQL database (one for a whole lab). Schema and how each row is
 * made: doc/formats.md, "The catalog".
 *
 * Nothing in it is trusted on its own: every row carries the SHA-256 of the
 * file it came from (and the file's bytes, for a receipt, a seal or a
 * summary), so any answer can be held against the files again. A column
 * is an index, never the truth: what is judged is read again from the
 * document's bytes once they hash to the row's digest, and a row that says
 * otherwise is named, not used (catalog_believe.c). Every
 * index is one transaction: a crash or a lost server leaves the catalog as
 * it was. The schema is versioned: a catalog made by an older evidence is
 * migrated when opened, one made by a newer one is refused.
 *
 * One struct ev_catalog per connection, one thread at a time. No global
 * state.
 */
#ifndef EV_CATALOG_H
#define EV_CATALOG_H

#include <stddef.h>

#include <jansson.h>

#include "lib/core/meter.h"
#include "lib/core/status.h"

#define EV_CATALOG_SCHEMA 1 /* the schema this code writes and reads */

struct ev_catalog;

/* Where a catalog is when none is named: $XDG_DATA_HOME/evidence/catalog.sqlite,
 * else ~/.local/share/evidence/catalog.sqlite; the directories are made
 * (0700) when missing. @return EV_OK; EV_ERROR (no HOME, or mkdir failed). */
ev_status ev_catalog_default(char *out, size_t cap, struct ev_error *err);

/* The catalog every command adds what it writes to: the environment's
 * EVIDENCE_CATALOG, or NULL when none is configured. */
const char *ev_catalog_configured(void);

/* Open (a SQLite path, made when missing, or postgresql://...; NULL: the
 * configured one, else the default), migrate an older schema, refuse a
 * newer one.
 * @return EV_OK; EV_MISMATCH (SQLite finds the file damaged: err names
 *         it, a finding that exits 1); EV_REFUSED (a schema newer than
 *         EV_CATALOG_SCHEMA, said with both numbers); EV_USAGE (a path that
 *         is not a regular file); EV_ERROR (cannot open, connect or migrate). */
ev_status ev_catalog_open(const char *where, struct ev_catalog **out, struct ev_error *err);
void ev_catalog_close(struct ev_catalog *c);

/* How errors name it (a server's password left out), and this host's name
 * as the rows it writes carry it. */
const char *ev_catalog_where(const struct ev_catalog *c);
const char *ev_catalog_host(const struct ev_catalog *c);

/* 1 when the call that failed last found the database file damaged (SQLite
 * says so): a finding about the catalog, not a failure of the caller; the
 * error names it and replicate index --check names what is damaged. */
int ev_catalog_damaged(const struct ev_catalog *c);

/* What an index did. */
struct ev_catalog_counts {
	size_t receipts, seals, summaries; /* indexed now, new or changed */
	size_t sessions;                   /* registrations and session records (lib/campaign), indexed now */
	size_t unchanged;                  /* same path, same bytes as the row */
	size_t unreadable, skipped;        /* named, not indexed as evidence */
	size_t removed;                    /* rows of files that are gone */
};

#define EV_CATALOG_FORGET_MISSING 1u /* a directory's rows whose files are gone are removed */

/* Index every path: a directory is walked (lib/core/jsonwalk: every
 * *.json, links never followed), a file is read alone; each is kept by its
 * absolute path on this host. A receipt, a seal or a campaign summary is
 * indexed with its fields; a file that cannot be read as JSON is kept as
 * unreadable with why, a non-regular one as skipped; other JSON is passed
 * by. All in one transaction, rolled back on any failure or when the
 * process's stop flag is set (lib/core/stop). meter (may be NULL) counts
 * files. @return EV_OK; EV_USAGE (a path that is neither a directory nor a
 * regular file); EV_INTERRUPTED; EV_ERROR (I/O, the database). */
ev_status ev_catalog_index(struct ev_catalog *c, const char *const *paths, size_t npaths, unsigned flags,
			   const struct ev_meter *meter, struct ev_catalog_counts *counts, struct ev_error *err);

/* A receipt's fields as its catalog row keeps them (receipt_kind ...
 * from_archive of struct ev_catalog_file below), taken from its document.
 * The index keeps them and the inventory's walk (lib/usecase/
 * replicate_status) judges them, so that a receipt read from its file and
 * one read from its row are judged alike. Strings point into doc, except
 * command and inputs; inputs is malloc'd: free it with
 * ev_catalog_receipt_fields_free. @return EV_OK; EV_ERROR (out of memory). */
struct ev_catalog_receipt_fields {
	const char *kind, *host, *result, *finished, *comparable; /* NULL where the receipt has none */
	const char *seal; /* the SEAL.json digest it names (a seal receipt: among its outputs) */
	const char *root; /* a seal receipt's fact root */
	const char *registration; /* an audit receipt's fact registration's line (audit campaign), or NULL */
	char command[256];
	char *inputs; /* its inputs' well-formed digests, each once in the order read, separated by spaces */
	int intact;   /* its comparable digest holds */
	int from_archive; /* it names an input "archive" */
};
ev_status ev_catalog_receipt_fields(const json_t *doc, struct ev_catalog_receipt_fields *out, struct ev_error *err);
void ev_catalog_receipt_fields_free(struct ev_catalog_receipt_fields *f);

/* A file as the catalog holds it. The receipt fields are set for kind
 * "receipt" only; strings may be NULL where the file had none. */
struct ev_catalog_file {
	const char *host, *path, *sha256;
	const char *kind; /* "receipt", "seal", "summary", "unreadable", "skipped" */
	const char *why;  /* unreadable, skipped: what was wrong */
	int timestamp;    /* a seal with FILE.tsr beside it when indexed */
	const char *receipt_kind, *command, *receipt_host, *result, *finished, *comparable;
	const char *seal;   /* the SEAL.json digest the receipt names (a seal receipt: among its outputs) */
	const char *root;   /* a seal receipt's fact root */
	const char *inputs; /* its inputs' digests, separated by spaces */
	const char *registration; /* an audit campaign receipt's registration line, from its document only */
	int intact;         /* its comparable digest held when indexed */
	int from_archive;   /* it names an input "archive" */
	const char *body;   /* the file's bytes, with EV_CATALOG_BODIES */
	/* A receipt's row is held to its document (ev_catalog_receipt_believed):
	 * every field above is the document's (documented 1), and doubt names
	 * each column that said otherwise (NULL: none). When the document is
	 * missing or does not hash to sha256, doubt says so, documented is 0
	 * and receipt_kind ... inputs are NULL: nothing of it is to be used.
	 * NULL and 0 for other kinds. */
	const char *doubt;
	int documented;
};

typedef ev_status (*ev_catalog_file_fn)(void *ctx, const struct ev_catalog_file *f, struct ev_error *err);

#define EV_CATALOG_BODIES 1u

/* Every file the catalog holds (seal_hex NULL), or those that may belong to
 * one campaign (the seal itself, every receipt naming it, every receipt
 * reading a member's bytes, every file holding a member's bytes): a
 * superset the caller judges. In no promised order. */
ev_status ev_catalog_files(struct ev_catalog *c, const char *seal_hex, unsigned flags, ev_catalog_file_fn fn,
			   void *ctx, struct ev_error *err);

/* A seal's root (into root) and its non-empty files' digests, sorted, as
 * one malloc'd array of 65-byte hex strings (*digests, *n; caller frees),
 * taken from the seal's document in the catalog once its bytes hash to
 * seal_hex. *found 0 when the catalog holds no such seal. doubt (cap
 * bytes) is empty when the rows agree with the document, else names what
 * they said otherwise (row-edited: root and digests are still the
 * document's), or why there is no document to take them from
 * (document-corrupt, document-missing: root empty, *digests NULL). */
ev_status ev_catalog_seal(struct ev_catalog *c, const char *seal_hex, char *root, size_t cap,
			  char (**digests)[65], size_t *n, int *found, char *doubt, size_t doubt_cap,
			  struct ev_error *err);

/* A campaign summary indexed for a plan: its bytes, where it was found,
 * the plan digest its audit receipt (receipt.json beside it) names (NULL
 * when none does), each taken from the documents the catalog holds, never
 * from a column. doubt (NULL: none) names each row that said otherwise:
 * its summaries row (plan, plan digest, captured, seal, runs) or its
 * cell_statistics rows; or why it has no whole document. usable: its
 * document hashes to sha256 and is the plan's (else nothing of it is to
 * be used). Its statistics are read from body (ev_catalog_summary_statistic). */
struct ev_catalog_summary {
	const char *sha256, *host, *path, *plan_sha256, *body;
	const char *doubt;
	int usable;
	int trusted; /* with a trust list: an audit receipt beside a copy names these bytes and is signed by a key of it */
};

typedef ev_status (*ev_catalog_summary_fn)(void *ctx, const struct ev_catalog_summary *s, struct ev_error *err);

/* Every summary the catalog indexes for the plan named plan (its campaign
 * name), each once (by its bytes; shown where a file named summary.json
 * holds them, else at the first host and path in order), oldest capture
 * first as its document says. trust may be NULL (then trusted is 0). */
struct ev_trust;
ev_status ev_catalog_summaries(struct ev_catalog *c, const char *plan, const struct ev_trust *trust,
			       ev_catalog_summary_fn fn, void *ctx, struct ev_error *err);

/* What a row is believed for (catalog_believe.c). */

/* Do body's bytes hash to hex? 1, or 0 with doubt ("document-missing: ...",
 * "document-corrupt: ..."). */
int ev_catalog_document_holds(const char *hex, const char *body, char *doubt, size_t cap);

/* A receipt's row held to its document (row->body, which must have been
 * asked for): doubt empty and *doc (parsed; caller decrefs) and *fields
 * (ev_catalog_receipt_fields_free) the document's when every column agrees;
 * else doubt names each column that differs ("row-edited: receipts.result
 * says pass, its document says fail") or the document's fault.
 * @return EV_OK (either way); EV_ERROR (out of memory). */
ev_status ev_catalog_receipt_believed(const struct ev_catalog_file *row, json_t **doc,
				      struct ev_catalog_receipt_fields *fields, char *doubt, size_t cap,
				      struct ev_error *err);

/* Each cell statistic of a summary as the index keeps it (every
 * median_of_runs value, and largest_max as "max"; decimal text): fn until
 * it returns nonzero (then 1). */
typedef int (*ev_catalog_statistic_fn)(void *ctx, const char *arm, const char *cell, const char *statistic,
				       const char *value);
int ev_catalog_summary_statistics(const json_t *summary, ev_catalog_statistic_fn fn, void *ctx);

/* One of them into out; 1 when the summary has it, else 0. */
int ev_catalog_summary_statistic(const json_t *summary, const char *arm, const char *cell, const char *statistic,
				 char *out, size_t cap);

/* When a summary's campaign was captured: its last capture's end; NULL. */
const char *ev_catalog_summary_captured(const json_t *summary);

/* What replicate index --check found. */
struct ev_catalog_check {
	size_t rows;     /* files rows held to their documents */
	size_t findings; /* each said to fn */
};

/* The whole catalog checked: the engine's own integrity check (SQLite's
 * PRAGMA integrity_check; PostgreSQL has none to run here), every document
 * against its digest, and every receipt, seal and summary row (with its
 * statistics) against its document, as status and history hold them. Each
 * finding to fn as TABLE, KEY and what is wrong. @return EV_OK (findings or
 * not: see counts); EV_INTERRUPTED; EV_ERROR (the database). */
typedef void (*ev_catalog_finding_fn)(void *ctx, const char *table, const char *key, const char *why);
ev_status ev_catalog_check(struct ev_catalog *c, ev_catalog_finding_fn fn, void *ctx, struct ev_catalog_check *counts,
			   struct ev_error *err);

/* A capture session of a plan as the catalog holds it (catalog_sessions.c):
 * its start and end documents (evidence-session/1), each believed only
 * when its kept bytes hash to its digest. */
struct ev_catalog_session {
	const char *sha256;        /* the start's */
	const char *where;         /* HOST:PATH of the start's file */
	const json_t *start, *end; /* end NULL: none indexed (abandoned, running, or not indexed) */
	int audited;               /* an intact audit receipt, believed from its bytes, names the start among its
				      inputs: the session was published */
};
typedef ev_status (*ev_catalog_session_fn)(void *ctx, const struct ev_catalog_session *s, struct ev_error *err);

/* fn for each session of the plan whose bytes hash to plan_sha256, by its
 * start time; *not_believed counts session rows whose kept bytes do not
 * hash to their digest (left out). @return EV_OK, fn's status, EV_ERROR. */
ev_status ev_catalog_sessions(struct ev_catalog *c, const char *plan_sha256, ev_catalog_session_fn fn, void *ctx,
			      size_t *not_believed, struct ev_error *err);

#endif
