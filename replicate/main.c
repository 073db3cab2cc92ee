/* SPDX-License-Identifier: Apache-2.0 */
/* replicate: verified copies of sealed archives on several hosts. */
#include "config.h"

#include "lib/cli/continue_cli.h"
#include "lib/cli/dispatch.h"

#include "replicate/replicate.h"

int replicate_continue_main(int argc, char **argv)
{
	static const char *const receipt_dir[] = {"--receipt-dir", NULL};
	static const struct ev_continuable subs[] = {
		{"verify", "--receipt", receipt_dir, NULL},
	};
	return ev_continue_main(&replicate_tool, subs, sizeof subs / sizeof *subs, argc, argv);
}

int main(int argc, char **argv)
{
	return ev_cli_main(&replicate_tool, argc, argv);
}
