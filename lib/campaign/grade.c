/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/campaign/grade.h"
#include "lib/core/lease.h"

const char *const ev_grade_conditions[] = {
	"isolcpus", "nohz_full", "rcu_nocbs", "lease", "smt_siblings", "controller", "profiler", "live_observers",
	"governor", "energy_performance_preference", "turbo", "transparent_hugepage", "numa_balancing",
	"clocksource", "pm_qos", "device_irqs", "interrupts", "watchdog", "involuntary_switches", NULL};

/* doc/formats.md "Grades" shows these bytes; a test holds the two together. */
static const char default_rules[] =
	"{\"format\": \"evidence-grades/1\", \"name\": \"evidence-default\", \"version\": 1, \"require\": \"any\",\n"
	" \"isolcpus\": [\"domain\", \"managed_irq\"], \"nohz_full\": true, \"rcu_nocbs\": true,\n"
	" \"lease\": \"exclusive\", \"smt_siblings\": \"idle\", \"controller\": \"apart\",\n"
	" \"profiler\": \"none\", \"live_observers\": \"none\",\n"
	" \"governor\": [\"performance\"], \"energy_performance_preference\": [\"performance\"], \"turbo\": \"off\",\n"
	" \"transparent_hugepage\": [\"never\"], \"numa_balancing\": [\"0\"], \"clocksource\": [\"tsc\"],\n"
	" \"pm_qos\": \"as_declared\", \"device_irqs\": \"off_measured_cpus\",\n"
	" \"interrupts\": {\"device\": 0, \"other\": 0}, \"watchdog\": \"off_measured_cpus\",\n"
	" \"involuntary_switches\": 0}\n";

json_t *ev_grades_default(void)
{
	return json_loads(default_rules, 0, NULL);
}

enum kind { WORD, LIST, FLAG, BOUND, BOUNDS, FLAGS };

