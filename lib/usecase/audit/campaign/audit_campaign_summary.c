/* SPDX-License-Identifier: Apache-2.0 */
/* audit campaign, the summary: per arm and cell, the median of its runs'
 * statistics (never a quantile of pooled samples), and the facts of the
 * summary and the receipt. */
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
#include "lib/campaign/run.h"
#include "lib/core/path.h"
#include "lib/core/publish.h"
#include "lib/core/json.h"
#include "lib/receipt/receipt.h"
#include "lib/core/sha256.h"
#include "lib/stats/bootstrap.h"
#include "lib/usecase/audit/campaign/parts.h"

const char *const ev_audit_campaign_q_names[EV_CAMPAIGN_NQ] = {"p50", "p95", "p99", "p99.9"};
const char *const ev_audit_campaign_q_percent[EV_CAMPAIGN_NQ] = {"50", "95", "99", "99.9"};

/* Arms and cells in the plan's order (else the runs'). */
size_t ev_audit_campaign_arms_of(const struct ev_audit_campaign *ca, const char **out, size_t cap)
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

size_t ev_audit_campaign_cells_of(const struct ev_audit_campaign *ca, const char **out, size_t cap)
{
	size_t n = 0;
	size_t i;
	for (i = 0; i < ev_plan_cell_count(&ca->plan); i++)
		if (n < cap)
			out[n++] = ev_plan_cell_name(&ca->plan, i);
	for (i = 0; i < ca->nruns; i++) {
		size_t k = 0;
		while (k < n && strcmp(out[k], ca->runs[i].cell) != 0)
			k++;
		if (k == n && n < cap)
			out[n++] = ca->runs[i].cell;
	}
	return n;
}

int ev_audit_campaign_run_summed(const struct ev_audited_run *r)
{
	/* a failed run, one that failed its audit, or a profiled one (perf
	 * perturbs latency) is shown, never summed up */
	return ((r->analysed && r->m.n) || r->printed) && strcmp(r->result, "ok") == 0 && !r->differ && !r->findings &&
	       !r->profiled && !r->pin_altered;
}

int ev_audit_campaign_run_statistic(const struct ev_audited_run *r, int k, double *v)
{
	if (r->printed) {
		if (k < EV_CAMPAIGN_NQ && r->pq_have[k])
			*v = r->pq[k];
		else if (k == EV_CAMPAIGN_NQ && r->pmean_have)
			*v = r->pmean;
		else if (k == EV_CAMPAIGN_NQ + 1 && r->pmax_have)
			*v = r->pmax;
		else
			return -1;
		return 0;
	}
	if (k < EV_CAMPAIGN_NQ)
		*v = r->q[k];
	else if (k == EV_CAMPAIGN_NQ)
		*v = ev_moments_mean(&r->m);
	else if (k == EV_CAMPAIGN_NQ + 1)
		*v = (double)r->m.max;
	else if ((size_t)(k - EV_CAMPAIGN_NQ - 2) < r->nspectrum)
		*v = r->spectrum[k - EV_CAMPAIGN_NQ - 2];
	else
		return -1;
	return 0;
}

void ev_audit_campaign_summarise_cell(const struct ev_audit_campaign *ca, const char *arm, const char *cell,
			   struct ev_cell_summary *cs)
{
	double *col = malloc((ca->nruns ? ca->nruns : 1) * sizeof *col);
	memset(cs, 0, sizeof *cs);
	cs->unit = "ticks";
	for (size_t i = 0; col && i < ca->nruns; i++) {
		const struct ev_audited_run *r = &ca->runs[i];
		if (strcmp(r->arm, arm) != 0 || strcmp(r->cell, cell) != 0 || !ev_audit_campaign_run_summed(r))
			continue;
		cs->runs++;
		cs->rule = r->rule;
		cs->printed |= r->printed;
		/* what a program printed is in ns (ev_native_stat_ns) */
		cs->unit = r->printed || r->tps == 1000000000u ? "ns" : "ticks";
	}
	for (int k = 0; k <= EV_CAMPAIGN_NQ + 1 + EV_CAMPAIGN_SPECTRUM_STEPS && col && cs->runs; k++) {
		size_t n = 0;
		for (size_t i = 0; i < ca->nruns; i++) {
			const struct ev_audited_run *r = &ca->runs[i];
			double v;
			if (strcmp(r->arm, arm) != 0 || strcmp(r->cell, cell) != 0 || !ev_audit_campaign_run_summed(r) ||
			    ev_audit_campaign_run_statistic(r, k, &v) != 0)
				continue;
			if (k == EV_CAMPAIGN_NQ + 1)
				cs->largest_max = v > cs->largest_max ? v : cs->largest_max;
			else
				col[n++] = v;
		}
		/* a statistic only where every counted run has it: a median of
		 * some runs is not the cell's */
		if (n != cs->runs || k == EV_CAMPAIGN_NQ + 1)
			continue;
		double med = ev_median(col, n);
		if (k < EV_CAMPAIGN_NQ) {
			cs->q[k] = med;
			cs->q_have[k] = 1;
		} else if (k == EV_CAMPAIGN_NQ) {
			cs->mean = med;
			cs->mean_have = 1;
		} else {
			cs->spectrum[k - EV_CAMPAIGN_NQ - 2] = med;
			cs->nspectrum = (size_t)(k - EV_CAMPAIGN_NQ - 1);
		}
	}
	free(col);
}

