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
#include "audit/compare_reference.h"
#include "audit/compare_side.h"
#include "audit/compare_table.h"
#include "audit/svg.h"
#include "lib/receipt/signature.h"
#include "lib/cli/progress.h"
#include "lib/core/json.h"
#include "lib/core/path.h"
#include "lib/core/publish.h"
#include "lib/core/sha256.h"
#include "lib/receipt/receipt.h"
#include "lib/stats/bootstrap.h"
#include "lib/receipt/receipt_read.h"

#define CONFIDENCE 0.95
#define COMPARISON_FORMAT "evidence-run-comparison/1"


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
	const char *reference, *reference_sha256; /* --reference, --reference-sha256 */
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








static const char *verdict_of(const double *a, size_t na, const double *b, size_t nb)
{
	double alo, ahi, blo, bhi;
	audit_compare_range_of(a, na, &alo, &ahi);
	audit_compare_range_of(b, nb, &blo, &bhi);
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
	audit_compare_range_of(g->v[k], g->n, &lo, &hi);
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
		json_t *s = json_pack("{s:s, s:o, s:o, s:o, s:s}", "name", audit_compare_stat_names[k], "a", side_json(&p->a, k, p->med_a[k]),
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
	audit_compare_table_init(stats, 10, head, right, in_unit, p->a.unit);
	for (int k = 0; k < NSTATS; k++) {
		char c[10][112], lo[48], hi[48];
		const struct ev_bootstrap_interval *iv = &p->iv[k];
		double alo, ahi, blo, bhi;
		audit_compare_range_of(p->a.v[k], p->a.n, &alo, &ahi);
		audit_compare_range_of(p->b.v[k], p->b.n, &blo, &bhi);
		snprintf(c[0], sizeof c[0], "%s", audit_compare_stat_names[k]);
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
		audit_compare_table_row(stats, row);
	}
	static const char *const rhead[] = {"run", "side", "p50", "p95", "p99", "p99.9", "mean", "max"};
	static const int rright[] = {0, 0, 1, 1, 1, 1, 1, 1};
	audit_compare_table_init(runs, 8, rhead, rright, rright, p->a.unit);
	for (int s = 0; s < 2; s++) {
		const struct group *g = s ? &p->b : &p->a;
		for (size_t i = 0; i < g->n; i++) {
			char c[NSTATS][48];
			const char *row[8] = {g->names[i], s ? "B" : "A"};
			for (int k = 0; k < NSTATS; k++) {
				fmt_value(c[k], sizeof c[k], g->v[k][i]);
				row[2 + k] = c[k];
			}
			audit_compare_table_row(runs, row);
		}
	}
}

/* Every run of both sides, each statistic a column, on one log scale:
 * A's runs left, B's right, each side's median a bar. */
static void pair_chart(const struct pair *p, struct ev_textbuf *h)
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
			  audit_compare_stat_names, NSTATS);
	for (int s = 0; s < 2; s++) {
		const struct group *g = s ? &p->b : &p->a;
		const char *colour = audit_chart_colour(s ? 1 : 0);
		double off = s ? 0.15 : -0.15;
		for (int k = 0; k < NSTATS; k++) {
			for (size_t i = 0; i < g->n; i++) {
				char tip[256];
				snprintf(tip, sizeof tip, "%s %s: %s %.1f %s", s ? "B" : "A", g->names[i], audit_compare_stat_names[k], g->v[k][i],
					 p->a.unit);
				audit_chart_dot(h, &c, k + off, g->v[k][i] > 0 ? g->v[k][i] : 1, s ? "run-b" : "run-a", colour, tip);
			}
			double m = s ? p->med_b[k] : p->med_a[k], y = audit_chart_y(&c, m > 0 ? m : 1), x = audit_chart_x(&c, k + off);
			ev_textbuf_add(h, "<line class=\"median\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
				       "stroke-width=\"3\"/>\n", x - 12, x + 12, y, y, colour);
		}
		audit_chart_legend(h, &c, s, colour, s ? "B" : "A");
	}
	audit_chart_end(h);
}

