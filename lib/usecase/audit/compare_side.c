/* SPDX-License-Identifier: Apache-2.0 */
/* compare_side: a campaign summary and the runs of one arm and cell of it
 * (compare_side.h). */
#include "config.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/usecase/audit/compare_side.h"
#include "lib/campaign/summary.h"
#include "lib/core/json.h"
#include "lib/core/path.h"
#include "lib/receipt/receipt.h"
#include "lib/stats/bootstrap.h"
#include "lib/receipt/receipt_read.h"

const char *const ev_compare_stat_names[EV_COMPARE_NSTATS] = {"p50", "p95", "p99", "p99.9", "mean", "max"};

ev_status ev_compare_load_side(struct ev_compare_side *s, const char *given, json_t *receipt, char which, struct ev_error *err)
{
	struct stat st;
	s->given = given;
	if (stat(given, &st) == 0 && S_ISDIR(st.st_mode)) {
		if (ev_path_join(s->summary, sizeof s->summary, given, "summary.json") != 0 ||
		    ev_path_join(s->receipt, sizeof s->receipt, given, "receipt.json") != 0)
			return ev_error_set(err, EV_USAGE, "%s: path too long", given);
	} else {
		char dir[PATH_MAX];
		snprintf(s->summary, sizeof s->summary, "%s", given);
		snprintf(dir, sizeof dir, "%s", given);
		if (ev_path_join(s->receipt, sizeof s->receipt, dirname(dir), "receipt.json") != 0)
			return ev_error_set(err, EV_USAGE, "%s: path too long", given);
	}
	uint8_t d[EV_SHA256_LEN];
	ev_status rc = ev_json_load(s->summary, EV_CAMPAIGN_SUMMARY_FORMAT, 0, &s->doc, d, NULL, NULL, err);
	if (rc != EV_OK)
		return ev_error_wrap(err, "summary %c (audit campaign's summary.json, or its OUTDIR)", which);
	ev_sha256_hex(d, s->sha256);
	s->campaign = json_string_value(json_object_get(s->doc, "campaign"));
	if (!s->campaign || !json_is_array(json_object_get(s->doc, "cells")) ||
	    !json_is_array(json_object_get(s->doc, "runs")))
		return ev_error_set(err, EV_USAGE, "%s: expected campaign, cells and runs in a campaign summary", s->summary);
	/* audit campaign lists each arm and cell once: a repeat would be
	 * compared twice, its runs counted twice */
	const json_t *cells = json_object_get(s->doc, "cells"), *a, *b;
	size_t i, k;
	json_array_foreach(cells, i, a)
		for (k = 0; k < i; k++) {
			b = json_array_get(cells, k);
			const char *arm = json_string_value(json_object_get(a, "arm")), *cell = json_string_value(json_object_get(a, "cell"));
			if (arm && cell && strcmp(arm, json_string_value(json_object_get(b, "arm")) ?: "") == 0 &&
			    strcmp(cell, json_string_value(json_object_get(b, "cell")) ?: "") == 0)
				return ev_error_set(err, EV_USAGE, "%s: cells[%zu]: arm %s, cell %s is listed twice (also cells[%zu]); "
						    "refused: audit campaign lists each once, so this summary was edited", s->summary,
						    i, arm, cell, k);
		}
	char name[32];
	snprintf(name, sizeof name, "summary %c", which);
	return ev_receipt_add_input(receipt, name, s->summary, s->sha256, err);
}

/* The audit behind a summary: its receipt, when audit campaign's OUTDIR
 * still holds it, must have passed and name these very bytes; without
 * one, the coverage says the summary was taken as written. */
/* A check about summary WHICH that did not hold, as a finding named
 * "summary W: PATH". */
static void said(ev_finding_fn on_finding, void *ctx, char which, const char *path, const char *check,
		 const char *text)
{
	char subject[PATH_MAX + 16];
	snprintf(subject, sizeof subject, "summary %c: %s", which, path);
	ev_finding_emit(on_finding, ctx, subject, check, text, NULL, NULL);
}

