/* SPDX-License-Identifier: Apache-2.0 */
/* catalog_files: the files the catalog holds (ev_catalog_files), each
 * receipt's row held to its document before the caller sees it. Holding a
 * row means hashing, parsing and re-deriving its document, most of the
 * inventory's time: rows are gathered in batches and a batch's documents
 * are believed on two threads, then handed to the caller one by one in the
 * order the query gave them. */
#include "config.h"

#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "lib/catalog/catalog.h"
#include "lib/catalog/catalog_parts.h"

#define FILE_COLUMNS                                                                                          \
	"f.host, f.path, f.sha256, f.kind, f.why, f.timestamp, r.kind, r.command, r.host, r.result, r.finished,  \
	 r.comparable, r.seal, r.root, r.inputs, r.intact, r.from_archive, d.body"
#define NCOLUMNS 18

/* Rows held at once: enough that a thread's start is nothing beside its
 * work, few enough that their documents stay a few megabytes. */
#define BATCH 1024

/* One row as the query gave it (its columns copied into one allocation)
 * and, for a receipt, what its document says. */
struct pending {
	char *bytes;
	const char *v[NCOLUMNS];
	int receipt;
	json_t *doc;
	struct ev_catalog_receipt_fields fields;
	char doubt[1024];
	ev_status st;
	struct ev_error err;
};

struct files_call {
	ev_catalog_file_fn fn;
	void *ctx;
	struct ev_error *err;
	ev_status st;
	int bodies; /* the caller asked for the bytes too */
	struct pending batch[BATCH];
	size_t n;
};

static struct ev_catalog_file file_of(const struct pending *p)
{
	const char *const *v = p->v;
	return (struct ev_catalog_file){
		.host = v[0], .path = v[1], .sha256 = v[2], .kind = v[3], .why = v[4],
		.timestamp = v[5] && strcmp(v[5], "1") == 0,
		.receipt_kind = v[6], .command = v[7], .receipt_host = v[8], .result = v[9], .finished = v[10],
		.comparable = v[11], .seal = v[12], .root = v[13], .inputs = v[14],
		.intact = v[15] && strcmp(v[15], "1") == 0, .from_archive = v[16] && strcmp(v[16], "1") == 0,
		.body = v[17],
	};
}

static void believe(struct pending *p)
{
	ev_error_clear(&p->err);
	struct ev_catalog_file f = file_of(p);
	p->st = ev_catalog_receipt_believed(&f, &p->doc, &p->fields, p->doubt, sizeof p->doubt, &p->err);
}

struct share {
	struct pending *batch;
	size_t n;
};

/* the odd receipts of a batch; the calling thread takes the even ones */
static void *believe_odd(void *arg)
{
	struct share *s = arg;
	for (size_t i = 1; i < s->n; i += 2)
		if (s->batch[i].receipt)
			believe(&s->batch[i]);
	return NULL;
}

static void believe_batch(struct pending *batch, size_t n)
{
	struct share s = {batch, n};
	pthread_t other;
	int two = n > 1 && pthread_create(&other, NULL, believe_odd, &s) == 0;
	for (size_t i = 0; i < n; i += two ? 2 : 1)
		if (batch[i].receipt)
			believe(&batch[i]);
	if (two)
		pthread_join(other, NULL);
}

static ev_status hand_over(struct files_call *call, struct pending *p)
{
	struct ev_catalog_file f = file_of(p);
	if (!call->bodies)
		f.body = NULL;
	if (!p->receipt)
		return call->fn(call->ctx, &f, call->err);
	if (p->st != EV_OK) {
		*call->err = p->err;
		return p->st;
	}
	/* a receipt's columns are believed only as its document says them */
	f.doubt = p->doubt[0] ? p->doubt : NULL;
	const struct ev_catalog_receipt_fields *g = &p->fields;
	if (p->doc) { /* the document's word, whatever the row said */
		f.receipt_kind = g->kind ? g->kind : "";
		f.command = g->command, f.receipt_host = g->host, f.result = g->result, f.finished = g->finished;
		f.comparable = g->comparable, f.seal = g->seal, f.root = g->root, f.inputs = g->inputs;
		f.intact = g->intact, f.from_archive = g->from_archive;
		f.document = p->doc;
	} else { /* no document to take them from: nothing of the row is used */
		f.receipt_kind = f.command = f.receipt_host = f.result = f.finished = NULL;
		f.comparable = f.seal = f.root = f.inputs = NULL;
	}
	return call->fn(call->ctx, &f, call->err);
}

