/* SPDX-License-Identifier: Apache-2.0 */
/* seal capsule: the source a campaign was built from, sealed from a git
 * commit (never the working tree), and checked against a commit later
 * (lib/usecase/seal/seal_capsule); the tool draws the progress line and says
 * what was made or found. */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "lib/cli/progress.h"
#include "lib/receipt/receipt.h"
#include "lib/usecase/seal/seal_capsule.h"
#include "seal/outputs.h"
#include "seal/seal.h"

/* A member the commit cannot be sealed with: "seal: PATH: why". */
static void show_refusal(void *ctx, const struct ev_finding *f)
{
	(void)ctx;
	ev_cli_finding(stderr, TOOL ": ", f);
}

static void show_finding(void *ctx, const struct ev_finding *f)
{
	ev_cli_findings_add(ctx, f, f);
}

static ev_status capsule_create(struct ev_seal_capsule *o, int json, struct ev_error *err)
{
	struct ev_progress progress;
	ev_progress_init(&progress, stderr, TOOL ": sealing the commit", 0, 0);
	struct ev_meter meter = ev_progress_meter(&progress);
	o->meter = &meter;
	ev_status st = ev_seal_capsule_create(o, err);
	ev_progress_done(&progress);
	o->meter = NULL;
	if (st != EV_OK)
		return st;
	if (json)
		return ev_json_print(o->receipt_doc, stdout, err);
	seal_out_print(&o->out, &o->seal);
	printf("  commit %s, tree %s\n", o->commit_id, o->tree_id);
	return EV_OK;
}

static ev_status capsule_verify(struct ev_seal_capsule *o, const char *target, int json, struct ev_error *err)
{
	json_t *receipt = ev_receipt_new("verify", TOOL, ev_cli_invocation(), err);
	if (!receipt)
		return err->status;
	struct ev_cli_findings findings;
	ev_cli_findings_init(&findings, stderr, TOOL ": ", json, receipt, 0);
	struct ev_progress progress;
	ev_progress_init(&progress, stderr, TOOL ": hashing the commit", 0, 0);
	struct ev_meter meter = ev_progress_meter(&progress);
	o->meter = &meter;
	o->on_finding = show_finding;
	o->ctx = &findings;
	ev_status st = ev_seal_capsule_verify(o, receipt, err);
	ev_progress_done(&progress);
	o->meter = NULL;
	if (st == EV_OK || st == EV_MISMATCH) {
		if (o->named && strcmp(o->named, o->commit_id) != 0)
			printf("the capsule names commit %s; checking it against %s\n", o->named, o->commit_id);
		if (json) {
			ev_status pst = ev_json_print(receipt, stdout, err);
			if (pst != EV_OK)
				st = pst;
		}
		printf("%s: %s: %zu members against commit %s, %" PRIu64 " finding%s; receipt %s\n",
		       o->findings ? "FAIL" : "OK", target, o->seal.count, o->commit_id, o->findings,
		       o->findings == 1 ? "" : "s", o->receipt_path);
	}
	ev_cli_findings_free(&findings);
	json_decref(receipt);
	return st;
}

int seal_capsule_main(int argc, char **argv)
{
	struct ev_seal_capsule o = {0};
	int json = 0, verify = 0;
	const char *target = NULL;
	ev_seal_archive_opts_init(&o.archive);
	int c, bad;
	struct ev_cli_getopt opts;
	ev_cli_getopt_init(&opts, &seal_tool, "capsule");
	optind = 1;
	while ((c = ev_cli_getopt_next(&opts, argc, argv)) != -1) {
		if ((bad = seal_archive_opt(&o.archive, &opts, c, optarg, "capsule")) >= 0) {
			if (bad)
				return bad;
			continue;
		}
		switch (c) {
		case SEAL_CAPSULE_OPT_COMMIT: o.commit = optarg; break;
		case EV_CLI_HELP: return ev_cli_help(&seal_tool, "capsule");
		case SEAL_CAPSULE_OPT_JSON: json = 1; break;
		case SEAL_CAPSULE_OPT_NAME: o.name = optarg; break;
		case SEAL_CAPSULE_OPT_OUTPUT: o.outdir = optarg; break;
		case SEAL_CAPSULE_OPT_REPO: o.repo = optarg; break;
		case SEAL_CAPSULE_OPT_RECEIPT: o.receipt = optarg; break;
		case SEAL_CAPSULE_OPT_SYMLINKS:
		case SEAL_CAPSULE_OPT_SUBMODULES:
			*(c == SEAL_CAPSULE_OPT_SYMLINKS ? &o.record_links : &o.record_submodules) = strcmp(optarg, "record") == 0;
			break;
		case SEAL_CAPSULE_OPT_VERIFY: verify = 1; break;
		default: return ev_cli_usage(&seal_tool, "capsule", "%s", ev_cli_option_problem(argv));
		}
	}
	if ((bad = seal_archive_opts_check(&o.archive, "capsule")) != 0)
		return bad;
	if (!o.repo)
		return ev_cli_usage(&seal_tool, "capsule", "no repository given (--repo DIR)");
	if (verify) {
		if (optind + 1 != argc)
			return ev_cli_usage(&seal_tool, "capsule", "--verify takes one CAPSULE (its OUTDIR, SEAL.json, or a tree)");
		o.target = target = argv[optind];
	} else {
		if (o.receipt)
			return ev_cli_usage(&seal_tool, "capsule", "--receipt names --verify's receipt; seal capsule "
					    "writes its own into OUTDIR");
		if (optind != argc)
			return ev_cli_usage(&seal_tool, "capsule", "unexpected argument '%s'", argv[optind]);
		if (!o.outdir)
			return ev_cli_usage(&seal_tool, "capsule", "no output directory given (-o OUTDIR)");
	}
	ev_cli_catch_signals();
	struct ev_error err;
	ev_error_clear(&err);
	o.on_refusal = show_refusal;
	o.interrupted = &ev_cli_interrupted;
	o.invocation = ev_cli_invocation();
	ev_status st = verify ? capsule_verify(&o, target, json, &err) : capsule_create(&o, json, &err);
	if (st >= EV_ERROR)
		ev_cli_error(TOOL, &err);
	ev_seal_capsule_free(&o);
	ev_signing_key_free(o.archive.sign_key);
	return ev_status_exit_code(st);
}
