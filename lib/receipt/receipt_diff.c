/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/receipt/receipt_diff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct differ {
	ev_finding_fn on_finding;
	void *ctx;
	unsigned count;
};

/* A value as a person reads it: strings bare, everything else as JSON. */
static void show(const json_t *v, char *buf, size_t cap)
{
	if (!v) {
		buf[0] = '\0';
		return;
	}
	if (json_is_string(v)) {
		snprintf(buf, cap, "%s", json_string_value(v));
		return;
	}
	char *text = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
	snprintf(buf, cap, "%s", text ? text : "?");
	free(text);
}

static void report(struct differ *d, const char *subject, const json_t *va, const json_t *vb)
{
	char ea[EV_FINDING_VALUE_MAX], eb[EV_FINDING_VALUE_MAX];
	show(va, ea, sizeof ea);
	show(vb, eb, sizeof eb);
	if (va && vb)
		ev_finding_emit(d->on_finding, d->ctx, subject, "differs", "differs between the receipts",
				ea, eb);
	else
		ev_finding_emit(d->on_finding, d->ctx, subject, "only-in-one",
				va ? "only in the reference receipt" : "only in this receipt",
				va ? ea : NULL, vb ? eb : NULL);
	d->count++;
}

static void compare_field(struct differ *d, const char *subject, const json_t *va,
			  const json_t *vb)
{
	if ((va || vb) && !(va && vb && json_equal((json_t *)va, (json_t *)vb)))
		report(d, subject, va, vb);
}

/* The item of a named list (inputs, outputs, checks) with this name. */
static const json_t *by_name(const json_t *list, const char *name)
{
	size_t i;
	json_t *item;
	json_array_foreach(list, i, item)
	{
		const char *n = json_string_value(json_object_get(item, "name"));
		if (n && strcmp(n, name) == 0)
			return item;
	}
	return NULL;
}

/* What of a named item the comparable part covers, as one value:
 * a digest for inputs and outputs, "pass"/"fail: detail" for checks. */
static json_t *essence(const json_t *item, int is_check)
{
	if (!item)
		return NULL;
	if (!is_check) {
		const json_t *sha = json_object_get(item, "sha256");
		return sha ? json_incref((json_t *)sha) : json_string("(no sha256)");
	}
	const char *result = json_string_value(json_object_get(item, "result"));
	const char *detail = json_string_value(json_object_get(item, "detail"));
	char text[EV_FINDING_VALUE_MAX * 2];
	snprintf(text, sizeof text, "%s%s%s", result ? result : "?", detail ? ": " : "",
		 detail ? detail : "");
	return json_string(text);
}

static void compare_list(struct differ *d, const char *label, const json_t *la,
			 const json_t *lb, int is_check)
{
	size_t i;
	json_t *item;
	char subject[1200];
	/* Every name of a, then the names only b has, so each is said once. */
	for (int pass = 0; pass < 2; pass++) {
		const json_t *own = pass == 0 ? la : lb, *other = pass == 0 ? lb : la;
		json_array_foreach(own, i, item)
		{
			const char *name = json_string_value(json_object_get(item, "name"));
			if (!name || by_name(own, name) != item)
				continue; /* unnamed, or a repeated name: the first counts */
			const json_t *twin = by_name(other, name);
			if (pass == 1 && twin)
				continue;
			snprintf(subject, sizeof subject, "%s %s", label, name);
			json_t *ea = essence(pass == 0 ? item : twin, is_check);
			json_t *eb = essence(pass == 0 ? twin : item, is_check);
			compare_field(d, subject, ea, eb);
			json_decref(ea);
			json_decref(eb);
		}
	}
}

static void compare_facts(struct differ *d, const json_t *fa, const json_t *fb)
{
	const char *key;
	json_t *v;
	char subject[600];
	json_object_foreach((json_t *)fa, key, v)
	{
		snprintf(subject, sizeof subject, "fact %s", key);
		compare_field(d, subject, v, json_object_get(fb, key));
	}
	json_object_foreach((json_t *)fb, key, v)
	{
		if (json_object_get(fa, key))
			continue;
		snprintf(subject, sizeof subject, "fact %s", key);
		compare_field(d, subject, NULL, v);
	}
}

unsigned ev_receipt_diff(const json_t *a, const json_t *b, ev_finding_fn on_finding, void *ctx)
{
	struct differ d = {.on_finding = on_finding, .ctx = ctx};
	const json_t *ta = json_object_get(a, "tool"), *tb = json_object_get(b, "tool");
	compare_field(&d, "kind", json_object_get(a, "kind"), json_object_get(b, "kind"));
	compare_field(&d, "tool", json_object_get(ta, "name"), json_object_get(tb, "name"));
	compare_field(&d, "tool version", json_object_get(ta, "version"),
		      json_object_get(tb, "version"));
	compare_list(&d, "input", json_object_get(a, "inputs"), json_object_get(b, "inputs"), 0);
	compare_list(&d, "output", json_object_get(a, "outputs"), json_object_get(b, "outputs"), 0);
	compare_facts(&d, json_object_get(a, "facts"), json_object_get(b, "facts"));
	compare_list(&d, "check", json_object_get(a, "checks"), json_object_get(b, "checks"), 1);
	compare_field(&d, "result", json_object_get(a, "result"), json_object_get(b, "result"));
	return d.count;
}
