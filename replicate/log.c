/* SPDX-License-Identifier: Apache-2.0 */
/* replicate log: the host's append-only receipt log (lib/usecase/replicate/receipt_log):
 * append, verify, consistency. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/json.h"
#include "lib/receipt/signature.h"
#include "lib/usecase/replicate/receipt_log.h"
#include "replicate/replicate.h"

static void show_finding(void *ctx, const struct ev_finding *f)
{
	(void)ctx;
	fprintf(stderr, TOOL ": %s: %s: %s\n", f->subject, f->check, f->message);
}

static void show_appended(void *ctx, const char *file, size_t index, const char *proof, const char *tlog_proof)
{
	(void)ctx;
	printf("%s: entry %zu; inclusion proof %s%s%s\n", file, index, proof, tlog_proof ? ", tlog-proof " : "",
	       tlog_proof ? tlog_proof : "");
}

int replicate_log_main(int argc, char **argv)
{
	struct ev_receipt_log l = {.on_finding = show_finding, .on_appended = show_appended};
	struct ev_signing_key *key = NULL;
	struct ev_trust *trust = NULL;
	int c, json = 0, code = 2;
	const char *witness = NULL;
	struct ev_cli_getopt opts;
	ev_cli_getopt_init(&opts, &replicate_tool, "log");
	optind = 1;
	while ((c = ev_cli_getopt_next(&opts, argc, argv)) != -1) {
		switch (c) {
		case EV_CLI_HELP: code = ev_cli_help(&replicate_tool, "log"); goto done;
		case REPLICATE_LOG_OPT_JSON: json = 1; break;
		case REPLICATE_LOG_OPT_LOG: l.dir = optarg; break;
		case REPLICATE_LOG_OPT_ORIGIN: l.origin = optarg; break;
		case REPLICATE_LOG_OPT_WITNESS: witness = optarg; break;
		case REPLICATE_LOG_OPT_SIGN_KEY:
			if (ev_cli_sign_key(TOOL, optarg, &key))
				goto done;
			break;
		case REPLICATE_LOG_OPT_TRUST:
			if (ev_cli_trust_add(TOOL, &trust, optarg))
				goto done;
			break;
		default: code = ev_cli_usage(&replicate_tool, "log", "%s", ev_cli_option_problem(argv)); goto done;
		}
	}
	if (optind == argc) {
		code = ev_cli_usage(&replicate_tool, "log", "no action given (append, verify, consistency or vkey)");
		goto done;
	}
	if (!l.dir && !(witness && strcmp(argv[optind], "vkey") == 0)) {
		code = ev_cli_usage(&replicate_tool, "log", "no log given (--log DIR)");
		goto done;
	}
	const char *action = argv[optind++];
	l.sign_key = key;
	l.trust = trust;
	struct ev_error err;
	ev_error_clear(&err);
	ev_cli_catch_signals();
	ev_status st;
	if (strcmp(action, "append") == 0) {
		if (optind == argc) {
			code = ev_cli_usage(&replicate_tool, "log", "append: no receipt or seal given");
			goto done;
		}
		st = ev_receipt_log_append(&l, (const char *const *)argv + optind, (size_t)(argc - optind), &err);
		if (st == EV_OK)
			printf("log %s: %zu entries, root %s; tree head %s%s%s\n", l.dir, l.size, l.root_hex, l.head_path,
			       l.checkpoint_path[0] ? ", checkpoint " : "", l.checkpoint_path);
	} else if (strcmp(action, "verify") == 0) {
		if (optind != argc) {
			code = ev_cli_usage(&replicate_tool, "log", "verify takes no file: it reads the whole log");
			goto done;
		}
		st = ev_receipt_log_verify(&l, &err);
		if (st == EV_OK || st == EV_MISMATCH)
			printf("%s: log %s: %zu entries, %zu tree heads, %zu checkpoints, %zu cosignatures, root %s%s\n",
			       st == EV_OK ? "OK" : "FAIL", l.dir, l.size, l.heads, l.checkpoints, l.cosignatures, l.root_hex,
			       st == EV_OK ? "" : "; what does not hold is named above");
	} else if (strcmp(action, "consistency") == 0) {
		if (argc - optind != 2) {
			code = ev_cli_usage(&replicate_tool, "log", "consistency: give an older tree head and a newer one");
			goto done;
		}
		json_t *proof = NULL;
		char why[1024] = "";
		st = ev_receipt_log_consistency(&l, argv[optind], argv[optind + 1], &proof, why, sizeof why, &err);
		if (proof && json)
			ev_json_print(proof, stdout, &err);
		if (st == EV_OK && !json)
			printf("CONSISTENT: %s is a prefix of %s (%zu proof hashes)\n", argv[optind], argv[optind + 1],
			       json_array_size(json_object_get(proof, "proof")));
		if (st == EV_MISMATCH)
			fprintf(stderr, TOOL ": %s\n", why);
		json_decref(proof);
	} else if (strcmp(action, "vkey") == 0) {
		if (argc - optind != 1) {
			code = ev_cli_usage(&replicate_tool, "log", "vkey: give the log's public key (a PEM file)");
			goto done;
		}
		char vkey[EV_NOTE_VKEY_MAX];
		st = witness ? ev_witness_vkey(witness, argv[optind], vkey, &err)
			     : ev_receipt_log_vkey(&l, argv[optind], vkey, &err);
		if (st == EV_OK)
			printf("%s\n", vkey);
	} else {
		code = ev_cli_usage(&replicate_tool, "log", "unknown action '%s' (append, verify, consistency or vkey)", action);
		goto done;
	}
	if (st >= EV_ERROR)
		ev_cli_error(TOOL, &err);
	code = ev_status_exit_code(st);
done:
	ev_signing_key_free(key);
	ev_trust_free(trust);
	return code;
}
