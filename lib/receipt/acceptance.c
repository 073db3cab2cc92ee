/* SPDX-License-Identifier: Apache-2.0 */
/* acceptance: the acceptance policy, read strictly (acceptance.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/base64.h"
#include "lib/core/json.h"
#include "lib/core/duration.h"
#include "lib/receipt/acceptance.h"

static const char *const kind_names[EV_ACCEPT_KINDS] = {"seal", "replica", "audit"};

const char *ev_acceptance_kind_name(enum ev_acceptance_kind kind)
{
	return kind_names[kind];
}

static ev_status refuse(struct ev_error *err, const char *name, const char *key, const char *what)
{
	return ev_error_set(err, EV_REFUSED, "%s: %s: %s", name, key, what);
}

static int name_ok(const char *s, size_t max)
{
	size_t n = strlen(s);
	if (n == 0 || n > max)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-", s[i]))
			return 0;
	return 1;
}

static size_t key_named(const struct ev_acceptance *p, const char *name)
{
	for (size_t i = 0; name && i < p->nkeys; i++)
		if (strcmp(p->keys[i].name, name) == 0)
			return i;
	return (size_t)-1;
}

size_t ev_acceptance_key_by_id(const struct ev_acceptance *p, const char *id)
{
	for (size_t i = 0; id && i < p->nkeys; i++)
		if (strcmp(p->keys[i].id, id) == 0)
			return i;
	return (size_t)-1;
}

static ev_status read_keys(struct ev_acceptance *p, const json_t *keys, const char *name, struct ev_error *err)
{
	if (!json_is_object(keys) || json_object_size(keys) == 0)
		return refuse(err, name, "keys", "expected an object of key names and base64 Ed25519 public keys, "
			      "at least one");
	p->keys = calloc(json_object_size(keys), sizeof *p->keys);
	if (!p->keys)
		return ev_error_set(err, EV_ERROR, "out of memory");
	const char *k;
	const json_t *v;
	json_object_foreach((json_t *)keys, k, v) {
		struct ev_acceptance_key *key = &p->keys[p->nkeys];
		const char *text = json_string_value(v);
		size_t len = 0;
		unsigned char *raw = text ? ev_base64_decode(text, strlen(text), &len) : NULL;
		if (!ev_note_name_ok(k) || !raw || len != sizeof key->pub) {
			free(raw);
			return ev_error_set(err, EV_REFUSED, "%s: keys.%s: expected a key name (printable ASCII without "
					    "space or '+') and the base64 of a raw 32-byte Ed25519 public key", name, k);
		}
		memcpy(key->pub, raw, sizeof key->pub);
		free(raw);
		snprintf(key->name, sizeof key->name, "%s", k);
		uint8_t digest[EV_SHA256_LEN];
		ev_status st = ev_sha256_buffer(key->pub, sizeof key->pub, digest, err);
		if (st != EV_OK)
			return st;
		ev_sha256_hex(digest, key->id);
		p->nkeys++;
	}
	return EV_OK;
}

static ev_status read_signers(struct ev_acceptance *p, const json_t *signers, const char *name, struct ev_error *err)
{
	if (!json_is_object(signers))
		return refuse(err, name, "signers", "expected an object: for \"seal\", \"replica\" and \"audit\", the key "
			      "names that may sign those receipts");
	const char *k;
	const json_t *v;
	json_object_foreach((json_t *)signers, k, v) {
		int kind = -1;
		for (int i = 0; i < EV_ACCEPT_KINDS; i++)
			if (strcmp(k, kind_names[i]) == 0)
				kind = i;
		char where[64];
		snprintf(where, sizeof where, "signers.%.40s", k);
		if (kind < 0)
			return refuse(err, name, where, "not a receipt kind a policy names signers for (seal, replica, audit)");
		if (!json_is_array(v) || json_array_size(v) == 0)
			return refuse(err, name, where, "expected a list of key names, at least one");
		if (!(p->signers[kind] = ev_trust_new()))
			return ev_error_set(err, EV_ERROR, "out of memory");
		size_t i;
		const json_t *n;
		json_array_foreach(v, i, n) {
			size_t at = key_named(p, json_string_value(n));
			if (at == (size_t)-1)
				return ev_error_set(err, EV_REFUSED, "%s: %s: %s is not a key the policy names in \"keys\"",
						    name, where, json_string_value(n) ?: "(not a string)");
			ev_status st = ev_trust_add_raw(p->signers[kind], p->keys[at].pub, err);
			if (st != EV_OK)
				return st;
		}
	}
	return EV_OK;
}

/* A count: a non-negative integer below a bound no lab reaches. */
static ev_status read_count(const json_t *doc, const char *key, const char *name, size_t *out, struct ev_error *err)
{
	const json_t *v = json_object_get(doc, key);
	if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 1000)
		return refuse(err, name, key, "expected a count of distinct hosts, 0 to 1000");
	*out = (size_t)json_integer_value(v);
	return EV_OK;
}

