/* audit compare: two arms, two cells or two campaigns, compared run for
 * run from what audit campaign recomputed (summary.json): per statistic
 * both medians of runs, their ratio and difference, every run's value,
 * the range of each side, a bootstrap interval over runs
 * (lib/stats/bootstrap), and a verdict that claims an order only when
 * every run of one side is below every run of the other. */
#include "config.h"

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

#include "audit/audit.h"
#include "audit/compare_table.h"
#include "audit/svg.h"
#include "lib/receipt/signature.h"
#include "lib/core/json.h"
#include "lib/core/path.h"
#include "lib/core/publish.h"
#include "lib/core/sha256.h"
#include "lib/receipt/receipt.h"
#include "lib/stats/bootstrap.h"

#define NSTATS 6
#define CONFIDENCE 0.95
#define SUMMARY_FORMAT "evidence-campaign-summary/1"
#define COMPARISON_FORMAT "evidence-run-comparison/1"

static const char *const stat_names[NSTATS] = {"p50", "p95", "p99", "p99.9", "mean", "max"};

struct compare_opts {
	struct ev_signing_key *sign_key;
	const char *arm[2], *cell[2];
	int narm, ncell;
	const char *out;
	int json;
	uint64_t resamples, seed;
	const char *inputs[2];
	int ninputs;
	int mixed_grades;         /* --mixed-grades */
};

/* One summary as the user named it. */
struct side {
	const char *given;
	char summary[PATH_MAX]; /* its summary.json */
	char receipt[PATH_MAX]; /* audit campaign's receipt.json beside it */
	json_t *doc;
	char sha256[EV_SHA256_HEX_LEN + 1];
	const char *campaign;
};

/* The runs one arm and cell of a summary counts in its medians. */
struct group {
	const struct side *side;
	const char *arm, *cell, *unit, *rule;
	const json_t *cell_doc; /* its entry in the summary's cells */
	uint64_t ticks_per_second;
	size_t n;
	const char **names;
	double *v[NSTATS];
	const char *grade;      /* "quiet" when every run counted is, "diagnostic", or "ungraded" (an older summary) */
};

struct pair {
	struct group a, b;
	double med_a[NSTATS], med_b[NSTATS];
	struct ev_bootstrap_interval iv[NSTATS];
	const char *verdict[NSTATS];
};

static int mixed(const struct pair *p)
{
	return strcmp(p->a.grade, p->b.grade) != 0;
}

static ev_status load_side(struct side *s, const char *given, json_t *receipt, char which, struct ev_error *err)
{
	struct stat st;
	s->given = given;
	if (stat(given, &st) == 0 && S_ISDIR(st.st_mode)) {
		if (ev_path_join(s->summary, sizeof s->summary, given, "summary.json") != 0 ||
		    ev_path_join(s->receipt, sizeof s->receipt, given, "receipt.json") != 0)
			return ev_error_set(err, EV_USAGE, "%s: path too long", given);
	} else {
		char dir[PATH_MAX];
		snprintf(s->summary, sizeof s->summary, "%s", given);
		snprintf(dir, sizeof dir, "%s", given);
		if (ev_path_join(s->receipt, sizeof s->receipt, dirname(dir), "receipt.json") != 0)
			return ev_error_set(err, EV_USAGE, "%s: path too long", given);
	}
	uint8_t d[EV_SHA256_LEN];
	ev_status rc = ev_json_load(s->summary, SUMMARY_FORMAT, 0, &s->doc, d, NULL, NULL, err);
	if (rc != EV_OK)
		return ev_error_wrap(err, "summary %c (audit campaign's summary.json, or its OUTDIR)", which);
	ev_sha256_hex(d, s->sha256);
	s->campaign = json_string_value(json_object_get(s->doc, "campaign"));
	if (!s->campaign || !json_is_array(json_object_get(s->doc, "cells")) ||
	    !json_is_array(json_object_get(s->doc, "runs")))
		return ev_error_set(err, EV_USAGE, "%s: expected campaign, cells and runs in a campaign summary", s->summary);
	/* audit campaign lists each arm and cell once: a repeat would be
	 * compared twice, its runs counted twice */
	const json_t *cells = json_object_get(s->doc, "cells"), *a, *b;
	size_t i, k;
	json_array_foreach(cells, i, a)
		for (k = 0; k < i; k++) {
			b = json_array_get(cells, k);
			const char *arm = json_string_value(json_object_get(a, "arm")), *cell = json_string_value(json_object_get(a, "cell"));
			if (arm && cell && strcmp(arm, json_string_value(json_object_get(b, "arm")) ?: "") == 0 &&
			    strcmp(cell, json_string_value(json_object_get(b, "cell")) ?: "") == 0)
				return ev_error_set(err, EV_USAGE, "%s: cells[%zu]: arm %s, cell %s is listed twice (also cells[%zu]); "
						    "refused: audit campaign lists each once, so this summary was edited", s->summary,
						    i, arm, cell, k);
		}
	char name[32];
	snprintf(name, sizeof name, "summary %c", which);
	return ev_receipt_add_input(receipt, name, s->summary, s->sha256, err);
}

/* The audit behind a summary: its receipt, when audit campaign's OUTDIR
 * still holds it, must have passed and name these very bytes; without
 * one, the coverage says the summary was taken as written. */
