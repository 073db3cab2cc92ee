/* SPDX-License-Identifier: Apache-2.0 */
/* audit campaign, the grade: each run and the campaign "quiet" or
 * "diagnostic" under the rules pinned with the plan (its "grades"), else
 * the shipped default (lib/campaign/grade), every failed or unknown
 * condition named with its evidence and the runs it holds for. */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/grow.h"
#include "lib/usecase/audit/campaign/parts.h"
#include "lib/campaign/grade.h"
#include "lib/core/input.h"
#include "lib/core/json.h"
#include "lib/core/path.h"
#include "lib/receipt/receipt.h"

ev_status ev_audit_campaign_load_grading(struct ev_audit_campaign *ca, struct ev_error *err)
{
	const json_t *pinned = ev_plan_grades(&ca->plan);
	ev_status st;
	if (pinned) {
		char display[PATH_MAX + 16];
		snprintf(display, sizeof display, "%s/plan.json: \"grades\"", ca->dir);
		if ((st = ev_grades_check(pinned, display, err)) != EV_OK)
			return st;
		ca->grade_rules = json_incref((json_t *)pinned);
		ca->grade_rules_from = "the plan";
	} else {
		if (!(ca->grade_rules = ev_grades_default()))
			return ev_error_set(err, EV_ERROR, "out of memory");
		ca->grade_rules_from = "the shipped default";
	}
	char *bytes = NULL;
	size_t len = 0;
	uint8_t d[EV_SHA256_LEN];
	if ((st = ev_json_dump(ca->grade_rules, &bytes, &len, err)) == EV_OK &&
	    (st = ev_sha256_buffer(bytes, len, d, err)) == EV_OK)
		ev_sha256_hex(d, ca->grade_rules_sha256);
	free(bytes);
	/* every session's snapshot: a host condition holds only if it held in each */
	for (int n = 1; st == EV_OK && ca->npolicies < EV_CAMPAIGN_MAX_POLICIES; n++) {
		char name[32], path[PATH_MAX], hex[EV_SHA256_HEX_LEN + 1];
		int absent = 0;
		snprintf(name, sizeof name, n == 1 ? "policy.json" : "policy-%d.json", n);
		if ((st = ev_input_check_beneath(ca->dir, name, ca->dir, &absent, err)) != EV_OK || absent)
			break;
		if (ev_path_join(path, sizeof path, ca->dir, name) != 0)
			return ev_error_set(err, EV_USAGE, "%s: path too long", ca->dir);
		if ((st = ev_policy_load(path, &ca->policies[ca->npolicies], d, err)) != EV_OK)
			break;
		ev_sha256_hex(d, hex);
		snprintf(ca->policy_names[ca->npolicies], sizeof ca->policy_names[0], "%s", name);
		ca->npolicies++;
		st = ev_receipt_add_input(ca->receipt, name, path, hex, err);
	}
	return st;
}

void ev_audit_campaign_grade_run(struct ev_audit_campaign *ca, struct ev_audited_run *r, const struct ev_run *run)
{
	json_t *all = json_array();
	struct ev_grade_cpus cpus;
	ev_grade_run_cpus(run, &cpus);
	if (!ca->npolicies)
		ev_grade_policy(ca->grade_rules, NULL, "the campaign has no policy.json", &cpus, all);
	for (size_t i = 0; i < ca->npolicies; i++)
		ev_grade_policy(ca->grade_rules, &ca->policies[i], ca->policy_names[i], &cpus, all);
	ev_grade_run(ca->grade_rules, ca->plan.doc ? &ca->plan : NULL, run, all);
	r->grade = ev_grade_merge(all);
	r->interference = ev_grade_interference_figures(json_object_get(run->doc, "interference"), &cpus);
	json_decref(all);
}

/* The leading number of a run's name ("003" of "003-base-spin-1"). */
static int run_number(const char *name, char *out, size_t cap)
{
	size_t n = strspn(name, "0123456789");
	if (!n || n >= cap)
		return 0;
	snprintf(out, cap, "%.*s", (int)n, name);
	return 1;
}

