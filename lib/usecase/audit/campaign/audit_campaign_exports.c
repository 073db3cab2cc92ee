/* SPDX-License-Identifier: Apache-2.0 */
/* audit campaign, the exports: what leaves for the tools people already
 * plot and tabulate with. Each analysed run's distribution and each
 * cell's (its counted runs' samples together, as HdrHistogram's add
 * would: for plotting, never for the cell's statistics, which stay
 * medians of runs) as HdrHistogram percentile distribution text, and the
 * recomputed statistics of every run as CSV. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/usecase/audit/campaign/parts.h"
#include "lib/core/json.h"
#include "lib/core/textbuf.h"
#include "lib/stats/hgrm.h"

/* Run, arm and cell names come from run.json: a file name keeps only
 * what is safe in one path component. */
static void file_name(char *out, size_t cap, const char *prefix, const char *a, const char *b)
{
	size_t n = (size_t)snprintf(out, cap, "%s", prefix);
	for (int part = 0; part < 2; part++) {
		const char *s = part ? b : a;
		if (!s)
			continue;
		if (part && n + 1 < cap)
			out[n++] = '-';
		for (; *s && n + 1 < cap; s++)
			out[n++] = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
						   *s == '.' || *s == '_' || *s == '-' ? *s : '_';
	}
	snprintf(out + n, cap - n, ".hgrm");
}

static ev_status publish_hgrm(struct ev_audit_campaign *ca, const char *name, const struct ev_distribution *d,
			      struct ev_error *err)
{
	size_t len;
	char *text = ev_hgrm_text(d, 1.0, 3, &len);
	if (!text)
		return ev_error_set(err, EV_ERROR, "out of memory for %s", name);
	ev_status st = ev_audit_campaign_publish_file(ca, name, text, len, err);
	free(text);
	return st;
}

/* A statistic's exact text from the run's summary: an integer, or a
 * decimal string; empty when the run has none. */
static void csv_number(struct ev_textbuf *t, const json_t *v)
{
	if (json_is_integer(v))
		ev_textbuf_add(t, ",%lld", (long long)json_integer_value(v));
	else if (json_is_string(v))
		ev_textbuf_add(t, ",%s", json_string_value(v));
	else
		ev_textbuf_add(t, ",");
}

/* RFC 4180: a field holding a comma, a quote or a line break is quoted. */
static void csv_field(struct ev_textbuf *t, const char *s, int first)
{
	if (!first)
		ev_textbuf_add(t, ",");
	if (!strpbrk(s, ",\"\r\n")) {
		ev_textbuf_add(t, "%s", s);
		return;
	}
	ev_textbuf_add(t, "\"");
	for (; *s; s++)
		if (*s == '"')
			ev_textbuf_add(t, "\"\"");
		else
			ev_textbuf_add(t, "%c", *s);
	ev_textbuf_add(t, "\"");
}

