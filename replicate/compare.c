/* SPDX-License-Identifier: Apache-2.0 */
/* replicate compare: do receipts agree on what they saw, and where not. */
#include "config.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/json.h"
#include "lib/receipt/signature.h"
#include "lib/receipt/receipt_set.h"
#include "replicate/replicate.h"

struct compare_run {
	int json;
	json_t *problems; /* with --json */
	unsigned count;
};

static void on_finding(void *ctx, const char *receipt_path, const struct ev_finding *f)
{
	struct compare_run *c = ctx;
	c->count++;
	if (c->json) {
		json_t *o = ev_finding_to_json(f);
		json_object_set_new(o, "receipt", json_string(receipt_path));
		json_array_append_new(c->problems, o);
		return;
	}
	/* A problem with the receipt itself names it once; a difference names
	 * the receipt, then the item. */
	char prefix[1100];
	if (strcmp(f->subject, receipt_path) == 0)
		snprintf(prefix, sizeof prefix, TOOL ": ");
	else
		snprintf(prefix, sizeof prefix, TOOL ": %s: ", receipt_path);
	ev_cli_finding(stderr, prefix, f);
}

int replicate_compare_main(int argc, char **argv)
{
	struct compare_run run = {0};
	struct ev_trust *trust = NULL;
	struct ev_error err;
	ev_error_clear(&err);
	int c, code = 2;
	struct ev_cli_getopt opts;
	ev_cli_getopt_init(&opts, &replicate_tool, "compare");
	optind = 1;
	while ((c = ev_cli_getopt_next(&opts, argc, argv)) != -1) {
		switch (c) {
		case EV_CLI_HELP:
			ev_trust_free(trust);
			return ev_cli_help(&replicate_tool, "compare");
		case REPLICATE_COMPARE_OPT_JSON: run.json = 1; break;
		case REPLICATE_COMPARE_OPT_TRUST:
			if (ev_cli_trust_add(TOOL, &trust, optarg))
				return 2;
			break;
		default:
			ev_trust_free(trust);
			return ev_cli_usage(&replicate_tool, "compare", "%s", ev_cli_option_problem(argv));
		}
	}
	if (optind == argc) {
		ev_trust_free(trust);
		return ev_cli_usage(&replicate_tool, "compare", "no RECEIPT given");
	}
	run.problems = json_array();
	struct ev_receipt_set set = {0};
	ev_status st;
	size_t n = (size_t)(argc - optind);
	unsigned problems = ev_receipt_set_load(&set, argv + optind, n, trust, on_finding, &run, &st, &err);
	if (st != EV_OK) {
		ev_cli_error(TOOL, &err);
		goto out;
	}
	size_t differing = ev_receipt_set_disagreements(&set, on_finding, &run);
	int agree = differing == 0 && problems == 0;
	code = agree ? 0 : 1;
	if (run.json) {
		json_t *doc = ev_receipt_set_comparison(&set, agree, run.problems, trust != NULL);
		ev_json_print(doc, stdout, &err);
		json_decref(doc);
		goto out;
	}
	for (size_t i = 0; i < set.count; i++) {
		const struct ev_judged_receipt *j = &set.items[i];
		printf("%s: %s on %s, result %s, comparable %.16s%s%s%s\n", j->path,
		       j->kind, j->host, j->result, j->comparable ? j->comparable : "?",
		       j->intact ? "" : " (edited)", trust ? (j->signed_ok ? ", signed by " : ", NOT signed by a trusted key") : "",
		       trust && j->signed_ok ? j->signer : "");
	}
	if (agree)
		printf("AGREE: %zu receipt%s, comparable %s\n", set.count, set.count == 1 ? "" : "s",
		       set.items[0].comparable);
	else
		printf("DIFFER: %zu of %zu receipts differ from %s; %u problem%s named above\n",
		       differing, set.count - 1, set.items[0].path, run.count, run.count == 1 ? "" : "s");
out:
	json_decref(run.problems);
	ev_receipt_set_free(&set);
	ev_trust_free(trust);
	return code;
}
