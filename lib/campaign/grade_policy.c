/* SPDX-License-Identifier: Apache-2.0 */
/* grade_policy: the host's conditions, from a policy snapshot (grade.h). */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/campaign/grade.h"
#include "lib/campaign/grade_parts.h"
#include "lib/core/lease.h"

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
	ev_grade_note(v, UNKNOWN, "no measured side's CPU is recorded (%s)", policy_name);
	return 0;
}

/* isolcpus, nohz_full, rcu_nocbs: every side's CPU on the kernel's list. */
static void isolation(const json_t *rules, const struct ev_policy *policy, const char *pname,
		      const struct ev_grade_cpus *c, const char *param, json_t *out)
{
	const json_t *r = ev_grade_rule(rules, param);
	if (!r)
		return ev_grade_not_graded(param, out);
	struct verdict v;
	ev_grade_open(&v, param);
	const char *text;
	int says = ev_policy_isolation(policy, param, &text);
	if (says < 0) {
		ev_grade_note(&v, UNKNOWN, "%s records no isolation.%s (the kernel command line's %s)", pname, param, param);
	} else if (says == 0) {
		if (any_side(c, &v, pname))
			ev_grade_note(&v, FAIL, "the kernel command line has no %s (%s)", param, pname);
	} else {
		cpu_set_t set;
		char flags[256];
		if (kernel_list(text, &set, flags, sizeof flags) != 0) {
			ev_grade_note(&v, UNKNOWN, "%s=%s is not a CPU list (%s)", param, text, pname);
		} else if (any_side(c, &v, pname)) {
			for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
				if (CPU_ISSET(cpu, &c->sides) && !CPU_ISSET(cpu, &set))
					ev_grade_note(&v, FAIL, "CPU %d (%s) is not in %s=%s (%s)", cpu, ev_grade_whose(c, cpu), param, text,
					     pname);
			if (json_is_array(r)) { /* isolcpus: its flags; none given means domain */
				size_t i;
				json_t *f;
				json_array_foreach(r, i, f) {
					const char *want = json_string_value(f);
					if (!(flags[0] ? has_flag(flags, want) : strcmp(want, "domain") == 0))
						ev_grade_note(&v, FAIL, "%s=%s lacks the flag %s (%s)", param, text, want, pname);
				}
			}
		}
	}
	ev_grade_close(&v, out);
}

static void smt_siblings(const json_t *rules, const struct ev_policy *policy, const char *pname,
			 const struct ev_grade_cpus *c, const cpu_set_t *isolated, int have_isolated, json_t *out)
{
	if (!ev_grade_rule(rules, "smt_siblings"))
		return ev_grade_not_graded("smt_siblings", out);
	struct verdict v;
	ev_grade_open(&v, "smt_siblings");
	if (any_side(c, &v, pname))
		for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
			if (!CPU_ISSET(cpu, &c->sides))
				continue;
			const char *sib = ev_policy_cpu(policy, cpu, "smt_siblings");
			cpu_set_t set;
			if (!sib || ev_policy_unavailable(sib) || ev_cpulist_parse(sib, &set) != 0) {
				ev_grade_note(&v, UNKNOWN, "CPU %d (%s): its SMT siblings are not recorded (%s cpus.%d.smt_siblings: %s)",
				     cpu, ev_grade_whose(c, cpu), pname, cpu, sib ? sib : "absent");
				continue;
			}
			for (int s = 0; s < CPU_SETSIZE; s++) {
				if (s == cpu || !CPU_ISSET(s, &set))
					continue;
				if (CPU_ISSET(s, &c->sides))
					ev_grade_note(&v, FAIL, "CPU %d (%s) shares its core with CPU %d (%s)", cpu, ev_grade_whose(c, cpu), s,
					     ev_grade_whose(c, s));
				else if (c->have_controller && CPU_ISSET(s, &c->controller))
					ev_grade_note(&v, FAIL, "CPU %d (%s) shares its core with CPU %d (the controller's)", cpu,
					     ev_grade_whose(c, cpu), s);
				else if (!have_isolated)
					ev_grade_note(&v, UNKNOWN, "CPU %d (%s) shares its core with CPU %d, and isolcpus is not known",
					     cpu, ev_grade_whose(c, cpu), s);
				else if (!CPU_ISSET(s, isolated))
					ev_grade_note(&v, FAIL,
					     "CPU %d (%s) shares its core with CPU %d, which is not isolated: any task may run there",
					     cpu, ev_grade_whose(c, cpu), s);
			}
		}
	ev_grade_close(&v, out);
}

