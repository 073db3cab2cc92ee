/* seal tool internals: one function per subcommand, and the messages they
 * share. Only files in seal/ include this. */
#ifndef SEAL_SEAL_H
#define SEAL_SEAL_H

#include <stdio.h>

#include "lib/finding.h"
#include "lib/status.h"

#define TOOL "seal"

int seal_create_main(int argc, char **argv);
int seal_verify_main(int argc, char **argv);
int seal_diff_main(int argc, char **argv);
int seal_select_main(int argc, char **argv);

/* "seal: <text>" on stderr. */
void msg_error(const struct ev_error *err);
/* A usage problem: reason, then the subcommand's synopsis and a --help hint. */
int msg_usage(const char *subcommand, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* One finding as a line: "seal: subject: message (expected X, found Y)". */
void msg_finding(FILE *stream, const char *prefix, const struct ev_finding *f);

/* Set by the signal handler; long loops check it. */
extern volatile int seal_interrupted;
void seal_catch_signals(void);

/* Parse a positive integer option; 0 on success. */
int parse_count(const char *text, long min, long max, long *out);

#endif
