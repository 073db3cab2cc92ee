/* SPDX-License-Identifier: Apache-2.0 */
/* grade: the conditions graded, one condition's verdict while it is
 * made, and verdicts merged into one grade (grade.h); the rules in
 * grade_rules.c, the host's conditions in grade_policy.c, a run's in
 * grade_run.c. */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/campaign/grade.h"
#include "lib/campaign/grade_parts.h"
#include "lib/core/lease.h"

const char *const ev_grade_conditions[] = {
	"isolcpus", "nohz_full", "rcu_nocbs", "lease", "smt_siblings", "controller", "profiler", "live_observers",
	"governor", "energy_performance_preference", "turbo", "transparent_hugepage", "numa_balancing",
	"clocksource", "pm_qos", "device_irqs", "interrupts", "watchdog", "involuntary_switches", "smi",
	"thermal_throttle", "effective_frequency", "steal", "swapping", "pressure", "clocks", NULL};

void ev_grade_open(struct verdict *v, const char *condition)
{
	v->condition = condition;
	v->level = PASS;
	v->evidence = json_array();
}

void ev_grade_note(struct verdict *v, enum level level, const char *fmt, ...)
{
	char text[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	if (level > v->level)
		v->level = level;
	json_array_append_new(v->evidence, json_string(text));
}

static const char *const level_names[] = {"pass", "unknown", "fail"};

void ev_grade_close(struct verdict *v, json_t *out)
{
	json_array_append_new(out, json_pack("{s:s, s:s, s:o}", "condition", v->condition, "verdict",
					     level_names[v->level], "evidence", v->evidence));
}

void ev_grade_not_graded(const char *condition, json_t *out)
{
	json_array_append_new(out, json_pack("{s:s, s:s, s:[]}", "condition", condition, "verdict", "not graded",
					     "evidence"));
}

/* The rule for condition, or NULL when it is not graded. */
const json_t *ev_grade_rule(const json_t *rules, const char *condition)
{
	const json_t *r = json_object_get(rules, condition);
	return r && !json_is_null(r) && !json_is_false(r) ? r : NULL;
}

const char *ev_grade_whose(const struct ev_grade_cpus *c, int cpu)
{
	return cpu < 64 && c->whose[cpu][0] ? c->whose[cpu] : "a side's";
}

int ev_grade_in_list(const json_t *allowed, const char *value)
{
	size_t i;
	json_t *a;
	json_array_foreach(allowed, i, a) if (value && strcmp(json_string_value(a), value) == 0) return 1;
	return 0;
}

void ev_grade_list_text(const json_t *allowed, char *out, size_t cap)
{
	size_t i, n = 0;
	json_t *a;
	out[0] = 0;
	json_array_foreach(allowed, i, a) if (n < cap) n += (size_t)snprintf(out + n, cap - n, "%s%s", i ? ", " : "",
									       json_string_value(a));
}

static enum level level_of(const char *name)
{
	return !strcmp(name, "fail") ? FAIL : !strcmp(name, "unknown") ? UNKNOWN : PASS;
}

json_t *ev_grade_merge(const json_t *verdicts)
{
	json_t *out = json_array();
	for (size_t c = 0; ev_grade_conditions[c]; c++) {
		const char *cond = ev_grade_conditions[c];
		int seen = 0, graded = 0;
		enum level worst = PASS;
		json_t *evidence = json_array();
		size_t i;
		json_t *v;
		json_array_foreach(verdicts, i, v) {
			if (strcmp(json_string_value(json_object_get(v, "condition")) ?: "", cond) != 0)
				continue;
			seen = 1;
			const char *name = json_string_value(json_object_get(v, "verdict")) ?: "unknown";
			if (!strcmp(name, "not graded"))
				continue;
			graded = 1;
			if (level_of(name) > worst)
				worst = level_of(name);
			size_t k, j;
			json_t *s, *t;
			json_array_foreach(json_object_get(v, "evidence"), k, s) {
				int dup = 0;
				json_array_foreach(evidence, j, t) dup |= json_equal(s, t);
				if (!dup)
					json_array_append(evidence, s);
			}
		}
		if (seen)
			json_array_append_new(out, json_pack("{s:s, s:s, s:o}", "condition", cond, "verdict",
							     graded ? level_names[worst] : "not graded", "evidence", evidence));
		else
			json_decref(evidence);
	}
	return out;
}

const char *ev_grade_of(const json_t *verdicts)
{
	size_t i;
	json_t *v;
	json_array_foreach(verdicts, i, v) {
		const char *name = json_string_value(json_object_get(v, "verdict")) ?: "unknown";
		if (strcmp(name, "pass") != 0 && strcmp(name, "not graded") != 0)
			return "diagnostic";
	}
	return "quiet";
}
