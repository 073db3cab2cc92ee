/* SPDX-License-Identifier: Apache-2.0 */
/* seal timestamp: files given a trusted time (RFC 3161) by a TSA, through
 * lib/usecase/seal/timestamp_file, one file at a time. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "lib/usecase/seal/timestamp_file.h"
#include "seal/seal.h"

int seal_timestamp_main(int argc, char **argv)
{
	struct ev_timestamp_file t = {.mode = EV_TIMESTAMP_FETCH};
	int c, request = 0, verify = 0;
	struct ev_cli_getopt opts;
	ev_cli_getopt_init(&opts, &seal_tool, "timestamp");
	optind = 1;
	while ((c = ev_cli_getopt_next(&opts, argc, argv)) != -1) {
		switch (c) {
		case EV_CLI_HELP: return ev_cli_help(&seal_tool, "timestamp");
		case SEAL_TIMESTAMP_OPT_TSA: t.tsa_url = optarg; break;
		case SEAL_TIMESTAMP_OPT_TSA_CA: t.tsa_ca = optarg; break;
		case SEAL_TIMESTAMP_OPT_REQUEST: request = 1; break;
		case SEAL_TIMESTAMP_OPT_REPLY: t.reply = optarg; t.mode = EV_TIMESTAMP_REPLY; break;
		case SEAL_TIMESTAMP_OPT_VERIFY: verify = 1; break;
		case SEAL_TIMESTAMP_OPT_TIMEOUT: t.timeout_seconds = opts.count; break;
		default: return ev_cli_usage(&seal_tool, "timestamp", "%s", ev_cli_option_problem(argv));
		}
	}
	if (ev_cli_getopt_relations(&opts))
		return 2;
	if (request)
		t.mode = EV_TIMESTAMP_REQUEST;
	if (verify)
		t.mode = EV_TIMESTAMP_VERIFY;
	if (optind == argc)
		return ev_cli_usage(&seal_tool, "timestamp", "no FILE given (a SEAL.json or a receipt)");
	if (t.mode == EV_TIMESTAMP_FETCH && !t.tsa_url)
		return ev_cli_usage(&seal_tool, "timestamp", "no TSA given (--tsa URL), nor --request for an air-gapped host");
	if (t.mode != EV_TIMESTAMP_REQUEST && !t.tsa_ca)
		return ev_cli_usage(&seal_tool, "timestamp", "no CA given (--tsa-ca FILE): a token is verified before it is trusted");
	if (t.mode == EV_TIMESTAMP_REPLY && argc - optind != 1)
		return ev_cli_usage(&seal_tool, "timestamp", "--reply answers one FILE's request");
	ev_cli_catch_signals();
	int code = 0;
	for (int i = optind; i < argc; i++) {
		struct ev_error err;
		ev_error_clear(&err);
		t.file = argv[i];
		ev_status st = ev_timestamp_file(&t, &err);
		if (st == EV_OK && t.mode == EV_TIMESTAMP_REQUEST)
			printf("%s: request %s (carry it to a TSA; then seal timestamp --reply REPLY --tsa-ca CA %s)\n", t.file,
			       t.tsq, t.file);
		else if (st == EV_OK)
			printf("%s: trusted time %s by %s (serial %s); %s\n", t.file, t.verdict.gen_time, t.verdict.tsa,
			       t.verdict.serial, t.tsr);
		else
			ev_cli_error(TOOL, &err);
		int rc = ev_status_exit_code(st);
		code = rc > code ? rc : code;
		if (ev_cli_interrupted)
			return 2;
	}
	return code;
}
