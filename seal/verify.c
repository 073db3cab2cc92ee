/* SPDX-License-Identifier: Apache-2.0 */
/* seal verify: check a tree, an archive or a copied selection against a
 * seal, reporting every finding. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/receipt/signature.h"
#include "lib/archive/archive_reader.h"
#include "lib/core/publish.h"
#include "lib/core/input.h"
#include "lib/core/json.h"
#include "lib/cli/progress.h"
#include "lib/receipt/receipt.h"
#include "lib/archive/seal.h"
#include "lib/core/sha256.h"
#include "lib/usecase/seal/archive_verify.h"
#include "lib/usecase/seal/tree_verify.h"
#include "lib/archive/tree_check.h"
#include "seal/seal.h"

struct verify_opts {
	struct ev_signing_key *sign_key;
	const char *seal, *seal_sha256, *selection, *receipt, *target;
	int json;
	long max_findings;
};

struct report {
	const struct verify_opts *o;
	json_t *receipt;
	struct ev_cli_findings shown; /* counted; printed and kept up to --max-findings per check */
};

static void on_finding(void *ctx, const struct ev_finding *f)
{
	struct report *r = ctx;
	ev_cli_findings_add(&r->shown, f, f);
}

static int is_directory(const char *path, struct ev_error *err, ev_status *st)
{
	struct stat sb;
	if (stat(path, &sb) != 0) {
		*st = ev_error_errno(err, errno, "%s: cannot stat", path);
		return -1;
	}
	if (S_ISDIR(sb.st_mode))
		return 1;
	if (S_ISREG(sb.st_mode))
		return 0;
	*st = ev_error_set(err, EV_USAGE,
			   "%s: %s, neither a directory nor an archive file: seal verify reads a tree or "
			   "a regular file, never waits on one", path, ev_input_kind(sb.st_mode));
	return -1;
}

static ev_status emit_receipt(struct report *r, char *path, size_t cap, struct ev_error *err)
{
	return ev_cli_receipt_emit(&r->shown, r->receipt, r->o->sign_key, r->o->receipt, EV_RECEIPT_DEFAULT_DIR, "verify",
				   r->o->json, NULL, path, cap, err);
}

/* An archive: the one verification replicate verify makes too. */
static ev_status verify_archive(const struct verify_opts *o, struct report *r, size_t *members,
				char *coverage, size_t cap, struct ev_error *err)
{
	struct ev_progress progress;
	ev_progress_init(&progress, stderr, TOOL ": verifying", 0, 0);
	struct ev_meter meter = ev_progress_meter(&progress);
	struct ev_archive_verify v = {.archive = o->target, .seal = o->seal, .seal_sha256 = o->seal_sha256,
				      .on_finding = on_finding, .ctx = r, .meter = &meter,
				      .interrupted = &ev_cli_interrupted};
	ev_status st = ev_archive_verify(&v, r->receipt, err);
	ev_progress_done(&progress);
	*members = v.seal_doc.count;
	snprintf(coverage, cap, "%s", v.coverage);
	ev_archive_verify_free(&v);
	return st;
}

/* A tree, against a seal or a selection: the check prune makes too. */
static ev_status verify_tree(const struct verify_opts *o, struct report *r, size_t *members,
			     char *coverage, size_t cap, struct ev_error *err)
{
	struct ev_tree_verify v = {.dir = o->target, .dir_input = "tree", .seal = o->seal,
				   .seal_sha256 = o->seal_sha256, .selection = o->selection, .pin_is_a_check = 1,
				   .on_finding = on_finding, .ctx = r, .interrupted = &ev_cli_interrupted};
	ev_status st = ev_tree_verify_expect(&v, r->receipt, err);
	if (st != EV_OK)
		goto out;
	*members = v.expected->count;
	struct ev_progress progress;
	ev_progress_init(&progress, stderr, TOOL ": verifying", v.expected->bytes, v.expected->count);
	struct ev_meter meter = ev_progress_meter(&progress);
	v.meter = &meter;
	st = ev_tree_verify_check(&v, err);
	ev_progress_done(&progress);
	if (st != EV_OK)
		goto out;
	ev_receipt_set_fact(r->receipt, "coverage",
			    ev_tree_coverage(o->selection != NULL, o->seal_sha256 != NULL, coverage, cap), err);
	char detail[128];
	uint64_t n = r->shown.total;
	snprintf(detail, sizeof detail, "%zu members expected, %" PRIu64 " finding%s", v.expected->count, n,
		 n == 1 ? "" : "s");
	ev_receipt_add_check(r->receipt, "members", n == 0, detail, err);
	st = n ? EV_MISMATCH : EV_OK;
out:
	ev_tree_verify_free(&v);
	return st;
}

