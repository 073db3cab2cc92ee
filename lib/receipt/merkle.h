/* SPDX-License-Identifier: Apache-2.0 */
/* merkle: RFC 9162 §2.1 Merkle tree hashing, inclusion and consistency
 * proofs, and their verification, for the receipt log.
 *
 * Leaf hash SHA-256(0x00 || data), node hash SHA-256(0x01 || left ||
 * right); MTH of n leaves splits at k, the largest power of two below n;
 * PATH and PROOF as §2.1.3.1 and §2.1.4.1 define them, verified as
 * §2.1.3.2 and §2.1.4.2 do. A tree is built once over its leaf hashes,
 * keeping every complete subtree's hash level by level, so that the root
 * of any prefix and any proof cost O(log n) hashes. No global state.
 */
#ifndef EV_MERKLE_H
#define EV_MERKLE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/core/sha256.h"
#include "lib/core/status.h"

#define EV_MERKLE_MAX_LEVELS 64
#define EV_MERKLE_MAX_PROOF (2 * EV_MERKLE_MAX_LEVELS)

typedef uint8_t ev_merkle_hash[EV_SHA256_LEN];

struct ev_merkle {
	size_t n;                                  /* leaves */
	ev_merkle_hash *level[EV_MERKLE_MAX_LEVELS]; /* level[j][i]: the complete subtree over [i*2^j, (i+1)*2^j) */
	size_t count[EV_MERKLE_MAX_LEVELS];
	size_t levels;
};

/* SHA-256(0x00 || data). */
void ev_merkle_leaf_hash(const void *data, size_t len, ev_merkle_hash out);

/* The tree over n leaf hashes (copied). @return EV_OK; EV_ERROR (memory). */
ev_status ev_merkle_build(struct ev_merkle *t, const ev_merkle_hash *leaves, size_t n, struct ev_error *err);
void ev_merkle_free(struct ev_merkle *t);

/* MTH of the first size leaves (size <= t->n; 0: the hash of nothing). */
void ev_merkle_root(const struct ev_merkle *t, size_t size, ev_merkle_hash out);

/* PATH(index, D[size]) into path (*len hashes, at most
 * EV_MERKLE_MAX_PROOF). index < size <= t->n. */
void ev_merkle_inclusion(const struct ev_merkle *t, size_t index, size_t size, ev_merkle_hash *path, size_t *len);

/* PROOF(old, D[size]) into proof. 0 < old <= size <= t->n. */
void ev_merkle_consistency(const struct ev_merkle *t, size_t old, size_t size, ev_merkle_hash *proof, size_t *len);

/* §2.1.3.2: whether path proves leaf at index in the tree of size whose
 * root is root. @return 1 or 0. */
int ev_merkle_verify_inclusion(size_t index, size_t size, const ev_merkle_hash leaf, const ev_merkle_hash *path,
			       size_t len, const ev_merkle_hash root);

/* §2.1.4.2: whether proof shows the tree of old leaves (old_root) is a
 * prefix of the tree of size leaves (root). @return 1 or 0. */
int ev_merkle_verify_consistency(size_t old, size_t size, const ev_merkle_hash old_root, const ev_merkle_hash root,
				 const ev_merkle_hash *proof, size_t len);

#endif
