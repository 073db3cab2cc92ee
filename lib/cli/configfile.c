/* SPDX-License-Identifier: Apache-2.0 */
/* configfile: defaults from configuration files (configfile.h). */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "lib/cli/cli.h"
#include "lib/cli/configfile.h"
#include "lib/core/json.h"
#include "lib/core/path.h"
#include "lib/core/duration.h"
#include "lib/core/text.h"

/* config's one option, by name. */
enum ev_cli_config_option { EV_CLI_CONFIG_OPT_JSON = 'j' };

#ifndef EV_CONFIG_FILE
#define EV_CONFIG_FILE "/etc/evidence/config"
#endif

enum { SIGN_KEY, TRUST, RECEIPT_DIR, SSH_OPTION, CATALOG, POOL, MAX_AGE, NKEYS };

static const struct key {
	const char *name;
	int list, path;
	const char *env; /* applied through the environment, when it does not set it */
} keys[NKEYS] = {
	{"sign-key", 0, 1, NULL},   {"trust", 1, 1, NULL},       {"receipt-dir", 0, 1, NULL},
	{"ssh-option", 1, 0, NULL}, {"catalog", 0, 1, "EVIDENCE_CATALOG"}, {"pool", 0, 0, "EVIDENCE_POOL"},
	{"max-age", 0, 0, NULL},
};

#define MAX_VALUES 32

/* Each key's values and where they came from: the last file that sets it. */
static struct setting {
	char *values[MAX_VALUES];
	size_t n;
	char from[PATH_MAX + 32]; /* FILE:LINE of its first value */
	int from_rank;            /* 0 none, 1 system, 2 user, 3 EVIDENCE_CONFIG */
} settings[NKEYS];
static char files_read[2][PATH_MAX];
static size_t nfiles_read;
static const struct ev_cli_tool *current_tool;

/* s without the blanks around it (lib/core/text), in place. */
static char *trim(char *s)
{
	const char *b = s, *e = s + strlen(s);
	while (e > b && e[-1] == '\n')
		e--;
	ev_text_trim(&b, &e);
	*(char *)e = '\0';
	return (char *)b;
}

