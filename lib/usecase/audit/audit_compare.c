/* SPDX-License-Identifier: Apache-2.0 */
/* audit_compare: two summaries' arms and cells compared run for run
 * (audit_compare.h). */
#include "config.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/json.h"
#include "lib/core/path.h"
#include "lib/core/text.h"
#include "lib/receipt/receipt.h"
#include "lib/receipt/receipt_read.h"
#include "lib/stats/quantile.h"
#include "lib/usecase/audit/audit_compare.h"
#include "lib/usecase/common/outdir_receipt.h"

#define CONFIDENCE 0.95
#define COMPARISON_FORMAT "evidence-run-comparison/1"

static const char *verdict_of(const double *a, size_t na, const double *b, size_t nb)
{
	double alo, ahi, blo, bhi;
	ev_compare_range_of(a, na, &alo, &ahi);
	ev_compare_range_of(b, nb, &blo, &bhi);
	if (ahi < blo)
		return "A lower in every run";
	if (bhi < alo)
		return "B lower in every run";
	return "inconclusive: runs overlap";
}

static ev_status compare_pair(struct ev_compare_pair *p, const struct ev_audit_compare *o, struct ev_error *err)
{
	for (int k = 0; k < EV_COMPARE_NSTATS; k++) {
		double *ta = malloc(p->a.n * sizeof *ta), *tb = malloc(p->b.n * sizeof *tb);
		if (!ta || !tb) {
			free(ta);
			free(tb);
			return ev_error_set(err, EV_ERROR, "out of memory");
		}
		memcpy(ta, p->a.v[k], p->a.n * sizeof *ta);
		memcpy(tb, p->b.v[k], p->b.n * sizeof *tb);
		p->med_a[k] = ev_median(ta, p->a.n);
		p->med_b[k] = ev_median(tb, p->b.n);
		free(ta);
		free(tb);
		p->verdict[k] = verdict_of(p->a.v[k], p->a.n, p->b.v[k], p->b.n);
	}
	return ev_bootstrap_runs((const double *const *)p->a.v, p->a.n, (const double *const *)p->b.v, p->b.n, EV_COMPARE_NSTATS,
				 o->resamples, o->seed, CONFIDENCE, p->iv, o->interrupted, err);
}

/* The decimal text canonical JSON holds; never "-0". */
static json_t *decimal(double v)
{
	return ev_json_decimal_of(v == 0 ? 0 : v, 9);
}

static json_t *side_json(const struct ev_compare_group *g, int k, double median)
{
	json_t *runs = json_array();
	double lo, hi;
	ev_compare_range_of(g->v[k], g->n, &lo, &hi);
	for (size_t i = 0; i < g->n; i++)
		json_array_append_new(runs, json_pack("{s:s, s:o}", "run", g->names[i], "value", decimal(g->v[k][i])));
	return json_pack("{s:o, s:o, s:o, s:o}", "median", decimal(median), "min", decimal(lo), "max", decimal(hi),
			 "runs", runs);
}

static json_t *pair_json(const struct ev_compare_pair *p)
{
	json_t *stats = json_array();
	for (int k = 0; k < EV_COMPARE_NSTATS; k++) {
		const struct ev_bootstrap_interval *iv = &p->iv[k];
		json_t *s = json_pack("{s:s, s:o, s:o, s:o, s:s}", "name", ev_compare_stat_names[k], "a", side_json(&p->a, k, p->med_a[k]),
				      "b", side_json(&p->b, k, p->med_b[k]), "difference_b_minus_a",
				      decimal(p->med_b[k] - p->med_a[k]), "verdict", p->verdict[k]);
		json_object_set_new(s, "ratio_b_over_a", p->med_a[k] != 0 ? decimal(p->med_b[k] / p->med_a[k]) : json_null());
		json_object_set_new(s, "interval_difference", json_pack("[o, o]", decimal(iv->diff_lo), decimal(iv->diff_hi)));
		json_object_set_new(s, "interval_ratio", iv->ratio_defined ?
				    json_pack("[o, o]", decimal(iv->ratio_lo), decimal(iv->ratio_hi)) : json_null());
		json_array_append_new(stats, s);
	}
	return json_pack("{s:{s:s, s:s, s:I, s:s}, s:{s:s, s:s, s:I, s:s}, s:s, s:s, s:b, s:o}", "a", "arm", p->a.arm,
			 "cell", p->a.cell, "runs", (json_int_t)p->a.n, "grade", p->a.grade, "b", "arm", p->b.arm, "cell",
			 p->b.cell, "runs", (json_int_t)p->b.n, "grade", p->b.grade, "unit", p->a.unit, "rule", p->a.rule,
			 "mixed_grades", ev_compare_pair_mixed(p), "statistics", stats);
}


