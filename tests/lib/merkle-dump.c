/* SPDX-License-Identifier: Apache-2.0 */
/* merkle-dump N: for the leaves "leaf-0" ... "leaf-(N-1)", every root,
 * inclusion path and consistency proof of every tree size from 1 to N,
 * as lines for an independent implementation to hold them to:
 *     root SIZE HEX
 *     incl SIZE INDEX HEX,HEX,...
 *     cons OLD SIZE HEX,HEX,...
 * (t-log-appends-proves-and-catches-rewrites checks them with Python). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "lib/receipt/merkle.h"

static void print_list(const ev_merkle_hash *h, size_t n)
{
	char hex[EV_SHA256_HEX_LEN + 1];
	for (size_t i = 0; i < n; i++) {
		ev_sha256_hex(h[i], hex);
		printf("%s%s", i ? "," : "", hex);
	}
	putchar('\n');
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 0;
	if (n < 1 || n > 100000) {
		fprintf(stderr, "usage: merkle-dump N (1 to 100000)\n");
		return 2;
	}
	ev_merkle_hash *leaves = calloc(n, sizeof *leaves);
	if (!leaves)
		return 2;
	for (size_t i = 0; i < n; i++) {
		char data[32];
		int len = snprintf(data, sizeof data, "leaf-%zu", i);
		ev_merkle_leaf_hash(data, (size_t)len, leaves[i]);
	}
	struct ev_merkle t;
	struct ev_error err;
	ev_error_clear(&err);
	if (ev_merkle_build(&t, leaves, n, &err) != EV_OK)
		return 2;
	ev_merkle_hash proof[EV_MERKLE_MAX_PROOF], root;
	size_t len;
	char hex[EV_SHA256_HEX_LEN + 1];
	for (size_t size = 1; size <= n; size++) {
		ev_merkle_root(&t, size, root);
		ev_sha256_hex(root, hex);
		printf("root %zu %s\n", size, hex);
		for (size_t i = 0; i < size; i++) {
			ev_merkle_inclusion(&t, i, size, proof, &len);
			printf("incl %zu %zu ", size, i);
			print_list(proof, len);
		}
		for (size_t old = 1; old <= size; old++) {
			ev_merkle_consistency(&t, old, size, proof, &len);
			printf("cons %zu %zu ", old, size);
			print_list(proof, len);
		}
	}
	ev_merkle_free(&t);
	free(leaves);
	return 0;
}
