/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/core/sha256.h"
#include "lib/core/input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>

#define READ_CHUNK (1u << 20)

struct ev_sha256 {
	EVP_MD_CTX *md;
};

struct ev_sha256 *ev_sha256_new(void)
{
	struct ev_sha256 *ctx = calloc(1, sizeof *ctx);
	if (!ctx)
		return NULL;
	ctx->md = EVP_MD_CTX_new();
	if (!ctx->md || EVP_DigestInit_ex(ctx->md, EVP_sha256(), NULL) != 1) {
		ev_sha256_free(ctx);
		return NULL;
	}
	return ctx;
}

void ev_sha256_free(struct ev_sha256 *ctx)
{
	if (!ctx)
		return;
	EVP_MD_CTX_free(ctx->md);
	free(ctx);
}

ev_status ev_sha256_reset(struct ev_sha256 *ctx, struct ev_error *err)
{
	if (EVP_DigestInit_ex(ctx->md, EVP_sha256(), NULL) != 1)
		return ev_error_set(err, EV_ERROR, "SHA-256: EVP_DigestInit_ex failed");
	return EV_OK;
}

ev_status ev_sha256_update(struct ev_sha256 *ctx, const void *data, size_t len,
			   struct ev_error *err)
{
	if (len && EVP_DigestUpdate(ctx->md, data, len) != 1)
		return ev_error_set(err, EV_ERROR, "SHA-256: EVP_DigestUpdate failed");
	return EV_OK;
}

ev_status ev_sha256_final(struct ev_sha256 *ctx, uint8_t out[EV_SHA256_LEN],
			  struct ev_error *err)
{
	unsigned int n = 0;
	if (EVP_DigestFinal_ex(ctx->md, out, &n) != 1 || n != EV_SHA256_LEN)
		return ev_error_set(err, EV_ERROR, "SHA-256: EVP_DigestFinal_ex failed");
	return EV_OK;
}

ev_status ev_sha256_peek(const struct ev_sha256 *ctx, uint8_t out[EV_SHA256_LEN],
			 struct ev_error *err)
{
	EVP_MD_CTX *copy = EVP_MD_CTX_new();
	unsigned int n = 0;
	int ok = copy && EVP_MD_CTX_copy_ex(copy, ctx->md) == 1 &&
		 EVP_DigestFinal_ex(copy, out, &n) == 1 && n == EV_SHA256_LEN;
	EVP_MD_CTX_free(copy);
	return ok ? EV_OK : ev_error_set(err, EV_ERROR, "SHA-256: cannot copy the digest state");
}

ev_status ev_sha256_buffer(const void *data, size_t len, uint8_t out[EV_SHA256_LEN],
			   struct ev_error *err)
{
	unsigned int n = 0;
	if (EVP_Digest(data, len, out, &n, EVP_sha256(), NULL) != 1 || n != EV_SHA256_LEN)
		return ev_error_set(err, EV_ERROR, "SHA-256: EVP_Digest failed");
	return EV_OK;
}

ev_status ev_sha256_fd(int fd, const char *name, uint8_t out[EV_SHA256_LEN],
		       uint64_t *size_out, struct ev_error *err)
{
	return ev_sha256_fd_until(fd, name, out, size_out, NULL, err);
}

ev_status ev_sha256_fd_until(int fd, const char *name, uint8_t out[EV_SHA256_LEN], uint64_t *size_out,
			     volatile sig_atomic_t *stop, struct ev_error *err)
{
	ev_status st = EV_OK;
	uint64_t total = 0;
	struct ev_sha256 *ctx = ev_sha256_new();
	unsigned char *buf = malloc(READ_CHUNK);
	if (!ctx || !buf) {
		st = ev_error_set(err, EV_ERROR, "%s: out of memory", name);
		goto out;
	}
	for (;;) {
		if (stop && *stop) {
			st = ev_error_set(err, EV_INTERRUPTED, "%s: interrupted by a signal; nothing is claimed", name);
			goto out;
		}
		ssize_t n = read(fd, buf, READ_CHUNK);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			st = ev_error_errno(err, errno, "%s: read failed", name);
			goto out;
		}
		if (n == 0)
			break;
		if ((st = ev_sha256_update(ctx, buf, (size_t)n, err)) != EV_OK)
			goto out;
		total += (uint64_t)n;
	}
	st = ev_sha256_final(ctx, out, err);
	if (st == EV_OK && size_out)
		*size_out = total;
out:
	free(buf);
	ev_sha256_free(ctx);
	return st;
}

ev_status ev_sha256_path(const char *path, uint8_t out[EV_SHA256_LEN],
			 uint64_t *size_out, struct ev_error *err)
{
	int fd = ev_input_open(path, "file to hash", err);
	if (fd < 0)
		return err->status;
	ev_status st = ev_sha256_fd(fd, path, out, size_out, err);
	close(fd);
	return st;
}

void ev_sha256_hex(const uint8_t digest[EV_SHA256_LEN], char hex[EV_SHA256_HEX_LEN + 1])
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < EV_SHA256_LEN; i++) {
		hex[2 * i] = digits[digest[i] >> 4];
		hex[2 * i + 1] = digits[digest[i] & 15];
	}
	hex[EV_SHA256_HEX_LEN] = '\0';
}

static int hex_digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int ev_hex_decode(const char *s, uint8_t *out, size_t n)
{
	if (!s || strlen(s) != 2 * n)
		return -1;
	for (size_t i = 0; i < n; i++) {
		int hi = hex_digit(s[2 * i]), lo = hex_digit(s[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return -1;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

int ev_sha256_hex_valid(const char *s)
{
	if (!s || strlen(s) != EV_SHA256_HEX_LEN)
		return 0;
	for (const char *p = s; *p; p++)
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
			return 0;
	return 1;
}
