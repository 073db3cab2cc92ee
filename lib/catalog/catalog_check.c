/* SPDX-License-Identifier: Apache-2.0 */
/* catalog_check: the whole catalog held to itself (catalog.h,
 * ev_catalog_check): the engine's own check, each document against its
 * digest, each row against its document, as status and history hold the
 * rows they use. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/catalog/catalog.h"
#include "lib/catalog/catalog_parts.h"
#include "lib/core/stop.h"

struct check {
	struct ev_catalog *c;
	ev_catalog_finding_fn fn;
	void *ctx;
	struct ev_catalog_check *counts;
	struct ev_error *err;
	json_t *seals, *plans; /* gathered from the files and summaries rows */
	ev_status st;
};

static void finding(struct check *k, const char *table, const char *key, const char *why)
{
	k->counts->findings++;
	k->fn(k->ctx, table, key, why);
}

static int engine_row(void *ctx, size_t ncols, const char *const *v)
{
	struct check *k = ctx;
	if (!ncols || !v[0] || strcmp(v[0], "ok") == 0)
		return 0;
	char line[1024]; /* SQLite's first row may run over lines */
	size_t n = 0;
	for (const char *p = v[0]; *p && n + 3 < sizeof line; p++) {
		if (*p == '\n' && n)
			line[n++] = ';', line[n++] = ' ';
		else if (*p != '\n')
			line[n++] = *p;
	}
	line[n] = '\0';
	finding(k, "(the database)", "-", line);
	return 0;
}

static int document_row(void *ctx, size_t ncols, const char *const *v)
{
	struct check *k = ctx;
	char doubt[256];
	if (ncols >= 2 && !ev_catalog_document_holds(v[0], v[1], doubt, sizeof doubt))
		finding(k, "documents", v[0] ? v[0] : "(no digest)", doubt);
	return ev_stop_requested();
}

struct inputs_count {
	size_t n;
};

static int count_row(void *ctx, size_t ncols, const char *const *v)
{
	struct inputs_count *c = ctx;
	if (ncols && v[0])
		c->n = strtoul(v[0], NULL, 10);
	return 1;
}

static ev_status file_row(void *ctx, const struct ev_catalog_file *f, struct ev_error *err)
{
	struct check *k = ctx;
	char key[4096 + 300];
	snprintf(key, sizeof key, "%s:%s", f->host, f->path);
	if (ev_stop_requested())
		return ev_error_set(err, EV_INTERRUPTED, "stopped by a signal; nothing was changed");
	k->counts->rows++;
	if (strcmp(f->kind, "seal") == 0 && f->sha256)
		json_object_set_new(k->seals, f->sha256, json_string(key));
	if (strcmp(f->kind, "receipt") != 0)
		return EV_OK;
	if (f->doubt)
		finding(k, "receipts", key, f->doubt);
	if (!f->documented) /* nothing to hold its inputs' rows to */
		return EV_OK;
	/* the rows a one-campaign status finds a receipt by: one per input */
	size_t inputs = f->inputs && *f->inputs ? (strlen(f->inputs) + 1) / 65 : 0;
	struct inputs_count n = {0};
	const char *p[] = {f->sha256};
	ev_status st = ev_db_query(k->c->db, "SELECT COUNT(*) FROM receipt_inputs WHERE receipt = $1", 1, p, count_row,
				   &n, err);
	if (st == EV_OK && n.n != inputs) {
		char why[256];
		snprintf(why, sizeof why, "row-edited: receipt_inputs holds %zu rows for it, its document names %zu inputs",
			 n.n, inputs);
		finding(k, "receipt_inputs", key, why);
	}
	return st;
}

static int plan_row(void *ctx, size_t ncols, const char *const *v)
{
	struct check *k = ctx;
	if (ncols && v[0])
		json_object_set_new(k->plans, v[0], json_true());
	return 0;
}

static ev_status summary_row(void *ctx, const struct ev_catalog_summary *s, struct ev_error *err)
{
	struct check *k = ctx;
	(void)err;
	if (s->doubt) {
		char key[4096 + 300];
		snprintf(key, sizeof key, "%s:%s", s->host, s->path);
		finding(k, "summaries", key, s->doubt);
	}
	return ev_stop_requested() ? ev_error_set(err, EV_INTERRUPTED, "stopped by a signal; nothing was changed")
				   : EV_OK;
}

ev_status ev_catalog_check(struct ev_catalog *c, ev_catalog_finding_fn fn, void *ctx, struct ev_catalog_check *counts,
			   struct ev_error *err)
{
	memset(counts, 0, sizeof *counts);
	struct check k = {c, fn, ctx, counts, err, json_object(), json_object(), EV_OK};
	ev_status st = k.seals && k.plans ? EV_OK : ev_error_set(err, EV_ERROR, "out of memory");
	if (st == EV_OK && strcmp(ev_db_kind(c->db), "sqlite") == 0)
		st = ev_db_query(c->db, "PRAGMA integrity_check", 0, NULL, engine_row, &k, err);
	if (st == EV_OK)
		st = ev_db_query(c->db, "SELECT sha256, body FROM documents", 0, NULL, document_row, &k, err);
	if (st == EV_OK)
		st = ev_catalog_files(c, NULL, 0, file_row, &k, err);
	const char *hex;
	json_t *where;
	json_object_foreach(st == EV_OK ? k.seals : NULL, hex, where) {
		char root[256], doubt[1024];
		char (*digests)[65] = NULL;
		size_t n;
		int found;
		st = ev_catalog_seal(c, hex, root, sizeof root, &digests, &n, &found, doubt, sizeof doubt, err);
		free(digests);
		if (st != EV_OK)
			break;
		if (!found)
			finding(&k, "seals", json_string_value(where), "row-missing: seals holds no row for it");
		else if (doubt[0])
			finding(&k, "seals", json_string_value(where), doubt);
	}
	if (st == EV_OK)
		st = ev_db_query(c->db, "SELECT DISTINCT plan FROM summaries", 0, NULL, plan_row, &k, err);
	const char *plan;
	json_t *yes;
	json_object_foreach(st == EV_OK ? k.plans : NULL, plan, yes) {
		if ((st = ev_catalog_summaries(c, plan, NULL, summary_row, &k, err)) != EV_OK)
			break;
	}
	if (st == EV_ERROR && ev_db_damaged(c->db)) { /* a finding too: what it could still read is named above */
		finding(&k, "(the database)", "-", err->text);
		ev_error_clear(err);
		st = EV_OK;
	}
	if (st == EV_OK && ev_stop_requested())
		st = ev_error_set(err, EV_INTERRUPTED, "stopped by a signal; nothing was changed");
	json_decref(k.seals);
	json_decref(k.plans);
	return st;
}
