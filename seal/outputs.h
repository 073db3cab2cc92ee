/* SPDX-License-Identifier: Apache-2.0 */
/* outputs: how seal create and seal capsule take their archive options
 * (--gzip, --level N, --jobs N) and print the OUTDIR they made
 * (lib/usecase/seal/seal_outdir writes it). */
#ifndef SEAL_OUTPUTS_H
#define SEAL_OUTPUTS_H

#include "lib/cli/command.h"
#include "lib/usecase/seal/seal_outdir.h"

/* The archive options, by name: their keys in every table that takes them. */
enum seal_archive_option {
	SEAL_ARCHIVE_OPT_GZIP = 'z',
	SEAL_ARCHIVE_OPT_JOBS = 'J',
	SEAL_ARCHIVE_OPT_LEVEL = 'l',
	SEAL_ARCHIVE_OPT_SIGN_KEY = 'K',
	SEAL_ARCHIVE_OPT_THREADS = 't',
};

/* The archive options' entries in the command table (create, capsule). */
#define SEAL_OPTION_GZIP {"gzip", 0, NULL, SEAL_ARCHIVE_OPT_GZIP, "write archive.tar.gz instead of archive.tar.zst", EV_CLI_TEXT, NULL}
#define SEAL_OPTION_JOBS \
	{"jobs", 0, "N", SEAL_ARCHIVE_OPT_JOBS, "compression workers (default: all cores); --threads N\nis the same", EV_CLI_COUNT, "1..256"}
#define SEAL_OPTION_LEVEL \
	{"level", 0, "N", SEAL_ARCHIVE_OPT_LEVEL, "compression level (zstd -7 to 19, default 1; gzip 1-9, default 6)", EV_CLI_COUNT, "-7..19"}
#define SEAL_OPTION_THREADS {"threads", 0, "N", SEAL_ARCHIVE_OPT_THREADS, NULL, EV_CLI_COUNT, "1..256"} /* --jobs' older name */

/* One option from getopt (c one of seal_archive_option, with arg; a count
 * read from g, which checked it). @return 0 when taken; -1 when c is none
 * of these; or ev_cli_usage's exit code when the value is refused. */
int seal_archive_opt(struct ev_seal_archive_opts *a, const struct ev_cli_getopt *g, int c, const char *arg,
		     const char *subcommand);

/* After the options, what holds only together (gzip takes levels 1-9).
 * @return 0, or ev_cli_usage's exit code. */
int seal_archive_opts_check(const struct ev_seal_archive_opts *a, const char *subcommand);

/* "sealed ROOT: N files, M dirs, SIZE into OUTDIR" and both digests. */
void seal_out_print(const struct ev_seal_outdir *so, const struct ev_seal *seal);

#endif
