/* SPDX-License-Identifier: Apache-2.0 */
/* replicate_status: every receipt and seal under some directories,
 * gathered per sealed campaign (replicate_status.h): here the walk of the
 * directories and the one entry; the catalog's rows in status_catalog.c,
 * the judging of each campaign in status_judge.c. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#include "lib/archive/seal.h"
#include "lib/catalog/catalog.h"
#include "lib/core/grow.h"
#include "lib/core/input.h"
#include "lib/core/json.h"
#include "lib/core/jsonwalk.h"
#include "lib/core/text.h"
#include "lib/receipt/receipt.h"
#include "lib/usecase/replicate/replicate_status_parts.h"
#include "lib/receipt/timestamp_beside.h"

#define STATUS_FORMAT "evidence-status/1"

void ev_inventory_note(json_t *list, const char *path, const char *why)
{
	json_array_append_new(list, json_pack("{s:s, s:s}", "path", path, "why", why));
}

char *ev_inventory_copy(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* doc (may be NULL) is only read, for its signature, with --trust. */
ev_status ev_inventory_keep_receipt(struct status *s, const char *path, const char *hex, const struct receipt_fields *rf,
			      const json_t *doc, struct ev_error *err)
{
	const json_t *seen = json_object_get(s->by_sha256, hex);
	if (seen) {
		struct found *first = &s->receipts[json_integer_value(seen)];
		if (!first->also && !(first->also = json_array()))
			return ev_error_set(err, EV_ERROR, "out of memory");
		json_array_append_new(first->also, json_string(path));
		return EV_OK;
	}
	json_object_set_new(s->by_sha256, hex, json_integer((json_int_t)s->nreceipts));
	if (ev_grow_array(&s->receipts, &s->cap, s->nreceipts + 1, sizeof *s->receipts) != 0)
		return ev_error_set(err, EV_ERROR, "out of memory");
	struct found *f = &s->receipts[s->nreceipts];
	memset(f, 0, sizeof *f);
	size_t n = rf->inputs ? (strlen(rf->inputs) + 1) / (EV_SHA256_HEX_LEN + 1) : 0;
	const char *from[] = {path, rf->kind, rf->host, rf->result, rf->finished, rf->comparable, rf->command,
			      rf->seal, rf->root, rf->registration};
	const char **const to[] = {&f->path, &f->kind, &f->host, &f->result, &f->finished, &f->comparable,
				   &f->command, &f->seal, &f->root, &f->registration};
	enum { NFROM = sizeof from / sizeof *from };
	if (!(f->block = malloc(n * sizeof *f->inputs + ev_strings_size(from, NFROM))))
		return ev_error_set(err, EV_ERROR, "out of memory");
	s->nreceipts++;
	f->inputs = n ? (void *)f->block : NULL; /* the digests first: char arrays, any address will do */
	ev_strings_copy(f->block + n * sizeof *f->inputs, from, to, NFROM);
	for (size_t i = 0; i < n; i++) {
		memcpy(f->inputs[i], rf->inputs + i * (EV_SHA256_HEX_LEN + 1), EV_SHA256_HEX_LEN);
		f->inputs[i][EV_SHA256_HEX_LEN] = '\0';
	}
	f->ninputs = n;
	snprintf(f->sha256, sizeof f->sha256, "%s", hex);
	f->intact = rf->intact;
	f->from_archive = rf->from_archive;
	if (s->trust && doc) {
		char why[256];
		struct ev_error e;
		ev_error_clear(&e);
		f->trusted = ev_receipt_check_signature(doc, s->trust, f->signer, why, sizeof why, &e) == EV_OK;
	}
	return EV_OK;
}

ev_status ev_inventory_grow_seals(struct status *s, struct ev_error *err)
{
	if (ev_grow_array(&s->seals, &s->seals_cap, s->nseals + 1, sizeof *s->seals) != 0)
		return ev_error_set(err, EV_ERROR, "out of memory");
	return EV_OK;
}

