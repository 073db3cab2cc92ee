/* audit campaign: every run of a campaign captured by capture, its series
 * recomputed, its native statistics checked, its journals audited, and the
 * campaign summed up per arm and cell as the median of the runs'
 * statistics (never a quantile of pooled samples), every run shown, with
 * a self-contained HTML report. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit/analysis.h"
#include "audit/audit.h"
#include "audit/journal.h"
#include "audit/svg.h"
#include "lib/campaign/run.h"
#include "lib/core/path.h"
#include "lib/core/publish.h"
#include "lib/core/json.h"
#include "lib/receipt/receipt.h"
#include "lib/core/sha256.h"

#define MAX_RUNS 4096
#define SPECTRUM_STEPS 51      /* 0 to 5 nines, a tenth at a time */
#define TIMESERIES_POINTS 400
#define NQ 4

static const char *const q_names[NQ] = {"p50", "p95", "p99", "p99.9"};
static const char *const q_percent[NQ] = {"50", "95", "99", "99.9"};


struct run {
	char name[160], arm[64], cell[64], result[24], dir[PATH_MAX];
	int repeat;
	char series[PATH_MAX], native[PATH_MAX], delay[PATH_MAX], sjournal[PATH_MAX], pjournal[PATH_MAX];
	char native_log[PATH_MAX]; /* sockperf: the summary at the head of its full log, compared too */
	enum analysis_sockperf_clock sockperf_clock;
	uint64_t warmups, measured, rate;  /* warmups and measured: the plan's, from run.json */
	/* what the audit found */
	int analysed;
	char clock[EV_SERIES_CLOCK_MAX + 1], rule[24];
	uint64_t tps, source_hz;
	struct ev_moments m;
	double q[NQ];
	unsigned differ, findings;
	json_t *json; /* the run's part of summary.json */
	double spectrum[SPECTRUM_STEPS];
	size_t nspectrum;
	double ts_x[TIMESERIES_POINTS], ts_y[TIMESERIES_POINTS];
	size_t nts;
};

struct campaign_audit {
	const char *dir, *out;
	int json;
	json_t *plan;
	struct run *runs;
	size_t nruns;
	json_t *receipt;
	char tmpdir[PATH_MAX];
	uint64_t journal_findings;
	int journals_audited;
	size_t journal_pairs;     /* runs with both journals */
	int journals_left;        /* not audited here: the runs' counts differ */
};

/* out = a "/" b; 0, or -1 (out empty) when it does not fit */
static void run_finding(void *ctx, const struct ev_finding *f)
{
	struct run *r = ctx;
	char prefix[512];
	snprintf(prefix, sizeof prefix, TOOL ": %s: ", r->name);
	ev_cli_finding(stderr, prefix, f);
	r->findings++;
}

/* An output of a role in run.json, as a path, or "" . */
static void output_path(const struct run *r, const struct ev_run *doc, const char *role, const char *name,
			char *out, size_t cap)
{
	const char *rel = ev_run_output(doc, role, name);
	out[0] = 0;
	if (rel)
		ev_path_join(out, cap, r->dir, rel);
}

/* sockperf's clock as the run's recorded argv says: --no-rdtsc is its
 * monotonic clock, anything else its TSC default. Not sockperf: unknown. */
static enum analysis_sockperf_clock recorded_sockperf_clock(const struct ev_run *doc)
{
	size_t k;
	json_t *a;
	struct ev_run_process p;
	for (size_t i = 0; i < ev_run_process_count(doc); i++) {
		if (ev_run_process(doc, i, &p) != 0 || strcmp(p.role ?: "", "sender") != 0)
			continue;
		int sockperf = 0, no_rdtsc = 0;
		json_array_foreach(p.argv, k, a) {
			const char *w = json_string_value(a) ?: "";
			const char *base = strrchr(w, '/') ? strrchr(w, '/') + 1 : w;
			sockperf |= strcmp(base, "sockperf") == 0;
			no_rdtsc |= strcmp(w, "--no-rdtsc") == 0;
		}
		if (sockperf)
			return no_rdtsc ? SOCKPERF_CLOCK_MONOTONIC : SOCKPERF_CLOCK_TSC;
	}
	return SOCKPERF_CLOCK_UNKNOWN;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct run *)a)->name, ((const struct run *)b)->name);
}

