/* SPDX-License-Identifier: Apache-2.0 */
/* audit_reproduction: a campaign held to a published reference
 * (audit_reproduction.h). */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/json.h"
#include "lib/core/path.h"
#include "lib/core/publish.h"
#include "lib/receipt/receipt.h"
#include "lib/receipt/receipt_read.h"
#include "lib/stats/bootstrap.h"
#include "lib/usecase/audit/audit_reproduction.h"
#include "lib/usecase/common/outdir_receipt.h"

#define REPRODUCTION_FORMAT "evidence-reproduction/1"

/* The recorded value a stack or hardware key of the reference is held
 * against, from the summary's provenance; NULL when not recorded. */
static const char *recorded(const json_t *prov, const char *key, const char *want, char *buf, size_t cap)
{
	if (!strcmp(key, "cpu_model") || !strcmp(key, "os"))
		return json_string_value(json_object_get(prov, key));
	if (!strcmp(key, "kernel_release"))
		return json_string_value(json_object_get(json_object_get(prov, "kernel"), "release"));
	const json_t *programs = json_object_get(prov, "programs");
	if (!json_is_array(programs) || !json_array_size(programs))
		return NULL;
	size_t i;
	json_t *p;
	if (!strcmp(key, "network")) {
		const char *net = "kernel";
		json_array_foreach(programs, i, p) {
			const char *path = json_string_value(json_object_get(p, "path")) ?: "";
			const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
			if (!strcmp(base, "onload"))
				net = "onload"; /* a side ran under Onload's launcher */
		}
		return net;
	}
	/* program_sha256: the sender's program, when one of them is the one named */
	const char *first = NULL;
	json_array_foreach(programs, i, p) {
		if (strcmp(json_string_value(json_object_get(p, "side")) ?: "", "sender") != 0)
			continue;
		const char *sha = json_string_value(json_object_get(p, "sha256"));
		if (sha && !strcmp(sha, want))
			return sha;
		if (!first)
			first = sha;
	}
	snprintf(buf, cap, "%s", first ? first : "");
	return first ? buf : NULL;
}

/* What keeps the campaign from being held to the reference, as sentences. */
static json_t *differences(const struct ev_compare_side *s, const struct ev_compare_group *g, const struct ev_reference *ref)
{
	json_t *out = json_array();
	char text[1024], buf[128];
	if (strcmp(g->grade, "quiet") != 0) {
		char failed[512] = "";
		size_t used = 0, i;
		json_t *c;
		json_array_foreach(json_object_get(json_object_get(s->doc, "grade"), "conditions"), i, c) {
			const char *v = json_string_value(json_object_get(c, "verdict")) ?: "";
			if ((!strcmp(v, "fail") || !strcmp(v, "unknown")) && used < sizeof failed)
				used += (size_t)snprintf(failed + used, sizeof failed - used, "%s%s %s", used ? ", " : "",
							 json_string_value(json_object_get(c, "condition")), v);
		}
		if (!strcmp(g->grade, "ungraded"))
			snprintf(text, sizeof text, "the summary carries no grade (audit the campaign again): a published figure is reproduced only by quiet runs");
		else
			snprintf(text, sizeof text, "arm %s cell %s is %s (%s): a published figure is reproduced only by quiet runs",
				 g->arm, g->cell, g->grade, failed[0] ? failed : "see its summary");
		json_array_append_new(out, json_string(text));
	}
	const json_t *prov = json_object_get(s->doc, "provenance");
	static const char *const parts[] = {"hardware", "stack"};
	for (int p = 0; p < 2; p++) {
		const char *key;
		json_t *want;
		json_object_foreach(json_object_get(ref->doc, parts[p]), key, want) {
			const char *w = json_string_value(want);
			const char *have = recorded(prov, key, w, buf, sizeof buf);
			if (!have)
				snprintf(text, sizeof text, "%s: the campaign does not record it, the reference names %s", key, w);
			else if (strcmp(have, w) != 0)
				snprintf(text, sizeof text, "%s: the campaign's %s, the reference's %s", key, have, w);
			else
				continue;
			json_array_append_new(out, json_string(text));
		}
	}
	return out;
}

static json_t *decimal(double v)
{
	return ev_json_decimal_of(v == 0 ? 0 : v, 9);
}

