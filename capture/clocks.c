/* SPDX-License-Identifier: Apache-2.0 */
/* capture clocks: this host's clock as evidence (evidence-clocks/1). */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "capture/capture.h"
#include "lib/campaign/clocks_read.h"
#include "lib/core/json.h"
#include "lib/receipt/signature.h"
#include "lib/usecase/capture/capture_clocks.h"

/* One part of the record in a line: its figures, or why it is missing. */
static void part(const char *name, const json_t *v)
{
	if (json_is_string(v)) {
		printf("  %-11s %s\n", name, json_string_value(v));
		return;
	}
	char *text = json_dumps(v, JSON_SORT_KEYS | JSON_COMPACT);
	printf("  %-11s %s\n", name, text ? text : "?");
	free(text);
}

int capture_clocks_main(int argc, char **argv)
{
	int json = 0, opt;
	const char *out = NULL;
	struct ev_signing_key *key = NULL;
	struct ev_cli_getopt opts;
	ev_cli_getopt_init(&opts, &capture_tool, "clocks");
	optind = 1;
	while ((opt = ev_cli_getopt_next(&opts, argc, argv)) != -1) {
		switch (opt) {
		case EV_CLI_HELP: return ev_cli_help(&capture_tool, "clocks");
		case CAPTURE_CLOCKS_OPT_JSON: json = 1; break;
		case CAPTURE_CLOCKS_OPT_OUTPUT: out = optarg; break;
		case CAPTURE_CLOCKS_OPT_SIGN_KEY:
			ev_signing_key_free(key);
			if (ev_cli_sign_key(TOOL, optarg, &key))
				return 2;
			break;
		default:
			ev_signing_key_free(key);
			return ev_cli_usage(&capture_tool, "clocks", "%s", ev_cli_option_problem(argv));
		}
	}
	if (optind != argc) {
		ev_signing_key_free(key);
		return ev_cli_usage(&capture_tool, "clocks", "unexpected argument '%s'", argv[optind]);
	}
	struct ev_error err;
	ev_error_clear(&err);
	json_t *doc = NULL;
	ev_status st = ev_capture_clocks(out, key, &doc, &err);
	ev_signing_key_free(key);
	if (st != EV_OK) {
		ev_cli_error(TOOL, &err);
		return ev_status_exit_code(st);
	}
	struct ev_clock_judgement j;
	memset(&j, 0, sizeof j);
	ev_clocks_judge(doc, &j);
	if (json) {
		ev_json_print(doc, stdout, &err);
	} else {
		printf("clocks of %s (boot %s) at %s\n", json_string_value(json_object_get(doc, "host")),
		       json_string_value(json_object_get(doc, "boot_id")), json_string_value(json_object_get(doc, "at")));
		part("kernel", json_object_get(doc, "kernel"));
		part("chrony", json_object_get(doc, "chrony"));
		part("ptp", json_object_get(doc, "ptp"));
		part("clocksource", json_object_get(doc, "clocksource"));
		part("tsc", json_object_get(doc, "tsc"));
		printf("%s: %s\n", j.synchronised ? "synchronised" : "not synchronised", j.how);
		if (out)
			printf("record: %s%s\n", out, json_object_get(doc, "signature") ? " (signed)" : "");
	}
	json_decref(doc);
	return 0;
}
