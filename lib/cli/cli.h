/* SPDX-License-Identifier: Apache-2.0 */
/* cli: the process chores and stderr text that every tool's main shares.
 *
 * Tools call these from main and from their subcommands; the library
 * proper never does (it returns statuses and findings). This is, with
 * progress.h, the one part of libevidence that writes text, and it writes
 * only to the stream a tool passes in.
 *
 * Global state: ev_cli_interrupted, set by the signal handler that
 * ev_cli_catch_signals installs, read by long loops. It is process-wide
 * because signals are. And how the process was run (ev_cli_invocation),
 * set once by ev_cli_main, for the receipts a command writes.
 */
#ifndef EV_CLI_H
#define EV_CLI_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "lib/core/finding.h"
#include "lib/core/status.h"

/* Make sure fds 0-2 are open (so that no output file can land on them),
 * ignore SIGPIPE (a closed pipe is an I/O error to report, not a death),
 * and read member names as UTF-8 whatever the user's locale. Exits 2 only
 * when /dev/null cannot be opened. */
void ev_cli_init(void);

/* The signal (SIGINT, SIGTERM or SIGHUP) that asked us to stop, else 0. */
extern volatile sig_atomic_t ev_cli_interrupted;

/* The argv ev_cli_main was given, for ev_receipt_new (NULL before it ran). */
struct ev_invocation;
const struct ev_invocation *ev_cli_invocation(void);
void ev_cli_set_invocation(int argc, char *const *argv);

/* Catch SIGINT, SIGTERM and SIGHUP into ev_cli_interrupted. SIGINT and
 * SIGHUP inherited as ignored (nohup, a background job of a script) stay
 * ignored; SIGTERM is caught always. SIGQUIT is left as it came. */
void ev_cli_catch_signals(void);

/* For a command another one runs over a pipe or ssh (replicate push's
 * verifiers): once stdin reaches its end or breaks, the command stops as
 * on SIGHUP, even when SIGHUP was inherited as ignored. A thread reads
 * stdin and discards what it reads. Call after ev_cli_catch_signals. @return 0, or -1 when the thread cannot start. */
int ev_cli_stop_when_stdin_closes(void);

struct ev_signing_key;

/* --sign-key KEY, loaded while the options are read, before any work: a
 * key that cannot be used (not a regular file, readable by others, not
 * Ed25519) stops the command at once. @return 0 with *key set (NULL for
 * a NULL path), or 2 after "TOOL: why" on stderr. */
int ev_cli_sign_key(const char *tool, const char *path, struct ev_signing_key **key);

struct ev_trust;

/* --trust FILE: FILE's public keys added to *trust, made on first use.
 * @return 0, or 2 after "TOOL: why" on stderr (*trust then freed and
 * NULL). */
int ev_cli_trust_add(const char *tool, struct ev_trust **trust, const char *path);

/* "TOOL: <err->text>" on stderr. */
void ev_cli_error(const char *tool, const struct ev_error *err);

/* A command's end: "TOOL: <err->text>" on stderr when there is something
 * to say there (a failure, EV_ERROR and above; or a finding that has no
 * other place, EV_MISMATCH with err set: a damaged catalog), then st's
 * exit status. */
int ev_cli_exit(const char *tool, ev_status st, const struct ev_error *err);

/* One finding as one line: "<prefix>subject: message (expected X, found Y)". */
void ev_cli_finding(FILE *stream, const char *prefix, const struct ev_finding *f);

/* A command's findings, reported the one way every command that writes a
 * receipt reports them: each printed (unless quiet) and kept in the
 * receipt, up to max_per_check of each check (0: no limit), and every one
 * counted, so that a hostile input with a million extra members costs a
 * bounded receipt, a bounded stderr and bounded memory while the counts
 * stay exact. */
struct ev_cli_findings {
	FILE *stream;
	const char *prefix;       /* "seal: " */
	int quiet;                /* --json: nothing printed */
	json_t *receipt;          /* borrowed; NULL: none kept */
	uint64_t max_per_check;
	uint64_t total;
	json_t *by_check;         /* check -> count */
};

#define EV_CLI_DEFAULT_MAX_FINDINGS 100

void ev_cli_findings_init(struct ev_cli_findings *s, FILE *stream, const char *prefix, int quiet,
			  json_t *receipt, uint64_t max_per_check);

/* Count f; print shown and keep recorded (each may be f: the receipt may
 * name things by role where the line names them by path) while f's check
 * is under the limit; a finding already in_receipt is not kept twice. */
void ev_cli_findings_add(struct ev_cli_findings *s, const struct ev_finding *shown,
			 const struct ev_finding *recorded);

/* For each check past the limit, print "<prefix>CHECK: N more not shown
 * (--max-findings)" and add the failed check "CHECK:more" saying so; set
 * the facts findings_by_check (every count) and max_findings_per_check. */
ev_status ev_cli_findings_finish(struct ev_cli_findings *s, struct ev_error *err);

void ev_cli_findings_free(struct ev_cli_findings *s);

/* The receipt-writing tail of a verification, written once: the findings
 * closed (ev_cli_findings_finish), the receipt finished and signed with
 * key (NULL: unsigned), written as chosen (FILE, or DIR/STEM-*.json,
 * ev_receipt_write_chosen; its path into path, cap bytes); with json,
 * printed on stdout, and with say_path its path said on stderr first
 * ("TOOL: receipt written: PATH", for a caller that reads the receipt on
 * stdout and must learn its name). @return EV_OK or the first error. */
ev_status ev_cli_receipt_emit(struct ev_cli_findings *shown, json_t *receipt, const struct ev_signing_key *key,
			      const char *chosen, const char *dir, const char *stem, int json, const char *say_path,
			      char *path, size_t cap, struct ev_error *err);

/* ev_json_dump's bytes written to stream: a tool's --json output (the
 * library below cli never prints). */
ev_status ev_json_print(const json_t *value, FILE *stream, struct ev_error *err);

#endif
