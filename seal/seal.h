/* SPDX-License-Identifier: Apache-2.0 */
/* seal tool internals: one function per subcommand, and the messages they
 * share. Only files in seal/ include this. */
#ifndef SEAL_SEAL_H
#define SEAL_SEAL_H

#include <stdio.h>

#include "lib/cli/cli.h"
#include "lib/cli/command.h"
#include "lib/core/finding.h"
#include "lib/core/status.h"

#define TOOL "seal"

int seal_create_main(int argc, char **argv);
int seal_verify_main(int argc, char **argv);
int seal_diff_main(int argc, char **argv);
int seal_select_main(int argc, char **argv);
int seal_capsule_main(int argc, char **argv);
int seal_integrate_main(int argc, char **argv);
int seal_timestamp_main(int argc, char **argv);

/* The tool's commands and options (commands.c): ev_cli_main runs it, every
 * command parses, helps and refuses through it. */
extern const struct ev_cli_tool seal_tool;

int seal_continue_main(int argc, char **argv);

/* seal create's options, by name: what ev_cli_getopt_next returns for each. */
enum seal_create_option {
	SEAL_CREATE_OPT_GZIP = 'z',
	SEAL_CREATE_OPT_JOBS = 'J',
	SEAL_CREATE_OPT_JSON = 'j',
	SEAL_CREATE_OPT_LEVEL = 'l',
	SEAL_CREATE_OPT_NAME = 'n',
	SEAL_CREATE_OPT_OUTPUT = 'o',
	SEAL_CREATE_OPT_REFUSE_WRITABLE = 'w',
	SEAL_CREATE_OPT_SIGN_KEY = 'K',
	SEAL_CREATE_OPT_THREADS = 't',
};

/* seal verify's options, by name: what ev_cli_getopt_next returns for each. */
enum seal_verify_option {
	SEAL_VERIFY_OPT_JSON = 'j',
	SEAL_VERIFY_OPT_MAX_FINDINGS = 'M',
	SEAL_VERIFY_OPT_RECEIPT = 'r',
	SEAL_VERIFY_OPT_SEAL = 's',
	SEAL_VERIFY_OPT_SEAL_SHA256 = 'p',
	SEAL_VERIFY_OPT_SELECTION = 'S',
	SEAL_VERIFY_OPT_SIGN_KEY = 'K',
};

/* seal timestamp's options, by name: what ev_cli_getopt_next returns for each. */
enum seal_timestamp_option {
	SEAL_TIMESTAMP_OPT_REPLY = 'r',
	SEAL_TIMESTAMP_OPT_REQUEST = 'q',
	SEAL_TIMESTAMP_OPT_TIMEOUT = 'T',
	SEAL_TIMESTAMP_OPT_TSA = 'u',
	SEAL_TIMESTAMP_OPT_TSA_CA = 'C',
	SEAL_TIMESTAMP_OPT_VERIFY = 'V',
};

/* seal diff's options, by name: what ev_cli_getopt_next returns for each. */
enum seal_diff_option {
	SEAL_DIFF_OPT_JSON = 'j',
};

/* seal select's options, by name: what ev_cli_getopt_next returns for each. */
enum seal_select_option {
	SEAL_SELECT_OPT_INCLUDE = 'i',
	SEAL_SELECT_OPT_OUTPUT = 'o',
	SEAL_SELECT_OPT_SEAL = 's',
};

/* seal capsule's options, by name: what ev_cli_getopt_next returns for each. */
enum seal_capsule_option {
	SEAL_CAPSULE_OPT_COMMIT = 'c',
	SEAL_CAPSULE_OPT_GZIP = 'z',
	SEAL_CAPSULE_OPT_JOBS = 'J',
	SEAL_CAPSULE_OPT_JSON = 'j',
	SEAL_CAPSULE_OPT_LEVEL = 'l',
	SEAL_CAPSULE_OPT_NAME = 'n',
	SEAL_CAPSULE_OPT_OUTPUT = 'o',
	SEAL_CAPSULE_OPT_RECEIPT = 'R',
	SEAL_CAPSULE_OPT_REPO = 'r',
	SEAL_CAPSULE_OPT_SIGN_KEY = 'K',
	SEAL_CAPSULE_OPT_SUBMODULES = 'S',
	SEAL_CAPSULE_OPT_SYMLINKS = 'L',
	SEAL_CAPSULE_OPT_THREADS = 't',
	SEAL_CAPSULE_OPT_VERIFY = 'V',
};

/* seal integrate's options, by name: what ev_cli_getopt_next returns for each. */
enum seal_integrate_option {
	SEAL_INTEGRATE_OPT_JSON = 'j',
	SEAL_INTEGRATE_OPT_PREFIX = 'p',
	SEAL_INTEGRATE_OPT_RECEIPT = 'o',
	SEAL_INTEGRATE_OPT_REPO = 'r',
	SEAL_INTEGRATE_OPT_REV = 'v',
	SEAL_INTEGRATE_OPT_SELECTION = 's',
	SEAL_INTEGRATE_OPT_SIGN_KEY = 'K',
	SEAL_INTEGRATE_OPT_WORKTREE = 'w',
};

#endif
