#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "audit/audit.h"

static const char *synopsis(const char *sub)
{
	if (sub && strcmp(sub, "journal") == 0)
		return "audit journal [--spec SPEC] [--dict DICT ...] [--format KIND] [--sender-format KIND] [--receiver-format KIND] "
		       "(--sender PATH | --receiver PATH) ... [--archive ARCHIVE --seal SEAL.json [--seal-sha256 HEX]] "
		       "[--warmups N] [--measured N] [--jobs N] [--max-findings N] [--receipt FILE] [--json]";
	if (sub && strcmp(sub, "series") == 0)
		return "audit series [--native REPORT] [--rule RULE] [--quantile P ...] [--delay SERIES --rate R] "
		       "[--journal DIR --warmups N [--threshold T]] [--receipt FILE] [--json] SERIES";
	if (sub && strcmp(sub, "campaign") == 0)
		return "audit campaign CAMPAIGN_DIR -o OUTDIR [--json]";
	return "audit <command> [options]   (commands: journal, series, campaign, continue)";
}

int msg_usage(const char *sub, const char *fmt, ...)
{
	char reason[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(reason, sizeof reason, fmt, ap);
	va_end(ap);
	return ev_cli_usage(TOOL, sub, synopsis(sub), "%s", reason);
}
