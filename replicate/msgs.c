#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "replicate/replicate.h"

static const char *synopsis(const char *sub)
{
	static const struct {
		const char *name, *text;
	} synopses[] = {
		{"compare", "replicate compare [--trust KEYS.pub ...] [--json] RECEIPT..."},
		{"keygen", "replicate keygen -o NAME   (writes NAME.key 0600 and NAME.pub 0644)"},
		{"prune", "replicate prune --seal SEAL.json [--seal-sha256 HEX] --receipts R1 R2 ... [--min-hosts N] "
			  "[--trust KEYS.pub ...] [--selection FILE] [--receipt FILE] DIR"},
		{"push", "replicate push ARCHIVE --seal SEAL.json [--seal-sha256 HEX] --to [HOST:]DIR [--to ...] "
			 "[--receipt-dir DIR] [--timeout S] [--ssh PROG] [--ssh-config FILE] "
			 "[--ssh-option OPT ...] [--remote-replicate PATH] [--sign-key KEY] "
			 "[--remote-sign-key PATH] [--trust FILE ...] [--json]"},
		{"receive", "replicate receive DIR NAME SIZE SHA256"},
		{"verify", "replicate verify --seal SEAL.json [--seal-sha256 HEX] [--archive-sha256 HEX] "
			   "[--receipt FILE | --receipt-dir DIR] [--sign-key KEY] [--max-findings N] [--json] ARCHIVE"},
	};
	for (size_t i = 0; sub && i < sizeof synopses / sizeof *synopses; i++)
		if (strcmp(sub, synopses[i].name) == 0)
			return synopses[i].text;
	return "replicate <command> [options]   (commands: verify, push, compare, keygen, prune, continue)";
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

void file_label(const char *text, char *out, size_t cap)
{
	size_t o = 0;
	for (const char *p = text ? text : "unknown"; *p && o + 1 < cap; p++) {
		int plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			    (*p >= '0' && *p <= '9') || *p == '-' || *p == '.';
		out[o++] = plain ? *p : '_';
	}
	out[o] = '\0';
}
