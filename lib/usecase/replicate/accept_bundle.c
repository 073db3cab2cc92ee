/* SPDX-License-Identifier: Apache-2.0 */
/* accept_bundle: the verdict and its evidence as an in-toto bundle
 * (accept_bundle.h); accept_bundle_read.c takes one back apart. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/core/base64.h"
#include "lib/core/json.h"
#include "lib/core/path.h"
#include "lib/core/publish.h"
#include "lib/receipt/attestation.h"
#include "lib/receipt/receipt.h"
#include "lib/receipt/receipt_read.h"
#include "lib/usecase/replicate/accept_bundle.h"
#include "lib/usecase/replicate/accept_bundle_read.h"

#define FILE_MAX ((size_t)256 << 20)

static json_t *digest_set(const char *hex)
{
	return json_pack("{s:s}", "sha256", hex);
}

/* The seal, subject of every line but the receipts' own. */
static json_t *seal_subject(const struct ev_replicate_accept *a)
{
	return json_pack("[{s:s, s:o}]", "name", "SEAL.json", "digest", digest_set(a->seal_sha256));
}

static ev_status read_file(const char *path, char **bytes, size_t *len, char hex[EV_SHA256_HEX_LEN + 1],
			   struct ev_error *err)
{
	ev_status st = ev_file_read_all(path, FILE_MAX, bytes, len, err);
	uint8_t digest[EV_SHA256_LEN];
	if (st == EV_OK && hex && (st = ev_sha256_buffer(*bytes, *len, digest, err)) == EV_OK)
		ev_sha256_hex(digest, hex);
	return st;
}

/* The lines being built: envelopes, appended as canonical JSON lines. */
struct lines {
	char *text;
	size_t len;
	const struct ev_signing_key *const *keys;
	size_t nkeys;
};

/* An envelope appended as one line (taken). */
static ev_status add_envelope(struct lines *l, json_t *envelope, struct ev_error *err)
{
	char *bytes = NULL;
	size_t n = 0;
	ev_status st = ev_json_dump(envelope, &bytes, &n, err);
	json_decref(envelope);
	char *more = st == EV_OK ? realloc(l->text, l->len + n + 1) : NULL;
	if (st == EV_OK && !more)
		st = ev_error_set(err, EV_ERROR, "out of memory");
	if (st == EV_OK) {
		memcpy(more + l->len, bytes, n); /* ev_json_dump ends it with its newline: one line */
		l->text = more;
		l->len += n;
		l->text[l->len] = '\0';
	}
	free(bytes);
	return st;
}

/* A statement (taken), enveloped and signed, appended. */
static ev_status add_statement(struct lines *l, json_t *statement, struct ev_error *err)
{
	json_t *envelope = NULL;
	ev_status st = statement ? ev_attestation_envelope(statement, l->keys, l->nkeys, &envelope, err)
				 : ev_error_set(err, EV_ERROR, "out of memory");
	json_decref(statement);
	return st == EV_OK ? add_envelope(l, envelope, err) : st;
}

/* A test result of an audit receipt: its checks passed and failed, its
 * plan and grading rules the configuration, the seal and archive it
 * tested the subjects. */
static json_t *test_result(const json_t *r, const char *receipt_sha256)
{
	json_t *passed = json_array(), *failed = json_array(), *config = json_array(), *subjects = json_array();
	size_t i;
	json_t *c;
	json_array_foreach(ev_receipt_checks(r), i, c) {
		const char *name = json_string_value(json_object_get(c, "name"));
		const char *result = json_string_value(json_object_get(c, "result"));
		if (name)
			json_array_append_new(result && strcmp(result, "pass") == 0 ? passed : failed, json_string(name));
	}
	static const char *const tested[] = {"SEAL.json", "archive", "summary A"};
	for (size_t k = 0; k < sizeof tested / sizeof *tested; k++) {
		const char *hex = ev_receipt_input_sha256(r, tested[k]);
		if (hex)
			json_array_append_new(subjects, json_pack("{s:s, s:o}", "name", tested[k], "digest", digest_set(hex)));
	}
	static const char *const configured[] = {"plan", "reference", "policy.json"};
	for (size_t k = 0; k < sizeof configured / sizeof *configured; k++) {
		const char *hex = ev_receipt_input_sha256(r, configured[k]);
		if (hex)
			json_array_append_new(config, json_pack("{s:s, s:o}", "name", configured[k], "digest", digest_set(hex)));
	}
	const json_t *rules = json_object_get(ev_receipt_fact(r, "grade"), "rules");
	const char *rules_sha = json_string_value(json_object_get(rules, "sha256"));
	if (rules_sha)
		json_array_append_new(config, json_pack("{s:s, s:o}", "name",
							json_string_value(json_object_get(rules, "name")) ?: "grading rules",
							"digest", digest_set(rules_sha)));
	char command[128];
	ev_receipt_command(r, command, sizeof command);
	json_t *predicate = json_pack("{s:s, s:o, s:o, s:o, s:[], s:{s:s, s:s, s:s?}}", "result",
				      ev_receipt_passed(r) ? "PASSED" : "FAILED", "configuration", config, "passedTests",
				      passed, "failedTests", failed, "warnedTests", "urn:evidence:receipt", "command",
				      command, "sha256", receipt_sha256, "host", ev_receipt_host(r));
	return ev_statement_new(subjects, EV_TEST_RESULT_PREDICATE_TYPE, predicate);
}