static ev_status check_side_receipt(const struct side *s, char which, json_t *receipt, json_t *not_checked,
				    struct ev_error *err)
{
	struct stat st;
	char check[64], text[PATH_MAX + 256];
	snprintf(check, sizeof check, "summary %c audited", which);
	if (lstat(s->receipt, &st) != 0) {
		snprintf(text, sizeof text, "summary %c (%s): no audit campaign receipt.json beside it, so whether its "
			 "audit passed and these are its bytes is not checked", which, s->summary);
		json_array_append_new(not_checked, json_string(text));
		return EV_OK;
	}
	json_t *r = NULL;
	uint8_t d[EV_SHA256_LEN];
	char hex[EV_SHA256_HEX_LEN + 1];
	ev_status rc = ev_receipt_load(s->receipt, &r, d, err);
	if (rc != EV_OK)
		return rc;
	ev_sha256_hex(d, hex);
	snprintf(text, sizeof text, "receipt of summary %c", which);
	rc = ev_receipt_add_input(receipt, text, s->receipt, hex, err);
	const char *named = NULL;
	size_t i;
	json_t *o;
	json_array_foreach(json_object_get(r, "outputs"), i, o)
		if (strcmp(json_string_value(json_object_get(o, "name")) ?: "", "summary.json") == 0)
			named = json_string_value(json_object_get(o, "sha256"));
	const char *kind = json_string_value(json_object_get(r, "kind")), *result = json_string_value(json_object_get(r, "result"));
	int holds = ev_receipt_comparable_holds(r, err);
	if (holds < 0)
		rc = err->status;
	else if (!holds)
		snprintf(text, sizeof text, "receipt.json was edited: its comparable digest no longer matches its content");
	else if (strcmp(kind ?: "", "audit") != 0 || !named)
		snprintf(text, sizeof text, "receipt.json beside it is not audit campaign's receipt (no summary.json among its outputs)");
	else if (strcmp(named, s->sha256) != 0)
		snprintf(text, sizeof text, "summary.json changed after its audit: its SHA-256 is %s, its receipt names %s",
			 s->sha256, named);
	else if (strcmp(result ?: "", "pass") != 0)
		snprintf(text, sizeof text, "its audit campaign receipt says %s: some run, series or journal did not hold",
			 result ?: "nothing");
	else
		snprintf(text, sizeof text, "its audit campaign receipt passed and names these bytes");
	int pass = holds == 1 && strcmp(kind ?: "", "audit") == 0 && named && strcmp(named, s->sha256) == 0 &&
		   strcmp(result ?: "", "pass") == 0;
	if (rc == EV_OK)
		rc = ev_receipt_add_check(receipt, check, pass, text, err);
	if (!pass && rc == EV_OK)
		fprintf(stderr, TOOL ": summary %c: %s: %s\n", which, s->summary, text);
	json_decref(r);
	return rc;
}

/* A statistic as summary.json writes it: an integer, or a decimal string. */
static int number_of(const json_t *v, double *out)
{
	if (json_is_integer(v)) {
		*out = (double)json_integer_value(v);
		return 0;
	}
	const char *s = json_string_value(v);
	char *end;
	if (!s || !*s)
		return -1;
	errno = 0;
	*out = strtod(s, &end);
	return *end || errno ? -1 : 0;
}

static void group_free(struct group *g)
{
	free(g->names);
	for (int k = 0; k < NSTATS; k++)
		free(g->v[k]);
}

/* The runs of arm and cell that side's summary counts, in its order. */
static ev_status group_load(struct group *g, const struct side *s, const json_t *cell_doc, struct ev_error *err)
{
	memset(g, 0, sizeof *g);
	g->side = s;
	g->cell_doc = cell_doc;
	g->arm = json_string_value(json_object_get(cell_doc, "arm"));
	g->cell = json_string_value(json_object_get(cell_doc, "cell"));
	g->unit = json_string_value(json_object_get(cell_doc, "unit")) ?: "";
	g->rule = json_string_value(json_object_get(cell_doc, "rule")) ?: "";
	const char *source = json_string_value(json_object_get(cell_doc, "source"));
	if (source && strcmp(source, "recomputed") != 0)
		return ev_error_set(err, EV_USAGE, "%s: arm %s, cell %s: its figures are %s; audit compare compares only "
				    "statistics recomputed from raw series (compare the printed blocks by eye, or keep a series)",
				    s->summary, g->arm ?: "?", g->cell ?: "?", source);
	const json_t *runs = json_object_get(s->doc, "runs");
	size_t cap = json_array_size(runs) + 1, i;
	json_t *r;
	g->names = calloc(cap, sizeof *g->names);
	for (int k = 0; k < NSTATS; k++)
		g->v[k] = calloc(cap, sizeof *g->v[k]);
	if (!g->names || !g->v[NSTATS - 1])
		return ev_error_set(err, EV_ERROR, "out of memory");
	json_array_foreach(runs, i, r) {
		const char *name = json_string_value(json_object_get(r, "name")) ?: "?";
		if (strcmp(json_string_value(json_object_get(r, "arm")) ?: "", g->arm) != 0 ||
		    strcmp(json_string_value(json_object_get(r, "cell")) ?: "", g->cell) != 0)
			continue;
		json_t *in = json_object_get(r, "in_cell_median");
		if (!json_is_boolean(in))
			return ev_error_set(err, EV_USAGE, "%s: run %s has no in_cell_median: the summary was written by an "
					    "audit campaign older than audit compare; audit the campaign again", s->summary, name);
		if (!json_is_true(in))
			continue;
		json_t *rec = json_object_get(r, "recomputed"), *q = json_object_get(rec, "quantiles");
		for (int k = 0; k < NSTATS; k++) {
			const json_t *v = k < 4 ? json_object_get(q, stat_names[k]) : json_object_get(rec, stat_names[k]);
			if (number_of(v, &g->v[k][g->n]) != 0)
				return ev_error_set(err, EV_USAGE, "%s: run %s: expected its recomputed %s as a number, found %s",
						    s->summary, name, stat_names[k], v ? "another value" : "nothing");
		}
		const char *grade = json_string_value(json_object_get(r, "grade"));
		if (!grade || (strcmp(grade, "quiet") != 0 && strcmp(grade, "diagnostic") != 0))
			g->grade = "ungraded";
		else if (!g->grade || (strcmp(g->grade, "quiet") == 0 && strcmp(grade, "diagnostic") == 0))
			g->grade = g->grade && strcmp(g->grade, "ungraded") == 0 ? g->grade : grade;
		json_int_t tps = json_integer_value(json_object_get(json_object_get(r, "series"), "ticks_per_second"));
		g->ticks_per_second = (uint64_t)tps;
		g->names[g->n++] = name;
	}
	if (!g->grade)
		g->grade = "ungraded";
	return EV_OK;
}

