/* SPDX-License-Identifier: Apache-2.0 */
/* audit_series: one latency series recomputed into a receipt
 * (audit_series.h). */
#include "config.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/archive/seal.h"
#include "lib/core/hash_job.h"
#include "lib/core/json.h"
#include "lib/core/path.h"
#include "lib/core/sha256.h"
#include "lib/core/text.h"
#include "lib/receipt/receipt.h"
#include "lib/stats/nativestats.h"
#include "lib/usecase/audit/audit_series.h"

/* The named members of an archive, copied out (audit_series.h). */
struct from_archive {
	struct ev_audit_series *o;
	struct ev_archive_copies copies;
	const char *named[4];       /* series, native, delay, journal: as the caller named them */
	char path[4][PATH_MAX];     /* their copies */
};

struct found {
	const struct ev_audit_series *a;
	const char *shown_from;     /* from an archive: the copies' prefix, renamed away */
	json_t *list;
	unsigned n;
};

/* Every finding counted and handed on; the first 100 kept for the receipt. */
static void on_finding(void *ctx, const struct ev_finding *f)
{
	struct found *x = ctx;
	struct ev_finding shown = *f;
	char subject[PATH_MAX + 64];
	if (x->shown_from && f->subject) {
		snprintf(subject, sizeof subject, "%s", f->subject);
		ev_text_rename(subject, x->shown_from, "");
		shown.subject = subject;
	}
	x->a->on_finding(x->a->ctx, &shown);
	if (x->n++ < 100)
		json_array_append_new(x->list, ev_finding_to_json(&shown));
}

static ev_status add_input(json_t *r, const char *name, const char *path, struct ev_error *err)
{
	uint8_t d[EV_SHA256_LEN];
	char hex[EV_SHA256_HEX_LEN + 1];
	ev_status st = ev_sha256_path(path, d, NULL, err);
	if (st != EV_OK)
		return st;
	ev_sha256_hex(d, hex);
	return ev_receipt_add_input(r, name, path, hex, err);
}

static json_t *series_facts(const struct ev_series *s)
{
	json_t *o = json_pack("{s:s, s:s, s:I, s:I}", "shape", ev_series_kind_name(s->kind), "clock", s->clock,
			      "ticks_per_second", (json_int_t)s->ticks_per_second, "samples", (json_int_t)s->n);
	if (s->source_hz)
		json_object_set_new(o, "source_hz", json_integer((json_int_t)s->source_hz));
	if (s->has_declared)
		json_object_set_new(o, "declared", json_integer((json_int_t)s->declared));
	if (s->kind == EV_SERIES_SOCKPERF)
		json_object_set_new(o, "half_round_trip", json_boolean(s->half_rtt));
	return o;
}

/* A check per statistic the tool printed, against its recomputation
 * (one not recomputable is named in the statistics, not checked); one
 * that differs, is missing or is equal for a documented cause is shown
 * through on_statistic too. */
static void native_checks(struct ev_audit_series *o, json_t *r, const struct ev_native *nat, const json_t *compared,
			  struct ev_error *err)
{
	size_t i;
	json_t *row;
	json_array_foreach(compared, i, row) {
		char name[64], detail[256];
		const char *verdict = json_string_value(json_object_get(row, "verdict"));
		snprintf(name, sizeof name, "native %s", json_string_value(json_object_get(row, "name")));
		if (strcmp(verdict, "missing") == 0)
			snprintf(detail, sizeof detail, "missing: %s always prints it, the report lacks it", nat->tool);
		else
			snprintf(detail, sizeof detail, "%s: native %s, recomputed %s (%s)", verdict,
				 json_string_value(json_object_get(row, "native")),
				 json_string_value(json_object_get(row, "recomputed")),
				 json_string_value(json_object_get(row, "rule")));
		if (strcmp(verdict, "not recomputable") == 0)
			continue; /* named in the statistics and the coverage, not a check */
		int bad = strcmp(verdict, "differs") == 0 || strcmp(verdict, "missing") == 0;
		ev_receipt_add_check(r, name, !bad, detail, err);
		if ((bad || strncmp(verdict, "equal ", 6) == 0) && o->on_statistic)
			o->on_statistic(o->ctx, row); /* a documented cause of its tool's, shown too */
	}
}

