/* SPDX-License-Identifier: Apache-2.0 */
/* history_report: the HTML page of audit history (history_report.h). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/history_report.h"
#include "audit/svg.h"

/* A number of the history document: its fractions are decimal strings. */
static double decimal_value(const json_t *v)
{
	return json_is_string(v) ? strtod(json_string_value(v), NULL) : json_number_value(v);
}

static const char *field(const json_t *doc, const char *key)
{
	return json_string_value(json_object_get(doc, key));
}

static void cell(struct ev_textbuf *t, const char *tag, const char *s)
{
	ev_textbuf_add(t, "<%s>", tag);
	ev_textbuf_escaped(t, s ? s : "");
	ev_textbuf_add(t, "</%s>", tag);
}

/* One series' trend: x the campaign's index among those compared, y its
 * median; a dashed line before each change, labelled. */
static void trend(struct ev_textbuf *t, const json_t *s, const json_t *campaigns, size_t ncampaigns)
{
	const json_t *points = json_object_get(s, "points");
	double lo = INFINITY, hi = -INFINITY;
	size_t i;
	json_t *p;
	json_array_foreach(points, i, p) {
		double v = decimal_value(json_object_get(p, "value"));
		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
	}
	if (!json_array_size(points))
		lo = 0, hi = 1;
	if (hi <= lo)
		hi = lo + 1;
	double pad = (hi - lo) * 0.15;
	struct chart c = {-0.5, (double)(ncampaigns ? ncampaigns : 1) - 0.5, lo - pad, hi + pad, 0, 0, 760, 300, 80, 20, 30, 40};
	/* at most ten ticks, each a campaign's index */
	double ticks[10];
	char names[10][24];
	const char *labels[10];
	size_t nt = 0, step = ncampaigns > 10 ? (ncampaigns + 9) / 10 : 1;
	for (size_t k = 0; k < ncampaigns && nt < 10; k += step) {
		ticks[nt] = (double)k;
		snprintf(names[nt], sizeof names[nt], "#%zu", k);
		labels[nt] = names[nt];
		nt++;
	}
	char title[256], ylabel[64];
	snprintf(title, sizeof title, "%s / %s: %s, campaign by campaign", field(s, "arm"), field(s, "cell"),
		 field(s, "statistic"));
	snprintf(ylabel, sizeof ylabel, "median of runs (%s)", field(s, "unit") ? field(s, "unit") : "");
	audit_chart_begin(t, &c, title, "campaign, oldest first", ylabel, ticks, labels, nt);
	double xs[4096], ys[4096];
	size_t n = 0;
	json_array_foreach(points, i, p) {
		if (n == 4096)
			break;
		size_t k = (size_t)json_integer_value(json_object_get(p, "campaign"));
		xs[n] = (double)k;
		ys[n] = decimal_value(json_object_get(p, "value"));
		n++;
	}
	audit_chart_polyline_styled(t, &c, xs, ys, n, "trend", audit_chart_colour(0), field(s, "statistic"), 1.2, 0.5);
	for (i = 0; i < n; i++) {
		const json_t *e = json_array_get(campaigns, (size_t)xs[i]);
		char tip[512];
		snprintf(tip, sizeof tip, "#%zu %s: %.1f %s, runs %s .. %s", (size_t)xs[i], field(e, "captured"), ys[i],
			 field(s, "unit") ? field(s, "unit") : "", field(e, "first_run"), field(e, "last_run"));
		audit_chart_dot(t, &c, xs[i], ys[i], "campaign", audit_chart_colour(0), tip);
	}
	json_t *ch;
	json_array_foreach(json_object_get(s, "changes"), i, ch) {
		double x = audit_chart_x(&c, (double)json_integer_value(json_object_get(ch, "campaign")) - 0.5);
		char label[96];
		const json_t *ratio = json_object_get(ch, "ratio");
		if (!json_is_null(ratio))
			snprintf(label, sizeof label, "x%.2f, p %.3f", decimal_value(ratio),
				 decimal_value(json_object_get(ch, "p_value")));
		else
			snprintf(label, sizeof label, "p %.3f", decimal_value(json_object_get(ch, "p_value")));
		/* the label goes left of the line when it would cross the right edge */
		double w = audit_text_width(label, 11);
		int left = x + 4 + w > c.width - c.right;
		ev_textbuf_add(t, "<line class=\"change\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#b00\" "
			       "stroke-dasharray=\"4 3\"/><text class=\"change-label\" x=\"%.1f\" y=\"%.1f\" font-size=\"11\" "
			       "fill=\"#b00\"%s>",
			       x, c.top, x, c.height - c.bottom, left ? x - 4 : x + 4, c.top + 12 + 13.0 * (double)(i % 3),
			       left ? " text-anchor=\"end\"" : "");
		ev_textbuf_escaped(t, label);
		ev_textbuf_add(t, "</text>\n");
	}
	audit_chart_end(t);
}

