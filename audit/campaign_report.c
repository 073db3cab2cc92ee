/* SPDX-License-Identifier: Apache-2.0 */
/* audit campaign, the report: the summary as Markdown and as a
 * self-contained HTML page with its charts. */
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

#include "lib/usecase/audit/series_analysis.h"
#include "audit/audit.h"
#include "audit/svg.h"
#include "lib/campaign/run.h"
#include "lib/core/path.h"
#include "lib/core/publish.h"
#include "lib/core/json.h"
#include "lib/receipt/receipt.h"
#include "lib/core/sha256.h"
#include "lib/receipt/receipt_read.h"
#include "audit/campaign.h"

static void md_value(struct ev_textbuf *t, double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		ev_textbuf_add(t, " %.0f |", v);
	else
		ev_textbuf_add(t, " %.1f |", v);
}

static void md_maybe(struct ev_textbuf *t, int have, double v)
{
	if (have)
		md_value(t, v);
	else
		ev_textbuf_add(t, " — |");
}

/* How many runs kept no series and printed their statistics. */
static size_t printed_runs(const struct ev_audit_campaign *ca)
{
	size_t n = 0;
	for (size_t i = 0; i < ca->nruns; i++)
		n += ca->runs[i].printed;
	return n;
}

/* What a run's native column says. */
static const char *native_verdict(const struct ev_audited_run *r)
{
	if (r->printed)
		return r->inconsistent ? "printed, INCONSISTENT" : r->differ ? "printed, DIFFERS" : "printed";
	return r->differ ? "DIFFERS" : "agrees";
}

/* What a run's series column says. */
static const char *series_verdict(const struct ev_audited_run *r)
{
	return r->printed ? "none" : r->findings ? "DAMAGED" : "whole";
}

/* The reviewer's line, what is published, and every session of the
 * registration on the record. */
static void write_registration(const struct ev_audit_campaign *ca, struct ev_textbuf *t)
{
	const json_t *r = ca->registration;
	size_t i;
	json_t *v;
	ev_textbuf_add(t, "Registration: %s.", json_string_value(json_object_get(r, "line")) ?: "?");
	if (json_array_size(json_object_get(r, "published"))) {
		ev_textbuf_add(t, " Published:");
		json_array_foreach(json_object_get(r, "published"), i, v)
			ev_textbuf_add(t, " %s", json_string_value(v));
		ev_textbuf_add(t, "%s", strcmp(json_string_value(json_object_get(r, "state")) ?: "", "unregistered")
						? "." : " (every statistic: none was registered).");
	}
	ev_textbuf_add(t, "\n\n");
	json_array_foreach(json_object_get(json_object_get(r, "sessions"), "list"), i, v)
		ev_textbuf_add(t, "- session %s\n", json_string_value(json_object_get(v, "sentence")));
	if (json_array_size(json_object_get(json_object_get(r, "sessions"), "list")))
		ev_textbuf_add(t, "\n");
}

