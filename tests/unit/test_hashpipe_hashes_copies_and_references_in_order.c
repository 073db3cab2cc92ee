/* SPDX-License-Identifier: Apache-2.0 */
/* The hashing thread gives each member the digest of its bytes whether
 * they were copied into its slots or handed over in place, in the order
 * published; a reference buffer may be rewritten once ev_hashpipe_wait
 * passed its ticket; and a batch smaller than the wake-up threshold is
 * still hashed (by ev_hashpipe_wait, a full ring, or finish). */
#include "config.h"

#include <stdlib.h>

#include "check.h"
#include "lib/core/hashpipe.h"

#define MEMBERS 40
/* Blocks the producer fills far faster than the hasher hashes them, in a
 * ring much shorter than the hasher's queue: without the wait on tickets,
 * a block would be rewritten while still queued. */
#define BLOCK 65536
#define RING 2

/* pseudo-random bytes (xorshift), so that no two blocks are alike */
static unsigned char next_byte(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return (unsigned char)(*x >> 24);
}

int main(void)
{
	struct ev_error err;
	ev_error_clear(&err);
	struct ev_hashpipe *p = NULL;
	CHECK_INT_EQ(ev_hashpipe_new(&p, 16, BLOCK, &err), EV_OK);

	static unsigned char ring[RING][BLOCK];
	uint64_t ticket[RING] = {0};
	size_t at = 0;
	static uint8_t got[MEMBERS][EV_SHA256_LEN], want[MEMBERS][EV_SHA256_LEN];
	for (int m = 0; m < MEMBERS; m++) {
		size_t size = (size_t)m * 25000; /* 0 to 975,000 bytes: empty, one block, many */
		unsigned char *whole = malloc(size ? size : 1);
		uint64_t x = 0x9e3779b97f4a7c15u + (uint64_t)m;
		for (size_t i = 0; i < size; i++)
			whole[i] = next_byte(&x);
		CHECK_INT_EQ(ev_sha256_buffer(whole, size, want[m], &err), EV_OK);
		for (size_t done = 0; done < size;) {
			size_t n = size - done < BLOCK ? size - done : BLOCK;
			if ((done / BLOCK + (size_t)m) % 3 == 0) { /* a copy */
				unsigned char *slot = ev_hashpipe_buffer(p);
				memcpy(slot, whole + done, n);
				ev_hashpipe_publish(p, n, 0, NULL);
			} else { /* in place, in the next ring block once it is free */
				at = (at + 1) % RING;
				ev_hashpipe_wait(p, ticket[at]);
				memcpy(ring[at], whole + done, n);
				ticket[at] = ev_hashpipe_publish_ref(p, ring[at], n, 0, NULL);
			}
			done += n;
		}
		ev_hashpipe_buffer(p);
		ev_hashpipe_publish(p, 0, 1, got[m]);
		free(whole);
	}
	/* one reference then its wait: below the threshold, still hashed */
	static uint8_t lone[EV_SHA256_LEN], lone_want[EV_SHA256_LEN];
	static unsigned char lone_bytes[100];
	memset(lone_bytes, 0x5a, sizeof lone_bytes);
	CHECK_INT_EQ(ev_sha256_buffer(lone_bytes, sizeof lone_bytes, lone_want, &err), EV_OK);
	uint64_t t = ev_hashpipe_publish_ref(p, lone_bytes, sizeof lone_bytes, 1, lone);
	ev_hashpipe_wait(p, t);
	CHECK(memcmp(lone, lone_want, EV_SHA256_LEN) == 0);
	memset(lone_bytes, 0, sizeof lone_bytes); /* rewritten after the wait: the digest stays */

	CHECK_INT_EQ(ev_hashpipe_finish(p, &err), EV_OK);
	for (int m = 0; m < MEMBERS; m++)
		CHECK(memcmp(got[m], want[m], EV_SHA256_LEN) == 0);
	CHECK(memcmp(lone, lone_want, EV_SHA256_LEN) == 0);
	ev_hashpipe_free(p);
	return check_exit("test_hashpipe_hashes_copies_and_references_in_order");
}
