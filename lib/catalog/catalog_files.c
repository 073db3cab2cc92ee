/* SPDX-License-Identifier: Apache-2.0 */
/* catalog_files: the files the catalog holds (ev_catalog_files), each
 * receipt's row held to its document before the caller sees it. One row
 * at a time, its document parsed, judged, handed over and freed before the
 * next is read: malloc reuses one document's nodes for the next. Gathering
 * rows in batches and believing them on two threads was measured slower
 * (8.3 s against 5.7 s for 100,000 receipts, bench/catalog): glibc's malloc
 * spent the time consolidating a batch's freed nodes, and more of it with
 * a second thread's arena. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "lib/catalog/catalog.h"
#include "lib/catalog/catalog_parts.h"

struct files_call {
	ev_catalog_file_fn fn;
	void *ctx;
	struct ev_error *err;
	ev_status st;
	int bodies; /* the caller asked for the bytes too */
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
	if (!f.kind || strcmp(f.kind, "receipt") != 0) {
		if (!call->bodies)
			f.body = NULL;
		call->st = call->fn(call->ctx, &f, call->err);
		return call->st != EV_OK;
	}
	/* a receipt's columns are believed only as its document says them */
	char doubt[1024];
	json_t *doc = NULL;
	struct ev_catalog_receipt_fields g;
	call->st = ev_catalog_receipt_believed(&f, &doc, &g, doubt, sizeof doubt, call->err);
	if (call->st != EV_OK)
		return 1;
	f.doubt = doubt[0] ? doubt : NULL;
	if (doc) { /* the document's word, whatever the row said */
		f.receipt_kind = g.kind ? g.kind : "";
		f.command = g.command, f.receipt_host = g.host, f.result = g.result, f.finished = g.finished;
		f.comparable = g.comparable, f.seal = g.seal, f.root = g.root, f.inputs = g.inputs;
		f.intact = g.intact, f.from_archive = g.from_archive;
		f.document = doc;
	} else { /* no document to take them from: nothing of the row is used */
		f.receipt_kind = f.command = f.receipt_host = f.result = f.finished = NULL;
		f.comparable = f.seal = f.root = f.inputs = NULL;
	}
	if (!call->bodies)
		f.body = NULL;
	call->st = call->fn(call->ctx, &f, call->err);
	ev_catalog_receipt_fields_free(&g);
	json_decref(doc);
	return call->st != EV_OK;
}

ev_status ev_catalog_files(struct ev_catalog *c, const char *seal_hex, unsigned flags, ev_catalog_file_fn fn,
			   void *ctx, struct ev_error *err)
{
	struct files_call call = {fn, ctx, err, EV_OK, (flags & EV_CATALOG_BODIES) != 0};
	static const char *const all_bodies =
		"SELECT " FILE_COLUMNS ", d.body FROM files f LEFT JOIN receipts r ON r.sha256 = f.sha256"
		" LEFT JOIN documents d ON d.sha256 = f.sha256 AND f.kind = 'receipt'";
	/* each arm of the union is one index's lookup */
#define ONE_CAMPAIGN                                                                                          \
	" WHERE f.sha256 IN (SELECT CAST($1 AS TEXT) UNION SELECT sha256 FROM receipts WHERE seal = $1"                    \
	" UNION SELECT i.receipt FROM seal_members m JOIN receipt_inputs i ON i.sha256 = m.sha256 WHERE m.seal = $1" \
	" UNION SELECT sha256 FROM seal_members WHERE seal = $1)"
	static const char *const one_bodies =
		"SELECT " FILE_COLUMNS ", d.body FROM files f LEFT JOIN receipts r ON r.sha256 = f.sha256"
		" LEFT JOIN documents d ON d.sha256 = f.sha256 AND f.kind = 'receipt'" ONE_CAMPAIGN;
#undef ONE_CAMPAIGN
	/* a receipt's bytes are always read: its row is held to them */
	const char *p[] = {seal_hex};
	ev_status st = seal_hex ? ev_db_query(c->db, one_bodies, 1, p, file_row, &call, err)
				: ev_db_query(c->db, all_bodies, 0, NULL, file_row, &call, err);
	return st != EV_OK ? st : call.st;
}
