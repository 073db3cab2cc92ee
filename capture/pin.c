/* SPDX-License-Identifier: Apache-2.0 */
/* capture pin: a plan with every program, launcher and other pinned file
 * (configs, profiles) pinned by its SHA-256 as it is now, so that capture
 * run can refuse any other file. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/capture.h"
#include "lib/process/pin_check.h"
#include "lib/core/publish.h"
#include "lib/core/json.h"

#define PIN_FILES_MAX 64

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

int capture_pin_main(int argc, char **argv)
{
	const char *out = NULL, *files[PIN_FILES_MAX];
	size_t nfiles = 0;
	int opt;
	struct ev_cli_getopt opts;
	ev_cli_getopt_init(&opts, &capture_tool, "pin");
	optind = 1;
	while ((opt = getopt_long(argc, argv, opts.shortopts, opts.longopts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			if (optarg[0] != '/')
				return ev_cli_usage(&capture_tool, "pin", "option --file: expected an absolute path, found '%s'", optarg);
			if (nfiles == PIN_FILES_MAX)
				return ev_cli_usage(&capture_tool, "pin", "at most %d --file", PIN_FILES_MAX);
			files[nfiles++] = optarg;
			break;
		case 'h': return ev_cli_help(&capture_tool, "pin");
		case 'o': out = optarg; break;
		default: return ev_cli_usage(&capture_tool, "pin", "%s", ev_cli_option_problem(argv));
		}
	}
	if (optind + 1 != argc)
		return ev_cli_usage(&capture_tool, "pin", optind == argc ? "no plan given" : "one plan at a time");
	if (!out)
		return ev_cli_usage(&capture_tool, "pin", "no output given (-o PINNED_PLAN)");
	struct ev_error err;
	ev_error_clear(&err);
	struct ev_campaign_plan plan;
	ev_status st = ev_campaign_plan_load(argv[optind], &plan, &err);
	if (st != EV_OK) {
		ev_cli_error(TOOL, &err);
		return ev_status_exit_code(st);
	}
	json_t *pins = json_object();
	for (size_t i = 0; i < plan.ncells && st == EV_OK; i++)
		for (int k = 0; k < 2 && st == EV_OK; k++) {
			const struct ev_plan_side *s = &plan.cells[i].side[k];
			const char *paths[2] = {json_string_value(json_array_get(s->argv, 0)),
						s->launcher ? json_string_value(json_array_get(s->launcher, 0)) : NULL};
			for (int b = 0; b < 2 && paths[b] && st == EV_OK; b++) {
				struct ev_pinned_binary pb;
				struct ev_error one;
				ev_error_clear(&one);
				/* every check but the pin itself, which is what is made here */
				ev_status check = ev_pin_check(NULL, paths[b], &pb, &one);
				if (check != EV_OK && pb.sha256[0] == 0)
					st = ev_error_set(&err, check, "cell %s %s: %s", plan.cells[i].name, s->role, one.text);
				else
					json_object_set_new(pins, paths[b], json_string(pb.sha256));
			}
		}
	for (size_t i = 0; i < plan.nobservers + (plan.perf != NULL) && st == EV_OK; i++) {
		const char *prog = i < plan.nobservers ? json_string_value(json_array_get(plan.observers[i].argv, 0)) : plan.perf;
		struct ev_pinned_binary pb;
		struct ev_error one;
		ev_error_clear(&one);
		ev_status check = ev_pin_check(NULL, prog, &pb, &one);
		if (check != EV_OK && pb.sha256[0] == 0)
			st = ev_error_set(&err, check, "%s %s: %s", i < plan.nobservers ? "observer" : "perf",
					  i < plan.nobservers ? plan.observers[i].name : "(profiles the sides)", one.text);
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
	json_object_foreach(plan.pins, path, v)
		if (st == EV_OK && !ev_plan_runs_program(&plan, path))
			st = pin_file(pins, path, &err);
	for (size_t i = 0; i < nfiles && st == EV_OK; i++)
		st = pin_file(pins, files[i], &err);
	/* and every side's inputs, which capture run copies only when pinned */
	for (size_t i = 0; i < plan.ncells && st == EV_OK; i++)
		for (int k = 0; k < 2 && st == EV_OK; k++)
			json_object_foreach(plan.cells[i].side[k].inputs, path, v)
				if (st == EV_OK)
					st = pin_file(pins, json_string_value(v), &err);
	if (st == EV_OK) {
		json_object_set_new(plan.doc, "pins", pins);
		pins = NULL;
		st = ev_publish_json(out, plan.doc, &err);
	}
	json_decref(pins);
	if (st == EV_OK) {
		size_t all = json_object_size(json_object_get(plan.doc, "pins"));
		printf("pinned %zu program%s and %zu file%s: %s\n", programs, programs == 1 ? "" : "s", all - programs,
		       all - programs == 1 ? "" : "s", out);
	} else {
		ev_cli_error(TOOL, &err);
	}
	ev_campaign_plan_free(&plan);
	return ev_status_exit_code(st);
}
