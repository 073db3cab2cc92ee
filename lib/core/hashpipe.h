/* SPDX-License-Identifier: Apache-2.0 */
/* hashpipe: a bounded ring of buffers feeding one SHA-256 thread, so that a
 * reader can hash a stream of members while it does other work with the
 * same bytes (compress them, decompress the next ones).
 *
 * One producer thread: take the next free buffer, fill it, publish it (with
 * `last` on a member's final chunk, possibly empty, and where its digest
 * goes). The buffer stays readable by the producer until it takes a buffer
 * SLOTS further on, so it may be handed to a compressor after publishing.
 * A producer whose bytes already sit in a buffer of its own may hand them
 * over without a copy (ev_hashpipe_publish_ref), and must then keep them
 * unchanged until ev_hashpipe_wait says the hasher is past them.
 * The digest written to *digest_out is valid after ev_hashpipe_finish.
 * Memory: slots * slot_bytes, fixed.
 */
#ifndef EV_HASHPIPE_H
#define EV_HASHPIPE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/core/sha256.h"
#include "lib/core/status.h"

struct ev_hashpipe;

/* Start the hashing thread. @return EV_OK or EV_ERROR (memory, threads). */
ev_status ev_hashpipe_new(struct ev_hashpipe **out, size_t slots, size_t slot_bytes,
			  struct ev_error *err);

/* The next free buffer (slot_bytes long); waits while all are in use. */
unsigned char *ev_hashpipe_buffer(struct ev_hashpipe *p);

/* Hand the buffer from ev_hashpipe_buffer, holding len bytes, to the hasher.
 * last: this ends a member, whose digest goes to digest_out. */
void ev_hashpipe_publish(struct ev_hashpipe *p, size_t len, int last,
			 uint8_t digest_out[EV_SHA256_LEN]);

/* Hand the hasher len bytes at data, left where they are: they must not
 * change until ev_hashpipe_wait(p, ticket) returns for the ticket this
 * returns. Waits while every slot is in use. Ordered with the other
 * publications. */
uint64_t ev_hashpipe_publish_ref(struct ev_hashpipe *p, const void *data, size_t len, int last,
				 uint8_t digest_out[EV_SHA256_LEN]);

/* Wait until everything published up to ticket is hashed (0: returns at once). */
void ev_hashpipe_wait(struct ev_hashpipe *p, uint64_t ticket);

/* The hasher's own failure so far (EV_OK while none), copied into err. */
ev_status ev_hashpipe_status(struct ev_hashpipe *p, struct ev_error *err);

/* Wait until everything published is hashed and stop the thread.
 * @return the hasher's failure, if any. Safe to call once; then free. */
ev_status ev_hashpipe_finish(struct ev_hashpipe *p, struct ev_error *err);

/* Finish (if not yet) and free; NULL accepted. */
void ev_hashpipe_free(struct ev_hashpipe *p);

#endif
