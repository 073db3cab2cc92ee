/* SPDX-License-Identifier: Apache-2.0 */
/* catalog_files: the files the catalog holds (ev_catalog_files), each
 * receipt's row held to its document before the caller sees it.
 *
 * Holding a row (hash, parse, re-derive the comparable digest) costs more
 * than reading it and all the caller does with it, so two threads share
 * the work: this one reads a batch of rows while a believer thread holds
 * the batch before it to its documents; when this one's batch is full it
 * takes the believer's rows no one has started rather than wait, then
 * hands the believed batch over in the query's order. Each row is
 * believed by one thread, which parses, judges and frees its document
 * before the next and keeps only copies of the fields, so each thread's
 * malloc frees what it allocated, as one thread did. bench/catalog, the
 * inventory of 100,000 receipts: 4.7 s believed on one thread, 2.9 s so.
 * (Believing a whole batch's documents before freeing any, half on a
 * thread started per batch, was measured slower than one thread: glibc's
 * malloc consolidating each batch's freed nodes.) A query that gives
 * fewer rows than a batch, one campaign's, is believed on this thread
 * alone. */
#include "config.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "lib/catalog/catalog.h"
#include "lib/catalog/catalog_parts.h"
#include "lib/core/grow.h"
#include "lib/core/text.h"

#define FILE_COLUMNS                                                                                          \
	"f.host, f.path, f.sha256, f.kind, f.why, f.timestamp, r.kind, r.command, r.host, r.result, r.finished,  \
	 r.comparable, r.seal, r.root, r.inputs, r.intact, r.from_archive, d.body"
#define NCOLUMNS 18

/* Rows a batch holds: a thread's hand-over is nothing beside a batch's
 * work, and a batch's copies stay a few hundred kilobytes. */
#define BATCH 256

/* The fields a receipt's document gives, copied out of it. */
enum said { KIND, COMMAND, HOST, RESULT, FINISHED, COMPARABLE, SEAL, ROOT, INPUTS, REGISTRATION, NSAID };

/* One row: its columns as the query gave them and, for a receipt, what
 * its document says. Its buffers grow as a row needs and are reused. */
struct slot {
	char *row;
	size_t row_cap;
	const char *v[NCOLUMNS];
	int receipt;
	char *said;
	size_t said_cap;
	const char *field[NSAID];
	int intact, from_archive, documented;
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
	struct slot batch[2][BATCH];
	size_t n[2], used[2]; /* rows in each batch now; most it ever held (whose buffers to free) */
	int filling; /* the batch rows are read into; the other is the believer's */
	atomic_size_t next; /* the believer's batch: its first row neither thread has taken */
	/* the believer thread, started at the first full batch */
	pthread_t believer;
	int started, busy, quit;
	pthread_mutex_t lock;
	pthread_cond_t wake, done;
};

static struct ev_catalog_file file_of(const struct slot *s)
{
	const char *const *v = s->v;
	return (struct ev_catalog_file){
		.host = v[0], .path = v[1], .sha256 = v[2], .kind = v[3], .why = v[4],
		.timestamp = v[5] && strcmp(v[5], "1") == 0,
		.receipt_kind = v[6], .command = v[7], .receipt_host = v[8], .result = v[9], .finished = v[10],
		.comparable = v[11], .seal = v[12], .root = v[13], .inputs = v[14],
		.intact = v[15] && strcmp(v[15], "1") == 0, .from_archive = v[16] && strcmp(v[16], "1") == 0,
		.body = v[17],
	};
}

