#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "capture/capture.h"

static const char *synopsis(const char *sub)
{
	if (sub && strcmp(sub, "run") == 0)
		return "capture run PLAN -o CAMPAIGN_DIR [--degrade] [--allow-dirty] [--json]";
	if (sub && strcmp(sub, "pin") == 0)
		return "capture pin [--file PATH ...] PLAN -o PINNED_PLAN";
	return "capture <command> [options]   (commands: run, pin)";
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

int path_join(char *out, size_t cap, const char *a, const char *b)
{
	int n = snprintf(out, cap, "%s/%s", a, b);
	return n < 0 || (size_t)n >= cap ? -1 : 0;
}
