/* SPDX-License-Identifier: Apache-2.0 */
/* grade_rules: the grading rules document, evidence-grades/1: the shipped
 * default and every rule held to its form (grade.h). */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/campaign/grade.h"
#include "lib/campaign/grade_parts.h"
#include "lib/core/lease.h"

/* doc/formats.md "Grades" shows these bytes; a test holds the two together. */
static const char default_rules[] =
	"{\"format\": \"evidence-grades/1\", \"name\": \"evidence-default\", \"version\": 2, \"require\": \"any\",\n"
	" \"isolcpus\": [\"domain\", \"managed_irq\"], \"nohz_full\": true, \"rcu_nocbs\": true,\n"
	" \"lease\": \"exclusive\", \"smt_siblings\": \"idle\", \"controller\": \"apart\",\n"
	" \"profiler\": \"none\", \"live_observers\": \"none\",\n"
	" \"governor\": [\"performance\"], \"energy_performance_preference\": [\"performance\"], \"turbo\": \"off\",\n"
	" \"transparent_hugepage\": [\"never\"], \"numa_balancing\": [\"0\"], \"clocksource\": [\"tsc\"],\n"
	" \"pm_qos\": \"as_declared\", \"device_irqs\": \"off_measured_cpus\",\n"
	" \"interrupts\": {\"device\": 0, \"other\": 0}, \"watchdog\": \"off_measured_cpus\",\n"
	" \"involuntary_switches\": 0,\n"
	" \"smi\": 0, \"thermal_throttle\": 0, \"effective_frequency\": {\"min_pct\": 95, \"max_pct\": 105},\n"
	" \"steal\": 0, \"swapping\": 0, \"pressure\": {\"cpu\": 10, \"memory\": 0, \"io\": 10},\n"
	" \"clocks\": null}\n";

json_t *ev_grades_default(void)
{
	return json_loads(default_rules, 0, NULL);
}

enum kind { WORD, LIST, FLAG, BOUND, BOUNDS, FLAGS, PERCENTS, PER_MILLE, WITHIN };

static const struct rule {
	const char *key;
	enum kind kind;
	const char *words; /* WORD: the values allowed, '|'-separated */
	int since;         /* the default's version that added it: rules may leave out what came after version 1 */
} rules_table[] = {
	{"isolcpus", FLAGS, NULL, 1},
	{"nohz_full", FLAG, NULL, 1},
	{"rcu_nocbs", FLAG, NULL, 1},
	{"lease", WORD, "exclusive", 1},
	{"smt_siblings", WORD, "idle", 1},
	{"controller", WORD, "apart", 1},
	{"profiler", WORD, "none", 1},
	{"live_observers", WORD, "none", 1},
	{"governor", LIST, NULL, 1},
	{"energy_performance_preference", LIST, NULL, 1},
	{"turbo", WORD, "off|on", 1},
	{"transparent_hugepage", LIST, NULL, 1},
	{"numa_balancing", LIST, NULL, 1},
	{"clocksource", LIST, NULL, 1},
	{"pm_qos", WORD, "as_declared", 1},
	{"device_irqs", WORD, "off_measured_cpus", 1},
	{"interrupts", BOUNDS, NULL, 1},
	{"watchdog", WORD, "off_measured_cpus", 1},
	{"involuntary_switches", BOUND, NULL, 1},
	{"smi", BOUND, NULL, 2},
	{"thermal_throttle", BOUND, NULL, 2},
	{"effective_frequency", PERCENTS, NULL, 2},
	{"steal", BOUND, NULL, 2},
	{"swapping", BOUND, NULL, 2},
	{"pressure", PER_MILLE, NULL, 2},
	{"clocks", WITHIN, NULL, 2},
};

static int word_in(const char *w, const char *words)
{
	size_t n = strlen(w);
	for (const char *at = words; at; at = strchr(at, '|') ? strchr(at, '|') + 1 : NULL)
		if (strncmp(at, w, n) == 0 && (at[n] == '|' || at[n] == 0))
			return 1;
	return 0;
}

static int valid_name(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	if (n < 1 || n > 40)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-", s[i]))
			return 0;
	return 1;
}

static int string_list(const json_t *v, int may_be_empty)
{
	size_t i;
	json_t *s;
	if (!json_is_array(v) || (!may_be_empty && json_array_size(v) == 0))
		return 0;
	json_array_foreach(v, i, s) if (!json_is_string(s)) return 0;
	return 1;
}

