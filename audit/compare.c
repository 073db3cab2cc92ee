/* SPDX-License-Identifier: Apache-2.0 */
/* audit compare: two arms, two cells or two campaigns compared run for
 * run (lib/usecase/audit/audit_compare), rendered as a table, Markdown and HTML
 * with a chart per pair, and the verdict said. --reference holds one
 * summary to a published block instead (compare_reference.c). */
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
#include "audit/compare_table.h"
#include "audit/svg.h"
#include "lib/cli/progress.h"
#include "lib/core/sha256.h"
#include "lib/receipt/receipt.h"
#include "lib/usecase/audit/audit_compare.h"

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
	int unregistered;         /* --unregistered */
	const char *reference, *reference_sha256; /* --reference, --reference-sha256 */
	const char *archive, *seal, *seal_sha256; /* --archive, --seal, --seal-sha256 */
};

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

static const char *pair_title(const struct ev_compare_pair *p, char *buf, size_t cap)
{
	int n = snprintf(buf, cap, "A arm %s cell %s (%zu run%s) against B arm %s cell %s (%zu run%s), in %s", p->a.arm,
			 p->a.cell, p->a.n, p->a.n == 1 ? "" : "s", p->b.arm, p->b.cell, p->b.n, p->b.n == 1 ? "" : "s",
			 p->a.unit);
	if (ev_compare_pair_mixed(p) && n > 0 && (size_t)n < cap)
		snprintf(buf + n, cap - (size_t)n, "; MIXED GRADES: A %s, B %s (--mixed-grades)", p->a.grade, p->b.grade);
	return buf;
}

/* The pair's statistics table, then every run's values. */
static void pair_tables(const struct ev_compare_pair *p, struct compare_table *stats, struct compare_table *runs)
{
	static const char *const head[] = {"statistic", "A median", "A min-max", "B median", "B min-max", "B/A",
					   "95% of B/A", "B-A", "95% of B-A", "verdict"};
	static const int right[] = {0, 1, 1, 1, 1, 1, 1, 1, 1, 0};
	static const int in_unit[] = {0, 1, 1, 1, 1, 0, 0, 1, 1, 0}; /* ratios have none */
	audit_compare_table_init(stats, 10, head, right, in_unit, p->a.unit);
	for (int k = 0; k < EV_COMPARE_NSTATS; k++) {
		char c[10][112], lo[48], hi[48];
		const struct ev_bootstrap_interval *iv = &p->iv[k];
		double alo, ahi, blo, bhi;
		ev_compare_range_of(p->a.v[k], p->a.n, &alo, &ahi);
		ev_compare_range_of(p->b.v[k], p->b.n, &blo, &bhi);
		snprintf(c[0], sizeof c[0], "%s", ev_compare_stat_names[k]);
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
		const struct ev_compare_group *g = s ? &p->b : &p->a;
		for (size_t i = 0; i < g->n; i++) {
			char c[EV_COMPARE_NSTATS][48];
			const char *row[8] = {g->names[i], s ? "B" : "A"};
			for (int k = 0; k < EV_COMPARE_NSTATS; k++) {
				fmt_value(c[k], sizeof c[k], g->v[k][i]);
				row[2 + k] = c[k];
			}
			audit_compare_table_row(runs, row);
		}
	}
}

/* Every run of both sides, each statistic a column, on one log scale:
 * A's runs left, B's right, each side's median a bar. */