static const struct rule {
	const char *key;
	enum kind kind;
	const char *words; /* WORD: the values allowed, '|'-separated */
} rules_table[] = {
	{"isolcpus", FLAGS, NULL},
	{"nohz_full", FLAG, NULL},
	{"rcu_nocbs", FLAG, NULL},
	{"lease", WORD, "exclusive"},
	{"smt_siblings", WORD, "idle"},
	{"controller", WORD, "apart"},
	{"profiler", WORD, "none"},
	{"live_observers", WORD, "none"},
	{"governor", LIST, NULL},
	{"energy_performance_preference", LIST, NULL},
	{"turbo", WORD, "off|on"},
	{"transparent_hugepage", LIST, NULL},
	{"numa_balancing", LIST, NULL},
	{"clocksource", LIST, NULL},
	{"pm_qos", WORD, "as_declared"},
	{"device_irqs", WORD, "off_measured_cpus"},
	{"interrupts", BOUNDS, NULL},
	{"watchdog", WORD, "off_measured_cpus"},
	{"involuntary_switches", BOUND, NULL},
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

/* One condition's verdict while it is made: the worst seen, its sentences. */
enum level { PASS, UNKNOWN, FAIL };

struct verdict {
	const char *condition;
	enum level level;
	json_t *evidence;
};

static void open_verdict(struct verdict *v, const char *condition)
{
	v->condition = condition;
	v->level = PASS;
	v->evidence = json_array();
}

__attribute__((format(printf, 3, 4))) static void note(struct verdict *v, enum level level, const char *fmt, ...)
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

static void close_verdict(struct verdict *v, json_t *out)
{
	json_array_append_new(out, json_pack("{s:s, s:s, s:o}", "condition", v->condition, "verdict",
					     level_names[v->level], "evidence", v->evidence));
}

static void not_graded(const char *condition, json_t *out)
{
	json_array_append_new(out, json_pack("{s:s, s:s, s:[]}", "condition", condition, "verdict", "not graded",
					     "evidence"));
}

/* The rule for condition, or NULL when it is not graded. */
static const json_t *rule(const json_t *rules, const char *condition)
{
	const json_t *r = json_object_get(rules, condition);
	return r && !json_is_null(r) && !json_is_false(r) ? r : NULL;
}

static const char *whose(const struct ev_grade_cpus *c, int cpu)
{
	return cpu < 64 && c->whose[cpu][0] ? c->whose[cpu] : "a side's";
}

static int in_list(const json_t *allowed, const char *value)
{
	size_t i;
	json_t *a;
	json_array_foreach(allowed, i, a) if (value && strcmp(json_string_value(a), value) == 0) return 1;
	return 0;
}

static void list_text(const json_t *allowed, char *out, size_t cap)
{
	size_t i, n = 0;
	json_t *a;
	out[0] = 0;
	json_array_foreach(allowed, i, a) if (n < cap) n += (size_t)snprintf(out + n, cap - n, "%s%s", i ? ", " : "",
									       json_string_value(a));
}

/* A kernel command-line list "flag,flag,2-3" into its CPUs and its flags
 * (text before the first number). @return 0, or -1 when it is no list. */
static int kernel_list(const char *value, cpu_set_t *cpus, char *flags, size_t cap)
{
	const char *list = value;
	while (*list && (*list < '0' || *list > '9')) {
		const char *comma = strchr(list, ',');
		if (!comma)
			return -1;
		list = comma + 1;
	}
	snprintf(flags, cap, "%.*s", (int)(list > value ? list - value - 1 : 0), value);
	return ev_cpulist_parse(list, cpus);
}

static int has_flag(const char *flags, const char *flag)
{
	size_t n = strlen(flag);
	for (const char *at = flags; *at; at = strchr(at, ',') ? strchr(at, ',') + 1 : at + strlen(at))
		if (strncmp(at, flag, n) == 0 && (at[n] == ',' || at[n] == 0))
			return 1;
	return 0;
}

static int any_side(const struct ev_grade_cpus *c, struct verdict *v, const char *policy_name)
{
	if (c->have_sides)
		return 1;
	note(v, UNKNOWN, "no measured side's CPU is recorded (%s)", policy_name);
	return 0;
}

/* isolcpus, nohz_full, rcu_nocbs: every side's CPU on the kernel's list. */
static void isolation(const json_t *rules, const struct ev_policy *policy, const char *pname,
		      const struct ev_grade_cpus *c, const char *param, json_t *out)
{
	const json_t *r = rule(rules, param);
	if (!r)
		return not_graded(param, out);
	struct verdict v;
	open_verdict(&v, param);
	const char *text;
	int says = ev_policy_isolation(policy, param, &text);
	if (says < 0) {
		note(&v, UNKNOWN, "%s records no isolation.%s (the kernel command line's %s)", pname, param, param);
	} else if (says == 0) {
		if (any_side(c, &v, pname))
			note(&v, FAIL, "the kernel command line has no %s (%s)", param, pname);
	} else {
		cpu_set_t set;
		char flags[256];
		if (kernel_list(text, &set, flags, sizeof flags) != 0) {
			note(&v, UNKNOWN, "%s=%s is not a CPU list (%s)", param, text, pname);
		} else if (any_side(c, &v, pname)) {
			for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
				if (CPU_ISSET(cpu, &c->sides) && !CPU_ISSET(cpu, &set))
					note(&v, FAIL, "CPU %d (%s) is not in %s=%s (%s)", cpu, whose(c, cpu), param, text,
					     pname);
			if (json_is_array(r)) { /* isolcpus: its flags; none given means domain */
				size_t i;
				json_t *f;
				json_array_foreach(r, i, f) {
					const char *want = json_string_value(f);
					if (!(flags[0] ? has_flag(flags, want) : strcmp(want, "domain") == 0))
						note(&v, FAIL, "%s=%s lacks the flag %s (%s)", param, text, want, pname);
				}
			}
		}
	}
	close_verdict(&v, out);
}

static void smt_siblings(const json_t *rules, const struct ev_policy *policy, const char *pname,
			 const struct ev_grade_cpus *c, const cpu_set_t *isolated, int have_isolated, json_t *out)
{
	if (!rule(rules, "smt_siblings"))
		return not_graded("smt_siblings", out);
	struct verdict v;
	open_verdict(&v, "smt_siblings");
	if (any_side(c, &v, pname))
		for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
			if (!CPU_ISSET(cpu, &c->sides))
				continue;
			const char *sib = ev_policy_cpu(policy, cpu, "smt_siblings");
			cpu_set_t set;
			if (!sib || ev_policy_unavailable(sib) || ev_cpulist_parse(sib, &set) != 0) {
				note(&v, UNKNOWN, "CPU %d (%s): its SMT siblings are not recorded (%s cpus.%d.smt_siblings: %s)",
				     cpu, whose(c, cpu), pname, cpu, sib ? sib : "absent");
				continue;
			}
			for (int s = 0; s < CPU_SETSIZE; s++) {
				if (s == cpu || !CPU_ISSET(s, &set))
					continue;
				if (CPU_ISSET(s, &c->sides))
					note(&v, FAIL, "CPU %d (%s) shares its core with CPU %d (%s)", cpu, whose(c, cpu), s,
					     whose(c, s));
				else if (c->have_controller && CPU_ISSET(s, &c->controller))
					note(&v, FAIL, "CPU %d (%s) shares its core with CPU %d (the controller's)", cpu,
					     whose(c, cpu), s);
				else if (!have_isolated)
					note(&v, UNKNOWN, "CPU %d (%s) shares its core with CPU %d, and isolcpus is not known",
					     cpu, whose(c, cpu), s);
				else if (!CPU_ISSET(s, isolated))
					note(&v, FAIL,
					     "CPU %d (%s) shares its core with CPU %d, which is not isolated: any task may run there",
					     cpu, whose(c, cpu), s);
			}
		}
	close_verdict(&v, out);
}