static ev_status keep_seal(struct status *s, const char *path, json_t *doc, const char *hex, struct ev_error *err)
{
	ev_status st = ev_inventory_grow_seals(s, err);
	if (st != EV_OK)
		return st;
	struct seal_file *f = &s->seals[s->nseals];
	struct ev_seal seal;
	struct ev_error e;
	ev_error_clear(&e);
	if (ev_seal_from_json(doc, path, 0, &seal, &e) != EV_OK) {
		ev_inventory_note(s->unreadable, path, e.text);
		return EV_OK;
	}
	memset(f, 0, sizeof *f);
	snprintf(f->sha256, sizeof f->sha256, "%s", hex);
	f->path = ev_inventory_copy(path);
	f->root = ev_inventory_copy(seal.root);
	f->stamped = ev_timestamp_present(path);
	if (!(f->digests = malloc((seal.count + 1) * sizeof *f->digests)) || !f->path || !f->root) {
		free(f->path), free(f->root), free(f->digests);
		ev_seal_free(&seal);
		return ev_error_set(err, EV_ERROR, "out of memory");
	}
	for (size_t i = 0; i < seal.count; i++)
		if (seal.members[i].type == EV_MEMBER_FILE && seal.members[i].size)
			ev_sha256_hex(seal.members[i].sha256, f->digests[f->ndigests++]);
	qsort(f->digests, f->ndigests, sizeof *f->digests, by_text);
	ev_seal_free(&seal);
	s->nseals++;
	return EV_OK;
}

/* One JSON file the walk met: a receipt or a seal is kept, anything else
 * passed by; one that is not a regular file is named, never opened. */
static ev_status read_file(void *ctx, const char *path, const struct stat *sb, struct ev_error *err)
{
	struct status *s = ctx;
	if (!S_ISREG(sb->st_mode)) {
		ev_inventory_note(s->skipped, path, ev_input_kind(sb->st_mode));
		return EV_OK;
	}
	json_t *doc = NULL;
	uint8_t d[EV_SHA256_LEN];
	char hex[EV_SHA256_HEX_LEN + 1];
	struct ev_error e;
	ev_error_clear(&e);
	if (ev_json_load(path, NULL, 0, &doc, d, NULL, NULL, &e) != EV_OK) {
		ev_inventory_note(s->unreadable, path, e.text);
		return EV_OK;
	}
	ev_sha256_hex(d, hex);
	const char *format = ev_inventory_field(doc, "format") ?: "";
	ev_status st = EV_OK;
	if (strcmp(format, EV_RECEIPT_FORMAT) == 0) {
		struct ev_catalog_receipt_fields g;
		if ((st = ev_catalog_receipt_fields(doc, &g, err)) == EV_OK) {
			struct receipt_fields rf = {
				.kind = g.kind, .host = g.host, .result = g.result, .finished = g.finished,
				.comparable = g.comparable, .command = g.command, .seal = g.seal, .root = g.root,
				.inputs = g.inputs, .registration = g.registration, .intact = g.intact,
				.from_archive = g.from_archive,
			};
			st = ev_inventory_keep_receipt(s, path, hex, &rf, doc, err);
			ev_catalog_receipt_fields_free(&g);
		}
	} else if (strcmp(format, EV_SEAL_FORMAT) == 0) {
		st = keep_seal(s, path, doc, hex, err);
	}
	json_decref(doc);
	return st;
}

static ev_status gather_files(struct status *s, struct ev_replicate_status *out, struct ev_error *err)
{
	ev_status st = EV_OK;
	for (size_t i = 0; i < out->ndirs && st == EV_OK; i++) {
		struct stat sb;
		if (stat(out->dirs[i], &sb) != 0)
			st = ev_error_errno(err, errno, "%s: cannot read it", out->dirs[i]);
		else if (!S_ISDIR(sb.st_mode))
			st = ev_error_set(err, EV_USAGE, "%s: is %s; expected a directory of receipts and seals",
					  out->dirs[i], ev_input_kind(sb.st_mode));
		else
			st = ev_jsonwalk(out->dirs[i], read_file, s, err);
	}
	return st;
}

