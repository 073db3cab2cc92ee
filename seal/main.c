/* SPDX-License-Identifier: Apache-2.0 */
/* seal: hashed, mode-checked, deterministic archives of evidence trees. */
#include "config.h"

#include "lib/cli/continue_cli.h"
#include "lib/cli/dispatch.h"

#include "seal/seal.h"

int seal_continue_main(int argc, char **argv)
{
	static const struct ev_continuable subs[] = {
		{"verify", "--receipt", NULL, NULL},
		{"integrate", "--receipt", NULL, NULL},
	};
	return ev_continue_main(&seal_tool, subs, sizeof subs / sizeof *subs, argc, argv);
}

int main(int argc, char **argv)
{
	return ev_cli_main(&seal_tool, argc, argv);
}