/* The moments and the quantiles asked, all selected in one pass under
 * rule; none asked: the default set, or none when a native report's own
 * statistics are compared instead. */
static json_t *recomputed(const struct ev_audit_series *o, const struct ev_series *sp, const struct ev_moments *m,
			  enum ev_qrule rule, int have_native)
{
	static const char *const default_set[] = {"50", "95", "99", "99.9"};
	const char *const *asked = o->nquantiles ? o->quantiles : default_set;
	size_t nasked = o->nquantiles ? o->nquantiles : (have_native ? 0 : 4);
	struct ev_wanted want[EV_ANALYSIS_MAX_QUANTILES] = {0};
	for (size_t i = 0; i < nasked; i++) {
		want[i].rule = rule;
		ev_prob_parse_percent(asked[i], &want[i].p);
	}
	ev_analysis_select(sp->v, sp->n, NULL, want, nasked);
	json_t *q = json_object();
	for (size_t i = 0; i < nasked; i++) {
		char key[32], pct[24];
		ev_prob_format(want[i].p, pct, sizeof pct);
		snprintf(key, sizeof key, "p%s", pct);
		json_object_set_new(q, key, ev_analysis_quantile_json(&want[i]));
	}
	json_t *moments = ev_analysis_moments_json(m);
	json_object_set_new(moments, "rule", json_string(ev_qrule_name(rule)));
	json_object_set_new(moments, "quantiles", q);
	return moments;
}

/* The series' samples by the journal page their call landed on (a
 * journal that does not line up with the series is a finding, not an
 * error), above and below the threshold (--threshold, else the p99). */
static ev_status page_cohorts(const struct ev_audit_series *o, const struct ev_series *sp, json_t *r, struct found *found,
			      uint64_t page_size, struct ev_error *err)
{
	uint8_t *labels = NULL;
	ev_status st = ev_analysis_page_labels(o->journal, o->warmups, sp->n, page_size, &labels, err);
	if (st >= EV_ERROR)
		return st;
	if (st == EV_MISMATCH) {
		ev_finding_emit(on_finding, found, o->journal, "cohort-align", err->text, NULL, NULL);
		ev_error_clear(err);
		return EV_OK;
	}
	uint64_t threshold = o->threshold;
	if (!o->have_threshold) {
		/* the p99, read from the mapped series: no copy of it */
		struct ev_wanted p99 = {.rule = EV_QRULE_NEAREST_RANK, .p = {99, 100}};
		ev_analysis_select(sp->v, sp->n, NULL, &p99, 1);
		threshold = (uint64_t)p99.value;
	}
	json_t *c = ev_analysis_cohorts(sp->v, sp->n, labels, threshold);
	ev_receipt_set_fact(r, "cohorts", json_pack("{s:I, s:I, s:o}", "page_size", (json_int_t)page_size,
						   "threshold", (json_int_t)threshold, "by_displacement", c), err);
	free(labels);
	return EV_OK;
}