static void pending_free(struct pending *p)
{
	if (p->receipt) {
		ev_catalog_receipt_fields_free(&p->fields);
		json_decref(p->doc);
	}
	free(p->bytes);
}

/* Believe the batch, hand its rows over in order, empty it. */
static void flush(struct files_call *call)
{
	believe_batch(call->batch, call->n);
	for (size_t i = 0; i < call->n; i++) {
		if (call->st == EV_OK)
			call->st = hand_over(call, &call->batch[i]);
		pending_free(&call->batch[i]);
	}
	call->n = 0;
}

static int file_row(void *ctx, size_t ncols, const char *const *v)
{
	struct files_call *call = ctx;
	if (ncols < NCOLUMNS)
		return 1;
	size_t len[NCOLUMNS], total = 0;
	for (size_t i = 0; i < NCOLUMNS; i++)
		total += len[i] = v[i] ? strlen(v[i]) + 1 : 0;
	struct pending *p = &call->batch[call->n];
	memset(p, 0, offsetof(struct pending, doubt));
	p->doubt[0] = '\0';
	if (!(p->bytes = malloc(total ? total : 1))) {
		call->st = ev_error_set(call->err, EV_ERROR, "catalog: out of memory reading its files");
		return 1;
	}
	char *at = p->bytes;
	for (size_t i = 0; i < NCOLUMNS; i++)
		if (v[i]) {
			memcpy(at, v[i], len[i]);
			p->v[i] = at;
			at += len[i];
		}
	p->receipt = p->v[3] && strcmp(p->v[3], "receipt") == 0;
	if (++call->n == BATCH)
		flush(call);
	return call->st != EV_OK;
}

ev_status ev_catalog_files(struct ev_catalog *c, const char *seal_hex, unsigned flags, ev_catalog_file_fn fn,
			   void *ctx, struct ev_error *err)
{
	struct files_call *call = malloc(sizeof *call);
	if (!call)
		return ev_error_set(err, EV_ERROR, "catalog: out of memory reading its files");
	call->fn = fn, call->ctx = ctx, call->err = err, call->st = EV_OK;
	call->bodies = (flags & EV_CATALOG_BODIES) != 0;
	call->n = 0;
	/* a receipt's bytes are always read: its row is held to them */
	static const char *const all =
		"SELECT " FILE_COLUMNS " FROM files f LEFT JOIN receipts r ON r.sha256 = f.sha256"
		" LEFT JOIN documents d ON d.sha256 = f.sha256 AND f.kind = 'receipt'";
	/* each arm of the union is one index's lookup */
	static const char *const one =
		"SELECT " FILE_COLUMNS " FROM files f LEFT JOIN receipts r ON r.sha256 = f.sha256"
		" LEFT JOIN documents d ON d.sha256 = f.sha256 AND f.kind = 'receipt'"
		" WHERE f.sha256 IN (SELECT CAST($1 AS TEXT) UNION SELECT sha256 FROM receipts WHERE seal = $1"
		" UNION SELECT i.receipt FROM seal_members m JOIN receipt_inputs i ON i.sha256 = m.sha256"
		" WHERE m.seal = $1 UNION SELECT sha256 FROM seal_members WHERE seal = $1)";
	const char *p[] = {seal_hex};
	ev_status st = seal_hex ? ev_db_query(c->db, one, 1, p, file_row, call, err)
				: ev_db_query(c->db, all, 0, NULL, file_row, call, err);
	if (st == EV_OK && call->st == EV_OK)
		flush(call); /* the last, short batch */
	for (size_t i = 0; i < call->n; i++) /* a query cut short leaves its rows unread */
		pending_free(&call->batch[i]);
	if (st == EV_OK)
		st = call->st;
	free(call);
	return st;
}
