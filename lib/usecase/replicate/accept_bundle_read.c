/* SPDX-License-Identifier: Apache-2.0 */
/* accept_bundle_read: an acceptance bundle unpacked (accept_bundle_read.h). */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/core/base64.h"
#include "lib/core/json.h"
#include "lib/core/path.h"
#include "lib/core/publish.h"
#include "lib/receipt/attestation.h"
#include "lib/receipt/checkpoint.h"
#include "lib/receipt/receipt_read.h"
#include "lib/usecase/replicate/accept_bundle_read.h"

#define FILE_MAX ((size_t)256 << 20)

static ev_status put(const char *dir, const char *name, const void *bytes, size_t len, struct ev_error *err)
{
	char path[PATH_MAX];
	if (ev_path_join(path, sizeof path, dir, name) != 0)
		return ev_error_set(err, EV_USAGE, "%s: path too long", dir);
	char parent[PATH_MAX];
	snprintf(parent, sizeof parent, "%s", path);
	for (char *p = parent + strlen(dir) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(parent, 0700) != 0 && errno != EEXIST)
			return ev_error_errno(err, errno, "%s: cannot make the directory", parent);
		*p = '/';
	}
	return ev_publish_bytes(path, bytes, len, 0600, err);
}

static ev_status put_json(const char *dir, const char *name, const json_t *doc, struct ev_error *err)
{
	char *bytes = NULL;
	size_t len = 0;
	ev_status st = ev_json_dump(doc, &bytes, &len, err);
	if (st == EV_OK)
		st = put(dir, name, bytes, len, err);
	free(bytes);
	return st;
}

static ev_status put_base64(const char *dir, const char *name, const char *text, struct ev_error *err)
{
	size_t len = 0;
	unsigned char *bytes = text ? ev_base64_decode(text, strlen(text), &len) : NULL;
	if (!bytes)
		return ev_error_set(err, EV_REFUSED, "%s: not standard base64", name);
	ev_status st = put(dir, name, bytes, len, err);
	free(bytes);
	return st;
}

/* One statement's evidence into dir; n counts the receipts. */
static ev_status unpack_statement(const json_t *statement, const char *dir, size_t *n, const char *where,
				  struct ev_error *err)
{
	const char *type = json_string_value(json_object_get(statement, "predicateType")) ?: "";
	const json_t *p = json_object_get(statement, "predicate");
	char name[PATH_MAX];
	if (strcmp(type, EV_ATTESTATION_PREDICATE_TYPE) == 0) {
		/* the kind is the document's word, never part of a path: "../x" would climb out */
		const char *kind = ev_receipt_kind(p);
		if (kind && strcmp(kind, "seal") == 0)
			snprintf(name, sizeof name, "sealed/receipt.json");
		else
			snprintf(name, sizeof name, "receipts/%03zu.json", ++*n);
		return put_json(dir, name, p, err);
	}
	if (strcmp(type, SEAL_TYPE) == 0)
		return put_json(dir, "sealed/SEAL.json", p, err);
	if (strcmp(type, TIMESTAMP_TYPE) == 0) {
		ev_status st = put_base64(dir, "sealed/SEAL.json.tsq", json_string_value(json_object_get(p, "tsq")), err);
		return st == EV_OK ? put_base64(dir, "sealed/SEAL.json.tsr", json_string_value(json_object_get(p, "tsr")), err)
				   : st;
	}
	if (strcmp(type, LOG_TYPE) == 0) {
		const char *origin = json_string_value(json_object_get(p, "origin"));
		const json_t *entries = json_object_get(p, "entries");
		if (!origin || !json_is_string(entries))
			return ev_error_set(err, EV_REFUSED, "%s: %s: expected origin and entries", where, LOG_TYPE);
		char line[EV_NOTE_NAME_MAX + 2];
		snprintf(line, sizeof line, "%s\n", origin);
		ev_status st = put(dir, "log/origin", line, strlen(line), err);
		return st == EV_OK ? put(dir, "log/entries.jsonl", json_string_value(entries), json_string_length(entries), err)
				   : st;
	}
	if (strcmp(type, CHECKPOINT_TYPE) == 0) {
		const char *witness = json_string_value(json_object_get(p, "witness"));
		const json_t *note = json_object_get(p, "checkpoint");
		const char *text = json_string_value(note);
		const char *nl = text ? strchr(text, '\n') : NULL;
		unsigned long long size = nl ? strtoull(nl + 1, NULL, 10) : 0;
		if (!witness || !ev_note_name_ok(witness) || !nl)
			return ev_error_set(err, EV_REFUSED, "%s: %s: expected witness and checkpoint", where, CHECKPOINT_TYPE);
		char file[EV_NOTE_NAME_MAX];
		snprintf(file, sizeof file, "%s", witness);
		for (char *c = file; *c; c++)
			if (*c == '/' || (c == file && *c == '.'))
				*c = '_';
		snprintf(name, sizeof name, "log/cosignatures/%s/checkpoint-%010llu", file, size);
		return put(dir, name, text, json_string_length(note), err);
	}
	return EV_OK; /* a verdict, or a statement this does not read */
}

ev_status ev_accept_bundle_unpack(const char *bundle, const char *dir, struct ev_error *err)
{
	char *text = NULL;
	size_t len = 0;
	ev_status st = ev_file_read_all(bundle, FILE_MAX, &text, &len, err);
	size_t receipts = 0, number = 0;
	for (char *line = text; st == EV_OK && line && line < text + len; number++) {
		char *nl = memchr(line, '\n', (size_t)(text + len - line));
		size_t n = nl ? (size_t)(nl - line) : (size_t)(text + len - line);
		char where[PATH_MAX + 32], why[512];
		snprintf(where, sizeof where, "%s: line %zu", bundle, number + 1);
		json_error_t e;
		json_t *envelope = n ? json_loadb(line, n, JSON_REJECT_DUPLICATES, &e) : NULL, *statement = NULL;
		line = nl ? nl + 1 : NULL;
		if (!envelope)
			continue; /* "consumers MUST ignore unrecognized lines" */
		ev_status ost = ev_attestation_open(envelope, NULL, &statement, NULL, why, sizeof why, err);
		json_decref(envelope);
		if (ost == EV_MISMATCH)
			continue;
		if (ost != EV_OK)
			st = ost;
		else
			st = unpack_statement(statement, dir, &receipts, where, err);
		json_decref(statement);
	}
	free(text);
	return st;
}
