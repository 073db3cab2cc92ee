/* SPDX-License-Identifier: Apache-2.0 */
/* fixprint: a message's fingerprint in its two parts (fingerprint.h),
 * carried from one message to the next.
 *
 * `invariant` hashes every field but the six a resend may change (43, 97,
 * 122, 52, 9, 10), in message order, as one run of bytes; `changeable`
 * hashes those six, each after its byte offset. Gathering the runs costs a
 * copy of the message, and hashing it a multiply per 7 bytes: more than
 * every rule together on a benchmark's orders. But consecutive orders
 * differ in a few values (MsgSeqNum, ClOrdID, times, CheckSum), so when a
 * message has its predecessor's layout (fixmsg.h, ev_fix_rescan) only the
 * changed values are copied over the kept gather and only the 7-byte words
 * they touch are rehashed (the multilinear hash is a sum over words).
 * The result is the same number a full pass gives; a message whose
 * invariant bytes are longer than the multilinear hash covers gets a full
 * pass.
 *
 * A print belongs to one thread; free accepts a zeroed one.
 */
#ifndef EV_FIXPRINT_H
#define EV_FIXPRINT_H

#include <stdint.h>

#include "lib/fix/fingerprint.h"
#include "lib/fix/fixmsg.h"

struct ev_fixprint {
	char *gather;          /* the invariant bytes from the front, the six from the back */
	uint32_t cap;
	uint32_t front, back;  /* invariant: [0, front); changeable: [back, need) */
	uint32_t need, len, n; /* the kept message's gather size, length and field count */
	uint32_t *at;          /* per field: where its value stands in gather */
	uint64_t invariant, changeable;
	int kept;              /* gather, at and the two parts are the last message's */
};

/* Both parts of m. changed: NULL, or, when m was split as the message
 * last given was (ev_fix_rescan: same length and fields, changes only
 * inside values), the indices of the fields whose values differ from
 * that message's, ascending, nchanged of them (none is possible). On
 * memory failure both parts are the whole message's fingerprint.
 * invariant is never 0. */
void ev_fixprint_parts(struct ev_fixprint *p, const struct ev_fingerprint_key *k, const struct ev_fix_msg *m,
		       const uint32_t *changed, size_t nchanged, uint64_t *invariant, uint64_t *changeable);

void ev_fixprint_free(struct ev_fixprint *p);

#endif
