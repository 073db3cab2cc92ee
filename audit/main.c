/* audit: cold recomputation of what a benchmark claims, from its raw data. */
#include "config.h"

#include "lib/cli/continue_cli.h"

#include "audit/audit.h"

static const char overview[] =
	"usage: audit <command> [options]\n"
	"\n"
	"Recompute, from the raw data a benchmark left, every count, checksum, sequence\n"
	"and order it claims, without trusting the benchmark or the host that ran it.\n"
	"\n"
	"commands:\n"
	"  journal --sender P --receiver P   every FIX message both endpoints persisted:\n"
	"                                    envelope, dictionary, session and spec rules,\n"
	"                                    counts, and the two copies against each other\n"
	"  series [--native REPORT] SERIES   every statistic a benchmark printed, recomputed\n"
	"                                    from its raw series with its own rule\n"
	"  campaign DIR -o OUTDIR            every run of a captured campaign audited, and\n"
	"                                    summed up per cell as the median of its runs,\n"
	"                                    with tables and an HTML report\n"
	"  continue --original R --accept CHECK=PATTERN\n"
	"                                    a failed journal or series receipt continued:\n"
	"                                    its understood differences accepted, rerun\n"
	"\n"
	"'audit help <command>' describes each one; 'man audit' has the details.\n"
	"Exit status: 0 everything held, 1 a check failed (the receipt says which),\n"
	"2 usage, I/O or environment error (nothing is claimed).\n";

static int continue_main(int argc, char **argv)
{
	static const char *const every_finding[] = {"--max-findings", "0", NULL};
	static const struct ev_continuable subs[] = {
		{"journal", "--receipt", NULL, every_finding},
		{"series", "--receipt", NULL, NULL},
	};
	return ev_continue_main(TOOL, subs, sizeof subs / sizeof *subs, argc, argv);
}

int main(int argc, char **argv)
{
	static const struct ev_cli_command commands[] = {
		{"continue", continue_main},
		{"campaign", audit_campaign_main},
		{"journal", audit_journal_main},
		{"series", audit_series_main},
	};
	return ev_cli_main(TOOL, overview, commands, sizeof commands / sizeof *commands, msg_usage,
			   argc, argv);
}