static ev_status load_runs(struct campaign_audit *ca, struct ev_error *err)
{
	char runs_dir[PATH_MAX];
	if (ev_path_join(runs_dir, sizeof runs_dir, ca->dir, "runs") != 0)
		return ev_error_set(err, EV_USAGE, "%s: path too long", ca->dir);
	DIR *d = opendir(runs_dir);
	if (!d)
		return ev_error_errno(err, errno, "%s: cannot read the campaign's runs (is it a capture campaign?)",
				      runs_dir);
	ca->runs = calloc(MAX_RUNS, sizeof *ca->runs);
	if (!ca->runs) {
		closedir(d);
		return ev_error_set(err, EV_ERROR, "out of memory");
	}
	struct dirent *e;
	ev_status st = EV_OK;
	while (st == EV_OK && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (ca->nruns == MAX_RUNS) {
			st = ev_error_set(err, EV_USAGE, "%s: more than %d runs", runs_dir, MAX_RUNS);
			break;
		}
		struct run *r = &ca->runs[ca->nruns];
		char path[PATH_MAX];
		if (strlen(e->d_name) >= sizeof r->name || ev_path_join(r->dir, sizeof r->dir, runs_dir, e->d_name) != 0 ||
		    ev_path_join(path, sizeof path, r->dir, EV_RUN_FILENAME) != 0) {
			fprintf(stderr, TOOL ": %s/%s: name too long: left out\n", runs_dir, e->d_name);
			continue;
		}
		if (access(path, F_OK) != 0) {
			fprintf(stderr, TOOL ": %s: no run.json (a run cut short): left out\n", r->dir);
			continue;
		}
		struct ev_run run;
		const struct ev_run *doc = &run;
		uint8_t digest[EV_SHA256_LEN];
		char hex[EV_SHA256_HEX_LEN + 1];
		if ((st = ev_run_load(path, 0, &run, digest, err)) != EV_OK)
			break;
		ev_sha256_hex(digest, hex);
		char name[PATH_MAX + 16];
		snprintf(name, sizeof name, "run %s", e->d_name);
		ev_receipt_add_input(ca->receipt, name, path, hex, err);
		memcpy(r->name, e->d_name, strlen(e->d_name) + 1);
		snprintf(r->arm, sizeof r->arm, "%s", ev_run_string(doc, "arm") ?: "");
		snprintf(r->cell, sizeof r->cell, "%s", ev_run_string(doc, "cell") ?: "");
		snprintf(r->result, sizeof r->result, "%s", ev_run_string(doc, "result") ?: "unknown");
		r->repeat = ev_run_repeat(doc);
		r->warmups = ev_run_count(doc, "warmups");
		r->measured = ev_run_count(doc, "measured");
		output_path(r, doc, "sender", "series", r->series, sizeof r->series);
		output_path(r, doc, "sender", "report", r->native, sizeof r->native);
		output_path(r, doc, "sender", "delay_series", r->delay, sizeof r->delay);
		output_path(r, doc, "sender", "journal", r->sjournal, sizeof r->sjournal);
		output_path(r, doc, "peer", "journal", r->pjournal, sizeof r->pjournal);
		if (!r->series[0]) { /* sockperf: the full log is series and a copy of the summary */
			output_path(r, doc, "sender", "log", r->series, sizeof r->series);
			snprintf(r->native_log, sizeof r->native_log, "%s", r->series);
		}
		if (!r->native[0]) { /* what the sender printed is what was published */
			if (ev_path_join(r->native, sizeof r->native, r->dir, "native/sender.stdout") != 0 ||
			    access(r->native, R_OK) != 0)
				snprintf(r->native, sizeof r->native, "%s", r->native_log);
		}
		if (strcmp(r->native, r->native_log) == 0)
			r->native_log[0] = 0;
		r->sockperf_clock = recorded_sockperf_clock(doc);
		ev_run_free(&run);
		ca->nruns++;
	}
	closedir(d);
	if (ca->nruns > 1)
		qsort(ca->runs, ca->nruns, sizeof *ca->runs, by_name);
	return st;
}

static ev_status add_input_file(json_t *receipt, const char *name, const char *path, struct ev_error *err)
{
	uint8_t d[EV_SHA256_LEN];
	char hex[EV_SHA256_HEX_LEN + 1];
	ev_status st = ev_sha256_path(path, d, NULL, err);
	if (st == EV_OK) {
		ev_sha256_hex(d, hex);
		st = ev_receipt_add_input(receipt, name, path, hex, err);
	}
	return st;
}

/* The time series decimated: the largest value of each of at most
 * TIMESERIES_POINTS buckets of consecutive calls. */
static void decimate(struct run *r, const uint64_t *v, size_t n)
{
	size_t per = (n + TIMESERIES_POINTS - 1) / TIMESERIES_POINTS;
	r->nts = 0;
	for (size_t at = 0; per && at < n; at += per) {
		uint64_t mx = 0;
		for (size_t k = at; k < n && k < at + per; k++)
			mx = v[k] > mx ? v[k] : mx;
		r->ts_x[r->nts] = (double)at;
		r->ts_y[r->nts++] = (double)(mx ? mx : 1);
	}
}

/* The native statistics of one file compared; each that differs or is
 * missing named on stderr with its run, and counted. */
static json_t *compare_native(struct run *r, const char *file, const struct ev_native *nat, struct ev_series *s)
{
	unsigned differ = 0;
	json_t *rows = audit_analysis_compare_native(nat, s, &r->m, r->sockperf_clock, &differ), *row;
	size_t i;
	r->differ += differ;
	json_array_foreach(rows, i, row) {
		const char *verdict = json_string_value(json_object_get(row, "verdict"));
		if (strcmp(verdict, "differs") != 0 && strcmp(verdict, "missing") != 0)
			continue;
		const char *native = json_string_value(json_object_get(row, "native"));
		const char *recomputed = json_string_value(json_object_get(row, "recomputed"));
		fprintf(stderr, TOOL ": %s: %s: %s: %s (native %s, recomputed %s)\n", r->name, file,
			json_string_value(json_object_get(row, "name")), verdict, *native ? native : "absent",
			*recomputed ? recomputed : "nothing");
	}
	return rows;
}

/* A run whose program kept no raw series (the llfix benchmark as a cell):
 * what it printed is shown as printed, each statistic marked not
 * recomputable, except its sample count, which the plan gives; a line the
 * tool always prints and the block lacks is still missing. */
static void native_as_printed(struct campaign_audit *ca, struct run *r)
{
	struct ev_native nat;
	struct ev_error nerr;
	ev_error_clear(&nerr);
	if (ev_native_load(r->native, &nat, &nerr) != EV_OK) {
		json_object_set_new(r->json, "native", json_string(nerr.text));
		return; /* a stdout that states no statistic: nothing was published */
	}
	char name[PATH_MAX + 32];
	snprintf(name, sizeof name, "%s native report", r->name);
	add_input_file(ca->receipt, name, r->native, &nerr);
	json_t *rows = json_array();
	size_t recomputed = 0, printed = 0;
	for (size_t i = 0; i < nat.n; i++) {
		const struct ev_native_stat *st = &nat.stats[i];
		printed++;
		if (st->what == EV_NSTAT_COUNT) {
			char want[32];
			snprintf(want, sizeof want, "%" PRIu64, r->measured);
			int same = strcmp(want, st->text) == 0;
			recomputed++;
			if (!same) {
				r->differ++;
				fprintf(stderr, TOOL ": %s: %s: %s: differs (native %s, the plan's measured %s)\n", r->name,
					r->native, st->name, st->text, want);
			}
			json_array_append_new(rows, json_pack("{s:s, s:s, s:s, s:s, s:s}", "name", st->name, "rule", "plan",
							      "native", st->text, "recomputed", want, "verdict",
							      same ? "equal" : "differs"));
			continue;
		}
		json_array_append_new(rows, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "name", st->name, "rule",
						      ev_qrule_name(nat.rule), "native", st->text, "recomputed", "", "verdict",
						      "not recomputable", "why", "the run recorded no raw series"));
	}
	for (size_t i = 0; i < nat.nmissing; i++)
		fprintf(stderr, TOOL ": %s: %s: %s: missing (native absent)\n", r->name, r->native, nat.missing[i]);
	r->differ += (unsigned)audit_analysis_native_rest(&nat, rows);
	char coverage[256];
	snprintf(coverage, sizeof coverage, "recomputed %zu of %zu printed statistics (the count, from the plan; "
		 "the rest not recomputable: the run recorded no raw series)", recomputed, printed);
	json_object_set_new(r->json, "native", json_pack("{s:s, s:s, s:s, s:s, s:o}", "tool", nat.tool, "rule",
							 ev_qrule_name(nat.rule), "file", r->native, "coverage", coverage,
							 "statistics", rows));
}