/* Hold a receipt's row to its document; keep copies of what it says. */
static void believe(struct slot *s)
{
	ev_error_clear(&s->err);
	s->documented = 0;
	struct ev_catalog_file f = file_of(s);
	json_t *doc = NULL;
	struct ev_catalog_receipt_fields g;
	s->st = ev_catalog_receipt_believed(&f, &doc, &g, s->doubt, sizeof s->doubt, &s->err);
	if (s->st != EV_OK || !doc)
		return;
	const char *from[NSAID] = {g.kind ? g.kind : "", g.command, g.host, g.result, g.finished,
				   g.comparable, g.seal, g.root, g.inputs, g.registration};
	const char **const to[NSAID] = {&s->field[KIND], &s->field[COMMAND], &s->field[HOST], &s->field[RESULT],
					&s->field[FINISHED], &s->field[COMPARABLE], &s->field[SEAL], &s->field[ROOT],
					&s->field[INPUTS], &s->field[REGISTRATION]};
	if (ev_grow_array(&s->said, &s->said_cap, ev_strings_size(from, NSAID) + 1, 1) != 0) {
		s->st = ev_error_set(&s->err, EV_ERROR, "catalog: out of memory reading its files");
	} else {
		ev_strings_copy(s->said, from, to, NSAID);
		s->intact = g.intact;
		s->from_archive = g.from_archive;
		s->documented = 1;
	}
	ev_catalog_receipt_fields_free(&g);
	json_decref(doc);
}

/* Believe the rows of batch b no thread has taken yet. */
static void believe_batch(struct files_call *call, int b)
{
	for (size_t i; (i = atomic_fetch_add(&call->next, 1)) < call->n[b];)
		if (call->batch[b][i].receipt)
			believe(&call->batch[b][i]);
}

static void *believer(void *arg)
{
	struct files_call *call = arg;
	pthread_mutex_lock(&call->lock);
	for (;;) {
		while (!call->busy && !call->quit)
			pthread_cond_wait(&call->wake, &call->lock);
		if (!call->busy)
			break;
		int b = !call->filling;
		pthread_mutex_unlock(&call->lock);
		believe_batch(call, b);
		pthread_mutex_lock(&call->lock);
		call->busy = 0;
		pthread_cond_signal(&call->done);
	}
	pthread_mutex_unlock(&call->lock);
	return NULL;
}

static void wait_for_believer(struct files_call *call)
{
	if (!call->started)
		return;
	pthread_mutex_lock(&call->lock);
	while (call->busy)
		pthread_cond_wait(&call->done, &call->lock);
	pthread_mutex_unlock(&call->lock);
}

static ev_status hand_over(struct files_call *call, const struct slot *s)
{
	struct ev_catalog_file f = file_of(s);
	if (!call->bodies)
		f.body = NULL;
	if (!s->receipt)
		return call->fn(call->ctx, &f, call->err);
	if (s->st != EV_OK) {
		*call->err = s->err;
		return s->st;
	}
	/* a receipt's columns are believed only as its document says them */
	f.doubt = s->doubt[0] ? s->doubt : NULL;
	f.documented = s->documented;
	if (s->documented) { /* the document's word, whatever the row said */
		f.receipt_kind = s->field[KIND], f.command = s->field[COMMAND], f.receipt_host = s->field[HOST];
		f.result = s->field[RESULT], f.finished = s->field[FINISHED], f.comparable = s->field[COMPARABLE];
		f.seal = s->field[SEAL], f.root = s->field[ROOT], f.inputs = s->field[INPUTS];
		f.registration = s->field[REGISTRATION];
		f.intact = s->intact, f.from_archive = s->from_archive;
	} else { /* no document to take them from: nothing of the row is used */
		f.receipt_kind = f.command = f.receipt_host = f.result = f.finished = NULL;
		f.comparable = f.seal = f.root = f.inputs = f.registration = NULL;
	}
	return call->fn(call->ctx, &f, call->err);
}

static void hand_over_batch(struct files_call *call, int b)
{
	for (size_t i = 0; i < call->n[b] && call->st == EV_OK; i++)
		call->st = hand_over(call, &call->batch[b][i]);
	call->n[b] = 0;
}

