/* audit profile: what capture's perf recorded of a run, read cold
 * (audit/profile.h), with a receipt, a table or --json. */
#include "config.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit/audit.h"
#include "audit/profile.h"
#include "lib/receipt/signature.h"
#include "lib/campaign/run.h"
#include "lib/core/json.h"
#include "lib/core/path.h"
#include "lib/core/sha256.h"
#include "lib/receipt/receipt.h"
#include "lib/receipt/receipt_read.h"


struct options {
	struct ev_signing_key *sign_key;
	const char *run_dir, *receipt, *perf;
	const char *seal, *seal_sha256, *run; /* --seal: RUN of the sealed ARCHIVE (run_dir) */
	int json;
};

static void print_side(const char *role, const json_t *f)
{
	printf("%s: pid %lld, %lld samples of %s, %lld lost%s\n", role, (long long)json_integer_value(json_object_get(f, "pid")),
	       (long long)json_integer_value(json_object_get(f, "samples")), json_string_value(json_object_get(f, "event")),
	       (long long)json_integer_value(json_object_get(f, "lost")),
	       json_is_true(json_object_get(f, "call_graphs")) ? ", with call graphs" : "");
	static const char *const order[] = {"application", "network stack", "libc", "kernel", "other"};
	printf("  split:");
	for (int i = 0; i < 5; i++)
		printf(" %s %.1f%%", order[i], 100 * strtod(json_string_value(json_object_get(json_object_get(f, "split"), order[i])) ?: "0", NULL));
	printf("\n  %-8s %8s  %s\n", "share", "samples", "object");
	size_t i;
	json_t *r;
	json_array_foreach(json_object_get(f, "objects"), i, r)
		if (i < 8)
			printf("  %7.2f%% %8lld  %s\n", 100 * strtod(json_string_value(json_object_get(r, "share")), NULL),
			       (long long)json_integer_value(json_object_get(r, "samples")), json_string_value(json_object_get(r, "name")));
	printf("  %-8s %8s  %s\n", "share", "samples", "object and symbol");
	json_array_foreach(json_object_get(f, "symbols"), i, r)
		if (i < 10)
			printf("  %7.2f%% %8lld  %s\n", 100 * strtod(json_string_value(json_object_get(r, "share")), NULL),
			       (long long)json_integer_value(json_object_get(r, "samples")), json_string_value(json_object_get(r, "name")));
}