/* One run: its series read, its statistics recomputed and checked. */
static ev_status analyse_run(struct campaign_audit *ca, struct run *r, struct ev_error *err)
{
	struct ev_series s;
	struct ev_native nat;
	int have_native = 0;
	ev_status st;
	char name[PATH_MAX + 32];
	r->json = json_pack("{s:s, s:s, s:s, s:i, s:s}", "name", r->name, "arm", r->arm, "cell", r->cell,
			    "repeat", r->repeat, "result", r->result);
	if (strcmp(r->result, "ok") != 0) { /* shown, not summed up; the campaign did not hold */
		snprintf(name, sizeof name, "run %s result", r->name);
		ev_receipt_add_check(ca->receipt, name, 0, "capture recorded the run as not ok", err);
	}
	if (!r->series[0] || access(r->series, R_OK) != 0) {
		json_object_set_new(r->json, "series", json_string("none: the run has no series output"));
		if (r->native[0])
			native_as_printed(ca, r);
		snprintf(name, sizeof name, "run %s statistics", r->name);
		char detail[256];
		snprintf(detail, sizeof detail, "no raw series: %s", r->differ ? "the printed statistics differ from the plan "
			 "or lack a line" : "the printed statistics are shown, not recomputed");
		ev_receipt_add_check(ca->receipt, name, !r->differ, detail, err);
		return EV_OK;
	}
	if (r->native[0]) {
		struct ev_error nerr;
		ev_error_clear(&nerr);
		have_native = ev_native_load(r->native, &nat, &nerr) == EV_OK;
		if (!have_native) { /* printed, yet not read: never a pass */
			json_object_set_new(r->json, "native", json_string(nerr.text));
			fprintf(stderr, TOOL ": %s: %s\n", r->name, nerr.text);
			r->differ++;
		}
	}
	if ((st = ev_series_load(r->series, &s, run_finding, r, err)) != EV_OK)
		return ev_error_wrap(err, "run %s", r->name);
	snprintf(name, sizeof name, "%s series", r->name);
	add_input_file(ca->receipt, name, r->series, err);
	if (have_native) {
		snprintf(name, sizeof name, "%s native report", r->name);
		add_input_file(ca->receipt, name, r->native, err);
	}
	r->analysed = 1;
	snprintf(r->clock, sizeof r->clock, "%s", s.clock);
	r->tps = s.ticks_per_second;
	r->source_hz = s.source_hz;
	ev_moments_of(s.v, s.n, &r->m);
	decimate(r, s.v, s.n);
	/* in the series' own order: the journal-page cohorts */
	if (r->sjournal[0] && s.n) {
		uint8_t *labels = NULL;
		struct ev_error lerr;
		ev_error_clear(&lerr);
		if (audit_analysis_page_labels(r->sjournal, r->warmups, s.n, 4096, &labels, &lerr) == EV_OK) {
			uint64_t *copy = malloc(s.n * sizeof *copy);
			if (copy) {
				struct ev_prob p99 = {99, 100};
				memcpy(copy, s.v, s.n * sizeof *copy);
				uint64_t threshold = (uint64_t)ev_quantile(copy, s.n, EV_QRULE_NEAREST_RANK, p99);
				free(copy);
				json_object_set_new(r->json, "cohorts",
						    json_pack("{s:I, s:I, s:o}", "page_size", (json_int_t)4096, "threshold",
							      (json_int_t)threshold, "by_displacement",
							      audit_analysis_cohorts(s.v, s.n, labels, threshold)));
			}
			free(labels);
		} else {
			json_object_set_new(r->json, "cohorts", json_string(lerr.text));
		}
	}
	enum ev_qrule rule = have_native ? nat.rule : EV_QRULE_NEAREST_RANK;
	snprintf(r->rule, sizeof r->rule, "%s", ev_qrule_name(rule));
	if (have_native) {
		json_t *rows = compare_native(r, r->native, &nat, &s);
		char coverage[640];
		audit_analysis_native_coverage(rows, coverage, sizeof coverage);
		json_object_set_new(r->json, "native", json_pack("{s:s, s:s, s:s, s:s, s:o}", "tool", nat.tool, "rule",
								 ev_qrule_name(nat.rule), "file", r->native, "coverage",
								 coverage, "statistics", rows));
		struct ev_native copy;
		struct ev_error nerr;
		ev_error_clear(&nerr);
		if (r->native_log[0] && ev_native_load(r->native_log, &copy, &nerr) == EV_OK) {
			snprintf(name, sizeof name, "%s native log summary", r->name);
			add_input_file(ca->receipt, name, r->native_log, err);
			json_object_set_new(r->json, "native_log", json_pack("{s:s, s:o}", "file", r->native_log,
									     "statistics", compare_native(r, r->native_log, &copy, &s)));
		}
	}
	/* the summary's quantiles and the plot's spectrum, selected at once */
	struct wanted want[NQ + SPECTRUM_STEPS] = {0};
	size_t nw = 0;
	for (int i = 0; i < NQ; i++) {
		want[nw].rule = rule;
		ev_prob_parse_percent(q_percent[i], &want[nw++].p);
	}
	double nines_max = s.n > 1 ? log10((double)s.n) : 0;
	r->nspectrum = 0;
	for (int k = 0; k < SPECTRUM_STEPS && k / 10.0 <= nines_max + 1e-9; k++) {
		/* 1 - 10^-x as a fraction over 10^9: for the plot, not for a verdict */
		double p = 1 - pow(10, -k / 10.0);
		want[nw].rule = EV_QRULE_NEAREST_RANK;
		want[nw].p = (struct ev_prob){(uint64_t)llround(p * 1e9), 1000000000u};
		nw++;
		r->nspectrum++;
	}
	audit_analysis_select(s.v, s.n, want, nw);
	json_t *q = json_object();
	for (int i = 0; i < NQ; i++) {
		r->q[i] = want[i].value;
		json_object_set_new(q, q_names[i], audit_analysis_quantile_json(&want[i]));
	}
	for (size_t k = 0; k < r->nspectrum; k++)
		r->spectrum[k] = want[NQ + k].value > 0 ? want[NQ + k].value : 1;
	json_t *stats = audit_analysis_moments_json(&r->m);
	json_object_set_new(stats, "rule", json_string(r->rule));
	json_object_set_new(stats, "quantiles", q);
	json_object_set_new(r->json, "recomputed", stats);
	json_object_set_new(r->json, "series",
			    json_pack("{s:s, s:s, s:I, s:I, s:I}", "shape", ev_series_kind_name(s.kind), "clock", s.clock,
				      "ticks_per_second", (json_int_t)s.ticks_per_second, "source_hz",
				      (json_int_t)s.source_hz, "findings", (json_int_t)r->findings));
	ev_series_free(&s);
	if (r->delay[0] && have_native) {
		/* the rate comes from the pair's report */
		json_t *rep;
		struct ev_error jerr;
		ev_error_clear(&jerr);
		if (ev_json_load(r->native, "evidence-pair-report/1", 0, &rep, NULL, NULL, NULL, &jerr) == EV_OK) {
			r->rate = (uint64_t)json_integer_value(json_object_get(json_object_get(rep, "pacing"), "rate"));
			json_decref(rep);
		}
		struct ev_series d;
		uint64_t missed;
		if (r->rate && ev_series_load(r->delay, &d, run_finding, r, err) == EV_OK) {
			json_object_set_new(r->json, "pacing", audit_analysis_pacing(&d, r->rate, &missed));
			ev_series_free(&d);
		}
	}
	char check[256], detail[256];
	snprintf(check, sizeof check, "run %s statistics", r->name);
	snprintf(detail, sizeof detail, "%u native statistic%s differ, %u series finding%s", r->differ,
		 r->differ == 1 ? "" : "s", r->findings, r->findings == 1 ? "" : "s");
	ev_receipt_add_check(ca->receipt, check, !r->differ && !r->findings, detail, err);
	return EV_OK;
}