/* "all 8 runs", "run 003", "runs 001-002, 005": marks[i] set for runs[i]. */
static void runs_text(const struct ev_audit_campaign *ca, const unsigned char *marks, char *out, size_t cap)
{
	size_t count = 0, used = 0;
	for (size_t i = 0; i < ca->nruns; i++)
		count += marks[i];
	if (count == ca->nruns && count > 1) {
		snprintf(out, cap, "all %zu runs", count);
		return;
	}
	used = (size_t)snprintf(out, cap, count == 1 ? "run " : "runs ");
	for (size_t i = 0; i < ca->nruns && used < cap; i++) {
		if (!marks[i])
			continue;
		size_t j = i;
		while (j + 1 < ca->nruns && marks[j + 1])
			j++;
		char a[16], b[16];
		const char *first = run_number(ca->runs[i].name, a, sizeof a) ? a : ca->runs[i].name;
		const char *last = run_number(ca->runs[j].name, b, sizeof b) ? b : ca->runs[j].name;
		used += (size_t)snprintf(out + used, cap - used, "%s%s", used > 5 ? ", " : "", first);
		if (j > i && used < cap)
			used += (size_t)snprintf(out + used, cap - used, "%s%s", j > i + 1 ? "-" : ", ", last);
		i = j;
	}
}

static int rank(const char *verdict)
{
	return !strcmp(verdict, "fail") ? 3 : !strcmp(verdict, "unknown") ? 2 : !strcmp(verdict, "pass") ? 1 : 0;
}

/* One condition over every run: its worst verdict, each distinct
 * sentence with the runs it holds for. */
static json_t *condition_over_runs(const struct ev_audit_campaign *ca, const char *cond)
{
	json_t *texts = json_array();         /* sentences in first-seen order */
	json_t *where = json_object();        /* sentence -> its place in texts */
	const char *worst = "not graded";
	size_t nsent = 0, per_cap = 0;
	unsigned char **per = NULL;
	for (size_t i = 0; i < ca->nruns; i++) {
		size_t k;
		json_t *v;
		json_array_foreach(ca->runs[i].grade, k, v) {
			if (strcmp(json_string_value(json_object_get(v, "condition")), cond) != 0)
				continue;
			const char *verdict = json_string_value(json_object_get(v, "verdict"));
			if (rank(verdict) > rank(worst))
				worst = verdict;
			size_t j;
			json_t *s;
			json_array_foreach(json_object_get(v, "evidence"), j, s) {
				const char *text = json_string_value(s);
				json_t *at = json_object_get(where, text);
				size_t place;
				if (at) {
					place = (size_t)json_integer_value(at);
				} else {
					unsigned char *m = calloc(ca->nruns, 1);
					if (!m || ev_grow_array(&per, &per_cap, nsent + 1, sizeof *per) != 0) {
						free(m);
						continue;
					}
					per[nsent] = m;
					place = nsent++;
					json_object_set_new(where, text, json_integer((json_int_t)place));
					json_array_append(texts, s);
				}
				per[place][i] = 1;
			}
		}
	}
	json_t *evidence = json_array();
	for (size_t p = 0; p < nsent; p++) {
		char runs[512];
		runs_text(ca, per[p], runs, sizeof runs);
		json_array_append_new(evidence, json_pack("{s:O, s:s}", "text", json_array_get(texts, p), "runs", runs));
		free(per[p]);
	}
	free(per);
	json_decref(texts);
	json_decref(where);
	return json_pack("{s:s, s:s, s:o}", "condition", cond, "verdict", worst, "evidence", evidence);
}

static void names_with(const json_t *conditions, const char *verdict, char *out, size_t cap)
{
	size_t i, used = 0;
	json_t *c;
	out[0] = 0;
	json_array_foreach(conditions, i, c) if (!strcmp(json_string_value(json_object_get(c, "verdict")), verdict) &&
						used < cap) used +=
		(size_t)snprintf(out + used, cap - used, "%s%s", used ? ", " : "",
				 json_string_value(json_object_get(c, "condition")));
}

