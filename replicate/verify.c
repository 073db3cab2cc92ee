/* SPDX-License-Identifier: Apache-2.0 */
/* replicate verify: stream one archive against its seal and write a
 * replica receipt saying what this host holds. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/archive/archive_reader.h"
#include "lib/usecase/seal/archive_verify.h"
#include "lib/core/input.h"
#include "lib/core/json.h"
#include "lib/cli/progress.h"
#include "lib/receipt/receipt.h"
#include "lib/archive/seal.h"
#include "lib/core/sha256.h"
#include "lib/receipt/signature.h"
#include "lib/receipt/receipt_read.h"
#include "lib/core/path.h"
#include "lib/receipt/receipt_set.h"
#include "replicate/replicate.h"

struct verify_opts {
	const char *seal, *seal_sha256, *archive_sha256, *receipt, *receipt_dir, *sign_key, *archive;
	int json, stop_when_stdin_closes;
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
	/* The receipt names the archive and the seal by role, not by path:
	 * paths differ between hosts and the comparable part must not. */
	struct ev_finding stable = *f;
	if (strcmp(f->subject, r->o->archive) == 0)
		stable.subject = "archive";
	else if (strcmp(f->subject, r->o->seal) == 0)
		stable.subject = EV_SEAL_FILENAME;
	ev_cli_findings_add(&r->shown, f, &stable);
}

static ev_status write_receipt(struct report *r, const struct ev_signing_key *key,
			       char *path, size_t cap, struct ev_error *err)
{
	const struct verify_opts *o = r->o;
	char label[128], stem[160];
	ev_path_label(ev_receipt_host(r->receipt), label, sizeof label);
	snprintf(stem, sizeof stem, "replica-%s", label);
	/* with --json, a caller that reads the receipt on stdout (push) learns its name */
	return ev_cli_receipt_emit(&r->shown, r->receipt, key, o->receipt,
				   o->receipt_dir ? o->receipt_dir : EV_RECEIPT_DEFAULT_DIR, stem, o->json, TOOL, path, cap,
				   err);
}

static ev_status run_verify(struct report *r, char *receipt_path, size_t cap,
			    struct ev_error *err)
{
	const struct verify_opts *o = r->o;
	struct ev_signing_key *key = NULL;
	ev_status st;

	/* Everything that could stop the receipt from being written is tried
	 * before the long read. */
	if (ev_receipt_refuse_existing(o->receipt, err) != EV_OK)
		return err->status;
	struct stat sb;
	if (o->receipt_dir && (stat(o->receipt_dir, &sb) != 0 || !S_ISDIR(sb.st_mode)))
		return ev_error_set(err, EV_USAGE, "%s: --receipt-dir is not a directory",
				    o->receipt_dir);
	if (stat(o->archive, &sb) != 0)
		return ev_error_errno(err, errno, "%s: cannot stat the archive", o->archive);
	if (!S_ISREG(sb.st_mode))
		return ev_error_set(err, EV_USAGE,
				    "%s: %s, not a regular file: an archive is read from a file, never waited on",
				    o->archive, ev_input_kind(sb.st_mode));
	if (o->sign_key && (st = ev_signing_key_load(o->sign_key, &key, err)) != EV_OK)
		return st;
	if (!(r->receipt = ev_receipt_new("replica", TOOL, ev_cli_invocation(), err))) {
		ev_signing_key_free(key);
		return err->status;
	}
	ev_cli_findings_init(&r->shown, stderr, TOOL ": ", o->json, r->receipt, o->max_findings);

