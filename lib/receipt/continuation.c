/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/receipt/continuation.h"
#include "lib/core/grow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *str_or_empty(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

struct list {
	struct ev_difference *v;
	size_t n, cap;
	int oom;
};

static void add(struct list *l, const char *check, size_t check_len, const char *subject,
		const char *expected, const char *found)
{
	if (l->oom)
		return;
	if (ev_grow_array(&l->v, &l->cap, l->n + 1, sizeof *l->v) != 0) {
		l->oom = 1;
		return;
	}
	struct ev_difference d = {strndup(check, check_len), strdup(subject), strdup(expected), strdup(found)};
	if (!d.check || !d.subject || !d.expected || !d.found) {
		free(d.check);
		free(d.subject);
		free(d.expected);
		free(d.found);
		l->oom = 1;
		return;
	}
	l->v[l->n++] = d;
}

void ev_differences_free(struct ev_difference *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].check);
		free(v[i].subject);
		free(v[i].expected);
		free(v[i].found);
	}
	free(v);
}

/* audit journal's finding: where in which journal, as one subject. */
static void journal_subject(const json_t *f, char *buf, size_t cap)
{
	int n = snprintf(buf, cap, "pair %lld %s", (long long)json_integer_value(json_object_get(f, "pair")),
			 str_or_empty(f, "side"));
	if (json_object_get(f, "file") && n >= 0 && (size_t)n < cap)
		n += snprintf(buf + n, cap - (size_t)n, " %s at byte %lld", str_or_empty(f, "file"),
			      (long long)json_integer_value(json_object_get(f, "offset")));
	if (json_object_get(f, "record") && n >= 0 && (size_t)n < cap)
		n += snprintf(buf + n, cap - (size_t)n, " record %lld",
			      (long long)json_integer_value(json_object_get(f, "record")));
	if (json_object_get(f, "tag") && n >= 0 && (size_t)n < cap)
		snprintf(buf + n, cap - (size_t)n, " tag %lld", (long long)json_integer_value(json_object_get(f, "tag")));
}

static int explained(const struct list *l, size_t findings, const char *check)
{
	int members = strcmp(check, "members") == 0;
	for (size_t i = 0; i < findings; i++)
		if (members ? l->v[i].subject[0] != '\0' : strcmp(l->v[i].check, check) == 0)
			return 1;
	return 0;
}

ev_status ev_receipt_differences(const json_t *r, struct ev_difference **out, size_t *n,
				 struct ev_error *err)
{
	struct list l = {0};
	size_t i;
	json_t *item;
	/* Findings first: the plain checks are judged against them. */
	json_array_foreach(json_object_get(r, "checks"), i, item)
	{
		const char *name = str_or_empty(item, "name"), *colon = strchr(name, ':');
		if (colon && strcmp(str_or_empty(item, "result"), "fail") == 0)
			add(&l, name, (size_t)(colon - name), colon + 1, str_or_empty(item, "expected"),
			    str_or_empty(item, "found"));
	}
	json_array_foreach(json_object_get(json_object_get(r, "facts"), "first_findings"), i, item)
	{
		char where[1024];
		const char *rule = str_or_empty(item, "rule");
		journal_subject(item, where, sizeof where);
		add(&l, rule, strlen(rule), where, str_or_empty(item, "expected"), str_or_empty(item, "found"));
	}
	size_t findings = l.n;
	json_array_foreach(json_object_get(r, "checks"), i, item)
	{
		const char *name = str_or_empty(item, "name");
		if (strchr(name, ':') || strcmp(str_or_empty(item, "result"), "fail") != 0 ||
		    explained(&l, findings, name))
			continue;
		add(&l, name, strlen(name), "", "", str_or_empty(item, "detail"));
	}
	if (l.oom) {
		ev_differences_free(l.v, l.n);
		return ev_error_set(err, EV_ERROR, "continuation: out of memory");
	}
	*out = l.v;
	*n = l.n;
	return EV_OK;
}

/* Strings no single difference should make an accept rule take. */
static const char *const probes[] = {
	"0", "x", "evidence probe: any text at all, 1 2 3", "\x7f\x01", "-",
};

