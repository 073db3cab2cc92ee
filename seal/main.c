/* seal: hashed, mode-checked, deterministic archives of evidence trees. */
#include "config.h"

#include <stdio.h>
#include <string.h>

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
	"\n"
	"'seal <command> --help' describes each one; 'man seal' has the details.\n"
	"Exit status: 0 everything held, 1 a check failed, 2 usage, I/O or environment\n"
	"error (nothing is claimed).\n";

int main(int argc, char **argv)
{
	ev_cli_init();
	if (argc < 2)
		return msg_usage(NULL, "no command given");
	const char *cmd = argv[1];
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
		fputs(overview, stdout);
		return 0;
	}
	if (strcmp(cmd, "--version") == 0) {
		printf("seal (evidence) %s\n", PACKAGE_VERSION);
		return 0;
	}
	if (strcmp(cmd, "create") == 0)
		return seal_create_main(argc - 1, argv + 1);
	if (strcmp(cmd, "verify") == 0)
		return seal_verify_main(argc - 1, argv + 1);
	if (strcmp(cmd, "diff") == 0)
		return seal_diff_main(argc - 1, argv + 1);
	if (strcmp(cmd, "select") == 0)
		return seal_select_main(argc - 1, argv + 1);
	return msg_usage(NULL, "unknown command '%s'", cmd);
}
