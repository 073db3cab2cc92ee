/* audit series: the statistics of a latency series recomputed from its
 * raw samples, with the rule the benchmark used, beside what the
 * benchmark printed. */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit/analysis.h"
#include "audit/audit.h"
#include "lib/receipt/signature.h"
#include "lib/core/input.h"
#include "lib/core/json.h"
#include "lib/receipt/receipt.h"
#include "lib/core/sha256.h"

#define DEFAULT_PAGE 4096

struct series_opts {
	struct ev_signing_key *sign_key;
	const char *series, *native, *delay, *journal, *receipt;
	int rule, json;
	enum analysis_sockperf_clock sockperf_clock;
	const char *quantiles[ANALYSIS_MAX_QUANTILES];
	size_t nquantiles;
	uint64_t rate, warmups, threshold, page_size;
	int have_threshold;
};

struct found {
	json_t *list;
	unsigned n;
};

static void on_finding(void *ctx, const struct ev_finding *f)
{
	struct found *x = ctx;
	ev_cli_finding(stderr, TOOL ": ", f);
	if (x->n++ < 100)
		json_array_append_new(x->list, ev_finding_to_json(f));
}

static ev_status add_input(json_t *r, const char *name, const char *path, struct ev_error *err)
{
	uint8_t d[EV_SHA256_LEN];
	char hex[EV_SHA256_HEX_LEN + 1];
	ev_status st = ev_sha256_path(path, d, NULL, err);
	if (st != EV_OK)
		return st;
	ev_sha256_hex(d, hex);
	return ev_receipt_add_input(r, name, path, hex, err);
}