int ev_audit_campaign_cell_has_runs(const struct ev_audit_campaign *ca, const char *arm, const char *cell)
{
	for (size_t i = 0; i < ca->nruns; i++)
		if (strcmp(ca->runs[i].arm, arm) == 0 && strcmp(ca->runs[i].cell, cell) == 0)
			return 1;
	return 0;
}

json_t *ev_audit_campaign_scales_json(const struct ev_audit_campaign *ca)
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

json_t *ev_audit_campaign_cells_json(const struct ev_audit_campaign *ca)
{
	const char *arms[64], *cells[256];
	size_t na = ev_audit_campaign_arms_of(ca, arms, 64), nc = ev_audit_campaign_cells_of(ca, cells, 256);
	json_t *out = json_array();
	for (size_t a = 0; a < na; a++)
		for (size_t c = 0; c < nc; c++) {
			struct ev_cell_summary cs;
			ev_audit_campaign_summarise_cell(ca, arms[a], cells[c], &cs);
			if (!cs.runs)
				continue;
			json_t *med = json_object();
			for (int k = 0; k < EV_CAMPAIGN_NQ; k++)
				json_object_set_new(med, ev_audit_campaign_q_names[k],
						    cs.q_have[k] ? ev_json_decimal_of(cs.q[k], 9) : json_null());
			json_object_set_new(med, "mean", cs.mean_have ? ev_json_decimal_of(cs.mean, 9) : json_null());
			json_array_append_new(out, json_pack("{s:s, s:s, s:I, s:s, s:s, s:s, s:o, s:I}", "arm", arms[a], "cell",
							     cells[c], "runs", (json_int_t)cs.runs, "rule", cs.rule ? cs.rule : "",
							     "unit", cs.unit, "source", cs.printed ? EV_CAMPAIGN_CELL_PRINTED : "recomputed",
							     "median_of_runs", med, "largest_max", (json_int_t)cs.largest_max));
		}
	return out;
}

/* What this campaign's pass means: per run, what could be recomputed;
 * the journals, audited here or left (named).
 * Kept whole: one sentence per kind of evidence, in the order summary.json
 * lists them; each is a count and its words. */
