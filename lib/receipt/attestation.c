/* SPDX-License-Identifier: Apache-2.0 */
/* attestation: a receipt in an in-toto statement, in a DSSE envelope
 * (attestation.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/base64.h"
#include "lib/core/json.h"
#include "lib/receipt/attestation.h"
#include "lib/receipt/receipt.h"
#include "lib/receipt/receipt_read.h"

#define SIG_LEN 64

int ev_attestation_is_envelope(const json_t *doc)
{
	return json_is_object(doc) && json_object_get(doc, "payloadType") != NULL;
}

/* The subjects the receipt's inputs and outputs give. */
static json_t *subjects_of(const json_t *receipt)
{
	json_t *list = json_array();
	const json_t *parts[2] = {ev_receipt_inputs(receipt), ev_receipt_outputs(receipt)};
	for (int k = 0; k < 2; k++) {
		size_t i;
		json_t *e;
		json_array_foreach(parts[k], i, e) {
			const char *hex = json_string_value(json_object_get(e, "sha256"));
			const char *name = json_string_value(json_object_get(e, "path"));
			if (!name)
				name = json_string_value(json_object_get(e, "name"));
			if (hex && name)
				json_array_append_new(list, json_pack("{s:s, s:{s:s}}", "name", name, "digest", "sha256", hex));
		}
	}
	return list;
}

/* DSSEv1 SP LEN(type) SP type SP LEN(body) SP body, malloc'd. */
static unsigned char *pae(const char *type, const unsigned char *body, size_t len, size_t *out_len)
{
	char head[128];
	int n = snprintf(head, sizeof head, "DSSEv1 %zu %s %zu ", strlen(type), type, len);
	if (n < 0 || (size_t)n >= sizeof head)
		return NULL;
	unsigned char *buf = malloc((size_t)n + len + 1);
	if (!buf)
		return NULL;
	memcpy(buf, head, (size_t)n);
	memcpy(buf + n, body, len);
	*out_len = (size_t)n + len;
	return buf;
}

json_t *ev_statement_new(json_t *subjects, const char *predicate_type, json_t *predicate)
{
	if (!subjects || !predicate) {
		json_decref(subjects);
		json_decref(predicate);
		return NULL;
	}
	return json_pack("{s:s, s:o, s:s, s:o}", "_type", EV_ATTESTATION_STATEMENT_TYPE, "subject", subjects,
			 "predicateType", predicate_type, "predicate", predicate);
}

ev_status ev_attestation_envelope(const json_t *statement, const struct ev_signing_key *const *keys, size_t nkeys,
				  json_t **envelope, struct ev_error *err)
{
	*envelope = NULL;
	char *payload = NULL;
	size_t len = 0;
	ev_status st = statement ? ev_json_dump(statement, &payload, &len, err) : ev_error_set(err, EV_ERROR, "out of memory");
	if (st != EV_OK)
		return st;
	len--; /* the statement's bytes, without the dump's closing newline */
	size_t plen = 0;
	unsigned char *signed_bytes = pae(EV_ATTESTATION_PAYLOAD_TYPE, (unsigned char *)payload, len, &plen);
	char *encoded = ev_base64_encode((unsigned char *)payload, len);
	json_t *sigs = json_array();
	if (!signed_bytes || !encoded || !sigs)
		st = ev_error_set(err, EV_ERROR, "out of memory");
	for (size_t i = 0; i < nkeys && st == EV_OK; i++) {
		unsigned char sig[SIG_LEN];
		char id[EV_SHA256_HEX_LEN + 1];
		if ((st = ev_signature_sign_bytes(keys[i], signed_bytes, plen, sig, id, err)) != EV_OK)
			break;
		char *s = ev_base64_encode(sig, sizeof sig);
		if (!s) {
			st = ev_error_set(err, EV_ERROR, "out of memory");
			break;
		}
		json_array_append_new(sigs, json_pack("{s:s, s:s}", "keyid", id, "sig", s));
		free(s);
	}
	if (st == EV_OK && !(*envelope = json_pack("{s:s, s:s, s:O}", "payload", encoded, "payloadType",
						   EV_ATTESTATION_PAYLOAD_TYPE, "signatures", sigs)))
		st = ev_error_set(err, EV_ERROR, "out of memory");
	json_decref(sigs);
	free(encoded);
	free(signed_bytes);
	free(payload);
	return st;
}

ev_status ev_attestation_make(const json_t *receipt, const struct ev_signing_key *const *keys, size_t nkeys,
			      json_t **envelope, struct ev_error *err)
{
	json_t *statement = ev_statement_new(subjects_of(receipt), EV_ATTESTATION_PREDICATE_TYPE,
					     json_incref((json_t *)receipt));
	ev_status st = ev_attestation_envelope(statement, keys, nkeys, envelope, err);
	json_decref(statement);
	return st;
}

static ev_status refuse(char *why, size_t cap, const char *text)
{
	snprintf(why, cap, "%s", text);
	return EV_MISMATCH;
}

/* Every signature by a trusted key verifies over the PAE, and there is
 * one; the first such key's id into signer. */