/* The filling batch is full: the believer takes it once done with the
 * other (this thread helping), which is then handed over while the
 * believer works. */
static void batch_full(struct files_call *call)
{
	int full = call->filling, other = !full;
	if (!call->started) {
		if (pthread_create(&call->believer, NULL, believer, call) != 0) {
			/* no second thread: one thread does both, as it always could */
			atomic_store(&call->next, 0);
			believe_batch(call, full);
			hand_over_batch(call, full);
			return;
		}
		call->started = 1;
	}
	/* rather than wait, take the believer's rows no one has started */
	believe_batch(call, other);
	wait_for_believer(call);
	pthread_mutex_lock(&call->lock);
	call->filling = other;
	atomic_store(&call->next, 0);
	call->busy = 1;
	pthread_cond_signal(&call->wake);
	pthread_mutex_unlock(&call->lock);
	hand_over_batch(call, other);
}

static int file_row(void *ctx, size_t ncols, const char *const *v)
{
	struct files_call *call = ctx;
	if (ncols < NCOLUMNS)
		return 1;
	struct slot *s = &call->batch[call->filling][call->n[call->filling]];
	const char **to[NCOLUMNS];
	for (size_t i = 0; i < NCOLUMNS; i++)
		to[i] = &s->v[i];
	if (ev_grow_array(&s->row, &s->row_cap, ev_strings_size(v, NCOLUMNS) + 1, 1) != 0) {
		call->st = ev_error_set(call->err, EV_ERROR, "catalog: out of memory reading its files");
		return 1;
	}
	ev_strings_copy(s->row, v, to, NCOLUMNS);
	s->receipt = s->v[3] && strcmp(s->v[3], "receipt") == 0;
	if (++call->n[call->filling] > call->used[call->filling])
		call->used[call->filling] = call->n[call->filling];
	if (call->n[call->filling] == BATCH)
		batch_full(call);
	return call->st != EV_OK;
}

ev_status ev_catalog_files(struct ev_catalog *c, const char *seal_hex, unsigned flags, ev_catalog_file_fn fn,
			   void *ctx, struct ev_error *err)
{
	struct files_call *call = calloc(1, sizeof *call);
	if (!call)
		return ev_error_set(err, EV_ERROR, "catalog: out of memory reading its files");
	call->fn = fn, call->ctx = ctx, call->err = err, call->st = EV_OK;
	call->bodies = (flags & EV_CATALOG_BODIES) != 0;
	pthread_mutex_init(&call->lock, NULL);
	pthread_cond_init(&call->wake, NULL);
	pthread_cond_init(&call->done, NULL);
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
	/* a receipt's bytes are always read: its row is held to them */
	const char *p[] = {seal_hex};
	ev_status st = seal_hex ? ev_db_query(c->db, one, 1, p, file_row, call, err)
				: ev_db_query(c->db, all, 0, NULL, file_row, call, err);
	/* what the believer holds comes first, then the last, short batch */
	if (call->started)
		believe_batch(call, !call->filling);
	wait_for_believer(call);
	if (st == EV_OK)
		hand_over_batch(call, !call->filling);
	if (st == EV_OK && call->st == EV_OK) {
		atomic_store(&call->next, 0);
		believe_batch(call, call->filling);
		hand_over_batch(call, call->filling);
	}
	if (call->started) {
		pthread_mutex_lock(&call->lock);
		call->quit = 1;
		pthread_cond_signal(&call->wake);
		pthread_mutex_unlock(&call->lock);
		pthread_join(call->believer, NULL);
	}
	for (int b = 0; b < 2; b++)
		for (size_t i = 0; i < call->used[b]; i++)
			free(call->batch[b][i].row), free(call->batch[b][i].said);
	pthread_mutex_destroy(&call->lock);
	pthread_cond_destroy(&call->wake);
	pthread_cond_destroy(&call->done);
	if (st == EV_OK)
		st = call->st;
	free(call);
	return st;
}
