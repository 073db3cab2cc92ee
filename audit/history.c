/* SPDX-License-Identifier: Apache-2.0 */
/* audit history: one plan's campaigns over time from the catalog, their
 * change points (lib/usecase/audit/audit_history), shown as text, JSON or an
 * HTML page (audit/history_report.c). */
#include "config.h"

#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit.h"
#include "audit/history_report.h"
#include "lib/catalog/catalog.h"
#include "lib/core/publish.h"
#include "lib/core/sha256.h"
#include "lib/core/textbuf.h"
#include "lib/usecase/audit/audit_history.h"

#define MAX_LIST 32

/* A number of the history document: its fractions are decimal strings. */
static double decimal_value(const json_t *v)
{
	return json_is_string(v) ? strtod(json_string_value(v), NULL) : json_number_value(v);
}

static const char *field(const json_t *doc, const char *key)
{
	return json_string_value(json_object_get(doc, key));
}

static double number(const json_t *doc, const char *key)
{
	return decimal_value(json_object_get(doc, key));
}

static void print_text(const json_t *doc)
{
	const json_t *method = json_object_get(doc, "method"), *campaigns = json_object_get(doc, "campaigns");
	printf("history of plan %s (plan %.16s), %zu campaign%s compared, %zu listed apart; %s, alpha %g, %lld "
	       "permutations, minimum segment %lld, seed %lld\n",
	       field(doc, "plan"), field(doc, "plan_sha256"), json_array_size(campaigns),
	       json_array_size(campaigns) == 1 ? "" : "s", json_array_size(json_object_get(doc, "apart")),
	       field(method, "name"), number(method, "alpha"),
	       (long long)json_integer_value(json_object_get(method, "permutations")),
	       (long long)json_integer_value(json_object_get(method, "min_segment")),
	       (long long)json_integer_value(json_object_get(method, "seed")));
	size_t i, k;
	json_t *e, *s;
	json_array_foreach(campaigns, i, e)
		printf("  #%lld %s  %lld runs (%s .. %s)  %s\n", (long long)json_integer_value(json_object_get(e, "index")),
		       field(e, "captured"), (long long)json_integer_value(json_object_get(e, "runs")), field(e, "first_run"),
		       field(e, "last_run"), field(e, "where"));
	json_array_foreach(json_object_get(doc, "apart"), i, e)
		printf("  apart: %s %s: %s differs (%s here, %s in the campaigns compared)\n", field(e, "captured"),
		       field(e, "where"), field(e, "field"), field(e, "value"), field(e, "compared_with"));
	const json_t *sessions = json_object_get(doc, "sessions");
	size_t published = 0;
	json_array_foreach(sessions, i, e)
		published += json_is_true(json_object_get(e, "published"));
	if (json_array_size(sessions))
		printf("  sessions of this plan on the record: %zu, %zu published (an audit names it), %zu never\n",
		       json_array_size(sessions), published, json_array_size(sessions) - published);
	json_array_foreach(sessions, i, e)
		if (!json_is_true(json_object_get(e, "published")))
			printf("  never published: %s (started %s): %s, %lld run%s made (%s)\n", field(e, "campaign"),
			       field(e, "started"), field(e, "result"), (long long)json_integer_value(json_object_get(e, "runs_made")),
			       json_integer_value(json_object_get(e, "runs_made")) == 1 ? "" : "s", field(e, "where"));
	json_array_foreach(json_object_get(doc, "untrusted"), i, e)
		printf("  left out: %s: %s\n", field(e, "where"), field(e, "why"));
	if (json_object_get(doc, "untrusted"))
		printf("  %zu summar%s left out: not named by an audit receipt signed by a trusted key\n",
		       json_array_size(json_object_get(doc, "untrusted")),
		       json_array_size(json_object_get(doc, "untrusted")) == 1 ? "y" : "ies");
	json_array_foreach(json_object_get(doc, "not_believed"), i, e)
		printf("  row not believed: %s: %s\n", field(e, "where"), field(e, "why"));
	json_array_foreach(json_object_get(doc, "series"), i, s) {
		const json_t *changes = json_object_get(s, "changes");
		printf("%s/%s %s: %zu campaign%s, ", field(s, "arm"), field(s, "cell"), field(s, "statistic"),
		       json_array_size(json_object_get(s, "points")), json_array_size(json_object_get(s, "points")) == 1 ? "" : "s");
		if (!json_array_size(changes))
			printf("no change\n");
		else
			printf("%zu change%s\n", json_array_size(changes), json_array_size(changes) == 1 ? "" : "s");
		json_array_foreach(changes, k, e) {
			const json_t *iv = json_object_get(e, "interval");
			printf("  change at #%lld (%s): ratio ", (long long)json_integer_value(json_object_get(e, "campaign")),
			       field(e, "captured"));
			if (!json_is_null(json_object_get(e, "ratio")))
				printf("%.3f", number(e, "ratio"));
			else
				printf("undefined");
			if (json_is_array(iv))
				printf(" [%.3f, %.3f]", decimal_value(json_array_get(iv, 0)), decimal_value(json_array_get(iv, 1)));
			printf(" over %lld and %lld %s, p %.4f (median %.1f %s before, %.1f after)\n",
			       (long long)json_integer_value(json_object_get(e, "before")),
			       (long long)json_integer_value(json_object_get(e, "after")), field(e, "over"), number(e, "p_value"),
			       number(e, "median_before"), field(s, "unit"), number(e, "median_after"));
		}
	}
	const json_t *gate = json_object_get(doc, "gate");
	if (json_is_object(gate)) {
		json_array_foreach(json_object_get(gate, "by"), i, e)
			printf("GATE: %s/%s %s: the newest campaigns start a change of ratio %.3f (the gate is %g)\n",
			       field(e, "arm"), field(e, "cell"), field(e, "statistic"), number(e, "ratio"), number(gate, "ratio"));
		if (!json_is_true(json_object_get(gate, "tripped")))
			printf("gate %g: no change the newest campaigns start passes it\n", number(gate, "ratio"));
	}
}