static json_t *vsa(const struct ev_replicate_accept *a, json_t *inputs)
{
	static const char *const states[] = {"held", "unmet", "not required"};
	char now[32], level[160], policy_uri[160], resource[96];
	ev_utc_now(now, sizeof now);
	snprintf(level, sizeof level, "EVIDENCE_ACCEPTED_%s_V%lld", a->policy.name, a->policy.version);
	snprintf(policy_uri, sizeof policy_uri, "urn:evidence:acceptance:%s:%lld", a->policy.name, a->policy.version);
	snprintf(resource, sizeof resource, "urn:evidence:seal:sha256:%s", a->seal_sha256);
	json_t *conditions = json_array();
	for (int i = 0; i < EV_ACCEPT_CONDITIONS; i++)
		json_array_append_new(conditions, json_pack("{s:s, s:s, s:s}", "condition", a->conditions[i].name, "state",
							    states[a->conditions[i].state], "said", a->conditions[i].said));
	int passed = a->first_unmet < 0;
	json_t *predicate = json_pack("{s:{s:s, s:{s:s}}, s:s, s:s, s:{s:s, s:o}, s:o, s:s, s:[s], s:o}", "verifier",
				      "id", EV_VERIFIER_ID, "version", "evidence", PACKAGE_VERSION, "timeVerified", now,
				      "resourceUri", resource, "policy", "uri", policy_uri, "digest",
				      digest_set(a->policy.sha256), "inputAttestations", inputs, "verificationResult",
				      passed ? "PASSED" : "FAILED", "verifiedLevels", passed ? level : "FAILED",
				      "urn:evidence:conditions", conditions);
	return ev_statement_new(seal_subject(a), EV_VSA_PREDICATE_TYPE, predicate);
}

/* A file carried whole, base64, under a carrier predicate. */
static ev_status carry_timestamp(struct lines *l, const struct ev_replicate_accept *a, const char *tsr_path,
				 json_t *inputs, struct ev_error *err)
{
	char tsq_path[PATH_MAX + 8], hex[EV_SHA256_HEX_LEN + 1];
	snprintf(tsq_path, sizeof tsq_path, "%.*s.tsq", (int)strlen(tsr_path) - 4, tsr_path);
	char *q = NULL, *r = NULL, *bq = NULL, *br = NULL;
	size_t ql = 0, rl = 0;
	ev_status st = read_file(tsq_path, &q, &ql, NULL, err);
	if (st == EV_OK)
		st = read_file(tsr_path, &r, &rl, hex, err);
	if (st == EV_OK && (!(bq = ev_base64_encode((unsigned char *)q, ql)) || !(br = ev_base64_encode((unsigned char *)r, rl))))
		st = ev_error_set(err, EV_ERROR, "out of memory");
	if (st == EV_OK) {
		json_array_append_new(inputs, json_pack("{s:s, s:o}", "uri", tsr_path, "digest", digest_set(hex)));
		st = add_statement(l, ev_statement_new(seal_subject(a), TIMESTAMP_TYPE,
						       json_pack("{s:s, s:s, s:s}", "file", "SEAL.json", "tsq", bq, "tsr", br)),
				   err);
	}
	free(q), free(r), free(bq), free(br);
	return st;
}

