/* SPDX-License-Identifier: Apache-2.0 */
/* audit series: the statistics of a latency series recomputed from its
 * raw samples (lib/usecase/audit/audit_series), shown beside what the benchmark
 * printed. */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit.h"
#include "lib/core/sha256.h"
#include "lib/cli/cli.h"
#include "lib/usecase/audit/audit_series.h"

#define DEFAULT_PAGE 4096

static void show_finding(void *ctx, const struct ev_finding *f)
{
	(void)ctx;
	ev_cli_finding(stderr, TOOL ": ", f);
}

/* A printed statistic that differs or is missing, named by the report; or
 * one equal only by a documented cause of its tool's, named by the series. */
static void show_statistic(void *ctx, const json_t *row)
{
	const struct ev_audit_series *o = ctx;
	const char *verdict = json_string_value(json_object_get(row, "verdict"));
	const char *name = json_string_value(json_object_get(row, "name"));
	const char *native = json_string_value(json_object_get(row, "native"));
	const char *recomputed = json_string_value(json_object_get(row, "recomputed"));
	const char *why = json_string_value(json_object_get(row, "why"));
	if (strcmp(verdict, "differs") == 0 || strcmp(verdict, "missing") == 0)
		fprintf(stderr, TOOL ": %s: %s: %s (native %s, recomputed %s)%s%s\n", o->native, name, verdict,
			*native ? native : "absent", *recomputed ? recomputed : "nothing", why ? ": " : "", why ? why : "");
	else
		fprintf(stderr, TOOL ": %s: %s: %s\n", o->series, name, why);
}

static void print_table(const json_t *rows)
{
	size_t i;
	json_t *r;
	printf("%-28s %-14s %18s %18s  %s\n", "statistic", "rule", "native", "recomputed", "verdict");
	json_array_foreach(rows, i, r) {
		printf("%-28s %-14s %18s %18s  %s\n", json_string_value(json_object_get(r, "name")),
		       json_string_value(json_object_get(r, "rule")), json_string_value(json_object_get(r, "native")),
		       json_string_value(json_object_get(r, "recomputed")),
		       json_string_value(json_object_get(r, "verdict")));
	}
}

static void print_result(const struct ev_audit_series *o)
{
	const struct ev_series *s = &o->s;
	printf("series %s: %s, %zu samples, clock %s, %" PRIu64 " ticks a second%s\n", o->series,
	       ev_series_kind_name(s->kind), s->n, s->clock, s->ticks_per_second,
	       s->kind == EV_SERIES_SOCKPERF && s->half_rtt ? " (half round trips, as sockperf reports)" : "");
	if (o->compared)
		print_table(o->compared);
	if (o->delay)
		printf("paced at %" PRIu64 "/s: %" PRIu64 " deadlines missed and re-anchored\n", o->rate, o->missed);
	if (o->coverage_text[0])
		printf("%s\n", o->coverage_text);
	char archive[64] = "";
	if (o->archive)
		snprintf(archive, sizeof archive, ", %u archive finding%s", o->archive_findings,
			 o->archive_findings == 1 ? "" : "s");
	printf("%s: %u statistic%s differ, %u series finding%s%s; receipt %s\n",
	       o->differ || o->findings || o->archive_findings ? "FAIL" : "OK", o->differ, o->differ == 1 ? "" : "s",
	       o->findings, o->findings == 1 ? "" : "s", archive, o->receipt_path);
}

