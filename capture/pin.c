/* SPDX-License-Identifier: Apache-2.0 */
/* capture pin: the options read, lib/usecase/capture/capture_pin called,
 * what it pinned said. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "capture/capture.h"
#include "lib/usecase/capture/capture_pin.h"

#define PIN_FILES_MAX 64

int capture_pin_main(int argc, char **argv)
{
	const char *out = NULL, *files[PIN_FILES_MAX];
	size_t nfiles = 0;
	int opt;
	struct ev_cli_getopt opts;
	ev_cli_getopt_init(&opts, &capture_tool, "pin");
	optind = 1;
	while ((opt = ev_cli_getopt_next(&opts, argc, argv)) != -1) {
		switch (opt) {
		case CAPTURE_PIN_OPT_FILE:
			if (optarg[0] != '/')
				return ev_cli_usage(&capture_tool, "pin", "option --file: expected an absolute path, found '%s'", optarg);
			if (nfiles == PIN_FILES_MAX)
				return ev_cli_usage(&capture_tool, "pin", "at most %d --file", PIN_FILES_MAX);
			files[nfiles++] = optarg;
			break;
		case EV_CLI_HELP: return ev_cli_help(&capture_tool, "pin");
		case CAPTURE_PIN_OPT_OUTPUT: out = optarg; break;
		default: return ev_cli_usage(&capture_tool, "pin", "%s", ev_cli_option_problem(argv));
		}
	}
	if (optind + 1 != argc)
		return ev_cli_usage(&capture_tool, "pin", optind == argc ? "no plan given" : "one plan at a time");
	if (!out)
		return ev_cli_usage(&capture_tool, "pin", "no output given (-o PINNED_PLAN)");
	struct ev_error err;
	ev_error_clear(&err);
	struct ev_capture_pin pin = {.plan_path = argv[optind], .out = out, .files = files, .nfiles = nfiles};
	ev_status st = ev_capture_pin(&pin, &err);
	if (st == EV_OK)
		printf("pinned %zu program%s and %zu file%s: %s\n", pin.programs, pin.programs == 1 ? "" : "s",
		       pin.other_files, pin.other_files == 1 ? "" : "s", out);
	else
		ev_cli_error(TOOL, &err);
	return ev_status_exit_code(st);
}