static int selected(const char *want, const char *have)
{
	return !want || strcmp(want, have) == 0;
}


/* Two groups in one comparison must speak of the same thing. */
static ev_status comparable(const struct ev_compare_pair *p, struct ev_error *err)
{
	if (strcmp(p->a.unit, p->b.unit) != 0 || (strcmp(p->a.unit, "ticks") == 0 && p->a.ticks_per_second != p->b.ticks_per_second))
		return ev_error_set(err, EV_USAGE, "arm %s cell %s is in %s (%" PRIu64 " a second), arm %s cell %s in %s "
				    "(%" PRIu64 " a second): values on different scales are not compared", p->a.arm,
				    p->a.cell, p->a.unit, p->a.ticks_per_second, p->b.arm, p->b.cell, p->b.unit,
				    p->b.ticks_per_second);
	if (strcmp(p->a.rule, p->b.rule) != 0)
		return ev_error_set(err, EV_USAGE, "arm %s cell %s takes its quantiles by %s, arm %s cell %s by %s: "
				    "quantiles of different rules are not compared", p->a.arm, p->a.cell, p->a.rule,
				    p->b.arm, p->b.cell, p->b.rule);
	return EV_OK;
}

/* Every arm and cell of A that the options select, against its partner in
 * B (the other --arm or --cell, else the same names). */
static ev_status make_pairs(const struct ev_audit_compare *o, const struct ev_compare_side *sa, const struct ev_compare_side *sb,
			    json_t *receipt, struct ev_compare_pair **out, size_t *nout, json_t *unpaired, struct ev_error *err)
{
	const json_t *cells = json_object_get(sa->doc, "cells");
	struct ev_compare_pair *pairs = calloc(json_array_size(cells) + 1, sizeof *pairs);
	size_t n = 0, i;
	json_t *c;
	ev_status st = EV_OK;
	char text[512];
	if (!pairs)
		return ev_error_set(err, EV_ERROR, "out of memory");
	json_array_foreach(cells, i, c) {
		const char *arm = json_string_value(json_object_get(c, "arm")) ?: "";
		const char *cell = json_string_value(json_object_get(c, "cell")) ?: "";
		if (!selected(o->narm ? o->arm[0] : NULL, arm) || !selected(o->ncell ? o->cell[0] : NULL, cell))
			continue;
		const char *arm_b = o->narm ? o->arm[1] : arm, *cell_b = o->ncell ? o->cell[1] : cell;
		const json_t *cb = ev_compare_cell_named(sb, arm_b, cell_b);
		if (!cb) {
			snprintf(text, sizeof text, "arm %s cell %s of A: B has no arm %s cell %s", arm, cell, arm_b, cell_b);
			json_array_append_new(unpaired, json_string(text));
			continue;
		}
		struct ev_compare_pair *p = &pairs[n];
		if ((st = ev_compare_group_load(&p->a, sa, c, err)) != EV_OK || (st = ev_compare_group_load(&p->b, sb, cb, err)) != EV_OK) {
			n++;
			break;
		}
		n++;
		if ((st = ev_compare_check_group_medians(&p->a, 'A', receipt, o->on_finding, o->ctx, err)) != EV_OK)
			break;
		if ((sa != sb || p->a.cell_doc != p->b.cell_doc) && (st = ev_compare_check_group_medians(&p->b, 'B', receipt, o->on_finding, o->ctx, err)) != EV_OK)
			break;
		if (!p->a.n || !p->b.n) {
			snprintf(text, sizeof text, "arm %s cell %s of A (%zu runs) against arm %s cell %s of B (%zu runs): a side "
				 "has no run that held", arm, cell, p->a.n, arm_b, cell_b, p->b.n);
			json_array_append_new(unpaired, json_string(text));
			ev_compare_group_free(&p->a);
			ev_compare_group_free(&p->b);
			n--;
			continue;
		}
		if ((st = comparable(p, err)) != EV_OK)
			break;
		if (ev_compare_pair_mixed(p) && !o->mixed_grades) {
			st = ev_error_set(err, EV_USAGE,
					  "arm %s cell %s of A is %s, arm %s cell %s of B is %s: a timing-grade figure against a "
					  "diagnostic one says little of either (audit campaign names why each is graded so); "
					  "--mixed-grades compares them anyway and says so in every output",
					  arm, cell, p->a.grade, arm_b, cell_b, p->b.grade);
			break;
		}
	}
	*out = pairs;
	*nout = n;
	return st;
}


