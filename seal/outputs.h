/* outputs: how seal create and seal capsule take their archive options
 * (--gzip, --level N, --jobs N) and print the OUTDIR they made
 * (lib/usecase/seal_outdir writes it). */
#ifndef SEAL_OUTPUTS_H
#define SEAL_OUTPUTS_H

#include "lib/usecase/seal_outdir.h"

/* One option from getopt (c 'z', 'l', 'J' or 't', with arg). @return 0 when
 * taken; -1 when c is none of these; or msg_usage's exit code when the
 * value is out of range. */
int seal_archive_opt(struct ev_seal_archive_opts *a, int c, const char *arg, const char *subcommand);

/* After the options, what holds only together (gzip takes levels 1-9).
 * @return 0, or msg_usage's exit code. */
int seal_archive_opts_check(const struct ev_seal_archive_opts *a, const char *subcommand);

/* "sealed ROOT: N files, M dirs, SIZE into OUTDIR" and both digests. */
void seal_out_print(const struct ev_seal_outdir *so, const struct ev_seal *seal);

#endif
