/* SPDX-License-Identifier: Apache-2.0 */
/* continue_cli: the "continue" subcommand every tool shares, one shape:
 *
 *   TOOL continue --original RECEIPT [--original-sha256 HEX]
 *                 --accept CHECK=PATTERN | --accept-value CHECK=VALUE ...
 *                 [--receipt FILE] [--sign-key KEY] [--json]
 *
 * It loads the failed original (never writing to it), vets the accept
 * rules against the original's differences (continuation.h), reruns the
 * original's command line (recorded in the receipt's "invocation") with
 * this same executable, in the original's directory, with its receipt sent
 * to a private temporary file, refuses when the rerun's inputs are not the
 * original's, and writes a receipt of kind "continuation" holding the
 * original's SHA-256, the rules, what they accepted, what remains and the
 * fresh receipt whole (lib/usecase/common/continuation_run does all of that).
 * This is its face: the options, the one call, and, like cli.h, the text
 * it writes (to stdout and stderr).
 */
#ifndef EV_CONTINUE_CLI_H
#define EV_CONTINUE_CLI_H

#include <stddef.h>

#include "lib/cli/command.h"
#include "lib/usecase/common/continuation_run.h"

/* The command's table entry, the same in every tool: "TOOL "
 * EV_CONTINUE_SYNOPSIS, its description, options and notes. */
#define EV_CONTINUE_SYNOPSIS \
	"continue --original RECEIPT [--original-sha256 HEX] (--accept CHECK=PATTERN | " \
	"--accept-value CHECK=VALUE)... [--receipt FILE] [--sign-key KEY] [--json]"
#define EV_CONTINUE_DESCRIPTION \
	"Continue a failed receipt without rewriting it: state exactly which differences\n" \
	"are now understood and accepted, rerun the same command on the same\n" \
	"inputs, and write a new receipt of kind continuation that names the original by\n" \
	"its SHA-256, the accepted differences and the fresh result. The original is\n" \
	"only read.\n"
#define EV_CONTINUE_NOTES \
	"A rule must name a check the original failed and accept at least one of its\n" \
	"findings; a pattern that accepts an empty or any value is refused. The rerun\n" \
	"must read inputs with the original's SHA-256s. For example, an Onload option dump\n" \
	"line 'EF_POLL_USEC: 100000 (default: 0)' rejected by a parser is accepted, and\n" \
	"nothing else, by --accept 'CHECK=[A-Z_]+: [0-9]+ \\(default: 0\\)'.\n" \
	"\n" \
	"Exit status: 0 the fresh run holds with the accepted differences, 1 a difference\n" \
	"remains (named), 2 usage, refusal or I/O error (nothing written).\n"
extern const struct ev_cli_option ev_continue_options[];

/* Run "TOOL continue" (argv[0] is "continue"); subs are the commands whose
 * receipts it continues. @return the exit code: 0 the fresh run holds
 * with the accepted differences, 1 a difference remains (named), 2 usage,
 * refusal or I/O (nothing written). */
int ev_continue_main(const struct ev_cli_tool *tool, const struct ev_continuable *subs, size_t nsubs,
		     int argc, char **argv);

#endif
