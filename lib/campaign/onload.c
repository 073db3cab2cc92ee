/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/campaign/onload.h"
#include "lib/core/text.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static int is_name_char(char c, int upper)
{
	return (c >= '0' && c <= '9') || c == '_' || (upper ? (c >= 'A' && c <= 'Z') : (c >= 'a' && c <= 'z'));
}

/* "NAME: VALUE" or "NAME: VALUE (default: D)". @return 1 when it is. */
static int option_line(const char *s, const char *e, char *name, size_t ncap, char *value, size_t vcap, char *def,
		       size_t dcap, int *has_default)
{
	const char *p = s;
	while (p < e && is_name_char(*p, 1))
		p++;
	if (p == s || p == e || *p != ':' || (size_t)(p - s) >= ncap)
		return 0;
	snprintf(name, ncap, "%.*s", (int)(p - s), s);
	const char *v = p + 1;
	while (v < e && is_space(*v))
		v++;
	const char *vend = e;
	*has_default = 0;
	static const char annot[] = "(default:";
	const char *open = NULL;
	for (const char *q = v; q + sizeof annot - 1 <= e; q++)
		if (memcmp(q, annot, sizeof annot - 1) == 0)
			open = q;
	if (open) {
		if (e[-1] != ')')
			return 0;
		const char *d = open + sizeof annot - 1, *dend = e - 1;
		ev_text_trim(&d, &dend);
		if (d == dend || (size_t)(dend - d) >= dcap)
			return 0;
		snprintf(def, dcap, "%.*s", (int)(dend - d), d);
		*has_default = 1;
		vend = open;
	}
	ev_text_trim(&v, &vend);
	if (v == vend || (size_t)(vend - v) >= vcap)
		return 0;
	for (const char *q = v; q < vend; q++)
		if (is_space(*q))
			return 0; /* a value is one word */
	snprintf(value, vcap, "%.*s", (int)(vend - v), v);
	return 1;
}

/* "name: INTEGER", name lowercase. */
static int counter_line(const char *s, const char *e, char *name, size_t ncap, long long *value)
{
	const char *p = s;
	while (p < e && is_name_char(*p, 0))
		p++;
	if (p == s || p == e || *p != ':' || (size_t)(p - s) >= ncap || (*s >= '0' && *s <= '9'))
		return 0;
	const char *v = p + 1, *vend = e;
	ev_text_trim(&v, &vend);
	char num[32];
	if (v == vend || (size_t)(vend - v) >= sizeof num)
		return 0;
	snprintf(num, sizeof num, "%.*s", (int)(vend - v), v);
	char *end;
	errno = 0;
	*value = strtoll(num, &end, 10);
	if (*end || errno)
		return 0;
	snprintf(name, ncap, "%.*s", (int)(p - s), s);
	return 1;
}

unsigned ev_onload_parse(const char *text, size_t len, const char *subject, json_t **options, json_t **counters,
			 ev_finding_fn fn, void *ctx)
{
	*options = json_object();
	*counters = json_object();
	unsigned findings = 0;
	size_t lineno = 0;
	const char *ls, *le;
	for (const char *s = text, *end = text + len; ev_text_next_line(&s, end, &ls, &le);) {
		lineno++;
		ev_text_trim(&ls, &le);
		char where[512], name[128], value[256], def[256];
		int has_default;
		long long n;
		snprintf(where, sizeof where, "%s line %zu", subject, lineno);
		if (le - ls >= 3 && memcmp(ls, "EF_", 3) == 0) {
			if (!option_line(ls, le, name, sizeof name, value, sizeof value, def, sizeof def, &has_default)) {
				char line[200];
				snprintf(line, sizeof line, "%.*s", (int)(le - ls > 190 ? 190 : le - ls), ls);
				ev_finding_emit(fn, ctx, where, "onload-option",
						"an EF_ line that is not an option line",
						"EF_NAME: VALUE, or EF_NAME: VALUE (default: D)", line);
				findings++;
				continue;
			}
			json_t *had = json_object_get(*options, name);
			const char *before = had ? json_string_value(json_object_get(had, "value")) : NULL;
			if (before && strcmp(before, value) != 0) {
				ev_finding_emit(fn, ctx, where, "onload-option", "an option given twice with two values",
						before, value);
				findings++;
				continue;
			}
			if (!had)
				json_object_set_new(*options, name, json_pack("{s:s, s:o}", "value", value, "default",
									    has_default ? json_string(def) : json_null()));
		} else if (counter_line(ls, le, name, sizeof name, &n)) {
			json_t *had = json_object_get(*counters, name);
			json_object_set_new(*counters, name, json_integer((had ? json_integer_value(had) : 0) + n));
		}
	}
	return findings;
}