static ev_status run_verify(const struct verify_opts *o, struct report *r, struct ev_error *err)
{
	char coverage[512] = "";
	size_t members = 0;
	ev_status st = ev_receipt_refuse_existing(o->receipt, err);
	if (st != EV_OK)
		return st;
	int dir = is_directory(o->target, err, &st);
	if (dir < 0)
		return st;
	if (o->selection && !dir)
		return ev_error_set(err, EV_USAGE, "%s: --selection checks a directory, not an archive",
				    o->target);
	if (!(r->receipt = ev_receipt_new("verify", TOOL, ev_cli_invocation(), err)))
		return err->status;
	ev_cli_findings_init(&r->shown, stderr, TOOL ": ", o->json, r->receipt, o->max_findings);
	st = dir ? verify_tree(o, r, &members, coverage, sizeof coverage, err)
		 : verify_archive(o, r, &members, coverage, sizeof coverage, err);
	if (st != EV_OK && st != EV_MISMATCH)
		return st;
	char path[PATH_MAX];
	ev_status wst = emit_receipt(r, path, sizeof path, err);
	if (wst != EV_OK)
		return wst;
	if (!o->json) {
		if (coverage[0])
			printf("%s\n", coverage);
		printf("%s: %s: %zu members, %" PRIu64 " finding%s against %s; receipt %s\n",
		       st == EV_OK ? "OK" : "FAIL", o->target, members, r->shown.total,
		       r->shown.total == 1 ? "" : "s", o->selection ? o->selection : o->seal, path);
	}
	return st;
}

int seal_verify_main(int argc, char **argv)
{
	struct verify_opts o = {.max_findings = EV_CLI_DEFAULT_MAX_FINDINGS};
	int c;
	struct ev_cli_getopt opts;
	ev_cli_getopt_init(&opts, &seal_tool, "verify");
	optind = 1;
	while ((c = ev_cli_getopt_next(&opts, argc, argv)) != -1) {
		switch (c) {
		case EV_CLI_HELP:
			return ev_cli_help(&seal_tool, "verify");
		case SEAL_VERIFY_OPT_JSON: o.json = 1; break;
		case SEAL_VERIFY_OPT_MAX_FINDINGS:
			o.max_findings = opts.count;
			break;
		case SEAL_VERIFY_OPT_SEAL_SHA256: o.seal_sha256 = optarg; break;
		case SEAL_VERIFY_OPT_RECEIPT: o.receipt = optarg; break;
		case SEAL_VERIFY_OPT_SEAL: o.seal = optarg; break;
		case SEAL_VERIFY_OPT_SELECTION: o.selection = optarg; break;
		case SEAL_VERIFY_OPT_SIGN_KEY:
			if (ev_cli_sign_key(TOOL, optarg, &o.sign_key))
				return 2;
			break;
		default:
			return ev_cli_usage(&seal_tool, "verify", "%s", ev_cli_option_problem(argv));
		}
	}
	if (ev_cli_getopt_relations(&opts))
		return 2;
	if (optind + 1 != argc)
		return ev_cli_usage(&seal_tool, "verify", optind == argc ? "no DIR or ARCHIVE given"
							  : "more than one target given");
	o.target = argv[optind];
	if (!o.seal && !o.selection)
		return ev_cli_usage(&seal_tool, "verify", "nothing to check against (--seal or --selection)");

	ev_cli_catch_signals();
	struct ev_error err;
	ev_error_clear(&err);
	struct report r = {.o = &o};
	ev_status st = run_verify(&o, &r, &err);
	if (st >= EV_ERROR)
		ev_cli_error(TOOL, &err);
	ev_cli_findings_free(&r.shown);
	json_decref(r.receipt);
	ev_signing_key_free(o.sign_key);
	return ev_status_exit_code(st);
}
