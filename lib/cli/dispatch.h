/* SPDX-License-Identifier: Apache-2.0 */
/* dispatch: a tool's main. The configuration files and the shared pool
 * applied, the command found in the tool's table and run, what it
 * published added to the catalog. Above the rest of lib/cli, which the
 * commands use while they run (command tables, usage, the configuration,
 * the pool): nothing in lib/cli includes it, so they include no circle. */
#ifndef EV_CLI_DISPATCH_H
#define EV_CLI_DISPATCH_H

#include "lib/cli/command.h"

/* The main of a tool: ev_cli_init; for a tool with shared_pool, "--pool
 * POOL" and "--priority PRIORITY" before the command (or EVIDENCE_POOL
 * and EVIDENCE_PRIORITY) and, for "shared", the command runs once a
 * shared lease on the shared pool's CPUs is held, on those CPUs alone;
 * then "--help", "-h" or "help" print the
 * overview on stdout, "help COMMAND" runs COMMAND --help, "--version"
 * prints the version, a known command runs with the arguments after the
 * tool's name; a missing or unknown one is a usage error.
 * @return the exit code. */
int ev_cli_main(const struct ev_cli_tool *tool, int argc, char **argv);

#endif