int ev_onload_requested_env(const char *entry, json_t *requested)
{
	const char *eq = strchr(entry, '=');
	if (strncmp(entry, "EF_", 3) != 0 || !eq)
		return 0;
	for (const char *p = entry; p < eq; p++)
		if (!is_name_char(*p, 1))
			return 0;
	char name[128];
	snprintf(name, sizeof name, "%.*s", (int)(eq - entry), entry);
	json_object_set_new(requested, name, json_string(eq + 1));
	return 1;
}

/* A word of a profile line at *p, up to a space: quotes ('' or "")
 * removed as the shell would for a plain word. @return 0, or -1 when a
 * quote is left open or the word does not fit. */
static int shell_word(const char **p, const char *e, char *out, size_t cap)
{
	size_t n = 0;
	char quote = 0;
	while (*p < e && (quote || !is_space(**p))) {
		char c = *(*p)++;
		if (!quote && (c == '\'' || c == '"')) {
			quote = c;
			continue;
		}
		if (quote && c == quote) {
			quote = 0;
			continue;
		}
		if (n + 1 >= cap)
			return -1;
		out[n++] = c;
	}
	out[n] = 0;
	while (*p < e && is_space(**p))
		(*p)++;
	return quote ? -1 : 0;
}

static int is_option_name(const char *name)
{
	if (strncmp(name, "EF_", 3) != 0 || !name[3])
		return 0;
	for (const char *p = name; *p; p++)
		if (!is_name_char(*p, 1))
			return 0;
	return 1;
}

size_t ev_onload_requested_profile(const char *text, size_t len, json_t *requested, json_t *imports,
				   json_t *not_understood)
{
	size_t taken = 0, lineno = 0;
	const char *ls, *le;
	for (const char *s = text, *end = text + len; ev_text_next_line(&s, end, &ls, &le);) {
		lineno++;
		ev_text_trim(&ls, &le);
		if (ls == le || *ls == '#')
			continue;
		char line[512], w1[256], w2[256], w3[256];
		snprintf(line, sizeof line, "%.*s", (int)(le - ls), ls);
		const char *p = ls;
		int ok = shell_word(&p, le, w1, sizeof w1) == 0;
		if (ok && strcmp(w1, "export") == 0) /* export EF_X=v: the shell's own way */
			ok = shell_word(&p, le, w1, sizeof w1) == 0 && p == le;
		if (ok && strchr(w1, '=') && p == le) { /* EF_X=v (llfix's profile, the environment) */
			char *eq = strchr(w1, '=');
			*eq = 0;
			if (is_option_name(w1)) {
				json_object_set_new(requested, w1, json_string(eq + 1));
				taken++;
				continue;
			}
		} else if (ok && strcmp(w1, "onload_set") == 0 && shell_word(&p, le, w2, sizeof w2) == 0) {
			/* Onload's profile syntax: onload_set EF_X v (or EF_X=v) */
			char *eq = strchr(w2, '=');
			int one = eq && p == le;
			if (one)
				*eq = 0;
			if (!one && shell_word(&p, le, w3, sizeof w3) != 0)
				p = ls; /* left unread: named below */
			if (p == le && is_option_name(w2)) {
				json_object_set_new(requested, w2, json_string(one ? eq + 1 : w3));
				taken++;
				continue;
			}
		} else if (ok && strcmp(w1, "onload_import") == 0 && shell_word(&p, le, w2, sizeof w2) == 0 && p == le &&
			   w2[0]) {
			if (imports)
				json_array_append_new(imports, json_string(w2));
			continue;
		}
		if (not_understood) {
			char text_[600];
			snprintf(text_, sizeof text_, "line %zu: %s", lineno, line);
			json_array_append_new(not_understood, json_string(text_));
		}
	}
	return taken;
}
