/* SPDX-License-Identifier: Apache-2.0 */
/* catalog_believe: what a row is believed for. A catalog a lab shares is
 * written by every host, so a column is an index, never the truth: each
 * field anything judges is taken again from the document's bytes, once
 * those bytes hash to the row's SHA-256, and a row that says otherwise is
 * named, not used (doc/formats.md, "The catalog": "What a row is believed
 * for"). The doubts are spelled here, one way for status, history and
 * replicate index --check. */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/archive/seal.h"
#include "lib/catalog/catalog.h"
#include "lib/catalog/catalog_parts.h"
#include "lib/core/sha256.h"

static const char *shown(const char *s)
{
	return s ? s : "nothing";
}

static int same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Appends "; TABLE.COLUMN says A, its document says B" to doubt. */
static void differs(char *doubt, size_t cap, const char *column, const char *says, const char *document)
{
	size_t len = strlen(doubt);
	if (len + 1 >= cap)
		return;
	snprintf(doubt + len, cap - len, "%s%s says %s, its document says %s", len ? "; " : "row-edited: ", column,
		 shown(says), shown(document));
}

int ev_catalog_document_holds(const char *hex, const char *body, char *doubt, size_t cap)
{
	if (!body) {
		snprintf(doubt, cap, "document-missing: documents holds no bytes for SHA-256 %.16s...", shown(hex));
		return 0;
	}
	uint8_t d[EV_SHA256_LEN];
	char now[EV_SHA256_HEX_LEN + 1];
	struct ev_error e;
	ev_error_clear(&e);
	if (ev_sha256_buffer(body, strlen(body), d, &e) != EV_OK) {
		snprintf(doubt, cap, "document-corrupt: %s", e.text);
		return 0;
	}
	ev_sha256_hex(d, now);
	if (!hex || strcmp(now, hex) != 0) {
		snprintf(doubt, cap, "document-corrupt: its bytes in documents hash to %.16s..., not the row's %.16s...", now,
			 shown(hex));
		return 0;
	}
	return 1;
}

ev_status ev_catalog_receipt_believed(const struct ev_catalog_file *row, json_t **doc,
				      struct ev_catalog_receipt_fields *fields, char *doubt, size_t cap,
				      struct ev_error *err)
{
	*doc = NULL;
	doubt[0] = '\0';
	memset(fields, 0, sizeof *fields);
	if (!ev_catalog_document_holds(row->sha256, row->body, doubt, cap))
		return EV_OK;
	json_error_t je;
	if (!(*doc = json_loads(row->body, 0, &je))) {
		snprintf(doubt, cap, "document-corrupt: its bytes are not JSON: %s", je.text);
		return EV_OK;
	}
	ev_status st = ev_catalog_receipt_fields(*doc, fields, err);
	if (st != EV_OK) {
		json_decref(*doc);
		*doc = NULL;
		return st;
	}
	if (!row->receipt_kind) {
		snprintf(doubt, cap, "row-missing: receipts holds no row for SHA-256 %.16s...", row->sha256);
		return EV_OK;
	}
	const char *intact = fields->intact ? "1" : "0", *from_archive = fields->from_archive ? "1" : "0";
	const char *row_intact = row->intact ? "1" : "0", *row_from_archive = row->from_archive ? "1" : "0";
	const struct {
		const char *column, *says, *document;
	} checks[] = {
		{"receipts.kind", row->receipt_kind, fields->kind ? fields->kind : ""},
		{"receipts.command", row->command, fields->command},
		{"receipts.host", row->receipt_host, fields->host},
		{"receipts.result", row->result, fields->result},
		{"receipts.finished", row->finished, fields->finished},
		{"receipts.comparable", row->comparable, fields->comparable},
		{"receipts.seal", row->seal, fields->seal},
		{"receipts.root", row->root, fields->root},
		{"receipts.inputs", row->inputs, fields->inputs},
		{"receipts.intact", row_intact, intact},
		{"receipts.from_archive", row_from_archive, from_archive},
	};
	for (size_t i = 0; i < sizeof checks / sizeof *checks; i++)
		if (!same(checks[i].says, checks[i].document))
			differs(doubt, cap, checks[i].column,
				strcmp(checks[i].column, "receipts.inputs") == 0 ? "other digests" : checks[i].says,
				strcmp(checks[i].column, "receipts.inputs") == 0 ? "these" : checks[i].document);
	return EV_OK;
}

static int by_digest(const void *a, const void *b)
{
	return strcmp(a, b);
}

