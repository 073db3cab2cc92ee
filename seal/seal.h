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

#endif
