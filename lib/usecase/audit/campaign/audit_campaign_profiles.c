/* SPDX-License-Identifier: Apache-2.0 */
/* audit campaign: profiled runs, apart. Every side perf ran beside is read
 * as audit profile reads it (lib/usecase/audit/profile_side), its checks in the
 * campaign's receipt; per cell and side, the median of the runs' shares
 * of each part of the split. A profiled run never enters a cell's latency
 * statistics (audit_campaign_summary.c). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/campaign/run.h"
#include "lib/core/json.h"
#include "lib/core/path.h"
#include "lib/receipt/receipt.h"
#include "lib/stats/bootstrap.h"
#include "lib/usecase/audit/campaign/parts.h"
#include "lib/usecase/audit/profile_side.h"

const char *const ev_audit_campaign_profile_parts[EV_CAMPAIGN_PROFILE_PARTS] = {"application", "network stack", "libc",
										  "kernel", "other"};

struct run_finding {
	const struct ev_audit_campaign *ca;
	const char *run;
};

/* A finding of a run's profile, named by the run. */
static void run_finding(void *ctx, const struct ev_finding *f)
{
	const struct run_finding *rf = ctx;
	ev_audit_campaign_finding(rf->ca, rf->run, f);
}

json_t *ev_audit_campaign_profiles(struct ev_audit_campaign *ca, struct ev_error *err)
{
	/* The plan's "perf" is the program capture ran; the auditor's perf
	 * comes from the command line alone, never from the evidence. */
	const char *perf = ca->perf ? ca->perf : "/usr/bin/perf";
	json_t *runs = json_object();
	for (size_t i = 0; i < ca->nruns && !*ca->interrupted; i++) {
		struct ev_audited_run *r = &ca->runs[i];
		if (!r->profiled)
			continue;
		char path[PATH_MAX], prefix[256];
		struct ev_run run;
		struct ev_error one;
		ev_error_clear(&one);
		if (ev_path_join(path, sizeof path, r->dir, EV_RUN_FILENAME) != 0 || ev_run_load(path, 0, &run, NULL, &one) != EV_OK)
			continue; /* load_runs read it: it cannot be missing now */
		snprintf(prefix, sizeof prefix, "run %s ", r->name);
		struct run_finding shown = {ca, r->name};
		struct ev_profile_ctx a = {ca->receipt, r->name, prefix, run_finding, &shown, ca->interrupted, 0};
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
				ev_audit_campaign_note(ca, "%s: %s", r->name, one.text);
				ev_error_clear(&one);
			}
		}
		json_object_set_new(facts, "cell", json_string(r->cell));
		json_object_set_new(facts, "arm", json_string(r->arm));
		json_object_set_new(runs, r->name, facts);
		ev_run_free(&run);
	}
	if (*ca->interrupted) {
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
			double col[EV_CAMPAIGN_MAX_RUNS];
			json_t *median = json_object();
			size_t n = 0;
			for (int p = 0; p < EV_CAMPAIGN_PROFILE_PARTS; p++) {
				n = 0;
				const char *other;
				json_t *of;
				json_object_foreach(runs, other, of)
					if (strcmp(json_string_value(json_object_get(of, "cell")), cell) == 0 && json_object_get(of, side) &&
					    n < EV_CAMPAIGN_MAX_RUNS)
						col[n++] = strtod(json_string_value(json_object_get(json_object_get(json_object_get(of, side), "split"),
												   ev_audit_campaign_profile_parts[p])) ?: "0", NULL);
				json_object_set_new(median, ev_audit_campaign_profile_parts[p], ev_json_decimal_of(ev_median(col, n), 4));
			}
			if (!json_object_get(cells, cell))
				json_object_set_new(cells, cell, json_object());
			json_object_set_new(json_object_get(cells, cell), side, json_pack("{s:I, s:o}", "runs", (json_int_t)n, "split", median));
		}
	}
	return json_pack("{s:o, s:o}", "runs", runs, "cells", cells);
}

