/* SPDX-License-Identifier: Apache-2.0 */
/* command: a tool's commands and their options, in one table per tool.
 *
 * Each tool describes itself once (TOOL/commands.c): for every command
 * its name, synopsis, one-line summary, description, a table of typed
 * options sorted by name, and notes. From that one table come the
 * overview (TOOL --help), each command's --help, the synopsis every usage
 * error shows, the getopt tables the command parses with, the check of
 * each typed value (a digest, a word of a list, a count in its range) as it
 * is parsed, and of which options need, go with or exclude which once all
 * are; the man pages' SYNOPSIS sections and each command's option items
 * are tested against the same tables
 * (tests/cli/t-help-synopses-agree-with-the-man-pages.sh,
 * t-man-page-documents-every-option.sh). Like cli.h, it
 * writes text, to stdout (help) and stderr (usage errors). No global
 * state beyond getopt's own, and why the last typed value was refused,
 * read as getopt's optopt is.
 */
#ifndef EV_COMMAND_H
#define EV_COMMAND_H

#include <getopt.h>
#include <stddef.h>

/* What an option's value must be, checked once as it is parsed
 * (ev_cli_getopt_next) with the same words in every command. */
enum ev_cli_kind {
	EV_CLI_TEXT = 0,  /* anything; the command judges it */
	EV_CLI_DIGEST,    /* a SHA-256: 64 lower-case hex digits */
	EV_CLI_WORDS,     /* one of words (space-separated), which completion offers */
	EV_CLI_COUNT,     /* a decimal whole number in the range words gives: "MIN..MAX",
	                   * or "MIN.." (no upper bound), then a unit if any
	                   * ("1..86400 seconds"); refused as "expected 1-86400
	                   * seconds", "expected 512 or more bytes", "expected a
	                   * whole number" (0..), and parsed into ev_cli_getopt's count */
	EV_CLI_DURATION,  /* a duration (lib/core/duration: "7d", "36h"), parsed into
	                   * ev_cli_getopt's count, in seconds */
};

/* One option. key is what getopt_long returns for it (the letter, when
 * the option has one); value names its argument (NULL: a flag). help is
 * one or more lines ('\n' between them); NULL hides the option from help
 * (an older name that another option's help mentions). kind and words say
 * what its value must be. -h/--help is added to every command. */
struct ev_cli_option {
	const char *name;
	char letter;
	const char *value;
	int key;
	const char *help;
	enum ev_cli_kind kind;
	const char *words;       /* EV_CLI_WORDS: "high normal"; EV_CLI_COUNT: "1..256" */
};

/* Options that may not stand as given, checked once the command line is
 * read (ev_cli_getopt_relations), in the same words in every command. */
enum ev_cli_relation_kind {
	EV_CLI_NEEDS,     /* a given without b: "--seal-sha256 needs --seal; none given" */
	EV_CLI_TOGETHER,  /* one without the other: "--archive and --seal go together" */
	EV_CLI_EXCLUDES,  /* both: "--receipt and --receipt-dir both given; choose one" */
};

struct ev_cli_relation {
	enum ev_cli_relation_kind kind;
	const char *a, *b;       /* option names, without "--" */
};

/* What ev_cli_getopt_next returns for -h and --help, in every command. */
#define EV_CLI_HELP 'h'

#define EV_CLI_MAX_OPTIONS 32

/* Options that mean the same in every command that takes them, spelled
 * once (doc/design.md, "Commands, options and help"). */
#define EV_CLI_OPTION_SEAL_SHA256(key) \
	{"seal-sha256", 0, "HEX", key, "refuse a SEAL.json whose bytes hash differently", EV_CLI_DIGEST, NULL}
#define EV_CLI_OPTION_SIGN_KEY(key) \
	{"sign-key", 0, "KEY", key, "sign the receipt with this Ed25519 key (replicate keygen)", EV_CLI_TEXT, NULL}