void audit_campaign_write_markdown(const struct ev_audit_campaign *ca, struct ev_textbuf *t, json_t *summary)
{
	const char *arms[64], *cells[256];
	size_t na = ev_audit_campaign_arms_of(ca, arms, 64), nc = ev_audit_campaign_cells_of(ca, cells, 256);
	ev_textbuf_add(t, "# Campaign %s\n\n", json_string_value(json_object_get(summary, "campaign")));
	ev_textbuf_add(t, "Per arm and cell: the median over the runs of each run's statistic, recomputed from its raw\n"
		    "series with the rule its benchmark used (never a quantile of pooled samples), and the largest\n"
		    "maximum of any run. Every run follows in its own row; a run that failed, or failed its\n"
		    "audit (DIFFERS, DAMAGED), is shown there and left out of its cell's median, and so is a\n"
		    "profiled run (perf perturbs latency: its profile is shown apart).\n\n");
	if (printed_runs(ca))
		ev_textbuf_add(t, "%zu run%s kept no raw series: %s figures are " EV_CAMPAIGN_CELL_PRINTED ", in ns: the\n"
			    "medians of what the program printed, its block checked against itself and its count\n"
			    "against the plan, never recomputed. A cell of such runs says \"printed\" after its rule; —\n"
			    "marks a statistic the program does not print. \"pinned by\" says what holds each run's bytes\n"
			    "as they were written: the seal, the capture receipt, or nothing.\n\n",
			    printed_runs(ca), printed_runs(ca) == 1 ? "" : "s", printed_runs(ca) == 1 ? "its" : "their");
	write_registration(ca, t);
	audit_campaign_write_grade(ca, t, 0);
	audit_campaign_write_interference(ca, t, 0);
	for (size_t a = 0; a < na; a++) {
		ev_textbuf_add(t, "## Arm %s\n\n| cell | runs | rule | p50 | p95 | p99 | p99.9 | mean | largest max |\n"
			    "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n", arms[a]);
		for (size_t c = 0; c < nc; c++) {
			struct ev_cell_summary cs;
			ev_audit_campaign_summarise_cell(ca, arms[a], cells[c], &cs);
			if (!cs.runs) { /* shown, so that a cell none of whose runs held is not lost */
				if (ev_audit_campaign_cell_has_runs(ca, arms[a], cells[c]))
					ev_textbuf_add(t, "| %s | 0 | no run held | | | | | | |\n", cells[c]);
				continue;
			}
			ev_textbuf_add(t, "| %s | %zu | %s%s |", cells[c], cs.runs, cs.rule ? cs.rule : "",
				       cs.printed ? ", printed" : "");
			for (int k = 0; k < EV_CAMPAIGN_NQ; k++)
				md_maybe(t, cs.q_have[k], cs.q[k]);
			md_maybe(t, cs.mean_have, cs.mean);
			md_value(t, cs.largest_max);
			ev_textbuf_add(t, "\n");
		}
		ev_textbuf_add(t, "\n### Runs of arm %s\n\n| run | cell | result | p50 | p95 | p99 | p99.9 | mean | max | native | series | pinned by |\n"
			    "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | --- |\n", arms[a]);
		for (size_t i = 0; i < ca->nruns; i++) {
			const struct ev_audited_run *r = &ca->runs[i];
			if (strcmp(r->arm, arms[a]) != 0)
				continue;
			ev_textbuf_add(t, "| %s | %s | %s%s |", r->name, r->cell, r->result, r->profiled ? ", profiled" : "");
			if ((r->analysed && r->m.n) || r->printed) {
				for (int k = 0; k <= EV_CAMPAIGN_NQ + 1; k++) { /* the quantiles, the mean, the max */
					double v = 0;
					int have = ev_audit_campaign_run_statistic(r, k, &v) == 0;
					md_maybe(t, have, v);
				}
				ev_textbuf_add(t, " %s | %s |", native_verdict(r), series_verdict(r));
			} else {
				ev_textbuf_add(t, " | | | | | | | |");
			}
			ev_textbuf_add(t, " %s |\n", ev_audit_campaign_run_pinned_by(ca, r));
		}
		ev_textbuf_add(t, "\n");
	}
	json_t *scales = json_object_get(summary, "conversion_scales");
	if (json_integer_value(json_object_get(scales, "runs")))
		ev_textbuf_add(t, "Conversion scales (the rate each run's cycles were turned into ns with): %lld runs, "
			    "from %lld to %lld Hz, a spread of %.1f ppm.\n",
			 (long long)json_integer_value(json_object_get(scales, "runs")),
			 (long long)json_integer_value(json_object_get(scales, "min_hz")),
			 (long long)json_integer_value(json_object_get(scales, "max_hz")),
			 strtod(json_string_value(json_object_get(scales, "spread_ppm")) ?: "0", NULL));
	else if (printed_runs(ca) == ca->nruns)
		ev_textbuf_add(t, "Conversion scales: no run kept a series (the printed figures are as the programs "
			    "printed them, in ns).\n");
	else
		ev_textbuf_add(t, "Conversion scales: no run converted its clock (each series is in its clock's own ticks).\n");
	audit_campaign_write_stack_options(ca->stack_options, t, 0);
	audit_campaign_write_profiles(ca->profiles, t, 0);
}

/* A value in a table cell: whole numbers whole, the rest to a tenth. */
static void html_value(struct ev_textbuf *t, double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		ev_textbuf_add(t, "<td>%.0f</td>", v);
	else
		ev_textbuf_add(t, "<td>%.1f</td>", v);
}

