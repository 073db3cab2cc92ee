/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "seal/outputs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli/cli.h"
#include "lib/cli/progress.h"
#include "seal/seal.h"

int seal_archive_opt(struct ev_seal_archive_opts *a, const struct ev_cli_getopt *g, int c, const char *arg,
		     const char *subcommand)
{
	switch (c) {
	case SEAL_ARCHIVE_OPT_GZIP: a->compression = EV_COMPRESS_GZIP; return 0;
	case SEAL_ARCHIVE_OPT_LEVEL:
		if (g->count == 0) /* zstd's "default", which a seal never leaves to the library */
			return ev_cli_usage(&seal_tool, subcommand, "option --level: expected -7 to -1 or 1 to 19, found '%s'", arg);
		a->level = (int)g->count;
		return 0;
	case SEAL_ARCHIVE_OPT_JOBS: /* --jobs, as in audit; --threads, its older name */
	case SEAL_ARCHIVE_OPT_THREADS:
		a->threads = (int)g->count;
		return 0;
	case SEAL_ARCHIVE_OPT_SIGN_KEY: return ev_cli_sign_key(TOOL, arg, &a->sign_key);
	default: return -1;
	}
}

int seal_archive_opts_check(const struct ev_seal_archive_opts *a, const char *subcommand)
{
	if (a->compression == EV_COMPRESS_GZIP && (a->level > 9 || a->level < 0))
		return ev_cli_usage(&seal_tool, subcommand, "option --level: gzip takes 1-9, found %d", a->level);
	return 0;
}

void seal_out_print(const struct ev_seal_outdir *so, const struct ev_seal *seal)
{
	char size[32], asize[32];
	ev_format_bytes(seal->bytes, size, sizeof size);
	ev_format_bytes(ev_archive_writer_size(so->writer), asize, sizeof asize);
	printf("sealed %s: %llu files, %llu dirs, %s into %s\n", seal->root,
	       (unsigned long long)seal->files, (unsigned long long)seal->dirs, size, so->outdir);
	printf("  %-16s sha256 %s\n", EV_SEAL_FILENAME, so->seal_hex);
	printf("  %-16s sha256 %s (%s)\n", ev_archive_filename(so->compression), so->archive_hex, asize);
}
