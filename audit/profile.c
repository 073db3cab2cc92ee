/* SPDX-License-Identifier: Apache-2.0 */
/* audit profile: what capture's perf recorded of a run, read cold
 * (lib/usecase/audit/audit_profile), shown as a table or --json. */
#include "config.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit/audit.h"
#include "lib/core/sha256.h"
#include "lib/receipt/receipt_read.h"
#include "lib/usecase/audit/audit_profile.h"


/* A finding about the run, named by it (RUN_DIR, or ARCHIVE:RUN). */
static void show_run_finding(void *ctx, const struct ev_finding *f)
{
	const struct ev_audit_profile *o = ctx;
	char prefix[sizeof o->shown + 16];
	snprintf(prefix, sizeof prefix, TOOL ": %s: ", o->shown);
	ev_cli_finding(stderr, prefix, f);
}

static void show_archive_finding(void *ctx, const struct ev_finding *f)
{
	(void)ctx;
	ev_cli_finding(stderr, TOOL ": ", f);
}

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

static void print_result(const struct ev_audit_profile *o, ev_status st)
{
	const char *role;
	json_t *f;
	json_object_foreach((json_t *)ev_receipt_fact(o->receipt_doc, "profile"), role, f)
		print_side(role, f);
	printf("%s: %zu profiled side%s, %u finding%s; receipt %s\n", st == EV_OK ? "OK" : "FAIL", o->profiled,
	       o->profiled == 1 ? "" : "s", o->findings, o->findings == 1 ? "" : "s", o->receipt_path);
}

int audit_profile_main(int argc, char **argv)
{
	struct ev_audit_profile o = {.perf = "/usr/bin/perf"};
	int json = 0;
	int opt;
	struct ev_cli_getopt opts;
	ev_cli_getopt_init(&opts, &audit_tool, "profile");
	optind = 1;
	while ((opt = ev_cli_getopt_next(&opts, argc, argv)) != -1) {
		switch (opt) {
		case EV_CLI_HELP: return ev_cli_help(&audit_tool, "profile");
		case AUDIT_PROFILE_OPT_JSON: json = 1; break;
		case AUDIT_PROFILE_OPT_SIGN_KEY:
			if (ev_cli_sign_key(TOOL, optarg, &o.sign_key))
				return 2;
			break;
		case AUDIT_PROFILE_OPT_RECEIPT: o.receipt = optarg; break;
		case AUDIT_PROFILE_OPT_SEAL_SHA256: o.seal_sha256 = optarg; break;
		case AUDIT_PROFILE_OPT_RUN: o.run = optarg; break;
		case AUDIT_PROFILE_OPT_SEAL: o.seal = optarg; break;
		case AUDIT_PROFILE_OPT_PERF:
			if (optarg[0] != '/')
				return ev_cli_usage(&audit_tool, "profile", "option --perf: expected an absolute path, found '%s'", optarg);
			o.perf = optarg;
			break;
		default: return ev_cli_usage(&audit_tool, "profile", "%s", ev_cli_option_problem(argv));
		}
	}
	if (ev_cli_getopt_relations(&opts))
		return 2;
	if (optind + 1 != argc)
		return ev_cli_usage(&audit_tool, "profile", optind == argc ? "no run directory given" : "one run at a time");
	o.run_dir = argv[optind];
	struct ev_error err;
	ev_error_clear(&err);
	ev_cli_catch_signals();
	o.on_finding = show_run_finding;
	o.on_archive_finding = show_archive_finding;
	o.ctx = &o;
	o.interrupted = &ev_cli_interrupted;
	o.invocation = ev_cli_invocation();
	ev_status st = ev_audit_profile(&o, &err);
	if (st == EV_MISMATCH && o.archive_failed)
		fprintf(stderr, TOOL ": %s; receipt %s\n", err.text, o.receipt_path);
	else if (st == EV_OK || st == EV_MISMATCH) {
		ev_status pst = json ? ev_json_print(o.receipt_doc, stdout, &err) : EV_OK;
		if (!json)
			print_result(&o, st);
		if (pst != EV_OK)
			st = pst;
	}
	if (st >= EV_ERROR)
		ev_cli_error(TOOL, &err);
	ev_audit_profile_free(&o);
	ev_signing_key_free(o.sign_key);
	return ev_status_exit_code(st);
}