static void runs_csv(const struct ev_audit_campaign *ca, struct ev_textbuf *t)
{
	ev_textbuf_add(t, "run,arm,cell,repeat,result,in_cell_median,unit,rule,count,min,p50,p95,p99,p99.9,mean,max,"
		       "native_differ,series_findings,grade,smi,thermal_throttle,effective_frequency_pct,steal_ms,"
		       "swapped_pages,psi_cpu_per_mille,psi_memory_per_mille,psi_io_per_mille,marked\r\n");
	for (size_t i = 0; i < ca->nruns; i++) {
		const struct ev_audited_run *r = &ca->runs[i];
		const json_t *rec = json_object_get(r->json, "recomputed"), *q = json_object_get(rec, "quantiles");
		char repeat[24];
		snprintf(repeat, sizeof repeat, "%d", r->repeat);
		csv_field(t, r->name, 1);
		csv_field(t, r->arm, 0);
		csv_field(t, r->cell, 0);
		csv_field(t, repeat, 0);
		csv_field(t, r->result, 0);
		csv_field(t, ev_audit_campaign_run_summed(r) ? "true" : "false", 0);
		csv_field(t, r->analysed ? (r->tps == 1000000000u ? "ns" : "ticks") : "", 0);
		csv_field(t, r->analysed ? r->rule : "", 0);
		csv_number(t, json_object_get(rec, "count"));
		csv_number(t, json_object_get(rec, "min"));
		for (int k = 0; k < EV_CAMPAIGN_NQ; k++)
			csv_number(t, json_object_get(q, ev_audit_campaign_q_names[k]));
		csv_number(t, json_object_get(rec, "mean"));
		csv_number(t, json_object_get(rec, "max"));
		ev_textbuf_add(t, ",%u,%u", r->differ, r->findings);
		csv_field(t, r->grade_of, 0);
		const json_t *f = r->interference, *psi = json_object_get(f, "pressure_per_mille");
		static const char *const figures[] = {"smi", "thermal_throttle", "effective_frequency_pct", "steal_ms",
						      "swapped_pages"};
		for (size_t k = 0; k < sizeof figures / sizeof *figures; k++)
			csv_number(t, json_object_get(f, figures[k]));
		csv_number(t, json_object_get(psi, "cpu"));
		csv_number(t, json_object_get(psi, "memory"));
		csv_number(t, json_object_get(psi, "io"));
		char marked[64] = "";
		size_t k, used = 0;
		json_t *m;
		json_array_foreach(json_object_get(f, "marked"), k, m) used += (size_t)snprintf(
			marked + used, used < sizeof marked ? sizeof marked - used : 0, "%s%s", k ? " " : "", json_string_value(m));
		csv_field(t, marked, 0);
		ev_textbuf_add(t, "\r\n");
	}
}

ev_status ev_audit_campaign_write_exports(struct ev_audit_campaign *ca, struct ev_error *err)
{
	char name[512];
	ev_status st = EV_OK;
	for (size_t i = 0; i < ca->nruns && st == EV_OK; i++) {
		if (!ca->runs[i].dist.total)
			continue;
		file_name(name, sizeof name, "run-", ca->runs[i].name, NULL);
		st = publish_hgrm(ca, name, &ca->runs[i].dist, err);
	}
	const char *arms[64], *cells[256];
	size_t na = ev_audit_campaign_arms_of(ca, arms, 64), nc = ev_audit_campaign_cells_of(ca, cells, 256);
	for (size_t a = 0; a < na && st == EV_OK; a++)
		for (size_t c = 0; c < nc && st == EV_OK; c++) {
			struct ev_distribution all = {0};
			for (size_t i = 0; i < ca->nruns; i++) {
				const struct ev_audited_run *r = &ca->runs[i];
				if (strcmp(r->arm, arms[a]) != 0 || strcmp(r->cell, cells[c]) != 0 ||
				    !ev_audit_campaign_run_summed(r) || !r->dist.total)
					continue;
				struct ev_distribution merged;
				if (ev_distribution_merge(&all, &r->dist, &merged) != 0) {
					ev_distribution_free(&all);
					return ev_error_set(err, EV_ERROR, "out of memory for the cell %s %s", arms[a], cells[c]);
				}
				ev_distribution_free(&all);
				all = merged;
			}
			if (all.total) {
				file_name(name, sizeof name, "cell-", arms[a], cells[c]);
				st = publish_hgrm(ca, name, &all, err);
			}
			ev_distribution_free(&all);
		}
	if (st != EV_OK)
		return st;
	struct ev_textbuf csv = {0};
	runs_csv(ca, &csv);
	if (csv.oom)
		st = ev_error_set(err, EV_ERROR, "out of memory for runs.csv");
	else
		st = ev_audit_campaign_publish_file(ca, "runs.csv", csv.s, csv.n, err);
	ev_textbuf_free(&csv);
	return st;
}