ev_status ev_replicate_status(struct ev_replicate_status *out, struct ev_error *err)
{
	struct status s = {.min_hosts = out->min_hosts ? out->min_hosts : 2, .max_age = out->max_age,
			   .now = time(NULL), .tsa_ca = out->tsa_ca};
	ev_status st = EV_OK;
	out->doc = NULL;
	out->recheck_doc = NULL;
	s.unreadable = json_array();
	s.skipped = json_array();
	s.not_believed = json_array();
	s.by_sha256 = json_object();
	if (out->ntrust && !(s.trust = ev_trust_new()))
		st = ev_error_set(err, EV_ERROR, "out of memory");
	for (size_t i = 0; i < out->ntrust && st == EV_OK; i++)
		st = ev_trust_add_file(s.trust, out->trust_files[i], err);
	for (size_t i = 0; i < out->ndirs && st == EV_OK && out->catalog; i++) {
		struct stat sb;
		if (stat(out->dirs[i], &sb) == 0 && !S_ISDIR(sb.st_mode))
			st = ev_error_set(err, EV_USAGE, "%s: is %s; expected a directory of receipts and seals",
					  out->dirs[i], ev_input_kind(sb.st_mode));
	}
	if (st == EV_OK)
		st = out->catalog ? ev_inventory_gather_catalog(&s, out, err) : gather_files(&s, out, err);
	if (st == EV_OK) {
		json_t *rows = ev_inventory_campaigns(&s, out->seal_hex), *unmatched = json_array();
		if (out->seal_hex && !json_array_size(rows))
			st = ev_error_set(err, EV_USAGE, "seal %s: no SEAL.json and no receipt naming it found%s%s",
					  out->seal_hex, out->catalog ? " in catalog " : "",
					  out->catalog ? out->catalog : "");
		for (size_t i = 0; i < s.nreceipts && !out->seal_hex; i++)
			if (!s.receipts[i].claimed)
				json_array_append_new(unmatched, json_string(s.receipts[i].path));
		if (out->seal_hex) { /* one campaign: what else lies about is not its business */
			json_array_clear(s.unreadable);
			json_array_clear(s.skipped);
		}
		if (st == EV_OK)
			out->doc = json_pack("{s:s, s:o, s:o, s:O, s:O}", "format", STATUS_FORMAT, "campaigns", rows,
					     "unmatched", unmatched, "unreadable", s.unreadable, "skipped", s.skipped);
		else
			json_decref(rows), json_decref(unmatched);
		/* only a catalog has rows to disbelieve; a clean one prints the walk's bytes */
		if (out->doc && json_array_size(s.not_believed))
			json_object_set(out->doc, "not_believed", s.not_believed);
		out->not_believed = json_array_size(s.not_believed);
		if (out->doc && s.trust)
			json_object_set_new(out->doc, "untrusted_left_out", json_integer((json_int_t)s.untrusted));
		if (out->doc && s.max_age) {
			char now[32];
			struct tm tm;
			strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&s.now, &tm));
			json_object_set_new(out->doc, "max_age_seconds", json_integer((json_int_t)s.max_age));
			json_object_set_new(out->doc, "judged_at", json_string(now));
		}
	}
	for (size_t i = 0; i < s.nreceipts; i++) {
		struct found *f = &s.receipts[i];
		free(f->block);
		json_decref(f->also);
	}
	free(s.receipts);
	for (size_t i = 0; i < s.nseals; i++)
		free(s.seals[i].path), free(s.seals[i].root), free(s.seals[i].digests);
	free(s.seals);
	json_decref(s.unreadable);
	json_decref(s.skipped);
	json_decref(s.not_believed);
	json_decref(s.by_sha256);
	ev_trust_free(s.trust);
	return st;
}

void ev_replicate_status_free(struct ev_replicate_status *s)
{
	json_decref(s->doc);
	json_decref(s->recheck_doc);
	s->doc = NULL;
	s->recheck_doc = NULL;
}
