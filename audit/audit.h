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

/* audit journal's options, by name: what ev_cli_getopt_next returns for each. */
enum audit_journal_option {
	AUDIT_JOURNAL_OPT_ARCHIVE = 'a',
	AUDIT_JOURNAL_OPT_CLOCK = 'C',
	AUDIT_JOURNAL_OPT_CLOCK_BOUND = 'B',
	AUDIT_JOURNAL_OPT_CLOCK_RECORD = 'r',
	AUDIT_JOURNAL_OPT_DICT = 'd',
	AUDIT_JOURNAL_OPT_FORMAT = 'f',
	AUDIT_JOURNAL_OPT_HGRM = 'H',
	AUDIT_JOURNAL_OPT_JOBS = 'J',
	AUDIT_JOURNAL_OPT_JSON = 'j',
	AUDIT_JOURNAL_OPT_JUDGE_EACH_COPY = 'E',
	AUDIT_JOURNAL_OPT_LATENCY = 'L',
	AUDIT_JOURNAL_OPT_MAX_FINDINGS = 'M',
	AUDIT_JOURNAL_OPT_MEASURED = 'm',
	AUDIT_JOURNAL_OPT_QUANTILE_RULE = 'q',
	AUDIT_JOURNAL_OPT_RECEIPT = 'o',
	AUDIT_JOURNAL_OPT_RECEIVER = 'R',
	AUDIT_JOURNAL_OPT_RECEIVER_FORMAT = 'G',
	AUDIT_JOURNAL_OPT_SEAL = 'S',
	AUDIT_JOURNAL_OPT_SEAL_SHA256 = 'P',
	AUDIT_JOURNAL_OPT_SENDER = 's',
	AUDIT_JOURNAL_OPT_SENDER_COMPID = 'c',
	AUDIT_JOURNAL_OPT_SENDER_FORMAT = 'F',
	AUDIT_JOURNAL_OPT_SIGN_KEY = 'K',
	AUDIT_JOURNAL_OPT_SPEC = 'p',
	AUDIT_JOURNAL_OPT_TRUST = 't',
	AUDIT_JOURNAL_OPT_WARMUPS = 'w',
};

/* audit series's options, by name: what ev_cli_getopt_next returns for each. */
enum audit_series_option {
	AUDIT_SERIES_OPT_ARCHIVE = 'a',
	AUDIT_SERIES_OPT_DELAY = 'd',
	AUDIT_SERIES_OPT_JOURNAL = 'J',
	AUDIT_SERIES_OPT_JSON = 'j',
	AUDIT_SERIES_OPT_NATIVE = 'n',
	AUDIT_SERIES_OPT_PAGE_SIZE = 'P',
	AUDIT_SERIES_OPT_QUANTILE = 'q',
	AUDIT_SERIES_OPT_RATE = 'r',
	AUDIT_SERIES_OPT_RECEIPT = 'o',
	AUDIT_SERIES_OPT_RULE = 'R',
	AUDIT_SERIES_OPT_SEAL = 'S',
	AUDIT_SERIES_OPT_SEAL_SHA256 = 'H',
	AUDIT_SERIES_OPT_SIGN_KEY = 'K',
	AUDIT_SERIES_OPT_SOCKPERF_CLOCK = 'C',
	AUDIT_SERIES_OPT_THRESHOLD = 'T',
	AUDIT_SERIES_OPT_WARMUPS = 'w',
};

/* audit profile's options, by name: what ev_cli_getopt_next returns for each. */
enum audit_profile_option {
	AUDIT_PROFILE_OPT_JSON = 'j',
	AUDIT_PROFILE_OPT_PERF = 'p',
	AUDIT_PROFILE_OPT_RECEIPT = 'o',
	AUDIT_PROFILE_OPT_RUN = 'r',
	AUDIT_PROFILE_OPT_SEAL = 'S',
	AUDIT_PROFILE_OPT_SEAL_SHA256 = 'P',
	AUDIT_PROFILE_OPT_SIGN_KEY = 'K',
};

/* audit campaign's options, by name: what ev_cli_getopt_next returns for each. */
enum audit_campaign_option {
	AUDIT_CAMPAIGN_OPT_JSON = 'j',
	AUDIT_CAMPAIGN_OPT_LOG = 'L',
	AUDIT_CAMPAIGN_OPT_LOG_HEAD = 'H',
	AUDIT_CAMPAIGN_OPT_ONLOAD_PROFILES = 'O',
	AUDIT_CAMPAIGN_OPT_OUTPUT = 'o',
	AUDIT_CAMPAIGN_OPT_PERF = 'p',
	AUDIT_CAMPAIGN_OPT_PRINT_RECEIPT = 'R',
	AUDIT_CAMPAIGN_OPT_PUBLISH = 'u',
	AUDIT_CAMPAIGN_OPT_SEAL = 'S',
	AUDIT_CAMPAIGN_OPT_SEAL_SHA256 = 'P',
	AUDIT_CAMPAIGN_OPT_SIGN_KEY = 'K',
	AUDIT_CAMPAIGN_OPT_STOP_WHEN_STDIN_CLOSES = 'w',
	AUDIT_CAMPAIGN_OPT_TRUST = 't',
	AUDIT_CAMPAIGN_OPT_TSA_CA = 'C',
};

/* audit compare's options, by name: what ev_cli_getopt_next returns for each. */
enum audit_compare_option {
	AUDIT_COMPARE_OPT_ARCHIVE = 'A',
	AUDIT_COMPARE_OPT_ARM = 'a',
	AUDIT_COMPARE_OPT_CELL = 'c',
	AUDIT_COMPARE_OPT_JSON = 'j',
	AUDIT_COMPARE_OPT_MIXED_GRADES = 'M',
	AUDIT_COMPARE_OPT_OUTPUT = 'o',
	AUDIT_COMPARE_OPT_REFERENCE = 'F',
	AUDIT_COMPARE_OPT_REFERENCE_SHA256 = 'H',
	AUDIT_COMPARE_OPT_RESAMPLES = 'R',
	AUDIT_COMPARE_OPT_SEAL = 'S',
	AUDIT_COMPARE_OPT_SEAL_SHA256 = 'P',
	AUDIT_COMPARE_OPT_SEED = 's',
	AUDIT_COMPARE_OPT_SIGN_KEY = 'K',
	AUDIT_COMPARE_OPT_UNREGISTERED = 'U',
};

/* audit history's options, by name: what ev_cli_getopt_next returns for each. */
enum audit_history_option {
	AUDIT_HISTORY_OPT_ALPHA = 'a',
	AUDIT_HISTORY_OPT_CATALOG = 'c',
	AUDIT_HISTORY_OPT_GATE = 'g',
	AUDIT_HISTORY_OPT_HTML = 'H',
	AUDIT_HISTORY_OPT_JSON = 'j',
	AUDIT_HISTORY_OPT_MATCH = 'm',
	AUDIT_HISTORY_OPT_MIN_SEGMENT = 'M',
	AUDIT_HISTORY_OPT_PERMUTATIONS = 'R',
	AUDIT_HISTORY_OPT_PLAN = 'p',
	AUDIT_HISTORY_OPT_PLAN_SHA256 = 'P',
	AUDIT_HISTORY_OPT_SEED = 's',
	AUDIT_HISTORY_OPT_STATISTIC = 'S',
	AUDIT_HISTORY_OPT_TRUST = 't',
};

#endif