static void html_maybe(struct ev_textbuf *t, int have, double v)
{
	if (have)
		html_value(t, v);
	else
		ev_textbuf_add(t, "<td>—</td>");
}

static void html_cell_text(struct ev_textbuf *t, const char *s)
{
	ev_textbuf_add(t, "<td>");
	ev_textbuf_escaped(t, s ? s : "");
	ev_textbuf_add(t, "</td>");
}

/* The unit of an arm's values: ns when every analysed run's clock ticks
 * in ns, else the series' ticks. */
static const char *unit_of(const struct ev_audit_campaign *ca, const char *arm)
{
	int any = 0;
	for (size_t i = 0; i < ca->nruns; i++) {
		const struct ev_audited_run *r = &ca->runs[i];
		if ((!r->analysed && !r->printed) || (arm && strcmp(r->arm, arm) != 0))
			continue;
		if (r->analysed && r->tps != 1000000000u)
			return "ticks";
		any = 1;
	}
	return any ? "ns" : "ticks";
}

static void provenance_row(struct ev_textbuf *t, const char *name, const char *value)
{
	ev_textbuf_add(t, "<tr><th scope=\"row\">");
	ev_textbuf_escaped(t, name);
	ev_textbuf_add(t, "</th><td>");
	ev_textbuf_escaped(t, value && *value ? value : "not recorded");
	ev_textbuf_add(t, "</td></tr>\n");
}

static const char *text_of(const json_t *v, char *buf, size_t cap)
{
	if (json_is_string(v))
		return json_string_value(v);
	if (json_is_integer(v)) {
		snprintf(buf, cap, "%lld", (long long)json_integer_value(v));
		return buf;
	}
	if (json_is_null(v) || !v)
		return "";
	char *d = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
	snprintf(buf, cap, "%s", d ? d : "");
	free(d);
	return buf;
}