/* governor, energy_performance_preference: each side's CPU's value allowed. */
static void per_cpu(const json_t *rules, const struct ev_policy *policy, const char *pname,
		    const struct ev_grade_cpus *c, const char *field, json_t *out)
{
	const json_t *r = rule(rules, field);
	if (!r)
		return not_graded(field, out);
	struct verdict v;
	open_verdict(&v, field);
	char allowed[256];
	list_text(r, allowed, sizeof allowed);
	if (any_side(c, &v, pname))
		for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
			if (!CPU_ISSET(cpu, &c->sides))
				continue;
			const char *val = ev_policy_cpu(policy, cpu, field);
			if (!val || ev_policy_unavailable(val))
				note(&v, UNKNOWN, "CPU %d (%s): %s %s (%s)", cpu, whose(c, cpu), field, val ? val : "not recorded",
				     pname);
			else if (!in_list(r, val))
				note(&v, FAIL, "CPU %d (%s) has %s %s (the rules allow %s) (%s)", cpu, whose(c, cpu), field, val,
				     allowed, pname);
		}
	close_verdict(&v, out);
}

/* The bracketed choice of "always [madvise] never", or the value itself. */
static void chosen(const char *value, char *out, size_t cap)
{
	const char *open = strchr(value, '['), *close = open ? strchr(open, ']') : NULL;
	if (open && close)
		snprintf(out, cap, "%.*s", (int)(close - open - 1), open + 1);
	else
		snprintf(out, cap, "%s", value);
}

/* transparent_hugepage, numa_balancing, clocksource: the host's value allowed. */
static void host_value(const json_t *rules, const struct ev_policy *policy, const char *pname, const char *field,
		       json_t *out)
{
	const json_t *r = rule(rules, field);
	if (!r)
		return not_graded(field, out);
	struct verdict v;
	open_verdict(&v, field);
	const char *val = ev_policy_text(policy, field);
	char allowed[256], value[128];
	list_text(r, allowed, sizeof allowed);
	if (!val || ev_policy_unavailable(val)) {
		note(&v, UNKNOWN, "%s %s (%s)", field, val ? val : "not recorded", pname);
	} else {
		chosen(val, value, sizeof value);
		if (!in_list(r, value))
			note(&v, FAIL, "%s is %s (the rules allow %s) (%s)", field, value, allowed, pname);
	}
	close_verdict(&v, out);
}

static void turbo(const json_t *rules, const struct ev_policy *policy, const char *pname, json_t *out)
{
	const json_t *r = rule(rules, "turbo");
	if (!r)
		return not_graded("turbo", out);
	struct verdict v;
	open_verdict(&v, "turbo");
	const char *raw;
	int on = ev_policy_turbo(policy, &raw);
	const char *state = on < 0 ? NULL : on ? "on" : "off";
	if (!state)
		note(&v, UNKNOWN, "turbo is not recorded (%s turbo: %s)", pname, raw ? raw : "absent");
	else if (strcmp(state, json_string_value(r)) != 0)
		note(&v, FAIL, "turbo is %s (the rules want it %s) (%s)", state, json_string_value(r), pname);
	close_verdict(&v, out);
}

