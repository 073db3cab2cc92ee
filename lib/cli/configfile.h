/* SPDX-License-Identifier: Apache-2.0 */
/* configfile: the defaults people would otherwise type on every command, from
 * a configuration file (doc/formats.md, "Configuration").
 *
 * Files: EVIDENCE_CONFIG when set (that file alone); otherwise the
 * system's (EV_CONFIG_FILE, /etc/evidence/config in the package; the
 * environment's EVIDENCE_SYSTEM_CONFIG names another, for tests and
 * packagers), then the user's ($XDG_CONFIG_HOME/evidence/config, else
 * ~/.config/evidence/config), a key set in the user's replacing the
 * system's. Lines "KEY = VALUE", '#' comments, blank lines. Keys:
 *   sign-key, trust (repeatable), receipt-dir, ssh-option (repeatable):
 *     given to every command that takes that option and was not given it;
 *   catalog: EVIDENCE_CATALOG, unless the environment sets it;
 *   pool: "shared" or "none", EVIDENCE_POOL, unless the environment sets it;
 *   max-age: a duration (lib/core/duration), given as --max-age like sign-key.
 * A path must be absolute or start with "~/". Whatever the command line
 * says wins, then the environment, then the files.
 *
 * Process-wide: ev_cli_main applies it once, before the command.
 */
#ifndef EV_CLI_CONFIGFILE_H
#define EV_CLI_CONFIGFILE_H

#include "lib/cli/command.h"

/* Read the files and apply the environment's part (catalog, pool). On a
 * malformed file, say "TOOL: FILE:LINE: what" on stderr and return 2;
 * else 0. */
int ev_cli_config_load(const struct ev_cli_tool *tool);

/* The command's arguments with the configured options it takes and was
 * not given put after its name: a new argv in *out (the caller frees the
 * array, not its strings) and its length, or argv itself when nothing is
 * added. Never for --help. */
int ev_cli_config_apply(const struct ev_cli_command *c, int argc, char **argv, char ***out);

/* The "config" command every tool has, one shape: "TOOL "
 * EV_CONFIG_SYNOPSIS, and these summary, description, options and notes;
 * ev_cli_config_main runs it for the tool ev_cli_config_load was given. */
#define EV_CONFIG_SYNOPSIS "config [--json]"
#define EV_CONFIG_SUMMARY "the defaults from the configuration files, and where\n" \
	"each came from"
#define EV_CONFIG_DESCRIPTION \
	"Print every configuration key (sign-key, trust, receipt-dir, ssh-option, catalog,\n" \
	"pool, max-age), its effective value and where it came from: a file and line,\n" \
	"the environment (EVIDENCE_CATALOG, EVIDENCE_POOL), or not set. The files are\n" \
	"EVIDENCE_CONFIG alone when it is set; else /etc/evidence/config, then\n" \
	"~/.config/evidence/config ($XDG_CONFIG_HOME), a key the user's sets replacing\n" \
	"the system's. Lines are KEY = VALUE; '#' starts a comment; a path is absolute\n" \
	"or starts with ~/. sign-key, trust, receipt-dir, ssh-option and max-age are\n" \
	"given to every command that takes the option and was not given it; catalog\n" \
	"and pool set EVIDENCE_CATALOG and EVIDENCE_POOL unless the environment does.\n" \
	"The command line wins over the environment, which wins over the files.\n"
#define EV_CONFIG_NOTES \
	"Exit status: 0 printed, 2 usage or a malformed file (its line named; every\n" \
	"command of the tool refuses to run until it is fixed).\n"
extern const struct ev_cli_option ev_cli_config_options[];
int ev_cli_config_main(int argc, char **argv);

/* The table entry, for the tool named tool (a string literal). */
#define EV_CLI_CONFIG_COMMAND(tool)                                                                          \
	{                                                                                                    \
		.name = "config", .run = ev_cli_config_main, .synopsis = tool " " EV_CONFIG_SYNOPSIS,          \
		.summary = EV_CONFIG_SUMMARY, .description = EV_CONFIG_DESCRIPTION,                          \
		.options = ev_cli_config_options, .notes = EV_CONFIG_NOTES,                                    \
	}

#endif
