/* SPDX-License-Identifier: Apache-2.0 */
/* replicate prune: remove a completed runtime directory once enough hosts
 * hold verified, agreeing copies of its seal, and only then
 * (lib/usecase/replicate/replicate_prune); the tool shows every reason, the progress
 * of the check, and what became of DIR. */
#include "config.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>

#include "lib/cli/progress.h"
#include "lib/core/sha256.h"
#include "lib/receipt/receipt.h"
#include "lib/usecase/replicate/replicate_prune.h"
#include "replicate/replicate.h"

#define MAX_RECEIPTS 256
#define MAX_TRUST 64

struct shown {
	struct ev_cli_findings refused, kept; /* why DIR is not removed whole */
};

static void show_refused(void *ctx, const struct ev_finding *f)
{
	struct shown *s = ctx;
	ev_cli_findings_add(&s->refused, f, f);
}

static void show_kept(void *ctx, const struct ev_finding *f)
{
	struct shown *s = ctx;
	ev_cli_findings_add(&s->kept, f, f);
}

static ev_status prune(struct ev_replicate_prune *o, int json, struct ev_error *err)
{
	json_t *receipt = ev_receipt_new("cleanup", TOOL, ev_cli_invocation(), err);
	if (!receipt)
		return err->status;
	struct shown s;
	ev_cli_findings_init(&s.refused, stderr, TOOL ": refused: ", json, receipt, 0);
	ev_cli_findings_init(&s.kept, stderr, TOOL ": kept: ", json, receipt, 0);
	struct ev_progress progress;
	ev_progress_init(&progress, stderr, TOOL ": checking", 0, 0);
	struct ev_meter meter = ev_progress_meter(&progress);
	o->on_refused = show_refused;
	o->on_kept = show_kept;
	o->ctx = &s;
	o->meter = &meter;
	o->interrupted = &ev_cli_interrupted;
	ev_status st = ev_replicate_prune(o, receipt, err);
	ev_progress_done(&progress);
	unsigned reasons = o->refused + o->kept;
	if (o->receipt_path[0] && json) {
		ev_status pst = ev_json_print(receipt, stdout, err);
		if (pst != EV_OK && st < EV_ERROR)
			st = pst;
	}
	if (!json && o->coverage_line[0])
		printf("%s\n", o->coverage_line);
	if (o->receipt_path[0] && o->outcome == EV_PRUNE_STOPPED)
		fprintf(stderr, TOOL ": removal stopped; receipt %s\n", o->receipt_path);
	else if (o->receipt_path[0] && !json && o->outcome == EV_PRUNE_REFUSED)
		printf("REFUSED: %s was not removed: %u reason%s above; receipt %s\n", o->dir, reasons,
		       reasons == 1 ? "" : "s", o->receipt_path);
	else if (o->receipt_path[0] && !json && o->outcome == EV_PRUNE_KEPT)
		printf("KEPT: %s was not removed whole: %u entr%s changed after the check, left at %s; receipt %s\n",
		       o->dir, o->not_removed, o->not_removed == 1 ? "y" : "ies", o->left_at, o->receipt_path);
	else if (o->receipt_path[0] && !json && o->outcome == EV_PRUNE_REMOVED) {
		char size[32];
		ev_format_bytes(o->bytes, size, sizeof size);
		printf("removed %s: %llu files, %llu dirs, %s; receipt %s\n", o->dir, (unsigned long long)o->files,
		       (unsigned long long)o->dirs, size, o->receipt_path);
	}
	ev_cli_findings_free(&s.refused);
	ev_cli_findings_free(&s.kept);
	json_decref(receipt);
	return st;
}

int replicate_prune_main(int argc, char **argv)
{
	struct ev_replicate_prune o = {.min_hosts = 2};
	char *receipts[MAX_RECEIPTS], *audits[MAX_RECEIPTS];
	const char *trust[MAX_TRUST];
	int json = 0;
	int c;
	struct ev_cli_getopt opts;
	ev_cli_getopt_init(&opts, &replicate_tool, "prune");
	optind = 1;
	while ((c = ev_cli_getopt_next(&opts, argc, argv)) != -1) {
		switch (c) {
		case EV_CLI_HELP:
			return ev_cli_help(&replicate_tool, "prune");
		case REPLICATE_PRUNE_OPT_JSON: json = 1; break;
		case REPLICATE_PRUNE_OPT_MAX_AGE: o.max_age = opts.count; break;
		case REPLICATE_PRUNE_OPT_MIN_HOSTS:
			o.min_hosts = opts.count;
			break;
		case REPLICATE_PRUNE_OPT_RECEIPT: o.receipt = optarg; break;
		case REPLICATE_PRUNE_OPT_RECEIPTS:
			if (o.n_receipts == MAX_RECEIPTS)
				return ev_cli_usage(&replicate_tool, "prune", "at most %d receipts", MAX_RECEIPTS);
			receipts[o.n_receipts++] = optarg;
			break;
		case REPLICATE_PRUNE_OPT_REQUIRE_AUDIT:
			if (o.n_audits == MAX_RECEIPTS)
				return ev_cli_usage(&replicate_tool, "prune", "at most %d --require-audit", MAX_RECEIPTS);
			audits[o.n_audits++] = optarg;
			break;
		case REPLICATE_PRUNE_OPT_SEAL_SHA256: o.seal_sha256 = optarg; break;
		case REPLICATE_PRUNE_OPT_REQUIRE_TIMESTAMP: o.require_timestamp = optarg; break;
		case REPLICATE_PRUNE_OPT_SEAL: o.seal = optarg; break;
		case REPLICATE_PRUNE_OPT_SELECTION: o.selection = optarg; break;
		case REPLICATE_PRUNE_OPT_SIGN_KEY:
			if (ev_cli_sign_key(TOOL, optarg, &o.sign_key))
				return 2;
			break;
		case REPLICATE_PRUNE_OPT_TRUST:
			if (o.n_trust == MAX_TRUST)
				return ev_cli_usage(&replicate_tool, "prune", "at most %d --trust files", MAX_TRUST);
			trust[o.n_trust++] = optarg;
			break;
		default:
			return ev_cli_usage(&replicate_tool, "prune", "%s", ev_cli_option_problem(argv));
		}
	}
	/* getopt moves the words after --receipts R1 to the end: all but the
	 * last word are receipts, the last is DIR. */
	if (optind == argc)
		return ev_cli_usage(&replicate_tool, "prune", "no DIR given");
	for (int i = optind; i < argc - 1; i++) {
		if (o.n_receipts == MAX_RECEIPTS)
			return ev_cli_usage(&replicate_tool, "prune", "at most %d receipts", MAX_RECEIPTS);
		receipts[o.n_receipts++] = argv[i];
	}
	o.dir = argv[argc - 1];
	if (!o.seal)
		return ev_cli_usage(&replicate_tool, "prune", "no seal given (--seal SEAL.json)");
	if (!o.n_receipts)
		return ev_cli_usage(&replicate_tool, "prune", "no receipts given (--receipts R1 R2 ...)");

	ev_cli_catch_signals();
	struct ev_error err;
	ev_error_clear(&err);
	o.receipts = receipts;
	o.audits = audits;
	o.trust = trust;
	ev_status st = prune(&o, json, &err);
	if (st >= EV_ERROR)
		ev_cli_error(TOOL, &err);
	ev_signing_key_free(o.sign_key);
	return ev_status_exit_code(st);
}