/* /proc/interrupts pads its description with runs of spaces: one each. */
static void squeeze(const char *in, char *out, size_t cap)
{
	size_t n = 0;
	for (; in && *in && n + 1 < cap; in++)
		if (*in != ' ' || (n && out[n - 1] != ' '))
			out[n++] = *in;
	while (n && out[n - 1] == ' ')
		n--;
	if (!n && cap > 1)
		out[n++] = '?';
	out[n] = 0;
}

static void device_irqs(const json_t *rules, const struct ev_policy *policy, const char *pname,
			const struct ev_grade_cpus *c, json_t *out)
{
	if (!rule(rules, "device_irqs"))
		return not_graded("device_irqs", out);
	struct verdict v;
	open_verdict(&v, "device_irqs");
	const json_t *irqs = ev_policy_interrupts(policy);
	const char *label;
	json_t *irq;
	if (!json_is_object(irqs))
		note(&v, UNKNOWN, "%s records no interrupts", pname);
	else if (any_side(c, &v, pname))
		json_object_foreach((json_t *)irqs, label, irq) {
			if (strspn(label, "0123456789") != strlen(label))
				continue; /* NMI, LOC, ...: counted per run (interrupts) */
			const char *aff = ev_policy_irq_affinity(irq);
			char desc[128];
			squeeze(ev_policy_irq_description(irq), desc, sizeof desc);
			cpu_set_t set;
			if (!aff || ev_cpulist_parse(aff, &set) != 0) {
				note(&v, UNKNOWN, "IRQ %s (%s): its affinity is not recorded (%s)", label, desc, pname);
				continue;
			}
			for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
				if (CPU_ISSET(cpu, &set) && CPU_ISSET(cpu, &c->sides))
					note(&v, FAIL, "IRQ %s (%s) is affined to CPU %d (%s) (%s)", label, desc, cpu,
					     whose(c, cpu), pname);
		}
	close_verdict(&v, out);
}

static void watchdog(const json_t *rules, const struct ev_policy *policy, const char *pname,
		     const struct ev_grade_cpus *c, json_t *out)
{
	if (!rule(rules, "watchdog"))
		return not_graded("watchdog", out);
	struct verdict v;
	open_verdict(&v, "watchdog");
	const char *mask = ev_policy_text(policy, "watchdog_cpumask");
	cpu_set_t set;
	if (!mask || ev_policy_unavailable(mask) || ev_cpulist_parse(mask, &set) != 0)
		note(&v, UNKNOWN, "watchdog_cpumask %s (%s)", mask ? mask : "not recorded", pname);
	else if (any_side(c, &v, pname))
		for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
			if (CPU_ISSET(cpu, &set) && CPU_ISSET(cpu, &c->sides))
				note(&v, FAIL, "the watchdog runs on CPU %d (%s) (watchdog_cpumask %s) (%s)", cpu,
				     whose(c, cpu), mask, pname);
	close_verdict(&v, out);
}

void ev_grade_policy(const json_t *rules, const struct ev_policy *policy, const char *pname,
		     const struct ev_grade_cpus *c, json_t *out)
{
	cpu_set_t isolated;
	CPU_ZERO(&isolated);
	if (!policy) { /* nothing of the host can be told */
		static const char *const host[] = {"isolcpus", "nohz_full", "rcu_nocbs", "smt_siblings", "governor",
						   "energy_performance_preference", "turbo", "transparent_hugepage",
						   "numa_balancing", "clocksource", "device_irqs", "watchdog", NULL};
		for (size_t i = 0; host[i]; i++) {
			if (!rule(rules, host[i])) {
				not_graded(host[i], out);
				continue;
			}
			struct verdict v;
			open_verdict(&v, host[i]);
			note(&v, UNKNOWN, "no OS policy snapshot was recorded (%s)", pname);
			close_verdict(&v, out);
		}
		return;
	}
	isolation(rules, policy, pname, c, "isolcpus", out);
	const char *isolcpus;
	int says = ev_policy_isolation(policy, "isolcpus", &isolcpus);
	int have_isolated = says >= 0;
	if (says > 0) { /* the list, whatever the isolcpus rule says */
		char flags[256];
		have_isolated = kernel_list(isolcpus, &isolated, flags, sizeof flags) == 0;
	}
	isolation(rules, policy, pname, c, "nohz_full", out);
	isolation(rules, policy, pname, c, "rcu_nocbs", out);
	smt_siblings(rules, policy, pname, c, &isolated, have_isolated, out);
	per_cpu(rules, policy, pname, c, "governor", out);
	per_cpu(rules, policy, pname, c, "energy_performance_preference", out);
	turbo(rules, policy, pname, out);
	host_value(rules, policy, pname, "transparent_hugepage", out);
	host_value(rules, policy, pname, "numa_balancing", out);
	host_value(rules, policy, pname, "clocksource", out);
	device_irqs(rules, policy, pname, c, out);
	watchdog(rules, policy, pname, c, out);
}