/* The summary's own medians of this group, held against its runs. */
static ev_status check_group_medians(const struct group *g, char which, json_t *receipt, struct ev_error *err)
{
	char check[256], detail[512] = "";
	snprintf(check, sizeof check, "summary %c arm %s cell %s: medians of its runs", which, g->arm, g->cell);
	json_t *med = json_object_get(g->cell_doc, "median_of_runs");
	json_int_t runs = json_integer_value(json_object_get(g->cell_doc, "runs"));
	if ((size_t)runs != g->n)
		snprintf(detail, sizeof detail, "its cell counts %lld runs, its runs say %zu", (long long)runs, g->n);
	for (int k = 0; k < 5 && !detail[0] && g->n; k++) {
		double *tmp = malloc(g->n * sizeof *tmp);
		if (!tmp)
			return ev_error_set(err, EV_ERROR, "out of memory");
		memcpy(tmp, g->v[k], g->n * sizeof *tmp);
		json_t *mine = ev_json_decimal_of(ev_median(tmp, g->n), 9);
		free(tmp);
		const char *theirs = json_string_value(json_object_get(med, stat_names[k]));
		if (!theirs || strcmp(theirs, json_string_value(mine)) != 0)
			snprintf(detail, sizeof detail, "%s: the cell says %s, the median of its runs is %s", stat_names[k],
				 theirs ?: "nothing", json_string_value(mine));
		json_decref(mine);
	}
	if (detail[0])
		fprintf(stderr, TOOL ": summary %c: %s: arm %s cell %s: %s\n", which, g->side->summary, g->arm, g->cell, detail);
	return ev_receipt_add_check(receipt, check, !detail[0], detail[0] ? detail : "the cell's medians are its runs'", err);
}

static void range_of(const double *v, size_t n, double *lo, double *hi)
{
	*lo = *hi = v[0];
	for (size_t i = 1; i < n; i++) {
		*lo = v[i] < *lo ? v[i] : *lo;
		*hi = v[i] > *hi ? v[i] : *hi;
	}
}

static const char *verdict_of(const double *a, size_t na, const double *b, size_t nb)
{
	double alo, ahi, blo, bhi;
	range_of(a, na, &alo, &ahi);
	range_of(b, nb, &blo, &bhi);
	if (ahi < blo)
		return "A lower in every run";
	if (bhi < alo)
		return "B lower in every run";
	return "inconclusive: runs overlap";
}

static ev_status compare_pair(struct pair *p, const struct compare_opts *o, struct ev_error *err)
{
	for (int k = 0; k < NSTATS; k++) {
		double *ta = malloc(p->a.n * sizeof *ta), *tb = malloc(p->b.n * sizeof *tb);
		if (!ta || !tb) {
			free(ta);
			free(tb);
			return ev_error_set(err, EV_ERROR, "out of memory");
		}
		memcpy(ta, p->a.v[k], p->a.n * sizeof *ta);
		memcpy(tb, p->b.v[k], p->b.n * sizeof *tb);
		p->med_a[k] = ev_median(ta, p->a.n);
		p->med_b[k] = ev_median(tb, p->b.n);
		free(ta);
		free(tb);
		p->verdict[k] = verdict_of(p->a.v[k], p->a.n, p->b.v[k], p->b.n);
	}
	return ev_bootstrap_runs((const double *const *)p->a.v, p->a.n, (const double *const *)p->b.v, p->b.n, NSTATS,
				 o->resamples, o->seed, CONFIDENCE, p->iv, &ev_cli_interrupted, err);
}

/* The decimal text canonical JSON holds; never "-0". */
static json_t *decimal(double v)
{
	return ev_json_decimal_of(v == 0 ? 0 : v, 9);
}

static json_t *side_json(const struct group *g, int k, double median)
{
	json_t *runs = json_array();
	double lo, hi;
	range_of(g->v[k], g->n, &lo, &hi);
	for (size_t i = 0; i < g->n; i++)
		json_array_append_new(runs, json_pack("{s:s, s:o}", "run", g->names[i], "value", decimal(g->v[k][i])));
	return json_pack("{s:o, s:o, s:o, s:o}", "median", decimal(median), "min", decimal(lo), "max", decimal(hi),
			 "runs", runs);
}

static json_t *pair_json(const struct pair *p)
{
	json_t *stats = json_array();
	for (int k = 0; k < NSTATS; k++) {
		const struct ev_bootstrap_interval *iv = &p->iv[k];
		json_t *s = json_pack("{s:s, s:o, s:o, s:o, s:s}", "name", stat_names[k], "a", side_json(&p->a, k, p->med_a[k]),
				      "b", side_json(&p->b, k, p->med_b[k]), "difference_b_minus_a",
				      decimal(p->med_b[k] - p->med_a[k]), "verdict", p->verdict[k]);
		json_object_set_new(s, "ratio_b_over_a", p->med_a[k] != 0 ? decimal(p->med_b[k] / p->med_a[k]) : json_null());
		json_object_set_new(s, "interval_difference", json_pack("[o, o]", decimal(iv->diff_lo), decimal(iv->diff_hi)));
		json_object_set_new(s, "interval_ratio", iv->ratio_defined ?
				    json_pack("[o, o]", decimal(iv->ratio_lo), decimal(iv->ratio_hi)) : json_null());
		json_array_append_new(stats, s);
	}
	return json_pack("{s:{s:s, s:s, s:I, s:s}, s:{s:s, s:s, s:I, s:s}, s:s, s:s, s:b, s:o}", "a", "arm", p->a.arm,
			 "cell", p->a.cell, "runs", (json_int_t)p->a.n, "grade", p->a.grade, "b", "arm", p->b.arm, "cell",
			 p->b.cell, "runs", (json_int_t)p->b.n, "grade", p->b.grade, "unit", p->a.unit, "rule", p->a.rule,
			 "mixed_grades", mixed(p), "statistics", stats);
}

