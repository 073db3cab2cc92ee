/* outputs: the OUTDIR of a seal: SEAL.json, the archive and receipt.json,
 * built under a hidden name and moved into place whole (lib/core/publish.h). The
 * caller lists the members (sizes known, digests zero), begins, writes each
 * member's header and bytes through the writer in seal order, fills the
 * digests and finishes with its receipt (kind, inputs, its own facts and
 * checks); the outputs, the totals, the compression and the archive's size
 * are added here. Shared by seal create and seal capsule. */
#ifndef SEAL_OUTPUTS_H
#define SEAL_OUTPUTS_H

#include <jansson.h>

#include "lib/archive/archive_writer.h"
#include "lib/core/publish.h"
#include "lib/archive/seal.h"
#include "lib/core/sha256.h"

/* How the archive is written, as seal create and seal capsule take it:
 * --gzip, --level N, --threads N. */
struct seal_archive_opts {
	enum ev_compression compression;
	int level, threads; /* level 0: the library's default */
};

/* zstd at its default level, one thread per online CPU. */
void seal_archive_opts_init(struct seal_archive_opts *a);

/* One option from getopt (c 'z', 'l' or 't', with arg). @return 0 when
 * taken; -1 when c is none of these; or msg_usage's exit code when the
 * value is out of range. */
int seal_archive_opt(struct seal_archive_opts *a, int c, const char *arg, const char *subcommand);

/* After the options, what holds only together (gzip takes levels 1-9).
 * @return 0, or msg_usage's exit code. */
int seal_archive_opts_check(const struct seal_archive_opts *a, const char *subcommand);

struct seal_out {
	const char *outdir;
	enum ev_compression compression;
	struct ev_outdir od;
	struct ev_outfile archive, seal_file, receipt_file;
	struct ev_archive_writer *writer;
	char *seal_bytes;
	size_t seal_len;
	char seal_hex[EV_SHA256_HEX_LEN + 1], archive_hex[EV_SHA256_HEX_LEN + 1];
};

/* Open OUTDIR (which must not exist) and the archive writer, for seal
 * (members listed, digests not yet known: the SEAL.json length is final). */
ev_status seal_out_begin(struct seal_out *so, const char *outdir, const struct seal_archive_opts *a,
			 const struct ev_seal *seal, struct ev_error *err);

/* After every member: SEAL.json (seal's digests now filled) in front of
 * the archive, the archive hashed and committed, SEAL.json and receipt
 * (completed here) written, OUTDIR moved into place. */
ev_status seal_out_finish(struct seal_out *so, const struct ev_seal *seal, json_t *receipt,
			  struct ev_error *err);

/* Abort what is not committed; free. Safe on a zeroed struct. */
void seal_out_free(struct seal_out *so);

/* "sealed ROOT: N files, M dirs, SIZE into OUTDIR" and both digests. */
void seal_out_print(const struct seal_out *so, const struct ev_seal *seal);

#endif