void ev_grade_run_cpus(const struct ev_run *run, struct ev_grade_cpus *out)
{
	memset(out, 0, sizeof *out);
	CPU_ZERO(&out->sides);
	CPU_ZERO(&out->controller);
	for (size_t i = 0; i < ev_run_process_count(run); i++) {
		const json_t *p = json_array_get(json_object_get(run->doc, "processes"), i);
		const json_t *cpu = json_object_get(p, "cpu");
		const char *role = json_string_value(json_object_get(p, "role"));
		if (!json_is_integer(cpu) || json_integer_value(cpu) < 0 || json_integer_value(cpu) >= CPU_SETSIZE)
			continue;
		int n = (int)json_integer_value(cpu);
		CPU_SET(n, &out->sides);
		out->have_sides = 1;
		if (n < 64)
			snprintf(out->whose[n], sizeof out->whose[n], "the %.12s's", role ? role : "side");
	}
	size_t i;
	json_t *cpu;
	const json_t *cpus = json_object_get(json_object_get(run->doc, "controller"), "cpus");
	json_array_foreach(cpus, i, cpu) if (json_is_integer(cpu) && json_integer_value(cpu) >= 0 &&
					     json_integer_value(cpu) < CPU_SETSIZE)
	{
		CPU_SET((int)json_integer_value(cpu), &out->controller);
		out->have_controller = 1;
	}
}

static void lease(const json_t *rules, const struct ev_run *run, const struct ev_grade_cpus *c, json_t *out)
{
	const json_t *r = rule(rules, "lease");
	if (!r)
		return not_graded("lease", out);
	struct verdict v;
	open_verdict(&v, "lease");
	const json_t *l = json_object_get(run->doc, "lease");
	const char *mode = json_string_value(json_object_get(l, "mode"));
	const char *list = json_string_value(json_object_get(l, "cpus"));
	cpu_set_t set;
	if (json_is_string(json_object_get(l, "not_taken")))
		note(&v, FAIL, "no CPU lease was taken: %s", json_string_value(json_object_get(l, "not_taken")));
	else if (!mode || !list || ev_cpulist_parse(list, &set) != 0)
		note(&v, UNKNOWN, "run.json records no CPU lease (lease.mode, lease.cpus)");
	else if (strcmp(mode, json_string_value(r)) != 0)
		note(&v, FAIL, "the CPUs were leased %s, not %s", mode, json_string_value(r));
	else
		for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
			if (CPU_ISSET(cpu, &c->sides) && !CPU_ISSET(cpu, &set))
				note(&v, FAIL, "CPU %d (%s) was not leased (the lease holds %s)", cpu, whose(c, cpu), list);
	close_verdict(&v, out);
}

static void controller(const json_t *rules, const struct ev_grade_cpus *c, json_t *out)
{
	if (!rule(rules, "controller"))
		return not_graded("controller", out);
	struct verdict v;
	open_verdict(&v, "controller");
	if (!c->have_controller || !c->have_sides)
		note(&v, UNKNOWN, "run.json records no %s CPUs", c->have_sides ? "controller" : "side");
	else
		for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
			if (CPU_ISSET(cpu, &c->sides) && CPU_ISSET(cpu, &c->controller))
				note(&v, FAIL, "CPU %d is %s and the controller's: capture, its observers and perf ran beside a measured side",
				     cpu, whose(c, cpu));
	close_verdict(&v, out);
}

static int64_t field_delta(const json_t *before, const json_t *after, const char *a, const char *b, int *have)
{
	const json_t *x = json_object_get(json_object_get(before, a), b);
	const json_t *y = json_object_get(json_object_get(after, a), b);
	*have = json_is_integer(x) && json_is_integer(y);
	return *have ? (int64_t)(json_integer_value(y) - json_integer_value(x)) : 0;
}

