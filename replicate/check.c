/* SPDX-License-Identifier: Apache-2.0 */
/* replicate check: any receipt (seal, replica, audit, capture, cleanup...)
 * held against a trust list: intact (its comparable digest matches its
 * content) and signed by a trusted key, or named with why not. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/json.h"
#include "lib/receipt/attestation.h"
#include "lib/usecase/timestamp_file.h"
#include "lib/receipt/signature.h"
#include "lib/receipt/receipt_set.h"
#include "replicate/replicate.h"

struct check_run {
	json_t *problems; /* per receipt path: its sentences */
};

static void on_problem(void *ctx, const char *receipt_path, const struct ev_finding *f)
{
	struct check_run *c = ctx;
	json_t *list = json_object_get(c->problems, receipt_path);
	if (!list)
		json_object_set_new(c->problems, receipt_path, list = json_array());
	json_array_append_new(list, json_string(f->message));
}

/* An in-toto envelope: its DSSE signatures, statement and receipt
 * (lib/receipt/attestation). @return 1 when it does not hold. */
static int check_envelope(const char *path, const json_t *doc, const struct ev_trust *trust, int json, json_t *list)
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
	if (!json) {
		if (holds)
			printf("%s: in-toto attestation of a receipt of kind %s from %s (%s), its subjects the receipt's, signed by "
			       "trusted key %.16s\n", path, kind ?: "?", host ?: "?", result ?: "?", signer);
		else
			fprintf(stderr, TOOL ": %s: %s\n", path, why);
	}
	json_decref(receipt);
	return !holds;
}

int replicate_check_main(int argc, char **argv)
{
	struct ev_trust *trust = NULL;
	struct ev_error err;
	ev_error_clear(&err);
	int c, json = 0, code = 2;
	const char *tsa_ca = NULL;
	struct ev_cli_getopt opts;
	ev_cli_getopt_init(&opts, &replicate_tool, "check");
	optind = 1;
	while ((c = getopt_long(argc, argv, opts.shortopts, opts.longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			ev_trust_free(trust);
			return ev_cli_help(&replicate_tool, "check");
		case 'j': json = 1; break;
		case 'C': tsa_ca = optarg; break;
		case 't':
			if (ev_cli_trust_add(TOOL, &trust, optarg))
				return 2;
			break;
		default:
			ev_trust_free(trust);
			return ev_cli_usage(&replicate_tool, "check", "%s", ev_cli_option_problem(argv));
		}
	}
	if (!trust)
		return ev_cli_usage(&replicate_tool, "check", "no trust list given (--trust FILE)");
	if (optind == argc) {
		ev_trust_free(trust);
		return ev_cli_usage(&replicate_tool, "check", "no RECEIPT given");
	}
	struct check_run run = {json_object()};
	struct ev_receipt_set set = {0};
	ev_status st = EV_OK;
	size_t bad = 0, envelopes = 0;
	json_t *list = json_array();
	/* envelopes judged here, receipts together in the set */
	char **receipts = calloc((size_t)(argc - optind), sizeof *receipts);
	size_t nreceipts = 0;
	for (int i = optind; i < argc && st == EV_OK && receipts; i++) {
		json_t *doc = NULL;
		if (ev_json_load(argv[i], NULL, 0, &doc, NULL, NULL, NULL, &err) != EV_OK) {
			st = err.status;
		} else if (ev_attestation_is_envelope(doc)) {
			envelopes++;
			bad += check_envelope(argv[i], doc, trust, json, list);
		} else {
			receipts[nreceipts++] = argv[i];
		}
		json_decref(doc);
	}
	if (!receipts)
		st = ev_error_set(&err, EV_ERROR, "out of memory");
	if (st == EV_OK && nreceipts)
		ev_receipt_set_load(&set, receipts, nreceipts, trust, on_problem, &run, &st, &err);
	free(receipts);
	if (st != EV_OK) {
		ev_cli_error(TOOL, &err);
		json_decref(list);
		goto out;
	}
	for (size_t i = 0; i < set.count; i++) {
		const struct ev_judged_receipt *j = &set.items[i];
		json_t *why = json_object_get(run.problems, j->path);
		int holds = j->intact && j->signed_ok && !why;
		char when[400] = "", trusted[32] = "", twhy[1100] = "";
		if (ev_timestamp_present(j->path)) { /* a trusted time beside it, shown when verified */
			struct ev_timestamp_verdict v;
			struct ev_error terr;
			ev_error_clear(&terr);
			if (!tsa_ca) {
				snprintf(when, sizeof when, "; timestamped (give --tsa-ca to verify it)");
			} else if (ev_timestamp_check(j->path, tsa_ca, &v, twhy, sizeof twhy, &terr) == EV_OK) {
				snprintf(when, sizeof when, "; trusted time %s by %s", v.gen_time, v.tsa);
				snprintf(trusted, sizeof trusted, "%s", v.gen_time);
				twhy[0] = 0;
			} else {
				holds = 0;
			}
		}
		bad += !holds;
		json_t *row = json_pack("{s:s, s:s, s:s?, s:s?, s:s?, s:b, s:s?, s:o}", "path", j->path, "sha256",
					j->file_sha256, "kind", j->kind, "host", j->host, "result", j->result, "holds", holds,
					"signed_by", j->signed_ok ? j->signer : NULL, "problems",
					why ? json_incref(why) : json_array());
		if (trusted[0])
			json_object_set_new(row, "trusted_time", json_string(trusted));
		if (twhy[0])
			json_array_append_new(json_object_get(row, "problems"), json_pack("s+", "timestamp: ", twhy));
		json_array_append_new(list, row);
		if (twhy[0] && !json)
			fprintf(stderr, TOOL ": %s: timestamp: %s\n", j->path, twhy);
		if (json)
			continue;
		if (holds) {
			printf("%s: %s receipt from %s (%s), intact, signed by trusted key %.16s%s\n", j->path, j->kind ?: "?",
			       j->host ?: "?", j->result ?: "?", j->signer, when);
		} else {
			size_t k;
			json_t *w;
			json_array_foreach(why, k, w)
				fprintf(stderr, TOOL ": %s: %s\n", j->path, json_string_value(w));
		}
	}
	if (json) {
		json_t *doc = json_pack("{s:s, s:b, s:O}", "format", "evidence-trust-check/1", "hold", bad == 0, "receipts", list);
		ev_json_print(doc, stdout, &err);
		json_decref(doc);
	} else {
		printf("%s: %zu of %zu %s intact and signed by a trusted key\n", bad ? "FAIL" : "OK",
		       set.count + envelopes - bad, set.count + envelopes, envelopes ? "receipts and envelopes" : "receipts");
	}
	json_decref(list);
	code = bad ? 1 : 0;
out:
	ev_receipt_set_free(&set);
	json_decref(run.problems);
	ev_trust_free(trust);
	return code;
}