/* Both endpoints' journals of every run that has them, audited as
 * audit journal would, its receipt in the summary. */
static ev_status audit_journals(struct campaign_audit *ca, struct ev_error *err)
{
	const char *senders[JOURNAL_MAX_PAIRS], *receivers[JOURNAL_MAX_PAIRS];
	size_t n = 0;
	uint64_t warmups = 0, measured = 0;
	int uniform = 1;
	for (size_t i = 0; i < ca->nruns && n < JOURNAL_MAX_PAIRS; i++) {
		struct run *r = &ca->runs[i];
		if (!r->sjournal[0] || !r->pjournal[0] || access(r->sjournal, F_OK) != 0 || access(r->pjournal, F_OK) != 0)
			continue;
		/* the plan's counts, not the series': a native program may keep none */
		if (n && (r->warmups != warmups || r->measured != measured))
			uniform = 0;
		warmups = r->warmups;
		measured = r->measured;
		senders[n] = r->sjournal;
		receivers[n++] = r->pjournal;
	}
	ca->journal_pairs = n;
	if (!n)
		return EV_OK;
	if (!uniform) {
		fprintf(stderr, TOOL ": the runs' counts differ: journals left to audit journal, run by run\n");
		ca->journals_left = 1;
		return EV_OK;
	}
	char receipt[PATH_MAX];
	if (ev_path_join(receipt, sizeof receipt, ca->tmpdir, "audit-journal.json") != 0)
		return ev_error_set(err, EV_USAGE, "%s: path too long", ca->out);
	struct journal_run jr;
	audit_journal_init(&jr);
	ev_status st = audit_journal_prepare(&jr, senders, receivers, n, n, err);
	if (st != EV_OK)
		return st;
	jr.warmups = (long)warmups;
	jr.measured = (long)measured;
	jr.receipt = receipt;
	jr.quiet = 1;
	st = audit_journal_run_all(&jr, err);
	ca->journals_audited = st == EV_OK || st == EV_MISMATCH;
	ca->journal_findings = jr.findings;
	audit_journal_free(&jr);
	if (st == EV_MISMATCH)
		st = EV_OK;
	if (st == EV_OK) {
		char detail[128];
		snprintf(detail, sizeof detail, "%zu pairs, %" PRIu64 " findings (audit-journal.json)", n, ca->journal_findings);
		ev_receipt_add_check(ca->receipt, "journals", ca->journal_findings == 0, detail, err);
	}
	return st;
}

static int by_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof *v, by_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Arms and cells in the plan's order (else the runs'). */
static size_t arms_of(const struct campaign_audit *ca, const char **out, size_t cap)
{
	size_t n = 0;
	for (size_t i = 0; i < ca->nruns; i++) {
		size_t k = 0;
		while (k < n && strcmp(out[k], ca->runs[i].arm) != 0)
			k++;
		if (k == n && n < cap)
			out[n++] = ca->runs[i].arm;
	}
	return n;
}

static size_t cells_of(const struct campaign_audit *ca, const char **out, size_t cap)
{
	size_t n = 0;
	json_t *cells = json_object_get(ca->plan, "cells");
	size_t i;
	json_t *c;
	json_array_foreach(cells, i, c)
		if (n < cap)
			out[n++] = json_string_value(json_object_get(c, "name"));
	for (i = 0; i < ca->nruns; i++) {
		size_t k = 0;
		while (k < n && strcmp(out[k], ca->runs[i].cell) != 0)
			k++;
		if (k == n && n < cap)
			out[n++] = ca->runs[i].cell;
	}
	return n;
}