ev_status ev_catalog_seal_believed(const char *hex, const char *body, const char *row_root,
				   char (*row_digests)[65], size_t nrow, char **root, char (**digests)[65], size_t *n,
				   char *doubt, size_t cap, struct ev_error *err)
{
	*root = NULL;
	*digests = NULL;
	*n = 0;
	doubt[0] = '\0';
	if (!ev_catalog_document_holds(hex, body, doubt, cap))
		return EV_OK;
	json_error_t je;
	json_t *doc = json_loads(body, 0, &je);
	if (!doc) {
		snprintf(doubt, cap, "document-corrupt: its bytes are not JSON: %s", je.text);
		return EV_OK;
	}
	struct ev_seal seal;
	struct ev_error e;
	ev_error_clear(&e);
	if (ev_seal_from_json(doc, "the catalog's copy", 0, &seal, &e) != EV_OK) {
		json_decref(doc);
		snprintf(doubt, cap, "document-corrupt: %s", e.text);
		return EV_OK;
	}
	json_decref(doc);
	size_t count = 0;
	char (*list)[65] = malloc((seal.count ? seal.count : 1) * sizeof *list);
	if (!list || !(*root = strdup(seal.root))) {
		free(list);
		ev_seal_free(&seal);
		return ev_error_set(err, EV_ERROR, "out of memory");
	}
	for (size_t i = 0; i < seal.count; i++)
		if (seal.members[i].type == EV_MEMBER_FILE && seal.members[i].size) /* as the index keeps them */
			ev_sha256_hex(seal.members[i].sha256, list[count++]);
	ev_seal_free(&seal);
	qsort(list, count, sizeof *list, by_digest);
	size_t unique = 0; /* the same bytes in two members are one row */
	for (size_t i = 0; i < count; i++)
		if (!unique || strcmp(list[unique - 1], list[i]) != 0)
			memmove(list[unique++], list[i], sizeof *list);
	*digests = list;
	*n = unique;
	if (!same(row_root, *root))
		differs(doubt, cap, "seals.root", row_root, *root);
	int members_differ = nrow != unique;
	for (size_t i = 0; i < nrow && !members_differ; i++)
		members_differ = strcmp(row_digests[i], list[i]) != 0;
	if (members_differ) {
		char says[64], document[64];
		snprintf(says, sizeof says, "%zu member digests", nrow);
		snprintf(document, sizeof document, "%zu%s", unique, nrow == unique ? ", not all the same" : "");
		differs(doubt, cap, "seal_members", says, document);
	}
	return EV_OK;
}

/* A statistic as summary.json writes it: decimal text or an integer. */
static int statistic_text(const json_t *v, char *out, size_t cap)
{
	if (json_is_string(v))
		return snprintf(out, cap, "%s", json_string_value(v)) > 0;
	if (json_is_integer(v))
		return snprintf(out, cap, "%lld", (long long)json_integer_value(v)) > 0;
	return 0;
}

int ev_catalog_summary_statistics(const json_t *summary, ev_catalog_statistic_fn fn, void *ctx)
{
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(summary, "cells"), i, e) {
		const char *arm = json_string_value(json_object_get(e, "arm"));
		const char *cell = json_string_value(json_object_get(e, "cell"));
		if (!arm || !cell)
			continue;
		const char *stat;
		json_t *v;
		char value[64];
		json_object_foreach(json_object_get(e, "median_of_runs"), stat, v)
			if (statistic_text(v, value, sizeof value) && fn(ctx, arm, cell, stat, value))
				return 1;
		if (statistic_text(json_object_get(e, "largest_max"), value, sizeof value) &&
		    fn(ctx, arm, cell, "max", value))
			return 1;
	}
	return 0;
}

struct wanted {
	const char *arm, *cell, *statistic;
	char *out;
	size_t cap;
	int found;
};

static int pick(void *ctx, const char *arm, const char *cell, const char *statistic, const char *value)
{
	struct wanted *w = ctx;
	if (strcmp(arm, w->arm) || strcmp(cell, w->cell) || strcmp(statistic, w->statistic))
		return 0;
	snprintf(w->out, w->cap, "%s", value);
	w->found = 1;
	return 1;
}

int ev_catalog_summary_statistic(const json_t *summary, const char *arm, const char *cell, const char *statistic,
				 char *out, size_t cap)
{
	struct wanted w = {arm, cell, statistic, out, cap, 0};
	out[0] = '\0';
	ev_catalog_summary_statistics(summary, pick, &w);
	return w.found;
}

const char *ev_catalog_summary_captured(const json_t *summary)
{
	const char *captured = NULL;
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(json_object_get(summary, "provenance"), "captures"), i, e) {
		const char *f = json_string_value(json_object_get(e, "finished"));
		if (f && (!captured || strcmp(f, captured) > 0))
			captured = f;
	}
	return captured;
}
