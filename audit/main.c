/* audit: cold recomputation of what a benchmark claims, from its raw data. */
#include "config.h"

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
	"\n"
	"'audit <command> --help' describes each one; 'man audit' has the details.\n"
	"Exit status: 0 everything held, 1 a check failed (the receipt says which),\n"
	"2 usage, I/O or environment error (nothing is claimed).\n";

int main(int argc, char **argv)
{
	static const struct ev_cli_command commands[] = {
		{"campaign", audit_campaign_main},
		{"journal", audit_journal_main},
		{"series", audit_series_main},
	};
	return ev_cli_main(TOOL, overview, commands, sizeof commands / sizeof *commands, msg_usage,
			   argc, argv);
}
