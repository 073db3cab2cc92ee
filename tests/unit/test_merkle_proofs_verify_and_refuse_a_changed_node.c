/* SPDX-License-Identifier: Apache-2.0 */
/* merkle: for every tree size up to 64, every inclusion path and every
 * consistency proof the tree gives verifies (RFC 9162 §2.1.3.2, §2.1.4.2),
 * and none does once one byte of it, of the leaf, or of a root changes, or
 * when it is held to another index; the root of a prefix is the
 * root of a tree built over that prefix alone. (The proofs themselves
 * are held to an independent implementation in
 * t-log-appends-proves-and-catches-rewrites.) A proof held to another
 * size with the first size's root can verify: the RFC binds size and root
 * in the signed tree head, and so does the log. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "check.h"
#include "lib/receipt/merkle.h"

#define N 64

int main(void)
{
	ev_merkle_hash leaves[N], proof[EV_MERKLE_MAX_PROOF], root, old_root, prefix_root;
	struct ev_error err;
	ev_error_clear(&err);
	for (int i = 0; i < N; i++) {
		char d[16];
		int len = snprintf(d, sizeof d, "leaf-%d", i);
		ev_merkle_leaf_hash(d, (size_t)len, leaves[i]);
	}
	struct ev_merkle t, p;
	CHECK_INT_EQ(ev_merkle_build(&t, leaves, N, &err), EV_OK);
	unsigned bad = 0, good = 0;
	for (size_t size = 1; size <= N; size++) {
		ev_merkle_root(&t, size, root);
		CHECK_INT_EQ(ev_merkle_build(&p, leaves, size, &err), EV_OK);
		ev_merkle_root(&p, size, prefix_root);
		ev_merkle_free(&p);
		bad += memcmp(root, prefix_root, sizeof root) != 0;
		for (size_t i = 0; i < size; i++) {
			size_t len;
			ev_merkle_inclusion(&t, i, size, proof, &len);
			good += ev_merkle_verify_inclusion(i, size, leaves[i], proof, len, root);
			bad += ev_merkle_verify_inclusion(i, size, leaves[(i + 1) % N], proof, len, root) && size > 1;
			if (len) {
				proof[len - 1][7] ^= 1;
				bad += ev_merkle_verify_inclusion(i, size, leaves[i], proof, len, root);
				proof[len - 1][7] ^= 1;
				bad += size > 1 && ev_merkle_verify_inclusion((i + 1) % size, size, leaves[i], proof, len, root);
			}
		}
		for (size_t old = 1; old <= size; old++) {
			size_t len;
			ev_merkle_root(&t, old, old_root);
			ev_merkle_consistency(&t, old, size, proof, &len);
			good += ev_merkle_verify_consistency(old, size, old_root, root, proof, len);
			old_root[0] ^= 1;
			bad += ev_merkle_verify_consistency(old, size, old_root, root, proof, len);
			old_root[0] ^= 1;
			if (len) {
				proof[0][31] ^= 0x80;
				bad += ev_merkle_verify_consistency(old, size, old_root, root, proof, len);
				proof[0][31] ^= 0x80;
			}
		}
	}
	CHECK_INT_EQ(bad, 0);
	CHECK_INT_EQ(good, N * (N + 1)); /* every inclusion and every consistency proof: 2 * N(N+1)/2 */
	ev_merkle_free(&t);
	ev_merkle_hash empty;
	CHECK_INT_EQ(ev_merkle_build(&t, leaves, 0, &err), EV_OK);
	ev_merkle_root(&t, 0, empty);
	char hex[EV_SHA256_HEX_LEN + 1];
	ev_sha256_hex(empty, hex);
	CHECK_STR_EQ(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	ev_merkle_free(&t);
	return check_exit("test_merkle_proofs_verify_and_refuse_a_changed_node");
}
