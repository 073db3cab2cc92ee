/* audit campaign: profiled runs, apart. Every side perf ran beside is read
 * as audit profile reads it (lib/usecase/profile_side), its checks in the
 * campaign's receipt; per cell and side, the median of the runs' shares
 * of each part of the split. A profiled run never enters a cell's latency
 * statistics (campaign_summary.c). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit.h"
#include "audit/campaign.h"
#include "lib/usecase/profile_side.h"
#include "lib/campaign/run.h"
#include "lib/cli/cli.h"
#include "lib/core/json.h"
#include "lib/core/path.h"
#include "lib/receipt/receipt.h"
#include "lib/stats/bootstrap.h"

static const char *const parts[] = {"application", "network stack", "libc", "kernel", "other"};
#define NPARTS 5


/* A finding of a run's profile, named by the run ("audit: NAME: "). */
static void show_finding(void *ctx, const struct ev_finding *f)
{
	ev_cli_finding(stderr, ctx, f);
}

json_t *audit_campaign_profiles(struct campaign_audit *ca, struct ev_error *err)
{
	/* The plan's "perf" is the program capture ran; the auditor's perf
	 * comes from the command line alone, never from the evidence. */
	const char *perf = ca->perf ? ca->perf : "/usr/bin/perf";
	json_t *runs = json_object();
	for (size_t i = 0; i < ca->nruns && !ev_cli_interrupted; i++) {
		struct run *r = &ca->runs[i];
		if (!r->profiled)
			continue;
		char path[PATH_MAX], prefix[256];
		struct ev_run run;
		struct ev_error one;
		ev_error_clear(&one);
		if (ev_path_join(path, sizeof path, r->dir, EV_RUN_FILENAME) != 0 || ev_run_load(path, 0, &run, NULL, &one) != EV_OK)
			continue; /* load_runs read it: it cannot be missing now */
		snprintf(prefix, sizeof prefix, "run %s ", r->name);
		char shown[sizeof r->name + 16];
		snprintf(shown, sizeof shown, TOOL ": %s: ", r->name);
		struct ev_profile_ctx a = {ca->receipt, r->name, prefix, show_finding, shown, &ev_cli_interrupted, 0};
		json_t *facts = json_object(), *proc;
		size_t k;
		json_array_foreach(json_object_get(run.doc, "processes"), k, proc) {
			if (!json_object_get(proc, "profile"))
				continue;
			ev_status st = ev_profile_side(&a, r->dir, perf, proc, facts, &one);
			if (st == EV_INTERRUPTED) {
				*err = one;
				json_decref(facts);
				json_decref(runs);
				ev_run_free(&run);
				return NULL;
			}
			if (st != EV_OK) { /* this run's profile cannot be read: a failed check, the audit goes on */
				char check[PATH_MAX];
				snprintf(check, sizeof check, "%s%s profile", prefix, json_string_value(json_object_get(proc, "role")));
				ev_receipt_add_check(ca->receipt, check, 0, one.text, &one);
				fprintf(stderr, TOOL ": %s: %s\n", r->name, one.text);
				ev_error_clear(&one);
			}
		}
		json_object_set_new(facts, "cell", json_string(r->cell));
		json_object_set_new(facts, "arm", json_string(r->arm));
		json_object_set_new(runs, r->name, facts);
		ev_run_free(&run);
	}
	if (ev_cli_interrupted) {
		json_decref(runs);
		ev_error_set(err, EV_INTERRUPTED, "%s: interrupted by a signal; nothing is claimed", ca->dir);
		return NULL;
	}
	if (!json_object_size(runs)) {
		json_decref(runs);
		return NULL;
	}
	/* per cell and side, the median of each part's share over its runs */
	json_t *cells = json_object();
	const char *name;
	json_t *facts;
	json_object_foreach(runs, name, facts) {
		const char *cell = json_string_value(json_object_get(facts, "cell"));
		for (int k = 0; k < 2; k++) {
			const char *side = k ? "peer" : "sender";
			if (!json_object_get(facts, side) || json_object_get(json_object_get(cells, cell), side))
				continue;
			double col[MAX_RUNS];
			json_t *median = json_object();
			size_t n = 0;
			for (int p = 0; p < NPARTS; p++) {
				n = 0;
				const char *other;
				json_t *of;
				json_object_foreach(runs, other, of)
					if (strcmp(json_string_value(json_object_get(of, "cell")), cell) == 0 && json_object_get(of, side) &&
					    n < MAX_RUNS)
						col[n++] = strtod(json_string_value(json_object_get(json_object_get(json_object_get(of, side), "split"),
												   parts[p])) ?: "0", NULL);
				json_object_set_new(median, parts[p], ev_json_decimal_of(ev_median(col, n), 4));
			}
			if (!json_object_get(cells, cell))
				json_object_set_new(cells, cell, json_object());
			json_object_set_new(json_object_get(cells, cell), side, json_pack("{s:I, s:o}", "runs", (json_int_t)n, "split", median));
		}
	}
	return json_pack("{s:o, s:o}", "runs", runs, "cells", cells);
}

static double share(const json_t *split, const char *part)
{
	return strtod(json_string_value(json_object_get(split, part)) ?: "0", NULL);
}


/* One row of the partition chart: each item as wide as its share, its name
 * written only where it fits. */
/* The parts' column headers, then a row's shares of them (and its end). */
static void share_headers(struct ev_textbuf *t, int html)
{
	for (int p = 0; p < NPARTS; p++)
		ev_textbuf_add(t, html ? "<th>%s (%%)</th>" : " %s |", parts[p]);
}

static void share_cells(struct ev_textbuf *t, int html, const json_t *split)
{
	for (int p = 0; p < NPARTS; p++)
		ev_textbuf_add(t, html ? "<td>%.1f</td>" : " %.1f%% |", 100 * share(split, parts[p]));
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
		for (int p = 0; p < NPARTS; p++) {
			double w = share(items, parts[p]) * width;
			if (w <= 0)
				continue;
			ev_textbuf_add(t, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>%s %.1f%%</title></rect>\n",
				       20 + x, y, w, h, colours[p], parts[p], 100 * share(items, parts[p]));
			if (w > 7.0 * (double)(strlen(parts[p]) + 7))
				ev_textbuf_add(t, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"#fff\">%s %.1f%%</text>\n", 24 + x,
					       y + 15, parts[p], 100 * share(items, parts[p]));
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