#define EV_CLI_OPTION_JSON(key) {"json", 0, NULL, key, "print the receipt as JSON on stdout", EV_CLI_TEXT, NULL}
#define EV_CLI_OPTION_MAX_FINDINGS(key) \
	{"max-findings", 0, "N", key, \
	 "findings shown and kept in the receipt per check\n" \
	 "(default 100; 0: all); every one is counted", EV_CLI_COUNT, "0..1000000"}

struct ev_cli_command {
	const char *name;
	int (*run)(int argc, char **argv);   /* argv[0] is the command's name */
	const char *synopsis;    /* "seal create [--gzip] ... DIR -o OUTDIR"; alternatives on lines of their own */
	const char *summary;     /* its line in the overview */
	const char *description; /* paragraphs after the synopsis */
	const struct ev_cli_option *options; /* sorted by name, ended by an entry without a name */
	const char *notes;       /* paragraphs after the options (exit status...), or NULL */
	const struct ev_cli_relation *relations; /* ended by an entry without a, or NULL */
};

struct ev_cli_tool {
	const char *name;
	const char *description; /* the overview's paragraphs */
	const char *epilogue;    /* after the command list */
	const struct ev_cli_command *const *commands; /* NULL-ended, in the overview's order */
	int shared_pool;         /* takes --pool shared before its command (lib/cli/pool.h) */
};

/* Print the tool's overview on stdout: its synopsis, its commands and
 * their summaries, the epilogue (TOOL --help). */
void ev_cli_print_overview(const struct ev_cli_tool *tool);

/* The command called name, or NULL. */
const struct ev_cli_command *ev_cli_command_named(const struct ev_cli_tool *tool, const char *name);

/* Print command's help on stdout: usage, description, options, notes.
 * @return 0, the exit code of --help. */
int ev_cli_help(const struct ev_cli_tool *tool, const char *command);

/* A usage problem: "TOOL: reason", then "usage: SYNOPSIS" (command's, or
 * the tool's when command is NULL) and a hint to run "TOOL [COMMAND]
 * --help", on stderr. @return 2, the exit code for misuse. */
int ev_cli_usage(const struct ev_cli_tool *tool, const char *command, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The same from a bare synopsis, for a command whose table is assembled
 * at run time (continue_cli). */
int ev_cli_usage_synopsis(const char *tool, const char *command, const char *synopsis, const char *reason);

/* getopt_long's tables for command: its options and -h/--help; which of
 * them the command line gave, and the last count's value. */
struct ev_cli_getopt {
	struct option longopts[EV_CLI_MAX_OPTIONS + 2];
	char shortopts[3 * EV_CLI_MAX_OPTIONS + 2];
	const struct ev_cli_option *options;
	const struct ev_cli_tool *tool;
	const char *command;
	const struct ev_cli_relation *relations;
	unsigned char given[EV_CLI_MAX_OPTIONS]; /* by the option's place in options */
	long count;              /* the EV_CLI_COUNT option ev_cli_getopt_next just returned
	                          * (EV_CLI_DURATION: its seconds) */
};

/* Fill g from the command's table (at most EV_CLI_MAX_OPTIONS options). */
void ev_cli_getopt_init(struct ev_cli_getopt *g, const struct ev_cli_tool *tool, const char *command);

/* The next option, as getopt_long returns it, its value checked by its
 * kind: a value that is not of its kind is refused as getopt_long
 * refuses an unknown option ('?', ev_cli_option_problem says why:
 * "option --seal-sha256: expected 64 lower-case hex digits"). */
int ev_cli_getopt_next(struct ev_cli_getopt *g, int argc, char **argv);

/* Once every option is read: whether the command line holds to the
 * command's relations. @return 0 when it does; else the first it breaks
 * is said as ev_cli_usage says a problem, in the words enum
 * ev_cli_relation_kind shows, and its exit code (2) returned. */
int ev_cli_getopt_relations(const struct ev_cli_getopt *g);

/* What was wrong with the option ev_cli_getopt_next just refused (it
 * returned '?'): "unknown option '--bogus'", "option '--seal' needs a
 * value", or the value's kind not met.
 * Tools run with opterr 0 (ev_cli_main), so this is the one message. The
 * text lives until the next call. */
const char *ev_cli_option_problem(char *const argv[]);

#endif