/* Kept whole: one HTML page written top to bottom, in the order it reads;
 * each section is a few lines of markup. */
void audit_history_write_html(const json_t *doc, struct ev_textbuf *t)
{
	const json_t *campaigns = json_object_get(doc, "campaigns"), *method = json_object_get(doc, "method");
	size_t nc = json_array_size(campaigns), i, k;
	json_t *e, *s;
	ev_textbuf_add(t, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>History of ");
	ev_textbuf_escaped(t, field(doc, "plan"));
	ev_textbuf_add(t, "</title>\n<style>body{font-family:sans-serif;margin:1em 2vw;color:#222}"
		       "section{margin-bottom:2em}svg{display:block;margin:1em 0;max-width:1400px}"
		       "table{border-collapse:collapse;margin:.5em 0 1em}caption{text-align:left;font-weight:bold;padding:.3em 0}"
		       "th,td{padding:.2em .6em;border-bottom:1px solid #ddd;text-align:left;overflow-wrap:anywhere}th{white-space:nowrap}"
		       "tr.change td{color:#b00}</style></head><body>\n<h1>History of plan ");
	ev_textbuf_escaped(t, field(doc, "plan"));
	ev_textbuf_add(t, "</h1>\n<p>Each point is one campaign: the median of its runs' statistic, as audit campaign "
		       "recomputed it. Changes are found by %s (alpha %g, %lld permutations, minimum segment %lld, seed "
		       "%lld); each ratio is the median of the runs after the change over those before, with its "
		       "bootstrap interval over those runs. Only campaigns of the same environment are compared.</p>\n",
		       field(method, "name"), decimal_value(json_object_get(method, "alpha")),
		       (long long)json_integer_value(json_object_get(method, "permutations")),
		       (long long)json_integer_value(json_object_get(method, "min_segment")),
		       (long long)json_integer_value(json_object_get(method, "seed")));
	ev_textbuf_add(t, "<section class=\"environment\"><table class=\"environment\"><caption>The environment compared"
		       "</caption>\n");
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)json_object_get(doc, "environment"), key, v) {
		ev_textbuf_add(t, "<tr>");
		cell(t, "th", key);
		cell(t, "td", json_string_value(v));
		ev_textbuf_add(t, "</tr>\n");
	}
	ev_textbuf_add(t, "</table></section>\n");
	json_array_foreach(json_object_get(doc, "series"), i, s) {
		ev_textbuf_add(t, "<section class=\"series\" data-arm=\"");
		ev_textbuf_escaped(t, field(s, "arm"));
		ev_textbuf_add(t, "\" data-cell=\"");
		ev_textbuf_escaped(t, field(s, "cell"));
		ev_textbuf_add(t, "\" data-statistic=\"");
		ev_textbuf_escaped(t, field(s, "statistic"));
		ev_textbuf_add(t, "\"><h2>");
		ev_textbuf_escaped(t, field(s, "arm"));
		ev_textbuf_add(t, " / ");
		ev_textbuf_escaped(t, field(s, "cell"));
		ev_textbuf_add(t, ": ");
		ev_textbuf_escaped(t, field(s, "statistic"));
		ev_textbuf_add(t, "</h2>\n");
		trend(t, s, campaigns, nc);
		const json_t *changes = json_object_get(s, "changes");
		if (!json_array_size(changes))
			ev_textbuf_add(t, "<p class=\"verdict\">No change.</p>\n");
		else
			ev_textbuf_add(t, "<table class=\"changes\"><caption>Changes</caption><tr><th>at campaign</th><th>captured"
				       "</th><th>ratio</th><th>interval</th><th>p</th><th>runs before, after</th></tr>\n");
		json_array_foreach(changes, k, e) {
			const json_t *iv = json_object_get(e, "interval");
			ev_textbuf_add(t, "<tr class=\"change\"><td>#%lld</td>", (long long)json_integer_value(json_object_get(e, "campaign")));
			cell(t, "td", field(e, "captured"));
			if (!json_is_null(json_object_get(e, "ratio")))
				ev_textbuf_add(t, "<td>%.3f</td>", decimal_value(json_object_get(e, "ratio")));
			else
				ev_textbuf_add(t, "<td>undefined</td>");
			if (json_is_array(iv))
				ev_textbuf_add(t, "<td>%.3f to %.3f</td>", decimal_value(json_array_get(iv, 0)),
					       decimal_value(json_array_get(iv, 1)));
			else
				ev_textbuf_add(t, "<td>none</td>");
			ev_textbuf_add(t, "<td>%.4f</td><td>%lld, %lld %s</td></tr>\n",
				       decimal_value(json_object_get(e, "p_value")),
				       (long long)json_integer_value(json_object_get(e, "before")),
				       (long long)json_integer_value(json_object_get(e, "after")), field(e, "over"));
		}
		if (json_array_size(changes))
			ev_textbuf_add(t, "</table>\n");
		ev_textbuf_add(t, "</section>\n");
	}
	ev_textbuf_add(t, "<section><table class=\"campaigns\"><caption>Campaigns compared</caption><tr><th>#</th>"
		       "<th>captured</th><th>runs</th><th>where</th><th>summary SHA-256</th></tr>\n");
	json_array_foreach(campaigns, i, e) {
		ev_textbuf_add(t, "<tr><td>#%zu</td>", i);
		cell(t, "td", field(e, "captured"));
		ev_textbuf_add(t, "<td>%lld (", (long long)json_integer_value(json_object_get(e, "runs")));
		ev_textbuf_escaped(t, field(e, "first_run"));
		ev_textbuf_add(t, " .. ");
		ev_textbuf_escaped(t, field(e, "last_run"));
		ev_textbuf_add(t, ")</td>");
		cell(t, "td", field(e, "where"));
		cell(t, "td", field(e, "summary_sha256"));
		ev_textbuf_add(t, "</tr>\n");
	}
	ev_textbuf_add(t, "</table>\n");
	const json_t *apart = json_object_get(doc, "apart");
	ev_textbuf_add(t, "<table class=\"apart\"><caption>Listed apart, never mixed in (%zu)</caption><tr><th>captured</th>"
		       "<th>where</th><th>differs in</th><th>its value</th><th>the campaigns compared</th></tr>\n",
		       json_array_size(apart));
	json_array_foreach(apart, i, e) {
		ev_textbuf_add(t, "<tr>");
		cell(t, "td", field(e, "captured"));
		cell(t, "td", field(e, "where"));
		cell(t, "td", field(e, "field"));
		cell(t, "td", field(e, "value"));
		cell(t, "td", field(e, "compared_with"));
		ev_textbuf_add(t, "</tr>\n");
	}
	ev_textbuf_add(t, "</table></section>\n</body></html>\n");
}