static ev_status read_checkpoints(struct ev_acceptance *p, const json_t *c, const char *name, struct ev_error *err)
{
	if (json_is_null(c))
		return EV_OK;
	static const char *const known[] = {"log_key", "origin", "quorum", "witnesses"};
	const char *k;
	const json_t *v;
	json_object_foreach((json_t *)c, k, v) {
		int ok = 0;
		for (size_t i = 0; i < sizeof known / sizeof *known; i++)
			ok |= strcmp(k, known[i]) == 0;
		if (!ok)
			return ev_error_set(err, EV_REFUSED, "%s: checkpoints.%s: not a key of checkpoints (log_key, origin, "
					    "quorum, witnesses)", name, k);
	}
	if (!json_is_object(c))
		return refuse(err, name, "checkpoints", "expected null or {origin, log_key, witnesses, quorum}");
	p->checkpoints = 1;
	p->origin = json_string_value(json_object_get(c, "origin"));
	if (!p->origin || !ev_note_name_ok(p->origin))
		return refuse(err, name, "checkpoints.origin", "expected the log's origin, as its checkpoints name it");
	if ((p->log_key = key_named(p, json_string_value(json_object_get(c, "log_key")))) == (size_t)-1)
		return refuse(err, name, "checkpoints.log_key", "expected the name of the log's key in \"keys\"");
	const json_t *w = json_object_get(c, "witnesses");
	if (!json_is_array(w) || json_array_size(w) == 0)
		return refuse(err, name, "checkpoints.witnesses", "expected the names of the witnesses' keys, at least one");
	if (!(p->witnesses = calloc(json_array_size(w), sizeof *p->witnesses)))
		return ev_error_set(err, EV_ERROR, "out of memory");
	size_t i;
	json_array_foreach(w, i, v) {
		size_t at = key_named(p, json_string_value(v));
		if (at == (size_t)-1 || at == p->log_key)
			return ev_error_set(err, EV_REFUSED, "%s: checkpoints.witnesses: %s is not a key the policy names in "
					    "\"keys\" other than the log's", name, json_string_value(v) ?: "(not a string)");
		for (size_t j = 0; j < p->nwitnesses; j++)
			if (p->witnesses[j] == at)
				return ev_error_set(err, EV_REFUSED, "%s: checkpoints.witnesses: %s is named twice", name,
						    p->keys[at].name);
		p->witnesses[p->nwitnesses++] = at;
	}
	ev_status st = read_count(c, "quorum", name, &p->quorum, err);
	if (st == EV_OK && (p->quorum == 0 || p->quorum > p->nwitnesses))
		st = ev_error_set(err, EV_REFUSED, "%s: checkpoints.quorum: expected 1 to %zu (the witnesses named), "
				  "found %zu", name, p->nwitnesses, p->quorum);
	return st;
}