/* The SHA-256 an audit campaign receipt names for its summary.json, or NULL. */
static const char *summary_named(const json_t *r)
{
	size_t i;
	json_t *o;
	json_array_foreach(ev_receipt_outputs(r), i, o)
		if (strcmp(json_string_value(json_object_get(o, "name")) ?: "", "summary.json") == 0)
			return json_string_value(json_object_get(o, "sha256"));
	return NULL;
}

ev_status ev_compare_check_side_receipt(const struct ev_compare_side *s, char which, json_t *receipt, json_t *not_checked,
					ev_finding_fn on_finding, void *ctx, struct ev_error *err)
{
	struct stat st;
	char check[64], text[PATH_MAX + 256];
	snprintf(check, sizeof check, "summary %c audited", which);
	if (lstat(s->receipt, &st) != 0) {
		snprintf(text, sizeof text, "summary %c (%s): no audit campaign receipt.json beside it, so whether its "
			 "audit passed and these are its bytes is not checked", which, s->summary);
		json_array_append_new(not_checked, json_string(text));
		return EV_OK;
	}
	json_t *r = NULL;
	uint8_t d[EV_SHA256_LEN];
	char hex[EV_SHA256_HEX_LEN + 1];
	ev_status rc = ev_receipt_load(s->receipt, &r, d, err);
	if (rc != EV_OK)
		return rc;
	ev_sha256_hex(d, hex);
	snprintf(text, sizeof text, "receipt of summary %c", which);
	rc = ev_receipt_add_input(receipt, text, s->receipt, hex, err);
	const char *named = summary_named(r);
	const char *kind = ev_receipt_kind(r), *result = ev_receipt_result(r);
	int holds = ev_receipt_comparable_holds(r, err);
	if (holds < 0)
		rc = err->status;
	else if (!holds)
		snprintf(text, sizeof text, "receipt.json was edited: its comparable digest no longer matches its content");
	else if (strcmp(kind ?: "", "audit") != 0 || !named)
		snprintf(text, sizeof text, "receipt.json beside it is not audit campaign's receipt (no summary.json among its outputs)");
	else if (strcmp(named, s->sha256) != 0)
		snprintf(text, sizeof text, "summary.json changed after its audit: its SHA-256 is %s, its receipt names %s",
			 s->sha256, named);
	else if (strcmp(result ?: "", "pass") != 0)
		snprintf(text, sizeof text, "its audit campaign receipt says %s: some run, series or journal did not hold",
			 result ?: "nothing");
	else
		snprintf(text, sizeof text, "its audit campaign receipt passed and names these bytes");
	int pass = holds == 1 && strcmp(kind ?: "", "audit") == 0 && named && strcmp(named, s->sha256) == 0 &&
		   strcmp(result ?: "", "pass") == 0;
	if (rc == EV_OK)
		rc = ev_receipt_add_check(receipt, check, pass, text, err);
	if (!pass && rc == EV_OK)
		said(on_finding, ctx, which, s->summary, "summary-audited", text);
	json_decref(r);
	return rc;
}

/* A statistic as summary.json writes it: an integer, or a decimal string. */
static int number_of(const json_t *v, double *out)
{
	if (json_is_integer(v)) {
		*out = (double)json_integer_value(v);
		return 0;
	}
	const char *s = json_string_value(v);
	char *end;
	if (!s || !*s)
		return -1;
	errno = 0;
	*out = strtod(s, &end);
	return *end || errno ? -1 : 0;
}

void ev_compare_group_free(struct ev_compare_group *g)
{
	free(g->names);
	for (int k = 0; k < EV_COMPARE_NSTATS; k++)
		free(g->v[k]);
}

