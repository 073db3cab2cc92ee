/* SPDX-License-Identifier: Apache-2.0 */
/* replicate status: what is where (lib/usecase/replicate/replicate_status), shown
 * per sealed campaign, or --json the status document itself. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "lib/core/duration.h"
#include "lib/core/sha256.h"

#include "lib/usecase/replicate/replicate_status.h"
#include "replicate/replicate.h"

#define MAX_TRUST 64

static const char *field(const json_t *doc, const char *key)
{
	return json_string_value(json_object_get(doc, key));
}

static void print_text(const json_t *doc)
{
	size_t i, k;
	json_t *row, *e;
	char verified[96] = "a verified copy";
	const json_t *max_age = json_object_get(doc, "max_age_seconds");
	if (max_age) {
		char limit[48];
		ev_duration_format(json_integer_value(max_age), limit, sizeof limit);
		snprintf(verified, sizeof verified, "a copy verified within %s", limit);
	}
	json_array_foreach(json_object_get(doc, "campaigns"), i, row) {
		const json_t *sealed = json_object_get(row, "sealed");
		printf("%scampaign %s  seal %s\n", i ? "\n" : "", *field(row, "campaign") ? field(row, "campaign") : "(unnamed)",
		       field(row, "seal_sha256"));
		json_array_foreach(json_object_get(row, "captured"), k, e)
			printf("  captured: on %s at %s, %s (%s)\n", field(e, "host"), field(e, "finished"), field(e, "result"),
			       field(e, "receipt"));
		if (json_is_null(sealed))
			printf("  sealed:   no seal receipt found\n");
		else
			printf("  sealed:   on %s at %s, %s (%s)\n", field(sealed, "host"), field(sealed, "finished"),
			       field(sealed, "result"), field(sealed, "receipt"));
		json_array_foreach(json_object_get(row, "seal_checks"), k, e)
			printf("  checked:  %s, %s%s at %s (%s)\n", field(e, "command"), field(e, "result"),
			       json_is_true(json_object_get(e, "intact")) ? "" : " (edited)", field(e, "finished"),
			       field(e, "receipt"));
		if (!json_array_size(json_object_get(row, "copies")))
			printf("  copies:   no verified copy\n");
		json_array_foreach(json_object_get(row, "copies"), k, e) {
			const json_t *list = json_object_get(e, "receipts");
			size_t j;
			json_t *p;
			const json_t *fresh = json_object_get(e, "fresh");
			const json_t *failing = json_object_get(e, "failed_since");
			char failed[128] = "";
			if (failing)
				snprintf(failed, sizeof failed, ", FAILED at %s since: not counted", field(failing, "finished"));
			printf("  copy:     %s, last verified %s%s%s%s%s (%zu receipt%s:", field(e, "key"), field(e, "last_verified"),
			       fresh ? ", " : "", fresh ? field(e, "age") : "", fresh && !json_is_true(fresh) ? ", STALE: not counted" : "",
			       failed, json_array_size(list), json_array_size(list) == 1 ? "" : "s");
			json_array_foreach(list, j, p)
				printf("%s %s", j ? "," : "", json_string_value(p));
			printf(")\n");
		}
		json_array_foreach(json_object_get(row, "failed_copies"), k, e)
			printf("  not a verified copy: %s on %s at %s, %s%s (%s)\n", field(e, "command"), field(e, "host"),
			       field(e, "finished"), field(e, "result"),
			       json_is_true(json_object_get(e, "intact")) ? "" : ", edited", field(e, "receipt"));
		const json_t *stamp = json_object_get(row, "seal_timestamp");
		if (json_is_true(json_object_get(stamp, "verified")))
			printf("  timestamp: trusted time %s by %s (%s)\n", field(stamp, "trusted_time"), field(stamp, "tsa"),
			       field(stamp, "file"));
		else if (field(stamp, "problem"))
			printf("  timestamp: NOT VERIFIED: %s (%s)\n", field(stamp, "problem"), field(stamp, "file"));
		else if (stamp && !json_is_null(stamp))
			printf("  timestamp: present, not verified (give --tsa-ca) (%s)\n", field(stamp, "file"));
		if (!json_array_size(json_object_get(row, "audits")))
			printf("  audits:   none found\n");
		json_array_foreach(json_object_get(row, "audits"), k, e) {
			const json_t *fresh = json_object_get(e, "fresh");
			printf("  audit:    %s on %s, from the %s, %s%s at %s%s%s%s, comparable %.16s (%s)\n", field(e, "command"),
			       field(e, "host"), field(e, "from"), field(e, "result"),
			       json_is_true(json_object_get(e, "intact")) ? "" : " (edited)", field(e, "finished"),
			       fresh ? ", " : "", fresh ? field(e, "age") : "",
			       fresh && !json_is_true(fresh) ? ", STALE" : "",
			       field(e, "comparable") ? field(e, "comparable") : "none", field(e, "receipt"));
			if (field(e, "registration"))
				printf("            %s\n", field(e, "registration"));
		}
		json_array_foreach(json_object_get(row, "cleanups"), k, e)
			printf("  pruned:   on %s at %s, %s (%s)\n", field(e, "host"), field(e, "finished"), field(e, "result"),
			       field(e, "receipt"));
		const json_t *prune = json_object_get(row, "prune");
		long long hosts = json_integer_value(json_object_get(prune, "hosts"));
		printf("  %s (%lld host%s %s; prune needs %lld; from the receipts alone: prune also checks "
		       "the tree against the seal and that no recorded process runs)\n", field(prune, "verdict"), hosts,
		       hosts == 1 ? " holds" : "s hold", verified, (long long)json_integer_value(json_object_get(prune, "min_hosts")));
		json_array_foreach(json_object_get(row, "missing"), k, e)
			printf("  missing:  %s\n", json_string_value(e));
	}
	if (!json_array_size(json_object_get(doc, "campaigns")))
		printf("no sealed campaign found\n");
	json_array_foreach(json_object_get(doc, "unmatched"), k, e)
		printf("receipt of no campaign found here: %s\n", json_string_value(e));
	json_array_foreach(json_object_get(doc, "unreadable"), k, e)
		printf("unreadable: %s: %s\n", field(e, "path"), field(e, "why"));
	json_array_foreach(json_object_get(doc, "skipped"), k, e)
		printf("not read: %s: %s, not a regular file\n", field(e, "path"), field(e, "why"));
	const json_t *untrusted = json_object_get(doc, "untrusted_left_out");
	if (untrusted)
		printf("with --trust: %lld passing replica receipt%s left out of the copies: no trusted key signs %s\n",
		       (long long)json_integer_value(untrusted), json_integer_value(untrusted) == 1 ? "" : "s",
		       json_integer_value(untrusted) == 1 ? "it" : "them");
	json_array_foreach(json_object_get(doc, "not_believed"), k, e)
		printf("row not believed: %s: %s\n", field(e, "path"), field(e, "why"));
	if (json_array_size(json_object_get(doc, "not_believed")))
		printf("FAIL: %zu catalog row%s not believed: what is shown above is each document's word, and a file "
		       "without a whole document is left out (replicate index it again; replicate index --check names "
		       "every fault)\n",
		       json_array_size(json_object_get(doc, "not_believed")),
		       json_array_size(json_object_get(doc, "not_believed")) == 1 ? "" : "s");
}

/* What --recheck found: every changed row named, and what it could not see. */
static void print_recheck(const json_t *r)
{
	size_t k;
	json_t *e;
	const json_t *changed = json_object_get(r, "changed");
	json_array_foreach(changed, k, e) {
		const char *now = field(e, "now");
		if (strlen(now) == 64)
			printf("recheck: %s: changed since it was indexed (SHA-256 %.16s... then, %.16s... now); index it "
			       "again, or find out who changed it\n", field(e, "path"), field(e, "indexed"), now);
		else
			printf("recheck: %s: indexed (SHA-256 %.16s...), now %s\n", field(e, "path"), field(e, "indexed"),
			       strcmp(now, "gone") == 0 ? "gone" : now);
	}
	json_array_foreach(json_object_get(r, "elsewhere"), k, e)
		printf("recheck: %s: on another host, not rechecked here (run --recheck there)\n", json_string_value(e));
	long long files = json_integer_value(json_object_get(r, "files"));
	if (json_array_size(changed))
		printf("FAIL: recheck: %zu of %lld file%s changed since the catalog indexed them\n", json_array_size(changed),
		       files, files == 1 ? "" : "s");
	else
		printf("recheck: %lld file%s on this host, each the bytes the catalog indexed\n", files, files == 1 ? "" : "s");
}