static int parse_double(const char *text, double lo, double hi, double *out)
{
	char *end;
	double v = strtod(text, &end);
	if (end == text || *end || !isfinite(v) || v <= lo || v >= hi)
		return -1;
	*out = v;
	return 0;
}

int audit_history_main(int argc, char **argv)
{
	struct ev_audit_history h = {.seed = 1}; /* no --catalog: the configured one, else the default */
	const char *stats[MAX_LIST], *match[MAX_LIST], *trust[MAX_LIST], *html = NULL;
	int json = 0, c;
	struct ev_cli_getopt opts;
	ev_cli_getopt_init(&opts, &audit_tool, "history");
	optind = 1;
	while ((c = ev_cli_getopt_next(&opts, argc, argv)) != -1) {
		switch (c) {
		case EV_CLI_HELP: return ev_cli_help(&audit_tool, "history");
		case AUDIT_HISTORY_OPT_CATALOG: h.catalog = optarg; break;
		case AUDIT_HISTORY_OPT_JSON: json = 1; break;
		case AUDIT_HISTORY_OPT_HTML: html = optarg; break;
		case AUDIT_HISTORY_OPT_PLAN: h.plan = optarg; break;
		case AUDIT_HISTORY_OPT_PLAN_SHA256:
			h.plan_sha256 = optarg;
			break;
		case AUDIT_HISTORY_OPT_STATISTIC:
			if (h.nstatistics == MAX_LIST)
				return ev_cli_usage(&audit_tool, "history", "at most %d --statistic", MAX_LIST);
			stats[h.nstatistics++] = optarg;
			break;
		case AUDIT_HISTORY_OPT_MATCH:
			if (h.nmatch == MAX_LIST)
				return ev_cli_usage(&audit_tool, "history", "at most %d --match", MAX_LIST);
			match[h.nmatch++] = optarg;
			break;
		case AUDIT_HISTORY_OPT_TRUST:
			if (h.ntrust == MAX_LIST)
				return ev_cli_usage(&audit_tool, "history", "at most %d --trust", MAX_LIST);
			trust[h.ntrust++] = optarg;
			break;
		case AUDIT_HISTORY_OPT_SEED: h.seed = (uint64_t)opts.count; break;
		case AUDIT_HISTORY_OPT_PERMUTATIONS: h.permutations = (uint64_t)opts.count; break;
		case AUDIT_HISTORY_OPT_ALPHA:
			if (parse_double(optarg, 0, 1, &h.alpha))
				return ev_cli_usage(&audit_tool, "history", "option --alpha: expected a number between 0 and 1, found '%s'",
						    optarg);
			break;
		case AUDIT_HISTORY_OPT_MIN_SEGMENT: h.min_segment = (size_t)opts.count; break;
		case AUDIT_HISTORY_OPT_GATE:
			if (parse_double(optarg, 1, 1e9, &h.gate))
				return ev_cli_usage(&audit_tool, "history", "option --gate: expected a ratio above 1 (1.1: 10%%), found '%s'",
						    optarg);
			break;
		default: return ev_cli_usage(&audit_tool, "history", "%s", ev_cli_option_problem(argv));
		}
	}
	if (optind != argc)
		return ev_cli_usage(&audit_tool, "history", "unexpected argument '%s'", argv[optind]);
	if (!h.plan)
		return ev_cli_usage(&audit_tool, "history", "--plan NAME is required");
	ev_cli_catch_signals();
	struct ev_error err;
	ev_error_clear(&err);
	ev_status st = EV_OK;
	h.statistics = stats;
	h.match = match;
	h.trust_files = trust;
	h.stop = &ev_cli_interrupted;
	if (st == EV_OK)
		st = ev_audit_history(&h, &err);
	if (st == EV_OK && html) {
		struct ev_textbuf page = {0};
		audit_history_write_html(h.doc, &page);
		st = page.oom ? ev_error_set(&err, EV_ERROR, "out of memory")
			      : ev_publish_bytes(html, page.s, page.n, 0644, &err);
		ev_textbuf_free(&page);
	}
	if (st == EV_OK) {
		if (json)
			st = ev_json_print(h.doc, stdout, &err);
		else
			print_text(h.doc);
	}
	if (st == EV_OK && h.not_believed && !json)
		printf("FAIL: the catalog's rows of %zu summar%s not believed: the history above is the documents' word, "
		       "a summary without a whole document of this plan left out (replicate index --check names every "
		       "fault)\n", h.not_believed, h.not_believed == 1 ? "y" : "ies");
	if (st == EV_OK && (h.gate_tripped || h.not_believed))
		st = EV_MISMATCH;
	ev_audit_history_free(&h);
	return ev_cli_exit("audit", st, &err);
}