/* Where and how it ran, and every audit's verdict, on top. */
static void write_provenance(const struct ev_audit_campaign *ca, struct ev_textbuf *t)
{
	const json_t *p = ca->provenance, *policy = json_object_get(p, "policy");
	char buf[2048], line[2400];
	ev_textbuf_add(t, "<section id=\"provenance\"><h2>Provenance</h2>\n<div class=\"wide\"><table class=\"provenance\"><tbody>\n");
	provenance_row(t, "campaign", json_string_value(json_object_get(p, "campaign")));
	provenance_row(t, "seal SHA-256", ca->seal_hex[0] ? ca->seal_hex :
		       "not given: audit campaign --seal SEAL.json names the seal and holds every file read against it");
	provenance_row(t, "host", json_string_value(json_object_get(p, "host")));
	const json_t *k = json_object_get(p, "kernel");
	snprintf(line, sizeof line, "%s %s", json_string_value(json_object_get(k, "release")) ?: "",
		 json_string_value(json_object_get(k, "version")) ?: "");
	provenance_row(t, "kernel", k ? line : NULL);
	provenance_row(t, "CPU model", json_string_value(json_object_get(p, "cpu_model")));
	provenance_row(t, "OS", json_string_value(json_object_get(p, "os")));
	provenance_row(t, "grade", json_string_value(json_object_get(p, "grade")));
	provenance_row(t, "registration", json_string_value(json_object_get(ca->registration, "line")));
	if (json_is_object(policy)) {
		static const char *const keys[][2] = {{"clocksource", "clocksource"}, {"turbo", "turbo"},
						      {"isolation", "isolation (kernel command line)"},
						      {"transparent_hugepage", "transparent huge pages"},
						      {"numa_balancing", "NUMA balancing"}, {"nmi_watchdog", "NMI watchdog"},
						      {"tuned_profile", "tuned profile"}, {"governors", "CPU governors"},
						      {"cpu_dma_latency_us_before", "cpu_dma_latency before the runs (us)"}};
		for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
			provenance_row(t, keys[i][1], text_of(json_object_get(policy, keys[i][0]), buf, sizeof buf));
	} else {
		provenance_row(t, "OS policy", json_string_value(policy));
	}
	const char *arm;
	json_t *q;
	json_object_foreach(json_object_get(p, "pm_qos"), arm, q) {
		char name[160];
		snprintf(name, sizeof name, "PM QoS held, arm %s", arm);
		if (json_is_object(q))
			snprintf(line, sizeof line, "requested %s us, effective %s us during the runs",
				 text_of(json_object_get(q, "requested_us"), buf, sizeof buf),
				 text_of(json_object_get(q, "effective_during_us"), buf + 1024, 1024));
		else
			snprintf(line, sizeof line, "%s", json_string_value(q) ?: "");
		provenance_row(t, name, line);
	}
	size_t i;
	json_t *c;
	json_array_foreach(json_object_get(p, "captures"), i, c) {
		const json_t *deg = json_object_get(c, "degraded");
		snprintf(line, sizeof line, "%s on %s at %s%s; degraded: %s", json_string_value(json_object_get(c, "result")) ?: "?",
			 json_string_value(json_object_get(c, "host")) ?: "?", json_string_value(json_object_get(c, "finished")) ?: "?",
			 json_is_true(json_object_get(c, "intact")) ? "" : " (its receipt was edited)",
			 json_array_size(deg) ? text_of(deg, buf, sizeof buf) : "nothing");
		char name[160];
		snprintf(name, sizeof name, "capture (%s)", json_string_value(json_object_get(c, "receipt")) ?: "");
		provenance_row(t, name, line);
	}
	ev_textbuf_add(t, "</tbody></table></div>\n<h3>Audits</h3>\n<div class=\"wide\"><table class=\"audits\"><thead><tr>"
		       "<th>check</th><th>verdict</th><th>detail</th></tr></thead><tbody>\n");
	json_array_foreach(ev_receipt_checks(ca->receipt), i, c) {
		const char *res = json_string_value(json_object_get(c, "result"));
		ev_textbuf_add(t, "<tr class=\"%s\">", strcmp(res ?: "", "pass") == 0 ? "pass" : "fail");
		html_cell_text(t, json_string_value(json_object_get(c, "name")));
		html_cell_text(t, res);
		html_cell_text(t, json_string_value(json_object_get(c, "detail")));
		ev_textbuf_add(t, "</tr>\n");
	}
	ev_textbuf_add(t, "</tbody></table></div></section>\n");
}

static void cells_table(const struct ev_audit_campaign *ca, struct ev_textbuf *t, const char *arm, const char *const *cells,
			size_t nc, const char *unit)
{
	ev_textbuf_add(t, "<div class=\"wide\"><table class=\"cells\"><caption>Arm ");
	ev_textbuf_escaped(t, arm);
	ev_textbuf_add(t, ": per cell, the median of its runs</caption><thead><tr><th>cell</th><th>runs</th><th>rule</th>");
	for (int k = 0; k < EV_CAMPAIGN_NQ; k++)
		ev_textbuf_add(t, "<th>%s (%s)</th>", ev_audit_campaign_q_names[k], unit);
	ev_textbuf_add(t, "<th>mean (%s)</th><th>largest max (%s)</th></tr></thead><tbody>\n", unit, unit);
	for (size_t c = 0; c < nc; c++) {
		struct ev_cell_summary cs;
		ev_audit_campaign_summarise_cell(ca, arm, cells[c], &cs);
		if (!cs.runs && !ev_audit_campaign_cell_has_runs(ca, arm, cells[c]))
			continue;
		ev_textbuf_add(t, "<tr>");
		html_cell_text(t, cells[c]);
		ev_textbuf_add(t, "<td>%zu</td>", cs.runs);
		char rule[64];
		snprintf(rule, sizeof rule, "%s%s", cs.rule ? cs.rule : "", cs.printed ? ", printed" : "");
		html_cell_text(t, cs.runs ? rule : "no run held");
		for (int k = 0; k < EV_CAMPAIGN_NQ && cs.runs; k++)
			html_maybe(t, cs.q_have[k], cs.q[k]);
		if (cs.runs) {
			html_maybe(t, cs.mean_have, cs.mean);
			html_value(t, cs.largest_max);
		} else {
			ev_textbuf_add(t, "<td></td><td></td><td></td><td></td><td></td><td></td>");
		}
		ev_textbuf_add(t, "</tr>\n");
	}
	ev_textbuf_add(t, "</tbody></table></div>\n");
}