ev_status ev_acceptance_read(json_t *doc, const char *name, struct ev_acceptance *p, struct ev_error *err)
{
	memset(p, 0, sizeof *p);
	p->doc = json_incref(doc);
	static const char *const known[] = {"audits", "checkpoints", "expires", "format", "grade", "keys", "name",
					    "reference", "replicas", "signature", "signers", "timestamp", "version"};
	for (size_t i = 0; i < sizeof known / sizeof *known; i++)
		if (strcmp(known[i], "signature") != 0 && !json_object_get(doc, known[i]))
			return ev_error_set(err, EV_REFUSED, "%s: %s: missing (a policy states every condition; null "
					    "where it requires none)", name, known[i]);
	const char *k;
	const json_t *v;
	json_object_foreach(doc, k, v) {
		int ok = 0;
		for (size_t i = 0; i < sizeof known / sizeof *known; i++)
			ok |= strcmp(k, known[i]) == 0;
		if (!ok)
			return refuse(err, name, k, "not a key of " EV_ACCEPTANCE_FORMAT);
	}
	const char *format = json_string_value(json_object_get(doc, "format"));
	if (!format || strcmp(format, EV_ACCEPTANCE_FORMAT) != 0)
		return refuse(err, name, "format", "expected \"" EV_ACCEPTANCE_FORMAT "\"");
	p->name = json_string_value(json_object_get(doc, "name"));
	if (!p->name || !name_ok(p->name, 64))
		return refuse(err, name, "name", "expected 1-64 of A-Za-z0-9_.-");
	const json_t *version = json_object_get(doc, "version");
	if (!json_is_integer(version) || json_integer_value(version) < 1)
		return refuse(err, name, "version", "expected an integer from 1");
	p->version = json_integer_value(version);
	p->expires = json_string_value(json_object_get(doc, "expires"));
	if (!ev_utc_parse(p->expires, &p->expires_at))
		return refuse(err, name, "expires", "expected a UTC time, YYYY-MM-DDTHH:MM:SSZ");
	ev_status st = read_keys(p, json_object_get(doc, "keys"), name, err);
	if (st == EV_OK)
		st = read_signers(p, json_object_get(doc, "signers"), name, err);
	if (st != EV_OK)
		return st;
	const json_t *ts = json_object_get(doc, "timestamp");
	if (!json_is_null(ts)) {
		p->tsa_ca = json_string_value(json_object_get(ts, "tsa_ca"));
		if (!json_is_object(ts) || json_object_size(ts) != 1 || !p->tsa_ca ||
		    strncmp(p->tsa_ca, "-----BEGIN CERTIFICATE-----", 27) != 0)
			return refuse(err, name, "timestamp", "expected null or {\"tsa_ca\": the PEM certificate(s) the "
				      "seal's time-stamp authority must chain to}");
	}
	if ((st = read_count(doc, "replicas", name, &p->replicas, err)) != EV_OK ||
	    (st = read_count(doc, "audits", name, &p->audits, err)) != EV_OK ||
	    (st = read_checkpoints(p, json_object_get(doc, "checkpoints"), name, err)) != EV_OK)
		return st;
	const char *grade = json_string_value(json_object_get(doc, "grade"));
	if (!grade || (strcmp(grade, "quiet") != 0 && strcmp(grade, "any") != 0))
		return refuse(err, name, "grade", "expected \"quiet\" (every agreeing audit graded the campaign quiet) "
			      "or \"any\"");
	p->grade_quiet = strcmp(grade, "quiet") == 0;
	if (p->grade_quiet && !p->audits)
		return refuse(err, name, "grade", "\"quiet\" needs audits: at least 1 (the grade is an audit's)");
	const json_t *ref = json_object_get(doc, "reference");
	if (!json_is_null(ref)) {
		p->reference_sha256 = json_string_value(json_object_get(ref, "sha256"));
		if (!json_is_object(ref) || json_object_size(ref) != 1 || !p->reference_sha256 ||
		    !ev_sha256_hex_valid(p->reference_sha256))
			return refuse(err, name, "reference", "expected null or {\"sha256\": the SHA-256 of the published "
				      "reference (evidence-reference/1) the campaign must reproduce}");
	}
	static const struct {
		int needed;
		enum ev_acceptance_kind kind;
		const char *because;
	} needs[] = {{1, EV_ACCEPT_SEAL, "the seal's receipt is always judged"},
		     {0, EV_ACCEPT_REPLICA, "replicas is above 0"},
		     {0, EV_ACCEPT_AUDIT, "audits is above 0, or a reference is required"}};
	for (size_t i = 0; i < sizeof needs / sizeof *needs; i++) {
		int needed = needs[i].needed || (needs[i].kind == EV_ACCEPT_REPLICA && p->replicas) ||
			     (needs[i].kind == EV_ACCEPT_AUDIT && (p->audits || p->reference_sha256));
		if (needed && !p->signers[needs[i].kind])
			return ev_error_set(err, EV_REFUSED, "%s: signers.%s: missing (%s)", name,
					    kind_names[needs[i].kind], needs[i].because);
	}
	return EV_OK;
}

ev_status ev_acceptance_load(const char *path, struct ev_acceptance *p, struct ev_error *err)
{
	memset(p, 0, sizeof *p);
	json_t *doc = NULL;
	uint8_t digest[EV_SHA256_LEN];
	ev_status st = ev_json_load(path, EV_ACCEPTANCE_FORMAT, EV_JSON_REQUIRE_CANONICAL, &doc, digest, NULL, NULL, err);
	if (st != EV_OK)
		return st;
	st = ev_acceptance_read(doc, path, p, err);
	json_decref(doc);
	ev_sha256_hex(digest, p->sha256);
	return st;
}

void ev_acceptance_free(struct ev_acceptance *p)
{
	json_decref(p->doc);
	free(p->keys);
	free(p->witnesses);
	for (int i = 0; i < EV_ACCEPT_KINDS; i++)
		ev_trust_free(p->signers[i]);
	memset(p, 0, sizeof *p);
}