static json_t *selection_json(const struct ev_audit_compare *o)
{
	json_t *s = json_object();
	if (o->narm)
		json_object_set_new(s, "arms", json_pack("[s, s]", o->arm[0], o->arm[1]));
	if (o->ncell)
		json_object_set_new(s, "cells", json_pack("[s, s]", o->cell[0], o->cell[1]));
	return s;
}

/* From an archive: the prefix of the copies, renamed away wherever a path
 * leaves; NULL from files. */
static const char *shown_from(const struct ev_audit_compare *c)
{
	return c->from_archive ? c->copies.shown_from : NULL;
}

/* A summary's finding, its copy named as the archive names it. */
static void side_finding(void *ctx, const struct ev_finding *f)
{
	const struct ev_audit_compare *c = ctx;
	char subject[PATH_MAX + 64], message[2 * PATH_MAX];
	struct ev_finding shown = *f;
	snprintf(subject, sizeof subject, "%s", f->subject ? f->subject : "");
	snprintf(message, sizeof message, "%s", f->message ? f->message : "");
	ev_text_rename(subject, shown_from(c), "");
	ev_text_rename(message, shown_from(c), "");
	shown.subject = f->subject ? subject : NULL;
	shown.message = f->message ? message : NULL;
	c->on_finding(c->ctx, &shown);
}

static void archive_finding(void *ctx, const struct ev_finding *f)
{
	const struct ev_audit_compare *c = ctx;
	c->on_finding(c->ctx, f);
}

/* The summaries named in the archive, copied out of it in the pass that
 * checks it; the inputs then name the copies. */
static ev_status open_archive(struct ev_audit_compare *c, json_t *receipt, struct ev_error *err)
{
	if (!c->seal)
		return ev_error_set(err, EV_USAGE, "%s: an archive is read against its seal: give --seal SEAL.json", c->archive);
	ev_archive_copies_init(&c->copies);
	c->from_archive = 1;
	c->copies.archive = c->archive;
	c->copies.seal_path = c->seal;
	c->copies.seal_sha256 = c->seal_sha256;
	c->copies.purpose = "audit-compare";
	c->copies.names = c->inputs;
	c->copies.nnames = (size_t)c->ninputs;
	c->copies.on_finding = archive_finding;
	c->copies.ctx = c;
	c->copies.interrupted = c->interrupted;
	ev_status st = ev_archive_copies_make(&c->copies, err);
	if (st != EV_OK && st != EV_MISMATCH) {
		c->from_archive = 0;
		return st;
	}
	st = EV_OK;
	for (int k = 0; k < c->ninputs && st == EV_OK; k++)
		st = ev_archive_copies_path(&c->copies, c->inputs[k], c->copy[k], sizeof c->copy[k], err);
	if (st == EV_OK)
		ev_archive_copies_to_receipt(&c->copies, receipt, err);
	return st;
}

