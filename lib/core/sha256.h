/* SPDX-License-Identifier: Apache-2.0 */
/* sha256: streaming SHA-256 through OpenSSL's EVP_Digest interface.
 *
 * EVP_Digest* is used, never the low-level SHA256_* calls, because it is the
 * interface that reaches the CPU's SHA extensions on every OpenSSL release.
 * A context belongs to one thread; create/free pairs, free accepts NULL.
 */
#ifndef EV_SHA256_H
#define EV_SHA256_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/core/status.h"

#define EV_SHA256_LEN 32
#define EV_SHA256_HEX_LEN 64 /* without the terminating NUL */

struct ev_sha256;

/* @return a context ready for updates, or NULL when out of memory. */
struct ev_sha256 *ev_sha256_new(void);
void ev_sha256_free(struct ev_sha256 *ctx);

/* Restart the context for a new message. @return EV_OK or EV_ERROR. */
ev_status ev_sha256_reset(struct ev_sha256 *ctx, struct ev_error *err);
ev_status ev_sha256_update(struct ev_sha256 *ctx, const void *data, size_t len,
			   struct ev_error *err);
/* Finish the message into out (32 bytes). The context must be reset before
 * it is used again. */
ev_status ev_sha256_final(struct ev_sha256 *ctx, uint8_t out[EV_SHA256_LEN],
			  struct ev_error *err);

/* The digest of what ctx has seen so far, without ending it: ctx goes on
 * taking updates (a resumed transfer reports its prefix, then hashes on). */
ev_status ev_sha256_peek(const struct ev_sha256 *ctx, uint8_t out[EV_SHA256_LEN],
			 struct ev_error *err);

/* One-shot digest of a buffer. */
ev_status ev_sha256_buffer(const void *data, size_t len, uint8_t out[EV_SHA256_LEN],
			   struct ev_error *err);

/* Digest everything readable from fd (until EOF). name is used in errors.
 * If size_out is not NULL it receives the number of bytes read. */
ev_status ev_sha256_fd(int fd, const char *name, uint8_t out[EV_SHA256_LEN],
		       uint64_t *size_out, struct ev_error *err);

/* ev_sha256_fd, looking at *stop (may be NULL) before every read: once
 * nonzero, @return EV_INTERRUPTED (out is not set). */
ev_status ev_sha256_fd_until(int fd, const char *name, uint8_t out[EV_SHA256_LEN], uint64_t *size_out,
			     volatile sig_atomic_t *stop, struct ev_error *err);

/* Digest a file by path. */
ev_status ev_sha256_path(const char *path, uint8_t out[EV_SHA256_LEN],
			 uint64_t *size_out, struct ev_error *err);

/* Lower-case hex of a digest; hex must hold EV_SHA256_HEX_LEN + 1 bytes. */
void ev_sha256_hex(const uint8_t digest[EV_SHA256_LEN], char hex[EV_SHA256_HEX_LEN + 1]);

/* @return 1 when s is exactly 64 lower-case hex digits, else 0. */
int ev_sha256_hex_valid(const char *s);

/* The n bytes whose lower-case hex is s: exactly 2n digits 0-9a-f, nothing
 * before, between or after (no sign, space, prefix or capital: what
 * sscanf's %x would let by). The one hex reader of evidence.
 * @return 0; -1 (out unspecified) when s is NULL or not so. */
int ev_hex_decode(const char *s, uint8_t *out, size_t n);

#endif