static int complain(const char *file, size_t line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int complain(const char *file, size_t line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: %s:%zu: ", current_tool ? current_tool->name : "evidence", file, line);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "; fix the file, or set EVIDENCE_CONFIG to another\n");
	return 2;
}

/* One file; rank orders the files (a higher one replaces a key's values). */
static int read_file(const char *file, int rank, int required)
{
	struct stat sb;
	if (lstat(file, &sb) != 0) {
		/* a default file out of reach (no such file, or a directory on its way
		 * this user may not search: HOME left as another's) is no file */
		if (!required && (errno == ENOENT || errno == ENOTDIR || errno == EACCES))
			return 0;
		fprintf(stderr, "%s: %s: cannot read the configuration: %s\n", current_tool->name, file, strerror(errno));
		return 2;
	}
	if (!S_ISREG(sb.st_mode)) {
		fprintf(stderr, "%s: %s: the configuration is not a regular file; expected lines KEY = VALUE\n",
			current_tool->name, file);
		return 2;
	}
	FILE *f = fopen(file, "re");
	if (!f) {
		fprintf(stderr, "%s: %s: cannot read the configuration: %s\n", current_tool->name, file, strerror(errno));
		return 2;
	}
	if (nfiles_read < 2)
		snprintf(files_read[nfiles_read++], sizeof files_read[0], "%s", file);
	char buf[4096];
	size_t line = 0;
	int code = 0, seen[NKEYS] = {0};
	while (!code && fgets(buf, sizeof buf, f)) {
		line++;
		if (!strchr(buf, '\n') && !feof(f)) { /* read in pieces, its end would pass for a line of its own */
			code = complain(file, line, "a line longer than %zu bytes", sizeof buf - 2);
			break;
		}
		char *s = trim(buf), *eq = strchr(s, '=');
		if (!*s || *s == '#')
			continue;
		if (!eq) {
			code = complain(file, line, "expected KEY = VALUE, found '%s'", s);
			break;
		}
		*eq = '\0';
		char *k = trim(s), *v = trim(eq + 1);
		int which = -1;
		for (int i = 0; i < NKEYS; i++)
			if (strcmp(k, keys[i].name) == 0)
				which = i;
		if (which < 0) {
			code = complain(file, line, "unknown key '%s' (known: sign-key, trust, receipt-dir, ssh-option, catalog, pool, max-age)", k);
			break;
		}
		if (!*v) {
			code = complain(file, line, "%s: no value", k);
			break;
		}
		if (which == POOL && strcmp(v, "shared") != 0 && strcmp(v, "none") != 0) {
			code = complain(file, line, "pool: expected shared or none, found '%s'", v);
			break;
		}
		long long seconds;
		if (which == MAX_AGE && ev_duration_parse(v, &seconds) != 0) {
			code = complain(file, line, "max-age: expected %s, found '%s'", EV_DURATION_EXPECTED, v);
			break;
		}
		int server = which == CATALOG && strstr(v, "://");
		if (keys[which].path && !server && v[0] != '/' && strncmp(v, "~/", 2) != 0) {
			code = complain(file, line, "%s: '%s' must be an absolute path or start with ~/", k, v);
			break;
		}
		struct setting *st = &settings[which];
		if (!keys[which].list && seen[which]) {
			code = complain(file, line, "%s is set twice in this file", k);
			break;
		}
		if (!seen[which]) { /* this file replaces what a lower one said */
			if (st->from_rank > rank)
				continue;
			for (size_t i = 0; i < st->n; i++)
				free(st->values[i]);
			st->n = 0;
			st->from_rank = rank;
			snprintf(st->from, sizeof st->from, "%s:%zu", file, line);
			seen[which] = 1;
		}
		if (st->n == MAX_VALUES) {
			code = complain(file, line, "%s: more than 32 values", k);
			break;
		}
		char expanded[PATH_MAX];
		const char *home = getenv("HOME");
		if (strncmp(v, "~/", 2) == 0 && home ? ev_path_join(expanded, sizeof expanded, home, v + 2) != 0
						      : (size_t)snprintf(expanded, sizeof expanded, "%s", v) >= sizeof expanded) {
			code = complain(file, line, "%s: the path is longer than %d bytes", k, PATH_MAX - 1);
			break;
		}
		st->values[st->n++] = strdup(expanded);
	}
	fclose(f);
	return code;
}

int ev_cli_config_load(const struct ev_cli_tool *tool)
{
	current_tool = tool;
	const char *only = getenv("EVIDENCE_CONFIG");
	int code = 0;
	if (only && *only) {
		code = read_file(only, 3, 1);
	} else {
		const char *system = getenv("EVIDENCE_SYSTEM_CONFIG");
		code = read_file(system && *system ? system : EV_CONFIG_FILE, 1, 0);
		char user[PATH_MAX];
		const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
		if (!code && xdg && xdg[0] == '/')
			snprintf(user, sizeof user, "%s/evidence/config", xdg);
		else if (!code && home && home[0] == '/')
			snprintf(user, sizeof user, "%s/.config/evidence/config", home);
		else
			user[0] = '\0';
		if (!code && user[0])
			code = read_file(user, 2, 0);
	}
	for (int i = 0; i < NKEYS && !code; i++) /* the environment wins over a file */
		if (keys[i].env && settings[i].n && !(getenv(keys[i].env) && *getenv(keys[i].env)))
			setenv(keys[i].env, settings[i].values[0], 1);
	return code;
}

/* Does argv (after the command's name) give --name, --name=V, or a
 * word that ends the options? */
static int given(int argc, char **argv, const char *name)
{
	size_t len = strlen(name);
	for (int i = 1; i < argc; i++)
		if (strncmp(argv[i], "--", 2) == 0 && strncmp(argv[i] + 2, name, len) == 0 &&
		    (argv[i][2 + len] == '\0' || argv[i][2 + len] == '='))
			return 1;
	return 0;
}

static int takes(const struct ev_cli_command *c, const char *name)
{
	for (const struct ev_cli_option *o = c->options; o && o->name; o++)
		if (strcmp(o->name, name) == 0)
			return 1;
	return 0;
}

int ev_cli_config_apply(const struct ev_cli_command *c, int argc, char **argv, char ***out)
{
	*out = argv;
	size_t extra = 0;
	static const int as_options[] = {SIGN_KEY, TRUST, RECEIPT_DIR, SSH_OPTION, MAX_AGE};
	for (size_t k = 0; k < sizeof as_options / sizeof as_options[0]; k++) {
		int i = as_options[k];
		if (settings[i].n && takes(c, keys[i].name) && !given(argc, argv, keys[i].name) &&
		    !(i == RECEIPT_DIR && given(argc, argv, "receipt")))
			extra += 2 * settings[i].n;
	}
	if (!extra)
		return argc;
	char **grown = calloc((size_t)argc + extra + 1, sizeof *grown);
	if (!grown)
		return argc;
	size_t n = 0;
	grown[n++] = argv[0];
	for (size_t k = 0; k < sizeof as_options / sizeof as_options[0]; k++) {
		int i = as_options[k];
		if (!settings[i].n || !takes(c, keys[i].name) || given(argc, argv, keys[i].name) ||
		    (i == RECEIPT_DIR && given(argc, argv, "receipt")))
			continue;
		static char flags[NKEYS][32];
		snprintf(flags[i], sizeof flags[i], "--%s", keys[i].name);
		for (size_t v = 0; v < settings[i].n; v++) {
			grown[n++] = flags[i];
			grown[n++] = settings[i].values[v];
		}
	}
	for (int i = 1; i < argc; i++)
		grown[n++] = argv[i];
	grown[n] = NULL;
	*out = grown;
	return (int)n;
}

/* TOOL config: every key's effective value and where it came from. */
int ev_cli_config_main(int argc, char **argv)
{
	const struct ev_cli_tool *tool = current_tool;
	int json = 0, c;
	struct ev_cli_getopt opts;
	ev_cli_getopt_init(&opts, tool, "config");
	optind = 1;
	while ((c = ev_cli_getopt_next(&opts, argc, argv)) != -1) {
		switch (c) {
		case EV_CLI_HELP: return ev_cli_help(tool, "config");
		case EV_CLI_CONFIG_OPT_JSON: json = 1; break;
		default: return ev_cli_usage(tool, "config", "%s", ev_cli_option_problem(argv));
		}
	}
	if (optind != argc)
		return ev_cli_usage(tool, "config", "unexpected argument '%s'", argv[optind]);
	json_t *doc = json_object(), *list = json_array(), *files = json_array();
	for (size_t i = 0; i < nfiles_read; i++)
		json_array_append_new(files, json_string(files_read[i]));
	for (int i = 0; i < NKEYS; i++) {
		const char *env = keys[i].env ? getenv(keys[i].env) : NULL;
		json_t *values = json_array();
		const char *from;
		/* an environment value this file did not set came from the environment */
		if (env && *env && !(settings[i].n && strcmp(env, settings[i].values[0]) == 0)) {
			json_array_append_new(values, json_string(env));
			from = keys[i].env;
		} else {
			for (size_t v = 0; v < settings[i].n; v++)
				json_array_append_new(values, json_string(settings[i].values[v]));
			from = settings[i].n ? settings[i].from : "not set";
		}
		json_array_append_new(list, json_pack("{s:s, s:o, s:s}", "key", keys[i].name, "values", values, "from", from));
	}
	json_object_set_new(doc, "settings", list);
	json_object_set_new(doc, "files", files);
	struct ev_error err;
	ev_error_clear(&err);
	int code = 0;
	if (json) {
		code = ev_json_print(doc, stdout, &err) == EV_OK ? 0 : 2;
	} else {
		size_t i;
		json_t *s;
		json_array_foreach(list, i, s) {
			const json_t *values = json_object_get(s, "values");
			printf("%-12s", json_string_value(json_object_get(s, "key")));
			if (!json_array_size(values))
				printf(" (not set)\n");
			size_t k;
			json_t *v;
			json_array_foreach(values, k, v)
				printf("%s%s  (%s)\n", k ? "             " : " ", json_string_value(v),
				       json_string_value(json_object_get(s, "from")));
		}
		printf("files read: ");
		json_array_foreach(files, i, s)
			printf("%s%s", i ? ", " : "", json_string_value(s));
		printf("%s\n", json_array_size(files) ? "" : "none");
	}
	json_decref(doc);
	if (code)
		ev_cli_error(tool->name, &err);
	return code;
}

const struct ev_cli_option ev_cli_config_options[] = {
	{"json", 0, NULL, EV_CLI_CONFIG_OPT_JSON, "print the settings as JSON", EV_CLI_TEXT, NULL},
	{NULL, 0, NULL, 0, NULL, EV_CLI_TEXT, NULL},
};
