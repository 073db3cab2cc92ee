/* SPDX-License-Identifier: Apache-2.0 */
/* audit tool internals: one function per command and the messages they
 * share. Only files in audit/ include this. */
#ifndef AUDIT_AUDIT_H
#define AUDIT_AUDIT_H

#include "lib/cli/cli.h"
#include "lib/cli/command.h"
#include "lib/core/status.h"

#define TOOL "audit"

int audit_journal_main(int argc, char **argv);
int audit_series_main(int argc, char **argv);
int audit_campaign_main(int argc, char **argv);
int audit_compare_main(int argc, char **argv);
int audit_profile_main(int argc, char **argv);
int audit_history_main(int argc, char **argv);

/* The tool's commands and options (commands.c): ev_cli_main runs it, every
 * command parses, helps and refuses through it. */
extern const struct ev_cli_tool audit_tool;

int audit_continue_main(int argc, char **argv);

struct ev_audit_journal;

/* journal.c: an audited journal's findings on stderr, as audit journal
 * shows them (audit campaign shows its runs' the same way). */
void audit_journal_print_findings(const struct ev_audit_journal *run);

#endif
