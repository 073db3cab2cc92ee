/* SPDX-License-Identifier: Apache-2.0 */
/* audit_history: a plan's campaigns over time, their change points and
 * effects (audit_history.h). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/catalog/catalog.h"
#include "lib/core/grow.h"
#include "lib/core/json.h"
#include "lib/receipt/signature.h"
#include "lib/stats/bootstrap.h"
#include "lib/stats/changepoint.h"
#include "lib/usecase/audit/audit_history.h"

#define HISTORY_FORMAT "evidence-history/1"
#define MAX_CHANGES 64

struct campaign {
	char sha256[65];
	char *where, *plan_sha256;
	json_t *body, *env; /* env: field -> text, in the order compared */
};

struct gathered {
	struct campaign *list;
	size_t n, cap;
	const char *here;
	json_t *not_believed; /* [{where, why}]: summaries whose rows their documents contradict */
	json_t *untrusted;    /* [{where, why}]: with a trust list, summaries no trusted audit receipt names */
	int trust;
};

/* A fraction as canonical JSON holds it (lib/core/json), NaN as null. */
static json_t *decimal(double v)
{
	return isfinite(v) ? ev_json_decimal_of(v, 9) : json_null();
}

static const char *text(const json_t *doc, const char *key)
{
	return json_string_value(json_object_get(doc, key));
}

static ev_status keep_summary(void *ctx, const struct ev_catalog_summary *s, struct ev_error *err)
{
	struct gathered *g = ctx;
	int here = strcmp(s->host, g->here) == 0;
	if (s->doubt) { /* its rows named; its document alone speaks, when it is whole and the plan's */
		char where[4096 + 300];
		snprintf(where, sizeof where, "%s%s%s", here ? "" : s->host, here ? "" : ":", s->path);
		json_array_append_new(g->not_believed, json_pack("{s:s, s:s}", "where", where, "why", s->doubt));
	}
	if (!s->usable)
		return EV_OK;
	if (g->trust && !s->trusted) { /* left out, and counted */
		char where[4096 + 300];
		snprintf(where, sizeof where, "%s%s%s", here ? "" : s->host, here ? "" : ":", s->path);
		json_array_append_new(g->untrusted, json_pack("{s:s, s:s}", "where", where, "why",
							      "no audit receipt beside it that names it is signed by a "
							      "trusted key"));
		return EV_OK;
	}
	if (ev_grow_array(&g->list, &g->cap, g->n + 1, sizeof *g->list) != 0)
		return ev_error_set(err, EV_ERROR, "out of memory");
	struct campaign *c = &g->list[g->n];
	memset(c, 0, sizeof *c);
	json_error_t je;
	if (!(c->body = json_loads(s->body, 0, &je)))
		return ev_error_set(err, EV_ERROR, "%s:%s: the catalog's copy of this summary is not JSON: %s", s->host, s->path,
				    je.text);
	snprintf(c->sha256, sizeof c->sha256, "%s", s->sha256);
	size_t len = strlen(s->host) + strlen(s->path) + 2;
	c->where = malloc(len);
	if (c->where)
		snprintf(c->where, len, "%s%s%s", strcmp(s->host, g->here) == 0 ? "" : s->host,
			 strcmp(s->host, g->here) == 0 ? "" : ":", s->path);
	c->plan_sha256 = s->plan_sha256 ? strdup(s->plan_sha256) : NULL;
	g->n++;
	return c->where ? EV_OK : ev_error_set(err, EV_ERROR, "out of memory");
}

/* When a campaign was captured: its last capture session's end. */
static const char *captured_of(const struct campaign *c)
{
	const char *captured = NULL;
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(json_object_get(c->body, "provenance"), "captures"), i, e)
		if (text(e, "finished") && (!captured || strcmp(text(e, "finished"), captured) > 0))
			captured = text(e, "finished");
	return captured;
}

