/* SPDX-License-Identifier: Apache-2.0 */
/* archive_reader: check an evidence archive against a seal in one streaming
 * pass, never extracting anything to disk.
 *
 * The raw file is read once: its bytes are hashed (the archive's own
 * SHA-256) as they are decompressed (zstd or gzip, decoder.h), libarchive
 * reads the tar inside (only the tar format is accepted), and every
 * member's content is hashed as it streams. Bytes after the end of the
 * compressed stream are a "trailing" finding; the members before them are
 * all checked.
 * Checked: SEAL.json is the first member and equals the given seal's bytes;
 * every other member is ROOT/<path> with a valid member path, appears once,
 * in seal order, with the sealed type, mode, size and SHA-256; links,
 * devices and FIFOs are findings; every sealed member is present; no two
 * names collide where case or Unicode normalization is ignored
 * (namefold.h). Absolute names and names with "..", backslashes or control
 * characters are "refused" findings. Reading goes on past the first
 * end-of-archive marker: an archive appended behind it shows up as extra
 * members, anything else but zero padding as damage.
 *
 * Member contents are hashed on a second thread (hashpipe.h) while the next
 * ones are decompressed; their sha256 findings are therefore reported after
 * the others, in seal order.
 * Every difference goes to the finding callback; the walk goes on after a
 * member-level finding. A stream that cannot be decoded (truncated,
 * corrupt) is a finding too ("stream"), after which nothing more can be
 * read. Memory is bounded by libarchive's buffers, not by member sizes.
 * Used by seal verify and replicate verify. No global state.
 */
#ifndef EV_ARCHIVE_READER_H
#define EV_ARCHIVE_READER_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "lib/core/finding.h"
#include "lib/core/meter.h"
#include "lib/archive/seal.h"
#include "lib/core/sha256.h"
#include "lib/core/status.h"

struct ev_archive_check {
	uint8_t archive_sha256[EV_SHA256_LEN]; /* of the whole file, as read */
	uint64_t archive_bytes;
	uint64_t members_checked; /* entries seen after SEAL.json */
	uint64_t unreached;       /* sealed members never reached after damage */
	const char *compression;  /* "zstd", "gzip" or "unknown" (static) */
	unsigned findings;
	uint64_t extra_names_not_folded; /* extra members past the first 65536,
					     not compared for name collisions */
};

/* Check the archive at path against seal (whose canonical bytes are
 * seal_bytes/seal_len). progress (may be NULL) is advanced by member bytes
 * and files read, from the calling thread: the seal's totals are its goal.
 * interrupted (may be NULL) is looked at with every decoded block (128 KiB),
 * inside a member too: once nonzero, the check stops.
 * @return EV_OK when nothing was found, EV_MISMATCH when findings were
 * reported, EV_ERROR when the file could not be read, EV_INTERRUPTED when
 * stopped (nothing is claimed: the findings so far are not the archive's). */
ev_status ev_archive_check(const char *path, const struct ev_seal *seal, const char *seal_bytes,
			   size_t seal_len, ev_finding_fn on_finding, void *ctx,
			   const struct ev_meter *progress, volatile sig_atomic_t *interrupted,
			   struct ev_archive_check *result, struct ev_error *err);

/* A tap: the content of chosen members as it streams by, for a reader that
 * works on members without extracting them (audit journal --archive).
 * begin is called for each member the seal says is a regular file, as it
 * comes, with its index in the seal; a non-NULL return asks for its bytes:
 * data with each block, in order, then end (complete 0: the stream broke
 * inside the member). The bytes are the archive's, not yet proven to be
 * the sealed ones: the member's sha256 finding, if any, says so after. */
struct ev_archive_tap {
	void *(*begin)(void *ctx, size_t seal_index, const struct ev_member *sealed);
	void (*data)(void *member, const void *bytes, size_t len);
	void (*end)(void *member, int complete);
	void *ctx;
};

/* ev_archive_check, handing members' bytes to tap (NULL: none) as well. */
ev_status ev_archive_check_tapped(const char *path, const struct ev_seal *seal,
				  const char *seal_bytes, size_t seal_len, ev_finding_fn on_finding,
				  void *ctx, const struct ev_archive_tap *tap,
				  const struct ev_meter *progress, volatile sig_atomic_t *interrupted,
				  struct ev_archive_check *result, struct ev_error *err);

/* The archive's first member, SEAL.json, read without going further: what
 * a command checks before it relies on the archive (replicate push, before
 * it copies a byte). *bytes (malloc'd, NUL-terminated) receives its
 * content, at most max bytes. @return EV_OK; EV_MISMATCH when the archive
 * cannot be decoded or its first member is not a SEAL.json file of at most
 * max bytes (err says what was found); EV_ERROR when it cannot be read. */
ev_status ev_archive_embedded_seal(const char *path, size_t max, char **bytes, size_t *len,
				   struct ev_error *err);

/* What a pass of ev_archive_check means, for a receipt's "coverage" fact:
 * {"recomputed": [...], "pinned": [...], "not_checked": [...],
 *  "not_read": "..."}, each an English sentence, and into line (cap bytes)
 * the same in one line for a closing message. seal_pinned and
 * archive_pinned: whether --seal-sha256 / --archive-sha256 pinned them
 * (archive_pinned -1: the command has no such pin). @return a new object. */
json_t *ev_archive_coverage(const struct ev_archive_check *res, int seal_pinned, int archive_pinned,
			    char *line, size_t cap);

#endif