static ev_status recompute(struct ev_audit_series *o, struct from_archive *from, struct ev_error *err)
{
	struct ev_series d = {0};
	struct ev_series *sp = &o->s;
	struct ev_native nat;
	struct found found = {o, from ? from->copies.shown_from : NULL, json_array(), 0};
	json_t *r = NULL, *compared = NULL;
	unsigned differ = 0;
	uint64_t missed = 0;
	char *coverage_text = o->coverage_text;
	ev_status st;
	uint64_t page_size = o->page_size ? o->page_size : 4096;
	int have_native = o->native != NULL;
	struct ev_hash_job hash;
	ev_hash_job_init(&hash, o->series, "series", o->interrupted);
	if ((st = ev_receipt_refuse_existing(o->receipt, err)) != EV_OK)
		goto out;
	if (have_native && (st = ev_native_load(o->native, &nat, err)) != EV_OK)
		goto out;
	ev_hash_job_start(&hash);
	if ((st = ev_series_load(o->series, sp, on_finding, &found, err)) != EV_OK)
		goto out;
	if (!(r = ev_receipt_new("audit", "audit", o->invocation, err))) {
		st = err->status;
		goto out;
	}
	if (from)
		ev_archive_copies_to_receipt(&from->copies, r, err);
	if (have_native && (st = add_input(r, "native report", o->native, err)) != EV_OK)
		goto out;
	struct ev_moments m;
	ev_moments_of(sp->v, sp->n, &m);
	ev_receipt_set_fact(r, "series", series_facts(sp), err);
	if (sp->n == 0) /* nothing was measured: no statistic holds */
		ev_finding_emit(on_finding, &found, o->series, "series-empty", "the series holds no sample", "1 or more",
				"0");
	json_t *coverage = json_object();
	ev_receipt_set_fact(r, "coverage", coverage, err);
	json_object_set_new(coverage, "series", json_string(sp->n ? "every sample read and recomputed"
								    : "empty: nothing to recompute"));

	/* first what needs the samples in their own order */
	if (o->journal && (st = page_cohorts(o, sp, r, &found, page_size, err)) != EV_OK)
		goto out;

	/* then the order statistics, all selected in one pass */
	if (have_native) {
		compared = ev_analysis_compare_native(&nat, sp, NULL, &m, o->sockperf_clock, &differ);
		json_t *facts = json_pack("{s:s, s:s, s:s}", "tool", nat.tool, "rule", ev_qrule_name(nat.rule),
					  "title", nat.title);
		if (nat.kind == EV_NATIVE_SOCKPERF)
			json_object_set_new(facts, "clock", json_string(ev_analysis_sockperf_clock_name(o->sockperf_clock)));
		ev_receipt_set_fact(r, "native", facts, err);
		ev_analysis_native_coverage(compared, coverage_text, sizeof o->coverage_text);
		json_object_set_new(coverage, "native report", json_string(coverage_text));
		native_checks(o, r, &nat, compared, err);
		ev_receipt_set_fact(r, "statistics", json_incref(compared), err);
	}
	int rule = o->rule >= 0 ? o->rule : have_native ? (int)nat.rule : EV_QRULE_NEAREST_RANK;
	ev_receipt_set_fact(r, "recomputed", recomputed(o, sp, &m, (enum ev_qrule)rule, have_native), err);

	if (o->delay) {
		if ((st = ev_series_load(o->delay, &d, on_finding, &found, err)) != EV_OK ||
		    (st = add_input(r, "delay series", o->delay, err)) != EV_OK)
			goto out;
		ev_receipt_set_fact(r, "pacing", ev_analysis_pacing(&d, o->rate, &missed), err);
	}
	char series_hex[EV_SHA256_HEX_LEN + 1];
	if ((st = ev_hash_job_finish(&hash, series_hex, err)) != EV_OK ||
	    (st = ev_receipt_add_input(r, "series", o->series, series_hex, err)) != EV_OK)
		goto out;
	ev_receipt_add_check(r, "series", found.n == 0, found.n ? "findings in the series" : "every sample read", err);
	ev_receipt_set_fact(r, "series_findings", json_incref(found.list), err);

	/* stopped while reading or computing: no receipt, nothing claimed */
	if (*o->interrupted) {
		st = ev_error_set(err, EV_INTERRUPTED, "%s: interrupted by a signal; nothing is claimed", o->series);
		goto out;
	}
	if (from && ev_json_rename(r, from->copies.shown_from, "") < 0) {
		st = ev_error_set(err, EV_ERROR, "out of memory for the receipt");
		goto out;
	}
	if ((st = ev_receipt_finish_signed(r, o->sign_key, err)) != EV_OK)
		goto out;
	if ((st = ev_receipt_write_chosen(r, o->receipt, EV_RECEIPT_DEFAULT_DIR, "audit-series", o->receipt_path,
					  sizeof o->receipt_path, err)) != EV_OK)
		goto out;
	o->receipt_doc = json_incref(r);
	o->compared = json_incref(compared);
	o->differ = differ;
	o->findings = found.n;
	o->missed = missed;
	st = differ || found.n || (from && from->copies.findings) ? EV_MISMATCH : EV_OK;
out:
	ev_hash_job_wait(&hash);
	json_decref(compared);
	json_decref(found.list);
	json_decref(r);
	ev_series_free(&d);
	return st;
}