/* The runs of arm and cell that side's summary counts, in its order. */
ev_status ev_compare_group_load(struct ev_compare_group *g, const struct ev_compare_side *s, const json_t *cell_doc, struct ev_error *err)
{
	memset(g, 0, sizeof *g);
	g->side = s;
	g->cell_doc = cell_doc;
	g->arm = json_string_value(json_object_get(cell_doc, "arm"));
	g->cell = json_string_value(json_object_get(cell_doc, "cell"));
	g->unit = json_string_value(json_object_get(cell_doc, "unit")) ?: "";
	g->rule = json_string_value(json_object_get(cell_doc, "rule")) ?: "";
	const char *source = json_string_value(json_object_get(cell_doc, "source"));
	if (source && strcmp(source, "recomputed") != 0)
		return ev_error_set(err, EV_USAGE, "%s: arm %s, cell %s: its figures are %s; audit compare compares only "
				    "statistics recomputed from raw series (compare the printed blocks by eye, or keep a series)",
				    s->summary, g->arm ?: "?", g->cell ?: "?", source);
	const json_t *runs = json_object_get(s->doc, "runs");
	size_t cap = json_array_size(runs) + 1, i;
	json_t *r;
	g->names = calloc(cap, sizeof *g->names);
	for (int k = 0; k < EV_COMPARE_NSTATS; k++)
		g->v[k] = calloc(cap, sizeof *g->v[k]);
	if (!g->names || !g->v[EV_COMPARE_NSTATS - 1])
		return ev_error_set(err, EV_ERROR, "out of memory");
	json_array_foreach(runs, i, r) {
		const char *name = json_string_value(json_object_get(r, "name")) ?: "?";
		if (strcmp(json_string_value(json_object_get(r, "arm")) ?: "", g->arm) != 0 ||
		    strcmp(json_string_value(json_object_get(r, "cell")) ?: "", g->cell) != 0)
			continue;
		json_t *in = json_object_get(r, "in_cell_median");
		if (!json_is_boolean(in))
			return ev_error_set(err, EV_USAGE, "%s: run %s has no in_cell_median: the summary was written by an "
					    "audit campaign older than audit compare; audit the campaign again", s->summary, name);
		if (!json_is_true(in))
			continue;
		json_t *rec = json_object_get(r, "recomputed"), *q = json_object_get(rec, "quantiles");
		for (int k = 0; k < EV_COMPARE_NSTATS; k++) {
			const json_t *v = k < 4 ? json_object_get(q, ev_compare_stat_names[k]) : json_object_get(rec, ev_compare_stat_names[k]);
			if (number_of(v, &g->v[k][g->n]) != 0)
				return ev_error_set(err, EV_USAGE, "%s: run %s: expected its recomputed %s as a number, found %s",
						    s->summary, name, ev_compare_stat_names[k], v ? "another value" : "nothing");
		}
		const char *grade = json_string_value(json_object_get(r, "grade"));
		if (!grade || (strcmp(grade, "quiet") != 0 && strcmp(grade, "diagnostic") != 0))
			g->grade = "ungraded";
		else if (!g->grade || (strcmp(g->grade, "quiet") == 0 && strcmp(grade, "diagnostic") == 0))
			g->grade = g->grade && strcmp(g->grade, "ungraded") == 0 ? g->grade : grade;
		json_int_t tps = json_integer_value(json_object_get(json_object_get(r, "series"), "ticks_per_second"));
		g->ticks_per_second = (uint64_t)tps;
		g->names[g->n++] = name;
	}
	if (!g->grade)
		g->grade = "ungraded";
	return EV_OK;
}

/* The summary's own medians of this group, held against its runs. */
ev_status ev_compare_check_group_medians(const struct ev_compare_group *g, char which, json_t *receipt,
					 ev_finding_fn on_finding, void *ctx, struct ev_error *err)
{
	char check[256], detail[512] = "";
	snprintf(check, sizeof check, "summary %c arm %s cell %s: medians of its runs", which, g->arm, g->cell);
	json_t *med = json_object_get(g->cell_doc, "median_of_runs");
	json_int_t runs = json_integer_value(json_object_get(g->cell_doc, "runs"));
	if ((size_t)runs != g->n)
		snprintf(detail, sizeof detail, "its cell counts %lld runs, its runs say %zu", (long long)runs, g->n);
	for (int k = 0; k < 5 && !detail[0] && g->n; k++) {
		double *tmp = malloc(g->n * sizeof *tmp);
		if (!tmp)
			return ev_error_set(err, EV_ERROR, "out of memory");
		memcpy(tmp, g->v[k], g->n * sizeof *tmp);
		json_t *mine = ev_json_decimal_of(ev_median(tmp, g->n), 9);
		free(tmp);
		const char *theirs = json_string_value(json_object_get(med, ev_compare_stat_names[k]));
		if (!theirs || strcmp(theirs, json_string_value(mine)) != 0)
			snprintf(detail, sizeof detail, "%s: the cell says %s, the median of its runs is %s", ev_compare_stat_names[k],
				 theirs ?: "nothing", json_string_value(mine));
		json_decref(mine);
	}
	if (detail[0]) {
		char text[sizeof detail + 512];
		snprintf(text, sizeof text, "arm %s cell %s: %s", g->arm, g->cell, detail);
		said(on_finding, ctx, which, g->side->summary, "summary-medians", text);
	}
	return ev_receipt_add_check(receipt, check, !detail[0], detail[0] ? detail : "the cell's medians are its runs'", err);
}