static ev_status carry_log(struct lines *l, const struct ev_replicate_accept *a, const char *dir, json_t *inputs,
			   struct ev_error *err)
{
	char path[PATH_MAX], hex[EV_SHA256_HEX_LEN + 1];
	char *entries = NULL;
	size_t len = 0;
	if (ev_path_join(path, sizeof path, dir, "entries.jsonl") != 0)
		return ev_error_set(err, EV_USAGE, "%s: path too long", dir);
	ev_status st = read_file(path, &entries, &len, hex, err);
	if (st == EV_OK) {
		json_array_append_new(inputs, json_pack("{s:s, s:o}", "uri", path, "digest", digest_set(hex)));
		st = add_statement(l, ev_statement_new(seal_subject(a), LOG_TYPE,
						       json_pack("{s:s, s:s%}", "origin", a->policy.origin, "entries",
								 entries, len)),
				   err);
	}
	free(entries);
	return st;
}

static ev_status carry_checkpoint(struct lines *l, const struct ev_replicate_accept *a, const json_t *doc,
				  json_t *inputs, struct ev_error *err)
{
	const char *path = json_string_value(json_object_get(doc, "path"));
	char hex[EV_SHA256_HEX_LEN + 1], *note = NULL;
	size_t len = 0;
	ev_status st = read_file(path, &note, &len, hex, err);
	if (st == EV_OK) {
		json_array_append_new(inputs, json_pack("{s:s, s:o}", "uri", path, "digest", digest_set(hex)));
		st = add_statement(l, ev_statement_new(seal_subject(a), CHECKPOINT_TYPE,
						       json_pack("{s:O, s:s%}", "witness", json_object_get(doc, "signed_by"),
								 "checkpoint", note, len)),
				   err);
	}
	free(note);
	return st;
}

ev_status ev_accept_bundle_write(const struct ev_replicate_accept *a, const struct ev_signing_key *const *keys,
				 size_t nkeys, const char *path, struct ev_error *err)
{
	struct lines l = {.keys = keys, .nkeys = nkeys};
	json_t *inputs = json_array();
	json_t *seal = NULL;
	uint8_t digest[EV_SHA256_LEN];
	/* the seal itself, then each document the verdict read */
	ev_status st = ev_json_load(a->seal_path, NULL, 0, &seal, digest, NULL, NULL, err);
	if (st == EV_OK) {
		json_array_append_new(inputs, json_pack("{s:s, s:o}", "uri", a->seal_path, "digest",
							digest_set(a->seal_sha256)));
		st = add_statement(&l, ev_statement_new(seal_subject(a), SEAL_TYPE, json_incref(seal)), err);
	}
	json_decref(seal);
	size_t i;
	json_t *doc;
	json_array_foreach(a->relied_on, i, doc) {
		if (st != EV_OK)
			break;
		const char *kind = json_string_value(json_object_get(doc, "kind"));
		const char *file = json_string_value(json_object_get(doc, "path"));
		if (strcmp(kind, "timestamp") == 0) {
			st = carry_timestamp(&l, a, file, inputs, err);
		} else if (strcmp(kind, "log") == 0) {
			st = carry_log(&l, a, file, inputs, err);
		} else if (strcmp(kind, "cosigned-checkpoint") == 0) {
			st = carry_checkpoint(&l, a, doc, inputs, err);
		} else {
			json_t *r = NULL, *envelope = NULL;
			uint8_t d[EV_SHA256_LEN];
			char hex[EV_SHA256_HEX_LEN + 1];
			if ((st = ev_receipt_load(file, &r, d, err)) != EV_OK)
				break;
			ev_sha256_hex(d, hex);
			json_array_append_new(inputs, json_pack("{s:s, s:o}", "uri", file, "digest", digest_set(hex)));
			if ((st = ev_attestation_make(r, keys, nkeys, &envelope, err)) == EV_OK)
				st = add_envelope(&l, envelope, err);
			if (st == EV_OK && (strcmp(kind, "audit") == 0 || strcmp(kind, "reproduction") == 0))
				st = add_statement(&l, test_result(r, hex), err);
			json_decref(r);
		}
	}
	if (st == EV_OK)
		st = add_statement(&l, vsa(a, json_incref(inputs)), err);
	json_decref(inputs);
	if (st == EV_OK)
		st = ev_publish_bytes(path, l.text, l.len, 0644, err);
	free(l.text);
	return st;
}

/* Unpacking: each carried document written where accept reads it. */