static void archive_finding(void *ctx, const struct ev_finding *f)
{
	struct from_archive *x = ctx;
	x->o->on_finding(x->o->ctx, f);
}

/* The archive read once, the named members copied out, then the series
 * audited from the copies; unless a copy is not the sealed bytes. */
static ev_status from_archive(struct ev_audit_series *o, struct ev_error *err)
{
	struct from_archive x = {.o = o, .named = {o->series, o->native, o->delay, o->journal}};
	ev_status st = ev_receipt_refuse_existing(o->receipt, err);
	if (st != EV_OK)
		return st;
	if (!o->seal)
		return ev_error_set(err, EV_USAGE, "%s: an archive is read against its seal: give --seal SEAL.json", o->archive);
	ev_archive_copies_init(&x.copies);
	x.copies.archive = o->archive;
	x.copies.seal_path = o->seal;
	x.copies.seal_sha256 = o->seal_sha256;
	x.copies.purpose = "audit-series";
	x.copies.names = x.named;
	x.copies.nnames = 4;
	x.copies.on_finding = archive_finding;
	x.copies.ctx = &x;
	x.copies.interrupted = o->interrupted;
	st = ev_archive_copies_make(&x.copies, err);
	if (st != EV_OK && st != EV_MISMATCH)
		goto out;
	st = EV_OK;
	o->archive_findings = x.copies.findings;
	const char **slot[4] = {&o->series, &o->native, &o->delay, &o->journal};
	for (int k = 0; k < 4 && st == EV_OK; k++)
		if (x.named[k])
			st = ev_archive_copies_path(&x.copies, x.named[k], x.path[k], sizeof x.path[k], err);
	if (st != EV_OK)
		goto out;
	if (x.copies.named_findings) { /* nothing is computed from a copy that is not the sealed bytes */
		json_t *r = ev_receipt_new("audit", "audit", o->invocation, err);
		if (!r) {
			st = err->status;
			goto out;
		}
		ev_archive_copies_to_receipt(&x.copies, r, err);
		if ((st = ev_receipt_finish_signed(r, o->sign_key, err)) == EV_OK &&
		    (st = ev_receipt_write_chosen(r, o->receipt, EV_RECEIPT_DEFAULT_DIR, "audit-series", o->receipt_path,
						  sizeof o->receipt_path, err)) == EV_OK) {
			o->receipt_doc = json_incref(r);
			o->archive_failed = 1;
			st = ev_error_set(err, EV_MISMATCH, "%s: the archive's copy of what was named does not match its seal: "
					  "nothing is computed from it", o->archive);
		}
		json_decref(r);
		goto out;
	}
	for (int k = 0; k < 4; k++)
		if (x.named[k])
			*slot[k] = x.path[k];
	st = recompute(o, &x, err);
	for (int k = 0; k < 4; k++) /* the caller's names again */
		if (x.named[k])
			*slot[k] = x.named[k];
out:
	ev_text_rename(err->text, x.copies.shown_from, "");
	ev_archive_copies_free(&x.copies);
	return st;
}

ev_status ev_audit_series(struct ev_audit_series *o, struct ev_error *err)
{
	return o->archive ? from_archive(o, err) : recompute(o, NULL, err);
}

void ev_audit_series_free(struct ev_audit_series *a)
{
	ev_series_free(&a->s);
	json_decref(a->compared);
	json_decref(a->receipt_doc);
	a->compared = a->receipt_doc = NULL;
}
