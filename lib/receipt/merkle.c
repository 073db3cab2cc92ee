/* SPDX-License-Identifier: Apache-2.0 */
/* merkle: RFC 9162 §2.1 tree hashing and proofs (merkle.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "lib/receipt/merkle.h"

static void sha256_of(const void *a, size_t na, const void *b, size_t nb, const void *c, size_t nc, ev_merkle_hash out)
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	unsigned int len = 0;
	/* a context that cannot be made leaves zeros: no proof verifies then;
	 * out may be one of the inputs, so it is written last */
	ev_merkle_hash h = {0};
	if (md && EVP_DigestInit_ex(md, EVP_sha256(), NULL) == 1 && EVP_DigestUpdate(md, a, na) == 1 &&
	    (!nb || EVP_DigestUpdate(md, b, nb) == 1) && (!nc || EVP_DigestUpdate(md, c, nc) == 1))
		EVP_DigestFinal_ex(md, h, &len);
	EVP_MD_CTX_free(md);
	memcpy(out, h, EV_SHA256_LEN);
}

void ev_merkle_leaf_hash(const void *data, size_t len, ev_merkle_hash out)
{
	static const uint8_t zero = 0x00;
	sha256_of(&zero, 1, data, len, NULL, 0, out);
}

static void node_hash(const ev_merkle_hash left, const ev_merkle_hash right, ev_merkle_hash out)
{
	static const uint8_t one = 0x01;
	sha256_of(&one, 1, left, EV_SHA256_LEN, right, EV_SHA256_LEN, out);
}

ev_status ev_merkle_build(struct ev_merkle *t, const ev_merkle_hash *leaves, size_t n, struct ev_error *err)
{
	memset(t, 0, sizeof *t);
	t->n = n;
	size_t count = n;
	for (size_t j = 0; j < EV_MERKLE_MAX_LEVELS && count; j++) {
		if (!(t->level[j] = malloc(count * sizeof *t->level[j]))) {
			ev_merkle_free(t);
			return ev_error_set(err, EV_ERROR, "out of memory for a tree of %zu leaves", n);
		}
		for (size_t i = 0; i < count; i++) {
			if (j == 0)
				memcpy(t->level[0][i], leaves[i], EV_SHA256_LEN);
			else
				node_hash(t->level[j - 1][2 * i], t->level[j - 1][2 * i + 1], t->level[j][i]);
		}
		t->count[j] = count;
		t->levels = j + 1;
		count /= 2;
	}
	return EV_OK;
}

void ev_merkle_free(struct ev_merkle *t)
{
	for (size_t j = 0; j < EV_MERKLE_MAX_LEVELS; j++)
		free(t->level[j]);
	memset(t, 0, sizeof *t);
}

/* The largest power of two below n (n > 1). */
static size_t split_of(size_t n)
{
	size_t k = 1;
	while (k << 1 < n)
		k <<= 1;
	return k;
}

/* MTH(D[a:b]), b <= t->n. */
static void mth(const struct ev_merkle *t, size_t a, size_t b, ev_merkle_hash out)
{
	size_t n = b - a;
	if (n == 0) {
		sha256_of("", 0, NULL, 0, NULL, 0, out);
		return;
	}
	if ((n & (n - 1)) == 0 && a % n == 0) { /* a complete subtree, kept */
		size_t j = 0;
		while ((size_t)1 << j < n)
			j++;
		memcpy(out, t->level[j][a >> j], EV_SHA256_LEN);
		return;
	}
	size_t k = split_of(n);
	ev_merkle_hash left, right;
	mth(t, a, a + k, left);
	mth(t, a + k, b, right);
	node_hash(left, right, out);
}

void ev_merkle_root(const struct ev_merkle *t, size_t size, ev_merkle_hash out)
{
	mth(t, 0, size, out);
}

static void path(const struct ev_merkle *t, size_t m, size_t a, size_t b, ev_merkle_hash *out, size_t *len)
{
	size_t n = b - a;
	if (n <= 1 || *len >= EV_MERKLE_MAX_PROOF)
		return;
	size_t k = split_of(n);
	if (m < k) {
		path(t, m, a, a + k, out, len);
		mth(t, a + k, b, out[(*len)++]);
	} else {
		path(t, m - k, a + k, b, out, len);
		mth(t, a, a + k, out[(*len)++]);
	}
}

