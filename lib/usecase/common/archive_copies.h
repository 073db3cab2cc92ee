/* SPDX-License-Identifier: Apache-2.0 */
/* archive_copies: the members an audit reads, copied out of a sealed
 * archive into a private directory in the one pass that checks the whole
 * archive against its seal.
 *
 * An audit from an archive reads the same files an audit from the tree
 * reads, and some of them at random (a series mapped, perf.data handed to
 * perf, a journal read twice), so they cannot be consumed as they stream.
 * ev_archive_copies_make checks the archive as replicate verify does
 * (every member, its type, mode, size and SHA-256, nothing extra, the
 * stream whole) and, as the bytes go by, writes each regular member it is
 * asked for to SCRATCH/ROOT/PATH, where SCRATCH is a private directory
 * (lib/core/scratch: 0700, removed however the process ends, SIGKILL
 * included) and ROOT the seal's root. A copy whose stream broke is
 * removed; a copy whose bytes are not the sealed ones stays, and the
 * member's finding says so: the caller decides what a finding costs.
 * Paths under the copies are shown to people as the archive names them:
 * ROOT/PATH, by renaming the prefix `shown_from` away (ev_text_rename).
 *
 * Disk: the copies, in $TMPDIR. Memory: libarchive's buffers. One struct
 * per archive, owned by the caller; ev_archive_copies_free on every path.
 */
#ifndef EV_ARCHIVE_COPIES_H
#define EV_ARCHIVE_COPIES_H

#include <limits.h>
#include <signal.h>

#include <jansson.h>

#include "lib/archive/archive_reader.h"
#include "lib/archive/seal.h"
#include "lib/core/finding.h"
#include "lib/core/meter.h"
#include "lib/core/scratch.h"
#include "lib/core/sha256.h"
#include "lib/core/status.h"

struct ev_archive_copies {
	/* inputs */
	const char *archive, *seal_path, *seal_sha256; /* seal_sha256 may be NULL (no pin) */
	const char *purpose;          /* names the private directory: "audit-campaign" */
	/* may be NULL (every regular member, or the named ones): whether to
	 * copy the member at path (from the seal's root) */
	int (*wanted)(void *ctx, const char *path);
	/* when wanted is NULL and nnames > 0: only these members, each named
	 * from the seal's root or with the root in front, a file or a
	 * directory (every member beneath it) */
	const char *const *names;
	size_t nnames;
	/* required: every finding of the check, its subject the member's path
	 * from the seal's root ("archive", "SEAL.json" for the whole) */
	ev_finding_fn on_finding;
	void *ctx;
	const struct ev_meter *progress;     /* may be NULL: member bytes read */
	volatile sig_atomic_t *interrupted;  /* may be NULL */

	/* outputs */
	struct ev_seal seal;
	char seal_hex[EV_SHA256_HEX_LEN + 1];
	char archive_hex[EV_SHA256_HEX_LEN + 1];
	struct ev_archive_check check;
	unsigned findings;
	char first[PATH_MAX + 256];   /* the first finding in one line: "PATH: check: message" */
	char root[PATH_MAX];          /* SCRATCH/ROOT: the copies, as a tree */
	char shown_from[PATH_MAX + 2]; /* "SCRATCH/": what gives way so that a copy is named ROOT/PATH */
	unsigned named_findings;      /* with names: the findings about a named member */

	/* its own */
	struct ev_scratch scratch;
};

/* A struct with nothing made yet. */
void ev_archive_copies_init(struct ev_archive_copies *c);

/* Load the seal (held to its pin when one is given; the archive's first
 * member must be the same bytes either way), make the private directory,
 * check the archive and copy what is wanted. @return EV_OK with no finding; EV_MISMATCH with
 * findings (each given to on_finding; the copies stand); EV_USAGE or
 * EV_REFUSED (the seal), EV_ERROR (the archive cannot be read, the
 * directory cannot be made), EV_INTERRUPTED: no copies are left, and the
 * seal is freed. */
ev_status ev_archive_copies_make(struct ev_archive_copies *c, struct ev_error *err);

/* Where the copy of name (as ev_archive_copies_make's names take it)
 * lies, into out (cap bytes). @return EV_OK; EV_USAGE when the seal holds
 * no such member (nor any beneath it), naming the archive and the seal. */
ev_status ev_archive_copies_path(const struct ev_archive_copies *c, const char *name, char *out, size_t cap,
				 struct ev_error *err);

/* The inputs SEAL.json and archive (their paths as given, their SHA-256)
 * and the check "archive against its seal" (its first finding named)
 * added to receipt. */
void ev_archive_copies_to_receipt(const struct ev_archive_copies *c, json_t *receipt, struct ev_error *err);

/* The copies removed, the seal freed. Safe after init alone. */
void ev_archive_copies_free(struct ev_archive_copies *c);

#endif
