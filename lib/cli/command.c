/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/cli/command.h"
#include "lib/core/duration.h"
#include "lib/core/sha256.h"
#include "lib/core/text.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/cli.h"

/* The widest an option's label may be before its help starts on the same
 * line after two spaces instead of in the column. */
#define LABEL_MAX 28

const struct ev_cli_command *ev_cli_command_named(const struct ev_cli_tool *tool, const char *name)
{
	for (const struct ev_cli_command *const *c = tool->commands; name && *c; c++)
		if (strcmp((*c)->name, name) == 0)
			return *c;
	return NULL;
}

/* "  -o, --output OUTDIR", or "      --gzip" under options with letters
 * and "  --gzip" where only -h has one. */
static void option_label(const struct ev_cli_option *o, int lettered, char *out, size_t cap)
{
	if (o->letter)
		snprintf(out, cap, "  -%c, --%s%s%s", o->letter, o->name, o->value ? " " : "", o->value ? o->value : "");
	else
		snprintf(out, cap, "%s--%s%s%s", lettered ? "      " : "  ", o->name, o->value ? " " : "",
			 o->value ? o->value : "");
}

/* Lines of text, each after indent spaces but the first. */
static void print_indented(const char *text, int indent)
{
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		if (p != text)
			printf("%*s", indent, "");
		printf("%.*s\n", (int)n, p);
		p += n + (nl != NULL);
	}
}

static void print_synopsis(FILE *stream, const char *synopsis)
{
	fputs("usage: ", stream);
	for (const char *p = synopsis; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		fprintf(stream, "%s%.*s\n", p == synopsis ? "" : "       ", (int)n, p);
		p += n + (nl != NULL);
	}
}

static void tool_synopsis(const struct ev_cli_tool *tool, char *out, size_t cap)
{
	size_t n = (size_t)snprintf(out, cap, "%s <command> [options]   (commands:", tool->name);
	for (const struct ev_cli_command *const *c = tool->commands; *c && n < cap; c++)
		n += (size_t)snprintf(out + n, cap - n, "%s %s", c == tool->commands ? "" : ",", (*c)->name);
	if (n < cap)
		snprintf(out + n, cap - n, ")");
}

void ev_cli_print_overview(const struct ev_cli_tool *tool)
{
	printf("usage: %s <command> [options]\n\n%s\ncommands:\n", tool->name, tool->description);
	for (const struct ev_cli_command *const *c = tool->commands; *c; c++) {
		printf("  %-10s ", (*c)->name);
		print_indented((*c)->summary, 13);
	}
	printf("\n'%s help <command>' describes each one; 'man %s' has the details.\n%s", tool->name, tool->name,
	       tool->epilogue);
	if (tool->shared_pool)
		printf("\n%s --pool shared [--priority high|normal] <command> ... (or EVIDENCE_POOL=shared)\n"
		       "runs the command on the host's shared CPUs once a shared lease on them is held,\n"
		       "waiting while a capture holds any of them (capture leases lists holders).\n", tool->name);
}

/* A relation as --help states it ("--seal-sha256 needs --seal"), or as a
 * command line that breaks it is refused ("...; none given"). */
static void relation_text(const struct ev_cli_relation *r, int broken, char *out, size_t cap)
{
	switch (r->kind) {
	case EV_CLI_NEEDS:
		snprintf(out, cap, "--%s needs --%s%s", r->a, r->b, broken ? "; none given" : "");
		break;
	case EV_CLI_TOGETHER:
		snprintf(out, cap, "--%s and --%s go together", r->a, r->b);
		break;
	case EV_CLI_EXCLUDES:
		snprintf(out, cap, "--%s and --%s %s", r->a, r->b, broken ? "both given; choose one" : "exclude each other");
		break;
	}
}

int ev_cli_help(const struct ev_cli_tool *tool, const char *command)
{
	const struct ev_cli_command *c = ev_cli_command_named(tool, command);
	if (!c)
		return ev_cli_usage(tool, NULL, "unknown command '%s'", command ? command : "");
	static const struct ev_cli_option help = {"help", 'h', NULL, 'h', "show this help", EV_CLI_TEXT, NULL};
	print_synopsis(stdout, c->synopsis);
	printf("\n%s\n", c->description);
	int column = 0, lettered = 0;
	char label[128];
	for (const struct ev_cli_option *o = c->options; o && o->name; o++)
		lettered |= o->letter != 0;
	for (const struct ev_cli_option *o = c->options; o && o->name; o++) {
		option_label(o, lettered, label, sizeof label);
		int n = (int)strlen(label) + 2;
		if (o->help && n > column && n <= LABEL_MAX)
			column = n;
	}
	if (column < 24)
		column = 24;
	for (const struct ev_cli_option *o = c->options;; o++) {
		const struct ev_cli_option *shown = o && o->name ? o : &help;
		if (shown->help) {
			option_label(shown, lettered, label, sizeof label);
			if ((int)strlen(label) + 2 > column)
				printf("%s  ", label);
			else
				printf("%-*s", column, label);
			print_indented(shown->help, column);
		}
		if (shown == &help)
			break;
	}
	for (const struct ev_cli_relation *r = c->relations; r && r->a; r++) {
		relation_text(r, 0, label, sizeof label);
		printf("%s  %s\n", r == c->relations ? "\n" : "", label);
	}
	if (c->notes)
		printf("\n%s", c->notes);
	return 0;
}

