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
#define BLOCK 4096
#define RING 4

/* member m's byte i: every member and offset different */
static unsigned char byte_of(int m, size_t i)
{
	return (unsigned char)(m * 31 + i * 7 + (i >> 8));
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
		size_t size = (size_t)m * 1500; /* 0 to 58,500 bytes: empty, one block, many */
		unsigned char *whole = malloc(size ? size : 1);
		for (size_t i = 0; i < size; i++)
			whole[i] = byte_of(m, i);
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
	memset(ring[0], 0x5a, 100);
	CHECK_INT_EQ(ev_sha256_buffer(ring[0], 100, lone_want, &err), EV_OK);
	uint64_t t = ev_hashpipe_publish_ref(p, ring[0], 100, 1, lone);
	ev_hashpipe_wait(p, t);
	CHECK(memcmp(lone, lone_want, EV_SHA256_LEN) == 0);
	memset(ring[0], 0, BLOCK); /* rewritten after the wait: the digest stays */

	CHECK_INT_EQ(ev_hashpipe_finish(p, &err), EV_OK);
	for (int m = 0; m < MEMBERS; m++)
		CHECK(memcmp(got[m], want[m], EV_SHA256_LEN) == 0);
	CHECK(memcmp(lone, lone_want, EV_SHA256_LEN) == 0);
	ev_hashpipe_free(p);
	return check_exit("test_hashpipe_hashes_copies_and_references_in_order");
}