static void runs_table(const struct ev_audit_campaign *ca, struct ev_textbuf *t, const char *arm, const char *unit)
{
	ev_textbuf_add(t, "<div class=\"wide\"><table class=\"runs\"><caption>Every run of arm ");
	ev_textbuf_escaped(t, arm);
	ev_textbuf_add(t, "</caption><thead><tr><th>run</th><th>cell</th><th>result</th>");
	for (int k = 0; k < EV_CAMPAIGN_NQ; k++)
		ev_textbuf_add(t, "<th>%s (%s)</th>", ev_audit_campaign_q_names[k], unit);
	ev_textbuf_add(t, "<th>mean (%s)</th><th>max (%s)</th><th>native</th><th>series</th><th>in its cell</th>"
		       "<th>pinned by</th></tr></thead><tbody>\n", unit, unit);
	for (size_t i = 0; i < ca->nruns; i++) {
		const struct ev_audited_run *r = &ca->runs[i];
		if (strcmp(r->arm, arm) != 0)
			continue;
		ev_textbuf_add(t, "<tr class=\"run\" data-run=\"");
		ev_textbuf_escaped(t, r->name);
		ev_textbuf_add(t, "\">");
		html_cell_text(t, r->name);
		html_cell_text(t, r->cell);
		ev_textbuf_add(t, "<td>");
		ev_textbuf_escaped(t, r->result);
		ev_textbuf_add(t, "%s</td>", r->profiled ? ", profiled" : "");
		if ((r->analysed && r->m.n) || r->printed) {
			for (int k = 0; k <= EV_CAMPAIGN_NQ + 1; k++) { /* the quantiles, the mean, the max */
				double v = 0;
				int have = ev_audit_campaign_run_statistic(r, k, &v) == 0;
				html_maybe(t, have, v);
			}
			ev_textbuf_add(t, "<td>%s</td><td>%s</td>", native_verdict(r), series_verdict(r));
		} else {
			ev_textbuf_add(t, "<td></td><td></td><td></td><td></td><td></td><td></td><td></td><td></td>");
		}
		ev_textbuf_add(t, "<td>%s</td><td>%s</td></tr>\n", ev_audit_campaign_run_summed(r) ? "counted" : "shown, not counted",
			       ev_audit_campaign_run_pinned_by(ca, r));
	}
	ev_textbuf_add(t, "</tbody></table></div>\n");
}

/* A chart tall enough for its legend (16 px an entry, under the title,
 * above the axis labels): no entry is drawn outside it. */
static double legend_height(double height, int entries)
{
	double need = 30 + 12 + 16.0 * entries + 40 + 8;
	return need > height ? need : height;
}

static const char *const spectrum_labels[] = {"0%", "90%", "99%", "99.9%", "99.99%", "99.999%"};
static const double spectrum_ticks[6] = {0, 1, 2, 3, 4, 5};

/* One arm's spectrum: each run's own as a faint line in its cell's colour,
 * and the cell's median of runs over them. */