int ev_cli_usage_synopsis(const char *tool, const char *command, const char *synopsis, const char *reason)
{
	fprintf(stderr, "%s: %s\n", tool, reason);
	print_synopsis(stderr, synopsis);
	fprintf(stderr, "Try '%s %s%s--help' for more.\n", tool, command ? command : "", command ? " " : "");
	return 2;
}

int ev_cli_usage(const struct ev_cli_tool *tool, const char *command, const char *fmt, ...)
{
	char reason[512], overview[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(reason, sizeof reason, fmt, ap);
	va_end(ap);
	const struct ev_cli_command *c = ev_cli_command_named(tool, command);
	if (!c)
		tool_synopsis(tool, overview, sizeof overview);
	return ev_cli_usage_synopsis(tool->name, c ? c->name : NULL, c ? c->synopsis : overview, reason);
}

/* A decimal whole number in [min, max]. @return 0, or -1 when text is not
 * such a number. */
static int parse_long(const char *text, long min, long max, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(text, &end, 10);
	if (errno || end == text || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/* A count's range from its words: "MIN..MAX UNIT", "MIN.." without an
 * upper bound (max LONG_MAX), the unit optional (*unit "" then).
 * @return 0, or -1 when words is not such a range. */
static int count_range(const char *words, long *min, long *max, const char **unit)
{
	char *end;
	if (!words)
		return -1;
	errno = 0;
	*min = strtol(words, &end, 10);
	if (errno || end == words || strncmp(end, "..", 2) != 0)
		return -1;
	const char *hi = end + 2;
	*max = LONG_MAX;
	if (*hi && *hi != ' ') {
		*max = strtol(hi, &end, 10);
		if (errno || end == hi || (*end && *end != ' ') || *max < *min)
			return -1;
		hi = end;
	}
	*unit = *hi == ' ' ? hi + 1 : hi;
	return 0;
}

/* What a count must be, in words: "1-256", "-7 to 19", "512 or more
 * bytes", "a whole number" (0..), "a whole number of ticks". */
static void count_expected(long min, long max, const char *unit, char *out, size_t cap)
{
	const char *sep = *unit ? " " : "";
	if (max == LONG_MAX && min == 0)
		snprintf(out, cap, "a whole number%s%s", *unit ? " of " : "", unit);
	else if (max == LONG_MAX)
		snprintf(out, cap, "%ld or more%s%s", min, sep, unit);
	else
		snprintf(out, cap, "%ld%s%ld%s%s", min, min < 0 ? " to " : "-", max, sep, unit);
}

/* The option called name in options, or NULL. */
static const struct ev_cli_option *named(const struct ev_cli_option *options, const char *name)
{
	for (const struct ev_cli_option *x = options; x && x->name; x++)
		if (strcmp(x->name, name) == 0)
			return x;
	return NULL;
}

void ev_cli_getopt_init(struct ev_cli_getopt *g, const struct ev_cli_tool *tool, const char *command)
{
	const struct ev_cli_command *c = ev_cli_command_named(tool, command);
	size_t n = 0, s = 0;
	memset(g, 0, sizeof *g);
	g->shortopts[s++] = 'h';
	for (const struct ev_cli_option *o = c ? c->options : NULL; o && o->name && n < EV_CLI_MAX_OPTIONS; o++) {
		long min, max;
		const char *unit;
		if (o->kind == EV_CLI_COUNT && count_range(o->words, &min, &max, &unit) != 0) {
			/* a table no test could have run: stop before a value is judged by it */
			fprintf(stderr, "%s %s: option --%s: the count's range \"%s\" is not MIN..MAX\n", tool->name,
				command, o->name, o->words ? o->words : "");
			abort();
		}
		g->longopts[n++] = (struct option){o->name, o->value ? required_argument : no_argument, NULL, o->key};
		if (o->letter) {
			g->shortopts[s++] = o->letter;
			if (o->value)
				g->shortopts[s++] = ':';
		}
	}
	g->longopts[n] = (struct option){"help", no_argument, NULL, 'h'};
	g->options = c ? c->options : NULL;
	g->tool = tool;
	g->command = command;
	g->relations = c ? c->relations : NULL;
	for (const struct ev_cli_relation *r = g->relations; r && r->a; r++)
		if (!named(g->options, r->a) || !named(g->options, r->b)) {
			fprintf(stderr, "%s %s: a relation names --%s or --%s, not an option of the command\n", tool->name,
				command, r->a, r->b);
			abort();
		}
}

/* Why ev_cli_getopt_next refused a value ("" when it did not): read once
 * by ev_cli_option_problem, as getopt's own optopt is. */
static char refused_value[512];

/* "a, b or c" from "a b c". */
static void words_listed(const char *words, char *out, size_t cap)
{
	size_t n = 0, used = 0, total = 0;
	for (const char *w = words; *w; total += *w++ == ' ')
		;
	out[0] = '\0';
	for (const char *w = words; *w && used < cap; n++) {
		size_t len = strcspn(w, " ");
		used += (size_t)snprintf(out + used, cap - used, "%s%.*s", n == 0 ? "" : n == total ? " or " : ", ",
					 (int)len, w);
		w += len + (w[len] == ' ');
	}
}

int ev_cli_getopt_next(struct ev_cli_getopt *g, int argc, char **argv)
{
	int at = -1;
	int key = getopt_long(argc, argv, g->shortopts, g->longopts, &at);
	refused_value[0] = '\0';
	if (key == -1 || key == '?' || key == 'h')
		return key;
	const struct ev_cli_option *o = NULL;
	size_t place = 0;
	for (const struct ev_cli_option *x = g->options; x && x->name && !o && place < EV_CLI_MAX_OPTIONS; x++, place++)
		if (at >= 0 ? strcmp(x->name, g->longopts[at].name) == 0 : x->key == key)
			o = x;
	if (!o)
		return key;
	g->given[place - 1] = 1;
	if (!optarg)
		return key;
	if (o->kind == EV_CLI_DIGEST && !ev_sha256_hex_valid(optarg)) {
		snprintf(refused_value, sizeof refused_value, "option --%s: expected 64 lower-case hex digits", o->name);
		return '?';
	}
	if (o->kind == EV_CLI_WORDS && !ev_text_word_in(o->words, optarg)) {
		char listed[256];
		words_listed(o->words, listed, sizeof listed);
		snprintf(refused_value, sizeof refused_value, "option --%s: expected %s, found '%.200s'", o->name, listed,
			 optarg);
		return '?';
	}
	long long seconds;
	if (o->kind == EV_CLI_DURATION) {
		if (ev_duration_parse(optarg, &seconds) != 0) {
			snprintf(refused_value, sizeof refused_value, "option --%s: expected %s, found '%.200s'", o->name,
				 EV_DURATION_EXPECTED, optarg);
			return '?';
		}
		g->count = (long)seconds;
		return key;
	}
	long min, max;
	const char *unit;
	if (o->kind == EV_CLI_COUNT && count_range(o->words, &min, &max, &unit) == 0 &&
	    parse_long(optarg, min, max, &g->count) != 0) {
		char expected[160];
		count_expected(min, max, unit, expected, sizeof expected);
		snprintf(refused_value, sizeof refused_value, "option --%s: expected %s, found '%.200s'", o->name, expected,
			 optarg);
		return '?';
	}
	return key;
}

/* Whether the command line gave the option called name. */
static int given(const struct ev_cli_getopt *g, const char *name)
{
	size_t place = 0;
	for (const struct ev_cli_option *x = g->options; x && x->name && place < EV_CLI_MAX_OPTIONS; x++, place++)
		if (strcmp(x->name, name) == 0)
			return g->given[place];
	return 0;
}

int ev_cli_getopt_relations(const struct ev_cli_getopt *g)
{
	char text[256];
	for (const struct ev_cli_relation *r = g->relations; r && r->a; r++) {
		int a = given(g, r->a), b = given(g, r->b);
		if ((r->kind == EV_CLI_NEEDS && a && !b) || (r->kind == EV_CLI_TOGETHER && a != b) ||
		    (r->kind == EV_CLI_EXCLUDES && a && b)) {
			relation_text(r, 1, text, sizeof text);
			return ev_cli_usage(g->tool, g->command, "%s", text);
		}
	}
	return 0;
}

const char *ev_cli_option_problem(char *const argv[])
{
	static char text[320];
	if (refused_value[0])
		return refused_value;
	const char *word = optind > 0 ? argv[optind - 1] : "";
	if (optopt && strncmp(word, "--", 2) == 0)
		snprintf(text, sizeof text, "option '%.250s' needs a value", word);
	else if (optopt) /* the tools' one short option, -h, takes no value */
		snprintf(text, sizeof text, "unknown option '-%c'", optopt);
	else
		snprintf(text, sizeof text, "unknown option '%.250s'", word);
	return text;
}
