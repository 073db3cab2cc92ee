/* SPDX-License-Identifier: Apache-2.0 */
/* seal integrate: the selected part of the evidence, committed to a git
 * repository, checked against its sealed originals
 * (lib/usecase/seal/seal_integrate), and what it found shown. */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/receipt/receipt.h"
#include "lib/usecase/seal/seal_integrate.h"
#include "seal/seal.h"

static void show_finding(void *ctx, const struct ev_finding *f)
{
	ev_cli_findings_add(ctx, f, f);
}

/* The one use case; each finding printed and kept in the receipt as it
 * is made; then the verdict, or --json the receipt. */
static ev_status integrate(struct ev_seal_integrate *o, int json, struct ev_error *err)
{
	json_t *receipt = ev_receipt_new("integration", TOOL, ev_cli_invocation(), err);
	if (!receipt)
		return err->status;
	struct ev_cli_findings findings;
	ev_cli_findings_init(&findings, stderr, TOOL ": ", json, receipt, 0);
	o->on_finding = show_finding;
	o->ctx = &findings;
	o->interrupted = &ev_cli_interrupted;
	ev_status st = ev_seal_integrate(o, receipt, err);
	if ((st == EV_OK || st == EV_MISMATCH) && json) {
		ev_status pst = ev_json_print(receipt, stdout, err);
		if (pst != EV_OK)
			st = pst;
	} else if (st == EV_OK || st == EV_MISMATCH) {
		printf("%s: %zu selected members against %s %.12s, %" PRIu64 " finding%s, %u mode%s represented by the "
		       "rule; receipt %s\n",
		       o->findings ? "FAIL" : "OK", o->members, o->worktree ? "the working tree at" : "commit", o->commit,
		       o->findings, o->findings == 1 ? "" : "s", o->accepted, o->accepted == 1 ? "" : "s", o->receipt_path);
	}
	ev_cli_findings_free(&findings);
	json_decref(receipt);
	return st;
}

int seal_integrate_main(int argc, char **argv)
{
	struct ev_seal_integrate o = {0};
	int json = 0;
	int c;
	struct ev_cli_getopt opts;
	ev_cli_getopt_init(&opts, &seal_tool, "integrate");
	optind = 1;
	while ((c = ev_cli_getopt_next(&opts, argc, argv)) != -1) {
		switch (c) {
		case EV_CLI_HELP: return ev_cli_help(&seal_tool, "integrate");
		case SEAL_INTEGRATE_OPT_JSON: json = 1; break;
		case SEAL_INTEGRATE_OPT_PREFIX: o.prefix = optarg; break;
		case SEAL_INTEGRATE_OPT_RECEIPT: o.receipt = optarg; break;
		case SEAL_INTEGRATE_OPT_REPO: o.repo = optarg; break;
		case SEAL_INTEGRATE_OPT_REV: o.rev = optarg; break;
		case SEAL_INTEGRATE_OPT_SELECTION: o.selection = optarg; break;
		case SEAL_INTEGRATE_OPT_WORKTREE: o.worktree = 1; break;
		case SEAL_INTEGRATE_OPT_SIGN_KEY:
			if (ev_cli_sign_key(TOOL, optarg, &o.sign_key))
				return 2;
			break;
		default: return ev_cli_usage(&seal_tool, "integrate", "%s", ev_cli_option_problem(argv));
		}
	}
	if (ev_cli_getopt_relations(&opts))
		return 2;
	if (optind != argc)
		return ev_cli_usage(&seal_tool, "integrate", "unexpected argument '%s'", argv[optind]);
	if (!o.selection || !o.repo)
		return ev_cli_usage(&seal_tool, "integrate", "--selection and --repo are required");
	char prefix[PATH_MAX];
	if (o.prefix) {
		size_t n = strlen(o.prefix);
		while (n && o.prefix[n - 1] == '/')
			n--;
		if (n >= sizeof prefix)
			return ev_cli_usage(&seal_tool, "integrate", "--prefix is too long");
		memcpy(prefix, o.prefix, n);
		prefix[n] = '\0';
		o.prefix = n ? prefix : NULL;
	}
	if (o.receipt && access(o.receipt, F_OK) == 0) {
		fprintf(stderr, TOOL ": %s: already exists; evidence is never overwritten (choose a new name)\n", o.receipt);
		return 2;
	}
	ev_cli_catch_signals();
	struct ev_error err;
	ev_error_clear(&err);
	ev_status st = integrate(&o, json, &err);
	if (st >= EV_ERROR)
		ev_cli_error(TOOL, &err);
	ev_signing_key_free(o.sign_key);
	return ev_status_exit_code(st);
}