json_t *ev_audit_campaign_coverage(const struct ev_audit_campaign *ca)
{
	json_t *o = json_object(), *done = json_array(), *not = json_array();
	size_t series = 0, without = 0;
	for (size_t i = 0; i < ca->nruns; i++)
		if (ca->runs[i].analysed)
			series++;
		else
			without++;
	char text[256];
	if (series || !without) {
		snprintf(text, sizeof text, "%zu run%s: every sample of the raw series read, every printed statistic "
			 "compared or named not recomputable (each run's native.coverage in summary.json)", series,
			 series == 1 ? "" : "s");
		json_array_append_new(done, json_string(text));
	}
	if (ca->journals_audited) {
		snprintf(text, sizeof text, "the journals of %zu run%s audited as audit journal does, each run with its own "
			 "counts (audit-journal.json)",
			 ca->journal_pairs, ca->journal_pairs == 1 ? "" : "s");
		json_array_append_new(done, json_string(text));
	}
	if (ca->journals_audited && ca->reverse_pairs) {
		snprintf(text, sizeof text, "the other direction of %zu run%s: the peer's outgoing journal against the "
			 "sender's incoming one, no order expected (journal_pair_reverse)", ca->reverse_pairs,
			 ca->reverse_pairs == 1 ? "" : "s");
		json_array_append_new(done, json_string(text));
	}
	if (ca->stdout_compared) {
		snprintf(text, sizeof text, "what the sender printed beside its report, in %zu run%s: compared with the "
			 "series too (native_stdout)", ca->stdout_compared, ca->stdout_compared == 1 ? "" : "s");
		json_array_append_new(done, json_string(text));
	}
	if (ca->stdout_without_block) {
		snprintf(text, sizeof text, "the sender's stdout of %zu run%s with a report: it prints no statistics block "
			 "(nothing to compare)", ca->stdout_without_block, ca->stdout_without_block == 1 ? "" : "s");
		json_array_append_new(not, json_string(text));
	}
	const char *output;
	json_t *count;
	json_object_foreach(ca->unread, output, count) {
		snprintf(text, sizeof text, "%s of %lld run%s: declared, not read (no reader here knows an output of that "
			 "name; it is held by the seal or the capture receipt only)", output,
			 (long long)json_integer_value(count), json_integer_value(count) == 1 ? "" : "s");
		json_array_append_new(not, json_string(text));
	}
	if (without) {
		snprintf(text, sizeof text, "%zu run%s without a raw series: " EV_CAMPAIGN_CELL_PRINTED "; each block checked against "
			 "itself and its sample count against the plan", without, without == 1 ? "" : "s");
		json_array_append_new(not, json_string(text));
	}
	size_t held = 0, loose = 0;
	for (size_t i = 0; i < ca->nruns; i++) {
		const char *by = ev_audit_campaign_run_pinned_by(ca, &ca->runs[i]);
		held += strcmp(by, "capture receipt") == 0;
		loose += strcmp(by, "nothing") == 0 || strcmp(by, "capture receipt, in part") == 0;
	}
	if (held) {
		snprintf(text, sizeof text, "every file read of %zu run%s held against the capture receipt%s that recorded "
			 "it when it was written", held, held == 1 ? "" : "s", ca->capture_receipts == 1 ? "" : "s");
		json_array_append_new(done, json_string(text));
	}
	if (loose) {
		snprintf(text, sizeof text, "the bytes of %zu run%s as they were written: no seal, and no capture receipt "
			 "records every file read of %s", loose, loose == 1 ? "" : "s", loose == 1 ? "it" : "them");
		json_array_append_new(not, json_string(text));
	}
	size_t no_journal = 0;
	for (size_t i = 0; i < ca->nruns; i++)
		no_journal += !ca->runs[i].sjournal[0] && !ca->runs[i].pjournal[0];
	if (no_journal) {
		snprintf(text, sizeof text, "the journals of %zu run%s: run.json declares none (a program that keeps no "
			 "FIX journal)", no_journal, no_journal == 1 ? "" : "s");
		json_array_append_new(not, json_string(text));
	}
	size_t r;
	json_t *unjudged;
	json_array_foreach(json_object_get(ca->registration, "not_checked"), r, unjudged)
		json_array_append(not, unjudged);
	if (ca->journals_one_side) {
		snprintf(text, sizeof text, "one side's journal of %zu run%s: run.json declares the other side's only "
			 "(audited alone, nothing to compare it with)", ca->journals_one_side,
			 ca->journals_one_side == 1 ? "" : "s");
		json_array_append_new(not, json_string(text));
	}
	if (ca->journals_missing) {
		snprintf(text, sizeof text, "the journals of %zu run%s: declared, not there (each a failed check)",
			 ca->journals_missing, ca->journals_missing == 1 ? "" : "s");
		json_array_append_new(not, json_string(text));
	}
	if (ca->stack_options) {
		snprintf(text, sizeof text, "the stack options of %zu cell%s: every onload observer's output hashed again "
			 "and read, each run's effective options held against the cell's other runs and shown beside "
			 "the requested ones", json_object_size(ca->stack_options),
			 json_object_size(ca->stack_options) == 1 ? "" : "s");
		json_array_append_new(done, json_string(text));
	}
	if (ca->seal_hex[0]) {
		snprintf(text, sizeof text, "every file read under the campaign directory (plan.json, run.json, series, "
			 "reports, policy, capture receipts, and the journals audit-journal.json names) held against the seal "
			 "(SEAL.json %.16s...)", ca->seal_hex);
		json_array_append_new(done, json_string(text));
	} else {
		json_array_append_new(not, json_string("the files read against a seal: none was given (--seal SEAL.json)"));
	}
	size_t k;
	json_t *v;
	json_array_foreach(ca->options_not_read, k, v)
		json_array_append(not, v);
	json_object_set_new(o, "recomputed", done);
	json_object_set_new(o, "not_checked", not);
	return o;
}