int audit_series_main(int argc, char **argv)
{
	struct ev_audit_series o = {.rule = -1, .page_size = DEFAULT_PAGE};
	int json = 0;
	int c;
	struct ev_prob p;
	struct ev_cli_getopt opts;
	ev_cli_getopt_init(&opts, &audit_tool, "series");
	optind = 1;
	while ((c = ev_cli_getopt_next(&opts, argc, argv)) != -1) {
		switch (c) {
		case AUDIT_SERIES_OPT_ARCHIVE: o.archive = optarg; break;
		case AUDIT_SERIES_OPT_SEAL: o.seal = optarg; break;
		case AUDIT_SERIES_OPT_SEAL_SHA256:
			o.seal_sha256 = optarg;
			break;
		case AUDIT_SERIES_OPT_SOCKPERF_CLOCK:
			o.sockperf_clock = strcmp(optarg, "tsc") == 0 ? EV_SOCKPERF_CLOCK_TSC : EV_SOCKPERF_CLOCK_MONOTONIC;
			break;
		case AUDIT_SERIES_OPT_DELAY: o.delay = optarg; break;
		case EV_CLI_HELP: return ev_cli_help(&audit_tool, "series");
		case AUDIT_SERIES_OPT_JOURNAL: o.journal = optarg; break;
		case AUDIT_SERIES_OPT_JSON: json = 1; break;
		case AUDIT_SERIES_OPT_NATIVE: o.native = optarg; break;
		case AUDIT_SERIES_OPT_PAGE_SIZE: o.page_size = (uint64_t)opts.count; break;
		case AUDIT_SERIES_OPT_QUANTILE:
			if (ev_prob_parse_percent(optarg, &p) != 0)
				return ev_cli_usage(&audit_tool, "series", "option --quantile: expected a percentile from 0 to 100, found '%s'", optarg);
			if (o.nquantiles == EV_ANALYSIS_MAX_QUANTILES)
				return ev_cli_usage(&audit_tool, "series", "at most %d --quantile", EV_ANALYSIS_MAX_QUANTILES);
			o.quantiles[o.nquantiles++] = optarg;
			break;
		case AUDIT_SERIES_OPT_RATE: o.rate = (uint64_t)opts.count; break;
		case AUDIT_SERIES_OPT_SIGN_KEY:
			if (ev_cli_sign_key(TOOL, optarg, &o.sign_key))
				return 2;
			break;
		case AUDIT_SERIES_OPT_RECEIPT: o.receipt = optarg; break;
		case AUDIT_SERIES_OPT_RULE:
			if ((o.rule = ev_qrule_parse(optarg)) < 0)
				return ev_cli_usage(&audit_tool, "series", "option --rule: expected nearest-rank, floor-index, round-half-up or linear, found '%s'",
						 optarg);
			break;
		case AUDIT_SERIES_OPT_THRESHOLD:
			o.threshold = (uint64_t)opts.count;
			o.have_threshold = 1;
			break;
		case AUDIT_SERIES_OPT_WARMUPS: o.warmups = (uint64_t)opts.count; break;
		default: return ev_cli_usage(&audit_tool, "series", "%s", ev_cli_option_problem(argv));
		}
	}
	if (ev_cli_getopt_relations(&opts))
		return 2;
	if (optind + 1 != argc)
		return ev_cli_usage(&audit_tool, "series", optind == argc ? "no series given" : "one series at a time");
	o.series = argv[optind];
	struct ev_error err;
	ev_error_clear(&err);
	ev_cli_catch_signals();
	o.on_finding = show_finding;
	o.on_statistic = show_statistic;
	o.ctx = &o;
	o.interrupted = &ev_cli_interrupted;
	o.invocation = ev_cli_invocation();
	ev_status st = ev_audit_series(&o, &err);
	if (o.archive_failed) { /* nothing computed: the reason, and the receipt that says so */
		ev_cli_error(TOOL, &err);
		printf("FAIL: %u archive finding%s, nothing computed; receipt %s\n", o.archive_findings,
		       o.archive_findings == 1 ? "" : "s", o.receipt_path);
	} else if (st == EV_OK || st == EV_MISMATCH) {
		ev_status pst = json ? ev_json_print(o.receipt_doc, stdout, &err) : EV_OK;
		if (!json)
			print_result(&o);
		if (pst != EV_OK)
			st = pst;
	}
	if (st >= EV_ERROR)
		ev_cli_error(TOOL, &err);
	ev_audit_series_free(&o);
	ev_signing_key_free(o.sign_key);
	return ev_status_exit_code(st);
}
