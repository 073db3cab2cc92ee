/* SPDX-License-Identifier: Apache-2.0 */
/* seal create: its options, then lib/usecase/seal/seal_create, then what it made. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>

#include "lib/receipt/signature.h"
#include "lib/cli/progress.h"
#include "lib/core/json.h"
#include "lib/usecase/seal/seal_create.h"
#include "seal/outputs.h"
#include "seal/seal.h"

struct create_opts {
	const char *dir, *outdir, *name;
	struct ev_seal_archive_opts archive;
	int refuse_writable, json;
};

static void print_refusal(void *ctx, const struct ev_finding *f)
{
	(void)ctx;
	ev_cli_finding(stderr, TOOL ": refused: ", f);
}

int seal_create_main(int argc, char **argv)
{
	struct create_opts o = {0};
	ev_seal_archive_opts_init(&o.archive);
	int c, bad;
	struct ev_cli_getopt opts;
	ev_cli_getopt_init(&opts, &seal_tool, "create");
	optind = 1;
	while ((c = ev_cli_getopt_next(&opts, argc, argv)) != -1) {
		if ((bad = seal_archive_opt(&o.archive, &opts, c, optarg, "create")) >= 0) {
			if (bad)
				return bad;
			continue;
		}
		switch (c) {
		case EV_CLI_HELP:
			return ev_cli_help(&seal_tool, "create");
		case SEAL_CREATE_OPT_JSON: o.json = 1; break;
		case SEAL_CREATE_OPT_NAME: o.name = optarg; break;
		case SEAL_CREATE_OPT_OUTPUT: o.outdir = optarg; break;
		case SEAL_CREATE_OPT_REFUSE_WRITABLE: o.refuse_writable = 1; break;
		default:
			return ev_cli_usage(&seal_tool, "create", "%s", ev_cli_option_problem(argv));
		}
	}
	if (optind + 1 != argc)
		return ev_cli_usage(&seal_tool, "create", optind == argc ? "no DIR given" : "more than one DIR given");
	o.dir = argv[optind];
	if (!o.outdir)
		return ev_cli_usage(&seal_tool, "create", "no output directory given (-o OUTDIR)");
	if ((bad = seal_archive_opts_check(&o.archive, "create")) != 0)
		return bad;

	ev_cli_catch_signals();
	struct ev_error err;
	ev_error_clear(&err);
	struct ev_progress progress;
	ev_progress_init(&progress, stderr, TOOL ": sealing", 0, 0);
	struct ev_meter meter = ev_progress_meter(&progress);
	struct ev_seal_create sc = {.dir = o.dir, .outdir = o.outdir, .name = o.name, .archive = o.archive,
				   .refuse_writable = o.refuse_writable, .on_refusal = print_refusal,
				   .meter = &meter, .interrupted = &ev_cli_interrupted, .invocation = ev_cli_invocation()};
	ev_status st = ev_seal_create(&sc, &err);
	ev_progress_done(&progress);
	if (st != EV_OK)
		ev_cli_error(TOOL, &err);
	else if (o.json)
		ev_json_print(sc.receipt, stdout, &err);
	else
		seal_out_print(&sc.out, &sc.seal);
	ev_seal_create_free(&sc);
	ev_signing_key_free(o.archive.sign_key);
	return ev_status_exit_code(st);
}

