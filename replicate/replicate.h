/* replicate tool internals: one function per subcommand and the messages
 * they share. Only files in replicate/ include this. */
#ifndef REPLICATE_REPLICATE_H
#define REPLICATE_REPLICATE_H

#include "lib/cli/cli.h"
#include "lib/core/status.h"

#define TOOL "replicate"

int replicate_verify_main(int argc, char **argv);
int replicate_receive_main(int argc, char **argv);
int replicate_push_main(int argc, char **argv);
int replicate_compare_main(int argc, char **argv);
int replicate_keygen_main(int argc, char **argv);
int replicate_prune_main(int argc, char **argv);

/* text as it may appear in a file name: letters, digits, '-' and '.' kept,
 * anything else '_'; "unknown" for NULL. */
void file_label(const char *text, char *out, size_t cap);

/* A usage problem: reason, then the subcommand's synopsis and a --help hint. */
int msg_usage(const char *subcommand, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