static void fmt_value(char *buf, size_t cap, double v)
{
	snprintf(buf, cap, v == floor(v) && fabs(v) < 1e15 ? "%.0f" : "%.1f", v == 0 ? 0 : v);
}

static void fmt_signed(char *buf, size_t cap, double v)
{
	if (v == 0)
		snprintf(buf, cap, "0");
	else
		snprintf(buf, cap, v == floor(v) && fabs(v) < 1e15 ? "%+.0f" : "%+.1f", v);
}

static const char *pair_title(const struct pair *p, char *buf, size_t cap)
{
	int n = snprintf(buf, cap, "A arm %s cell %s (%zu run%s) against B arm %s cell %s (%zu run%s), in %s", p->a.arm,
			 p->a.cell, p->a.n, p->a.n == 1 ? "" : "s", p->b.arm, p->b.cell, p->b.n, p->b.n == 1 ? "" : "s",
			 p->a.unit);
	if (mixed(p) && n > 0 && (size_t)n < cap)
		snprintf(buf + n, cap - (size_t)n, "; MIXED GRADES: A %s, B %s (--mixed-grades)", p->a.grade, p->b.grade);
	return buf;
}

/* The pair's statistics table, then every run's values. */
static void pair_tables(const struct pair *p, struct compare_table *stats, struct compare_table *runs)
{
	static const char *const head[] = {"statistic", "A median", "A min-max", "B median", "B min-max", "B/A",
					   "95% of B/A", "B-A", "95% of B-A", "verdict"};
	static const int right[] = {0, 1, 1, 1, 1, 1, 1, 1, 1, 0};
	static const int in_unit[] = {0, 1, 1, 1, 1, 0, 0, 1, 1, 0}; /* ratios have none */
	compare_table_init(stats, 10, head, right, in_unit, p->a.unit);
	for (int k = 0; k < NSTATS; k++) {
		char c[10][112], lo[48], hi[48];
		const struct ev_bootstrap_interval *iv = &p->iv[k];
		double alo, ahi, blo, bhi;
		range_of(p->a.v[k], p->a.n, &alo, &ahi);
		range_of(p->b.v[k], p->b.n, &blo, &bhi);
		snprintf(c[0], sizeof c[0], "%s", stat_names[k]);
		fmt_value(c[1], sizeof c[1], p->med_a[k]);
		fmt_value(lo, sizeof lo, alo);
		fmt_value(hi, sizeof hi, ahi);
		snprintf(c[2], sizeof c[2], "%s-%s", lo, hi);
		fmt_value(c[3], sizeof c[3], p->med_b[k]);
		fmt_value(lo, sizeof lo, blo);
		fmt_value(hi, sizeof hi, bhi);
		snprintf(c[4], sizeof c[4], "%s-%s", lo, hi);
		if (p->med_a[k] != 0)
			snprintf(c[5], sizeof c[5], "%.3f", p->med_b[k] / p->med_a[k]);
		else
			snprintf(c[5], sizeof c[5], "none");
		if (iv->ratio_defined)
			snprintf(c[6], sizeof c[6], "%.3f to %.3f", iv->ratio_lo, iv->ratio_hi);
		else
			snprintf(c[6], sizeof c[6], "none");
		fmt_signed(c[7], sizeof c[7], p->med_b[k] - p->med_a[k]);
		fmt_signed(lo, sizeof lo, iv->diff_lo);
		fmt_signed(hi, sizeof hi, iv->diff_hi);
		snprintf(c[8], sizeof c[8], "%s to %s", lo, hi);
		snprintf(c[9], sizeof c[9], "%s", p->verdict[k]);
		const char *row[10];
		for (int i = 0; i < 10; i++)
			row[i] = c[i];
		compare_table_row(stats, row);
	}
	static const char *const rhead[] = {"run", "side", "p50", "p95", "p99", "p99.9", "mean", "max"};
	static const int rright[] = {0, 0, 1, 1, 1, 1, 1, 1};
	compare_table_init(runs, 8, rhead, rright, rright, p->a.unit);
	for (int s = 0; s < 2; s++) {
		const struct group *g = s ? &p->b : &p->a;
		for (size_t i = 0; i < g->n; i++) {
			char c[NSTATS][48];
			const char *row[8] = {g->names[i], s ? "B" : "A"};
			for (int k = 0; k < NSTATS; k++) {
				fmt_value(c[k], sizeof c[k], g->v[k][i]);
				row[2 + k] = c[k];
			}
			compare_table_row(runs, row);
		}
	}
}

/* Every run of both sides, each statistic a column, on one log scale:
 * A's runs left, B's right, each side's median a bar. */
