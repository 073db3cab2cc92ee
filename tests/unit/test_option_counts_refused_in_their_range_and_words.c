/* SPDX-License-Identifier: Apache-2.0 */
/* A count option is held to the range its table gives, and refused in
 * words that follow from that range alone ("1-256", "-7 to 19", "512 or
 * more bytes", "a whole number of ticks"), so every command says the same
 * for the same range; its value is handed back parsed. A relation the
 * command line breaks is refused, once every option is read, in the
 * words of its kind. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "lib/cli/command.h"

enum { OPT_JOBS = 1000, OPT_TIMEOUT, OPT_SEED, OPT_PAGE, OPT_LEVEL, OPT_TICKS, OPT_SEAL, OPT_PIN, OPT_A, OPT_B, OPT_X, OPT_Y };

static const struct ev_cli_option options[] = {
	{"a", 0, NULL, OPT_A, "a", EV_CLI_TEXT, NULL},
	{"b", 0, NULL, OPT_B, "b", EV_CLI_TEXT, NULL},
	{"jobs", 0, "N", OPT_JOBS, "workers", EV_CLI_COUNT, "1..256"},
	{"level", 0, "N", OPT_LEVEL, "level", EV_CLI_COUNT, "-7..19"},
	{"page-size", 0, "BYTES", OPT_PAGE, "page", EV_CLI_COUNT, "512.. bytes"},
	{"seal", 0, "SEAL.json", OPT_SEAL, "seal", EV_CLI_TEXT, NULL},
	{"seal-sha256", 0, "HEX", OPT_PIN, "pin", EV_CLI_DIGEST, NULL},
	{"seed", 0, "S", OPT_SEED, "seed", EV_CLI_COUNT, "0.."},
	{"threshold", 0, "T", OPT_TICKS, "ticks", EV_CLI_COUNT, "0.. ticks"},
	{"timeout", 0, "S", OPT_TIMEOUT, "seconds", EV_CLI_COUNT, "1..86400 seconds"},
	{"x", 0, NULL, OPT_X, "x", EV_CLI_TEXT, NULL},
	{"y", 0, NULL, OPT_Y, "y", EV_CLI_TEXT, NULL},
	{NULL, 0, NULL, 0, NULL, EV_CLI_TEXT, NULL},
};

static const struct ev_cli_relation relations[] = {
	{EV_CLI_NEEDS, "seal-sha256", "seal"},
	{EV_CLI_TOGETHER, "a", "b"},
	{EV_CLI_EXCLUDES, "x", "y"},
	{EV_CLI_NEEDS, NULL, NULL},
};

static const struct ev_cli_command try_command = {
	.name = "try", .synopsis = "t try [options]", .summary = "s", .description = "d",
	.options = options, .relations = relations,
};
static const struct ev_cli_command *const commands[] = {&try_command, NULL};
static const struct ev_cli_tool tool = {.name = "t", .description = "d", .epilogue = "", .commands = commands};

/* Parse "try" and its words; *value the last count. @return what the
 * command line came to: "ok", or the first line said on stderr. */
static const char *parse(const char *line, long *value)
{
	static char said[512];
	char copy[256], *argv[16];
	int argc = 0;
	snprintf(copy, sizeof copy, "try %s", line);
	for (char *w = strtok(copy, " "); w && argc < 15; w = strtok(NULL, " "))
		argv[argc++] = w;
	argv[argc] = NULL;
	struct ev_cli_getopt g;
	ev_cli_getopt_init(&g, &tool, "try");
	optind = 0; /* getopt_long starts afresh */
	opterr = 0;
	FILE *err = tmpfile();
	int saved = dup(STDERR_FILENO);
	fflush(stderr);
	dup2(fileno(err), STDERR_FILENO);
	int key, refused = 0;
	while ((key = ev_cli_getopt_next(&g, argc, argv)) != -1)
		if (key == '?') {
			ev_cli_usage(&tool, "try", "%s", ev_cli_option_problem(argv));
			refused = 1;
			break;
		}
	if (!refused)
		refused = ev_cli_getopt_relations(&g) != 0;
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	*value = g.count;
	rewind(err);
	if (!refused || !fgets(said, sizeof said, err))
		snprintf(said, sizeof said, "ok");
	said[strcspn(said, "\n")] = '\0';
	fclose(err);
	return said;
}

int main(void)
{
	long v;
	CHECK_STR_EQ(parse("--jobs 256", &v), "ok");
	CHECK_INT_EQ(v, 256);
	CHECK_STR_EQ(parse("--jobs 0", &v), "t: option --jobs: expected 1-256, found '0'");
	CHECK_STR_EQ(parse("--jobs 257", &v), "t: option --jobs: expected 1-256, found '257'");
	CHECK_STR_EQ(parse("--jobs 2x", &v), "t: option --jobs: expected 1-256, found '2x'");
	CHECK_STR_EQ(parse("--level -7", &v), "ok");
	CHECK_INT_EQ(v, -7);
	CHECK_STR_EQ(parse("--level=-8", &v), "t: option --level: expected -7 to 19, found '-8'");
	CHECK_STR_EQ(parse("--timeout 86401", &v), "t: option --timeout: expected 1-86400 seconds, found '86401'");
	CHECK_STR_EQ(parse("--page-size 511", &v), "t: option --page-size: expected 512 or more bytes, found '511'");
	CHECK_STR_EQ(parse("--page-size 99999999999", &v), "ok");
	CHECK_INT_EQ(v, 99999999999L);
	CHECK_STR_EQ(parse("--seed -1", &v), "t: option --seed: expected a whole number, found '-1'");
	CHECK_STR_EQ(parse("--seed 99999999999999999999", &v),
		     "t: option --seed: expected a whole number, found '99999999999999999999'");
	CHECK_STR_EQ(parse("--threshold x", &v), "t: option --threshold: expected a whole number of ticks, found 'x'");

	CHECK_STR_EQ(parse("--seal-sha256 0000000000000000000000000000000000000000000000000000000000000000", &v),
		     "t: --seal-sha256 needs --seal; none given");
	CHECK_STR_EQ(parse("--seal S --seal-sha256 0000000000000000000000000000000000000000000000000000000000000000", &v),
		     "ok");
	CHECK_STR_EQ(parse("--seal S", &v), "ok");
	CHECK_STR_EQ(parse("--a", &v), "t: --a and --b go together");
	CHECK_STR_EQ(parse("--b", &v), "t: --a and --b go together");
	CHECK_STR_EQ(parse("--b --a", &v), "ok");
	CHECK_STR_EQ(parse("--x --y", &v), "t: --x and --y both given; choose one");
	CHECK_STR_EQ(parse("--y", &v), "ok");
	/* the first broken relation, in the table's order */
	CHECK_STR_EQ(parse("--x --y --a", &v), "t: --a and --b go together");
	return check_exit("test_option_counts_refused_in_their_range_and_words");
}