static void arm_spectrum(const struct ev_audit_campaign *ca, struct ev_textbuf *t, const char *arm, const char *const *cells,
			 size_t nc, const char *unit)
{
	double lo = 1e300, hi = 1, xmax = 0.1;
	for (size_t i = 0; i < ca->nruns; i++) {
		const struct ev_audited_run *r = &ca->runs[i];
		if (!r->analysed || strcmp(r->arm, arm) != 0)
			continue;
		for (size_t k = 0; k < r->nspectrum; k++) {
			lo = r->spectrum[k] < lo ? r->spectrum[k] : lo;
			hi = r->spectrum[k] > hi ? r->spectrum[k] : hi;
			xmax = k / 10.0 > xmax ? k / 10.0 : xmax;
		}
	}
	if (lo > hi)
		lo = 1;
	struct chart sp = {0, ceil(xmax), lo * 0.8, hi * 1.25, 0, 1, 760, legend_height(360, (int)nc), 70, 20, 30, 40};
	size_t nxt = (size_t)ceil(xmax) + 1 < 6 ? (size_t)ceil(xmax) + 1 : 6;
	char ylabel[64];
	snprintf(ylabel, sizeof ylabel, "latency (%s)", unit);
	audit_chart_begin(t, &sp, "Percentile spectrum: each run (faint) and the median of the runs", "percentile", ylabel,
			  spectrum_ticks, spectrum_labels, nxt);
	double xs[EV_CAMPAIGN_SPECTRUM_STEPS];
	for (size_t k = 0; k < EV_CAMPAIGN_SPECTRUM_STEPS; k++)
		xs[k] = k / 10.0;
	for (size_t i = 0; i < ca->nruns; i++) {
		const struct ev_audited_run *r = &ca->runs[i];
		size_t c = 0;
		while (c < nc && strcmp(cells[c], r->cell) != 0)
			c++;
		if (r->analysed && r->nspectrum && strcmp(r->arm, arm) == 0)
			audit_chart_polyline_styled(t, &sp, xs, r->spectrum, r->nspectrum, "run-spectrum", audit_chart_colour(c),
						    r->name, 1, 0.3);
	}
	int legend = 0;
	for (size_t c = 0; c < nc; c++) {
		struct ev_cell_summary cs;
		ev_audit_campaign_summarise_cell(ca, arm, cells[c], &cs);
		if (!cs.nspectrum)
			continue;
		audit_chart_polyline_styled(t, &sp, xs, cs.spectrum, cs.nspectrum, "spectrum", audit_chart_colour(c), cells[c], 2,
					    1);
		audit_chart_legend(t, &sp, legend++, audit_chart_colour(c), cells[c]);
	}
	audit_chart_end(t);
}

/* The arms side by side, cell by cell, every chart on the same scale. */
static void arms_compared(const struct ev_audit_campaign *ca, struct ev_textbuf *t, const char *const *arms, size_t na,
			  const char *const *cells, size_t nc, const char *unit)
{
	double lo = 1e300, hi = 1, xmax = 0.1;
	struct ev_cell_summary *cs = calloc(na * nc, sizeof *cs);
	if (!cs) {
		t->oom = 1;
		return;
	}
	for (size_t a = 0; a < na; a++)
		for (size_t c = 0; c < nc; c++) {
			struct ev_cell_summary *s = &cs[a * nc + c];
			ev_audit_campaign_summarise_cell(ca, arms[a], cells[c], s);
			for (size_t k = 0; k < s->nspectrum; k++) {
				lo = s->spectrum[k] < lo ? s->spectrum[k] : lo;
				hi = s->spectrum[k] > hi ? s->spectrum[k] : hi;
				xmax = k / 10.0 > xmax ? k / 10.0 : xmax;
			}
		}
	if (lo > hi)
		lo = 1;
	ev_textbuf_add(t, "<section id=\"arms-compared\"><h2>Arms compared, cell by cell, on one scale</h2>\n"
		       "<p>Each line is an arm's median of runs; every chart here has the same axes. "
		       "audit compare gives the ratios, every run and a bootstrap interval.</p>\n");
	double xs[EV_CAMPAIGN_SPECTRUM_STEPS];
	for (size_t k = 0; k < EV_CAMPAIGN_SPECTRUM_STEPS; k++)
		xs[k] = k / 10.0;
	char ylabel[64], title[256];
	snprintf(ylabel, sizeof ylabel, "latency (%s)", unit);
	size_t nxt = (size_t)ceil(xmax) + 1 < 6 ? (size_t)ceil(xmax) + 1 : 6;
	for (size_t c = 0; c < nc; c++) {
		struct chart sp = {0, ceil(xmax), lo * 0.8, hi * 1.25, 0, 1, 760, legend_height(320, (int)na), 70, 20, 30, 40};
		ev_textbuf_add(t, "<div class=\"cell-compared\" data-cell=\"");
		ev_textbuf_escaped(t, cells[c]);
		ev_textbuf_add(t, "\">\n");
		snprintf(title, sizeof title, "Cell %s: each arm's median of runs", cells[c]);
		audit_chart_begin(t, &sp, title, "percentile", ylabel, spectrum_ticks, spectrum_labels, nxt);
		int legend = 0;
		for (size_t a = 0; a < na; a++) {
			const struct ev_cell_summary *s = &cs[a * nc + c];
			if (!s->nspectrum)
				continue;
			audit_chart_polyline_styled(t, &sp, xs, s->spectrum, s->nspectrum, "arm-spectrum", audit_chart_colour(a),
						    arms[a], 2, 1);
			audit_chart_legend(t, &sp, legend++, audit_chart_colour(a), arms[a]);
		}
		audit_chart_end(t);
		ev_textbuf_add(t, "<div class=\"wide\"><table class=\"arms\"><caption>Cell ");
		ev_textbuf_escaped(t, cells[c]);
		ev_textbuf_add(t, ": each arm, the median of its runs</caption><thead><tr><th>arm</th><th>runs</th>");
		for (int k = 0; k < EV_CAMPAIGN_NQ; k++)
			ev_textbuf_add(t, "<th>%s (%s)</th>", ev_audit_campaign_q_names[k], unit);
		ev_textbuf_add(t, "<th>mean (%s)</th><th>largest max (%s)</th></tr></thead><tbody>\n", unit, unit);
		for (size_t a = 0; a < na; a++) {
			const struct ev_cell_summary *s = &cs[a * nc + c];
			if (!s->runs)
				continue;
			ev_textbuf_add(t, "<tr>");
			html_cell_text(t, arms[a]);
			ev_textbuf_add(t, "<td>%zu</td>", s->runs);
			for (int k = 0; k < EV_CAMPAIGN_NQ; k++)
				html_value(t, s->q[k]);
			html_value(t, s->mean);
			html_value(t, s->largest_max);
			ev_textbuf_add(t, "</tr>\n");
		}
		ev_textbuf_add(t, "</tbody></table></div></div>\n");
	}
	ev_textbuf_add(t, "</section>\n");
	free(cs);
}