ev_status ev_accept_parse(struct ev_accept *a, const char *spec, int exact, struct ev_error *err)
{
	memset(a, 0, sizeof *a);
	const char *eq = strchr(spec, '=');
	if (!eq || eq == spec)
		return ev_error_set(err, EV_USAGE,
				    "--accept%s '%s': expected CHECK=%s (the failed check's name, then what it found)",
				    exact ? "-value" : "", spec, exact ? "VALUE" : "PATTERN");
	a->exact = exact;
	a->check = strndup(spec, (size_t)(eq - spec));
	a->text = strdup(eq + 1);
	if (!a->check || !a->text) {
		ev_accept_free(a);
		return ev_error_set(err, EV_ERROR, "continuation: out of memory");
	}
	if (exact) {
		if (!a->text[0]) {
			ev_accept_free(a);
			return ev_error_set(err, EV_USAGE, "--accept-value '%s': an empty value accepts nothing named",
					    spec);
		}
		return EV_OK;
	}
	size_t len = strlen(a->text);
	char *anchored = malloc(len + 5);
	if (!anchored) {
		ev_accept_free(a);
		return ev_error_set(err, EV_ERROR, "continuation: out of memory");
	}
	snprintf(anchored, len + 5, "^(%s)$", a->text);
	int rc = regcomp(&a->re, anchored, REG_EXTENDED | REG_NOSUB);
	free(anchored);
	if (rc != 0) {
		char why[256];
		regerror(rc, &a->re, why, sizeof why);
		ev_accept_free(a);
		return ev_error_set(err, EV_USAGE, "--accept '%s': not a POSIX extended regular expression (%s)",
				    spec, why);
	}
	a->compiled = 1;
	int any = regexec(&a->re, "", 0, NULL, 0) == 0;
	size_t taken = 0;
	for (size_t i = 0; i < sizeof probes / sizeof *probes; i++)
		taken += regexec(&a->re, probes[i], 0, NULL, 0) == 0;
	if (any || taken == sizeof probes / sizeof *probes) {
		ev_accept_free(a);
		return ev_error_set(err, EV_USAGE,
				    "--accept '%s': the pattern accepts %s, more than the difference it should name; write "
				    "the form of the value that differs (e.g. 'NAME: VALUE \\(default: 0\\)' as "
				    "'[A-Z_]+: [0-9]+ \\(default: 0\\)')",
				    spec, any ? "an empty value" : "any value");
	}
	return EV_OK;
}

void ev_accept_free(struct ev_accept *a)
{
	if (a->compiled)
		regfree(&a->re);
	free(a->check);
	free(a->text);
	memset(a, 0, sizeof *a);
}

int ev_accept_matches(const struct ev_accept *a, const struct ev_difference *d)
{
	if (strcmp(a->check, d->check) != 0)
		return 0;
	if (a->exact)
		return strcmp(a->text, d->found) == 0;
	return regexec(&a->re, d->found, 0, NULL, 0) == 0;
}

static void failed_checks(const struct ev_difference *v, size_t n, char *buf, size_t cap)
{
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n && used + 1 < cap; i++) {
		int seen = 0;
		for (size_t j = 0; j < i && !seen; j++)
			seen = strcmp(v[j].check, v[i].check) == 0;
		if (!seen) {
			int w = snprintf(buf + used, cap - used, "%s%s", used ? ", " : "", v[i].check);
			used += w > 0 ? (size_t)w : 0;
		}
	}
	if (used >= cap)
		buf[cap - 1] = '\0';
}

ev_status ev_accepts_vet(const struct ev_accept *accepts, size_t naccepts,
			 const struct ev_difference *orig, size_t norig, struct ev_error *err)
{
	for (size_t a = 0; a < naccepts; a++) {
		const struct ev_difference *example = NULL;
		size_t matched = 0;
		for (size_t i = 0; i < norig; i++) {
			if (strcmp(orig[i].check, accepts[a].check) != 0)
				continue;
			if (!example)
				example = &orig[i];
			matched += ev_accept_matches(&accepts[a], &orig[i]);
		}
		if (!example) {
			char list[512];
			failed_checks(orig, norig, list, sizeof list);
			return ev_error_set(err, EV_REFUSED,
					    "--accept%s %s=%s: the original did not fail check '%s'; a continuation "
					    "relaxes only a check the original failed (it failed: %s)",
					    accepts[a].exact ? "-value" : "", accepts[a].check, accepts[a].text,
					    accepts[a].check, list[0] ? list : "none");
		}
		if (!matched)
			return ev_error_set(err, EV_REFUSED,
					    "--accept%s %s=%s: accepts none of the original's '%s' findings (one found "
					    "'%s' at %s); name the value that differs",
					    accepts[a].exact ? "-value" : "", accepts[a].check, accepts[a].text, accepts[a].check, example->found,
					    example->subject[0] ? example->subject : "the check");
	}
	return EV_OK;
}

int ev_receipt_same_inputs(const json_t *a, const json_t *b, char *why, size_t cap)
{
	const json_t *ia = json_object_get(a, "inputs"), *ib = json_object_get(b, "inputs");
	size_t na = json_array_size(ia), nb = json_array_size(ib);
	for (size_t i = 0; i < na || i < nb; i++) {
		const json_t *x = json_array_get(ia, i), *y = json_array_get(ib, i);
		if (!x || !y) {
			snprintf(why, cap, "input %s %s", str_or_empty(x ? x : y, "name"),
				 x ? "is gone" : "is new");
			return 0;
		}
		if (strcmp(str_or_empty(x, "name"), str_or_empty(y, "name")) != 0) {
			snprintf(why, cap, "input %zu was %s, now %s", i + 1, str_or_empty(x, "name"),
				 str_or_empty(y, "name"));
			return 0;
		}
		if (strcmp(str_or_empty(x, "git_tree"), str_or_empty(y, "git_tree")) != 0) {
			snprintf(why, cap, "input %s (%s) was git tree %s, now %s", str_or_empty(x, "name"),
				 str_or_empty(y, "path"), str_or_empty(x, "git_tree"), str_or_empty(y, "git_tree"));
			return 0;
		}
		if (strcmp(str_or_empty(x, "sha256"), str_or_empty(y, "sha256")) != 0) {
			snprintf(why, cap, "input %s (%s) had SHA-256 %s, now %s", str_or_empty(x, "name"),
				 str_or_empty(y, "path"), str_or_empty(x, "sha256"), str_or_empty(y, "sha256"));
			return 0;
		}
	}
	return 1;
}
