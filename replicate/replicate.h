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

/* replicate verify's options, by name: what ev_cli_getopt_next returns for each. */
enum replicate_verify_option {
	REPLICATE_VERIFY_OPT_ARCHIVE_SHA256 = 'a',
	REPLICATE_VERIFY_OPT_JSON = 'j',
	REPLICATE_VERIFY_OPT_MAX_FINDINGS = 'M',
	REPLICATE_VERIFY_OPT_RECEIPT = 'r',
	REPLICATE_VERIFY_OPT_RECEIPT_DIR = 'd',
	REPLICATE_VERIFY_OPT_SEAL = 's',
	REPLICATE_VERIFY_OPT_SEAL_SHA256 = 'p',
	REPLICATE_VERIFY_OPT_SIGN_KEY = 'k',
	REPLICATE_VERIFY_OPT_STOP_WHEN_STDIN_CLOSES = 'w',
};

/* replicate push's options, by name: what ev_cli_getopt_next returns for each. */
enum replicate_push_option {
	REPLICATE_PUSH_OPT_JSON = 'j',
	REPLICATE_PUSH_OPT_LOG = 'L',
	REPLICATE_PUSH_OPT_RECEIPTS = 'D',
	REPLICATE_PUSH_OPT_RECEIPT_DIR = 'r',
	REPLICATE_PUSH_OPT_REMOTE_REPLICATE = 'R',
	REPLICATE_PUSH_OPT_REMOTE_SIGN_KEY = 'K',
	REPLICATE_PUSH_OPT_SEAL = 's',
	REPLICATE_PUSH_OPT_SEAL_SHA256 = 'p',
	REPLICATE_PUSH_OPT_SIGN_KEY = 'k',
	REPLICATE_PUSH_OPT_TIMEOUT = 't',
	REPLICATE_PUSH_OPT_TO = 'T',
	REPLICATE_PUSH_OPT_TRUST = 'u',
};

/* replicate audit's options, by name: what ev_cli_getopt_next returns for each. */
enum replicate_audit_option {
	REPLICATE_AUDIT_OPT_ARCHIVE_NAME = 'A',
	REPLICATE_AUDIT_OPT_JSON = 'j',
	REPLICATE_AUDIT_OPT_RECEIPT_DIR = 'r',
	REPLICATE_AUDIT_OPT_REMOTE_AUDIT = 'R',
	REPLICATE_AUDIT_OPT_REMOTE_SIGN_KEY = 'K',
	REPLICATE_AUDIT_OPT_SEAL = 's',
	REPLICATE_AUDIT_OPT_SEAL_SHA256 = 'p',
	REPLICATE_AUDIT_OPT_TIMEOUT = 't',
	REPLICATE_AUDIT_OPT_TRUST = 'u',
};

/* replicate compare's options, by name: what ev_cli_getopt_next returns for each. */
enum replicate_compare_option {
	REPLICATE_COMPARE_OPT_JSON = 'j',
	REPLICATE_COMPARE_OPT_TRUST = 't',
};

/* replicate check's options, by name: what ev_cli_getopt_next returns for each. */
enum replicate_check_option {
	REPLICATE_CHECK_OPT_JSON = 'j',
	REPLICATE_CHECK_OPT_TRUST = 't',
	REPLICATE_CHECK_OPT_TSA_CA = 'C',
};

/* replicate attest's options, by name: what ev_cli_getopt_next returns for each. */
enum replicate_attest_option {
	REPLICATE_ATTEST_OPT_OUTPUT = 'o',
	REPLICATE_ATTEST_OPT_SIGN_KEY = 'K',
};

/* replicate accept's options, by name: what ev_cli_getopt_next returns for each. */
enum replicate_accept_option {
	REPLICATE_ACCEPT_OPT_BUNDLE = 'B',
	REPLICATE_ACCEPT_OPT_JSON = 'j',
	REPLICATE_ACCEPT_OPT_POLICY = 'P',
	REPLICATE_ACCEPT_OPT_SEAL = 'S',
	REPLICATE_ACCEPT_OPT_SIGN_KEY = 'K',
	REPLICATE_ACCEPT_OPT_TRUST = 't',
};

/* replicate sign-policy's options, by name: what ev_cli_getopt_next returns for each. */
enum replicate_sign_policy_option {
	REPLICATE_SIGN_POLICY_OPT_KEY = 'k',
	REPLICATE_SIGN_POLICY_OPT_OUTPUT = 'o',
	REPLICATE_SIGN_POLICY_OPT_SIGN_KEY = 'K',
};

/* replicate log's options, by name: what ev_cli_getopt_next returns for each. */
enum replicate_log_option {
	REPLICATE_LOG_OPT_JSON = 'j',
	REPLICATE_LOG_OPT_LOG = 'L',
	REPLICATE_LOG_OPT_ORIGIN = 'o',
	REPLICATE_LOG_OPT_SIGN_KEY = 'K',
	REPLICATE_LOG_OPT_TRUST = 't',
	REPLICATE_LOG_OPT_WITNESS = 'w',
};

/* replicate status's options, by name: what ev_cli_getopt_next returns for each. */
enum replicate_status_option {
	REPLICATE_STATUS_OPT_CATALOG = 'c',
	REPLICATE_STATUS_OPT_JSON = 'j',
	REPLICATE_STATUS_OPT_MAX_AGE = 'a',
	REPLICATE_STATUS_OPT_MIN_HOSTS = 'm',
	REPLICATE_STATUS_OPT_RECHECK = 'r',
	REPLICATE_STATUS_OPT_SEAL = 's',
	REPLICATE_STATUS_OPT_TRUST = 't',
	REPLICATE_STATUS_OPT_TSA_CA = 'C',
};

/* replicate index's options, by name: what ev_cli_getopt_next returns for each. */
enum replicate_index_option {
	REPLICATE_INDEX_OPT_CATALOG = 'c',
	REPLICATE_INDEX_OPT_CHECK = 'k',
	REPLICATE_INDEX_OPT_JSON = 'j',
};

/* replicate keygen's options, by name: what ev_cli_getopt_next returns for each. */
enum replicate_keygen_option {
	REPLICATE_KEYGEN_OPT_OUTPUT = 'o',
};

/* replicate prune's options, by name: what ev_cli_getopt_next returns for each. */
enum replicate_prune_option {
	REPLICATE_PRUNE_OPT_JSON = 'j',
	REPLICATE_PRUNE_OPT_MAX_AGE = 'a',
	REPLICATE_PRUNE_OPT_MIN_HOSTS = 'm',
	REPLICATE_PRUNE_OPT_RECEIPT = 'o',
	REPLICATE_PRUNE_OPT_RECEIPTS = 'r',
	REPLICATE_PRUNE_OPT_REQUIRE_AUDIT = 'A',
	REPLICATE_PRUNE_OPT_REQUIRE_TIMESTAMP = 'Z',
	REPLICATE_PRUNE_OPT_SEAL = 's',
	REPLICATE_PRUNE_OPT_SEAL_SHA256 = 'p',
	REPLICATE_PRUNE_OPT_SELECTION = 'S',
	REPLICATE_PRUNE_OPT_SIGN_KEY = 'K',
	REPLICATE_PRUNE_OPT_TRUST = 't',
};

/* replicate keep-head's options, by name: what ev_cli_getopt_next returns for each. */
enum replicate_keep_head_option {
	REPLICATE_KEEP_HEAD_OPT_NAME = 'n',
	REPLICATE_KEEP_HEAD_OPT_SIGN_KEY = 'K',
	REPLICATE_KEEP_HEAD_OPT_TRUST = 't',
};

#endif
