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
int capture_leases_main(int argc, char **argv);

/* The tool's commands and options (commands.c): ev_cli_main runs it, every
 * command parses, helps and refuses through it. */
extern const struct ev_cli_tool capture_tool;

#endif
