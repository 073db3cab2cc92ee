/* continue_cli: the "continue" subcommand every tool shares, one shape:
 *
 *   TOOL continue --original RECEIPT [--original-sha256 HEX]
 *                 --accept CHECK=PATTERN | --accept-value CHECK=VALUE ...
 *                 [--receipt FILE] [--json]
 *
 * It loads the failed original (never writing to it), vets the accept
 * rules against the original's differences (continuation.h), reruns the
 * original's command line (recorded in the receipt's "invocation") with
 * this same executable, in the original's directory, with its receipt sent
 * to a private temporary file, refuses when the rerun's inputs are not the
 * original's, and writes a receipt of kind "continuation" holding the
 * original's SHA-256, the rules, what they accepted, what remains and the
 * fresh receipt whole. Like cli.h, it writes text (to stdout and stderr).
 */
#ifndef EV_CONTINUE_CLI_H
#define EV_CONTINUE_CLI_H

#include <stddef.h>

/* A subcommand whose failed receipts can be continued. */
struct ev_continuable {
	const char *subcommand;            /* "journal" */
	const char *receipt_option;        /* the option its receipt file goes to: "--receipt" */
	const char *const *drop;           /* more options (with a value) to leave out, NULL-ended */
	const char *const *append;         /* arguments added to the rerun, NULL-ended; the last
					      option given wins, so these override the original's */
};

/* Run "TOOL continue" (argv[0] is "continue"). @return the exit code:
 * 0 the fresh run holds with the accepted differences, 1 a difference
 * remains (named), 2 usage, refusal or I/O (nothing written). */
int ev_continue_main(const char *tool, const struct ev_continuable *subs, size_t nsubs, int argc,
		     char **argv);

#endif
