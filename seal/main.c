/* seal: hashed, mode-checked, deterministic archives of evidence trees. */
#include "config.h"

#include "lib/cli/continue_cli.h"

#include "seal/seal.h"

static const char overview[] =
	"usage: seal <command> [options]\n"
	"\n"
	"Freeze an evidence tree: hash every member (SHA-256, size, mode, type) in one\n"
	"read pass while writing a deterministic compressed archive, then check copies.\n"
	"\n"
	"commands:\n"
	"  create DIR -o OUTDIR     write OUTDIR/SEAL.json, archive.tar.zst, receipt.json\n"
	"  verify --seal S TARGET   check a tree or an archive against a seal\n"
	"  diff A.json B.json       members added, removed and changed between two seals\n"
	"  select --seal S ...      write a selection manifest naming a subset\n"
	"  capsule --repo R ...     seal a git commit's tree (or --verify a capsule against one)\n"
	"  integrate --selection S --repo R   the selected files committed to git, against their seal\n"
	"  continue --original R --accept CHECK=PATTERN   a failed verify or integrate receipt\n"
	"                           continued: its understood differences accepted, rerun\n"
	"\n"
	"'seal help <command>' describes each one; 'man seal' has the details.\n"
	"Exit status: 0 everything held, 1 a check failed, 2 usage, I/O or environment\n"
	"error (nothing is claimed).\n";

static int continue_main(int argc, char **argv)
{
	static const struct ev_continuable subs[] = {
		{"verify", "--receipt", NULL, NULL},
		{"integrate", "--receipt", NULL, NULL},
	};
	return ev_continue_main(TOOL, subs, sizeof subs / sizeof *subs, argc, argv);
}

int main(int argc, char **argv)
{
	static const struct ev_cli_command commands[] = {
		{"capsule", seal_capsule_main},
		{"continue", continue_main},
		{"create", seal_create_main},
		{"diff", seal_diff_main},
		{"integrate", seal_integrate_main},
		{"select", seal_select_main},
		{"verify", seal_verify_main},
	};
	return ev_cli_main(TOOL, overview, commands, sizeof commands / sizeof *commands, msg_usage,
			   argc, argv);
}
