/* seal tool internals: one function per subcommand, and the messages they
 * share. Only files in seal/ include this. */
#ifndef SEAL_SEAL_H
#define SEAL_SEAL_H

#include <stdio.h>

#include "lib/cli/cli.h"
#include "lib/core/finding.h"
#include "lib/core/status.h"

#define TOOL "seal"

int seal_create_main(int argc, char **argv);
int seal_verify_main(int argc, char **argv);
int seal_diff_main(int argc, char **argv);
int seal_select_main(int argc, char **argv);
int seal_capsule_main(int argc, char **argv);
int seal_integrate_main(int argc, char **argv);

/* A usage problem: reason, then the subcommand's synopsis and a --help hint. */
int msg_usage(const char *subcommand, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
