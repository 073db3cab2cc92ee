/* capture pin: a plan with every program, launcher and other pinned file
 * (configs, profiles) pinned by its SHA-256 as it is now, so that capture
 * run can refuse any other file. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/capture.h"
#include "capture/pin_check.h"
#include "lib/core/publish.h"
#include "lib/core/json.h"

static const char help[] =
	"usage: capture pin [--file PATH ...] PLAN -o PINNED_PLAN\n"
	"\n"
	"Write PLAN again with \"pins\": the SHA-256 of every program and launcher its cells\n"
	"name, and of every other file pinned already or named with --file (a config, an\n"
	"Onload profile, a helper's input), as the files are now. Each must be an absolute\n"
	"path to a regular file (not a symbolic link) owned by root or by you and writable\n"
	"by its owner alone: capture run checks every pinned file so before each run, and\n"
	"what it would refuse is refused here and named. PINNED_PLAN must not exist.\n"
	"\n"
	"  -f, --file PATH    pin this file too (repeatable)\n"
	"  -o, --output FILE  the pinned plan\n"
	"  -h, --help         show this help\n";

#define PIN_FILES_MAX 64

/* A file that is not a program, pinned as capture run will check it. */
static ev_status pin_file(json_t *pins, const char *path, struct ev_error *err)
{
	struct pinned_binary pb;
	struct ev_error one;
	ev_error_clear(&one);
	ev_status st = capture_pin_check(NULL, path, &pb, &one);
	if (st != EV_OK && pb.sha256[0] == 0)
		return ev_error_set(err, st, "pinned file %s (capture run checks it before every run and would "
				    "refuse it)", one.text);
	json_object_set_new(pins, path, json_string(pb.sha256));
	return EV_OK;
}

int capture_pin_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"file", required_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},
		{"output", required_argument, NULL, 'o'},
		{NULL, 0, NULL, 0},
	};
	const char *out = NULL, *files[PIN_FILES_MAX];
	size_t nfiles = 0;
	int opt;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			if (optarg[0] != '/')
				return msg_usage("pin", "option --file: expected an absolute path, found '%s'", optarg);
			if (nfiles == PIN_FILES_MAX)
				return msg_usage("pin", "at most %d --file", PIN_FILES_MAX);
			files[nfiles++] = optarg;
			break;
		case 'h': fputs(help, stdout); return 0;
		case 'o': out = optarg; break;
		default: return msg_usage("pin", "%s", ev_cli_option_problem(argv));
		}
	}
	if (optind + 1 != argc)
		return msg_usage("pin", optind == argc ? "no plan given" : "one plan at a time");
	if (!out)
		return msg_usage("pin", "no output given (-o PINNED_PLAN)");
	struct ev_error err;
	ev_error_clear(&err);
	struct plan plan;
	ev_status st = plan_load(argv[optind], &plan, &err);
	if (st != EV_OK) {
		ev_cli_error(TOOL, &err);
		return ev_status_exit_code(st);
	}
	json_t *pins = json_object();
	for (size_t i = 0; i < plan.ncells && st == EV_OK; i++)
		for (int k = 0; k < 2 && st == EV_OK; k++) {
			const struct plan_side *s = &plan.cells[i].side[k];
			const char *paths[2] = {json_string_value(json_array_get(s->argv, 0)),
						s->launcher ? json_string_value(json_array_get(s->launcher, 0)) : NULL};
			for (int b = 0; b < 2 && paths[b] && st == EV_OK; b++) {
				struct pinned_binary pb;
				struct ev_error one;
				ev_error_clear(&one);
				/* every check but the pin itself, which is what is made here */
				ev_status check = capture_pin_check(NULL, paths[b], &pb, &one);
				if (check != EV_OK && pb.sha256[0] == 0)
					st = ev_error_set(&err, check, "cell %s %s: %s", plan.cells[i].name, s->role, one.text);
				else
					json_object_set_new(pins, paths[b], json_string(pb.sha256));
			}
		}
	/* the files pinned already (configs, profiles) are kept, hashed
	 * again, and so are those given with --file: each is checked exactly
	 * as capture run will check it before every run, and refused here if
	 * it would be refused there */
	size_t programs = json_object_size(pins);
	const char *path;
	json_t *v;
	json_object_foreach(plan.pins, path, v)
		if (st == EV_OK && !plan_runs_program(&plan, path))
			st = pin_file(pins, path, &err);
	for (size_t i = 0; i < nfiles && st == EV_OK; i++)
		st = pin_file(pins, files[i], &err);
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
	plan_free(&plan);
	return ev_status_exit_code(st);
}