static ev_status hold(const struct ev_compare_group *g, const struct ev_reference *ref, struct ev_held_stat *h, size_t *n,
		      struct ev_error *err)
{
	*n = 0;
	for (int k = 0; k < EV_COMPARE_NSTATS; k++) {
		const struct ev_native_stat *st = NULL;
		for (size_t i = 0; i < ref->native.n && !st; i++)
			if (!strcmp(ref->native.stats[i].name, ev_compare_stat_names[k]))
				st = &ref->native.stats[i];
		double v, slack;
		if (!st || ev_native_stat_ns(st, &v, &slack) != 0)
			continue;
		double *tmp = malloc(g->n * sizeof *tmp);
		if (!tmp)
			return ev_error_set(err, EV_ERROR, "out of memory");
		memcpy(tmp, g->v[k], g->n * sizeof *tmp);
		struct ev_held_stat *x = &h[(*n)++];
		x->name = ev_compare_stat_names[k];
		x->median = ev_median(tmp, g->n);
		free(tmp);
		ev_compare_range_of(g->v[k], g->n, &x->lo, &x->hi);
		x->reference = v;
		x->printed = st->text;
		x->ratio = v != 0 ? x->median / v : NAN;
	}
	if (!*n)
		return ev_error_set(err, EV_USAGE, "%s: states none of p50, p95, p99, p99.9, mean, max: nothing to hold the campaign to",
				    ref->stats_path);
	return EV_OK;
}

static void verdict(const json_t *diffs, const struct ev_held_stat *h, size_t n, double tolerance, char *out, size_t cap)
{
	if (json_array_size(diffs)) {
		size_t used = (size_t)snprintf(out, cap, "not comparable: ");
		size_t i;
		json_t *d;
		json_array_foreach(diffs, i, d) if (used < cap) used +=
			(size_t)snprintf(out + used, cap - used, "%s%s", i ? "; " : "", json_string_value(d));
		return;
	}
	double worst = 0;
	size_t at = 0;
	for (size_t i = 0; i < n; i++) {
		double dev = isnan(h[i].ratio) ? INFINITY : fabs(h[i].ratio - 1) * 100;
		if (dev > worst) {
			worst = dev;
			at = i;
		}
	}
	if (worst <= tolerance)
		snprintf(out, cap, "reproduced within %.1f%% (tolerance %g%%)", ceil(worst * 10 - 1e-9) / 10, tolerance);
	else
		snprintf(out, cap, "not reproduced: %s is %.3fx the reference's (beyond the tolerance of %g%%)", h[at].name,
			 h[at].ratio, tolerance);
}

static json_t *document(const struct ev_compare_side *s, const struct ev_compare_group *g, const struct ev_reference *ref,
			const struct ev_held_stat *h, size_t n, json_t *diffs, const char *said)
{
	json_t *stats = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(stats, json_pack("{s:s, s:{s:o, s:o, s:o}, s:{s:s, s:o}, s:o}", "name", h[i].name,
						       "campaign", "median", decimal(h[i].median), "min", decimal(h[i].lo),
						       "max", decimal(h[i].hi), "reference", "printed", h[i].printed,
						       "value", decimal(h[i].reference), "ratio",
						       isnan(h[i].ratio) ? json_null() : decimal(h[i].ratio)));
	return json_pack("{s:s, s:{s:s, s:s, s:s, s:s, s:I, s:s}, s:{s:s, s:s, s:O, s:O, s:O, s:{s:s, s:s, s:s}, s:o}, s:o, s:O, s:s}",
			 "format", REPRODUCTION_FORMAT, "campaign", "name", s->campaign, "summary_sha256", s->sha256, "arm",
			 g->arm, "cell", g->cell, "runs", (json_int_t)g->n, "grade", g->grade, "reference", "name", ref->name,
			 "sha256", ref->sha256, "published", json_object_get(ref->doc, "published"), "hardware",
			 json_object_get(ref->doc, "hardware"), "stack", json_object_get(ref->doc, "stack"), "statistics",
			 "path", ref->stats_path, "sha256", ref->stats_sha256, "tool", ref->native.tool,
			 "tolerance_percent", decimal(ref->tolerance_percent), "statistics", stats, "differences", diffs,
			 "verdict", said);
}

/* The arm and cell the reference is held to: the ones named, else the
 * summary's only one. */
static const json_t *chosen_cell(const struct ev_compare_side *s, const struct ev_audit_reproduction *o,
				 struct ev_error *err)
{
	const json_t *cells = json_object_get(s->doc, "cells");
	if (o->arm && o->cell) {
		const json_t *c = ev_compare_cell_named(s, o->arm, o->cell);
		if (!c)
			ev_error_set(err, EV_USAGE, "%s: no arm %s cell %s", s->summary, o->arm, o->cell);
		return c;
	}
	if (!o->arm && !o->cell && json_array_size(cells) == 1)
		return json_array_get(cells, 0);
	ev_error_set(err, EV_USAGE, "%s: %zu arms and cells: name the one the reference is held to (--arm A --cell X)",
		     s->summary, json_array_size(cells));
	return NULL;
}

