/* replicate: verified copies of sealed archives on several hosts. */
#include "config.h"

#include "lib/cli/continue_cli.h"

#include "replicate/replicate.h"

static const char overview[] =
	"usage: replicate <command> [options]\n"
	"\n"
	"Keep a sealed campaign, verified, on more than one host: stream each copy of\n"
	"the archive against its seal, write a receipt on every host, compare the\n"
	"receipts, and only then clean up.\n"
	"\n"
	"commands:\n"
	"  verify --seal S ARCHIVE        check every member of an archive; write a receipt\n"
	"  push ARCHIVE --seal S --to D   copy archive and seal to hosts (ssh) or directories,\n"
	"                                 verify there, fetch and compare the receipts\n"
	"  compare RECEIPT...             do receipts agree, and where do they differ\n"
	"  keygen -o NAME                 make an Ed25519 key pair for signing receipts\n"
	"  prune --seal S --receipts R... DIR\n"
	"                                 remove DIR once enough hosts hold verified copies\n"
	"  receive DIR NAME SIZE SHA256   the far end of push (run by push, not by hand)\n"
	"  continue --original R --accept CHECK=PATTERN\n"
	"                                 a failed verify receipt continued: its understood\n"
	"                                 differences accepted, the checks rerun\n"
	"\n"
	"'replicate help <command>' describes each one; 'man replicate' has the details.\n"
	"Exit status: 0 everything held, 1 a check failed, 2 usage, I/O or environment\n"
	"error (nothing is claimed).\n";

static int continue_main(int argc, char **argv)
{
	static const char *const receipt_dir[] = {"--receipt-dir", NULL};
	static const struct ev_continuable subs[] = {
		{"verify", "--receipt", receipt_dir, NULL},
	};
	return ev_continue_main(TOOL, subs, sizeof subs / sizeof *subs, argc, argv);
}

int main(int argc, char **argv)
{
	static const struct ev_cli_command commands[] = {
		{"continue", continue_main},
		{"compare", replicate_compare_main}, {"keygen", replicate_keygen_main},
		{"prune", replicate_prune_main},     {"push", replicate_push_main},
		{"receive", replicate_receive_main}, {"verify", replicate_verify_main},
	};
	return ev_cli_main(TOOL, overview, commands, sizeof commands / sizeof *commands, msg_usage,
			   argc, argv);
}
