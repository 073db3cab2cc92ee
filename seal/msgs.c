#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "seal/seal.h"

static const char *synopsis(const char *sub)
{
	if (!sub)
		return "seal <command> [options]   (commands: create, verify, diff, select, capsule, integrate, continue)";
	if (strcmp(sub, "create") == 0)
		return "seal create [--gzip] [--jobs N] [--level N] [--name ROOT] "
		       "[--refuse-writable] [--json] DIR -o OUTDIR";
	if (strcmp(sub, "verify") == 0)
		return "seal verify --seal SEAL.json [--seal-sha256 HEX] [--receipt FILE] [--max-findings N] [--json] "
		       "(DIR | ARCHIVE)\n       seal verify --selection selection.json [--seal "
		       "SEAL.json] [--json] DIR";
	if (strcmp(sub, "diff") == 0)
		return "seal diff [--json] A.json B.json";
	if (strcmp(sub, "select") == 0)
		return "seal select --seal SEAL.json --include GLOB [--include GLOB ...] -o "
		       "selection.json";
	if (strcmp(sub, "integrate") == 0)
		return "seal integrate --selection selection.json --repo DIR [--rev REV | --worktree] "
		       "[--prefix PATH] [--receipt FILE] [--json]";
	if (strcmp(sub, "capsule") == 0)
		return "seal capsule --repo DIR [--commit REV] -o OUTDIR [--name ROOT] [--symlinks refuse|record] "
		       "[--submodules refuse|record] [--gzip] [--level N] [--jobs N] [--json]\n"
		       "       seal capsule --verify --repo DIR [--commit REV] [--json] CAPSULE";
	return "seal <command> [options]";
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
