/* SPDX-License-Identifier: Apache-2.0 */
/* json: canonical JSON documents (doc/design.md "Formats and their owners").
 *
 * Canonical means: keys sorted, no insignificant white space, UTF-8, one
 * trailing newline; so the SHA-256 of a document's bytes is reproducible and
 * names it. Every document carries "format": "evidence-<kind>/1".
 *
 * Built on jansson; values are jansson's json_t and follow its reference
 * rules. Reading is strict: duplicate keys, a missing or different format
 * tag, and (when asked) bytes that are not in canonical form are refused.
 * No global state.
 */
#ifndef EV_JSON_H
#define EV_JSON_H

#include <stddef.h>
#include <stdint.h>

#include <stdio.h>

#include <jansson.h>

#include "lib/core/sha256.h"
#include "lib/core/status.h"

/* Largest document the tools read into memory (seals of millions of
 * members stay well below it). */
#define EV_JSON_MAX_BYTES ((size_t)1 << 30)

/* Canonical JSON holds integers only: a fraction is written as a string
 * of decimal digits, the same bytes on every host. */

/* num / den (den > 0) with exactly `digits` fractional digits (at most
 * 18), rounded half up, computed in integers: "7446.491114000". A JSON
 * string. */
json_t *ev_json_decimal(unsigned __int128 num, uint64_t den, unsigned digits);

/* A double computed elsewhere (a median of means, a ratio for a plot) as
 * the decimal string printf("%.*f") gives for its exact binary value: the
 * same text for the same double on every host. digits at most 18. */
json_t *ev_json_decimal_of(double value, unsigned digits);

/* The first key of obj that allowed (a NULL-ended list) does not name,
 * or NULL when every key is allowed: a document's reader refuses a
 * misspelt key rather than ignore it. The one such check; each reader
 * says the refusal in its own words. */
const char *ev_json_unknown_key(const json_t *obj, const char *const *allowed);

/* Serialize value canonically (a real anywhere in it is refused: EV_ERROR
 * naming its key). On success *out is a malloc'd buffer the
 * caller frees, *len its length (the trailing newline included, no NUL
 * counted; the buffer is NUL-terminated). */
ev_status ev_json_dump(const json_t *value, char **out, size_t *len, struct ev_error *err);

/* The SHA-256 of value's canonical bytes, exactly ev_json_dump's (the
 * trailing newline too; a real refused as there), hashed as they are
 * written through a buffer on the stack, never held whole: a receipt's
 * comparable digest is taken again for every row of a catalog. */
ev_status ev_json_sha256(const json_t *value, uint8_t out[EV_SHA256_LEN], struct ev_error *err);

/* Append value's canonical bytes (as ev_json_dump's, without the newline;
 * any value, a bare string too; no check for reals) at the end of the
 * malloc'd buffer *buf of *len bytes and *cap capacity, growing it.
 * For a document too large to build as one tree: each part is dumped and
 * freed in turn, and the parts joined as the whole would be.
 * @return 0, or -1 when out of memory (the buffer is left as it was). */
int ev_json_append(const json_t *value, char **buf, size_t *len, size_t *cap);

/* Append the n bytes at text, as ev_json_append. */
int ev_json_append_raw(const char *text, size_t n, char **buf, size_t *len, size_t *cap);

/* ev_text_rename (lib/core/text.h) on every string value anywhere in
 * value (object keys are left as they are). @return how many strings
 * changed; -1 when out of memory (some may have changed). */
long ev_json_rename(json_t *value, const char *from, const char *to);

/* Where two documents first differ, walking a's keys in their order (a
 * key b lacks, or b's extra key after a's are done) and arrays index by
 * index: the path into path (cap bytes; "runs[2].recomputed.max", "" for
 * the documents themselves) and each side's value there as compact JSON
 * ("absent" when missing; cut to vcap bytes) into va and vb.
 * @return 1 when they differ, 0 when they are equal. */
int ev_json_first_difference(const json_t *a, const json_t *b, char *path, size_t cap, char *va, char *vb,
			     size_t vcap);

/* Flags for ev_json_parse / ev_json_load. */
#define EV_JSON_REQUIRE_CANONICAL 1u

/* Parse a document from bytes. name is used in errors. The document must be
 * an object whose "format" is the string expected_format (e.g.
 * "evidence-seal/1"); NULL skips that check. On success *out holds a new
 * reference the caller releases with json_decref. */
ev_status ev_json_parse(const char *bytes, size_t len, const char *name,
			const char *expected_format, unsigned flags, json_t **out,
			struct ev_error *err);

/* Read a whole file (at most EV_JSON_MAX_BYTES), parse it as above.
 * sha256_out (may be NULL) receives the digest of the file's bytes;
 * bytes_out (may be NULL) receives a malloc'd copy of them, the caller
 * frees it, and len_out their length. */
ev_status ev_json_load(const char *path, const char *expected_format, unsigned flags,
		       json_t **out, uint8_t sha256_out[EV_SHA256_LEN], char **bytes_out,
		       size_t *len_out, struct ev_error *err);

/* Read a whole file into a malloc'd buffer (NUL-terminated), at most limit
 * bytes; a larger file is an error. */
ev_status ev_file_read_all(const char *path, size_t limit, char **out, size_t *len,
			   struct ev_error *err);

/* Helpers for strict field access: each fails naming `what` and the key. */
ev_status ev_json_get_string(const json_t *obj, const char *key, const char *what,
			     const char **out, struct ev_error *err);
ev_status ev_json_get_u64(const json_t *obj, const char *key, const char *what,
			  uint64_t *out, struct ev_error *err);

#endif