static void profiler(const json_t *rules, const struct ev_run *run, json_t *out)
{
	if (!rule(rules, "profiler"))
		return not_graded("profiler", out);
	struct verdict v;
	open_verdict(&v, "profiler");
	const json_t *procs = json_object_get(run->doc, "processes");
	size_t i;
	json_t *p;
	if (!json_is_array(procs) || !json_array_size(procs))
		note(&v, UNKNOWN, "run.json records no processes");
	json_array_foreach(procs, i, p) {
		const json_t *profile = json_object_get(p, "profile");
		if (profile)
			note(&v, FAIL, "perf attached to the %s (event %s)",
			     json_string_value(json_object_get(p, "role")) ?: "side",
			     json_string_value(json_object_get(profile, "event")) ?: "?");
	}
	close_verdict(&v, out);
}

static void observers(const json_t *rules, const struct ev_run *run, json_t *out)
{
	if (!rule(rules, "live_observers"))
		return not_graded("live_observers", out);
	struct verdict v;
	open_verdict(&v, "live_observers");
	size_t i, k;
	json_t *o, *when;
	json_array_foreach(json_object_get(run->doc, "observers"), i, o) {
		size_t live = 0;
		json_array_foreach(json_object_get(o, "outputs"), k, when) {
			const char *w = json_string_value(json_object_get(when, "when"));
			live += w && strcmp(w, "during") == 0;
		}
		if (live)
			note(&v, FAIL, "observer %s sampled the %s %zu time%s during the run",
			     json_string_value(json_object_get(o, "name")) ?: "?",
			     json_string_value(json_object_get(o, "side")) ?: "?", live, live == 1 ? "" : "s");
	}
	close_verdict(&v, out);
}

static void pm_qos(const json_t *rules, const struct ev_plan *plan, const struct ev_run *run, json_t *out)
{
	if (!rule(rules, "pm_qos"))
		return not_graded("pm_qos", out);
	struct verdict v;
	open_verdict(&v, "pm_qos");
	const char *arm = ev_run_string(run, "arm");
	long long declared = 0;
	int says = ev_plan_arm_pm_qos(plan, arm, &declared);
	const json_t *q = json_object_get(run->doc, "cpu_dma_latency");
	if (says < 0) {
		note(&v, UNKNOWN, "the plan does not say what arm %s declares", arm ? arm : "(none)");
	} else if (says > 0) {
		const json_t *held = json_object_get(q, "held"), *req = json_object_get(q, "requested_us");
		if (!json_is_boolean(held))
			note(&v, UNKNOWN, "arm %s declares cpu_dma_latency %lld us; run.json does not record whether it was held",
			     arm, declared);
		else if (!json_is_true(held) || !json_is_integer(req) || json_integer_value(req) != declared)
			note(&v, FAIL, "arm %s declares cpu_dma_latency %lld us; the run did not hold it", arm, declared);
	}
	close_verdict(&v, out);
}

static void group_digits(int64_t n, char *out, size_t cap)
{
	char raw[32];
	snprintf(raw, sizeof raw, "%" PRId64, n);
	size_t len = strlen(raw), start = raw[0] == '-', o = 0;
	for (size_t i = 0; i < len && o + 2 < cap; i++) {
		if (i > start && (len - i) % 3 == 0)
			out[o++] = ',';
		out[o++] = raw[i];
	}
	out[o] = 0;
}

