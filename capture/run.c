/* SPDX-License-Identifier: Apache-2.0 */
/* capture run: the options read, lib/usecase/capture/capture_run called,
 * what it says printed: its remarks on stderr, a line per run and arm on
 * stdout (stderr under --json, where stdout holds the receipt), and on a
 * terminal a progress line (runs accounted for, the run being made),
 * erased before each of those lines. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "capture/capture.h"
#include "lib/core/json.h"
#include "lib/cli/progress.h"
#include "lib/core/lease.h"
#include "lib/usecase/capture/capture_run.h"

struct shown {
	const struct ev_capture_run *run;
	FILE *lines;                  /* a line per run: stdout, stderr under --json */
	struct ev_progress *progress;
};

static void say_note(void *ctx, const char *text)
{
	const struct shown *s = ctx;
	ev_progress_done(s->progress);
	fprintf(stderr, TOOL ": %s\n", text);
}

static void say_run(void *ctx, const char *line)
{
	const struct shown *s = ctx;
	ev_progress_done(s->progress);
	s->progress->item[0] = '\0'; /* the run it named is over */
	fprintf(s->lines, "%s\n", line);
	fflush(s->lines);
}

/* Each run's name drawn as it starts, however soon after the last line. */
static void say_starting(void *ctx, const char *run)
{
	const struct shown *s = ctx;
	ev_progress_done(s->progress);
	ev_progress_item(s->progress, "%s", run);
}

static void say_waiting(void *ctx, const char *why)
{
	const struct shown *s = ctx;
	ev_progress_done(s->progress);
	fprintf(stderr, TOOL ": waiting for CPUs: %s (--wait, priority %s)\n", why,
		s->run->priority == EV_LEASE_HIGH ? "high" : "normal");
}

/* The best grade ahead; refused, each condition that keeps it from quiet
 * with its evidence, on stderr. */
static void say_grade(void *ctx, const struct ev_capture_grade_ahead *g)
{
	const struct shown *s = ctx;
	ev_progress_done(s->progress);
	fprintf(g->refused ? stderr : s->lines, "%s: grade: at best %s by the rules %s version %lld (%s)%s%s%s\n", TOOL,
		g->best, g->rules_name, g->rules_version, g->pinned ? "the plan's" : "the shipped default",
		g->keeping[0] ? ": " : "; audit campaign judges what only a run shows", g->keeping,
		g->keeping[0] && !g->refused ? " (--require quiet names the evidence)" : "");
	size_t i, k;
	json_t *v, *e;
	json_array_foreach(g->conditions, i, v) {
		const char *verdict = json_string_value(json_object_get(v, "verdict"));
		if (!g->refused || (strcmp(verdict, "fail") != 0 && strcmp(verdict, "unknown") != 0))
			continue;
		json_array_foreach(json_object_get(v, "evidence"), k, e)
			fprintf(stderr, "  %s: %s: %s\n", verdict, json_string_value(json_object_get(v, "condition")),
				json_string_value(e));
	}
}

int capture_run_main(int argc, char **argv)
{
	struct ev_capture_run c = {.priority = EV_LEASE_NORMAL};
	struct ev_signing_key *sign_key = NULL;
	static char dir[PATH_MAX];
	const char *out = NULL;
	int json = 0;
	int opt;
	struct ev_cli_getopt opts;
	ev_cli_getopt_init(&opts, &capture_tool, "run");
	optind = 1;
	while ((opt = ev_cli_getopt_next(&opts, argc, argv)) != -1) {
		switch (opt) {
		case CAPTURE_RUN_OPT_ALLOW_DIRTY: c.allow_dirty = 1; break;
		case CAPTURE_RUN_OPT_DEGRADE: c.degrade = 1; break;
		case EV_CLI_HELP: return ev_cli_help(&capture_tool, "run");
		case CAPTURE_RUN_OPT_JSON: json = 1; break;
		case CAPTURE_RUN_OPT_SIGN_KEY:
			if (ev_cli_sign_key(TOOL, optarg, &sign_key))
				return 2;
			break;
		case CAPTURE_RUN_OPT_OUTPUT: out = optarg; break;
		case CAPTURE_RUN_OPT_PRIORITY:
			c.priority = strcmp(optarg, "high") == 0 ? EV_LEASE_HIGH : EV_LEASE_NORMAL;
			break;
		case CAPTURE_RUN_OPT_WAIT: c.wait = 1; break;
		case CAPTURE_RUN_OPT_REQUIRE: c.require = optarg; break;
		case CAPTURE_RUN_OPT_REGISTRATION: c.registration = optarg; break;
		case CAPTURE_RUN_OPT_LOG: c.log_dir = optarg; break;
		case CAPTURE_RUN_OPT_REQUIRE_REGISTRATION: c.require_registration = 1; break;
		default: return ev_cli_usage(&capture_tool, "run", "%s", ev_cli_option_problem(argv));
		}
	}
	if (ev_cli_getopt_relations(&opts)) {
		ev_signing_key_free(sign_key);
		return 2;
	}
	if (optind + 1 != argc)
		return ev_cli_usage(&capture_tool, "run", optind == argc ? "no plan given" : "one plan at a time");
	if (!out)
		return ev_cli_usage(&capture_tool, "run", "no campaign directory given (-o DIR)");
	c.plan_path = argv[optind];
	if (out[0] == '/') {
		snprintf(dir, sizeof dir, "%s", out);
	} else {
		char cwd[PATH_MAX];
		if (!getcwd(cwd, sizeof cwd) || snprintf(dir, sizeof dir, "%s/%s", cwd, out) >= (int)sizeof dir)
			return ev_cli_usage(&capture_tool, "run", "-o %s: path too long", out);
	}
	c.dir = dir;
	ev_cli_catch_signals();
	struct ev_progress progress;
	ev_progress_init(&progress, stderr, TOOL ": running", 0, 0);
	progress.noun = "runs";
	struct ev_meter meter = ev_progress_meter(&progress);
	struct shown shown = {&c, json ? stderr : stdout, &progress};
	c.sign_key = sign_key;
	c.invocation = ev_cli_invocation();
	c.interrupted = &ev_cli_interrupted;
	c.on_note = say_note;
	c.on_run = say_run;
	c.on_starting = say_starting;
	c.on_waiting = say_waiting;
	c.on_grade = say_grade;
	c.ctx = &shown;
	c.meter = &meter;
	struct ev_error err;
	ev_error_clear(&err);
	ev_status st = ev_capture_run(&c, &err);
	ev_progress_done(&progress);
	if (st == EV_OK) {
		if (json)
			ev_json_print(c.receipt, stdout, &err);
		else
			printf("%s: campaign %s; receipt %s\n", c.all_ok ? "OK" : "FAIL", c.dir, c.receipt_path);
		st = c.all_ok ? EV_OK : EV_MISMATCH;
	} else {
		ev_cli_error(TOOL, &err);
	}
	json_decref(c.receipt);
	ev_signing_key_free(sign_key);
	return ev_status_exit_code(st);
}
