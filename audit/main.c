/* SPDX-License-Identifier: Apache-2.0 */
/* audit: cold recomputation of what a benchmark claims, from its raw data. */
#include "config.h"

#include "lib/cli/continue_cli.h"
#include "lib/cli/dispatch.h"

#include "audit/audit.h"

int audit_continue_main(int argc, char **argv)
{
	static const char *const every_finding[] = {"--max-findings", "0", NULL};
	static const struct ev_continuable subs[] = {
		{"journal", "--receipt", NULL, every_finding},
		{"series", "--receipt", NULL, NULL},
	};
	return ev_continue_main(&audit_tool, subs, sizeof subs / sizeof *subs, argc, argv);
}

int main(int argc, char **argv)
{
	return ev_cli_main(&audit_tool, argc, argv);
}
