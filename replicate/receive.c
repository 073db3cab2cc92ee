/* SPDX-License-Identifier: Apache-2.0 */
/* replicate receive and keep-head: the far ends of push, run by it over
 * ssh (or directly, for a local directory); lib/remote/receive and
 * lib/usecase/replicate/receipt_log do the work. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/remote/receive.h"
#include "lib/usecase/replicate/log_witness.h"
#include "lib/usecase/replicate/receipt_log.h"
#include "replicate/replicate.h"

int replicate_receive_main(int argc, char **argv)
{
	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0))
		return ev_cli_help(&replicate_tool, "receive");
	/* no options: push always gives the four words, and a DIR or NAME that
	 * starts with '-' is still one of them (an older push sends no --) */
	if (argc != 5 && argc > 1 && argv[1][0] == '-')
		return ev_cli_usage(&replicate_tool, "receive", "unknown option '%s'", argv[1]);
	if (argc != 5)
		return ev_cli_usage(&replicate_tool, "receive", "expected DIR NAME SIZE SHA256");
	char *end;
	errno = 0;
	unsigned long long size = strtoull(argv[3], &end, 10);
	if (errno || end == argv[3] || *end || argv[3][0] == '-')
		return ev_cli_usage(&replicate_tool, "receive", "SIZE: expected a byte count, found '%s'", argv[3]);
	struct ev_error err;
	ev_error_clear(&err);
	ev_status st = ev_receive_file(STDIN_FILENO, STDOUT_FILENO, argv[1], argv[2], size, argv[4], &err);
	if (st == EV_USAGE)
		return ev_cli_usage(&replicate_tool, "receive", "%s", err.text);
	if (st != EV_OK)
		ev_cli_error(TOOL, &err);
	return ev_status_exit_code(st);
}

int replicate_keep_head_main(int argc, char **argv)
{
	struct ev_signing_key *key = NULL;
	struct ev_trust *trust = NULL;
	char host[256] = "";
	struct ev_witness w = {.name = NULL};
	int c, code = 2;
	struct ev_cli_getopt opts;
	ev_cli_getopt_init(&opts, &replicate_tool, "keep-head");
	optind = 1;
	while ((c = ev_cli_getopt_next(&opts, argc, argv)) != -1) {
		switch (c) {
		case EV_CLI_HELP: code = ev_cli_help(&replicate_tool, "keep-head"); goto done;
		case REPLICATE_KEEP_HEAD_OPT_NAME: w.name = optarg; break;
		case REPLICATE_KEEP_HEAD_OPT_SIGN_KEY:
			if (ev_cli_sign_key(TOOL, optarg, &key))
				goto done;
			break;
		case REPLICATE_KEEP_HEAD_OPT_TRUST:
			if (ev_cli_trust_add(TOOL, &trust, optarg))
				goto done;
			break;
		default: code = ev_cli_usage(&replicate_tool, "keep-head", "%s", ev_cli_option_problem(argv)); goto done;
		}
	}
	if (argc - optind != 2) {
		code = ev_cli_usage(&replicate_tool, "keep-head", "expected DIR LABEL");
		goto done;
	}
	if (!w.name) {
		gethostname(host, sizeof host - 1);
		w.name = host;
	}
	if (key && !ev_note_name_ok(w.name)) {
		code = ev_cli_usage(&replicate_tool, "keep-head", "'%s' cannot be a cosigner's name (printable ASCII without "
				    "space or '+'): give --name NAME", w.name);
		goto done;
	}
	w.key = key;
	w.trust = trust;
	struct ev_error err;
	ev_error_clear(&err);
	ev_status st = ev_receipt_log_keep_head(STDIN_FILENO, STDOUT_FILENO, argv[optind], argv[optind + 1], &w, &err);
	if (st == EV_USAGE) {
		code = ev_cli_usage(&replicate_tool, "keep-head", "%s", err.text);
		goto done;
	}
	if (st != EV_OK)
		ev_cli_error(TOOL, &err);
	code = ev_status_exit_code(st);
done:
	ev_signing_key_free(key);
	ev_trust_free(trust);
	return code;
}