ev_status ev_audit_reproduction_run(struct ev_audit_reproduction *o, json_t *receipt, struct ev_error *err)
{
	struct ev_compare_side *s = &o->side;
	struct ev_compare_group *g = &o->group;
	o->not_checked = json_array();
	ev_status st = ev_compare_load_side(s, o->summary, receipt, 'A', err);
	if (st == EV_OK && (st = ev_reference_load(o->reference, o->reference_sha256, &o->ref, err)) == EV_OK &&
	    (st = ev_receipt_add_input(receipt, "reference", o->reference, o->ref.sha256, err)) == EV_OK)
		st = ev_receipt_add_input(receipt, "reference statistics", o->ref.stats_path, o->ref.stats_sha256, err);
	if (st == EV_OK)
		st = ev_compare_check_side_receipt(s, 'A', receipt, o->not_checked, o->on_finding, o->ctx, err);
	struct ev_compare_selection sel = {{NULL, NULL}, {NULL, NULL}, o->ref.sha256};
	if (st == EV_OK)
		ev_compare_side_read_registration(s);
	if (st == EV_OK)
		st = ev_compare_registration(s, s, &sel, o->unregistered, &o->registration, err);
	const json_t *cell = st == EV_OK ? chosen_cell(s, o, err) : NULL;
	if (st == EV_OK && !cell)
		st = err->status;
	if (st == EV_OK && (st = ev_compare_group_load(g, s, cell, err)) == EV_OK)
		st = ev_compare_check_group_medians(g, 'A', receipt, o->on_finding, o->ctx, err);
	if (st == EV_OK && !g->n)
		st = ev_error_set(err, EV_USAGE, "%s: arm %s cell %s has no run that held: nothing to hold to the reference",
				  s->summary, g->arm, g->cell);
	if (st == EV_OK && strcmp(g->unit, "ns") != 0)
		st = ev_error_set(err, EV_USAGE, "%s: arm %s cell %s is in %s, the reference in ns: not compared", s->summary,
				  g->arm, g->cell, g->unit);
	if (st == EV_OK)
		st = hold(g, &o->ref, o->held, &o->nheld, err);
	if (st != EV_OK)
		return st;
	o->differences = differences(s, g, &o->ref);
	verdict(o->differences, o->held, o->nheld, o->ref.tolerance_percent, o->verdict, sizeof o->verdict);
	o->doc = document(s, g, &o->ref, o->held, o->nheld, o->differences, o->verdict);
	if (o->doc)
		json_object_set(o->doc, "registration", o->registration);
	return o->doc ? EV_OK : ev_error_set(err, EV_ERROR, "out of memory");
}

ev_status ev_audit_reproduction_publish(struct ev_audit_reproduction *o, json_t *receipt,
					const struct ev_compare_output *more, size_t nmore, struct ev_error *err)
{
	struct ev_outdir od = {0};
	int opened = 0;
	ev_status st = ev_outdir_open(&od, o->out, err);
	if (st != EV_OK)
		return st;
	opened = 1;
	char tmpdir[PATH_MAX];
	if ((st = ev_outdir_receipt_tmpdir(&od, o->out, tmpdir, sizeof tmpdir, err)) != EV_OK)
		goto out;
	if ((st = ev_json_dump(o->doc, &o->bytes, &o->len, err)) != EV_OK ||
	    (st = ev_outdir_receipt_add(tmpdir, o->out, "reproduction.json", o->bytes, o->len, receipt, err)) != EV_OK)
		goto out;
	for (size_t i = 0; i < nmore; i++)
		if ((st = ev_outdir_receipt_add(tmpdir, o->out, more[i].name, more[i].bytes, more[i].len, receipt, err)) != EV_OK)
			goto out;
	json_array_append_new(o->not_checked, json_string("the runs' raw series: their statistics are taken from summary.json "
							  "as audit campaign recomputed them; the published figures as printed"));
	ev_receipt_set_fact(receipt, "verdict", json_string(o->verdict), err);
	ev_receipt_set_fact(receipt, "registration", json_incref(o->registration), err);
	ev_receipt_set_fact(receipt, "differences", json_incref(o->differences), err);
	ev_receipt_set_fact(receipt, "statistics", json_incref(json_object_get(o->doc, "statistics")), err);
	ev_receipt_set_fact(receipt, "coverage", json_pack("{s:[s], s:O}", "recomputed",
							   "each statistic's median of the cell's counted runs, held against the summary's "
							   "medians, and its ratio to the published value",
							   "not_checked", o->not_checked), err);
	if ((st = ev_outdir_receipt_commit(&od, &opened, tmpdir, o->out, receipt, o->sign_key, o->interrupted, err)) != EV_OK)
		goto out;
	st = strcmp(ev_receipt_result(receipt), "pass") == 0 ? EV_OK : EV_MISMATCH;
out:
	if (opened)
		ev_outdir_abort(&od);
	return st;
}

void ev_audit_reproduction_free(struct ev_audit_reproduction *o)
{
	free(o->bytes);
	o->bytes = NULL;
	ev_compare_group_free(&o->group);
	json_decref(o->doc);
	json_decref(o->differences);
	json_decref(o->not_checked);
	json_decref(o->registration);
	json_decref(o->side.doc);
	json_decref(o->side.registration);
	o->side.registration = NULL;
	o->doc = o->differences = o->not_checked = o->registration = o->side.doc = NULL;
	ev_reference_free(&o->ref);
}
