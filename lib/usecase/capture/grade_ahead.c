/* SPDX-License-Identifier: Apache-2.0 */
/* capture_run, the grade ahead: before anything runs, the best grade a
 * plan can reach on this host (lib/campaign/grade over this host's
 * policy snapshot, the plan's sides and controller, its profiles and
 * observers, whether the interference counters can be read here); with
 * --require quiet, a plan that cannot reach it is refused, each condition
 * named. What only a run shows (its interrupts, its switches, its lease,
 * its PM QoS, how its counters moved) is judged by audit campaign. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "lib/usecase/capture/parts.h"
#include "lib/process/clocks.h"
#include "lib/process/interference.h"
#include "lib/process/policy.h"
#include "lib/campaign/grade.h"

static void plan_cpus(const struct ev_campaign_plan *p, struct ev_grade_cpus *out)
{
	memset(out, 0, sizeof *out);
	CPU_ZERO(&out->sides);
	CPU_ZERO(&out->controller);
	for (size_t i = 0; i < p->ncells; i++)
		for (int k = 0; k < 2; k++) {
			int cpu = p->cells[i].side[k].cpu;
			if (cpu < 0 || cpu >= CPU_SETSIZE)
				continue;
			CPU_SET(cpu, &out->sides);
			out->have_sides = 1;
			if (cpu < 64)
				snprintf(out->whose[cpu], sizeof out->whose[cpu], "%s", k == EV_PLAN_SENDER ? "a sender's" : "a peer's");
		}
	for (size_t i = 0; i < p->ncontroller; i++) {
		CPU_SET(p->controller_cpus[i], &out->controller);
		out->have_controller = 1;
	}
}

/* The controller apart from every side, as the plan places it. */
static void controller(const json_t *rules, const struct ev_grade_cpus *cpus, json_t *out)
{
	if (json_is_null(json_object_get(rules, "controller")))
		return;
	json_t *evidence = json_array();
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &cpus->sides) && CPU_ISSET(cpu, &cpus->controller)) {
			char text[160];
			snprintf(text, sizeof text, "CPU %d is %s and the controller's (controller_shares)", cpu,
				 cpu < 64 ? cpus->whose[cpu] : "a side's");
			json_array_append_new(evidence, json_string(text));
		}
	json_array_append_new(out, json_pack("{s:s, s:s, s:o}", "condition", "controller", "verdict",
					     json_array_size(evidence) ? "fail" : "pass", "evidence", evidence));
}

ev_status ev_capture_grade_ahead(struct capture_session *c, struct ev_error *err)
{
	const char *require = c->in->require;
	const json_t *pinned = json_object_get(c->plan.doc, "grades");
	json_t *rules = pinned ? json_incref((json_t *)pinned) : ev_grades_default();
	if (!rules)
		return ev_error_set(err, EV_ERROR, "out of memory");
	json_t *policy = ev_policy_snapshot(c->cpus, c->ncpus);
	json_t *all = json_array();
	struct ev_grade_cpus cpus;
	plan_cpus(&c->plan, &cpus);
	struct ev_policy host = {policy};
	ev_grade_policy(rules, &host, "this host", &cpus, all);
	ev_grade_plan(rules, c->plan.doc, all);
	controller(rules, &cpus, all);
	json_t *counters = ev_interference_snapshot(c->cpus, c->ncpus);
	json_t *now = json_pack("{s:O, s:O}", "before", counters, "after", counters);
	ev_grade_interference(rules, now, &cpus, all);
	json_decref(now);
	json_decref(counters);
	if (json_is_object(json_object_get(rules, "clocks"))) { /* this host's clock, as the runs will find it */
		json_t *clock = ev_clocks_snapshot();
		struct ev_run here = {json_pack("{s:{s:O, s:O}}", "clocks", "before", clock, "after", clock)};
		ev_grade_clocks(rules, &here, all);
		json_decref(here.doc);
		json_decref(clock);
	}
	json_t *merged = ev_grade_merge(all);
	const char *best = ev_grade_of(merged);
	ev_status st = EV_OK;
	const char *wanted = json_string_value(json_object_get(rules, "require"));
	const char *why = "--require quiet";
	if (!require && wanted && strcmp(wanted, "quiet") == 0) {
		require = "quiet";
		why = "its grading rules require quiet";
	}
	if (!require && c->registration_quiet) {
		require = "quiet";
		why = "its registration requires quiet";
	}
	int refuse = require && strcmp(best, "quiet") != 0;
	char names[512] = "";
	size_t used = 0, i;
	json_t *v;
	json_array_foreach(merged, i, v) {
		const char *verdict = json_string_value(json_object_get(v, "verdict"));
		if ((strcmp(verdict, "fail") != 0 && strcmp(verdict, "unknown") != 0) || used >= sizeof names)
			continue;
		used += (size_t)snprintf(names + used, sizeof names - used, "%s%s%s", used ? ", " : "",
					 json_string_value(json_object_get(v, "condition")),
					 strcmp(verdict, "unknown") ? "" : " (unknown)");
	}
	struct ev_capture_grade_ahead g = {best, json_string_value(json_object_get(rules, "name")),
					   (long long)json_integer_value(json_object_get(rules, "version")), pinned != NULL,
					   names, refuse, merged};
	if (c->in->on_grade)
		c->in->on_grade(c->in->ctx, &g);
	if (refuse)
		st = ev_error_set(err, EV_USAGE,
				  "%s: %s: this plan on this host can reach only %s (the conditions above); nothing was run",
				  c->in->plan_path, why, best);
	json_decref(merged);
	json_decref(all);
	json_decref(policy);
	json_decref(rules);
	return st;
}
