/* SPDX-License-Identifier: Apache-2.0 */
/* archive_verify: one archive checked against its seal, recorded in a
 * receipt. The one verification behind `seal verify ARCHIVE` and
 * `replicate verify`, so that both mean the same by a pass.
 *
 * In order: SEAL.json is read (its bytes proved first when pinned: on a
 * different seal nothing else is read), the archive in one pass (every
 * member's SHA-256, size, mode and type, the embedded SEAL.json's bytes,
 * the whole stream), its own SHA-256 against its pin when one is given.
 * The receipt (the caller's, still open) receives the seal and archive
 * inputs, the checks "seal-sha256" and "archive-sha256" when pinned, the
 * fact "coverage" and the check "members"; the caller adds its own facts,
 * then finishes and writes it. Findings go to on_finding as they are
 * made, pins' included (a failed pin is its check, and its finding says
 * in_receipt); nothing is printed.
 *
 * One struct per verification, owned by the caller: fill the inputs, call
 * ev_archive_verify, read the outputs, call ev_archive_verify_free. No
 * global state.
 */
#ifndef EV_ARCHIVE_VERIFY_H
#define EV_ARCHIVE_VERIFY_H

#include <signal.h>
#include <stdint.h>

#include <jansson.h>

#include "lib/archive/archive_reader.h"
#include "lib/archive/seal.h"
#include "lib/core/finding.h"
#include "lib/core/meter.h"
#include "lib/core/sha256.h"
#include "lib/core/status.h"

struct ev_archive_verify {
	/* inputs */
	const char *archive, *seal;                   /* the files read */
	const char *archive_recorded, *seal_recorded; /* their names in the receipt (NULL: as read) */
	const char *seal_sha256, *archive_sha256;     /* pins (64 hex digits); NULL: none */
	int archive_pin_offered;  /* 0: the command has no archive pin, and its coverage says nothing of one */
	ev_finding_fn on_finding; /* required */
	void *ctx;
	const struct ev_meter *meter;        /* may be NULL */
	volatile sig_atomic_t *interrupted;  /* may be NULL */

	/* outputs */
	struct ev_seal seal_doc;  /* the seal read (empty when it was not the pinned one) */
	struct ev_archive_check check;
	char seal_hex[EV_SHA256_HEX_LEN + 1], archive_hex[EV_SHA256_HEX_LEN + 1]; /* "" until read */
	uint64_t findings;        /* every finding passed to on_finding */
	int seal_unpinned;        /* SEAL.json was not the pinned one: nothing else was read */
	char coverage[512];       /* the coverage in one line ("" when the archive was not read) */
};

/* Verify v->archive against v->seal into receipt.
 * @return EV_OK when nothing was found; EV_MISMATCH when findings were
 * made (the receipt is complete and says which); EV_INTERRUPTED,
 * EV_ERROR or another status when the verification could not be made:
 * then the receipt claims nothing and must not be written. */
ev_status ev_archive_verify(struct ev_archive_verify *v, json_t *receipt, struct ev_error *err);

void ev_archive_verify_free(struct ev_archive_verify *v);

#endif