static ev_status run_profile(const struct options *o, struct ev_error *err)
{
	char path[PATH_MAX], receipt_path[PATH_MAX + 64], copies[PATH_MAX] = "", shown[PATH_MAX * 2];
	struct ev_run run = {0};
	uint8_t d[EV_SHA256_LEN];
	char hex[EV_SHA256_HEX_LEN + 1];
	const char *run_dir = o->run_dir;
	struct audit_profile_ctx a = {ev_receipt_new("audit", TOOL, err), o->run_dir, "", 0};
	if (!a.receipt)
		return err->status;
	ev_status st = EV_OK;
	if (o->seal) { /* the run's members copied out of the archive, checked on the way */
		st = audit_profile_extract(o->run_dir, o->seal, o->seal_sha256, o->run, a.receipt, copies, sizeof copies, err);
		if (st != EV_OK) {
			if (st == EV_MISMATCH && (ev_receipt_finish_signed(a.receipt, o->sign_key, err) != EV_OK ||
						  ev_receipt_write_chosen(a.receipt, o->receipt, EV_RECEIPT_DEFAULT_DIR, "audit-profile",
									  receipt_path, sizeof receipt_path, err) != EV_OK))
				st = err->status;
			else if (st == EV_MISMATCH)
				fprintf(stderr, TOOL ": %s; receipt %s\n", err->text, receipt_path);
			json_decref(a.receipt);
			return st;
		}
		run_dir = copies;
		snprintf(shown, sizeof shown, "%s:%s", o->run_dir, o->run);
		a.run = shown;
	}
	if (ev_path_join(path, sizeof path, run_dir, EV_RUN_FILENAME) != 0)
		st = ev_error_set(err, EV_USAGE, "%s: path too long", run_dir);
	if (st == EV_OK)
		st = ev_run_load(path, 0, &run, d, err);
	if (st != EV_OK) {
		json_decref(a.receipt);
		if (copies[0])
			audit_profile_extract_remove(copies);
		return st;
	}
	ev_sha256_hex(d, hex);
	ev_receipt_add_input(a.receipt, "run", o->seal ? shown : path, hex, err);
	json_t *facts = json_object();
	size_t i, profiled = 0;
	json_t *proc;
	json_array_foreach(json_object_get(run.doc, "processes"), i, proc) {
		if (!json_object_get(proc, "profile"))
			continue;
		profiled++;
		if ((st = audit_profile_side(&a, run_dir, o->perf, proc, facts, err)) != EV_OK)
			break;
	}
	if (st == EV_OK && !profiled)
		st = ev_error_set(err, EV_REFUSED, "%s: no side of this run was profiled (run.json has no \"profile\")",
				  o->seal ? shown : path);
	if (st == EV_OK && ev_cli_interrupted)
		st = ev_error_set(err, EV_INTERRUPTED, "interrupted by a signal; nothing is claimed");
	if (st == EV_OK) {
		ev_receipt_set_fact(a.receipt, "profile", facts, err);
		facts = NULL;
		ev_receipt_set_fact(a.receipt, "coverage",
				    json_pack("{s:[s], s:[s]}", "recomputed",
					      "each profiled side's perf.data held against run.json's SHA-256, read with perf report, "
					      "every row parsed: samples, lost samples, PIDs, shares by object and symbol, the split",
					      "not_checked",
					      "symbols are resolved by perf from the binaries on this host: a binary changed since the "
					      "run changes names, never counts"),
				    err);
		if ((st = ev_receipt_finish_signed(a.receipt, o->sign_key, err)) == EV_OK)
			st = ev_receipt_write_chosen(a.receipt, o->receipt, EV_RECEIPT_DEFAULT_DIR, "audit-profile", receipt_path,
						     sizeof receipt_path, err);
	}
	if (st == EV_OK) {
		const char *result = ev_receipt_result(a.receipt);
		if (o->json) {
			ev_json_print(a.receipt, stdout, err);
		} else {
			const char *role;
			json_t *f;
			json_object_foreach((json_t *)ev_receipt_fact(a.receipt, "profile"), role, f)
				print_side(role, f);
			printf("%s: %zu profiled side%s, %u finding%s; receipt %s\n", strcmp(result, "pass") == 0 ? "OK" : "FAIL",
			       profiled, profiled == 1 ? "" : "s", a.findings, a.findings == 1 ? "" : "s", receipt_path);
		}
		st = strcmp(result, "pass") == 0 ? EV_OK : EV_MISMATCH;
	}
	json_decref(facts);
	json_decref(a.receipt);
	ev_run_free(&run);
	if (copies[0])
		audit_profile_extract_remove(copies);
	return st;
}

int audit_profile_main(int argc, char **argv)
{
	struct options o = {.perf = "/usr/bin/perf"};
	int opt;
	struct ev_cli_getopt opts;
	ev_cli_getopt_init(&opts, &audit_tool, "profile");
	optind = 1;
	while ((opt = getopt_long(argc, argv, opts.shortopts, opts.longopts, NULL)) != -1) {
		switch (opt) {
		case 'h': return ev_cli_help(&audit_tool, "profile");
		case 'j': o.json = 1; break;
		case 'K':
			if (ev_cli_sign_key(TOOL, optarg, &o.sign_key))
				return 2;
			break;
		case 'o': o.receipt = optarg; break;
		case 'P': o.seal_sha256 = optarg; break;
		case 'r': o.run = optarg; break;
		case 'S': o.seal = optarg; break;
		case 'p':
			if (optarg[0] != '/')
				return ev_cli_usage(&audit_tool, "profile", "option --perf: expected an absolute path, found '%s'", optarg);
			o.perf = optarg;
			break;
		default: return ev_cli_usage(&audit_tool, "profile", "%s", ev_cli_option_problem(argv));
		}
	}
	if (optind + 1 != argc)
		return ev_cli_usage(&audit_tool, "profile", optind == argc ? "no run directory given" : "one run at a time");
	if (!!o.seal != !!o.run)
		return ev_cli_usage(&audit_tool, "profile", "--seal and --run go together (a run of a sealed archive)");
	if (o.seal_sha256 && !o.seal)
		return ev_cli_usage(&audit_tool, "profile", "--seal-sha256 pins a --seal; none given");
	if (o.seal_sha256 && !ev_sha256_hex_valid(o.seal_sha256))
		return ev_cli_usage(&audit_tool, "profile", "option --seal-sha256: expected 64 lower-case hex digits");
	o.run_dir = argv[optind];
	struct ev_error err;
	ev_error_clear(&err);
	ev_cli_catch_signals();
	ev_status st = ev_receipt_refuse_existing(o.receipt, &err);
	if (st == EV_OK)
		st = run_profile(&o, &err);
	if (st >= EV_ERROR)
		ev_cli_error(TOOL, &err);
	ev_signing_key_free(o.sign_key);
	return ev_status_exit_code(st);
}