static void html_head(struct ev_textbuf *h, const struct side *sa, const struct side *sb, const struct compare_opts *o)
{
	ev_textbuf_add(h, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>Comparison</title>\n"
		       "<style>body{font-family:sans-serif;margin:1em 2vw;color:#222}svg{display:block;margin:1em 0;"
		       "max-width:1400px}.wide{overflow-x:auto;max-width:100%%}table{border-collapse:collapse;margin:.5em 0 1em}"
		       "caption{text-align:left;font-weight:bold;padding:.3em 0}th,td{padding:.2em .6em;border-bottom:1px solid "
		       "#ddd;text-align:right;white-space:nowrap}th:first-child,td:first-child{text-align:left}"
		       "table.provenance td{text-align:left;white-space:normal;overflow-wrap:anywhere}table.provenance th{text-align:left}"
		       "</style></head><body>\n<h1>Comparison</h1>\n<div class=\"wide\"><table class=\"provenance\"><tbody>\n");
	const struct side *sides[2] = {sa, sb};
	for (int s = 0; s < 2; s++) {
		ev_textbuf_add(h, "<tr><th scope=\"row\">%s</th><td>campaign ", s ? "B" : "A");
		ev_textbuf_escaped(h, sides[s]->campaign);
		ev_textbuf_add(h, ", summary SHA-256 %s</td></tr>\n", sides[s]->sha256);
	}
	ev_textbuf_add(h, "<tr><th scope=\"row\">bootstrap</th><td>%" PRIu64 " resamples of runs per side, seed %" PRIu64
		       ", 95%% percentile interval</td></tr>\n</tbody></table></div>\n<p>Each statistic is the median of the "
		       "runs' own values (never a quantile of pooled samples). \"A lower in every run\" means every run of A is "
		       "below every run of B; \"inconclusive\" means the runs of the two sides overlap.</p>\n",
		       o->resamples, o->seed);
}

static void write_reports(const struct compare_opts *o, const struct side *sa, const struct side *sb,
			  struct pair *pairs, size_t npairs, const json_t *unpaired, struct ev_textbuf *md, struct ev_textbuf *txt,
			  struct ev_textbuf *h)
{
	html_head(h, sa, sb, o);
	char title[512];
	ev_textbuf_add(md, "# Comparison\n\n");
	ev_textbuf_add(md, "- A: campaign %s, summary SHA-256 %s\n", sa->campaign, sa->sha256);
	ev_textbuf_add(md, "- B: campaign %s, summary SHA-256 %s\n", sb->campaign, sb->sha256);
	ev_textbuf_add(md, "- bootstrap: %" PRIu64 " resamples of runs per side, seed %" PRIu64 ", 95%% percentile interval\n",
		       o->resamples, o->seed);
	ev_textbuf_add(md, "\nEach statistic is the median of the runs' own values (never a quantile of pooled samples). "
		       "\"A lower in every run\" means every run of A is below every run of B; \"inconclusive\" means the "
		       "runs of the two sides overlap.\n");
	ev_textbuf_add(txt, "A: campaign %s (%s)\nB: campaign %s (%s)\n", sa->campaign, sa->summary, sb->campaign, sb->summary);
	ev_textbuf_add(txt, "bootstrap: %" PRIu64 " resamples of runs per side, seed %" PRIu64 ", 95%% percentile interval\n",
		       o->resamples, o->seed);
	for (size_t i = 0; i < npairs; i++) {
		struct compare_table stats, runs;
		pair_tables(&pairs[i], &stats, &runs);
		pair_title(&pairs[i], title, sizeof title);
		ev_textbuf_add(md, "\n## %s\n\n", title);
		audit_compare_table_markdown(&stats, md);
		ev_textbuf_add(md, "\nEvery run (%s):\n\n", pairs[i].a.unit);
		audit_compare_table_markdown(&runs, md);
		ev_textbuf_add(h, "<section class=\"pair\"><h2>");
		ev_textbuf_escaped(h, title);
		ev_textbuf_add(h, "</h2>\n");
		audit_compare_table_html(&stats, h, "statistics", "Each statistic: medians of runs, ranges, ratio, difference, "
				   "bootstrap intervals, verdict");
		pair_chart(&pairs[i], h);
		audit_compare_table_html(&runs, h, "runs", "Every run");
		ev_textbuf_add(h, "</section>\n");
		ev_textbuf_add(txt, "\n%s\n", title);
		audit_compare_table_text(&stats, txt);
		ev_textbuf_add(txt, "\n");
		audit_compare_table_text(&runs, txt);
		audit_compare_table_free(&stats);
		audit_compare_table_free(&runs);
	}
	size_t k;
	json_t *u;
	json_array_foreach(unpaired, k, u) {
		ev_textbuf_add(md, "%s- not compared: %s\n", k ? "" : "\n", json_string_value(u));
		ev_textbuf_add(txt, "%snot compared: %s\n", k ? "" : "\n", json_string_value(u));
		ev_textbuf_add(h, "<p class=\"not-compared\">not compared: ");
		ev_textbuf_escaped(h, json_string_value(u));
		ev_textbuf_add(h, "</p>\n");
	}
	ev_textbuf_add(h, "</body></html>\n");
}