static void pair_chart(const struct pair *p, struct text *h)
{
	double lo = 1e300, hi = 1;
	for (int s = 0; s < 2; s++) {
		const struct group *g = s ? &p->b : &p->a;
		for (int k = 0; k < NSTATS; k++)
			for (size_t i = 0; i < g->n; i++) {
				double v = g->v[k][i] > 0 ? g->v[k][i] : 1;
				lo = v < lo ? v : lo;
				hi = v > hi ? v : hi;
			}
	}
	if (lo > hi)
		lo = 1;
	struct chart c = {-0.5, NSTATS - 0.5, lo * 0.8, hi * 1.25, 0, 1, 760, 340, 70, 20, 30, 40};
	double xs[NSTATS];
	for (int k = 0; k < NSTATS; k++)
		xs[k] = k;
	char ylabel[64];
	snprintf(ylabel, sizeof ylabel, "value (%s)", p->a.unit);
	audit_chart_begin(h, &c, "Every run, A (left) and B (right); a bar: the median of runs", "statistic", ylabel, xs,
			  stat_names, NSTATS);
	for (int s = 0; s < 2; s++) {
		const struct group *g = s ? &p->b : &p->a;
		const char *colour = audit_chart_colour(s ? 1 : 0);
		double off = s ? 0.15 : -0.15;
		for (int k = 0; k < NSTATS; k++) {
			for (size_t i = 0; i < g->n; i++) {
				char tip[256];
				snprintf(tip, sizeof tip, "%s %s: %s %.1f %s", s ? "B" : "A", g->names[i], stat_names[k], g->v[k][i],
					 p->a.unit);
				audit_chart_dot(h, &c, k + off, g->v[k][i] > 0 ? g->v[k][i] : 1, s ? "run-b" : "run-a", colour, tip);
			}
			double m = s ? p->med_b[k] : p->med_a[k], y = audit_chart_y(&c, m > 0 ? m : 1), x = audit_chart_x(&c, k + off);
			audit_text_add(h, "<line class=\"median\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
				       "stroke-width=\"3\"/>\n", x - 12, x + 12, y, y, colour);
		}
		audit_chart_legend(h, &c, s, colour, s ? "B" : "A");
	}
	audit_chart_end(h);
}

static void html_head(struct text *h, const struct side *sa, const struct side *sb, const struct compare_opts *o)
{
	audit_text_add(h, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>Comparison</title>\n"
		       "<style>body{font-family:sans-serif;margin:1em 2vw;color:#222}svg{display:block;margin:1em 0;"
		       "max-width:1400px}.wide{overflow-x:auto;max-width:100%%}table{border-collapse:collapse;margin:.5em 0 1em}"
		       "caption{text-align:left;font-weight:bold;padding:.3em 0}th,td{padding:.2em .6em;border-bottom:1px solid "
		       "#ddd;text-align:right;white-space:nowrap}th:first-child,td:first-child{text-align:left}"
		       "table.provenance td{text-align:left;white-space:normal;overflow-wrap:anywhere}table.provenance th{text-align:left}"
		       "</style></head><body>\n<h1>Comparison</h1>\n<div class=\"wide\"><table class=\"provenance\"><tbody>\n");
	const struct side *sides[2] = {sa, sb};
	for (int s = 0; s < 2; s++) {
		audit_text_add(h, "<tr><th scope=\"row\">%s</th><td>campaign ", s ? "B" : "A");
		audit_text_escaped(h, sides[s]->campaign);
		audit_text_add(h, ", summary SHA-256 %s</td></tr>\n", sides[s]->sha256);
	}
	audit_text_add(h, "<tr><th scope=\"row\">bootstrap</th><td>%" PRIu64 " resamples of runs per side, seed %" PRIu64
		       ", 95%% percentile interval</td></tr>\n</tbody></table></div>\n<p>Each statistic is the median of the "
		       "runs' own values (never a quantile of pooled samples). \"A lower in every run\" means every run of A is "
		       "below every run of B; \"inconclusive\" means the runs of the two sides overlap.</p>\n",
		       o->resamples, o->seed);
}

static void write_reports(const struct compare_opts *o, const struct side *sa, const struct side *sb,
			  struct pair *pairs, size_t npairs, const json_t *unpaired, struct text *md, struct text *txt,
			  struct text *h)
{
	html_head(h, sa, sb, o);
	char title[512];
	audit_text_add(md, "# Comparison\n\n");
	audit_text_add(md, "- A: campaign %s, summary SHA-256 %s\n", sa->campaign, sa->sha256);
	audit_text_add(md, "- B: campaign %s, summary SHA-256 %s\n", sb->campaign, sb->sha256);
	audit_text_add(md, "- bootstrap: %" PRIu64 " resamples of runs per side, seed %" PRIu64 ", 95%% percentile interval\n",
		       o->resamples, o->seed);
	audit_text_add(md, "\nEach statistic is the median of the runs' own values (never a quantile of pooled samples). "
		       "\"A lower in every run\" means every run of A is below every run of B; \"inconclusive\" means the "
		       "runs of the two sides overlap.\n");
	audit_text_add(txt, "A: campaign %s (%s)\nB: campaign %s (%s)\n", sa->campaign, sa->summary, sb->campaign, sb->summary);
	audit_text_add(txt, "bootstrap: %" PRIu64 " resamples of runs per side, seed %" PRIu64 ", 95%% percentile interval\n",
		       o->resamples, o->seed);
	for (size_t i = 0; i < npairs; i++) {
		struct compare_table stats, runs;
		pair_tables(&pairs[i], &stats, &runs);
		pair_title(&pairs[i], title, sizeof title);
		audit_text_add(md, "\n## %s\n\n", title);
		compare_table_markdown(&stats, md);
		audit_text_add(md, "\nEvery run (%s):\n\n", pairs[i].a.unit);
		compare_table_markdown(&runs, md);
		audit_text_add(h, "<section class=\"pair\"><h2>");
		audit_text_escaped(h, title);
		audit_text_add(h, "</h2>\n");
		compare_table_html(&stats, h, "statistics", "Each statistic: medians of runs, ranges, ratio, difference, "
				   "bootstrap intervals, verdict");
		pair_chart(&pairs[i], h);
		compare_table_html(&runs, h, "runs", "Every run");
		audit_text_add(h, "</section>\n");
		audit_text_add(txt, "\n%s\n", title);
		compare_table_text(&stats, txt);
		audit_text_add(txt, "\n");
		compare_table_text(&runs, txt);
		compare_table_free(&stats);
		compare_table_free(&runs);
	}
	size_t k;
	json_t *u;
	json_array_foreach(unpaired, k, u) {
		audit_text_add(md, "%s- not compared: %s\n", k ? "" : "\n", json_string_value(u));
		audit_text_add(txt, "%snot compared: %s\n", k ? "" : "\n", json_string_value(u));
		audit_text_add(h, "<p class=\"not-compared\">not compared: ");
		audit_text_escaped(h, json_string_value(u));
		audit_text_add(h, "</p>\n");
	}
	audit_text_add(h, "</body></html>\n");
}

