/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/campaign/registration.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/campaign/grade.h"
#include "lib/core/input.h"
#include "lib/core/json.h"
#include "lib/core/text.h"

static ev_status refuse(struct ev_error *err, const char *where, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static ev_status refuse(struct ev_error *err, const char *where, const char *fmt, ...)
{
	char text[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	return ev_error_set(err, EV_REFUSED, "%s: %s", where, text);
}

/* A ratio above 1 as audit history --gate takes it: digits, one point. */
static int ratio_ok(const char *text)
{
	char *end;
	double v = strtod(text, &end);
	return end != text && !*end && v > 1 && v < 1000 && strspn(text, "0123456789.") == strlen(text);
}

static int arm_named(const struct ev_campaign_plan *p, const char *name)
{
	for (size_t i = 0; i < p->narms; i++)
		if (strcmp(p->arms[i].name, name) == 0)
			return 1;
	return 0;
}

static int cell_named(const struct ev_campaign_plan *p, const char *name)
{
	for (size_t i = 0; i < p->ncells; i++)
		if (strcmp(p->cells[i].name, name) == 0)
			return 1;
	return 0;
}

static ev_status comparisons(const struct ev_campaign_plan *plan, const struct ev_registration_claims *c, json_t *out,
			     struct ev_error *err)
{
	for (size_t i = 0; i < c->narms; i++) {
		for (int k = 0; k < 2; k++)
			if (!arm_named(plan, c->arms[i][k]))
				return refuse(err, "--compare-arms", "%s: the plan has no arm %s", plan->name, c->arms[i][k]);
		json_array_append_new(out, json_pack("{s:s, s:s, s:s}", "kind", "arms", "a", c->arms[i][0], "b",
						     c->arms[i][1]));
	}
	for (size_t i = 0; i < c->ncells; i++) {
		for (int k = 0; k < 2; k++)
			if (!cell_named(plan, c->cells[i][k]))
				return refuse(err, "--compare-cells", "%s: the plan has no cell %s", plan->name,
					      c->cells[i][k]);
		json_array_append_new(out, json_pack("{s:s, s:s, s:s}", "kind", "cells", "a", c->cells[i][0], "b",
						     c->cells[i][1]));
	}
	for (size_t i = 0; i < c->nreferences; i++) {
		char hex[EV_SHA256_HEX_LEN + 1];
		ev_status st = ev_input_sha256_hex(c->references[i], "--reference", hex, err);
		if (st != EV_OK)
			return st;
		json_array_append_new(out, json_pack("{s:s, s:s}", "kind", "reference", "sha256", hex));
	}
	if (c->gate) {
		if (!ratio_ok(c->gate))
			return refuse(err, "--gate", "expected a ratio above 1 such as 1.1, found '%s'", c->gate);
		json_array_append_new(out, json_pack("{s:s, s:s}", "kind", "gate", "ratio", c->gate));
	}
	return EV_OK;
}

ev_status ev_registration_build(const struct ev_campaign_plan *plan, const struct ev_registration_claims *c,
				json_t **doc, struct ev_error *err)
{
	*doc = NULL;
	if (!json_object_size(plan->pins))
		return refuse(err, plan->name, "the plan pins no file: register the pinned plan (capture pin PLAN -o "
			      "PINNED), so that its SHA-256 fixes every program it runs");
	if (!c->nstatistics)
		return refuse(err, "--statistic", "no statistic registered: name each the campaign will publish (%s)",
			      EV_REGISTRATION_STATISTICS);
	for (size_t i = 0; i < c->nstatistics; i++) {
		if (!ev_text_word_in(EV_REGISTRATION_STATISTICS, c->statistics[i]))
			return refuse(err, "--statistic", "expected one of %s, found '%s'", EV_REGISTRATION_STATISTICS,
				      c->statistics[i]);
		for (size_t k = 0; k < i; k++)
			if (strcmp(c->statistics[k], c->statistics[i]) == 0)
				return refuse(err, "--statistic", "%s registered twice", c->statistics[i]);
	}
	if (c->sessions < 1)
		return refuse(err, "--sessions", "expected at least 1 session");
	if (c->hypothesis && strlen(c->hypothesis) > EV_REGISTRATION_HYPOTHESIS_MAX)
		return refuse(err, "--hypothesis", "%zu bytes; at most %d", strlen(c->hypothesis),
			      EV_REGISTRATION_HYPOTHESIS_MAX);

	const json_t *pinned = json_object_get(plan->doc, "grades");
	json_t *rules = pinned ? json_incref((json_t *)pinned) : ev_grades_default();
	const char *require = c->require ? c->require : json_string_value(json_object_get(rules, "require"));
	json_t *grades = json_pack("{s:O, s:O, s:b, s:s}", "name", json_object_get(rules, "name"), "version",
				   json_object_get(rules, "version"), "pinned", pinned != NULL, "require",
				   require && strcmp(require, "quiet") == 0 ? "quiet" : "any");
	json_decref(rules);

	json_t *arms = json_array(), *cells = json_array(), *stats = json_array(), *compared = json_array();
	for (size_t i = 0; i < plan->narms; i++)
		json_array_append_new(arms, json_string(plan->arms[i].name));
	for (size_t i = 0; i < plan->ncells; i++)
		json_array_append_new(cells, json_string(plan->cells[i].name));
	for (size_t i = 0; i < c->nstatistics; i++)
		json_array_append_new(stats, json_string(c->statistics[i]));
	char host[256] = "", now[32];
	gethostname(host, sizeof host - 1);
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", &tm);
	json_t *d = json_pack("{s:s, s:{s:s, s:s, s:o, s:o}, s:o, s:o, s:o, s:I, s:{s:s, s:s}}", "format",
			      EV_REGISTRATION_FORMAT, "plan", "name", plan->name, "sha256", plan->sha256, "arms", arms,
			      "cells", cells, "grades", grades, "statistics", stats, "comparisons", compared, "sessions",
			      (json_int_t)c->sessions, "registered", "host", host, "time", now);
	if (!d)
		return ev_error_set(err, EV_ERROR, "out of memory, or a name that is not UTF-8");
	ev_status st = comparisons(plan, c, compared, err);
	if (st == EV_OK && c->hypothesis) {
		json_t *h = json_string(c->hypothesis);
		if (!h)
			st = refuse(err, "--hypothesis", "not valid UTF-8");
		else
			json_object_set_new(d, "hypothesis", h);
	}
	if (st != EV_OK) {
		json_decref(d);
		return st;
	}
	*doc = d;
	return EV_OK;
}

static const char *string_at(const json_t *doc, const char *a, const char *b)
{
	const json_t *v = json_object_get(doc, a);
	return json_string_value(b ? json_object_get(v, b) : v);
}

/* Each element of list a string: of words when words is given, none twice. */
static ev_status strings(const json_t *list, const char *words, const char *where, struct ev_error *err)
{
	size_t i, k;
	json_t *v, *w;
	if (!json_is_array(list))
		return refuse(err, where, "expected a list of strings");
	json_array_foreach(list, i, v) {
		if (!json_is_string(v) || (words && !ev_text_word_in(words, json_string_value(v))))
			return refuse(err, where, "item %zu: expected %s", i + 1, words ? words : "a string");
		json_array_foreach(list, k, w)
			if (k < i && json_equal(v, w))
				return refuse(err, where, "%s named twice", json_string_value(v));
	}
	return EV_OK;
}

static ev_status one_comparison(const json_t *cmp, size_t i, struct ev_error *err)
{
	static const char *const pair[] = {"kind", "a", "b", NULL}, *const one[] = {"kind", "sha256", NULL},
				 *const gate[] = {"kind", "ratio", NULL};
	char where[64];
	snprintf(where, sizeof where, "comparisons: item %zu", i + 1);
	const char *kind = json_string_value(json_object_get(cmp, "kind"));
	const char *const *keys = !kind ? NULL
				  : strcmp(kind, "arms") == 0 || strcmp(kind, "cells") == 0 ? pair
				  : strcmp(kind, "reference") == 0 ? one
				  : strcmp(kind, "gate") == 0 ? gate : NULL;
	if (!keys)
		return refuse(err, where, "\"kind\": expected arms, cells, reference or gate");
	const char *key = ev_json_unknown_key(cmp, keys);
	if (key)
		return refuse(err, where, "unknown key \"%s\"", key);
	for (const char *const *k = keys + 1; *k; k++)
		if (!json_is_string(json_object_get(cmp, *k)))
			return refuse(err, where, "\"%s\": expected a string", *k);
	if (keys == one && !ev_sha256_hex_valid(json_string_value(json_object_get(cmp, "sha256"))))
		return refuse(err, where, "\"sha256\": expected 64 lower-case hex digits");
	if (keys == gate && !ratio_ok(json_string_value(json_object_get(cmp, "ratio"))))
		return refuse(err, where, "\"ratio\": expected a ratio above 1");
	return EV_OK;
}

/* The rules ev_registration_build keeps, held to a document read. */
static ev_status check(const json_t *doc, struct ev_error *err)
{
	static const char *const top[] = {"format", "plan", "grades", "statistics", "comparisons", "sessions",
					  "hypothesis", "registered", NULL};
	static const char *const plan[] = {"name", "sha256", "arms", "cells", NULL};
	static const char *const grades[] = {"name", "version", "pinned", "require", NULL};
	static const char *const registered[] = {"host", "time", NULL};
	const char *key = ev_json_unknown_key(doc, top);
	if (key)
		return refuse(err, "registration", "unknown key \"%s\"", key);
	const json_t *p = json_object_get(doc, "plan"), *g = json_object_get(doc, "grades"),
		     *r = json_object_get(doc, "registered");
	if (json_is_object(p) && (key = ev_json_unknown_key(p, plan)))
		return refuse(err, "plan", "unknown key \"%s\"", key);
	if (!json_is_object(p) || !string_at(doc, "plan", "name") || !ev_sha256_hex_valid(string_at(doc, "plan", "sha256")))
		return refuse(err, "plan", "expected {name, sha256 (64 hex digits), arms, cells}");
	ev_status st;
	if ((st = strings(json_object_get(p, "arms"), NULL, "plan: arms", err)) != EV_OK ||
	    (st = strings(json_object_get(p, "cells"), NULL, "plan: cells", err)) != EV_OK)
		return st;
	const char *require = string_at(doc, "grades", "require");
	if (json_is_object(g) && (key = ev_json_unknown_key(g, grades)))
		return refuse(err, "grades", "unknown key \"%s\"", key);
	if (!json_is_object(g) || !require || (strcmp(require, "quiet") != 0 && strcmp(require, "any") != 0) ||
	    !json_is_boolean(json_object_get(g, "pinned")))
		return refuse(err, "grades", "expected {name, version, pinned, require: quiet or any}");
	const json_t *stats = json_object_get(doc, "statistics");
	if ((st = strings(stats, EV_REGISTRATION_STATISTICS, "statistics", err)) != EV_OK)
		return st;
	if (!json_array_size(stats))
		return refuse(err, "statistics", "none registered");
	const json_t *cmps = json_object_get(doc, "comparisons");
	if (!json_is_array(cmps))
		return refuse(err, "comparisons", "expected a list");
	size_t i;
	json_t *v;
	json_array_foreach(cmps, i, v)
		if ((st = one_comparison(v, i, err)) != EV_OK)
			return st;
	const json_t *sessions = json_object_get(doc, "sessions");
	if (!json_is_integer(sessions) || json_integer_value(sessions) < 1)
		return refuse(err, "sessions", "expected a whole number, 1 or more");
	const json_t *h = json_object_get(doc, "hypothesis");
	if (h && (!json_is_string(h) || strlen(json_string_value(h)) > EV_REGISTRATION_HYPOTHESIS_MAX))
		return refuse(err, "hypothesis", "expected text of at most %d bytes", EV_REGISTRATION_HYPOTHESIS_MAX);
	if (json_is_object(r) && (key = ev_json_unknown_key(r, registered)))
		return refuse(err, "registered", "unknown key \"%s\"", key);
	if (!json_is_object(r) || !string_at(doc, "registered", "host") || !string_at(doc, "registered", "time"))
		return refuse(err, "registered", "expected {host, time}");
	return EV_OK;
}

ev_status ev_registration_load(const char *path, json_t **doc, uint8_t sha256[EV_SHA256_LEN], struct ev_error *err)
{
	ev_status st = ev_json_load(path, EV_REGISTRATION_FORMAT, EV_JSON_REQUIRE_CANONICAL, doc, sha256, NULL, NULL, err);
	if (st != EV_OK)
		return st;
	if ((st = check(*doc, err)) != EV_OK) {
		char why[EV_ERROR_TEXT_MAX];
		snprintf(why, sizeof why, "%s", err->text);
		ev_error_clear(err);
		st = ev_error_set(err, EV_REFUSED, "%s: not a registration as capture register writes one: %s", path, why);
		json_decref(*doc);
		*doc = NULL;
	}
	return st;
}

const char *ev_registration_plan_sha256(const json_t *doc)
{
	const char *s = string_at(doc, "plan", "sha256");
	return s ? s : "";
}

const char *ev_registration_require(const json_t *doc)
{
	const char *s = string_at(doc, "grades", "require");
	return s ? s : "any";
}