void ev_compare_range_of(const double *v, size_t n, double *lo, double *hi)
{
	*lo = *hi = v[0];
	for (size_t i = 1; i < n; i++) {
		*lo = v[i] < *lo ? v[i] : *lo;
		*hi = v[i] > *hi ? v[i] : *hi;
	}
}

const json_t *ev_compare_cell_named(const struct ev_compare_side *s, const char *arm, const char *cell)
{
	size_t i;
	json_t *c;
	json_array_foreach(json_object_get(s->doc, "cells"), i, c)
		if (strcmp(json_string_value(json_object_get(c, "arm")) ?: "", arm) == 0 &&
		    strcmp(json_string_value(json_object_get(c, "cell")) ?: "", cell) == 0)
			return c;
	return NULL;
}

void ev_compare_side_read_registration(struct ev_compare_side *s)
{
	json_t *r = NULL;
	struct ev_error ignored;
	ev_error_clear(&ignored);
	s->registration = NULL;
	if (ev_receipt_load(s->receipt, &r, NULL, &ignored) != EV_OK)
		return;
	const char *named = summary_named(r);
	if (ev_receipt_comparable_holds(r, &ignored) == 1 && named && strcmp(named, s->sha256) == 0)
		s->registration = json_incref(json_object_get(json_object_get(r, "facts"), "registration"));
	json_decref(r);
}

const char *ev_compare_side_registration(const struct ev_compare_side *s)
{
	const char *state = json_string_value(json_object_get(s->registration, "state"));
	return state && (strcmp(state, "registered") == 0 || strcmp(state, "failed") == 0 || strcmp(state, "unproven") == 0)
		       ? state : "unregistered";
}

/* The registration's comparisons as the options that make them say them
 * ("cells spin,epoll; reference 3ac1..."), or "none". */
static void registered_list(const json_t *cmps, char *out, size_t cap)
{
	size_t i, used = 0;
	json_t *c;
	out[0] = 0;
	json_array_foreach(cmps, i, c) {
		const char *kind = json_string_value(json_object_get(c, "kind")) ?: "?";
		if (used >= cap)
			break;
		if (json_object_get(c, "a"))
			used += (size_t)snprintf(out + used, cap - used, "%s%s %s,%s", used ? "; " : "", kind,
						 json_string_value(json_object_get(c, "a")), json_string_value(json_object_get(c, "b")));
		else
			used += (size_t)snprintf(out + used, cap - used, "%s%s %s", used ? "; " : "", kind,
						 json_string_value(json_object_get(c, "sha256")) ?: json_string_value(json_object_get(c, "ratio")) ?: "");
	}
	if (!used)
		snprintf(out, cap, "none");
}

static int registered_pair(const json_t *cmps, const char *kind, const char *x, const char *y)
{
	size_t i;
	json_t *c;
	json_array_foreach(cmps, i, c) {
		const char *a = json_string_value(json_object_get(c, "a")), *b = json_string_value(json_object_get(c, "b"));
		if (strcmp(json_string_value(json_object_get(c, "kind")) ?: "", kind) == 0 && a && b &&
		    ((strcmp(a, x) == 0 && strcmp(b, y) == 0) || (strcmp(a, y) == 0 && strcmp(b, x) == 0)))
			return 1;
	}
	return 0;
}