static ev_status load_sides(struct ev_audit_compare *c, json_t *receipt, struct ev_error *err)
{
	ev_status st;
	ev_finding_fn on_finding = c->from_archive ? side_finding : c->on_finding;
	void *ctx = c->from_archive ? (void *)c : c->ctx;
	for (int k = 0; k < c->ninputs; k++) {
		if ((st = ev_compare_load_side(&c->sides[k], c->from_archive ? c->copy[k] : c->inputs[k], receipt,
					       k ? 'B' : 'A', err)) != EV_OK)
			return st;
		c->sides[k].given = c->inputs[k]; /* shown as the user named it */
		ev_compare_side_read_registration(&c->sides[k]);
	}
	const struct ev_compare_side *sa = c->sa = &c->sides[0];
	const struct ev_compare_side *sb = c->sb = c->ninputs == 2 ? &c->sides[1] : &c->sides[0];
	if ((st = ev_compare_check_side_receipt(sa, 'A', receipt, c->not_checked, on_finding, ctx, err)) != EV_OK)
		return st;
	if (sb != sa && (st = ev_compare_check_side_receipt(sb, 'B', receipt, c->not_checked, on_finding, ctx, err)) != EV_OK)
		return st;
	return EV_OK;
}

static ev_status run_steps(struct ev_audit_compare *c, json_t *receipt, struct ev_error *err)
{
	ev_status st;
	c->unpaired = json_array();
	c->not_checked = json_array();
	if (c->archive && (st = open_archive(c, receipt, err)) != EV_OK)
		return st;
	if ((st = load_sides(c, receipt, err)) != EV_OK)
		return st;
	for (int k = 0; k < c->ninputs; k++) { /* read: from now on only shown */
		ev_text_rename(c->sides[k].summary, shown_from(c), "");
		ev_text_rename(c->sides[k].receipt, shown_from(c), "");
	}
	const struct ev_compare_side *sa = c->sa, *sb = c->sb;
	struct ev_compare_selection sel = {{c->narm == 2 ? c->arm[0] : NULL, c->narm == 2 ? c->arm[1] : NULL},
					   {c->ncell == 2 ? c->cell[0] : NULL, c->ncell == 2 ? c->cell[1] : NULL}, NULL};
	if ((st = ev_compare_registration(sa, sb, &sel, c->unregistered, &c->registration, err)) != EV_OK)
		return st;
	if ((st = make_pairs(c, sa, sb, receipt, &c->pairs, &c->npairs, c->unpaired, err)) != EV_OK)
		return st;
	if (!c->npairs)
		return ev_error_set(err, EV_USAGE, "nothing to compare: %s", json_array_size(c->unpaired) ?
				    json_string_value(json_array_get(c->unpaired, 0)) : "A has no arm and cell the options select");
	if ((st = ev_outdir_open(&c->od, c->out, err)) != EV_OK)
		return st;
	c->opened = 1;
	ev_meter_goal(c->meter, 0, c->npairs);
	for (size_t i = 0; i < c->npairs && st == EV_OK; i++) {
		if (c->on_pair)
			c->on_pair(c->ctx, &c->pairs[i]);
		st = compare_pair(&c->pairs[i], c, err);
		ev_meter_advance(c->meter, 0, 1);
	}
	if (st == EV_INTERRUPTED) {
		ev_error_clear(err);
		ev_error_set(err, EV_INTERRUPTED, "%s: interrupted by a signal; nothing is claimed", c->out);
	}
	if (st != EV_OK)
		return st;
	json_t *list = json_array();
	for (size_t i = 0; i < c->npairs; i++)
		json_array_append_new(list, pair_json(&c->pairs[i]));
	c->doc = json_pack("{s:s, s:{s:s, s:s}, s:{s:s, s:s}, s:o, s:{s:I, s:I, s:s, s:s}, s:o, s:o}", "format",
			   COMPARISON_FORMAT, "a", "campaign", sa->campaign, "summary_sha256", sa->sha256, "b", "campaign",
			   sb->campaign, "summary_sha256", sb->sha256, "selection", selection_json(c), "bootstrap",
			   "resamples", (json_int_t)c->resamples, "seed", (json_int_t)c->seed, "confidence", "0.95",
			   "method", "percentile interval of median(B) - median(A) and median(B) / median(A) over "
			   "runs resampled with replacement per side; splitmix64 draws", "pairs", list, "not_compared",
			   json_incref(c->unpaired));
	if (c->doc)
		json_object_set(c->doc, "registration", c->registration);
	return c->doc ? EV_OK : ev_error_set(err, EV_ERROR, "out of memory");
}

