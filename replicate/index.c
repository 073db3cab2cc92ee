/* SPDX-License-Identifier: Apache-2.0 */
/* replicate index: every seal, receipt and summary under some paths, kept
 * in the catalog (lib/catalog). */
#include "config.h"

#include <getopt.h>
#include <stdio.h>

#include "lib/catalog/catalog.h"
#include "lib/cli/progress.h"
#include "replicate/replicate.h"

struct findings {
	json_t *list;
	int json;
};

static void say_finding(void *ctx, const char *table, const char *key, const char *why)
{
	struct findings *f = ctx;
	if (f->json)
		json_array_append_new(f->list, json_pack("{s:s, s:s, s:s}", "table", table, "key", key, "why", why));
	else
		printf("%s: %s: %s\n", table, key, why);
}

/* --check: the whole catalog held to itself; nothing written. */
static int check_catalog(const char *where, int json)
{
	struct ev_error err;
	ev_error_clear(&err);
	struct ev_catalog *cat = NULL;
	struct ev_catalog_check n = {0};
	struct findings f = {json_array(), json};
	ev_status st = ev_catalog_open(where, &cat, &err);
	if (st == EV_OK)
		st = ev_catalog_check(cat, say_finding, &f, &n, &err);
	if (st == EV_OK && json) {
		json_t *doc = json_pack("{s:s, s:I, s:O}", "catalog", ev_catalog_where(cat), "rows", (json_int_t)n.rows,
					"findings", f.list);
		st = ev_json_print(doc, stdout, &err);
		json_decref(doc);
	} else if (st == EV_OK) {
		printf("%s: catalog %s: %zu file row%s held to %s documents, %zu fault%s\n",
		       n.findings ? "FAIL" : "ok", ev_catalog_where(cat), n.rows, n.rows == 1 ? "" : "s",
		       n.rows == 1 ? "its" : "their", n.findings, n.findings == 1 ? "" : "s");
	}
	if (st == EV_OK && n.findings)
		st = EV_MISMATCH;
	json_decref(f.list);
	ev_catalog_close(cat);
	return ev_cli_exit("replicate", st, &err);
}

int replicate_index_main(int argc, char **argv)
{
	const char *where = NULL; /* the configured catalog, else the default */
	int json = 0, check = 0, c;
	struct ev_cli_getopt opts;
	ev_cli_getopt_init(&opts, &replicate_tool, "index");
	optind = 1;
	while ((c = ev_cli_getopt_next(&opts, argc, argv)) != -1) {
		switch (c) {
		case EV_CLI_HELP: return ev_cli_help(&replicate_tool, "index");
		case REPLICATE_INDEX_OPT_CATALOG: where = optarg; break;
		case REPLICATE_INDEX_OPT_JSON: json = 1; break;
		case REPLICATE_INDEX_OPT_CHECK: check = 1; break;
		default: return ev_cli_usage(&replicate_tool, "index", "%s", ev_cli_option_problem(argv));
		}
	}
	if (check && optind < argc)
		return ev_cli_usage(&replicate_tool, "index", "--check indexes nothing: give no PATH with it");
	if (check) {
		ev_cli_catch_signals();
		return check_catalog(where, json);
	}
	if (optind == argc)
		return ev_cli_usage(&replicate_tool, "index", "no PATH given");
	ev_cli_catch_signals(); /* a signal rolls the index back, as a crash does */
	struct ev_error err;
	ev_error_clear(&err);
	struct ev_catalog *cat = NULL;
	struct ev_catalog_counts n = {0};
	ev_status st = ev_catalog_open(where, &cat, &err);
	if (st == EV_OK) {
		struct ev_progress progress;
		ev_progress_init(&progress, stderr, TOOL ": indexing", 0, 0);
		progress.noun = "files";
		struct ev_meter meter = ev_progress_meter(&progress);
		st = ev_catalog_index(cat, (const char *const *)argv + optind, (size_t)(argc - optind),
				      EV_CATALOG_FORGET_MISSING, &meter, &n, &err);
		ev_progress_done(&progress);
	}
	if (st == EV_OK && json) {
		json_t *doc = json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "catalog", ev_catalog_where(cat),
					"host", ev_catalog_host(cat), "receipts", (json_int_t)n.receipts, "seals",
					(json_int_t)n.seals, "summaries", (json_int_t)n.summaries, "sessions",
					(json_int_t)n.sessions, "unchanged",
					(json_int_t)n.unchanged, "unreadable", (json_int_t)n.unreadable, "skipped",
					(json_int_t)n.skipped, "removed", (json_int_t)n.removed);
		st = ev_json_print(doc, stdout, &err);
		json_decref(doc);
	} else if (st == EV_OK) {
		printf("indexed into %s on %s: %zu receipt%s, %zu seal%s, %zu summar%s, %zu registration or session record%s; "
		       "%zu unchanged, %zu unreadable, %zu not regular files, %zu gone and forgotten\n",
		       ev_catalog_where(cat), ev_catalog_host(cat), n.receipts, n.receipts == 1 ? "" : "s", n.seals,
		       n.seals == 1 ? "" : "s", n.summaries, n.summaries == 1 ? "y" : "ies", n.sessions,
		       n.sessions == 1 ? "" : "s", n.unchanged, n.unreadable, n.skipped, n.removed);
	}
	if (st == EV_ERROR && cat && ev_catalog_damaged(cat)) /* a finding about the file: nothing was kept */
		st = EV_MISMATCH;
	ev_catalog_close(cat);
	return ev_cli_exit("replicate", st, &err);
}