void ev_merkle_inclusion(const struct ev_merkle *t, size_t index, size_t size, ev_merkle_hash *out, size_t *len)
{
	*len = 0;
	path(t, index, 0, size, out, len);
}

static void subproof(const struct ev_merkle *t, size_t m, size_t a, size_t b, int whole, ev_merkle_hash *out,
		     size_t *len)
{
	size_t n = b - a;
	if (*len >= EV_MERKLE_MAX_PROOF)
		return;
	if (m == n) {
		if (!whole)
			mth(t, a, b, out[(*len)++]);
		return;
	}
	size_t k = split_of(n);
	if (m <= k) {
		subproof(t, m, a, a + k, whole, out, len);
		mth(t, a + k, b, out[(*len)++]);
	} else {
		subproof(t, m - k, a + k, b, 0, out, len);
		mth(t, a, a + k, out[(*len)++]);
	}
}

void ev_merkle_consistency(const struct ev_merkle *t, size_t old, size_t size, ev_merkle_hash *out, size_t *len)
{
	*len = 0;
	subproof(t, old, 0, size, 1, out, len);
}

int ev_merkle_verify_inclusion(size_t index, size_t size, const ev_merkle_hash leaf, const ev_merkle_hash *p,
			       size_t len, const ev_merkle_hash root)
{
	if (index >= size)
		return 0;
	size_t fn = index, sn = size - 1;
	ev_merkle_hash r;
	memcpy(r, leaf, EV_SHA256_LEN);
	for (size_t i = 0; i < len; i++) {
		if (sn == 0)
			return 0;
		if ((fn & 1) || fn == sn) {
			node_hash(p[i], r, r);
			while (!(fn & 1) && fn != 0) {
				fn >>= 1;
				sn >>= 1;
			}
		} else {
			node_hash(r, p[i], r);
		}
		fn >>= 1;
		sn >>= 1;
	}
	return sn == 0 && memcmp(r, root, EV_SHA256_LEN) == 0;
}

int ev_merkle_verify_consistency(size_t old, size_t size, const ev_merkle_hash old_root, const ev_merkle_hash root,
				 const ev_merkle_hash *proof, size_t len)
{
	if (old == 0 || old > size)
		return 0;
	if (old == size)
		return len == 0 && memcmp(old_root, root, EV_SHA256_LEN) == 0;
	/* an old tree that is a complete subtree is the proof's first node */
	const ev_merkle_hash *p = proof;
	ev_merkle_hash *with = NULL;
	if ((old & (old - 1)) == 0) {
		if (!(with = malloc((len + 1) * sizeof *with)))
			return 0;
		memcpy(with[0], old_root, EV_SHA256_LEN);
		memcpy(with + 1, proof, len * sizeof *with);
		p = with;
		len++;
	}
	int ok = 0;
	if (len == 0)
		goto out;
	size_t fn = old - 1, sn = size - 1;
	while (fn & 1) {
		fn >>= 1;
		sn >>= 1;
	}
	ev_merkle_hash fr, sr;
	memcpy(fr, p[0], EV_SHA256_LEN);
	memcpy(sr, p[0], EV_SHA256_LEN);
	for (size_t i = 1; i < len; i++) {
		if (sn == 0)
			goto out;
		if ((fn & 1) || fn == sn) {
			node_hash(p[i], fr, fr);
			node_hash(p[i], sr, sr);
			while (!(fn & 1) && fn != 0) {
				fn >>= 1;
				sn >>= 1;
			}
		} else {
			node_hash(sr, p[i], sr);
		}
		fn >>= 1;
		sn >>= 1;
	}
	ok = sn == 0 && memcmp(fr, old_root, EV_SHA256_LEN) == 0 && memcmp(sr, root, EV_SHA256_LEN) == 0;
out:
	free(with);
	return ok;
}
