/* SPDX-License-Identifier: Apache-2.0 */
/* dispatch: a tool's main (dispatch.h). */
#include "config.h"
#include "lib/cli/dispatch.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/catalog_add.h"
#include "lib/cli/cli.h"
#include "lib/cli/command.h"
#include "lib/cli/completion.h"
#include "lib/cli/configfile.h"
#include "lib/cli/pool.h"

int ev_cli_main(const struct ev_cli_tool *tool, int argc, char **argv)
{
	ev_cli_init();
	ev_cli_set_invocation(argc, argv);
	char **given_argv = argv;
	int given_argc = argc;
	int malformed = ev_cli_config_load(tool);
	if (malformed)
		return malformed;
	opterr = 0; /* a bad option is named once, by the tool, with its usage */
	struct ev_cli_pool pool;
	if (tool->shared_pool) {
		int used = ev_cli_pool_options(tool, argc, argv, &pool);
		if (used < 0)
			return 2;
		argc -= used;
		argv += used;
	}
	if (argc < 2)
		return ev_cli_usage(tool, NULL, "no command given");
	const char *cmd = argv[1];
	if (strcmp(cmd, "help") == 0 && argc > 2) { /* TOOL help COMMAND: the command's own help */
		const struct ev_cli_command *c = ev_cli_command_named(tool, argv[2]);
		if (!c)
			return ev_cli_usage(tool, NULL, "unknown command '%s'", argv[2]);
		char *args[] = {argv[2], (char *)"--help", NULL};
		return c->run(2, args);
	}
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
		ev_cli_print_overview(tool);
		return 0;
	}
	if (strcmp(cmd, "--bash-completion") == 0) { /* for the build, which installs it */
		ev_cli_print_bash_completion(tool, stdout);
		return 0;
	}
	if (strcmp(cmd, "--version") == 0) {
		printf("%s (evidence) %s\n", tool->name, PACKAGE_VERSION);
		return 0;
	}
	const struct ev_cli_command *c = ev_cli_command_named(tool, cmd);
	if (!c)
		return ev_cli_usage(tool, NULL, "unknown command '%s'", cmd);
	int wants_help = 0;
	for (int i = 2; i < argc; i++)
		wants_help |= strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0;
	if (tool->shared_pool && pool.shared && !wants_help) {
		int code = ev_cli_pool_enter(tool, &pool, argc - 1, argv + 1);
		if (code)
			return code;
	}
	char **configured = argv + 1;
	int nconfigured = wants_help ? argc - 1 : ev_cli_config_apply(c, argc - 1, argv + 1, &configured);
	if (!wants_help)
		ev_cli_catalog_watch();
	/* a receipt records how the command really ran: with what the files added */
	char **recorded = NULL;
	if (configured != argv + 1 && (recorded = calloc((size_t)(given_argc + nconfigured), sizeof *recorded))) {
		int n = 0, before = (int)(argv + 1 - given_argv); /* the tool and its --pool options, then the command */
		for (int i = 0; i < before; i++)
			recorded[n++] = given_argv[i];
		for (int i = 0; i < nconfigured; i++)
			recorded[n++] = configured[i];
		ev_cli_set_invocation(n, recorded);
	}
	int code = c->run(nconfigured, configured);
	if (recorded)
		ev_cli_set_invocation(given_argc, given_argv);
	free(recorded);
	if (configured != argv + 1)
		free(configured);
	if (!wants_help)
		ev_cli_catalog_add(tool->name, code);
	if (tool->shared_pool && pool.shared)
		ev_cli_pool_leave(&pool);
	return code;
}
