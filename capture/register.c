/* SPDX-License-Identifier: Apache-2.0 */
/* capture register: the options read, lib/usecase/capture/capture_register
 * called, what was made said (or printed as JSON). */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "capture/capture.h"
#include "lib/core/json.h"
#include "lib/usecase/capture/capture_register.h"

/* "A,B" into its two names (pair[0], pair[1] point into text, changed). */
static int split_pair(char *text, const char *pair[2])
{
	char *comma = strchr(text, ',');
	if (!comma || comma == text || !comma[1] || strchr(comma + 1, ','))
		return -1;
	*comma = '\0';
	pair[0] = text;
	pair[1] = comma + 1;
	return 0;
}

static void say(const struct ev_capture_register *r, int json)
{
	if (json) {
		json_t *out = json_pack("{s:s, s:s, s:s}", "registration", r->out, "sha256", r->sha256, "plan", r->plan_name);
		if (r->tsa_url)
			json_object_set_new(out, "timestamp", json_pack("{s:s, s:s, s:s}", "tsr", r->tsr, "gen_time",
									r->stamp.gen_time, "tsa", r->stamp.tsa));
		if (r->log_dir)
			json_object_set_new(out, "log", json_pack("{s:s, s:I, s:s}", "dir", r->log_dir, "index",
								  (json_int_t)r->log_index, "head", r->log_head));
		struct ev_error err;
		ev_error_clear(&err);
		ev_json_print(out, stdout, &err);
		json_decref(out);
		return;
	}
	printf("registered %s: %s (sha256 %s)\n", r->plan_name, r->out, r->sha256);
	if (r->tsa_url)
		printf("  trusted time %s by %s (%s)\n", r->stamp.gen_time, r->stamp.tsa, r->tsr);
	if (r->log_dir)
		printf("  logged in %s, entry %zu\n", r->log_dir, r->log_index);
}

int capture_register_main(int argc, char **argv)
{
	struct ev_capture_register r = {.claims = {.sessions = 1}};
	struct ev_signing_key *sign_key = NULL;
	struct ev_registration_claims *c = &r.claims;
	int json = 0, opt;
	struct ev_cli_getopt opts;
	ev_cli_getopt_init(&opts, &capture_tool, "register");
	optind = 1;
	while ((opt = ev_cli_getopt_next(&opts, argc, argv)) != -1) {
		switch (opt) {
		case CAPTURE_REGISTER_OPT_COMPARE_ARMS:
		case CAPTURE_REGISTER_OPT_COMPARE_CELLS: {
			int arms = opt == CAPTURE_REGISTER_OPT_COMPARE_ARMS;
			size_t *n = arms ? &c->narms : &c->ncells;
			if (*n == EV_REGISTRATION_MAX_CLAIMS)
				return ev_cli_usage(&capture_tool, "register", "at most %d --compare-%s",
						    EV_REGISTRATION_MAX_CLAIMS, arms ? "arms" : "cells");
			char found[256];
			snprintf(found, sizeof found, "%s", optarg);
			if (split_pair(optarg, arms ? c->arms[*n] : c->cells[*n]))
				return ev_cli_usage(&capture_tool, "register", "option --compare-%s: expected two names, "
						    "A,B, found '%s'", arms ? "arms" : "cells", found);
			++*n;
			break;
		}
		case CAPTURE_REGISTER_OPT_GATE: c->gate = optarg; break;
		case EV_CLI_HELP: return ev_cli_help(&capture_tool, "register");
		case CAPTURE_REGISTER_OPT_HYPOTHESIS: c->hypothesis = optarg; break;
		case CAPTURE_REGISTER_OPT_JSON: json = 1; break;
		case CAPTURE_REGISTER_OPT_LOG: r.log_dir = optarg; break;
		case CAPTURE_REGISTER_OPT_OUTPUT: r.out = optarg; break;
		case CAPTURE_REGISTER_OPT_REFERENCE:
			if (c->nreferences == EV_REGISTRATION_MAX_CLAIMS)
				return ev_cli_usage(&capture_tool, "register", "at most %d --reference",
						    EV_REGISTRATION_MAX_CLAIMS);
			c->references[c->nreferences++] = optarg;
			break;
		case CAPTURE_REGISTER_OPT_REQUIRE: c->require = optarg; break;
		case CAPTURE_REGISTER_OPT_SESSIONS: c->sessions = (uint64_t)opts.count; break;
		case CAPTURE_REGISTER_OPT_SIGN_KEY:
			if (ev_cli_sign_key(TOOL, optarg, &sign_key))
				return 2;
			r.log_key = sign_key;
			break;
		case CAPTURE_REGISTER_OPT_STATISTIC:
			if (c->nstatistics == EV_REGISTRATION_MAX_CLAIMS)
				return ev_cli_usage(&capture_tool, "register", "at most %d --statistic",
						    EV_REGISTRATION_MAX_CLAIMS);
			c->statistics[c->nstatistics++] = optarg;
			break;
		case CAPTURE_REGISTER_OPT_TIMEOUT: r.timeout_seconds = opts.count; break;
		case CAPTURE_REGISTER_OPT_TSA: r.tsa_url = optarg; break;
		case CAPTURE_REGISTER_OPT_TSA_CA: r.tsa_ca = optarg; break;
		default: return ev_cli_usage(&capture_tool, "register", "%s", ev_cli_option_problem(argv));
		}
	}
	int usage = ev_cli_getopt_relations(&opts);
	if (!usage && optind + 1 != argc)
		usage = ev_cli_usage(&capture_tool, "register", optind == argc ? "no plan given" : "one plan at a time");
	if (!usage && !r.out)
		usage = ev_cli_usage(&capture_tool, "register", "no output given (-o REG.json)");
	if (usage) {
		ev_signing_key_free(sign_key);
		return usage;
	}
	r.plan_path = argv[optind];
	ev_cli_catch_signals();
	r.interrupted = &ev_cli_interrupted;
	struct ev_error err;
	ev_error_clear(&err);
	ev_status st = ev_capture_register(&r, &err);
	if (st == EV_OK)
		say(&r, json);
	else
		ev_cli_error(TOOL, &err);
	ev_signing_key_free(sign_key);
	return ev_status_exit_code(st);
}