/* The median of each statistic over the runs of arm and cell. */
struct cell_summary {
	size_t runs;
	double q[NQ], mean, largest_max;
	double spectrum[SPECTRUM_STEPS];
	size_t nspectrum;
	const char *rule;
	const char *unit;
};

static void summarise_cell(const struct campaign_audit *ca, const char *arm, const char *cell,
			   struct cell_summary *cs)
{
	double *col = malloc((ca->nruns ? ca->nruns : 1) * sizeof *col);
	memset(cs, 0, sizeof *cs);
	cs->unit = "ticks";
	for (int k = 0; k <= NQ + 1 + SPECTRUM_STEPS && col; k++) {
		size_t n = 0;
		for (size_t i = 0; i < ca->nruns; i++) {
			const struct run *r = &ca->runs[i];
			/* a failed run, or one that failed its audit, is shown, never summed up */
			if (!r->analysed || strcmp(r->arm, arm) != 0 || strcmp(r->cell, cell) != 0 || !r->m.n ||
			    strcmp(r->result, "ok") != 0 || r->differ || r->findings)
				continue;
			cs->rule = r->rule;
			cs->unit = r->tps == 1000000000u ? "ns" : "ticks";
			if (k < NQ)
				col[n++] = r->q[k];
			else if (k == NQ)
				col[n++] = ev_moments_mean(&r->m);
			else if (k == NQ + 1)
				cs->largest_max = (double)r->m.max > cs->largest_max ? (double)r->m.max : cs->largest_max;
			else if ((size_t)(k - NQ - 2) < r->nspectrum)
				col[n++] = r->spectrum[k - NQ - 2];
		}
		if (k == 0)
			cs->runs = n;
		if (!n || k == NQ + 1)
			continue;
		double med = median(col, n);
		if (k < NQ)
			cs->q[k] = med;
		else if (k == NQ)
			cs->mean = med;
		else if (n == cs->runs) { /* a point every run reaches */
			cs->spectrum[k - NQ - 2] = med;
			cs->nspectrum = (size_t)(k - NQ - 1);
		}
	}
	free(col);
}

static int cell_has_runs(const struct campaign_audit *ca, const char *arm, const char *cell)
{
	for (size_t i = 0; i < ca->nruns; i++)
		if (strcmp(ca->runs[i].arm, arm) == 0 && strcmp(ca->runs[i].cell, cell) == 0)
			return 1;
	return 0;
}

static void md_value(struct text *t, double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		audit_text_add(t, " %.0f |", v);
	else
		audit_text_add(t, " %.1f |", v);
}

static void write_markdown(const struct campaign_audit *ca, struct text *t, json_t *summary)
{
	const char *arms[64], *cells[256];
	size_t na = arms_of(ca, arms, 64), nc = cells_of(ca, cells, 256);
	audit_text_add(t, "# Campaign %s\n\n", json_string_value(json_object_get(summary, "campaign")));
	audit_text_add(t, "Per arm and cell: the median over the runs of each run's statistic, recomputed from its raw\n"
		    "series with the rule its benchmark used (never a quantile of pooled samples), and the largest\n"
		    "maximum of any run. Every run follows in its own row; a run that failed, or failed its\n"
		    "audit (DIFFERS, DAMAGED), is shown there and left out of its cell's median.\n\n");
	for (size_t a = 0; a < na; a++) {
		audit_text_add(t, "## Arm %s\n\n| cell | runs | rule | p50 | p95 | p99 | p99.9 | mean | largest max |\n"
			    "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n", arms[a]);
		for (size_t c = 0; c < nc; c++) {
			struct cell_summary cs;
			summarise_cell(ca, arms[a], cells[c], &cs);
			if (!cs.runs) { /* shown, so that a cell none of whose runs held is not lost */
				if (cell_has_runs(ca, arms[a], cells[c]))
					audit_text_add(t, "| %s | 0 | no run held | | | | | | |\n", cells[c]);
				continue;
			}
			audit_text_add(t, "| %s | %zu | %s |", cells[c], cs.runs, cs.rule ? cs.rule : "");
			for (int k = 0; k < NQ; k++)
				md_value(t, cs.q[k]);
			md_value(t, cs.mean);
			md_value(t, cs.largest_max);
			audit_text_add(t, "\n");
		}
		audit_text_add(t, "\n### Runs of arm %s\n\n| run | cell | result | p50 | p95 | p99 | p99.9 | mean | max | native | series |\n"
			    "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |\n", arms[a]);
		for (size_t i = 0; i < ca->nruns; i++) {
			const struct run *r = &ca->runs[i];
			if (strcmp(r->arm, arms[a]) != 0)
				continue;
			audit_text_add(t, "| %s | %s | %s |", r->name, r->cell, r->result);
			if (r->analysed && r->m.n) {
				for (int k = 0; k < NQ; k++)
					md_value(t, r->q[k]);
				md_value(t, ev_moments_mean(&r->m));
				md_value(t, (double)r->m.max);
				audit_text_add(t, " %s | %s |\n", r->differ ? "DIFFERS" : "agrees", r->findings ? "DAMAGED" : "whole");
			} else {
				audit_text_add(t, " | | | | | | | |\n");
			}
		}
		audit_text_add(t, "\n");
	}
	json_t *scales = json_object_get(summary, "conversion_scales");
	if (json_integer_value(json_object_get(scales, "runs")))
		audit_text_add(t, "Conversion scales (the rate each run's cycles were turned into ns with): %lld runs, "
			    "from %lld to %lld Hz, a spread of %.1f ppm.\n",
			 (long long)json_integer_value(json_object_get(scales, "runs")),
			 (long long)json_integer_value(json_object_get(scales, "min_hz")),
			 (long long)json_integer_value(json_object_get(scales, "max_hz")),
			 strtod(json_string_value(json_object_get(scales, "spread_ppm")) ?: "0", NULL));
	else
		audit_text_add(t, "Conversion scales: no run converted its clock (each series is in its clock's own ticks).\n");
}