static int selected(const char *want, const char *have)
{
	return !want || strcmp(want, have) == 0;
}

static const json_t *cell_named(const struct side *s, const char *arm, const char *cell)
{
	size_t i;
	json_t *c;
	json_array_foreach(json_object_get(s->doc, "cells"), i, c)
		if (strcmp(json_string_value(json_object_get(c, "arm")) ?: "", arm) == 0 &&
		    strcmp(json_string_value(json_object_get(c, "cell")) ?: "", cell) == 0)
			return c;
	return NULL;
}

/* Two groups in one comparison must speak of the same thing. */
static ev_status comparable(const struct pair *p, struct ev_error *err)
{
	if (strcmp(p->a.unit, p->b.unit) != 0 || (strcmp(p->a.unit, "ticks") == 0 && p->a.ticks_per_second != p->b.ticks_per_second))
		return ev_error_set(err, EV_USAGE, "arm %s cell %s is in %s (%" PRIu64 " a second), arm %s cell %s in %s "
				    "(%" PRIu64 " a second): values on different scales are not compared", p->a.arm,
				    p->a.cell, p->a.unit, p->a.ticks_per_second, p->b.arm, p->b.cell, p->b.unit,
				    p->b.ticks_per_second);
	if (strcmp(p->a.rule, p->b.rule) != 0)
		return ev_error_set(err, EV_USAGE, "arm %s cell %s takes its quantiles by %s, arm %s cell %s by %s: "
				    "quantiles of different rules are not compared", p->a.arm, p->a.cell, p->a.rule,
				    p->b.arm, p->b.cell, p->b.rule);
	return EV_OK;
}

/* Every arm and cell of A that the options select, against its partner in
 * B (the other --arm or --cell, else the same names). */
static ev_status make_pairs(const struct compare_opts *o, const struct side *sa, const struct side *sb, json_t *receipt,
			    struct pair **out, size_t *nout, json_t *unpaired, struct ev_error *err)
{
	const json_t *cells = json_object_get(sa->doc, "cells");
	struct pair *pairs = calloc(json_array_size(cells) + 1, sizeof *pairs);
	size_t n = 0, i;
	json_t *c;
	ev_status st = EV_OK;
	char text[512];
	if (!pairs)
		return ev_error_set(err, EV_ERROR, "out of memory");
	json_array_foreach(cells, i, c) {
		const char *arm = json_string_value(json_object_get(c, "arm")) ?: "";
		const char *cell = json_string_value(json_object_get(c, "cell")) ?: "";
		if (!selected(o->narm ? o->arm[0] : NULL, arm) || !selected(o->ncell ? o->cell[0] : NULL, cell))
			continue;
		const char *arm_b = o->narm ? o->arm[1] : arm, *cell_b = o->ncell ? o->cell[1] : cell;
		const json_t *cb = cell_named(sb, arm_b, cell_b);
		if (!cb) {
			snprintf(text, sizeof text, "arm %s cell %s of A: B has no arm %s cell %s", arm, cell, arm_b, cell_b);
			json_array_append_new(unpaired, json_string(text));
			continue;
		}
		struct pair *p = &pairs[n];
		if ((st = group_load(&p->a, sa, c, err)) != EV_OK || (st = group_load(&p->b, sb, cb, err)) != EV_OK) {
			n++;
			break;
		}
		n++;
		if ((st = check_group_medians(&p->a, 'A', receipt, err)) != EV_OK)
			break;
		if ((sa != sb || p->a.cell_doc != p->b.cell_doc) && (st = check_group_medians(&p->b, 'B', receipt, err)) != EV_OK)
			break;
		if (!p->a.n || !p->b.n) {
			snprintf(text, sizeof text, "arm %s cell %s of A (%zu runs) against arm %s cell %s of B (%zu runs): a side "
				 "has no run that held", arm, cell, p->a.n, arm_b, cell_b, p->b.n);
			json_array_append_new(unpaired, json_string(text));
			group_free(&p->a);
			group_free(&p->b);
			n--;
			continue;
		}
		if ((st = comparable(p, err)) != EV_OK)
			break;
		if (mixed(p) && !o->mixed_grades) {
			st = ev_error_set(err, EV_USAGE,
					  "arm %s cell %s of A is %s, arm %s cell %s of B is %s: a timing-grade figure against a "
					  "diagnostic one says little of either (audit campaign names why each is graded so); "
					  "--mixed-grades compares them anyway and says so in every output",
					  arm, cell, p->a.grade, arm_b, cell_b, p->b.grade);
			break;
		}
	}
	*out = pairs;
	*nout = n;
	return st;
}