/* conditions with at most EV_CAMPAIGN_GRADE_SHOWN sentences each, and how many more. */
static json_t *abridged(const json_t *conditions)
{
	json_t *out = json_array();
	size_t i;
	json_t *c;
	json_array_foreach(conditions, i, c) {
		json_t *copy = json_deep_copy(c), *ev = json_object_get(copy, "evidence");
		size_t n = json_array_size(ev);
		while (json_array_size(ev) > EV_CAMPAIGN_GRADE_SHOWN)
			json_array_remove(ev, EV_CAMPAIGN_GRADE_SHOWN);
		if (n > EV_CAMPAIGN_GRADE_SHOWN)
			json_object_set_new(copy, "more", json_integer((json_int_t)(n - EV_CAMPAIGN_GRADE_SHOWN)));
		json_array_append_new(out, copy);
	}
	return out;
}

ev_status ev_audit_campaign_grade(struct ev_audit_campaign *ca, struct ev_error *err)
{
	json_t *conditions = json_array();
	for (size_t c = 0; ev_grade_conditions[c]; c++)
		if (json_object_get(ca->grade_rules, ev_grade_conditions[c])) /* rules older than a condition leave it out */
			json_array_append_new(conditions, condition_over_runs(ca, ev_grade_conditions[c]));
	const char *grade = ev_grade_of(conditions);
	const char *require = json_string_value(json_object_get(ca->grade_rules, "require"));
	json_t *rules = json_pack("{s:O, s:O, s:s, s:s, s:s}", "name", json_object_get(ca->grade_rules, "name"),
				  "version", json_object_get(ca->grade_rules, "version"), "sha256",
				  ca->grade_rules_sha256, "from", ca->grade_rules_from, "require", require);
	json_t *declared = json_deep_copy(rules); /* summary.json shows the rules themselves */
	json_object_set(declared, "declared", ca->grade_rules);
	ca->grade = json_pack("{s:s, s:o, s:o}", "grade", grade, "rules", declared, "conditions", conditions);
	for (size_t i = 0; i < ca->nruns; i++) {
		struct ev_audited_run *r = &ca->runs[i];
		json_t *named = json_array();
		size_t k;
		json_t *v;
		json_array_foreach(r->grade, k, v) {
			const char *verdict = json_string_value(json_object_get(v, "verdict"));
			if (!strcmp(verdict, "fail") || !strcmp(verdict, "unknown"))
				json_array_append(named, json_object_get(v, "condition"));
		}
		snprintf(r->grade_of, sizeof r->grade_of, "%s", ev_grade_of(r->grade));
		if (r->json) {
			json_object_set_new(r->json, "grade", json_string(r->grade_of));
			json_object_set_new(r->json, "grade_conditions", named);
			if (r->interference)
				json_object_set(r->json, "interference", r->interference);
		} else {
			json_decref(named);
		}
	}
	char failed[512], unknown[512], detail[1200];
	names_with(conditions, "fail", failed, sizeof failed);
	names_with(conditions, "unknown", unknown, sizeof unknown);
	snprintf(detail, sizeof detail, "%s by the rules %s version %" JSON_INTEGER_FORMAT " (%s)%s%s%s%s%s", grade,
		 json_string_value(json_object_get(rules, "name")), json_integer_value(json_object_get(rules, "version")),
		 ca->grade_rules_from, failed[0] ? "; failed: " : "", failed, unknown[0] ? "; unknown: " : "", unknown,
		 strcmp(require, "quiet") == 0 ? "; the rules require quiet" : "");
	if (ca->provenance)
		json_object_set_new(ca->provenance, "grade", json_string(detail));
	json_t *fact = json_pack("{s:s, s:O, s:o}", "grade", grade, "rules", rules, "conditions", abridged(conditions));
	json_decref(rules);
	ev_status st = ev_receipt_set_fact(ca->receipt, "grade", fact, err);
	if (st == EV_OK)
		st = ev_receipt_add_check(ca->receipt, "grade", strcmp(require, "quiet") != 0 || !strcmp(grade, "quiet"),
					  detail, err);
	return st;
}