/* Kept whole: one HTML page written top to bottom, in the order it reads;
 * each section is a few lines of markup. */
void audit_campaign_write_html(const struct ev_audit_campaign *ca, struct ev_textbuf *t, const char *campaign)
{
	const char *arms[64], *cells[256];
	size_t na = ev_audit_campaign_arms_of(ca, arms, 64), nc = ev_audit_campaign_cells_of(ca, cells, 256);
	const char *unit = unit_of(ca, NULL);
	ev_textbuf_add(t, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>Campaign ");
	ev_textbuf_escaped(t, campaign);
	ev_textbuf_add(t, "</title>\n<style>body{font-family:sans-serif;margin:1em 2vw;color:#222}"
		       "section{margin-bottom:2em}svg{display:block;margin:1em 0;max-width:1400px}"
		       ".wide{overflow-x:auto;max-width:100%%}table{border-collapse:collapse;margin:.5em 0 1em}"
		       "caption{text-align:left;font-weight:bold;padding:.3em 0}"
		       "th,td{padding:.2em .6em;border-bottom:1px solid #ddd;text-align:right;white-space:nowrap}"
		       "th:first-child,td:first-child{text-align:left}table.provenance td,table.audits td,table.grade td{text-align:left;"
		       "white-space:normal;overflow-wrap:anywhere}tr.fail td{color:#b00}table.provenance th,table.audits th,table.grade th{text-align:left}</style></head><body>\n<h1>Campaign ");
	ev_textbuf_escaped(t, campaign);
	size_t printed = printed_runs(ca);
	if (printed < ca->nruns)
		ev_textbuf_add(t, "</h1>\n<p>Every statistic of a run with a raw series recomputed from it; per cell, the "
			       "median of the runs (never pooled samples). Values in %s.</p>\n", unit);
	else
		ev_textbuf_add(t, "</h1>\n<p>");
	if (printed)
		ev_textbuf_add(t, "%s%zu run%s kept no raw series: %s figures are " EV_CAMPAIGN_CELL_PRINTED ", in ns, the "
			       "medians of what the program printed, its block checked against itself and its count against "
			       "the plan. &quot;pinned by&quot; says what holds each run's bytes as they were written.</p>\n",
			       printed < ca->nruns ? "<p>" : "", printed, printed == 1 ? "" : "s", printed == 1 ? "its" : "their");
	write_provenance(ca, t);
	audit_campaign_write_grade(ca, t, 1);
	audit_campaign_write_interference(ca, t, 1);
	for (size_t a = 0; a < na; a++) {
		const char *aunit = unit_of(ca, arms[a]);
		ev_textbuf_add(t, "<section class=\"arm\" data-arm=\"");
		ev_textbuf_escaped(t, arms[a]);
		ev_textbuf_add(t, "\"><h2>Arm ");
		ev_textbuf_escaped(t, arms[a]);
		ev_textbuf_add(t, "</h2>\n");
		cells_table(ca, t, arms[a], cells, nc, aunit);
		runs_table(ca, t, arms[a], aunit);
		arm_spectrum(ca, t, arms[a], cells, nc, aunit);
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
		char ylabel[64];
		snprintf(ylabel, sizeof ylabel, "p99 (%s)", aunit);
		audit_chart_begin(t, &dots, "p99 of each run, by cell", "cell", ylabel, cx, cells, nc);
		for (size_t i = 0; i < ca->nruns; i++) {
			const struct ev_audited_run *r = &ca->runs[i];
			if (!r->analysed || !r->m.n || strcmp(r->arm, arms[a]) != 0 || r->profiled)
				continue;
			size_t c = 0;
			while (c < nc && strcmp(cells[c], r->cell) != 0)
				c++;
			char tip[256];
			snprintf(tip, sizeof tip, "%s: p99 %.0f %s", r->name, r->q[2], aunit);
			audit_chart_dot(t, &dots, (double)c + 0.08 * (r->repeat - 1) - 0.04, r->q[2], "run-p99", audit_chart_colour(c), tip);
		}
		audit_chart_end(t);
		/* each run's time series, the largest value per bucket of calls */
		for (size_t c = 0; c < nc; c++) {
			double tmax = 1, tlo = 1e300, nmax = 1;
			int any = 0, lines = 0;
			for (size_t i = 0; i < ca->nruns; i++) {
				const struct ev_audited_run *r = &ca->runs[i];
				if (!r->analysed || !r->nts || strcmp(r->arm, arms[a]) != 0 || strcmp(r->cell, cells[c]) != 0)
					continue;
				any = 1;
				lines++;
				nmax = (double)r->m.n > nmax ? (double)r->m.n : nmax;
				for (size_t k = 0; k < r->nts; k++) {
					tmax = r->ts_y[k] > tmax ? r->ts_y[k] : tmax;
					tlo = r->ts_y[k] < tlo ? r->ts_y[k] : tlo;
				}
			}
			if (!any)
				continue;
			struct chart ts = {0, nmax, tlo * 0.8, tmax * 1.25, 0, 1, 760, legend_height(260, lines), 70, 20, 30, 40};
			double tx[2] = {0, nmax};
			char last[32], title[160];
			snprintf(last, sizeof last, "%.0f", nmax);
			const char *tl[2] = {"0", last};
			snprintf(title, sizeof title, "Cell %s: each run over time (largest of each of %d buckets of calls)",
				 cells[c], EV_CAMPAIGN_TIMESERIES_POINTS);
			snprintf(ylabel, sizeof ylabel, "latency (%s)", aunit);
			audit_chart_begin(t, &ts, title, "call", ylabel, tx, tl, 2);
			int k = 0;
			for (size_t i = 0; i < ca->nruns; i++) {
				const struct ev_audited_run *r = &ca->runs[i];
				if (!r->analysed || !r->nts || strcmp(r->arm, arms[a]) != 0 || strcmp(r->cell, cells[c]) != 0)
					continue;
				audit_chart_polyline(t, &ts, r->ts_x, r->ts_y, r->nts, "timeseries", audit_chart_colour((size_t)k), r->name);
				audit_chart_legend(t, &ts, k, audit_chart_colour((size_t)k), r->name);
				k++;
			}
			audit_chart_end(t);
		}
		ev_textbuf_add(t, "</section>\n");
	}
	if (na > 1)
		arms_compared(ca, t, arms, na, cells, nc, unit);
	audit_campaign_write_stack_options(ca->stack_options, t, 1);
	audit_campaign_write_profiles(ca->profiles, t, 1);
	ev_textbuf_add(t, "</body></html>\n");
}