ev_status ev_audit_compare_run(struct ev_audit_compare *c, json_t *receipt, struct ev_error *err)
{
	ev_status st = run_steps(c, receipt, err);
	ev_text_rename(err->text, shown_from(c), "");
	return st;
}

ev_status ev_audit_compare_publish(struct ev_audit_compare *c, json_t *receipt, const struct ev_compare_output *more,
				   size_t nmore, struct ev_error *err)
{
	char tmpdir[PATH_MAX];
	ev_status st = ev_outdir_receipt_tmpdir(&c->od, c->out, tmpdir, sizeof tmpdir, err);
	if (st != EV_OK)
		return st;
	if ((st = ev_json_dump(c->doc, &c->bytes, &c->len, err)) != EV_OK ||
	    (st = ev_outdir_receipt_add(tmpdir, c->out, "comparison.json", c->bytes, c->len, receipt, err)) != EV_OK)
		return st;
	for (size_t i = 0; i < nmore; i++)
		if ((st = ev_outdir_receipt_add(tmpdir, c->out, more[i].name, more[i].bytes, more[i].len, receipt, err)) != EV_OK)
			return st;
	char text[256];
	snprintf(text, sizeof text, "per statistic of %zu pair%s of arm and cell: both medians of runs, ratio, difference, "
		 "ranges and a bootstrap interval over the runs each summary counts (in_cell_median); each cell's "
		 "medians held against its runs", c->npairs, c->npairs == 1 ? "" : "s");
	json_array_append_new(c->not_checked, json_string("the runs' raw series, native reports and journals: their statistics "
							  "are taken from summary.json as audit campaign recomputed them"));
	ev_receipt_set_fact(receipt, "coverage", json_pack("{s:[s], s:O}", "recomputed", text, "not_checked",
							   c->not_checked), err);
	ev_receipt_set_fact(receipt, "selection", selection_json(c), err);
	ev_receipt_set_fact(receipt, "bootstrap", json_incref(json_object_get(c->doc, "bootstrap")), err);
	ev_receipt_set_fact(receipt, "pairs", json_integer((json_int_t)c->npairs), err);
	size_t nmixed = 0;
	for (size_t i = 0; i < c->npairs; i++)
		nmixed += ev_compare_pair_mixed(&c->pairs[i]);
	ev_receipt_set_fact(receipt, "mixed_grades", json_integer((json_int_t)nmixed), err);
	ev_receipt_set_fact(receipt, "registration", json_incref(c->registration), err);
	ev_receipt_set_fact(receipt, "not_compared", json_incref(c->unpaired), err);
	if (ev_json_rename(receipt, shown_from(c), "") < 0)
		return ev_error_set(err, EV_ERROR, "out of memory for the receipt");
	if ((st = ev_outdir_receipt_commit(&c->od, &c->opened, tmpdir, c->out, receipt, c->sign_key, c->interrupted, err)) != EV_OK)
		return st;
	return strcmp(ev_receipt_result(receipt), "pass") == 0 ? EV_OK : EV_MISMATCH;
}

void ev_audit_compare_free(struct ev_audit_compare *c)
{
	if (c->opened)
		ev_outdir_abort(&c->od);
	c->opened = 0;
	for (size_t i = 0; i < c->npairs; i++) {
		ev_compare_group_free(&c->pairs[i].a);
		ev_compare_group_free(&c->pairs[i].b);
	}
	free(c->pairs);
	c->pairs = NULL;
	c->npairs = 0;
	free(c->bytes);
	c->bytes = NULL;
	json_decref(c->doc);
	json_decref(c->unpaired);
	json_decref(c->registration);
	json_decref(c->not_checked);
	json_decref(c->sides[0].doc);
	json_decref(c->sides[1].doc);
	json_decref(c->sides[0].registration);
	json_decref(c->sides[1].registration);
	c->sides[0].registration = c->sides[1].registration = NULL;
	c->doc = c->unpaired = c->registration = c->not_checked = c->sides[0].doc = c->sides[1].doc = NULL;
	if (c->from_archive)
		ev_archive_copies_free(&c->copies);
	c->from_archive = 0;
}