/* A provenance field by its dotted path, as compact JSON; "absent". */
static char *field_text(const json_t *prov, const char *dotted)
{
	char path[256];
	snprintf(path, sizeof path, "%s", dotted);
	const json_t *v = prov;
	char *rest = NULL;
	for (char *part = strtok_r(path, ".", &rest); part && v; part = strtok_r(NULL, ".", &rest))
		v = json_object_get(v, part);
	if (!v)
		return strdup("absent");
	if (json_is_string(v))
		return strdup(json_string_value(v));
	return json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
}

static int by_side(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The environment compared: plan, programs, kernel, CPU model, then the
 * fields asked for. */
static json_t *environment(const struct campaign *c, const struct ev_audit_history *h)
{
	const json_t *prov = json_object_get(c->body, "provenance");
	json_t *env = json_object();
	json_object_set_new(env, "plan",
			    json_string(c->plan_sha256 ? c->plan_sha256 : "unknown (no audit receipt beside its summary names it)"));
	size_t i, n = json_array_size(json_object_get(prov, "programs"));
	char **lines = calloc(n + 1, sizeof *lines), joined[4096] = "";
	json_t *p;
	if (!lines)
		n = 0;
	json_array_foreach(lines ? json_object_get(prov, "programs") : NULL, i, p) {
		char line[256];
		snprintf(line, sizeof line, "%s %s", text(p, "side") ?: "?", text(p, "sha256") ?: "?");
		lines[i] = strdup(line);
	}
	if (n > 1)
		qsort(lines, n, sizeof *lines, by_side);
	for (i = 0; i < n; i++) {
		size_t used = strlen(joined);
		snprintf(joined + used, sizeof joined - used, "%s%s", i ? ", " : "", lines[i] ?: "");
		free(lines[i]);
	}
	free(lines);
	json_object_set_new(env, "programs", json_string(n ? joined : "none recorded"));
	const char *fixed[][2] = {{"kernel", "kernel.release"}, {"cpu_model", "cpu_model"}};
	for (size_t k = 0; k < 2; k++) {
		char *v = field_text(prov, fixed[k][1]);
		json_object_set_new(env, fixed[k][0], json_string(v ? v : "?"));
		free(v);
	}
	for (size_t k = 0; k < h->nmatch; k++) {
		char *v = field_text(prov, h->match[k]);
		json_object_set_new(env, h->match[k], json_string(v ? v : "?"));
		free(v);
	}
	return env;
}

/* The first field where env differs from the reference's, in the order
 * compared; NULL when none does. */
static const char *first_difference(const json_t *env, const json_t *ref, const struct ev_audit_history *h)
{
	static const char *const fixed[] = {"plan", "programs", "kernel", "cpu_model"};
	for (size_t k = 0; k < 4 + h->nmatch; k++) {
		const char *f = k < 4 ? fixed[k] : h->match[k - 4];
		if (strcmp(text(env, f) ?: "", text(ref, f) ?: "") != 0)
			return f;
	}
	return NULL;
}

/* A run's value of a statistic, as the summary recomputed it. */
static int run_value(const json_t *run, const char *statistic, double *out)
{
	const json_t *r = json_object_get(run, "recomputed");
	const json_t *v = strcmp(statistic, "mean") == 0 || strcmp(statistic, "max") == 0 || strcmp(statistic, "min") == 0
				  ? json_object_get(r, statistic)
				  : json_object_get(json_object_get(r, "quantiles"), statistic);
	if (json_is_integer(v))
		*out = (double)json_integer_value(v);
	else if (json_is_real(v))
		*out = json_real_value(v);
	else if (json_is_string(v))
		*out = strtod(json_string_value(v), NULL);
	else
		return 0;
	return isfinite(*out);
}

struct values {
	double *v;
	size_t n, cap;
};

static int push(struct values *vs, double x)
{
	if (ev_grow_array(&vs->v, &vs->cap, vs->n + 1, sizeof *vs->v) != 0)
		return -1;
	vs->v[vs->n++] = x;
	return 0;
}

/* The runs a campaign's cell counts, their values of a statistic. */
static int cell_runs(const struct campaign *c, const char *arm, const char *cell, const char *statistic,
		     struct values *out)
{
	size_t i;
	json_t *run;
	json_array_foreach(json_object_get(c->body, "runs"), i, run) {
		double v;
		if (strcmp(text(run, "arm") ?: "", arm) == 0 && strcmp(text(run, "cell") ?: "", cell) == 0 &&
		    json_is_true(json_object_get(run, "in_cell_median")) && run_value(run, statistic, &v) && push(out, v))
			return -1;
	}
	return 0;
}

static double median_of(const struct values *vs)
{
	double *copy = malloc(vs->n * sizeof *copy);
	if (!copy)
		return NAN;
	memcpy(copy, vs->v, vs->n * sizeof *copy);
	double m = ev_median(copy, vs->n);
	free(copy);
	return m;
}

/* One series: the compared campaigns' values of one cell's statistic, its
 * changes, each with its effect. */
static ev_status one_series(struct ev_audit_history *h, struct campaign *const *compared,
			    size_t ncompared, const char *arm, const char *cell, const char *statistic, const char *unit,
			    json_t *series_list, json_t *tripped_by, struct ev_error *err)
{
	double *values = malloc((ncompared ? ncompared : 1) * sizeof *values);
	size_t *which = malloc((ncompared ? ncompared : 1) * sizeof *which), n = 0;
	json_t *points = json_array(), *changes = json_array();
	ev_status st = values && which ? EV_OK : ev_error_set(err, EV_ERROR, "out of memory");
	for (size_t i = 0; i < ncompared && st == EV_OK; i++) {
		char value[64];
		/* from the summary's own bytes, held to its digest: never a column */
		if (!ev_catalog_summary_statistic(compared[i]->body, arm, cell, statistic, value, sizeof value))
			continue;
		char *end;
		double v = strtod(value, &end);
		if (*end || !isfinite(v))
			continue;
		values[n] = v;
		which[n++] = i;
		json_array_append_new(points, json_pack("{s:I, s:o}", "campaign", (json_int_t)i, "value", decimal(v)));
	}
	struct ev_changepoint found[MAX_CHANGES];
	size_t nfound = 0;
	struct ev_changepoint_options o = {.min_segment = h->min_segment, .alpha = h->alpha,
					   .permutations = h->permutations, .seed = h->seed};
	if (st == EV_OK && n)
		st = ev_changepoints(values, n, &o, found, MAX_CHANGES, &nfound, h->stop, err);
	for (size_t k = 0; k < nfound && st == EV_OK; k++) {
		size_t from = k ? found[k - 1].index : 0, t = found[k].index, to = k + 1 < nfound ? found[k + 1].index : n;
		struct values before = {0}, after = {0};
		int by_runs = 1;
		for (size_t i = from; i < to; i++)
			if (cell_runs(compared[which[i]], arm, cell, statistic, i < t ? &before : &after))
				st = ev_error_set(err, EV_ERROR, "out of memory");
		if (!before.n || !after.n) { /* no run kept a series: the campaigns' own values */
			by_runs = 0;
			before.n = after.n = 0;
			for (size_t i = from; i < to; i++)
				push(i < t ? &before : &after, values[i]);
		}
		double mb = median_of(&before), ma = median_of(&after);
		json_t *interval = json_null();
		if (st == EV_OK && mb != 0) {
			struct ev_bootstrap_interval iv;
			const double *a[1] = {before.v}, *b[1] = {after.v};
			st = ev_bootstrap_runs(a, before.n, b, after.n, 1, h->resamples, h->seed, h->confidence, &iv, h->stop,
					       err);
			if (st == EV_OK && iv.ratio_defined)
				interval = json_pack("[o, o]", decimal(iv.ratio_lo), decimal(iv.ratio_hi));
		}
		double ratio = mb != 0 ? ma / mb : NAN;
		json_t *change = json_pack("{s:I, s:s, s:o, s:o, s:o, s:o, s:s, s:I, s:I, s:o, s:o}", "campaign",
					   (json_int_t)which[t], "captured",
					   captured_of(compared[which[t]]) ?: "",
					   "p_value", decimal(found[k].p_value), "q", decimal(found[k].q), "ratio", decimal(ratio),
					   "interval", interval, "over", by_runs ? "runs" : "campaigns", "before",
					   (json_int_t)before.n, "after", (json_int_t)after.n, "median_before", decimal(mb),
					   "median_after", decimal(ma));
		json_array_append_new(changes, change);
		/* the gate: a change the newest campaigns start, beyond the ratio asked */
		if (h->gate > 1 && t >= n - h->min_segment && isfinite(ratio) && (ratio >= h->gate || ratio <= 1 / h->gate)) {
			h->gate_tripped = 1;
			json_array_append_new(tripped_by, json_pack("{s:s, s:s, s:s, s:I, s:o}", "arm", arm, "cell", cell,
								    "statistic", statistic, "campaign",
								    (json_int_t)which[t], "ratio", decimal(ratio)));
		}
		free(before.v);
		free(after.v);
	}
	if (st == EV_OK)
		json_array_append_new(series_list, json_pack("{s:s, s:s, s:s, s:s, s:o, s:o}", "arm", arm, "cell", cell,
							     "statistic", statistic, "unit", unit ?: "", "points", points,
							     "changes", changes));
	else
		json_decref(points), json_decref(changes);
	free(values);
	free(which);
	return st;
}

static json_t *campaign_entry(const struct campaign *c, size_t index)
{
	const json_t *runs = json_object_get(c->body, "runs"), *prov = json_object_get(c->body, "provenance");
	const char *captured = captured_of(c);
	size_t n = json_array_size(runs);
	return json_pack("{s:I, s:s, s:s, s:s, s:s*, s:I, s:s, s:s}", "index", (json_int_t)index, "captured",
			 captured ?: "", "where", c->where, "summary_sha256", c->sha256, "seal_sha256",
			 text(prov, "seal_sha256"), "runs", (json_int_t)n, "first_run",
			 n ? text(json_array_get(runs, 0), "name") ?: "" : "", "last_run",
			 n ? text(json_array_get(runs, n - 1), "name") ?: "" : "");
}

/* One session of the plan, as history shows it: published (an audit
 * names it) or never. */
static ev_status keep_session(void *ctx, const struct ev_catalog_session *s, struct ev_error *err)
{
	json_t *list = ctx;
	const json_t *runs = json_object_get(s->end, "runs");
	json_t *row = json_pack("{s:s, s:s, s:O, s:O, s:s, s:I, s:b}", "start_sha256", s->sha256, "where", s->where,
				"campaign", json_object_get(s->start, "campaign"), "started", json_object_get(s->start, "time"),
				"result", s->end ? json_string_value(json_object_get(s->end, "result")) ?: "?" : "no end on the record",
				"runs_made", (json_int_t)json_integer_value(json_object_get(runs, "made")), "published", s->audited);
	if (!row || json_array_append_new(list, row) != 0)
		return ev_error_set(err, EV_ERROR, "out of memory");
	return EV_OK;
}

/* doc's "sessions": every session of the plan the catalog holds; a row
 * not believed is named in not_believed. */
static ev_status add_sessions(struct ev_catalog *cat, const char *plan_sha256, json_t *doc, json_t *not_believed,
			      struct ev_error *err)
{
	json_t *sessions = json_array();
	size_t doubted = 0;
	ev_status st = ev_catalog_sessions(cat, plan_sha256 ?: "", keep_session, sessions, &doubted, err);
	if (st == EV_OK)
		json_object_set(doc, "sessions", sessions);
	for (size_t k = 0; st == EV_OK && k < doubted; k++)
		json_array_append_new(not_believed, json_pack("{s:s, s:s}", "where", "a session's row", "why",
							      "its kept bytes do not hash to its SHA-256"));
	json_decref(sessions);
	return st;
}

/* Kept whole: the history's steps in order (its defaults, the campaigns
 * gathered and believed, the reference, each cell's change points and
 * effects, the document and its sessions), each a few lines over the
 * gathered campaigns, which one exit frees. */
ev_status ev_audit_history(struct ev_audit_history *h, struct ev_error *err)
{
	h->doc = NULL;
	h->gate_tripped = 0;
	if (!h->permutations)
		h->permutations = 199;
	if (h->alpha == 0)
		h->alpha = 0.05;
	if (!h->min_segment)
		h->min_segment = 3;
	if (!h->resamples)
		h->resamples = 2000;
	if (h->confidence == 0)
		h->confidence = 0.95;
	static const char *const default_statistics[] = {"p50", "p99", "p99.9"};
	const char *const *stats = h->nstatistics ? h->statistics : default_statistics;
	size_t nstats = h->nstatistics ? h->nstatistics : 3;
	struct ev_catalog *cat = NULL;
	struct gathered g = {.not_believed = json_array(), .untrusted = json_array(), .trust = h->ntrust > 0};
	struct ev_trust *trust = NULL;
	h->not_believed = h->untrusted = 0;
	ev_status st = g.not_believed && g.untrusted ? EV_OK : ev_error_set(err, EV_ERROR, "out of memory");
	if (st == EV_OK && h->ntrust)
		st = ev_trust_from_files(h->trust_files, h->ntrust, &trust, err);
	if (st == EV_OK)
		st = ev_catalog_open(h->catalog, &cat, err);
	if (st == EV_OK) {
		g.here = ev_catalog_host(cat);
		st = ev_catalog_summaries(cat, h->plan, trust, keep_summary, &g, err);
	}
	if (st == EV_OK && !g.n && json_array_size(g.untrusted))
		st = ev_error_set(err, EV_REFUSED, "catalog %s: no summary of plan '%s' is named by an audit receipt signed "
				  "by a trusted key (%zu left out)", ev_catalog_where(cat), h->plan,
				  json_array_size(g.untrusted));
	if (st == EV_OK && !g.n && json_array_size(g.not_believed))
		st = ev_error_set(err, EV_REFUSED, "catalog %s: no summary of plan '%s' is believed: the rows of %zu "
				  "contradict their documents (the first, %s: %s); replicate index --check names each",
				  ev_catalog_where(cat), h->plan, json_array_size(g.not_believed),
				  text(json_array_get(g.not_believed, 0), "where"), text(json_array_get(g.not_believed, 0), "why"));
	if (st == EV_OK && !g.n)
		st = ev_error_set(err, EV_USAGE, "catalog %s: no campaign summary of plan '%s' (replicate index the audit "
				  "campaign OUTDIRs first)", ev_catalog_where(cat), h->plan);
	const struct campaign *ref = NULL;
	for (size_t i = g.n; st == EV_OK && i-- > 0 && !ref;)
		if (!h->plan_sha256 || (g.list[i].plan_sha256 && strcmp(g.list[i].plan_sha256, h->plan_sha256) == 0))
			ref = &g.list[i];
	if (st == EV_OK && !ref)
		st = ev_error_set(err, EV_USAGE, "catalog %s: plan '%s' has %zu campaign%s, none with the plan digest %s",
				  ev_catalog_where(cat), h->plan, g.n, g.n == 1 ? "" : "s", h->plan_sha256);
	struct campaign **compared = st == EV_OK ? calloc(g.n, sizeof *compared) : NULL;
	size_t ncompared = 0;
	json_t *campaigns = json_array(), *apart = json_array(), *series = json_array(), *tripped_by = json_array();
	if (st == EV_OK && !compared)
		st = ev_error_set(err, EV_ERROR, "out of memory");
	for (size_t i = 0; st == EV_OK && i < g.n; i++)
		g.list[i].env = environment(&g.list[i], h);
	for (size_t i = 0; st == EV_OK && i < g.n; i++) {
		struct campaign *c = &g.list[i];
		const char *field = first_difference(c->env, ref->env, h);
		json_t *entry = campaign_entry(c, field ? 0 : ncompared);
		if (field) {
			json_object_del(entry, "index");
			json_object_set_new(entry, "field", json_string(field));
			json_object_set(entry, "value", json_object_get(c->env, field));
			json_object_set(entry, "compared_with", json_object_get(ref->env, field));
			json_array_append_new(apart, entry);
		} else {
			compared[ncompared++] = c;
			json_array_append_new(campaigns, entry);
		}
	}
	/* each cell of the reference campaign, each statistic it has */
	size_t i;
	json_t *cell;
	json_array_foreach(st == EV_OK ? json_object_get(ref->body, "cells") : NULL, i, cell) {
		for (size_t k = 0; k < nstats && st == EV_OK; k++) {
			if (h->stop && *h->stop) {
				st = ev_error_set(err, EV_INTERRUPTED, "stopped by a signal");
				break;
			}
			const json_t *medians = json_object_get(cell, "median_of_runs");
			if (strcmp(stats[k], "max") != 0 && !json_object_get(medians, stats[k]))
				continue;
			st = one_series(h, compared, ncompared, text(cell, "arm") ?: "", text(cell, "cell") ?: "", stats[k],
					text(cell, "unit"), series, tripped_by, err);
		}
		if (st != EV_OK)
			break;
	}
	if (st == EV_OK) {
		json_t *gate = h->gate > 1 ? json_pack("{s:o, s:b, s:O}", "ratio", decimal(h->gate), "tripped",
						       h->gate_tripped, "by", tripped_by)
					   : json_null();
		h->doc = json_pack("{s:s, s:s, s:s, s:s, s:{s:s, s:o, s:I, s:I, s:I, s:I, s:o}, s:O, s:O, s:O, s:O, s:o}",
				   "format", HISTORY_FORMAT, "catalog", ev_catalog_where(cat), "plan", h->plan, "plan_sha256",
				   text(ref->env, "plan"), "method", "name", "e-divisive means", "alpha", decimal(h->alpha),
				   "permutations", (json_int_t)h->permutations, "min_segment", (json_int_t)h->min_segment,
				   "seed", (json_int_t)h->seed, "resamples", (json_int_t)h->resamples, "confidence",
				   decimal(h->confidence), "environment", ref->env, "campaigns", campaigns, "apart", apart, "series",
				   series, "gate", gate);
		if (h->doc)
			st = add_sessions(cat, text(ref->env, "plan"), h->doc, g.not_believed, err);
		if (h->doc && json_array_size(g.not_believed))
			json_object_set(h->doc, "not_believed", g.not_believed);
		if (h->doc && h->ntrust)
			json_object_set(h->doc, "untrusted", g.untrusted);
		h->not_believed = json_array_size(g.not_believed);
		h->untrusted = json_array_size(g.untrusted);
		if (!h->doc)
			st = ev_error_set(err, EV_ERROR, "out of memory");
	}
	json_decref(campaigns), json_decref(apart), json_decref(series), json_decref(tripped_by);
	free(compared);
	for (size_t k = 0; k < g.n; k++) {
		json_decref(g.list[k].body);
		json_decref(g.list[k].env);
		free(g.list[k].where);
		free(g.list[k].plan_sha256);
	}
	free(g.list);
	json_decref(g.not_believed);
	json_decref(g.untrusted);
	ev_trust_free(trust);
	if (st == EV_ERROR && cat && ev_catalog_damaged(cat)) /* what the catalog says cannot be read: a finding */
		st = EV_MISMATCH;
	ev_catalog_close(cat);
	return st;
}

void ev_audit_history_free(struct ev_audit_history *h)
{
	json_decref(h->doc);
	h->doc = NULL;
}
