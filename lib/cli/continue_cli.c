/* SPDX-License-Identifier: Apache-2.0 */
/* continue_cli: the face of every tool's "continue" (continue_cli.h):
 * its options, one call (lib/usecase/common/continuation_run), what it shows. */
#include "config.h"
#include "lib/cli/continue_cli.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/cli/cli.h"
#include "lib/core/sha256.h"
#include "lib/receipt/continuation.h"
#include "lib/receipt/signature.h"

/* continue's options, by name: what ev_cli_getopt_next returns for each. */
enum ev_continue_option {
	EV_CONTINUE_OPT_ACCEPT = 'a',
	EV_CONTINUE_OPT_ACCEPT_VALUE = 'v',
	EV_CONTINUE_OPT_JSON = 'j',
	EV_CONTINUE_OPT_ORIGINAL = 'o',
	EV_CONTINUE_OPT_ORIGINAL_SHA256 = 's',
	EV_CONTINUE_OPT_RECEIPT = 'r',
	EV_CONTINUE_OPT_SIGN_KEY = 'K',
};

const struct ev_cli_option ev_continue_options[] = {
	{"accept", 0, "CHECK=PATTERN", EV_CONTINUE_OPT_ACCEPT,
	 "accept a finding of the failed check CHECK whose found\n"
	 "value matches PATTERN in full (POSIX extended regex)", EV_CLI_TEXT, NULL},
	{"accept-value", 0, "CHECK=VALUE", EV_CONTINUE_OPT_ACCEPT_VALUE, "accept a finding of CHECK that found exactly VALUE", EV_CLI_TEXT, NULL},
	{"json", 0, NULL, EV_CONTINUE_OPT_JSON, "print the continuation receipt on stdout", EV_CLI_TEXT, NULL},
	{"original", 0, "RECEIPT", EV_CONTINUE_OPT_ORIGINAL, "the failed receipt (it records how it was run)", EV_CLI_TEXT, NULL},
	{"original-sha256", 0, "HEX", EV_CONTINUE_OPT_ORIGINAL_SHA256, "refuse unless the original's bytes have this digest", EV_CLI_TEXT, NULL},
	{"receipt", 0, "FILE", EV_CONTINUE_OPT_RECEIPT,
	 "the continuation (default: in the current directory,\n"
	 "named after the original: NAME-continuation.json)", EV_CLI_TEXT, NULL},
	EV_CLI_OPTION_SIGN_KEY(EV_CONTINUE_OPT_SIGN_KEY),
	{NULL, 0, NULL, 0, NULL, EV_CLI_TEXT, NULL},
};

/* Each difference no rule accepts, then the verdict (or --json). */
static void show(const struct ev_continuation *c, int json)
{
	for (size_t d = 0; d < c->nfresh; d++) {
		const struct ev_difference *diff = &c->fresh_diffs[d];
		int ok = 0;
		for (size_t a = 0; a < c->naccepts && !ok; a++)
			ok = ev_accept_matches(&c->accepts[a], diff);
		if (!ok)
			fprintf(stderr, "%s: %s: %s differs, and no rule accepts it (%s%s%sfound %s)\n", c->tool,
				diff->subject[0] ? diff->subject : diff->check, diff->check,
				diff->expected[0] ? "expected " : "", diff->expected, diff->expected[0] ? ", " : "",
				diff->found[0] ? diff->found : "nothing");
	}
	if (json) {
		struct ev_error ignored;
		ev_error_clear(&ignored);
		ev_json_print(c->out, stdout, &ignored);
	} else {
		printf("%s: continuation of %s (sha256 %.16s...): '%s %s' rerun, %zu difference%s, %zu accepted, "
		       "%zu remain%s; receipt %s\n",
		       c->remaining ? "FAIL" : "OK", c->original, c->orig_hex, c->tool, c->sub->subcommand, c->nfresh,
		       c->nfresh == 1 ? "" : "s", c->accepted, c->remaining, c->remaining == 1 ? "s" : "", c->path);
	}
}

int ev_continue_main(const struct ev_cli_tool *cli, const struct ev_continuable *subs, size_t nsubs,
		     int argc, char **argv)
{
	const char *tool = cli->name;
	struct ev_continuation c;
	memset(&c, 0, sizeof c);
	c.tool = tool;
	int json = 0;
	struct ev_cli_getopt opts;
	ev_cli_getopt_init(&opts, cli, "continue");
	struct ev_error err;
	ev_error_clear(&err);
	int code = 2, opt;
	optind = 1;
	while ((opt = ev_cli_getopt_next(&opts, argc, argv)) != -1) {
		switch (opt) {
		case EV_CLI_HELP:
			code = ev_cli_help(cli, "continue");
			goto out;
		case EV_CONTINUE_OPT_ACCEPT:
		case EV_CONTINUE_OPT_ACCEPT_VALUE:
			if (c.naccepts == EV_CONTINUE_MAX_ACCEPTS) {
				code = ev_cli_usage(cli, "continue", "more than %d rules", EV_CONTINUE_MAX_ACCEPTS);
				goto out;
			}
			if (ev_accept_parse(&c.accepts[c.naccepts], optarg, opt == 'v', &err) != EV_OK) {
				code = ev_cli_usage(cli, "continue", "%s", err.text);
				goto out;
			}
			c.naccepts++;
			break;
		case EV_CONTINUE_OPT_JSON: json = 1; break;
		case EV_CONTINUE_OPT_ORIGINAL: c.original = optarg; break;
		case EV_CONTINUE_OPT_ORIGINAL_SHA256: c.original_sha = optarg; break;
		case EV_CONTINUE_OPT_RECEIPT: c.receipt_path = optarg; break;
		case EV_CONTINUE_OPT_SIGN_KEY:
			if (ev_cli_sign_key(tool, optarg, &c.sign_key))
				goto out;
			break;
		default: code = ev_cli_usage(cli, "continue", "%s", ev_cli_option_problem(argv)); goto out;
		}
	}
	if (optind != argc) {
		code = ev_cli_usage(cli, "continue", "unexpected argument '%s'", argv[optind]);
		goto out;
	}
	if (!c.original || !c.naccepts) {
		code = ev_cli_usage(cli, "continue",
				    "--original and at least one --accept or --accept-value are required");
		goto out;
	}
	if (c.original_sha && strlen(c.original_sha) != EV_SHA256_HEX_LEN) {
		code = ev_cli_usage(cli, "continue", "--original-sha256: expected 64 hex digits, found '%s'",
				    c.original_sha);
		goto out;
	}
	if (c.receipt_path && access(c.receipt_path, F_OK) == 0) {
		fprintf(stderr, "%s: %s: already exists; evidence is never overwritten (choose a new name)\n", tool,
			c.receipt_path);
		goto out;
	}
	ev_cli_catch_signals();
	c.invocation = ev_cli_invocation();
	c.interrupted = &ev_cli_interrupted;
	ev_status st = ev_continuation_run(&c, subs, nsubs, &err);
	if (st == EV_OK || st == EV_MISMATCH)
		show(&c, json);
	if (st >= EV_ERROR)
		ev_cli_error(tool, &err);
	code = ev_status_exit_code(st);
out:
	ev_continuation_free(&c);
	ev_signing_key_free(c.sign_key);
	return code;
}
