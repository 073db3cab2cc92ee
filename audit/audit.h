/* audit tool internals: one function per command and the messages they
 * share. Only files in audit/ include this. */
#ifndef AUDIT_AUDIT_H
#define AUDIT_AUDIT_H

#include "lib/cli/cli.h"
#include "lib/core/status.h"

#define TOOL "audit"

int audit_journal_main(int argc, char **argv);
int audit_series_main(int argc, char **argv);
int audit_campaign_main(int argc, char **argv);

/* A usage problem: reason, then the command's synopsis and a --help hint. */
int msg_usage(const char *subcommand, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
