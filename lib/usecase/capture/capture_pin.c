/* SPDX-License-Identifier: Apache-2.0 */
/* capture_pin: a plan's files pinned (capture_pin.h). */
#include "config.h"

#include <stdlib.h>

#include "lib/campaign/plan_check.h"
#include "lib/core/json.h"
#include "lib/core/publish.h"
#include "lib/process/pin_check.h"
#include "lib/usecase/capture/capture_pin.h"

/* A file that is not a program, pinned as capture run will check it. */
static ev_status pin_file(json_t *pins, const char *path, struct ev_error *err)
{
	struct ev_pinned_binary pb;
	struct ev_error one;
	ev_error_clear(&one);
	ev_status st = ev_pin_check(NULL, path, &pb, &one);
	if (st != EV_OK && pb.sha256[0] == 0)
		return ev_error_set(err, st, "pinned file %s (capture run checks it before every run and would "
				    "refuse it)", one.text);
	json_object_set_new(pins, path, json_string(pb.sha256));
	return EV_OK;
}

ev_status ev_capture_pin(struct ev_capture_pin *o, struct ev_error *err)
{
	/* the plan holds up to 64 cells and 1024 CPUs: kept off the stack */
	struct ev_campaign_plan *plan = calloc(1, sizeof *plan);
	if (!plan)
		return ev_error_set(err, EV_ERROR, "out of memory");
	ev_status st = ev_campaign_plan_load(o->plan_path, plan, err);
	if (st != EV_OK) {
		free(plan);
		return st;
	}
	json_t *pins = json_object();
	for (size_t i = 0; i < plan->ncells && st == EV_OK; i++)
		for (int k = 0; k < 2 && st == EV_OK; k++) {
			const struct ev_plan_side *s = &plan->cells[i].side[k];
			const char *paths[2] = {json_string_value(json_array_get(s->argv, 0)),
						s->launcher ? json_string_value(json_array_get(s->launcher, 0)) : NULL};
			for (int b = 0; b < 2 && paths[b] && st == EV_OK; b++) {
				struct ev_pinned_binary pb;
				struct ev_error one;
				ev_error_clear(&one);
				/* every check but the pin itself, which is what is made here */
				ev_status check = ev_pin_check(NULL, paths[b], &pb, &one);
				if (check != EV_OK && pb.sha256[0] == 0)
					st = ev_error_set(err, check, "cell %s %s: %s", plan->cells[i].name, s->role, one.text);
				else
					json_object_set_new(pins, paths[b], json_string(pb.sha256));
			}
		}
	for (size_t i = 0; i < plan->nobservers + (plan->perf != NULL) && st == EV_OK; i++) {
		const char *prog = i < plan->nobservers ? json_string_value(json_array_get(plan->observers[i].argv, 0)) : plan->perf;
		struct ev_pinned_binary pb;
		struct ev_error one;
		ev_error_clear(&one);
		ev_status check = ev_pin_check(NULL, prog, &pb, &one);
		if (check != EV_OK && pb.sha256[0] == 0)
			st = ev_error_set(err, check, "%s %s: %s", i < plan->nobservers ? "observer" : "perf",
					  i < plan->nobservers ? plan->observers[i].name : "(profiles the sides)", one.text);
		else
			json_object_set_new(pins, prog, json_string(pb.sha256));
	}
	/* the files pinned already (configs, profiles) are kept, hashed
	 * again, and so are those given with --file: each is checked exactly
	 * as capture run will check it before every run, and refused here if
	 * it would be refused there */
	size_t programs = json_object_size(pins);
	const char *path;
	json_t *v;
	json_object_foreach(plan->pins, path, v)
		if (st == EV_OK && !ev_plan_runs_program(plan, path))
			st = pin_file(pins, path, err);
	for (size_t i = 0; i < o->nfiles && st == EV_OK; i++)
		st = pin_file(pins, o->files[i], err);
	/* and every side's inputs, which capture run copies only when pinned */
	for (size_t i = 0; i < plan->ncells && st == EV_OK; i++)
		for (int k = 0; k < 2 && st == EV_OK; k++)
			json_object_foreach(plan->cells[i].side[k].inputs, path, v)
				if (st == EV_OK)
					st = pin_file(pins, json_string_value(v), err);
	if (st == EV_OK) {
		json_object_set_new(plan->doc, "pins", pins);
		pins = NULL;
		st = ev_publish_json(o->out, plan->doc, err);
	}
	json_decref(pins);
	if (st == EV_OK) {
		o->programs = programs;
		o->other_files = json_object_size(json_object_get(plan->doc, "pins")) - programs;
	}
	ev_campaign_plan_free(plan);
	free(plan);
	return st;
}
