/* SPDX-License-Identifier: Apache-2.0 */
/* grade_run: a run's conditions, from its run.json and the plan, and what
 * a plan alone rules out before anything runs (grade.h). */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/campaign/grade.h"
#include "lib/campaign/grade_parts.h"
#include "lib/core/lease.h"

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
	const json_t *r = ev_grade_rule(rules, "lease");
	if (!r)
		return ev_grade_not_graded("lease", out);
	struct verdict v;
	ev_grade_open(&v, "lease");
	const json_t *l = json_object_get(run->doc, "lease");
	const char *mode = json_string_value(json_object_get(l, "mode"));
	const char *list = json_string_value(json_object_get(l, "cpus"));
	cpu_set_t set;
	if (json_is_string(json_object_get(l, "not_taken")))
		ev_grade_note(&v, FAIL, "no CPU lease was taken: %s", json_string_value(json_object_get(l, "not_taken")));
	else if (!mode || !list || ev_cpulist_parse(list, &set) != 0)
		ev_grade_note(&v, UNKNOWN, "run.json records no CPU lease (lease.mode, lease.cpus)");
	else if (strcmp(mode, json_string_value(r)) != 0)
		ev_grade_note(&v, FAIL, "the CPUs were leased %s, not %s", mode, json_string_value(r));
	else
		for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
			if (CPU_ISSET(cpu, &c->sides) && !CPU_ISSET(cpu, &set))
				ev_grade_note(&v, FAIL, "CPU %d (%s) was not leased (the lease holds %s)", cpu, ev_grade_whose(c, cpu), list);
	ev_grade_close(&v, out);
}

static void controller(const json_t *rules, const struct ev_grade_cpus *c, json_t *out)
{
	if (!ev_grade_rule(rules, "controller"))
		return ev_grade_not_graded("controller", out);
	struct verdict v;
	ev_grade_open(&v, "controller");
	if (!c->have_controller || !c->have_sides)
		ev_grade_note(&v, UNKNOWN, "run.json records no %s CPUs", c->have_sides ? "controller" : "side");
	else
		for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
			if (CPU_ISSET(cpu, &c->sides) && CPU_ISSET(cpu, &c->controller))
				ev_grade_note(&v, FAIL, "CPU %d is %s and the controller's: capture, its observers and perf ran beside a measured side",
				     cpu, ev_grade_whose(c, cpu));
	ev_grade_close(&v, out);
}

static int64_t field_delta(const json_t *before, const json_t *after, const char *a, const char *b, int *have)
{
	const json_t *x = json_object_get(json_object_get(before, a), b);
	const json_t *y = json_object_get(json_object_get(after, a), b);
	*have = json_is_integer(x) && json_is_integer(y);
	if (!*have)
		return 0;
	/* a stranger's run.json may hold any integers: a difference past
	 * 2^62 is no counter's, and is taken as not recorded */
	__int128 d = (__int128)json_integer_value(y) - json_integer_value(x);
	if (d > ((__int128)1 << 62) || d < -((__int128)1 << 62))
		*have = 0;
	return *have ? (int64_t)d : 0;
}

static void profiler(const json_t *rules, const struct ev_run *run, json_t *out)
{
	if (!ev_grade_rule(rules, "profiler"))
		return ev_grade_not_graded("profiler", out);
	struct verdict v;
	ev_grade_open(&v, "profiler");
	const json_t *procs = json_object_get(run->doc, "processes");
	size_t i;
	json_t *p;
	if (!json_is_array(procs) || !json_array_size(procs))
		ev_grade_note(&v, UNKNOWN, "run.json records no processes");
	json_array_foreach(procs, i, p) {
		const json_t *profile = json_object_get(p, "profile");
		if (profile)
			ev_grade_note(&v, FAIL, "perf attached to the %s (event %s)",
			     json_string_value(json_object_get(p, "role")) ?: "side",
			     json_string_value(json_object_get(profile, "event")) ?: "?");
	}
	ev_grade_close(&v, out);
}

static void observers(const json_t *rules, const struct ev_run *run, json_t *out)
{
	if (!ev_grade_rule(rules, "live_observers"))
		return ev_grade_not_graded("live_observers", out);
	struct verdict v;
	ev_grade_open(&v, "live_observers");
	size_t i, k;
	json_t *o, *when;
	json_array_foreach(json_object_get(run->doc, "observers"), i, o) {
		size_t live = 0;
		json_array_foreach(json_object_get(o, "outputs"), k, when) {
			const char *w = json_string_value(json_object_get(when, "when"));
			live += w && strcmp(w, "during") == 0;
		}
		if (live)
			ev_grade_note(&v, FAIL, "observer %s sampled the %s %zu time%s during the run",
			     json_string_value(json_object_get(o, "name")) ?: "?",
			     json_string_value(json_object_get(o, "side")) ?: "?", live, live == 1 ? "" : "s");
	}
	ev_grade_close(&v, out);
}