static ev_status publish(const char *tmpdir, const char *out, const char *name, const char *bytes, size_t len,
			 json_t *receipt, struct ev_error *err)
{
	char path[PATH_MAX], final[PATH_MAX];
	uint8_t d[EV_SHA256_LEN];
	char hex[EV_SHA256_HEX_LEN + 1];
	if (ev_path_join(path, sizeof path, tmpdir, name) != 0 || ev_path_join(final, sizeof final, out, name) != 0)
		return ev_error_set(err, EV_USAGE, "%s: path too long", out);
	ev_status st = ev_publish_bytes(path, bytes, len, 0644, err);
	if (st == EV_OK && (st = ev_sha256_buffer(bytes, len, d, err)) == EV_OK) {
		ev_sha256_hex(d, hex);
		st = ev_receipt_add_output(receipt, name, final, hex, err);
	}
	return st;
}

static json_t *selection_json(const struct compare_opts *o)
{
	json_t *s = json_object();
	if (o->narm)
		json_object_set_new(s, "arms", json_pack("[s, s]", o->arm[0], o->arm[1]));
	if (o->ncell)
		json_object_set_new(s, "cells", json_pack("[s, s]", o->cell[0], o->cell[1]));
	return s;
}

static ev_status run_compare(const struct compare_opts *o, struct ev_error *err)
{
	struct side sides[2] = {0};
	struct pair *pairs = NULL;
	size_t npairs = 0;
	struct text md = {0}, txt = {0}, html = {0};
	struct ev_outdir od = {0};
	int opened = 0;
	json_t *unpaired = json_array(), *not_checked = json_array(), *doc = NULL;
	char *bytes = NULL;
	size_t len = 0;
	ev_status st;
	json_t *receipt = ev_receipt_new("audit", TOOL, err);
	if (!receipt)
		return err->status;
	if ((st = load_side(&sides[0], o->inputs[0], receipt, 'A', err)) != EV_OK)
		goto out;
	if (o->ninputs == 2 && (st = load_side(&sides[1], o->inputs[1], receipt, 'B', err)) != EV_OK)
		goto out;
	const struct side *sa = &sides[0], *sb = o->ninputs == 2 ? &sides[1] : &sides[0];
	if ((st = check_side_receipt(sa, 'A', receipt, not_checked, err)) != EV_OK)
		goto out;
	if (sb != sa && (st = check_side_receipt(sb, 'B', receipt, not_checked, err)) != EV_OK)
		goto out;
	if ((st = make_pairs(o, sa, sb, receipt, &pairs, &npairs, unpaired, err)) != EV_OK)
		goto out;
	if (!npairs) {
		st = ev_error_set(err, EV_USAGE, "nothing to compare: %s", json_array_size(unpaired) ?
				  json_string_value(json_array_get(unpaired, 0)) : "A has no arm and cell the options select");
		goto out;
	}
	if ((st = ev_outdir_open(&od, o->out, err)) != EV_OK)
		goto out;
	opened = 1;
	for (size_t i = 0; i < npairs && st == EV_OK; i++) {
		if (isatty(2))
			fprintf(stderr, "\r\033[K" TOOL ": resampling %zu of %zu: arm %s cell %s", i + 1, npairs, pairs[i].a.arm,
				pairs[i].a.cell);
		st = compare_pair(&pairs[i], o, err);
	}
	if (isatty(2))
		fprintf(stderr, "\r\033[K");
	if (st == EV_INTERRUPTED) {
		ev_error_clear(err);
		ev_error_set(err, EV_INTERRUPTED, "%s: interrupted by a signal; nothing is claimed", o->out);
	}
	if (st != EV_OK)
		goto out;
	json_t *list = json_array();
	for (size_t i = 0; i < npairs; i++)
		json_array_append_new(list, pair_json(&pairs[i]));
	doc = json_pack("{s:s, s:{s:s, s:s}, s:{s:s, s:s}, s:o, s:{s:I, s:I, s:s, s:s}, s:o, s:o}", "format",
			COMPARISON_FORMAT, "a", "campaign", sa->campaign, "summary_sha256", sa->sha256, "b", "campaign",
			sb->campaign, "summary_sha256", sb->sha256, "selection", selection_json(o), "bootstrap",
			"resamples", (json_int_t)o->resamples, "seed", (json_int_t)o->seed, "confidence", "0.95",
			"method", "percentile interval of median(B) - median(A) and median(B) / median(A) over "
			"runs resampled with replacement per side; splitmix64 draws", "pairs", list, "not_compared",
			json_incref(unpaired));
	write_reports(o, sa, sb, pairs, npairs, unpaired, &md, &txt, &html);
	if (md.oom || txt.oom || html.oom) {
		st = ev_error_set(err, EV_ERROR, "out of memory for the report");
		goto out;
	}
	char parent[PATH_MAX], tmpdir[PATH_MAX];
	snprintf(parent, sizeof parent, "%s", o->out);
	if (ev_path_join(tmpdir, sizeof tmpdir, dirname(parent), od.tmp_name) != 0) {
		st = ev_error_set(err, EV_USAGE, "%s: path too long", o->out);
		goto out;
	}
	if ((st = ev_json_dump(doc, &bytes, &len, err)) != EV_OK ||
	    (st = publish(tmpdir, o->out, "comparison.json", bytes, len, receipt, err)) != EV_OK ||
	    (st = publish(tmpdir, o->out, "comparison.md", md.s, md.n, receipt, err)) != EV_OK ||
	    (st = publish(tmpdir, o->out, "comparison.html", html.s, html.n, receipt, err)) != EV_OK)
		goto out;
	char text[256];
	snprintf(text, sizeof text, "per statistic of %zu pair%s of arm and cell: both medians of runs, ratio, difference, "
		 "ranges and a bootstrap interval over the runs each summary counts (in_cell_median); each cell's "
		 "medians held against its runs", npairs, npairs == 1 ? "" : "s");
	json_array_append_new(not_checked, json_string("the runs' raw series, native reports and journals: their statistics "
						       "are taken from summary.json as audit campaign recomputed them"));
	ev_receipt_set_fact(receipt, "coverage", json_pack("{s:[s], s:o}", "recomputed", text, "not_checked",
							   json_incref(not_checked)), err);
	ev_receipt_set_fact(receipt, "selection", selection_json(o), err);
	ev_receipt_set_fact(receipt, "bootstrap", json_incref(json_object_get(doc, "bootstrap")), err);
	ev_receipt_set_fact(receipt, "pairs", json_integer((json_int_t)npairs), err);
	size_t nmixed = 0;
	for (size_t i = 0; i < npairs; i++)
		nmixed += mixed(&pairs[i]);
	ev_receipt_set_fact(receipt, "mixed_grades", json_integer((json_int_t)nmixed), err);
	ev_receipt_set_fact(receipt, "not_compared", json_incref(unpaired), err);
	if ((st = ev_receipt_finish_signed(receipt, o->sign_key, err)) != EV_OK)
		goto out;
	char rpath[PATH_MAX];
	ev_path_join(rpath, sizeof rpath, tmpdir, "receipt.json");
	if ((st = ev_publish_json(rpath, receipt, err)) != EV_OK)
		goto out;
	/* the last moment a signal can keep the outputs from appearing */
	if (ev_cli_interrupted) {
		st = ev_error_set(err, EV_INTERRUPTED, "%s: interrupted by a signal; nothing is claimed", o->out);
		goto out;
	}
	if ((st = ev_outdir_commit(&od, 0755, err)) != EV_OK)
		goto out;
	opened = 0;
	const char *result = json_string_value(json_object_get(receipt, "result"));
	if (o->json)
		fwrite(bytes, 1, len, stdout);
	else
		fwrite(txt.s, 1, txt.n, stdout);
	fprintf(o->json ? stderr : stdout, "%s: %zu pair%s compared; comparison %s\n",
		strcmp(result, "pass") == 0 ? "OK" : "FAIL", npairs, npairs == 1 ? "" : "s", o->out);
	st = strcmp(result, "pass") == 0 ? EV_OK : EV_MISMATCH;
out:
	if (opened)
		ev_outdir_abort(&od);
	for (size_t i = 0; i < npairs; i++) {
		group_free(&pairs[i].a);
		group_free(&pairs[i].b);
	}
	free(pairs);
	free(bytes);
	audit_text_free(&md);
	audit_text_free(&txt);
	audit_text_free(&html);
	json_decref(doc);
	json_decref(unpaired);
	json_decref(not_checked);
	json_decref(receipt);
	json_decref(sides[0].doc);
	json_decref(sides[1].doc);
	return st;
}

