#include "config.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "seal/seal.h"

volatile int seal_interrupted;

static void on_signal(int sig)
{
	seal_interrupted = sig;
}

void seal_catch_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

void msg_error(const struct ev_error *err)
{
	fprintf(stderr, TOOL ": %s\n", err->text);
}

static const char *synopsis(const char *sub)
{
	if (!sub)
		return "seal <command> [options]   (commands: create, verify, diff, select)";
	if (strcmp(sub, "create") == 0)
		return "seal create [--gzip] [--threads N] [--level N] [--name ROOT] "
		       "[--refuse-writable] [--json] DIR -o OUTDIR";
	if (strcmp(sub, "verify") == 0)
		return "seal verify --seal SEAL.json [--seal-sha256 HEX] [--receipt FILE] [--json] "
		       "(DIR | ARCHIVE)\n       seal verify --selection selection.json [--seal "
		       "SEAL.json] [--json] DIR";
	if (strcmp(sub, "diff") == 0)
		return "seal diff [--json] A.json B.json";
	if (strcmp(sub, "select") == 0)
		return "seal select --seal SEAL.json --include GLOB [--include GLOB ...] -o "
		       "selection.json";
	return "seal <command> [options]";
}

int msg_usage(const char *sub, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs(TOOL ": ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	fprintf(stderr, "usage: %s\nTry 'seal %s%s--help' for more.\n", synopsis(sub),
		sub ? sub : "", sub ? " " : "");
	return 2;
}

void msg_finding(FILE *stream, const char *prefix, const struct ev_finding *f)
{
	char line[2048];
	ev_finding_format(f, line, sizeof line);
	fprintf(stream, "%s%s\n", prefix, line);
}

int parse_count(const char *text, long min, long max, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(text, &end, 10);
	if (errno || end == text || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}