/* governor, energy_performance_preference: each side's CPU's value allowed. */
static void per_cpu(const json_t *rules, const struct ev_policy *policy, const char *pname,
		    const struct ev_grade_cpus *c, const char *field, json_t *out)
{
	const json_t *r = ev_grade_rule(rules, field);
	if (!r)
		return ev_grade_not_graded(field, out);
	struct verdict v;
	ev_grade_open(&v, field);
	char allowed[256];
	ev_grade_list_text(r, allowed, sizeof allowed);
	if (any_side(c, &v, pname))
		for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
			if (!CPU_ISSET(cpu, &c->sides))
				continue;
			const char *val = ev_policy_cpu(policy, cpu, field);
			if (!val || ev_policy_unavailable(val))
				ev_grade_note(&v, UNKNOWN, "CPU %d (%s): %s %s (%s)", cpu, ev_grade_whose(c, cpu), field, val ? val : "not recorded",
				     pname);
			else if (!ev_grade_in_list(r, val))
				ev_grade_note(&v, FAIL, "CPU %d (%s) has %s %s (the rules allow %s) (%s)", cpu, ev_grade_whose(c, cpu), field, val,
				     allowed, pname);
		}
	ev_grade_close(&v, out);
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
	const json_t *r = ev_grade_rule(rules, field);
	if (!r)
		return ev_grade_not_graded(field, out);
	struct verdict v;
	ev_grade_open(&v, field);
	const char *val = ev_policy_text(policy, field);
	char allowed[256], value[128];
	ev_grade_list_text(r, allowed, sizeof allowed);
	if (!val || ev_policy_unavailable(val)) {
		ev_grade_note(&v, UNKNOWN, "%s %s (%s)", field, val ? val : "not recorded", pname);
	} else {
		chosen(val, value, sizeof value);
		if (!ev_grade_in_list(r, value))
			ev_grade_note(&v, FAIL, "%s is %s (the rules allow %s) (%s)", field, value, allowed, pname);
	}
	ev_grade_close(&v, out);
}

static void turbo(const json_t *rules, const struct ev_policy *policy, const char *pname, json_t *out)
{
	const json_t *r = ev_grade_rule(rules, "turbo");
	if (!r)
		return ev_grade_not_graded("turbo", out);
	struct verdict v;
	ev_grade_open(&v, "turbo");
	const char *raw;
	int on = ev_policy_turbo(policy, &raw);
	const char *state = on < 0 ? NULL : on ? "on" : "off";
	if (!state)
		ev_grade_note(&v, UNKNOWN, "turbo is not recorded (%s turbo: %s)", pname, raw ? raw : "absent");
	else if (strcmp(state, json_string_value(r)) != 0)
		ev_grade_note(&v, FAIL, "turbo is %s (the rules want it %s) (%s)", state, json_string_value(r), pname);
	ev_grade_close(&v, out);
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
	if (!ev_grade_rule(rules, "device_irqs"))
		return ev_grade_not_graded("device_irqs", out);
	struct verdict v;
	ev_grade_open(&v, "device_irqs");
	const json_t *irqs = ev_policy_interrupts(policy);
	const char *label;
	json_t *irq;
	if (!json_is_object(irqs))
		ev_grade_note(&v, UNKNOWN, "%s records no interrupts", pname);
	else if (any_side(c, &v, pname))
		json_object_foreach((json_t *)irqs, label, irq) {
			if (strspn(label, "0123456789") != strlen(label))
				continue; /* NMI, LOC, ...: counted per run (interrupts) */
			const char *aff = ev_policy_irq_affinity(irq);
			char desc[128];
			squeeze(ev_policy_irq_description(irq), desc, sizeof desc);
			cpu_set_t set;
			if (!aff || ev_cpulist_parse(aff, &set) != 0) {
				ev_grade_note(&v, UNKNOWN, "IRQ %s (%s): its affinity is not recorded (%s)", label, desc, pname);
				continue;
			}
			for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
				if (CPU_ISSET(cpu, &set) && CPU_ISSET(cpu, &c->sides))
					ev_grade_note(&v, FAIL, "IRQ %s (%s) is affined to CPU %d (%s) (%s)", label, desc, cpu,
					     ev_grade_whose(c, cpu), pname);
		}
	ev_grade_close(&v, out);
}

static void watchdog(const json_t *rules, const struct ev_policy *policy, const char *pname,
		     const struct ev_grade_cpus *c, json_t *out)
{
	if (!ev_grade_rule(rules, "watchdog"))
		return ev_grade_not_graded("watchdog", out);
	struct verdict v;
	ev_grade_open(&v, "watchdog");
	const char *mask = ev_policy_text(policy, "watchdog_cpumask");
	cpu_set_t set;
	if (!mask || ev_policy_unavailable(mask) || ev_cpulist_parse(mask, &set) != 0)
		ev_grade_note(&v, UNKNOWN, "watchdog_cpumask %s (%s)", mask ? mask : "not recorded", pname);
	else if (any_side(c, &v, pname))
		for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
			if (CPU_ISSET(cpu, &set) && CPU_ISSET(cpu, &c->sides))
				ev_grade_note(&v, FAIL, "the watchdog runs on CPU %d (%s) (watchdog_cpumask %s) (%s)", cpu,
				     ev_grade_whose(c, cpu), mask, pname);
	ev_grade_close(&v, out);
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
			if (!ev_grade_rule(rules, host[i])) {
				ev_grade_not_graded(host[i], out);
				continue;
			}
			struct verdict v;
			ev_grade_open(&v, host[i]);
			ev_grade_note(&v, UNKNOWN, "no OS policy snapshot was recorded (%s)", pname);
			ev_grade_close(&v, out);
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