static void write_html(const struct campaign_audit *ca, struct text *t, const char *campaign)
{
	const char *arms[64], *cells[256];
	size_t na = arms_of(ca, arms, 64), nc = cells_of(ca, cells, 256);
	audit_text_add(t, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Campaign ");
	audit_text_escaped(t, campaign);
	audit_text_add(t, "</title>\n<style>body{font-family:sans-serif;margin:2em;color:#222}"
		    "section{margin-bottom:2em}svg{display:block;margin:1em 0}</style></head><body>\n<h1>Campaign ");
	audit_text_escaped(t, campaign);
	audit_text_add(t, "</h1>\n<p>Every statistic recomputed from the runs' raw series; per cell, the median of the runs "
		    "(never pooled samples). Values in the series' ticks (ns where the clock is ns).</p>\n");
	static const char *const labels[] = {"0%", "90%", "99%", "99.9%", "99.99%", "99.999%"};
	double xt[6] = {0, 1, 2, 3, 4, 5};
	for (size_t a = 0; a < na; a++) {
		audit_text_add(t, "<section class=\"arm\" data-arm=\"");
		audit_text_escaped(t, arms[a]);
		audit_text_add(t, "\"><h2>Arm ");
		audit_text_escaped(t, arms[a]);
		audit_text_add(t, "</h2>\n");
		/* the percentile spectrum: one line per cell, the median of its runs */
		struct cell_summary cs[256];
		double lo = 1e300, hi = 1, xmax = 0.1;
		for (size_t c = 0; c < nc; c++) {
			summarise_cell(ca, arms[a], cells[c], &cs[c]);
			for (size_t k = 0; k < cs[c].nspectrum; k++) {
				lo = cs[c].spectrum[k] < lo ? cs[c].spectrum[k] : lo;
				hi = cs[c].spectrum[k] > hi ? cs[c].spectrum[k] : hi;
				xmax = k / 10.0 > xmax ? k / 10.0 : xmax;
			}
		}
		if (lo > hi)
			lo = 1;
		struct chart sp = {0, ceil(xmax), lo * 0.8, hi * 1.25, 0, 1, 760, 360, 70, 20, 30, 40};
		size_t nxt = (size_t)ceil(xmax) + 1 < 6 ? (size_t)ceil(xmax) + 1 : 6;
		audit_chart_begin(t, &sp, "Percentile spectrum (median of the runs)", "percentile", "latency", xt, labels, nxt);
		for (size_t c = 0; c < nc; c++) {
			if (!cs[c].nspectrum)
				continue;
			double xs[SPECTRUM_STEPS];
			for (size_t k = 0; k < cs[c].nspectrum; k++)
				xs[k] = k / 10.0;
			audit_chart_polyline(t, &sp, xs, cs[c].spectrum, cs[c].nspectrum, "spectrum", audit_chart_colour(c), cells[c]);
			audit_chart_legend(t, &sp, (int)c, audit_chart_colour(c), cells[c]);
		}
		audit_chart_end(t);
		/* each run's p99 as a dot, per cell */
		double pmax = 1, pmin = 1e300;
		for (size_t i = 0; i < ca->nruns; i++)
			if (ca->runs[i].analysed && ca->runs[i].m.n && strcmp(ca->runs[i].arm, arms[a]) == 0) {
				pmax = ca->runs[i].q[2] > pmax ? ca->runs[i].q[2] : pmax;
				pmin = ca->runs[i].q[2] < pmin ? ca->runs[i].q[2] : pmin;
			}
		if (pmin > pmax)
			pmin = 0;
		struct chart dots = {-0.5, (double)nc - 0.5, pmin * 0.9, pmax * 1.1, 0, 0, 760, 300, 70, 20, 30, 40};
		double cx[256];
		for (size_t c = 0; c < nc; c++)
			cx[c] = (double)c;
		audit_chart_begin(t, &dots, "p99 of each run, by cell", "cell", "p99", cx, cells, nc);
		for (size_t i = 0; i < ca->nruns; i++) {
			const struct run *r = &ca->runs[i];
			if (!r->analysed || !r->m.n || strcmp(r->arm, arms[a]) != 0)
				continue;
			size_t c = 0;
			while (c < nc && strcmp(cells[c], r->cell) != 0)
				c++;
			char tip[256];
			snprintf(tip, sizeof tip, "%s: p99 %.0f", r->name, r->q[2]);
			audit_chart_dot(t, &dots, (double)c + 0.08 * (r->repeat - 1) - 0.04, r->q[2], "run-p99", audit_chart_colour(c), tip);
		}
		audit_chart_end(t);
		/* each run's time series, the largest value per bucket of calls */
		for (size_t c = 0; c < nc; c++) {
			double tmax = 1, tlo = 1e300, nmax = 1;
			int any = 0;
			for (size_t i = 0; i < ca->nruns; i++) {
				const struct run *r = &ca->runs[i];
				if (!r->analysed || !r->nts || strcmp(r->arm, arms[a]) != 0 || strcmp(r->cell, cells[c]) != 0)
					continue;
				any = 1;
				nmax = (double)r->m.n > nmax ? (double)r->m.n : nmax;
				for (size_t k = 0; k < r->nts; k++) {
					tmax = r->ts_y[k] > tmax ? r->ts_y[k] : tmax;
					tlo = r->ts_y[k] < tlo ? r->ts_y[k] : tlo;
				}
			}
			if (!any)
				continue;
			struct chart ts = {0, nmax, tlo * 0.8, tmax * 1.25, 0, 1, 760, 260, 70, 20, 30, 40};
			double tx[2] = {0, nmax};
			char last[32], title[160];
			snprintf(last, sizeof last, "%.0f", nmax);
			const char *tl[2] = {"0", last};
			snprintf(title, sizeof title, "Cell %s: each run over time (largest of each of %d buckets of calls)",
				 cells[c], TIMESERIES_POINTS);
			audit_chart_begin(t, &ts, title, "call", "latency", tx, tl, 2);
			int k = 0;
			for (size_t i = 0; i < ca->nruns; i++) {
				const struct run *r = &ca->runs[i];
				if (!r->analysed || !r->nts || strcmp(r->arm, arms[a]) != 0 || strcmp(r->cell, cells[c]) != 0)
					continue;
				audit_chart_polyline(t, &ts, r->ts_x, r->ts_y, r->nts, "timeseries", audit_chart_colour((size_t)k), r->name);
				audit_chart_legend(t, &ts, k, audit_chart_colour((size_t)k), r->name);
				k++;
			}
			audit_chart_end(t);
		}
		audit_text_add(t, "</section>\n");
	}
	audit_text_add(t, "</body></html>\n");
}

static json_t *scales_json(const struct campaign_audit *ca)
{
	uint64_t lo = 0, hi = 0;
	size_t n = 0;
	for (size_t i = 0; i < ca->nruns; i++) {
		uint64_t hz = ca->runs[i].source_hz;
		if (!ca->runs[i].analysed || !hz)
			continue;
		lo = !n || hz < lo ? hz : lo;
		hi = !n || hz > hi ? hz : hi;
		n++;
	}
	json_t *o = json_pack("{s:I}", "runs", (json_int_t)n);
	if (n) {
		json_object_set_new(o, "min_hz", json_integer((json_int_t)lo));
		json_object_set_new(o, "max_hz", json_integer((json_int_t)hi));
		json_object_set_new(o, "spread_ppm", ev_json_decimal((unsigned __int128)(hi - lo) * 1000000u, lo, 3));
	}
	return o;
}

static json_t *cells_json(const struct campaign_audit *ca)
{
	const char *arms[64], *cells[256];
	size_t na = arms_of(ca, arms, 64), nc = cells_of(ca, cells, 256);
	json_t *out = json_array();
	for (size_t a = 0; a < na; a++)
		for (size_t c = 0; c < nc; c++) {
			struct cell_summary cs;
			summarise_cell(ca, arms[a], cells[c], &cs);
			if (!cs.runs)
				continue;
			json_t *med = json_object();
			for (int k = 0; k < NQ; k++)
				json_object_set_new(med, q_names[k], ev_json_decimal_of(cs.q[k], 9));
			json_object_set_new(med, "mean", ev_json_decimal_of(cs.mean, 9));
			json_array_append_new(out, json_pack("{s:s, s:s, s:I, s:s, s:s, s:o, s:I}", "arm", arms[a], "cell",
							     cells[c], "runs", (json_int_t)cs.runs, "rule", cs.rule ? cs.rule : "",
							     "unit", cs.unit, "median_of_runs", med, "largest_max",
							     (json_int_t)cs.largest_max));
		}
	return out;
}

/* What this campaign's pass means: per run, what could be recomputed;
 * the journals, audited here or left (named). */
static json_t *campaign_coverage(const struct campaign_audit *ca)
{
	json_t *o = json_object(), *done = json_array(), *not = json_array();
	size_t series = 0, without = 0;
	for (size_t i = 0; i < ca->nruns; i++)
		if (ca->runs[i].analysed)
			series++;
		else
			without++;
	char text[256];
	snprintf(text, sizeof text, "%zu run%s: every sample of the raw series read, every printed statistic compared "
		 "or named not recomputable (each run's native.coverage in summary.json)", series, series == 1 ? "" : "s");
	json_array_append_new(done, json_string(text));
	if (ca->journals_audited) {
		snprintf(text, sizeof text, "both journals of %zu run%s audited as audit journal does (audit-journal.json)",
			 ca->journal_pairs, ca->journal_pairs == 1 ? "" : "s");
		json_array_append_new(done, json_string(text));
	}
	if (without) {
		snprintf(text, sizeof text, "%zu run%s without a raw series: the printed statistics shown, only the sample "
			 "count compared (with the plan)", without, without == 1 ? "" : "s");
		json_array_append_new(not, json_string(text));
	}
	if (ca->journals_left) {
		snprintf(text, sizeof text, "the journals of %zu runs: their counts differ, left to audit journal, run by run",
			 ca->journal_pairs);
		json_array_append_new(not, json_string(text));
	}
	json_object_set_new(o, "recomputed", done);
	json_object_set_new(o, "not_checked", not);
	return o;
}

static ev_status publish(struct campaign_audit *ca, const char *name, const char *bytes, size_t len,
			 struct ev_error *err)
{
	char path[PATH_MAX];
	uint8_t d[EV_SHA256_LEN];
	char hex[EV_SHA256_HEX_LEN + 1];
	if (ev_path_join(path, sizeof path, ca->tmpdir, name) != 0)
		return ev_error_set(err, EV_USAGE, "%s: path too long", ca->out);
	ev_status st = ev_publish_bytes(path, bytes, len, 0644, err);
	if (st == EV_OK && (st = ev_sha256_buffer(bytes, len, d, err)) == EV_OK) {
		ev_sha256_hex(d, hex);
		char final[PATH_MAX];
		ev_path_join(final, sizeof final, ca->out, name);
		st = ev_receipt_add_output(ca->receipt, name, final, hex, err);
	}
	return st;
}

static ev_status run_campaign(struct campaign_audit *ca, struct ev_error *err)
{
	char plan[PATH_MAX];
	ev_status st;
	struct ev_outdir od = {0};
	struct text md = {0}, html = {0};
	json_t *summary = NULL;
	int opened = 0;
	if (!(ca->receipt = ev_receipt_new("audit", TOOL, err)))
		return err->status;
	ev_path_join(plan, sizeof plan, ca->dir, "plan.json");
	if (access(plan, F_OK) == 0 && (st = ev_json_load(plan, "evidence-plan/1", 0, &ca->plan, NULL, NULL, NULL, err)) != EV_OK)
		goto out;
	if ((st = load_runs(ca, err)) != EV_OK)
		goto out;
	if (!ca->nruns) {
		st = ev_error_set(err, EV_USAGE, "%s: no run with a run.json", ca->dir);
		goto out;
	}
	if ((st = ev_outdir_open(&od, ca->out, err)) != EV_OK)
		goto out;
	opened = 1;
	char parent[PATH_MAX];
	snprintf(parent, sizeof parent, "%s", ca->out);
	if (ev_path_join(ca->tmpdir, sizeof ca->tmpdir, dirname(parent), od.tmp_name) != 0) {
		st = ev_error_set(err, EV_USAGE, "%s: path too long", ca->out);
		goto out;
	}
	for (size_t i = 0; i < ca->nruns && st == EV_OK && !ev_cli_interrupted; i++) {
		if (isatty(2))
			fprintf(stderr, "\r\033[K" TOOL ": run %zu of %zu: %s", i + 1, ca->nruns, ca->runs[i].name);
		st = analyse_run(ca, &ca->runs[i], err);
	}
	if (isatty(2))
		fprintf(stderr, "\r\033[K");
	if (st == EV_OK && !ev_cli_interrupted)
		st = audit_journals(ca, err);
	if (st == EV_OK && ev_cli_interrupted)
		st = ev_error_set(err, EV_INTERRUPTED, "%s: interrupted by a signal; nothing is claimed", ca->dir);
	if (st != EV_OK)
		goto out;
	const char *name = ca->plan ? json_string_value(json_object_get(ca->plan, "name")) : NULL;
	json_t *runs = json_array();
	for (size_t i = 0; i < ca->nruns; i++)
		json_array_append(runs, ca->runs[i].json);
	summary = json_pack("{s:s, s:s, s:o, s:o, s:o}", "format", "evidence-campaign-summary/1", "campaign",
			    name ? name : "", "cells", cells_json(ca), "runs", runs, "conversion_scales", scales_json(ca));
	if (ca->journals_audited)
		json_object_set_new(summary, "journal_findings", json_integer((json_int_t)ca->journal_findings));
	char *bytes = NULL;
	size_t len = 0;
	if ((st = ev_json_dump(summary, &bytes, &len, err)) == EV_OK)
		st = publish(ca, "summary.json", bytes, len, err);
	if (st == EV_OK && ca->json)
		fwrite(bytes, 1, len, stdout);
	free(bytes);
	write_markdown(ca, &md, summary);
	write_html(ca, &html, name ? name : "");
	if (md.oom || html.oom) {
		st = ev_error_set(err, EV_ERROR, "out of memory for the report");
		goto out;
	}
	if (st == EV_OK)
		st = publish(ca, "summary.md", md.s, md.n, err);
	if (st == EV_OK)
		st = publish(ca, "report.html", html.s, html.n, err);
	if (st == EV_OK && ca->journals_audited) {
		char path[PATH_MAX], final[PATH_MAX];
		ev_path_join(path, sizeof path, ca->tmpdir, "audit-journal.json");
		ev_path_join(final, sizeof final, ca->out, "audit-journal.json");
		uint8_t d[EV_SHA256_LEN];
		char hex[EV_SHA256_HEX_LEN + 1];
		if ((st = ev_sha256_path(path, d, NULL, err)) == EV_OK) {
			ev_sha256_hex(d, hex);
			st = ev_receipt_add_output(ca->receipt, "audit-journal.json", final, hex, err);
		}
	}
	ev_receipt_set_fact(ca->receipt, "campaign", json_string(name ? name : ""), err);
	ev_receipt_set_fact(ca->receipt, "runs", json_integer((json_int_t)ca->nruns), err);
	ev_receipt_set_fact(ca->receipt, "coverage", campaign_coverage(ca), err);
	if (st == EV_OK && (st = ev_receipt_finish(ca->receipt, err)) == EV_OK) {
		char *rb = NULL;
		size_t rlen = 0;
		char path[PATH_MAX];
		ev_path_join(path, sizeof path, ca->tmpdir, "receipt.json");
		if ((st = ev_json_dump(ca->receipt, &rb, &rlen, err)) == EV_OK)
			st = ev_publish_bytes(path, rb, rlen, 0644, err);
		free(rb);
	}
	/* the last moment a signal can keep the outputs from appearing */
	if (st == EV_OK && ev_cli_interrupted)
		st = ev_error_set(err, EV_INTERRUPTED, "%s: interrupted by a signal; nothing is claimed", ca->dir);
	if (st == EV_OK && (st = ev_outdir_commit(&od, 0755, err)) == EV_OK) {
		opened = 0;
		if (!ca->json) {
			fwrite(md.s, 1, md.n, stdout);
			printf("\nreport: %s/report.html\n", ca->out);
		}
		const char *result = json_string_value(json_object_get(ca->receipt, "result"));
		fprintf(ca->json ? stderr : stdout, "%s: %zu runs; summary %s\n",
			strcmp(result, "pass") == 0 ? "OK" : "FAIL", ca->nruns, ca->out);
		st = strcmp(result, "pass") == 0 ? EV_OK : EV_MISMATCH;
	}
out:
	if (opened)
		ev_outdir_abort(&od);
	audit_text_free(&md);
	audit_text_free(&html);
	json_decref(summary);
	for (size_t i = 0; ca->runs && i < ca->nruns; i++)
		json_decref(ca->runs[i].json);
	free(ca->runs);
	json_decref(ca->plan);
	json_decref(ca->receipt);
	return st;
}

int audit_campaign_main(int argc, char **argv)
{
	struct campaign_audit ca = {0};
	int c;
	struct ev_cli_getopt opts;
	ev_cli_getopt_init(&opts, &audit_tool, "campaign");
	optind = 1;
	while ((c = getopt_long(argc, argv, opts.shortopts, opts.longopts, NULL)) != -1) {
		switch (c) {
		case 'h': return ev_cli_help(&audit_tool, "campaign");
		case 'j': ca.json = 1; break;
		case 'o': ca.out = optarg; break;
		default: return ev_cli_usage(&audit_tool, "campaign", "%s", ev_cli_option_problem(argv));
		}
	}
	if (optind + 1 != argc)
		return ev_cli_usage(&audit_tool, "campaign", optind == argc ? "no campaign directory given" : "one campaign at a time");
	if (!ca.out)
		return ev_cli_usage(&audit_tool, "campaign", "no output directory given (-o OUTDIR)");
	ca.dir = argv[optind];
	struct ev_error err;
	ev_error_clear(&err);
	ev_cli_catch_signals();
	ev_status st = run_campaign(&ca, &err);
	if (st >= EV_ERROR)
		ev_cli_error(TOOL, &err);
	return ev_status_exit_code(st);
}
