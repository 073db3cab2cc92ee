/* SPDX-License-Identifier: Apache-2.0 */
/* audit campaign, the profiles' rendering: per cell and side the median
 * shares of each part of the split, and per profiled run a partition chart
 * (lib/usecase/audit/campaign/audit_campaign_profiles.c read them). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/campaign.h"

static double share(const json_t *split, const char *part)
{
	return strtod(json_string_value(json_object_get(split, part)) ?: "0", NULL);
}

/* One row of the partition chart: each item as wide as its share, its name
 * written only where it fits. */
/* The parts' column headers, then a row's shares of them (and its end). */
static void share_headers(struct ev_textbuf *t, int html)
{
	for (int p = 0; p < EV_CAMPAIGN_PROFILE_PARTS; p++)
		ev_textbuf_add(t, html ? "<th>%s (%%)</th>" : " %s |", ev_audit_campaign_profile_parts[p]);
}

static void share_cells(struct ev_textbuf *t, int html, const json_t *split)
{
	for (int p = 0; p < EV_CAMPAIGN_PROFILE_PARTS; p++)
		ev_textbuf_add(t, html ? "<td>%.1f</td>" : " %.1f%% |", 100 * share(split, ev_audit_campaign_profile_parts[p]));
	ev_textbuf_add(t, html ? "</tr>\n" : "\n");
}

static void chart_row(struct ev_textbuf *t, const json_t *items, double y, const char *key_name, int split)
{
	double x = 0;
	const double width = 760, h = 22;
	static const char *const colours[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#bab0ac"};
	size_t i;
	json_t *it;
	if (split) {
		for (int p = 0; p < EV_CAMPAIGN_PROFILE_PARTS; p++) {
			double w = share(items, ev_audit_campaign_profile_parts[p]) * width;
			if (w <= 0)
				continue;
			ev_textbuf_add(t, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>%s %.1f%%</title></rect>\n",
				       20 + x, y, w, h, colours[p], ev_audit_campaign_profile_parts[p], 100 * share(items, ev_audit_campaign_profile_parts[p]));
			if (w > 7.0 * (double)(strlen(ev_audit_campaign_profile_parts[p]) + 7))
				ev_textbuf_add(t, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"#fff\">%s %.1f%%</text>\n", 24 + x,
					       y + 15, ev_audit_campaign_profile_parts[p], 100 * share(items, ev_audit_campaign_profile_parts[p]));
			x += w;
		}
		return;
	}
	json_array_foreach(items, i, it) {
		double s = strtod(json_string_value(json_object_get(it, "share")) ?: "0", NULL), w = s * width;
		const char *label = json_string_value(json_object_get(it, key_name));
		ev_textbuf_add(t, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" stroke=\"#fff\"><title>", 20 + x,
			       y, w, h, i % 2 ? "#9ecae9" : "#c6dbef");
		ev_textbuf_escaped(t, label);
		ev_textbuf_add(t, " %.2f%%</title></rect>\n", 100 * s);
		size_t fits = w > 30 ? (size_t)((w - 8) / 6.5) : 0;
		if (fits > 3) {
			char cut[256];
			snprintf(cut, sizeof cut, "%.*s", (int)(fits < sizeof cut - 1 ? fits : sizeof cut - 1), label);
			ev_textbuf_add(t, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">", 24 + x, y + 15);
			ev_textbuf_escaped(t, cut);
			ev_textbuf_add(t, "</text>\n");
		}
		x += w;
	}
}

void audit_campaign_write_profiles(const json_t *profiles, struct ev_textbuf *t, int html)
{
	if (!profiles)
		return;
	const json_t *runs = json_object_get(profiles, "runs"), *cells = json_object_get(profiles, "cells");
	const char *name;
	json_t *facts;
	if (html)
		ev_textbuf_add(t, "<h2>Profiled runs</h2>\n<p>Shown apart: perf perturbs latency, so these runs are in no "
			       "cell's statistics. Each bar is as wide as the share of samples: the split, then objects, "
			       "then symbols.</p>\n<table><tr><th>run</th><th>cell</th><th>side</th><th>samples</th><th>lost</th>");
	else
		ev_textbuf_add(t, "\n## Profiled runs\n\nShown apart: perf perturbs latency, so these runs are in no cell's "
			       "statistics. Shares of samples (self), as audit profile reads each perf.data.\n\n"
			       "| run | cell | side | samples | lost |");
	share_headers(t, html);
	ev_textbuf_add(t, html ? "</tr>\n" : "\n| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
	json_object_foreach((json_t *)runs, name, facts)
		for (int k = 0; k < 2; k++) {
			const char *side = k ? "peer" : "sender";
			json_t *f = json_object_get(facts, side);
			if (!f)
				continue;
			const char *cell = json_string_value(json_object_get(facts, "cell"));
			long long samples = (long long)json_integer_value(json_object_get(f, "samples"));
			long long lost = (long long)json_integer_value(json_object_get(f, "lost"));
			if (html) {
				ev_textbuf_add(t, "<tr><td>");
				ev_textbuf_escaped(t, name);
				ev_textbuf_add(t, "</td><td>");
				ev_textbuf_escaped(t, cell);
				ev_textbuf_add(t, "</td><td>%s</td><td>%lld</td><td>%lld</td>", side, samples, lost);
			} else {
				ev_textbuf_add(t, "| %s | %s | %s | %lld | %lld |", name, cell, side, samples, lost);
			}
			share_cells(t, html, json_object_get(f, "split"));
		}
	if (html)
		ev_textbuf_add(t, "</table>\n");
	ev_textbuf_add(t, html ? "<h3>Per cell: the median of its profiled runs' shares</h3>\n<table><tr><th>cell</th><th>side</th><th>runs</th>"
			       : "\nPer cell, the median of its profiled runs' shares:\n\n| cell | side | runs |");
	share_headers(t, html);
	ev_textbuf_add(t, html ? "</tr>\n" : "\n| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
	const char *cell;
	json_t *c;
	json_object_foreach((json_t *)cells, cell, c) {
		const char *side;
		json_t *sv;
		json_object_foreach(c, side, sv) {
			if (html) {
				ev_textbuf_add(t, "<tr><td>");
				ev_textbuf_escaped(t, cell);
				ev_textbuf_add(t, "</td><td>%s</td><td>%lld</td>", side, (long long)json_integer_value(json_object_get(sv, "runs")));
			} else {
				ev_textbuf_add(t, "| %s | %s | %lld |", cell, side, (long long)json_integer_value(json_object_get(sv, "runs")));
			}
			share_cells(t, html, json_object_get(sv, "split"));
		}
	}
	if (!html)
		return;
	ev_textbuf_add(t, "</table>\n");
	json_object_foreach((json_t *)runs, name, facts)
		for (int k = 0; k < 2; k++) {
			const char *side = k ? "peer" : "sender";
			json_t *f = json_object_get(facts, side);
			if (!f)
				continue;
			ev_textbuf_add(t, "<h3>");
			ev_textbuf_escaped(t, name);
			ev_textbuf_add(t, ", %s</h3>\n<svg class=\"profile\" viewBox=\"0 0 800 110\" width=\"100%%\" role=\"img\" "
				       "xmlns=\"http://www.w3.org/2000/svg\">\n", side);
			chart_row(t, json_object_get(f, "split"), 8, NULL, 1);
			chart_row(t, json_object_get(f, "objects"), 42, "name", 0);
			chart_row(t, json_object_get(f, "symbols"), 76, "name", 0);
			ev_textbuf_add(t, "</svg>\n");
		}
}
