/* SPDX-License-Identifier: Apache-2.0 */
/* replicate tool internals: one function per subcommand and the messages
 * they share. Only files in replicate/ include this. */
#ifndef REPLICATE_REPLICATE_H
#define REPLICATE_REPLICATE_H

#include "lib/cli/cli.h"
#include "lib/cli/command.h"
#include "lib/core/status.h"

#define TOOL "replicate"

int replicate_verify_main(int argc, char **argv);
int replicate_receive_main(int argc, char **argv);
int replicate_keep_head_main(int argc, char **argv);
int replicate_push_main(int argc, char **argv);
int replicate_audit_main(int argc, char **argv);
int replicate_compare_main(int argc, char **argv);
int replicate_keygen_main(int argc, char **argv);
int replicate_prune_main(int argc, char **argv);
int replicate_status_main(int argc, char **argv);
int replicate_index_main(int argc, char **argv);
int replicate_check_main(int argc, char **argv);
int replicate_attest_main(int argc, char **argv);
int replicate_log_main(int argc, char **argv);
int replicate_accept_main(int argc, char **argv);
int replicate_sign_policy_main(int argc, char **argv);

/* The tool's commands and options (commands.c): ev_cli_main runs it, every
 * command parses, helps and refuses through it. */
extern const struct ev_cli_tool replicate_tool;

int replicate_continue_main(int argc, char **argv);

#endif