static void interrupts(const json_t *rules, const struct ev_run *run, const struct ev_grade_cpus *c, json_t *out)
{
	const json_t *bounds = rule(rules, "interrupts");
	if (!bounds)
		return not_graded("interrupts", out);
	struct verdict v;
	open_verdict(&v, "interrupts");
	const json_t *cpus = json_object_get(run->doc, "cpus");
	const json_t *before = json_object_get(json_object_get(cpus, "before"), "interrupts");
	const json_t *after = json_object_get(json_object_get(cpus, "after"), "interrupts");
	if (!json_is_object(before) || !json_is_object(after)) {
		note(&v, UNKNOWN, "run.json records no interrupt counts before and after the run (cpus.before, cpus.after)");
	} else if (c->have_sides) {
		for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
			if (!CPU_ISSET(cpu, &c->sides))
				continue;
			char key[16];
			snprintf(key, sizeof key, "%d", cpu);
			const char *label;
			json_t *row;
			json_object_foreach((json_t *)after, label, row) {
				int have;
				int64_t d = field_delta(before, after, label, key, &have);
				int device = strspn(label, "0123456789") == strlen(label);
				const json_t *b = json_object_get(bounds, label);
				if (!b)
					b = json_object_get(bounds, device ? "device" : "other");
				if (!have) {
					note(&v, UNKNOWN, "CPU %d (%s): the %s%s count is not recorded before and after the run",
					     cpu, whose(c, cpu), device ? "IRQ " : "", label);
				} else if (d > json_integer_value(b)) {
					char n[40];
					group_digits(d, n, sizeof n);
					note(&v, FAIL, "CPU %d (%s) took %s %s%s interrupt%s during the run (bound %" JSON_INTEGER_FORMAT ")",
					     cpu, whose(c, cpu), n, device ? "IRQ " : "", label, d == 1 ? "" : "s",
					     json_integer_value(b));
				}
			}
		}
	} else {
		note(&v, UNKNOWN, "run.json records no measured side's CPU");
	}
	close_verdict(&v, out);
}

static void switches(const json_t *rules, const struct ev_run *run, json_t *out)
{
	const json_t *bound = rule(rules, "involuntary_switches");
	if (!bound)
		return not_graded("involuntary_switches", out);
	struct verdict v;
	open_verdict(&v, "involuntary_switches");
	const json_t *procs = json_object_get(run->doc, "processes");
	size_t i;
	json_t *p;
	if (!json_is_array(procs) || !json_array_size(procs))
		note(&v, UNKNOWN, "run.json records no processes");
	json_array_foreach(procs, i, p) {
		const char *role = json_string_value(json_object_get(p, "role")) ?: "side";
		int have;
		int64_t d = field_delta(json_object_get(p, "before"), json_object_get(p, "after"), "status",
					"nonvoluntary_ctxt_switches", &have);
		if (!have)
			note(&v, UNKNOWN, "the %s's involuntary context switches are not recorded before and after the run",
			     role);
		else if (d > json_integer_value(bound))
			note(&v, FAIL, "the %s was switched out involuntarily %" PRId64 " time%s during the run (bound %" JSON_INTEGER_FORMAT ")",
			     role, d, d == 1 ? "" : "s", json_integer_value(bound));
	}
	close_verdict(&v, out);
}

void ev_grade_run(const json_t *rules, const struct ev_plan *plan, const struct ev_run *run, json_t *out)
{
	struct ev_grade_cpus c;
	ev_grade_run_cpus(run, &c);
	lease(rules, run, &c, out);
	controller(rules, &c, out);
	profiler(rules, run, out);
	observers(rules, run, out);
	pm_qos(rules, plan, run, out);
	interrupts(rules, run, &c, out);
	switches(rules, run, out);
}

void ev_grade_plan(const json_t *rules, const json_t *plan, json_t *out)
{
	size_t i;
	json_t *x;
	if (rule(rules, "profiler")) {
		struct verdict v;
		open_verdict(&v, "profiler");
		json_array_foreach(json_object_get(plan, "cells"), i, x) {
			for (int k = 0; k < 2; k++) {
				const char *role = k ? "peer" : "sender";
				if (json_object_get(json_object_get(x, role), "profile"))
					note(&v, FAIL, "cell %s profiles the %s (perf attached)",
					     json_string_value(json_object_get(x, "name")) ?: "?", role);
			}
		}
		close_verdict(&v, out);
	}
	if (rule(rules, "live_observers")) {
		struct verdict v;
		open_verdict(&v, "live_observers");
		json_array_foreach(json_object_get(plan, "observers"), i, x) {
			const json_t *when = json_object_get(x, "when");
			size_t k;
			json_t *w;
			int live = !when; /* the default is before, during and after */
			json_array_foreach(when, k, w) live |= json_is_string(w) && !strcmp(json_string_value(w), "during");
			if (live)
				note(&v, FAIL, "observer %s samples during the run (its \"when\" %s \"during\")",
				     json_string_value(json_object_get(x, "name")) ?: "?", when ? "holds" : "is the default, with");
		}
		close_verdict(&v, out);
	}
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