static void pm_qos(const json_t *rules, const struct ev_plan *plan, const struct ev_run *run, json_t *out)
{
	if (!ev_grade_rule(rules, "pm_qos"))
		return ev_grade_not_graded("pm_qos", out);
	struct verdict v;
	ev_grade_open(&v, "pm_qos");
	const char *arm = ev_run_string(run, "arm");
	long long declared = 0;
	int says = ev_plan_arm_pm_qos(plan, arm, &declared);
	const json_t *q = json_object_get(run->doc, "cpu_dma_latency");
	if (says < 0) {
		ev_grade_note(&v, UNKNOWN, "the plan does not say what arm %s declares", arm ? arm : "(none)");
	} else if (says > 0) {
		const json_t *held = json_object_get(q, "held"), *req = json_object_get(q, "requested_us");
		if (!json_is_boolean(held))
			ev_grade_note(&v, UNKNOWN, "arm %s declares cpu_dma_latency %lld us; run.json does not record whether it was held",
			     arm, declared);
		else if (!json_is_true(held) || !json_is_integer(req) || json_integer_value(req) != declared)
			ev_grade_note(&v, FAIL, "arm %s declares cpu_dma_latency %lld us; the run did not hold it", arm, declared);
	}
	ev_grade_close(&v, out);
}

void ev_grade_group_digits(int64_t n, char *out, size_t cap)
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
	const json_t *bounds = ev_grade_rule(rules, "interrupts");
	if (!bounds)
		return ev_grade_not_graded("interrupts", out);
	struct verdict v;
	ev_grade_open(&v, "interrupts");
	const json_t *cpus = json_object_get(run->doc, "cpus");
	const json_t *before = json_object_get(json_object_get(cpus, "before"), "interrupts");
	const json_t *after = json_object_get(json_object_get(cpus, "after"), "interrupts");
	if (!json_is_object(before) || !json_is_object(after)) {
		ev_grade_note(&v, UNKNOWN, "run.json records no interrupt counts before and after the run (cpus.before, cpus.after)");
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
					ev_grade_note(&v, UNKNOWN, "CPU %d (%s): the %s%s count is not recorded before and after the run",
					     cpu, ev_grade_whose(c, cpu), device ? "IRQ " : "", label);
				} else if (d > json_integer_value(b)) {
					char n[40];
					ev_grade_group_digits(d, n, sizeof n);
					ev_grade_note(&v, FAIL, "CPU %d (%s) took %s %s%s interrupt%s during the run (bound %" JSON_INTEGER_FORMAT ")",
					     cpu, ev_grade_whose(c, cpu), n, device ? "IRQ " : "", label, d == 1 ? "" : "s",
					     json_integer_value(b));
				}
			}
		}
	} else {
		ev_grade_note(&v, UNKNOWN, "run.json records no measured side's CPU");
	}
	ev_grade_close(&v, out);
}

static void switches(const json_t *rules, const struct ev_run *run, json_t *out)
{
	const json_t *bound = ev_grade_rule(rules, "involuntary_switches");
	if (!bound)
		return ev_grade_not_graded("involuntary_switches", out);
	struct verdict v;
	ev_grade_open(&v, "involuntary_switches");
	const json_t *procs = json_object_get(run->doc, "processes");
	size_t i;
	json_t *p;
	if (!json_is_array(procs) || !json_array_size(procs))
		ev_grade_note(&v, UNKNOWN, "run.json records no processes");
	json_array_foreach(procs, i, p) {
		const char *role = json_string_value(json_object_get(p, "role")) ?: "side";
		int have;
		int64_t d = field_delta(json_object_get(p, "before"), json_object_get(p, "after"), "status",
					"nonvoluntary_ctxt_switches", &have);
		if (!have)
			ev_grade_note(&v, UNKNOWN, "the %s's involuntary context switches are not recorded before and after the run",
			     role);
		else if (d > json_integer_value(bound))
			ev_grade_note(&v, FAIL, "the %s was switched out involuntarily %" PRId64 " time%s during the run (bound %" JSON_INTEGER_FORMAT ")",
			     role, d, d == 1 ? "" : "s", json_integer_value(bound));
	}
	ev_grade_close(&v, out);
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
	ev_grade_interference(rules, json_object_get(run->doc, "interference"), &c, out);
	ev_grade_clocks(rules, run, out);
}

void ev_grade_plan(const json_t *rules, const json_t *plan, json_t *out)
{
	size_t i;
	json_t *x;
	if (ev_grade_rule(rules, "profiler")) {
		struct verdict v;
		ev_grade_open(&v, "profiler");
		json_array_foreach(json_object_get(plan, "cells"), i, x) {
			for (int k = 0; k < 2; k++) {
				const char *role = k ? "peer" : "sender";
				if (json_object_get(json_object_get(x, role), "profile"))
					ev_grade_note(&v, FAIL, "cell %s profiles the %s (perf attached)",
					     json_string_value(json_object_get(x, "name")) ?: "?", role);
			}
		}
		ev_grade_close(&v, out);
	}
	if (ev_grade_rule(rules, "live_observers")) {
		struct verdict v;
		ev_grade_open(&v, "live_observers");
		json_array_foreach(json_object_get(plan, "observers"), i, x) {
			const json_t *when = json_object_get(x, "when");
			size_t k;
			json_t *w;
			int live = !when; /* the default is before, during and after */
			json_array_foreach(when, k, w) live |= json_is_string(w) && !strcmp(json_string_value(w), "during");
			if (live)
				ev_grade_note(&v, FAIL, "observer %s samples during the run (its \"when\" %s \"during\")",
				     json_string_value(json_object_get(x, "name")) ?: "?", when ? "holds" : "is the default, with");
		}
		ev_grade_close(&v, out);
	}
}

