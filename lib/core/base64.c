/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/core/base64.h"

#include <stdlib.h>

#include <openssl/evp.h>

char *ev_base64_encode(const unsigned char *bytes, size_t len)
{
	char *out = malloc(4 * ((len + 2) / 3) + 1);
	if (out)
		EVP_EncodeBlock((unsigned char *)out, bytes, (int)len);
	return out;
}

unsigned char *ev_base64_decode(const char *text, size_t n, size_t *len)
{
	if (n % 4 != 0 || n > (size_t)1 << 30)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		char c = text[i];
		int ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/' ||
			 (c == '=' && i >= n - 2 && (i == n - 1 || text[n - 1] == '='));
		if (!ok)
			return NULL;
	}
	unsigned char *out = malloc(n / 4 * 3 + 1);
	if (!out)
		return NULL;
	/* EVP_DecodeBlock counts the padding's zero bytes in what it returns */
	int got = EVP_DecodeBlock(out, (const unsigned char *)text, (int)n);
	if (got < 0) {
		free(out);
		return NULL;
	}
	size_t pad = n && text[n - 1] == '=' ? (n > 1 && text[n - 2] == '=' ? 2 : 1) : 0;
	*len = (size_t)got - pad;
	return out;
}