static json_t *series_facts(const struct ev_series *s)
{
	json_t *o = json_pack("{s:s, s:s, s:I, s:I}", "shape", ev_series_kind_name(s->kind), "clock", s->clock,
			      "ticks_per_second", (json_int_t)s->ticks_per_second, "samples", (json_int_t)s->n);
	if (s->source_hz)
		json_object_set_new(o, "source_hz", json_integer((json_int_t)s->source_hz));
	if (s->has_declared)
		json_object_set_new(o, "declared", json_integer((json_int_t)s->declared));
	if (s->kind == EV_SERIES_SOCKPERF)
		json_object_set_new(o, "half_round_trip", json_boolean(s->half_rtt));
	return o;
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

static ev_status run_series(const struct series_opts *o, struct ev_error *err)
{
	struct ev_series s = {0}, d = {0};
	struct ev_native nat;
	struct found found = {json_array(), 0};
	json_t *r = NULL, *compared = NULL;
	uint8_t *labels = NULL;
	unsigned differ = 0;
	uint64_t missed = 0;
	char coverage_text[640] = "";
	ev_status st;
	int have_native = o->native != NULL;
	struct audit_hash_job hash;
	audit_hash_job_init(&hash, o->series);
	if (have_native && (st = ev_native_load(o->native, &nat, err)) != EV_OK)
		goto out;
	audit_hash_job_start(&hash);
	if ((st = ev_series_load(o->series, &s, on_finding, &found, err)) != EV_OK)
		goto out;
	if (!(r = ev_receipt_new("audit", TOOL, err))) {
		st = err->status;
		goto out;
	}
	if (have_native && (st = add_input(r, "native report", o->native, err)) != EV_OK)
		goto out;
	struct ev_moments m;
	ev_moments_of(s.v, s.n, &m);
	ev_receipt_set_fact(r, "series", series_facts(&s), err);
	if (s.n == 0) /* nothing was measured: no statistic holds */
		ev_finding_emit(on_finding, &found, o->series, "series-empty", "the series holds no sample", "1 or more",
				"0");
	json_t *coverage = json_object();
	ev_receipt_set_fact(r, "coverage", coverage, err);
	json_object_set_new(coverage, "series", json_string(s.n ? "every sample read and recomputed"
								    : "empty: nothing to recompute"));

	/* first what needs the samples in their own order */
	if (o->journal) {
		if ((st = audit_analysis_page_labels(o->journal, o->warmups, s.n, o->page_size, &labels, err)) >= EV_ERROR)
			goto out;
		if (st == EV_MISMATCH) {
			ev_finding_emit(on_finding, &found, o->journal, "cohort-align", err->text, NULL, NULL);
			ev_error_clear(err);
			st = EV_OK;
		}
	}
	uint64_t threshold = o->threshold;
	if (labels && !o->have_threshold) {
		/* the p99, read from the mapped series: no copy of it */
		struct wanted p99 = {.rule = EV_QRULE_NEAREST_RANK, .p = {99, 100}};
		audit_analysis_select(s.v, s.n, NULL, &p99, 1);
		threshold = (uint64_t)p99.value;
	}
	if (labels) {
		json_t *c = audit_analysis_cohorts(s.v, s.n, labels, threshold);
		ev_receipt_set_fact(r, "cohorts", json_pack("{s:I, s:I, s:o}", "page_size", (json_int_t)o->page_size,
							   "threshold", (json_int_t)threshold, "by_displacement", c), err);
	}

	/* then the order statistics, all selected in one pass */
	if (have_native) {
		compared = audit_analysis_compare_native(&nat, &s, NULL, &m, o->sockperf_clock, &differ);
		json_t *facts = json_pack("{s:s, s:s, s:s}", "tool", nat.tool, "rule", ev_qrule_name(nat.rule),
					  "title", nat.title);
		if (nat.kind == EV_NATIVE_SOCKPERF)
			json_object_set_new(facts, "clock", json_string(audit_analysis_sockperf_clock_name(o->sockperf_clock)));
		ev_receipt_set_fact(r, "native", facts, err);
		audit_analysis_native_coverage(compared, coverage_text, sizeof coverage_text);
		json_object_set_new(coverage, "native report", json_string(coverage_text));
		size_t i;
		json_t *row;
		json_array_foreach(compared, i, row) {
			char name[64], detail[256];
			const char *verdict = json_string_value(json_object_get(row, "verdict"));
			snprintf(name, sizeof name, "native %s", json_string_value(json_object_get(row, "name")));
			if (strcmp(verdict, "missing") == 0)
				snprintf(detail, sizeof detail, "missing: %s always prints it, the report lacks it", nat.tool);
			else
				snprintf(detail, sizeof detail, "%s: native %s, recomputed %s (%s)", verdict,
				 json_string_value(json_object_get(row, "native")),
				 json_string_value(json_object_get(row, "recomputed")),
				 json_string_value(json_object_get(row, "rule")));
			if (strcmp(verdict, "not recomputable") == 0)
				continue; /* named in the statistics and the coverage, not a check */
			int bad = strcmp(verdict, "differs") == 0 || strcmp(verdict, "missing") == 0;
			ev_receipt_add_check(r, name, !bad, detail, err);
			const char *why = json_string_value(json_object_get(row, "why"));
			if (bad)
				fprintf(stderr, TOOL ": %s: %s: %s (native %s, recomputed %s)%s%s\n", o->native,
					json_string_value(json_object_get(row, "name")), verdict,
					*json_string_value(json_object_get(row, "native")) ? json_string_value(json_object_get(row, "native")) : "absent",
					*json_string_value(json_object_get(row, "recomputed")) ? json_string_value(json_object_get(row, "recomputed")) : "nothing",
					why ? ": " : "", why ? why : "");
			else if (strncmp(verdict, "equal ", 6) == 0) /* a documented cause of sockperf's own, shown */
				fprintf(stderr, TOOL ": %s: %s: %s\n", o->series, json_string_value(json_object_get(row, "name")),
					why);
		}
		ev_receipt_set_fact(r, "statistics", json_incref(compared), err);
	}
	static const char *const default_set[] = {"50", "95", "99", "99.9"};
	const char *const *asked = o->nquantiles ? o->quantiles : default_set;
	size_t nasked = o->nquantiles ? o->nquantiles : (have_native ? 0 : 4);
	int rule = o->rule >= 0 ? o->rule : have_native ? (int)nat.rule : EV_QRULE_NEAREST_RANK;
	struct wanted want[ANALYSIS_MAX_QUANTILES] = {0};
	for (size_t i = 0; i < nasked; i++) {
		want[i].rule = (enum ev_qrule)rule;
		ev_prob_parse_percent(asked[i], &want[i].p);
	}
	audit_analysis_select(s.v, s.n, NULL, want, nasked);
	json_t *q = json_object();
	for (size_t i = 0; i < nasked; i++) {
		char key[32], pct[24];
		ev_prob_format(want[i].p, pct, sizeof pct);
		snprintf(key, sizeof key, "p%s", pct);
		json_object_set_new(q, key, audit_analysis_quantile_json(&want[i]));
	}
	json_t *moments = audit_analysis_moments_json(&m);
	json_object_set_new(moments, "rule", json_string(ev_qrule_name((enum ev_qrule)rule)));
	json_object_set_new(moments, "quantiles", q);
	ev_receipt_set_fact(r, "recomputed", moments, err);

	if (o->delay) {
		if ((st = ev_series_load(o->delay, &d, on_finding, &found, err)) != EV_OK ||
		    (st = add_input(r, "delay series", o->delay, err)) != EV_OK)
			goto out;
		ev_receipt_set_fact(r, "pacing", audit_analysis_pacing(&d, o->rate, &missed), err);
	}
	if ((st = audit_hash_job_finish(&hash, r, "series", err)) != EV_OK)
		goto out;
	ev_receipt_add_check(r, "series", found.n == 0, found.n ? "findings in the series" : "every sample read", err);
	ev_receipt_set_fact(r, "series_findings", json_incref(found.list), err);

	char path[PATH_MAX];
	/* stopped while reading or computing: no receipt, nothing claimed */
	if (ev_cli_interrupted) {
		st = ev_error_set(err, EV_INTERRUPTED, "%s: interrupted by a signal; nothing is claimed", o->series);
		goto out;
	}
	if ((st = ev_receipt_finish_signed(r, o->sign_key, err)) != EV_OK)
		goto out;
	if ((st = ev_receipt_write_chosen(r, o->receipt, EV_RECEIPT_DEFAULT_DIR, "audit-series", path, sizeof path, err)) != EV_OK)
		goto out;
	if (o->json) {
		ev_json_print(r, stdout, err);
	} else {
		printf("series %s: %s, %zu samples, clock %s, %" PRIu64 " ticks a second%s\n", o->series,
		       ev_series_kind_name(s.kind), s.n, s.clock, s.ticks_per_second,
		       s.kind == EV_SERIES_SOCKPERF && s.half_rtt ? " (half round trips, as sockperf reports)" : "");
		if (compared)
			print_table(compared);
		if (o->delay)
			printf("paced at %" PRIu64 "/s: %" PRIu64 " deadlines missed and re-anchored\n", o->rate, missed);
		if (coverage_text[0])
			printf("%s\n", coverage_text);
		printf("%s: %u statistic%s differ, %u series finding%s; receipt %s\n",
		       differ || found.n ? "FAIL" : "OK", differ, differ == 1 ? "" : "s", found.n,
		       found.n == 1 ? "" : "s", path);
	}
	st = differ || found.n ? EV_MISMATCH : EV_OK;
out:
	audit_hash_job_wait(&hash);
	json_decref(compared);
	json_decref(found.list);
	json_decref(r);
	free(labels);
	ev_series_free(&s);
	ev_series_free(&d);
	return st;
}

int audit_series_main(int argc, char **argv)
{
	struct series_opts o = {.rule = -1, .page_size = DEFAULT_PAGE};
	long v;
	int c;
	struct ev_prob p;
	struct ev_cli_getopt opts;
	ev_cli_getopt_init(&opts, &audit_tool, "series");
	optind = 1;
	while ((c = getopt_long(argc, argv, opts.shortopts, opts.longopts, NULL)) != -1) {
		switch (c) {
		case 'C':
			if (strcmp(optarg, "tsc") == 0)
				o.sockperf_clock = SOCKPERF_CLOCK_TSC;
			else if (strcmp(optarg, "monotonic") == 0)
				o.sockperf_clock = SOCKPERF_CLOCK_MONOTONIC;
			else
				return ev_cli_usage(&audit_tool, "series", "option --sockperf-clock: expected tsc or monotonic, found '%s'", optarg);
			break;
		case 'd': o.delay = optarg; break;
		case 'h': return ev_cli_help(&audit_tool, "series");
		case 'J': o.journal = optarg; break;
		case 'j': o.json = 1; break;
		case 'n': o.native = optarg; break;
		case 'P':
			if (ev_cli_parse_long(optarg, 512, 1 << 30, &v))
				return ev_cli_usage(&audit_tool, "series", "option --page-size: expected 512 or more bytes, found '%s'", optarg);
			o.page_size = (uint64_t)v;
			break;
		case 'q':
			if (ev_prob_parse_percent(optarg, &p) != 0)
				return ev_cli_usage(&audit_tool, "series", "option --quantile: expected a percentile from 0 to 100, found '%s'", optarg);
			if (o.nquantiles == ANALYSIS_MAX_QUANTILES)
				return ev_cli_usage(&audit_tool, "series", "at most %d --quantile", ANALYSIS_MAX_QUANTILES);
			o.quantiles[o.nquantiles++] = optarg;
			break;
		case 'r':
			if (ev_cli_parse_long(optarg, 1, 1000000000, &v))
				return ev_cli_usage(&audit_tool, "series", "option --rate: expected orders a second, found '%s'", optarg);
			o.rate = (uint64_t)v;
			break;
		case 'K':
			if (ev_cli_sign_key(TOOL, optarg, &o.sign_key))
				return 2;
			break;
		case 'o': o.receipt = optarg; break;
		case 'R':
			if ((o.rule = ev_qrule_parse(optarg)) < 0)
				return ev_cli_usage(&audit_tool, "series", "option --rule: expected nearest-rank, floor-index, round-half-up or linear, found '%s'",
						 optarg);
			break;
		case 'T':
			if (ev_cli_parse_long(optarg, 0, LONG_MAX, &v))
				return ev_cli_usage(&audit_tool, "series", "option --threshold: expected ticks, found '%s'", optarg);
			o.threshold = (uint64_t)v;
			o.have_threshold = 1;
			break;
		case 'w':
			if (ev_cli_parse_long(optarg, 0, LONG_MAX, &v))
				return ev_cli_usage(&audit_tool, "series", "option --warmups: expected a count, found '%s'", optarg);
			o.warmups = (uint64_t)v;
			break;
		default: return ev_cli_usage(&audit_tool, "series", "%s", ev_cli_option_problem(argv));
		}
	}
	if (optind + 1 != argc)
		return ev_cli_usage(&audit_tool, "series", optind == argc ? "no series given" : "one series at a time");
	if (!!o.delay != !!o.rate)
		return ev_cli_usage(&audit_tool, "series", "--delay and --rate go together");
	o.series = argv[optind];
	struct ev_error err;
	ev_error_clear(&err);
	ev_cli_catch_signals();
	ev_status st = ev_receipt_refuse_existing(o.receipt, &err);
	if (st == EV_OK)
		st = run_series(&o, &err);
	if (st >= EV_ERROR)
		ev_cli_error(TOOL, &err);
	ev_signing_key_free(o.sign_key);
	return ev_status_exit_code(st);
}
