/* SPDX-License-Identifier: Apache-2.0 */
/* replicate_check: receipts and envelopes held against a trust list
 * (replicate_check.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/json.h"
#include "lib/receipt/attestation.h"
#include "lib/receipt/receipt_set.h"
#include "lib/usecase/replicate/replicate_check.h"
#include "lib/receipt/timestamp_beside.h"

/* per receipt path: the sentences receipt_set found against it */
static void on_problem(void *ctx, const char *receipt_path, const struct ev_finding *f)
{
	json_t *problems = ctx;
	json_t *list = json_object_get(problems, receipt_path);
	if (!list)
		json_object_set_new(problems, receipt_path, list = json_array());
	json_array_append_new(list, json_string(f->message));
}

/* An in-toto envelope: its DSSE signatures, statement and receipt
 * (lib/receipt/attestation). @return 1 when it does not hold. */
static int check_envelope(const char *path, const json_t *doc, const struct ev_trust *trust, json_t *list)
{
	char why[EV_ERROR_TEXT_MAX + 64] = "", signer[EV_SHA256_HEX_LEN + 1] = "";
	json_t *receipt = NULL;
	struct ev_error err;
	ev_error_clear(&err);
	ev_status st = ev_attestation_check(doc, trust, &receipt, signer, why, sizeof why, &err);
	if (st >= EV_ERROR)
		snprintf(why, sizeof why, "%s", err.text);
	int holds = st == EV_OK;
	const char *kind = json_string_value(json_object_get(receipt, "kind"));
	const char *host = json_string_value(json_object_get(receipt, "host"));
	const char *result = json_string_value(json_object_get(receipt, "result"));
	json_array_append_new(list, json_pack("{s:s, s:s, s:s?, s:s?, s:s?, s:b, s:s?, s:[s?]}", "path", path, "envelope",
					      EV_ATTESTATION_PAYLOAD_TYPE, "kind", kind, "host", host, "result", result,
					      "holds", holds, "signed_by", holds ? signer : NULL, "problems",
					      holds ? NULL : why));
	json_decref(receipt);
	return !holds;
}

/* A receipt judged in the set: its row, and its timestamp when one lies
 * beside it. @return 1 when it does not hold. */
static int check_receipt(const struct ev_judged_receipt *j, const json_t *problems, const char *tsa_ca,
			 json_t *list, char *when, size_t when_cap)
{
	json_t *why = json_object_get(problems, j->path);
	int holds = j->intact && j->signed_ok && !why;
	char trusted[32] = "", twhy[1100] = "";
	when[0] = '\0';
	if (ev_timestamp_present(j->path)) { /* a trusted time beside it, shown when verified */
		struct ev_timestamp_verdict v;
		struct ev_error terr;
		ev_error_clear(&terr);
		if (!tsa_ca) {
			snprintf(when, when_cap, "; timestamped (give --tsa-ca to verify it)");
		} else if (ev_timestamp_check(j->path, tsa_ca, &v, twhy, sizeof twhy, &terr) == EV_OK) {
			snprintf(when, when_cap, "; trusted time %s by %s", v.gen_time, v.tsa);
			snprintf(trusted, sizeof trusted, "%s", v.gen_time);
			twhy[0] = 0;
		} else {
			holds = 0;
		}
	}
	json_t *row = json_pack("{s:s, s:s, s:s?, s:s?, s:s?, s:b, s:s?, s:o}", "path", j->path, "sha256", j->file_sha256,
				"kind", j->kind, "host", j->host, "result", j->result, "holds", holds, "signed_by",
				j->signed_ok ? j->signer : NULL, "problems", why ? json_copy(why) : json_array());
	if (trusted[0])
		json_object_set_new(row, "trusted_time", json_string(trusted));
	if (twhy[0])
		json_array_append_new(json_object_get(row, "problems"), json_pack("s+", "timestamp: ", twhy));
	json_array_append_new(list, row);
	return !holds;
}

ev_status ev_replicate_check(struct ev_replicate_check *c, struct ev_error *err)
{
	c->doc = NULL;
	c->entries = NULL;
	c->nentries = c->bad = c->envelopes = 0;
	json_t *list = json_array(), *problems = json_object();
	char **receipts = calloc(c->npaths ? c->npaths : 1, sizeof *receipts);
	struct ev_receipt_set set = {0};
	ev_status st = list && problems && receipts ? EV_OK : ev_error_set(err, EV_ERROR, "out of memory");
	size_t nreceipts = 0;
	/* envelopes judged one by one, receipts together in the set */
	for (size_t i = 0; i < c->npaths && st == EV_OK; i++) {
		json_t *doc = NULL;
		if (ev_json_load(c->paths[i], NULL, 0, &doc, NULL, NULL, NULL, err) != EV_OK) {
			st = err->status;
		} else if (ev_attestation_is_envelope(doc)) {
			c->envelopes++;
			c->bad += check_envelope(c->paths[i], doc, c->trust, list);
		} else {
			receipts[nreceipts++] = c->paths[i];
		}
		json_decref(doc);
	}
	if (st == EV_OK && nreceipts)
		ev_receipt_set_load(&set, receipts, nreceipts, c->trust, on_problem, problems, &st, err);
	size_t n = c->envelopes + set.count;
	if (st == EV_OK && !(c->entries = calloc(n ? n : 1, sizeof *c->entries)))
		st = ev_error_set(err, EV_ERROR, "out of memory");
	for (size_t i = 0; st == EV_OK && i < set.count; i++)
		c->bad += check_receipt(&set.items[i], problems, c->tsa_ca, list, c->entries[c->envelopes + i].when,
					sizeof c->entries[c->envelopes + i].when);
	if (st == EV_OK && !(c->doc = json_pack("{s:s, s:b, s:O}", "format", EV_TRUST_CHECK_FORMAT, "hold", c->bad == 0,
						"receipts", list)))
		st = ev_error_set(err, EV_ERROR, "out of memory");
	if (st == EV_OK) {
		c->nentries = n;
		for (size_t i = 0; i < n; i++) {
			c->entries[i].row = json_array_get(list, i);
			c->entries[i].envelope = i < c->envelopes;
		}
	} else {
		free(c->entries);
		c->entries = NULL;
		c->bad = c->envelopes = 0;
	}
	ev_receipt_set_free(&set);
	free(receipts);
	json_decref(problems);
	json_decref(list);
	return st;
}

void ev_replicate_check_free(struct ev_replicate_check *c)
{
	json_decref(c->doc);
	free(c->entries);
	c->doc = NULL;
	c->entries = NULL;
	c->nentries = 0;
}