static int selected(const char *want, const char *have)
{
	return !want || strcmp(want, have) == 0;
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
		const json_t *cb = audit_compare_cell_named(sb, arm_b, cell_b);
		if (!cb) {
			snprintf(text, sizeof text, "arm %s cell %s of A: B has no arm %s cell %s", arm, cell, arm_b, cell_b);
			json_array_append_new(unpaired, json_string(text));
			continue;
		}
		struct pair *p = &pairs[n];
		if ((st = audit_compare_group_load(&p->a, sa, c, err)) != EV_OK || (st = audit_compare_group_load(&p->b, sb, cb, err)) != EV_OK) {
			n++;
			break;
		}
		n++;
		if ((st = audit_compare_check_group_medians(&p->a, 'A', receipt, err)) != EV_OK)
			break;
		if ((sa != sb || p->a.cell_doc != p->b.cell_doc) && (st = audit_compare_check_group_medians(&p->b, 'B', receipt, err)) != EV_OK)
			break;
		if (!p->a.n || !p->b.n) {
			snprintf(text, sizeof text, "arm %s cell %s of A (%zu runs) against arm %s cell %s of B (%zu runs): a side "
				 "has no run that held", arm, cell, p->a.n, arm_b, cell_b, p->b.n);
			json_array_append_new(unpaired, json_string(text));
			audit_compare_group_free(&p->a);
			audit_compare_group_free(&p->b);
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
	struct ev_textbuf md = {0}, txt = {0}, html = {0};
	struct ev_outdir od = {0};
	int opened = 0;
	json_t *unpaired = json_array(), *not_checked = json_array(), *doc = NULL;
	char *bytes = NULL;
	size_t len = 0;
	ev_status st;
	json_t *receipt = ev_receipt_new("audit", TOOL, ev_cli_invocation(), err);
	if (!receipt)
		return err->status;
	if ((st = audit_compare_load_side(&sides[0], o->inputs[0], receipt, 'A', err)) != EV_OK)
		goto out;
	if (o->ninputs == 2 && (st = audit_compare_load_side(&sides[1], o->inputs[1], receipt, 'B', err)) != EV_OK)
		goto out;
	const struct side *sa = &sides[0], *sb = o->ninputs == 2 ? &sides[1] : &sides[0];
	if ((st = audit_compare_check_side_receipt(sa, 'A', receipt, not_checked, err)) != EV_OK)
		goto out;
	if (sb != sa && (st = audit_compare_check_side_receipt(sb, 'B', receipt, not_checked, err)) != EV_OK)
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
	struct ev_progress progress;
	ev_progress_init(&progress, stderr, TOOL ": resampling", 0, npairs);
	progress.noun = "pairs";
	for (size_t i = 0; i < npairs && st == EV_OK; i++) {
		ev_progress_item(&progress, "arm %s cell %s", pairs[i].a.arm, pairs[i].a.cell);
		st = compare_pair(&pairs[i], o, err);
		ev_progress_add(&progress, 0, 1);
	}
	ev_progress_done(&progress);
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
	    (st = audit_compare_publish(tmpdir, o->out, "comparison.json", bytes, len, receipt, err)) != EV_OK ||
	    (st = audit_compare_publish(tmpdir, o->out, "comparison.md", md.s, md.n, receipt, err)) != EV_OK ||
	    (st = audit_compare_publish(tmpdir, o->out, "comparison.html", html.s, html.n, receipt, err)) != EV_OK)
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
	if ((st = audit_compare_commit(&od, &opened, tmpdir, o->out, receipt, o->sign_key, err)) != EV_OK)
		goto out;
	const char *result = ev_receipt_result(receipt);
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
		audit_compare_group_free(&pairs[i].a);
		audit_compare_group_free(&pairs[i].b);
	}
	free(pairs);
	free(bytes);
	ev_textbuf_free(&md);
	ev_textbuf_free(&txt);
	ev_textbuf_free(&html);
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
		case 'F': o.reference = optarg; break;
		case 'H':
			if (!ev_sha256_hex_valid(optarg))
				return ev_cli_usage(&audit_tool, "compare", "option --reference-sha256: expected 64 lower-case hex digits");
			o.reference_sha256 = optarg;
			break;
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
	if (o.reference_sha256 && !o.reference)
		return ev_cli_usage(&audit_tool, "compare", "--reference-sha256 pins a --reference; none given");
	if (o.reference) {
		if (argc - optind != 1)
			return ev_cli_usage(&audit_tool, "compare", "--reference holds one summary to it; give one");
		if (o.narm > 1 || o.ncell > 1 || o.narm != o.ncell)
			return ev_cli_usage(&audit_tool, "compare", "--reference: name the arm and the cell held to it once each (--arm A --cell X), or neither when the summary has one");
		if (!o.out)
			return ev_cli_usage(&audit_tool, "compare", "no output directory given (-o OUTDIR)");
		struct reference_opts r = {argv[optind], o.narm ? o.arm[0] : NULL, o.ncell ? o.cell[0] : NULL, o.reference,
					   o.reference_sha256, o.out, o.json, o.sign_key};
		struct ev_error rerr;
		ev_error_clear(&rerr);
		ev_cli_catch_signals();
		ev_status rst = audit_compare_reference(&r, &rerr);
		if (rst >= EV_ERROR)
			ev_cli_error(TOOL, &rerr);
		ev_signing_key_free(o.sign_key);
		return ev_status_exit_code(rst);
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