int replicate_status_main(int argc, char **argv)
{
	struct ev_replicate_status s = {.min_hosts = 2};
	const char *trust[MAX_TRUST];
	size_t ntrust = 0;
	int json = 0, c;
	struct ev_cli_getopt opts;
	ev_cli_getopt_init(&opts, &replicate_tool, "status");
	optind = 1;
	while ((c = ev_cli_getopt_next(&opts, argc, argv)) != -1) {
		switch (c) {
		case EV_CLI_HELP: return ev_cli_help(&replicate_tool, "status");
		case REPLICATE_STATUS_OPT_JSON: json = 1; break;
		case REPLICATE_STATUS_OPT_TSA_CA: s.tsa_ca = optarg; break;
		case REPLICATE_STATUS_OPT_CATALOG: s.catalog = optarg; break;
		case REPLICATE_STATUS_OPT_RECHECK: s.recheck = 1; break;
		case REPLICATE_STATUS_OPT_SEAL:
			if (!ev_sha256_hex_valid(optarg))
				return ev_cli_usage(&replicate_tool, "status", "option --seal: expected a SHA-256 in hex, found '%s'",
						    optarg);
			s.seal_hex = optarg;
			break;
		case REPLICATE_STATUS_OPT_MIN_HOSTS: s.min_hosts = opts.count; break;
		case REPLICATE_STATUS_OPT_MAX_AGE: s.max_age = opts.count; break;
		case REPLICATE_STATUS_OPT_TRUST:
			if (ntrust == MAX_TRUST)
				return ev_cli_usage(&replicate_tool, "status", "at most %d --trust", MAX_TRUST);
			trust[ntrust++] = optarg;
			break;
		default: return ev_cli_usage(&replicate_tool, "status", "%s", ev_cli_option_problem(argv));
		}
	}
	if (optind == argc && !s.catalog)
		return ev_cli_usage(&replicate_tool, "status", "no directory given (or --catalog)");
	if (s.recheck && !s.catalog)
		return ev_cli_usage(&replicate_tool, "status", "--recheck holds a catalog against the files: give --catalog");
	struct ev_error err;
	ev_error_clear(&err);
	s.dirs = (const char *const *)argv + optind;
	s.ndirs = (size_t)(argc - optind);
	s.trust_files = trust;
	s.ntrust = ntrust;
	ev_status st = ev_replicate_status(&s, &err);
	if (st == EV_OK) {
		if (json) {
			if (s.recheck_doc)
				json_object_set(s.doc, "recheck", s.recheck_doc);
			st = ev_json_print(s.doc, stdout, &err);
		} else {
			print_text(s.doc);
			if (s.recheck_doc)
				print_recheck(s.recheck_doc);
		}
		if (st == EV_OK && (json_array_size(json_object_get(s.recheck_doc, "changed")) || s.not_believed))
			st = EV_MISMATCH;
	}
	ev_replicate_status_free(&s);
	return ev_cli_exit("replicate", st, &err);
}
