/* SPDX-License-Identifier: Apache-2.0 */
/* capture tool internals: its commands and the messages they share (the
 * engine is lib/usecase/capture and lib/process). Only files in capture/
 * include this. */
#ifndef CAPTURE_CAPTURE_H
#define CAPTURE_CAPTURE_H

#include <jansson.h>

#include "lib/campaign/plan_check.h"
#include "lib/cli/cli.h"
#include "lib/cli/command.h"
#include "lib/core/status.h"

#define TOOL "capture"

int capture_run_main(int argc, char **argv);
int capture_pin_main(int argc, char **argv);
int capture_register_main(int argc, char **argv);
int capture_leases_main(int argc, char **argv);
int capture_clocks_main(int argc, char **argv);

/* The tool's commands and options (commands.c): ev_cli_main runs it, every
 * command parses, helps and refuses through it. */
extern const struct ev_cli_tool capture_tool;

/* capture run's options, by name: what ev_cli_getopt_next returns for each. */
enum capture_run_option {
	CAPTURE_RUN_OPT_ALLOW_DIRTY = 'A',
	CAPTURE_RUN_OPT_DEGRADE = 'D',
	CAPTURE_RUN_OPT_JSON = 'j',
	CAPTURE_RUN_OPT_LOG = 'L',
	CAPTURE_RUN_OPT_OUTPUT = 'o',
	CAPTURE_RUN_OPT_PRIORITY = 'P',
	CAPTURE_RUN_OPT_REGISTRATION = 'g',
	CAPTURE_RUN_OPT_REQUIRE = 'R',
	CAPTURE_RUN_OPT_REQUIRE_REGISTRATION = 'G',
	CAPTURE_RUN_OPT_SIGN_KEY = 'K',
	CAPTURE_RUN_OPT_WAIT = 'W',
};

/* capture pin's options, by name: what ev_cli_getopt_next returns for each. */
enum capture_pin_option {
	CAPTURE_PIN_OPT_FILE = 'f',
	CAPTURE_PIN_OPT_OUTPUT = 'o',
};

/* capture register's options, by name: what ev_cli_getopt_next returns for each. */
enum capture_register_option {
	CAPTURE_REGISTER_OPT_COMPARE_ARMS = 'a',
	CAPTURE_REGISTER_OPT_COMPARE_CELLS = 'c',
	CAPTURE_REGISTER_OPT_GATE = 'g',
	CAPTURE_REGISTER_OPT_HYPOTHESIS = 'H',
	CAPTURE_REGISTER_OPT_JSON = 'j',
	CAPTURE_REGISTER_OPT_LOG = 'l',
	CAPTURE_REGISTER_OPT_OUTPUT = 'o',
	CAPTURE_REGISTER_OPT_REFERENCE = 'r',
	CAPTURE_REGISTER_OPT_REQUIRE = 'R',
	CAPTURE_REGISTER_OPT_SESSIONS = 'n',
	CAPTURE_REGISTER_OPT_SIGN_KEY = 'K',
	CAPTURE_REGISTER_OPT_STATISTIC = 's',
	CAPTURE_REGISTER_OPT_TIMEOUT = 'T',
	CAPTURE_REGISTER_OPT_TSA = 't',
	CAPTURE_REGISTER_OPT_TSA_CA = 'C',
};

/* capture leases's options, by name: what ev_cli_getopt_next returns for each. */
enum capture_clocks_option {
	CAPTURE_CLOCKS_OPT_JSON = 'j',
	CAPTURE_CLOCKS_OPT_OUTPUT = 'o',
	CAPTURE_CLOCKS_OPT_SIGN_KEY = 'K',
};

enum capture_leases_option {
	CAPTURE_LEASES_OPT_JSON = 'j',
};

#endif