int audit_compare_main(int argc, char **argv)
{
	struct compare_opts o = {.resamples = 10000, .seed = 1};
	long v;
	int c;
	struct ev_cli_getopt opts;
	ev_cli_getopt_init(&opts, &audit_tool, "compare");
	optind = 1;
	while ((c = getopt_long(argc, argv, opts.shortopts, opts.longopts, NULL)) != -1) {
		switch (c) {
		case 'a':
			if (o.narm == 2)
				return ev_cli_usage(&audit_tool, "compare", "--arm twice at most: A's arm, then B's");
			o.arm[o.narm++] = optarg;
			break;
		case 'c':
			if (o.ncell == 2)
				return ev_cli_usage(&audit_tool, "compare", "--cell twice at most: A's cell, then B's");
			o.cell[o.ncell++] = optarg;
			break;
		case 'h': return ev_cli_help(&audit_tool, "compare");
		case 'j': o.json = 1; break;
		case 'K':
			if (ev_cli_sign_key(TOOL, optarg, &o.sign_key))
				return 2;
			break;
		case 'M': o.mixed_grades = 1; break;
		case 'o': o.out = optarg; break;
		case 'R':
			if (ev_cli_parse_long(optarg, 1, 1000000, &v))
				return ev_cli_usage(&audit_tool, "compare", "option --resamples: expected 1 to 1000000, found '%s'", optarg);
			o.resamples = (uint64_t)v;
			break;
		case 's':
			if (ev_cli_parse_long(optarg, 0, LONG_MAX, &v))
				return ev_cli_usage(&audit_tool, "compare", "option --seed: expected a whole number, found '%s'", optarg);
			o.seed = (uint64_t)v;
			break;
		default: return ev_cli_usage(&audit_tool, "compare", "%s", ev_cli_option_problem(argv));
		}
	}
	if (argc - optind < 1 || argc - optind > 2)
		return ev_cli_usage(&audit_tool, "compare", optind == argc ? "no summary given" : "two summaries at most");
	o.ninputs = argc - optind;
	o.inputs[0] = argv[optind];
	o.inputs[1] = o.ninputs == 2 ? argv[optind + 1] : NULL;
	if (o.narm == 1 || o.ncell == 1)
		return ev_cli_usage(&audit_tool, "compare", "--%s names two: A's, then B's", o.narm == 1 ? "arm" : "cell");
	if (o.ninputs == 1 && !o.narm && !o.ncell)
		return ev_cli_usage(&audit_tool, "compare", "one summary: name two arms (--arm A --arm B) or two cells "
				    "(--cell X --cell Y) to compare inside it");
	if (!o.out)
		return ev_cli_usage(&audit_tool, "compare", "no output directory given (-o OUTDIR)");
	struct ev_error err;
	ev_error_clear(&err);
	ev_cli_catch_signals();
	ev_status st = run_compare(&o, &err);
	if (st >= EV_ERROR)
		ev_cli_error(TOOL, &err);
	ev_signing_key_free(o.sign_key);
	return ev_status_exit_code(st);
}
