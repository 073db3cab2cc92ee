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
#include "audit/campaign.h"

static void md_value(struct text *t, double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		audit_text_add(t, " %.0f |", v);
	else
		audit_text_add(t, " %.1f |", v);
}

void audit_campaign_write_markdown(const struct campaign_audit *ca, struct text *t, json_t *summary)
{
	const char *arms[64], *cells[256];
	size_t na = audit_campaign_arms_of(ca, arms, 64), nc = audit_campaign_cells_of(ca, cells, 256);
	audit_text_add(t, "# Campaign %s\n\n", json_string_value(json_object_get(summary, "campaign")));
	audit_text_add(t, "Per arm and cell: the median over the runs of each run's statistic, recomputed from its raw\n"
		    "series with the rule its benchmark used (never a quantile of pooled samples), and the largest\n"
		    "maximum of any run. Every run follows in its own row; a run that failed, or failed its\n"
		    "audit (DIFFERS, DAMAGED), is shown there and left out of its cell's median, and so is a\n"
		    "profiled run (perf perturbs latency: its profile is shown apart).\n\n");
	for (size_t a = 0; a < na; a++) {
		audit_text_add(t, "## Arm %s\n\n| cell | runs | rule | p50 | p95 | p99 | p99.9 | mean | largest max |\n"
			    "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n", arms[a]);
		for (size_t c = 0; c < nc; c++) {
			struct cell_summary cs;
			audit_campaign_summarise_cell(ca, arms[a], cells[c], &cs);
			if (!cs.runs) { /* shown, so that a cell none of whose runs held is not lost */
				if (audit_campaign_cell_has_runs(ca, arms[a], cells[c]))
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
			audit_text_add(t, "| %s | %s | %s%s |", r->name, r->cell, r->result, r->profiled ? ", profiled" : "");
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
	audit_campaign_write_stack_options(ca->stack_options, t, 0);
	audit_campaign_write_profiles(ca->profiles, t, 0);
}

void audit_campaign_write_html(const struct campaign_audit *ca, struct text *t, const char *campaign)
{
	const char *arms[64], *cells[256];
	size_t na = audit_campaign_arms_of(ca, arms, 64), nc = audit_campaign_cells_of(ca, cells, 256);
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
			audit_campaign_summarise_cell(ca, arms[a], cells[c], &cs[c]);
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
			if (!r->analysed || !r->m.n || strcmp(r->arm, arms[a]) != 0 || r->profiled)
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
	audit_campaign_write_stack_options(ca->stack_options, t, 1);
	audit_campaign_write_profiles(ca->profiles, t, 1);
	audit_text_add(t, "</body></html>\n");
}