	/* Where the files were on this host, in full: a receipt read later,
	 * elsewhere, must not depend on the directory it was made from. */
	char seal_real[PATH_MAX], archive_real[PATH_MAX];
	if (!realpath(o->seal, seal_real))
		snprintf(seal_real, sizeof seal_real, "%s", o->seal);
	if (!realpath(o->archive, archive_real))
		snprintf(archive_real, sizeof archive_real, "%s", o->archive);
	struct ev_progress progress;
	ev_progress_init(&progress, stderr, TOOL ": verifying", 0, 0);
	struct ev_meter meter = ev_progress_meter(&progress);
	struct ev_archive_verify v = {.archive = o->archive, .seal = o->seal, .archive_recorded = archive_real,
				      .seal_recorded = seal_real, .seal_sha256 = o->seal_sha256,
				      .archive_sha256 = o->archive_sha256, .archive_pin_offered = 1,
				      .on_finding = on_finding, .ctx = r, .meter = &meter,
				      .interrupted = &ev_cli_interrupted};
	st = ev_archive_verify(&v, r->receipt, err);
	ev_progress_done(&progress);
	if (st != EV_OK && st != EV_MISMATCH)
		goto out;
	if (!v.seal_unpinned) {
		const struct ev_seal *seal = &v.seal_doc;
		json_t *totals = json_pack("{s:I, s:I, s:I}", "files", (json_int_t)seal->files, "dirs",
					   (json_int_t)seal->dirs, "bytes", (json_int_t)seal->bytes);
		ev_status fst;
		if ((fst = ev_receipt_set_fact(r->receipt, "root", json_string(seal->root), err)) ||
		    (fst = ev_receipt_set_fact(r->receipt, "totals", totals, err)) ||
		    (fst = ev_receipt_set_fact(r->receipt, "archive_bytes",
					       json_integer((json_int_t)v.check.archive_bytes), err)) ||
		    (fst = ev_receipt_set_fact(r->receipt, "members_read",
					       json_integer((json_int_t)v.check.members_checked), err))) {
			st = fst;
			goto out;
		}
	}
	ev_status wst = write_receipt(r, key, receipt_path, cap, err);
	if (wst != EV_OK) {
		st = wst;
		goto out;
	}
	if (!o->json && !v.seal_unpinned)
		printf("%s\n%s: %s: %zu members, %" PRIu64 " finding%s against %s; receipt %s\n", v.coverage,
		       v.findings ? "FAIL" : "OK", o->archive, v.seal_doc.count, v.findings,
		       v.findings == 1 ? "" : "s", o->seal, receipt_path);
out:
	ev_archive_verify_free(&v);
	ev_signing_key_free(key);
	return st;
}

int replicate_verify_main(int argc, char **argv)
{
	struct verify_opts o = {.max_findings = EV_CLI_DEFAULT_MAX_FINDINGS};
	int c;
	struct ev_cli_getopt opts;
	ev_cli_getopt_init(&opts, &replicate_tool, "verify");
	optind = 1;
	while ((c = ev_cli_getopt_next(&opts, argc, argv)) != -1) {
		switch (c) {
		case REPLICATE_VERIFY_OPT_ARCHIVE_SHA256: o.archive_sha256 = optarg; break;
		case REPLICATE_VERIFY_OPT_RECEIPT_DIR: o.receipt_dir = optarg; break;
		case EV_CLI_HELP:
			return ev_cli_help(&replicate_tool, "verify");
		case REPLICATE_VERIFY_OPT_JSON: o.json = 1; break;
		case REPLICATE_VERIFY_OPT_SIGN_KEY: o.sign_key = optarg; break;
		case REPLICATE_VERIFY_OPT_MAX_FINDINGS:
			o.max_findings = opts.count;
			break;
		case REPLICATE_VERIFY_OPT_SEAL_SHA256: o.seal_sha256 = optarg; break;
		case REPLICATE_VERIFY_OPT_RECEIPT: o.receipt = optarg; break;
		case REPLICATE_VERIFY_OPT_SEAL: o.seal = optarg; break;
		case REPLICATE_VERIFY_OPT_STOP_WHEN_STDIN_CLOSES: o.stop_when_stdin_closes = 1; break;
		default:
			return ev_cli_usage(&replicate_tool, "verify", "%s", ev_cli_option_problem(argv));
		}
	}
	if (ev_cli_getopt_relations(&opts))
		return 2;
	if (optind + 1 != argc)
		return ev_cli_usage(&replicate_tool, "verify", optind == argc ? "no ARCHIVE given" : "more than one ARCHIVE given");
	o.archive = argv[optind];
	if (!o.seal)
		return ev_cli_usage(&replicate_tool, "verify", "no seal given (--seal SEAL.json)");

	ev_cli_catch_signals();
	if (o.stop_when_stdin_closes && ev_cli_stop_when_stdin_closes() != 0) {
		fputs(TOOL ": cannot start the thread that watches stdin\n", stderr);
		return 2;
	}
	struct ev_error err;
	ev_error_clear(&err);
	struct report r = {.o = &o};
	char receipt_path[PATH_MAX];
	ev_status st = run_verify(&r, receipt_path, sizeof receipt_path, &err);
	if (st >= EV_ERROR)
		ev_cli_error(TOOL, &err);
	ev_cli_findings_free(&r.shown);
	json_decref(r.receipt);
	return ev_status_exit_code(st);
}
