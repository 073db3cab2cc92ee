/* SPDX-License-Identifier: Apache-2.0 */
/* replicate attest: receipts exported as in-toto statements in DSSE
 * envelopes (lib/receipt/attestation), signed with one or more keys. */
#include "config.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/json.h"
#include "lib/core/publish.h"
#include "lib/receipt/attestation.h"
#include "lib/receipt/receipt.h"
#include "replicate/replicate.h"

#define MAX_KEYS 16

/* RECEIPT.json -> RECEIPT.intoto.json, beside it. */
static int envelope_path(const char *receipt, char *out, size_t cap)
{
	size_t n = strlen(receipt);
	if (n > 5 && strcmp(receipt + n - 5, ".json") == 0)
		n -= 5;
	return snprintf(out, cap, "%.*s.intoto.json", (int)n, receipt) >= (int)cap ? -1 : 0;
}

static ev_status attest_one(const char *receipt_path, const char *out, const struct ev_signing_key *const *keys,
			    size_t nkeys, struct ev_error *err)
{
	json_t *receipt = NULL, *envelope = NULL;
	char *bytes = NULL;
	size_t len = 0;
	ev_status st = ev_receipt_load(receipt_path, &receipt, NULL, err);
	if (st == EV_OK && ev_receipt_comparable_holds(receipt, err) != 1)
		st = ev_error_set(err, EV_MISMATCH, "%s: its comparable digest does not match its content: it was edited "
				  "after it was written; not attested", receipt_path);
	if (st == EV_OK)
		st = ev_attestation_make(receipt, keys, nkeys, &envelope, err);
	if (st == EV_OK)
		st = ev_json_dump(envelope, &bytes, &len, err);
	if (st == EV_OK)
		st = ev_publish_bytes(out, bytes, len, 0644, err);
	if (st == EV_OK)
		printf("%s: attested in %s (%zu signature%s)\n", receipt_path, out, nkeys, nkeys == 1 ? "" : "s");
	free(bytes);
	json_decref(envelope);
	json_decref(receipt);
	return st;
}

int replicate_attest_main(int argc, char **argv)
{
	struct ev_signing_key *keys[MAX_KEYS] = {0};
	size_t nkeys = 0;
	const char *out = NULL;
	int c, code = 2;
	struct ev_cli_getopt opts;
	ev_cli_getopt_init(&opts, &replicate_tool, "attest");
	optind = 1;
	while ((c = ev_cli_getopt_next(&opts, argc, argv)) != -1) {
		switch (c) {
		case EV_CLI_HELP: code = ev_cli_help(&replicate_tool, "attest"); goto done;
		case REPLICATE_ATTEST_OPT_OUTPUT: out = optarg; break;
		case REPLICATE_ATTEST_OPT_SIGN_KEY:
			if (nkeys == MAX_KEYS) {
				code = ev_cli_usage(&replicate_tool, "attest", "at most %d --sign-key", MAX_KEYS);
				goto done;
			}
			if (ev_cli_sign_key(TOOL, optarg, &keys[nkeys]))
				goto done;
			nkeys++;
			break;
		default: code = ev_cli_usage(&replicate_tool, "attest", "%s", ev_cli_option_problem(argv)); goto done;
		}
	}
	if (!nkeys) {
		code = ev_cli_usage(&replicate_tool, "attest", "no key given (--sign-key KEY): an envelope is signed");
		goto done;
	}
	if (optind == argc) {
		code = ev_cli_usage(&replicate_tool, "attest", "no RECEIPT given");
		goto done;
	}
	if (out && argc - optind != 1) {
		code = ev_cli_usage(&replicate_tool, "attest", "-o names one envelope: give one RECEIPT (several go beside "
				    "their receipts)");
		goto done;
	}
	ev_cli_catch_signals();
	code = 0;
	for (int i = optind; i < argc; i++) {
		char path[PATH_MAX];
		struct ev_error err;
		ev_error_clear(&err);
		ev_status st;
		if (!out && envelope_path(argv[i], path, sizeof path) != 0)
			st = ev_error_set(&err, EV_USAGE, "%s: path too long", argv[i]);
		else
			st = attest_one(argv[i], out ? out : path, (const struct ev_signing_key *const *)keys, nkeys, &err);
		if (st != EV_OK) {
			ev_cli_error(TOOL, &err);
			int rc = ev_status_exit_code(st);
			code = rc > code ? rc : code;
		}
	}
done:
	for (size_t i = 0; i < nkeys; i++)
		ev_signing_key_free(keys[i]);
	return code;
}