static ev_status check_signatures(const json_t *sigs, const struct ev_trust *trust, const unsigned char *signed_bytes,
				  size_t plen, char *signer, char *why, size_t cap)
{
	size_t i, trusted = 0;
	json_t *s;
	if (!json_is_array(sigs) || !json_array_size(sigs))
		return refuse(why, cap, "signatures: none (a DSSE envelope carries at least one)");
	json_array_foreach(sigs, i, s) {
		const char *keyid = json_string_value(json_object_get(s, "keyid"));
		const char *text = json_string_value(json_object_get(s, "sig"));
		size_t len = 0;
		unsigned char *raw = text ? ev_base64_decode(text, strlen(text), &len) : NULL;
		if (!raw) {
			snprintf(why, cap, "signatures[%zu]: expected keyid and sig (standard base64)", i);
			return EV_MISMATCH;
		}
		int v = ev_trust_verify_bytes(trust, keyid, signed_bytes, plen, raw, len);
		free(raw);
		if (v == 0) {
			snprintf(why, cap, "signatures[%zu]: does not verify under key %s: the envelope was altered after it "
				 "was signed (its payload or payloadType)", i, keyid);
			return EV_MISMATCH;
		}
		if (v == 1 && trusted++ == 0 && signer)
			snprintf(signer, EV_SHA256_HEX_LEN + 1, "%s", keyid);
	}
	if (!trusted)
		return refuse(why, cap, "signatures: none by a trusted key");
	return EV_OK;
}

ev_status ev_attestation_open(const json_t *envelope, const struct ev_trust *trust, json_t **statement_out,
			      char signer[EV_SHA256_HEX_LEN + 1], char *why, size_t why_cap, struct ev_error *err)
{
	*statement_out = NULL;
	const char *payload = json_string_value(json_object_get(envelope, "payload"));
	const char *type = json_string_value(json_object_get(envelope, "payloadType"));
	if (!json_is_object(envelope) || json_object_size(envelope) != 3 || !payload || !type ||
	    !json_object_get(envelope, "signatures"))
		return refuse(why, why_cap, "is not a DSSE envelope (expected exactly payload, payloadType and signatures)");
	if (strcmp(type, EV_ATTESTATION_PAYLOAD_TYPE) != 0) {
		snprintf(why, why_cap, "payloadType: expected %s, found %s", EV_ATTESTATION_PAYLOAD_TYPE, type);
		return EV_MISMATCH;
	}
	size_t len = 0, plen = 0;
	unsigned char *bytes = ev_base64_decode(payload, strlen(payload), &len);
	if (!bytes)
		return refuse(why, why_cap, "payload: not standard base64");
	ev_status st = EV_OK;
	if (trust) {
		unsigned char *signed_bytes = pae(type, bytes, len, &plen);
		st = signed_bytes ? check_signatures(json_object_get(envelope, "signatures"), trust, signed_bytes, plen,
						     signer, why, why_cap)
				  : ev_error_set(err, EV_ERROR, "out of memory");
		free(signed_bytes);
	}
	json_t *statement = NULL;
	if (st == EV_OK) {
		json_error_t e;
		if (!(statement = json_loadb((const char *)bytes, len, JSON_REJECT_DUPLICATES, &e)))
			st = refuse(why, why_cap, "payload: not a JSON statement");
	}
	free(bytes);
	const char *stype = json_string_value(json_object_get(statement, "_type"));
	if (st == EV_OK && (!stype || strcmp(stype, EV_ATTESTATION_STATEMENT_TYPE) != 0)) {
		snprintf(why, why_cap, "_type: expected %s, found %s", EV_ATTESTATION_STATEMENT_TYPE, stype ? stype : "none");
		st = EV_MISMATCH;
	}
	if (st == EV_OK)
		*statement_out = statement;
	else
		json_decref(statement);
	return st;
}

ev_status ev_attestation_check(const json_t *envelope, const struct ev_trust *trust, json_t **receipt,
			       char signer[EV_SHA256_HEX_LEN + 1], char *why, size_t why_cap, struct ev_error *err)
{
	if (receipt)
		*receipt = NULL;
	json_t *statement = NULL;
	ev_status st = ev_attestation_open(envelope, trust, &statement, signer, why, why_cap, err);
	if (st != EV_OK)
		return st;
	const char *ptype = json_string_value(json_object_get(statement, "predicateType"));
	const json_t *predicate = json_object_get(statement, "predicate");
	if (st == EV_OK && (!ptype || strcmp(ptype, EV_ATTESTATION_PREDICATE_TYPE) != 0)) {
		snprintf(why, why_cap, "predicateType: expected %s, found %s", EV_ATTESTATION_PREDICATE_TYPE,
			 ptype ? ptype : "none");
		st = EV_MISMATCH;
	}
	if (st == EV_OK && (!json_is_object(predicate) ||
			    strcmp(json_string_value(json_object_get(predicate, "format")) ?: "", EV_RECEIPT_FORMAT) != 0))
		st = refuse(why, why_cap, "predicate: not an evidence receipt");
	if (st == EV_OK) {
		struct ev_error e;
		ev_error_clear(&e);
		if (ev_receipt_comparable_holds(predicate, &e) != 1)
			st = refuse(why, why_cap, "predicate: its comparable digest does not match its content (the receipt was "
					  "edited before it was attested)");
	}
	if (st == EV_OK) {
		json_t *want = subjects_of(predicate);
		char path[256], here[128], there[128];
		if (ev_json_first_difference(json_object_get(statement, "subject"), want, path, sizeof path, here, there,
					     sizeof here)) {
			snprintf(why, why_cap, "subject%s: %s, but the receipt's inputs and outputs give %s", path, here, there);
			st = EV_MISMATCH;
		}
		json_decref(want);
	}
	if (st == EV_OK && receipt)
		*receipt = json_incref((json_t *)predicate);
	json_decref(statement);
	return st;
}
