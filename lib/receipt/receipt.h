/* SPDX-License-Identifier: Apache-2.0 */
/* receipt: what a tool did, on which host, with which inputs, and what it
 * found ("evidence-receipt/1", doc/formats.md "Receipts").
 *
 * A receipt records: kind (seal, replica, audit, capture, cleanup,
 * integration, continuation), the tool's name, version and the SHA-256 of
 * its own executable (an audit is only as good as the auditor that ran it),
 * the host, inputs and outputs with their SHA-256, host-independent facts,
 * every check (name, result, detail), the overall result, start and finish
 * times, how it was invoked (argv and working directory, so that a
 * continuation can run it again; host-specific, outside the comparable
 * part), and "comparable": the SHA-256 of the canonical JSON of the
 * host-independent part
 *     {kind, tool name and version, inputs and outputs (name and sha256
 *      only), facts, checks, result}
 * so receipts written on two hosts are compared by one field. Details and
 * facts must therefore not hold host-specific text (paths, times).
 *
 * A receipt is a jansson object owned by the caller (json_decref).
 * No global state.
 */
#ifndef EV_RECEIPT_H
#define EV_RECEIPT_H

#include <stdint.h>

#include <jansson.h>

#include "lib/core/finding.h"
#include "lib/core/sha256.h"
#include "lib/core/status.h"

#define EV_RECEIPT_FORMAT "evidence-receipt/1"

/* How a tool was run: its argv as main received it. A receipt records it
 * with the working directory its relative paths mean, so that a
 * continuation can run the command again. */
struct ev_invocation {
	int argc;
	char *const *argv;
};

/* A new receipt with format, kind, tool, host and start time filled in,
 * and how (may be NULL: not recorded; nor is an argument that is not
 * UTF-8, which could not be run again). /proc/self/exe is hashed when it
 * can be read, else the tool's sha256 is "unknown". @return NULL on
 * failure. */
json_t *ev_receipt_new(const char *kind, const char *tool_name, const struct ev_invocation *how,
		       struct ev_error *err);

/* Add an input or output; path may be NULL, sha256_hex may be NULL. */
ev_status ev_receipt_add_input(json_t *r, const char *name, const char *path,
			       const char *sha256_hex, struct ev_error *err);
ev_status ev_receipt_add_output(json_t *r, const char *name, const char *path,
				const char *sha256_hex, struct ev_error *err);

/* An output that is itself a receipt: recorded with its bytes' SHA-256
 * and its comparable digest, and compared by the latter (its bytes hold
 * its own times and host). */
ev_status ev_receipt_add_output_receipt(json_t *r, const char *name, const char *path, const char *sha256_hex,
					const char *comparable_hex, struct ev_error *err);

/* A pin (--seal-sha256, --archive-sha256) is one check, passing or failing,
 * so that receipts with and without the pinned file's bytes differ in that
 * check, not in two: pass with pass_detail when found_hex is pinned_hex;
 * else fail with message and both digests, and the same as a finding to
 * fn (marked in_receipt: shown, not kept again). @return 1 when it held. */
int ev_receipt_check_pin(json_t *r, const char *subject, const char *check, const char *message,
			 const char *pass_detail, const char *pinned_hex, const char *found_hex, ev_finding_fn fn,
			 void *ctx, struct ev_error *err);

/* Record a host-independent fact (steals value's reference). */
ev_status ev_receipt_set_fact(json_t *r, const char *key, json_t *value, struct ev_error *err);

/* Record one check; detail may be NULL. */
ev_status ev_receipt_add_check(json_t *r, const char *name, int pass, const char *detail,
			       struct ev_error *err);

/* Record a finding as one failed check named "<check>:<subject>" with the
 * message and values as its detail, so that receipts from two hosts can be
 * compared member by member, and the values again as "expected" and
 * "found" (when not empty), for a continuation to match. */
ev_status ev_receipt_add_finding(json_t *r, const struct ev_finding *f, struct ev_error *err);

/* Set result ("pass" when every check passed, else "fail"), the finish
 * time and the comparable digest. */
ev_status ev_receipt_finish(json_t *r, struct ev_error *err);

/* Compute the comparable digest of a receipt as it stands (hex, 65 bytes). */
ev_status ev_receipt_comparable(const json_t *r, char hex[65], struct ev_error *err);

/* Write the receipt's canonical bytes to path, atomically, mode 0644;
 * an existing path is refused (EV_REFUSED), never replaced. */
ev_status ev_receipt_write(const json_t *r, const char *path, struct ev_error *err);

/* Write the receipt into dir under the first free name of "STEM.json",
 * "STEM-2.json", ... (never replacing one); the path used goes to
 * path_out (cap bytes). */
ev_status ev_receipt_write_fresh(const json_t *r, const char *dir, const char *stem,
				 char *path_out, size_t cap, struct ev_error *err);

/* Where a receipt goes, the one rule (doc/design.md principle 10): a
 * command that makes an output directory (seal create and capsule, audit
 * campaign, capture run) writes its receipt into it; every other command
 * writes it where it is run, EV_RECEIPT_DEFAULT_DIR, never into the
 * evidence it judges. --receipt FILE names the file instead, and where a
 * command takes it, --receipt-dir DIR the directory. */
#define EV_RECEIPT_DEFAULT_DIR "."

/* A receipt the user named (path; NULL: none named) must not exist yet:
 * checked before the long work, so that it is never done for nothing.
 * @return EV_OK, or EV_REFUSED with "PATH: already exists; evidence is
 * never overwritten (choose a new name)". */
ev_status ev_receipt_refuse_existing(const char *path, struct ev_error *err);

/* Where a tool's receipt goes: to path when the user named one (refused
 * if it exists), else into dir under "STEM-<UTC stamp>.json" (or the first
 * free name after it). The path used goes to path_out (cap bytes). */
ev_status ev_receipt_write_chosen(const json_t *r, const char *path, const char *dir, const char *stem,
				  char *path_out, size_t cap, struct ev_error *err);

/* Read a receipt: canonical bytes of an "evidence-receipt/1" document with
 * kind, tool, host, checks, result and comparable present. sha256_out (may
 * be NULL) gets the digest of the file's bytes. *out is a new reference.
 * Whether "comparable" still matches the content is not judged here; see
 * ev_receipt_comparable_holds. */
ev_status ev_receipt_load(const char *path, json_t **out, uint8_t sha256_out[EV_SHA256_LEN],
			  struct ev_error *err);

/* The first top-level field of r that no receipt has (doc/formats.md
 * "Receipts": format, kind, tool, host, started, finished, invocation,
 * inputs, outputs, facts, checks, result, comparable, signature,
 * fresh_receipt), or NULL. A field outside the comparable digest changes no
 * digest: a judge that trusts the digest must look for one too. */
const char *ev_receipt_unknown_field(const json_t *r);

/* @return 1 when r's "comparable" field is the digest of its content as it
 * stands, 0 when it was edited (or is missing), -1 on error. */
int ev_receipt_comparable_holds(const json_t *r, struct ev_error *err);

/* Current UTC time as "YYYY-MM-DDTHH:MM:SSZ" into buf (>= 21 bytes). */
void ev_utc_now(char *buf, size_t cap);

/* Current UTC time as "YYYYMMDDTHHMMSSZ", for file names (>= 17 bytes). */
void ev_utc_stamp(char *buf, size_t cap);

#endif
