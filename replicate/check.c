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
#include "lib/receipt/signature.h"
#include "lib/usecase/replicate/replicate_check.h"
#include "replicate/replicate.h"

static const char *field(const json_t *row, const char *key)
{
	return json_string_value(json_object_get(row, key));
}

/* One file as a person reads it: a line on stdout when it holds, else
 * each reason on stderr. */
static void show(const struct ev_replicate_check_entry *e)
{
	const json_t *row = e->row;
	const char *path = field(row, "path"), *kind = field(row, "kind"), *host = field(row, "host");
	const char *result = field(row, "result"), *signer = field(row, "signed_by");
	if (json_is_true(json_object_get(row, "holds"))) {
		if (e->envelope)
			printf("%s: in-toto attestation of a receipt of kind %s from %s (%s), its subjects the receipt's, signed "
			       "by trusted key %.16s\n", path, kind ?: "?", host ?: "?", result ?: "?", signer);
		else
			printf("%s: %s receipt from %s (%s), intact, signed by trusted key %.16s%s\n", path, kind ?: "?",
			       host ?: "?", result ?: "?", signer, e->when);
		return;
	}
	size_t k;
	json_t *why;
	json_array_foreach(json_object_get(row, "problems"), k, why)
		fprintf(stderr, TOOL ": %s: %s\n", path, json_string_value(why));
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
	while ((c = ev_cli_getopt_next(&opts, argc, argv)) != -1) {
		switch (c) {
		case EV_CLI_HELP:
			ev_trust_free(trust);
			return ev_cli_help(&replicate_tool, "check");
		case REPLICATE_CHECK_OPT_JSON: json = 1; break;
		case REPLICATE_CHECK_OPT_TSA_CA: tsa_ca = optarg; break;
		case REPLICATE_CHECK_OPT_TRUST:
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
	struct ev_replicate_check run = {.paths = argv + optind, .npaths = (size_t)(argc - optind), .trust = trust,
					 .tsa_ca = tsa_ca};
	if (ev_replicate_check(&run, &err) != EV_OK) {
		ev_cli_error(TOOL, &err);
		goto out;
	}
	if (json) {
		ev_json_print(run.doc, stdout, &err);
	} else {
		for (size_t i = 0; i < run.nentries; i++)
			show(&run.entries[i]);
		printf("%s: %zu of %zu %s intact and signed by a trusted key\n", run.bad ? "FAIL" : "OK",
		       run.nentries - run.bad, run.nentries, run.envelopes ? "receipts and envelopes" : "receipts");
	}
	code = run.bad ? 1 : 0;
out:
	ev_replicate_check_free(&run);
	ev_trust_free(trust);
	return code;
}