int ev_compare_registered(const struct ev_compare_side *a, const struct ev_compare_side *b,
			  const struct ev_compare_selection *sel, char *why, size_t cap)
{
	const json_t *ra = a->registration, *rb = b->registration;
	const char *state_a = ev_compare_side_registration(a), *state_b = ev_compare_side_registration(b);
	if (strcmp(state_a, "registered") != 0 || strcmp(state_b, "registered") != 0) {
		int a_not = strcmp(state_a, "registered") != 0;
		snprintf(why, cap, "%s (%s) is %s", a_not ? "A" : "B", a_not ? a->given : b->given, a_not ? state_a : state_b);
		return 0;
	}
	const char *ha = json_string_value(json_object_get(ra, "sha256")) ?: "", *hb = json_string_value(json_object_get(rb, "sha256")) ?: "";
	if (strcmp(ha, hb) != 0) {
		snprintf(why, cap, "A and B were registered apart (registrations %.12s... and %.12s...): no registration "
			 "planned this comparison", ha, hb);
		return 0;
	}
	const json_t *cmps = json_object_get(ra, "comparisons");
	char listed[1024];
	registered_list(cmps, listed, sizeof listed);
	if (sel->reference_sha256) {
		size_t i;
		json_t *c;
		json_array_foreach(cmps, i, c)
			if (strcmp(json_string_value(json_object_get(c, "kind")) ?: "", "reference") == 0 &&
			    strcmp(json_string_value(json_object_get(c, "sha256")) ?: "", sel->reference_sha256) == 0)
				return 1;
		snprintf(why, cap, "its registration registers no reproduction of the reference %s (it registers: %s)",
			 sel->reference_sha256, listed);
		return 0;
	}
	if (sel->arms[0] && !registered_pair(cmps, "arms", sel->arms[0], sel->arms[1])) {
		snprintf(why, cap, "arms %s,%s are not a registered comparison (the registration registers: %s)", sel->arms[0],
			 sel->arms[1], listed);
		return 0;
	}
	if (sel->cells[0] && !registered_pair(cmps, "cells", sel->cells[0], sel->cells[1])) {
		snprintf(why, cap, "cells %s,%s are not a registered comparison (the registration registers: %s)", sel->cells[0],
			 sel->cells[1], listed);
		return 0;
	}
	if (!sel->arms[0] && !sel->cells[0] && a == b) {
		snprintf(why, cap, "a summary against itself compares nothing registered (the registration registers: %s)",
			 listed);
		return 0;
	}
	return 1; /* two sessions of one registration, arm for arm and cell for cell; or a registered pair */
}

ev_status ev_compare_registration(const struct ev_compare_side *a, const struct ev_compare_side *b,
				  const struct ev_compare_selection *sel, int unregistered, json_t **doc,
				  struct ev_error *err)
{
	char why[1536] = "";
	int registered = ev_compare_registered(a, b, sel, why, sizeof why);
	*doc = json_pack("{s:s, s:s, s:b}", "a", ev_compare_side_registration(a), "b", ev_compare_side_registration(b),
			 "registered", registered);
	if (!registered)
		json_object_set_new(*doc, "why", json_string(why));
	if (registered || unregistered)
		return *doc ? EV_OK : ev_error_set(err, EV_ERROR, "out of memory");
	return ev_error_set(err, EV_USAGE, "this comparison was not registered: %s; a comparison chosen after the results "
			    "is refused unless --unregistered is given (it compares them anyway and says so in every output)",
			    why);
}

void ev_compare_registration_sentence(const json_t *doc, char *out, size_t cap)
{
	const char *why = json_string_value(json_object_get(doc, "why"));
	int n = snprintf(out, cap, "registration: A %s, B %s; the comparison was ",
			 json_string_value(json_object_get(doc, "a")) ?: "?", json_string_value(json_object_get(doc, "b")) ?: "?");
	if (n < 0 || (size_t)n >= cap)
		return;
	if (json_is_true(json_object_get(doc, "registered")))
		snprintf(out + n, cap - (size_t)n, "registered");
	else
		snprintf(out + n, cap - (size_t)n, "NOT registered (%s): compared under --unregistered", why ? why : "?");
}
