/* SPDX-License-Identifier: Apache-2.0 */
/* completion: a tool's bash completion, written from its command table, so
 * that it never drifts from what the tool takes: its commands, each
 * command's options (those its --help shows), and values where a kind is
 * known (a file, a directory, a plan's JSON file, [HOST:]DIR with the
 * hosts of ~/.ssh/config, --pool's and --priority's words). What `TOOL
 * --bash-completion` prints and the build installs in
 * $(datadir)/bash-completion/completions/TOOL. No global state.
 */
#ifndef EV_CLI_COMPLETION_H
#define EV_CLI_COMPLETION_H

#include <stdio.h>

#include "lib/cli/command.h"

void ev_cli_print_bash_completion(const struct ev_cli_tool *tool, FILE *out);

#endif
