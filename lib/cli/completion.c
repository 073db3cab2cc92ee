/* SPDX-License-Identifier: Apache-2.0 */
/* completion: bash completion from a command table (completion.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "lib/cli/completion.h"

/* What a value of this name is completed with, as a bash expression that
 * fills COMPREPLY; NULL for nothing (a number, a digest). A value of
 * words is completed with them (EV_CLI_WORDS), whatever its name. */
static const char *value_completion(const char *value)
{
	if (!value)
		return NULL;
	if (strstr(value, "HOST:"))
		return "_evidence_hosts_and_dirs";
	if (strcmp(value, "DIR") == 0 || strcmp(value, "OUTDIR") == 0)
		return "COMPREPLY=($(compgen -d -- \"$cur\"))";
	static const char *const files[] = {"FILE", "KEY", "SEAL.json", "ARCHIVE", "RECEIPT", "REF", "SUMMARY", "PATH",
					    "CA", "REPLY", "WHERE", "SELECTION", "PROGRAM", "ENVELOPE", "PLAN"};
	for (size_t i = 0; i < sizeof files / sizeof *files; i++)
		if (strcmp(value, files[i]) == 0)
			return "COMPREPLY=($(compgen -f -- \"$cur\"))";
	return NULL;
}

/* What the words after the options are, from the synopsis. */
static const char *positional_completion(const struct ev_cli_command *c)
{
	if (strstr(c->synopsis, "[HOST:]DIR"))
		return "_evidence_hosts_and_dirs";
	if (strstr(c->synopsis, "plan.json") || strstr(c->synopsis, "pinned.json") || strstr(c->synopsis, "PLAN"))
		return "COMPREPLY=($(compgen -f -X '!*.json' -- \"$cur\") $(compgen -d -S / -- \"$cur\"))";
	return "COMPREPLY=($(compgen -f -- \"$cur\"))";
}

void ev_cli_print_bash_completion(const struct ev_cli_tool *tool, FILE *out)
{
	const char *t = tool->name;
	fprintf(out,
		"# bash completion for %s, written by '%s --bash-completion' from its command table.\n"
		"_evidence_hosts_and_dirs()\n"
		"{\n"
		"\tlocal hosts\n"
		"\thosts=$(awk 'tolower($1) == \"host\" { for (i = 2; i <= NF; i++) if ($i !~ /[*?!]/) print $i \":\" }' \\\n"
		"\t\t~/.ssh/config 2>/dev/null)\n"
		"\tCOMPREPLY=($(compgen -W \"$hosts\" -- \"$cur\") $(compgen -d -- \"$cur\"))\n"
		"\t[[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *: ]] && compopt -o nospace 2>/dev/null\n"
		"}\n\n"
		"_evidence_%s()\n"
		"{\n"
		"\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd= i\n"
		"\tfor ((i = 1; i < COMP_CWORD; i++)); do\n"
		"\t\tcase ${COMP_WORDS[i]} in\n"
		"\t\t--pool | --priority) ((i++)) ;;\n"
		"\t\t-*) ;;\n"
		"\t\t*) cmd=${COMP_WORDS[i]}; break ;;\n"
		"\t\tesac\n"
		"\tdone\n"
		"\tcase $prev in\n"
		"\t--pool) COMPREPLY=($(compgen -W 'shared none' -- \"$cur\")); return ;;\n"
		"\t--priority) COMPREPLY=($(compgen -W 'high normal' -- \"$cur\")); return ;;\n"
		"\tesac\n"
		"\tif [[ -z $cmd ]]; then\n"
		"\t\tCOMPREPLY=($(compgen -W '",
		t, t, t);
	for (const struct ev_cli_command *const *c = tool->commands; *c; c++)
		fprintf(out, "%s ", (*c)->name);
	fprintf(out, "help --help --version%s' -- \"$cur\"))\n\t\treturn\n\tfi\n\tlocal opts=\n\tcase $cmd in\n",
		tool->shared_pool ? " --pool --priority" : "");
	for (const struct ev_cli_command *const *c = tool->commands; *c; c++) {
		fprintf(out, "\t%s)\n\t\topts='", (*c)->name);
		for (const struct ev_cli_option *o = (*c)->options; o && o->name; o++)
			if (o->help)
				fprintf(out, "--%s ", o->name);
		fprintf(out, "--help'\n\t\tcase $prev in\n");
		for (const struct ev_cli_option *o = (*c)->options; o && o->name; o++) {
			const char *how = o->help ? value_completion(o->value) : NULL;
			char pattern[96], words[320];
			if (o->help && o->kind == EV_CLI_WORDS && o->words) { /* the words its value must be */
				snprintf(words, sizeof words, "COMPREPLY=($(compgen -W '%s' -- \"$cur\"))", o->words);
				how = words;
			}
			if (o->letter)
				snprintf(pattern, sizeof pattern, "--%s | -%c", o->name, o->letter);
			else
				snprintf(pattern, sizeof pattern, "--%s", o->name);
			if (how)
				fprintf(out, "\t\t%s) %s; return ;;\n", pattern, how);
			else if (o->help && o->value) /* a value nothing completes: offer nothing */
				fprintf(out, "\t\t%s) return ;;\n", pattern);
		}
		fprintf(out, "\t\tesac\n\t\t[[ $cur == -* ]] || { %s; return; }\n\t\t;;\n", positional_completion(*c));
	}
	fprintf(out,
		"\thelp) COMPREPLY=($(compgen -W '");
	for (const struct ev_cli_command *const *c = tool->commands; *c; c++)
		fprintf(out, "%s ", (*c)->name);
	fprintf(out, "' -- \"$cur\")); return ;;\n"
		"\tesac\n"
		"\tCOMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
		"}\n"
		"complete -F _evidence_%s %s\n",
		t, t);
}