static ev_status check_rule(const struct rule *r, const json_t *v, const char *display, struct ev_error *err)
{
	if (json_is_null(v))
		return EV_OK;
	switch (r->kind) {
	case WORD:
		if (json_is_string(v) && word_in(json_string_value(v), r->words))
			return EV_OK;
		return ev_error_set(err, EV_USAGE, "%s: \"%s\": expected \"%s\" (or null: not graded)", display, r->key,
				    r->words);
	case LIST:
		if (string_list(v, 0))
			return EV_OK;
		return ev_error_set(err, EV_USAGE, "%s: \"%s\": expected a list of the values allowed (or null: not graded)",
				    display, r->key);
	case FLAGS:
		if (string_list(v, 1))
			return EV_OK;
		return ev_error_set(err, EV_USAGE,
				    "%s: \"%s\": expected a list of the flags required, such as [\"domain\", \"managed_irq\"] (or null: not graded)",
				    display, r->key);
	case FLAG:
		if (json_is_boolean(v))
			return EV_OK;
		return ev_error_set(err, EV_USAGE, "%s: \"%s\": expected true (graded) or false", display, r->key);
	case BOUND:
		if (json_is_integer(v) && json_integer_value(v) >= 0)
			return EV_OK;
		return ev_error_set(err, EV_USAGE, "%s: \"%s\": expected a count from 0 (or null: not graded)", display,
				    r->key);
	case BOUNDS: {
		const char *k;
		json_t *b;
		if (!json_is_object(v) || !json_object_get(v, "device") || !json_object_get(v, "other"))
			return ev_error_set(err, EV_USAGE,
					    "%s: \"%s\": expected {\"device\": N, \"other\": N, LABEL: N...}, the interrupts a measured CPU may take in a run (or null: not graded)",
					    display, r->key);
		json_object_foreach((json_t *)v, k, b)
			if (!json_is_integer(b) || json_integer_value(b) < 0)
				return ev_error_set(err, EV_USAGE, "%s: \"%s\": \"%s\": expected a count from 0", display,
						    r->key, k);
		return EV_OK;
	}
	case PERCENTS: {
		const json_t *lo = json_object_get(v, "min_pct"), *hi = json_object_get(v, "max_pct");
		if (json_is_object(v) && json_object_size(v) == 2 && json_is_integer(lo) && json_is_integer(hi) &&
		    json_integer_value(lo) >= 1 && json_integer_value(lo) <= json_integer_value(hi) &&
		    json_integer_value(hi) <= 1000)
			return EV_OK;
		return ev_error_set(err, EV_USAGE,
				    "%s: \"%s\": expected {\"min_pct\": N, \"max_pct\": M}, 1 <= N <= M <= 1000, the range of APERF/MPERF in percent of the base frequency (or null: not graded)",
				    display, r->key);
	}
	case WITHIN:
		if (json_is_object(v) && json_object_size(v) == 1 && json_is_integer(json_object_get(v, "within_ns")) &&
		    json_integer_value(json_object_get(v, "within_ns")) >= 1)
			return EV_OK;
		return ev_error_set(err, EV_USAGE,
				    "%s: \"%s\": expected {\"within_ns\": N}, the error from 1 ns a host's clock may have (or null: not graded)",
				    display, r->key);
	case PER_MILLE: {
		const char *k;
		json_t *b;
		if (!json_is_object(v) || json_object_size(v) == 0)
			return ev_error_set(err, EV_USAGE,
					    "%s: \"%s\": expected {\"cpu\": N, \"memory\": N, \"io\": N} (any of them), the per mille of a run some task may stall (or null: not graded)",
					    display, r->key);
		json_object_foreach((json_t *)v, k, b) {
			if (strcmp(k, "cpu") && strcmp(k, "memory") && strcmp(k, "io"))
				return ev_error_set(err, EV_USAGE, "%s: \"%s\": \"%s\": not a resource (cpu, memory or io)",
						    display, r->key, k);
			if (!json_is_integer(b) || json_integer_value(b) < 0 || json_integer_value(b) > 1000)
				return ev_error_set(err, EV_USAGE, "%s: \"%s\": \"%s\": expected a per mille from 0 to 1000",
						    display, r->key, k);
		}
		return EV_OK;
	}
	}
	return EV_OK;
}

ev_status ev_grades_check(const json_t *rules, const char *display, struct ev_error *err)
{
	if (!json_is_object(rules))
		return ev_error_set(err, EV_USAGE, "%s: expected an object (%s)", display, EV_GRADES_FORMAT);
	const char *f = json_string_value(json_object_get(rules, "format"));
	if (!f || strcmp(f, EV_GRADES_FORMAT) != 0)
		return ev_error_set(err, EV_USAGE, "%s: \"format\": expected \"%s\", found %s", display, EV_GRADES_FORMAT,
				    f ? f : "none");
	if (!valid_name(json_string_value(json_object_get(rules, "name"))))
		return ev_error_set(err, EV_USAGE, "%s: \"name\": expected 1 to 40 of A-Za-z0-9_.-", display);
	const json_t *version = json_object_get(rules, "version");
	if (!json_is_integer(version) || json_integer_value(version) < 1)
		return ev_error_set(err, EV_USAGE, "%s: \"version\": expected an integer from 1", display);
	const char *require = json_string_value(json_object_get(rules, "require"));
	if (!require || (strcmp(require, "quiet") != 0 && strcmp(require, "any") != 0))
		return ev_error_set(err, EV_USAGE, "%s: \"require\": expected \"quiet\" or \"any\"", display);
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)rules, key, v) {
		int known = !strcmp(key, "format") || !strcmp(key, "name") || !strcmp(key, "version") ||
			    !strcmp(key, "require");
		for (size_t i = 0; !known && i < sizeof rules_table / sizeof *rules_table; i++)
			known = strcmp(key, rules_table[i].key) == 0;
		if (!known)
			return ev_error_set(err, EV_USAGE,
					    "%s: \"%s\": not a grading rule (the rules are format, name, version, require and each condition of doc/formats.md \"Grades\")",
					    display, key);
	}
	for (size_t i = 0; i < sizeof rules_table / sizeof *rules_table; i++) {
		const json_t *r = json_object_get(rules, rules_table[i].key);
		if (!r && rules_table[i].since > 1)
			continue; /* rules written before the condition: not graded, as then */
		if (!r)
			return ev_error_set(err, EV_USAGE,
					    "%s: \"%s\": missing (every condition is stated, null when not graded)",
					    display, rules_table[i].key);
		ev_status st = check_rule(&rules_table[i], r, display, err);
		if (st != EV_OK)
			return st;
	}
	return EV_OK;
}

