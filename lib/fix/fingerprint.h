/* SPDX-License-Identifier: Apache-2.0 */
/* fingerprint: fingerprints of message records, to prove that two endpoints'
 * journals hold the same orders byte for byte without holding both.
 *
 * A fingerprint is a keyed universal hash over GF(2^61 - 1) of the
 * message's bytes, taken 7 at a time, under a key drawn at random for
 * each audit (getrandom): for records up to EV_FINGERPRINT_LINEAR_BYTES the
 * multilinear hash sum(k_i * m_i) + k_len * len (strongly universal: two
 * different messages agree with probability 1/2^61), longer ones a
 * polynomial hash (at most L / 2^61 for L words). Whoever wrote the
 * journals, as long as they wrote them before the key was drawn, cannot
 * make two different orders agree. The multilinear form has no chain of
 * dependent multiplies, which keeps it cheap on the hot path.
 *
 * A message is fingerprinted in two parts, so that a resend can be held
 * against its original: `invariant` over every field but the six a resend
 * may change (43, 97, 122, 52, 9 and 10, FIX 4.4 Vol. 2 "Possible
 * duplicates"), `hash` over those six with their byte offsets (fixprint.h
 * gathers them, and patches them from the message before). Equal
 * invariant, hash and length is the same bytes. A set keeps, per message
 * of the side read first, the MsgSeqNum, both parts, when the message was
 * first sent, its length and where the record is, 48 bytes each: the one
 * place where audit's memory grows with a journal (48 MB for a million
 * orders).
 *
 * A key is plain data; a set belongs to one thread. free accepts NULL.
 */
#ifndef EV_FINGERPRINT_H
#define EV_FINGERPRINT_H

#include <stddef.h>
#include <stdint.h>

#include "lib/core/status.h"

#define EV_FINGERPRINT_LINEAR_BYTES 1024
#define EV_FINGERPRINT_LINEAR_WORDS ((EV_FINGERPRINT_LINEAR_BYTES + 6) / 7)

struct ev_fingerprint_key {
	uint64_t r[4]; /* r, r^2, r^3, r^4 mod 2^61 - 1 (long records) */
	uint64_t s;    /* mixes in the length */
	uint64_t k[EV_FINGERPRINT_LINEAR_WORDS]; /* one per word (short records) */
};

#define EV_FINGERPRINT_ADMIN (1u << 31) /* in file: a session-level message (0 1 2 3 4 5 A) */
#define EV_FINGERPRINT_FILE(p) ((p)->file & ~EV_FINGERPRINT_ADMIN)

struct ev_fingerprint {
	uint64_t seq, hash;
	uint64_t invariant;   /* every field but 43, 97, 122, 52, 9, 10 */
	uint64_t orig_ns;     /* first sent: 52, or 122 on a resend (ns since 1970; 0: unknown) */
	uint64_t offset;      /* of the message in that file */
	uint32_t len, file;   /* file: the reader's index of the journal file, | EV_FINGERPRINT_ADMIN */
};

/* The same bytes. */
static inline int ev_fingerprint_same(const struct ev_fingerprint *a, const struct ev_fingerprint *b)
{
	return a->hash == b->hash && a->invariant == b->invariant && a->len == b->len;
}

struct ev_fingerprint_set {
	struct ev_fingerprint *v;
	size_t n, cap;
	int unsorted; /* one was added out of order: sort has work to do */
};

/* Draw a fresh key. @return EV_OK, or EV_ERROR when no randomness. */
ev_status ev_fingerprint_key_new(struct ev_fingerprint_key *k, struct ev_error *err);

/* The fingerprint of len bytes. */
uint64_t ev_fingerprint_hash(const struct ev_fingerprint_key *k, const void *data, size_t len);

/* h, the fingerprint of up to EV_FINGERPRINT_LINEAR_BYTES bytes, made that
 * of the same bytes with the n at offset at replaced: was holds the old
 * ones (and 7 more readable bytes past them), now the new ones (now_avail
 * readable from now, at least n). One multiply per 7-byte word touched,
 * where hashing all the bytes again takes one for each word; the sum over
 * words being linear, changes at different places may be applied one
 * after another, each from the bytes as they were. */
uint64_t ev_fingerprint_rewrite(const struct ev_fingerprint_key *k, uint64_t h, const void *was, const void *now,
				size_t now_avail, size_t at, size_t n);

/* Append one. @return EV_OK or EV_ERROR (memory). */
ev_status ev_fingerprint_add(struct ev_fingerprint_set *s, const struct ev_fingerprint *p,
			  struct ev_error *err);

/* Sort by seq (stable: equal seqs keep their order), for matching; a set
 * added to in order (a journal without resets) is left as it is, without
 * a pass over it. */
void ev_fingerprint_sort(struct ev_fingerprint_set *s);

void ev_fingerprint_set_free(struct ev_fingerprint_set *s);

#endif
