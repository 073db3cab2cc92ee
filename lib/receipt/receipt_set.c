/* SPDX-License-Identifier: Apache-2.0 */
/* receipt_set: receipts judged together (receipt_set.h). */
#include "config.h"
#include "lib/receipt/receipt_set.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/receipt/receipt.h"
#include "lib/receipt/receipt_diff.h"
#include "lib/receipt/receipt_read.h"

void ev_receipt_set_free(struct ev_receipt_set *set)
{
	for (size_t i = 0; i < set->count; i++)
		json_decref(set->items[i].doc);
	free(set->items);
	set->items = NULL;
	set->count = 0;
}

static void problem(ev_receipt_finding_fn fn, void *ctx, const char *path, const char *check,
		    const char *message, const char *found)
{
	struct ev_finding f;
	ev_finding_make(&f, path, check, message, NULL, found);
	fn(ctx, path, &f);
}

unsigned ev_receipt_set_load(struct ev_receipt_set *set, char *const *paths, size_t n,
			  const struct ev_trust *trust, ev_receipt_finding_fn fn, void *ctx,
			  ev_status *st, struct ev_error *err)
{
	unsigned problems = 0;
	*st = EV_OK;
	set->count = 0;
	set->items = calloc(n ? n : 1, sizeof *set->items);
	if (!set->items) {
		*st = ev_error_set(err, EV_ERROR, "out of memory");
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		struct ev_judged_receipt *j = &set->items[set->count];
		uint8_t digest[EV_SHA256_LEN];
		j->path = paths[i];
		if ((*st = ev_receipt_load(paths[i], &j->doc, digest, err)) != EV_OK) {
			ev_receipt_set_free(set);
			return problems;
		}
		set->count++;
		ev_sha256_hex(digest, j->file_sha256);
		j->kind = ev_receipt_kind(j->doc);
		j->host = ev_receipt_host(j->doc);
		j->result = ev_receipt_result(j->doc);
		j->comparable = ev_receipt_comparable_digest(j->doc);
		int holds = ev_receipt_comparable_holds(j->doc, err);
		if (holds < 0) {
			*st = err->status;
			ev_receipt_set_free(set);
			return problems;
		}
		const char *extra = ev_receipt_unknown_field(j->doc);
		j->intact = holds && !extra;
		if (!holds) {
			problem(fn, ctx, j->path, "altered",
				"its comparable digest does not match its content: it was edited "
				"after it was written",
				NULL);
			problems++;
		} else if (extra) {
			/* outside the digest, so no digest shows it: named instead */
			char why[256];
			snprintf(why, sizeof why, "holds a field no receipt has (\"%.64s\"), outside its comparable "
				 "digest: it was edited after it was written", extra);
			problem(fn, ctx, j->path, "altered", why, NULL);
			problems++;
		}
		if (!trust)
			continue;
		char why[256];
		ev_status sst = ev_receipt_check_signature(j->doc, trust, j->signer, why, sizeof why,
							   err);
		if (sst == EV_OK) {
			j->signed_ok = 1;
		} else if (sst == EV_MISMATCH) {
			problem(fn, ctx, j->path, "signature", why, NULL);
			problems++;
		} else {
			*st = sst;
			ev_receipt_set_free(set);
			return problems;
		}
	}
	return problems;
}

struct tagged {
	ev_receipt_finding_fn fn;
	void *ctx;
	const char *path;
};

static void tag(void *ctx, const struct ev_finding *f)
{
	struct tagged *t = ctx;
	t->fn(t->ctx, t->path, f);
}

size_t ev_receipt_set_disagreements(const struct ev_receipt_set *set, ev_receipt_finding_fn fn, void *ctx)
{
	size_t differing = 0;
	for (size_t i = 1; i < set->count; i++) {
		const struct ev_judged_receipt *ref = &set->items[0], *other = &set->items[i];
		if (ref->comparable && other->comparable && strcmp(ref->comparable, other->comparable) == 0)
			continue;
		struct tagged t = {.fn = fn, .ctx = ctx, .path = other->path};
		/* Digests differ: say where. A digest may also differ with no
		 * visible item when a receipt was edited (reported as altered). */
		ev_receipt_diff(ref->doc, other->doc, tag, &t);
		differing++;
	}
	return differing;
}

json_t *ev_receipt_set_comparison(const struct ev_receipt_set *set, int agree, json_t *findings,
				  int judged_signatures)
{
	json_t *list = json_array();
	for (size_t i = 0; i < set->count; i++) {
		const struct ev_judged_receipt *j = &set->items[i];
		json_t *o = json_pack("{s:s, s:s, s:s?, s:s?, s:s?, s:s?, s:b}", "path", j->path, "sha256",
				      j->file_sha256, "kind", j->kind, "host", j->host, "result", j->result,
				      "comparable", j->comparable, "intact", j->intact);
		if (judged_signatures)
			json_object_set_new(o, "signed_by", j->signed_ok ? json_string(j->signer) : json_null());
		json_array_append_new(list, o);
	}
	return json_pack("{s:s, s:b, s:o, s:O}", "format", EV_COMPARISON_FORMAT, "agree", agree, "receipts", list,
			 "findings", findings);
}