static void pair_chart(const struct ev_compare_pair *p, struct ev_textbuf *h)
{
	double lo = 1e300, hi = 1;
	for (int s = 0; s < 2; s++) {
		const struct ev_compare_group *g = s ? &p->b : &p->a;
		for (int k = 0; k < EV_COMPARE_NSTATS; k++)
			for (size_t i = 0; i < g->n; i++) {
				double v = g->v[k][i] > 0 ? g->v[k][i] : 1;
				lo = v < lo ? v : lo;
				hi = v > hi ? v : hi;
			}
	}
	if (lo > hi)
		lo = 1;
	struct chart c = {-0.5, EV_COMPARE_NSTATS - 0.5, lo * 0.8, hi * 1.25, 0, 1, 760, 340, 70, 20, 30, 40};
	double xs[EV_COMPARE_NSTATS];
	for (int k = 0; k < EV_COMPARE_NSTATS; k++)
		xs[k] = k;
	char ylabel[64];
	snprintf(ylabel, sizeof ylabel, "value (%s)", p->a.unit);
	audit_chart_begin(h, &c, "Every run, A (left) and B (right); a bar: the median of runs", "statistic", ylabel, xs,
			  ev_compare_stat_names, EV_COMPARE_NSTATS);
	for (int s = 0; s < 2; s++) {
		const struct ev_compare_group *g = s ? &p->b : &p->a;
		const char *colour = audit_chart_colour(s ? 1 : 0);
		double off = s ? 0.15 : -0.15;
		for (int k = 0; k < EV_COMPARE_NSTATS; k++) {
			for (size_t i = 0; i < g->n; i++) {
				char tip[256];
				snprintf(tip, sizeof tip, "%s %s: %s %.1f %s", s ? "B" : "A", g->names[i], ev_compare_stat_names[k], g->v[k][i],
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

static void html_head(struct ev_textbuf *h, const struct ev_compare_side *sa, const struct ev_compare_side *sb, const struct compare_opts *o)
{
	ev_textbuf_add(h, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>Comparison</title>\n"
		       "<style>body{font-family:sans-serif;margin:1em 2vw;color:#222}svg{display:block;margin:1em 0;"
		       "max-width:1400px}.wide{overflow-x:auto;max-width:100%%}table{border-collapse:collapse;margin:.5em 0 1em}"
		       "caption{text-align:left;font-weight:bold;padding:.3em 0}th,td{padding:.2em .6em;border-bottom:1px solid "
		       "#ddd;text-align:right;white-space:nowrap}th:first-child,td:first-child{text-align:left}"
		       "table.provenance td{text-align:left;white-space:normal;overflow-wrap:anywhere}table.provenance th{text-align:left}"
		       "</style></head><body>\n<h1>Comparison</h1>\n<div class=\"wide\"><table class=\"provenance\"><tbody>\n");
	const struct ev_compare_side *sides[2] = {sa, sb};
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

static void write_reports(const struct compare_opts *o, const struct ev_compare_side *sa, const struct ev_compare_side *sb,
			  struct ev_compare_pair *pairs, size_t npairs, const json_t *unpaired, struct ev_textbuf *md, struct ev_textbuf *txt,
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

static void show_finding(void *ctx, const struct ev_finding *f)
{
	(void)ctx;
	ev_cli_finding(stderr, TOOL ": ", f);
}

static void show_pair(void *ctx, const struct ev_compare_pair *p)
{
	ev_progress_item(ctx, "arm %s cell %s", p->a.arm, p->a.cell);
}

/* The comparison (lib/usecase/audit/audit_compare), rendered between its two
 * steps; then the table, or --json the document, and the verdict. */
static ev_status run_compare(const struct compare_opts *o, struct ev_error *err)
{
	struct ev_textbuf md = {0}, txt = {0}, html = {0};
	json_t *receipt = ev_receipt_new("audit", TOOL, ev_cli_invocation(), err);
	if (!receipt)
		return err->status;
	struct ev_progress progress;
	ev_progress_init(&progress, stderr, TOOL ": resampling", 0, 0);
	progress.noun = "pairs";
	struct ev_meter meter = ev_progress_meter(&progress);
	struct ev_audit_compare c = {
		.inputs = {o->inputs[0], o->inputs[1]}, .ninputs = o->ninputs, .arm = {o->arm[0], o->arm[1]},
		.narm = o->narm, .cell = {o->cell[0], o->cell[1]}, .ncell = o->ncell, .mixed_grades = o->mixed_grades,
		.unregistered = o->unregistered,
		.resamples = o->resamples, .seed = o->seed, .out = o->out, .sign_key = o->sign_key,
		.on_finding = show_finding, .on_pair = show_pair, .ctx = &progress, .meter = &meter,
		.interrupted = &ev_cli_interrupted, .archive = o->archive, .seal = o->seal, .seal_sha256 = o->seal_sha256,
	};
	ev_status st = ev_audit_compare_run(&c, receipt, err);
	ev_progress_done(&progress);
	if (st != EV_OK)
		goto out;
	write_reports(o, c.sa, c.sb, c.pairs, c.npairs, c.unpaired, &md, &txt, &html);
	char registration[2048];
	ev_compare_registration_sentence(c.registration, registration, sizeof registration);
	ev_textbuf_add(&md, "\n%s\n", registration);
	ev_textbuf_add(&txt, "%s\n", registration);
	if (md.oom || txt.oom || html.oom) {
		st = ev_error_set(err, EV_ERROR, "out of memory for the report");
		goto out;
	}
	struct ev_compare_output rendered[] = {{"comparison.md", md.s, md.n}, {"comparison.html", html.s, html.n}};
	st = ev_audit_compare_publish(&c, receipt, rendered, 2, err);
	if (st != EV_OK && st != EV_MISMATCH)
		goto out;
	if (o->json)
		fprintf(stderr, "%s\n", registration);
	if (o->json)
		fwrite(c.bytes, 1, c.len, stdout);
	else
		fwrite(txt.s, 1, txt.n, stdout);
	fprintf(o->json ? stderr : stdout, "%s: %zu pair%s compared; comparison %s\n", st == EV_OK ? "OK" : "FAIL",
		c.npairs, c.npairs == 1 ? "" : "s", o->out);
out:
	ev_audit_compare_free(&c);
	ev_textbuf_free(&md);
	ev_textbuf_free(&txt);
	ev_textbuf_free(&html);
	json_decref(receipt);
	return st;
}

int audit_compare_main(int argc, char **argv)
{
	struct compare_opts o = {.resamples = 10000, .seed = 1};
	int c;
	struct ev_cli_getopt opts;
	ev_cli_getopt_init(&opts, &audit_tool, "compare");
	optind = 1;
	while ((c = ev_cli_getopt_next(&opts, argc, argv)) != -1) {
		switch (c) {
		case AUDIT_COMPARE_OPT_ARM:
			if (o.narm == 2)
				return ev_cli_usage(&audit_tool, "compare", "--arm twice at most: A's arm, then B's");
			o.arm[o.narm++] = optarg;
			break;
		case AUDIT_COMPARE_OPT_CELL:
			if (o.ncell == 2)
				return ev_cli_usage(&audit_tool, "compare", "--cell twice at most: A's cell, then B's");
			o.cell[o.ncell++] = optarg;
			break;
		case EV_CLI_HELP: return ev_cli_help(&audit_tool, "compare");
		case AUDIT_COMPARE_OPT_JSON: o.json = 1; break;
		case AUDIT_COMPARE_OPT_SIGN_KEY:
			if (ev_cli_sign_key(TOOL, optarg, &o.sign_key))
				return 2;
			break;
		case AUDIT_COMPARE_OPT_MIXED_GRADES: o.mixed_grades = 1; break;
		case AUDIT_COMPARE_OPT_UNREGISTERED: o.unregistered = 1; break;
		case AUDIT_COMPARE_OPT_REFERENCE: o.reference = optarg; break;
		case AUDIT_COMPARE_OPT_ARCHIVE: o.archive = optarg; break;
		case AUDIT_COMPARE_OPT_SEAL: o.seal = optarg; break;
		case AUDIT_COMPARE_OPT_SEAL_SHA256:
			o.seal_sha256 = optarg;
			break;
		case AUDIT_COMPARE_OPT_REFERENCE_SHA256:
			o.reference_sha256 = optarg;
			break;
		case AUDIT_COMPARE_OPT_OUTPUT: o.out = optarg; break;
		case AUDIT_COMPARE_OPT_RESAMPLES: o.resamples = (uint64_t)opts.count; break;
		case AUDIT_COMPARE_OPT_SEED: o.seed = (uint64_t)opts.count; break;
		default: return ev_cli_usage(&audit_tool, "compare", "%s", ev_cli_option_problem(argv));
		}
	}
	if (ev_cli_getopt_relations(&opts))
		return 2;
	if (o.archive && o.reference)
		return ev_cli_usage(&audit_tool, "compare", "--archive compares summaries inside an archive; --reference reads "
				    "its summary from a directory (extract it, or audit the campaign from its archive first)");
	if (o.reference) {
		if (argc - optind != 1)
			return ev_cli_usage(&audit_tool, "compare", "--reference holds one summary to it; give one");
		if (o.narm > 1 || o.ncell > 1 || o.narm != o.ncell)
			return ev_cli_usage(&audit_tool, "compare", "--reference: name the arm and the cell held to it once each (--arm A --cell X), or neither when the summary has one");
		if (!o.out)
			return ev_cli_usage(&audit_tool, "compare", "no output directory given (-o OUTDIR)");
		struct ev_audit_reproduction r = {.summary = argv[optind], .arm = o.narm ? o.arm[0] : NULL,
						  .cell = o.ncell ? o.cell[0] : NULL, .reference = o.reference,
						  .reference_sha256 = o.reference_sha256, .out = o.out, .sign_key = o.sign_key,
						  .unregistered = o.unregistered};
		struct ev_error rerr;
		ev_error_clear(&rerr);
		ev_cli_catch_signals();
		ev_status rst = audit_compare_reference(&r, o.json, &rerr);
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
