/* SPDX-License-Identifier: Apache-2.0 */
/* timestamp_beside: a file's RFC 3161 request and reply as they lie beside
 * it (doc/formats.md "Trusted timestamps"): FILE.tsq, the request over
 * the SHA-256 of FILE's bytes, and FILE.tsr, the TSA's reply, stored only
 * once it verified. Read here by every judge of a trusted time (replicate
 * check, status, prune, accept); made by `seal timestamp`
 * (lib/usecase/seal/timestamp_file), which also asks a TSA for one.
 * No global state.
 */
#ifndef EV_TIMESTAMP_BESIDE_H
#define EV_TIMESTAMP_BESIDE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/core/sha256.h"
#include "lib/core/status.h"
#include "lib/receipt/timestamp.h"

#define EV_TIMESTAMP_REPLY_MAX ((size_t)1 << 20)

/* Whether FILE.tsr lies beside file (a timestamp was stored). */
int ev_timestamp_present(const char *file);

/* The SHA-256 of file's bytes, a regular file. */
ev_status ev_timestamp_file_digest(const char *file, uint8_t d[EV_SHA256_LEN], struct ev_error *err);

/* reply (a file: FILE.tsr when NULL) held to FILE.tsq, FILE's digest d and
 * the CA file. With reply_bytes, the reply's bytes are kept there
 * (malloc'd, *reply_len of them) to be stored. @return EV_OK (v filled);
 * EV_MISMATCH (why, cap bytes, names the fact that failed); EV_REFUSED or
 * EV_ERROR (a file missing or not a regular file), err saying why. */
ev_status ev_timestamp_beside_verify(const char *file, const uint8_t d[EV_SHA256_LEN], const char *reply,
				     const char *ca, struct ev_timestamp_verdict *v, char *why, size_t cap,
				     char **reply_bytes, size_t *reply_len, struct ev_error *err);

/* FILE's stored timestamp verified against ca, for the readers that show
 * or require a trusted time. @return as ev_timestamp_beside_verify; why
 * holds the failed fact, or err's text for an error. */
ev_status ev_timestamp_check(const char *file, const char *ca, struct ev_timestamp_verdict *v, char *why, size_t cap,
			     struct ev_error *err);

#endif
