/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/fix/fingerprint.h"
#include "lib/core/grow.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#define P61 ((((uint64_t)1) << 61) - 1)

static uint64_t mulmod(uint64_t a, uint64_t b)
{
	unsigned __int128 t = (unsigned __int128)a * b;
	uint64_t lo = (uint64_t)t & P61, hi = (uint64_t)(t >> 61);
	uint64_t r = lo + hi;
	return r >= P61 ? r - P61 : r;
}

static uint64_t addmod(uint64_t a, uint64_t b)
{
	uint64_t r = a + b;
	return r >= P61 ? r - P61 : r;
}

/* The one form of a residue below 2 p: the hash and its patches agree. */
static uint64_t canon(uint64_t h)
{
	return h >= P61 ? h - P61 : h;
}

/* A sum below 2^127, mod 2^61 - 1 (2^61 = 1): its three 61-bit digits added. */
static uint64_t fold(unsigned __int128 acc)
{
	uint64_t lo = (uint64_t)acc & P61, mid = (uint64_t)(acc >> 61) & P61, hi = (uint64_t)(acc >> 122);
	return addmod(addmod(lo, mid), hi);
}

ev_status ev_fingerprint_key_new(struct ev_fingerprint_key *k, struct ev_error *err)
{
	uint64_t seed[2 + EV_FINGERPRINT_LINEAR_WORDS];
	if (getrandom(seed, sizeof seed, 0) != (ssize_t)sizeof seed)
		return ev_error_errno(err, errno, "cannot draw a fingerprint key (getrandom)");
	uint64_t r = seed[0] % (P61 - 2) + 2;
	k->r[0] = r;
	for (int i = 1; i < 4; i++)
		k->r[i] = mulmod(k->r[i - 1], r);
	k->s = seed[1] % (P61 - 1) + 1;
	for (size_t i = 0; i < EV_FINGERPRINT_LINEAR_WORDS; i++)
		k->k[i] = seed[2 + i] % P61;
	return EV_OK;
}

/* sum(k_i * m_i) over 7-byte words: each product is below 2^117 and at
 * most 147 of them below 2^125, so they add up in 128 bits and are
 * reduced once. */
static uint64_t multilinear(const struct ev_fingerprint_key *k, const unsigned char *p, size_t len)
{
	unsigned __int128 acc = 0;
	size_t i = 0, w = 0;
	for (; i + 8 <= len; i += 7, w++) {
		uint64_t m;
		memcpy(&m, p + i, 8);
		acc += (unsigned __int128)k->k[w] * (m & (((uint64_t)1 << 56) - 1));
	}
	if (i < len) {
		unsigned char tail[8] = {0};
		memcpy(tail, p + i, len - i);
		uint64_t m;
		memcpy(&m, tail, 8);
		acc += (unsigned __int128)k->k[w] * (m & (((uint64_t)1 << 56) - 1));
	}
	return fold(acc);
}

/* 7 bytes, little-endian: below 2^56, so below the prime. */
static uint64_t word7(const unsigned char *p)
{
	uint64_t w;
	memcpy(&w, p, 8);
	return w & (((uint64_t)1 << 56) - 1);
}

uint64_t ev_fingerprint_hash(const struct ev_fingerprint_key *k, const void *data, size_t len)
{
	const unsigned char *p = data;
	if (len <= EV_FINGERPRINT_LINEAR_BYTES)
		return canon(addmod(multilinear(k, p, len), mulmod(k->s, (uint64_t)len % P61)));
	uint64_t h[4] = {0, 0, 0, 0};
	size_t i = 0;
	/* Horner in four lanes (each steps by r^4), so that the multiplies do
	 * not wait on each other; 28 bytes a round, reading 29 at most. */
	for (; i + 29 <= len; i += 28)
		for (int l = 0; l < 4; l++)
			h[l] = addmod(mulmod(h[l], k->r[3]), word7(p + i + 7 * (size_t)l) + 1);
	/* h = h0 r^3 + h1 r^2 + h2 r + h3: the same polynomial as one lane. */
	uint64_t acc = addmod(addmod(mulmod(h[0], k->r[2]), mulmod(h[1], k->r[1])),
			      addmod(mulmod(h[2], k->r[0]), h[3]));
	unsigned char tail[8];
	for (; i < len; i += 7) {
		size_t n = len - i < 7 ? len - i : 7;
		memset(tail, 0, sizeof tail);
		memcpy(tail, p + i, n);
		acc = addmod(mulmod(acc, k->r[0]), word7(tail) + 1);
	}
	return addmod(acc, mulmod(k->s, (uint64_t)len % P61));
}

/* Up to 8 bytes from p, of which avail are readable, zeros past them. */
static uint64_t load_upto(const unsigned char *p, size_t avail)
{
	uint64_t v = 0;
	if (avail >= 8)
		memcpy(&v, p, 8);
	else
		for (size_t i = 0; i < avail; i++)
			v |= (uint64_t)p[i] << (8 * i);
	return v;
}

uint64_t ev_fingerprint_rewrite(const struct ev_fingerprint_key *k, uint64_t h, const void *was, const void *now,
				size_t now_avail, size_t at, size_t n)
{
	/* sum(k_i * m_i) + k_len * len: word w moves by k_w * (new - old)
	 * over the bytes replaced in it, = k_w * (new + p - old) mod p; each
	 * product is below 2^61 * 2^62, and 16 of them add up in 128 bits */
	const unsigned char *before = was, *after = now;
	unsigned __int128 acc = 0;
	unsigned terms = 0;
	for (size_t i = 0; i < n;) {
		size_t w = (at + i) / 7, in = (at + i) - 7 * w, m = 7 - in < n - i ? 7 - in : n - i;
		uint64_t mask = (((uint64_t)1 << (8 * m)) - 1);
		uint64_t old, new = load_upto(after + i, now_avail - i) & mask;
		memcpy(&old, before + i, 8);
		old &= mask;
		acc += (unsigned __int128)k->k[w] * ((new << (8 * in)) + P61 - (old << (8 * in)));
		i += m;
		if (++terms == 16) {
			h = addmod(h, fold(acc));
			acc = 0;
			terms = 0;
		}
	}
	return canon(addmod(h, fold(acc)));
}

static int by_seq(const void *a, const void *b)
{
	const struct ev_fingerprint *x = a, *y = b;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	/* equal sequence numbers: keep journal order */
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

ev_status ev_fingerprint_add(struct ev_fingerprint_set *s, const struct ev_fingerprint *p,
			  struct ev_error *err)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 4096;
		struct ev_fingerprint *bigger = ev_grow(s->v, cap * sizeof *bigger);
		if (!bigger)
			return ev_error_set(err, EV_ERROR, "out of memory for order fingerprints");
		s->v = bigger;
		s->cap = cap;
	}
	if (s->n && by_seq(&s->v[s->n - 1], p) > 0)
		s->unsorted = 1;
	s->v[s->n++] = *p;
	return EV_OK;
}

void ev_fingerprint_sort(struct ev_fingerprint_set *s)
{
	if (s->unsorted)
		qsort(s->v, s->n, sizeof *s->v, by_seq);
	s->unsorted = 0;
}

void ev_fingerprint_set_free(struct ev_fingerprint_set *s)
{
	free(s->v);
	memset(s, 0, sizeof *s);
}
