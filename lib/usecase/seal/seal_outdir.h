/* SPDX-License-Identifier: Apache-2.0 */
/* seal_outdir: the OUTDIR of a seal: SEAL.json, the archive and
 * receipt.json, built under a hidden name and moved into place whole
 * (lib/core/publish). The caller lists the members (sizes known, digests
 * zero), begins, writes each member's header and bytes through the writer
 * in seal order, fills the digests and finishes with its receipt (kind,
 * inputs, its own facts and checks); the outputs, the totals, the
 * compression and the archive's size are added here. Used by seal create
 * (lib/usecase/seal/seal_create) and seal capsule.
 *
 * One struct per OUTDIR, owned by the caller. No global state.
 */
#ifndef EV_SEAL_OUTDIR_H
#define EV_SEAL_OUTDIR_H

#include <signal.h>

#include <jansson.h>

#include "lib/archive/archive_writer.h"
#include "lib/archive/seal.h"
#include "lib/core/publish.h"
#include "lib/core/sha256.h"
#include "lib/receipt/signature.h"

/* How the archive is written: --gzip, --level N, --jobs N. */
struct ev_seal_archive_opts {
	enum ev_compression compression;
	int level, threads; /* level 0: the library's default */
	struct ev_signing_key *sign_key; /* --sign-key (the caller's); NULL: unsigned */
};

/* zstd at its default level, one thread per online CPU. */
void ev_seal_archive_opts_init(struct ev_seal_archive_opts *a);

struct ev_seal_outdir {
	const char *outdir;
	enum ev_compression compression;
	struct ev_outdir od;
	struct ev_outfile archive, seal_file, receipt_file;
	struct ev_archive_writer *writer;
	char *seal_bytes;
	size_t seal_len;
	char seal_hex[EV_SHA256_HEX_LEN + 1], archive_hex[EV_SHA256_HEX_LEN + 1];
	const struct ev_signing_key *sign_key;
};

/* Open OUTDIR (which must not exist) and the archive writer, for seal
 * (members listed, digests not yet known: the SEAL.json length is final). */
ev_status ev_seal_outdir_begin(struct ev_seal_outdir *so, const char *outdir,
			       const struct ev_seal_archive_opts *a, const struct ev_seal *seal,
			       struct ev_error *err);

/* After every member: SEAL.json (seal's digests now filled) in front of
 * the archive, the archive hashed and committed, SEAL.json and receipt
 * (completed here) written, OUTDIR moved into place, unless interrupted
 * (may be NULL) became nonzero before that last step: then EV_INTERRUPTED
 * and nothing is published. */
ev_status ev_seal_outdir_finish(struct ev_seal_outdir *so, const struct ev_seal *seal, json_t *receipt,
				volatile sig_atomic_t *interrupted, struct ev_error *err);

/* Abort what is not committed; free. Safe on a zeroed struct. */
void ev_seal_outdir_free(struct ev_seal_outdir *so);

#endif
