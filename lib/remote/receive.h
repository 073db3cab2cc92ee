/* SPDX-License-Identifier: Apache-2.0 */
/* receive: the far end of a push, what `replicate receive DIR NAME SIZE
 * SHA256` runs there. The conversation with the sender (transport.c) is
 * in receive.c's opening comment and doc/formats.md. */
#ifndef EV_RECEIVE_H
#define EV_RECEIVE_H

#include <stdint.h>

#include "lib/core/status.h"

/* Store NAME (a plain file name) in DIR (made with its parents when
 * missing) from the bytes read from in, answering on out: nothing to send
 * when DIR/NAME already hashes to sha256; else resumed from what a
 * previous try kept in DIR/.NAME.partial, and published as DIR/NAME only
 * once it is size bytes and hashes to sha256. @return EV_OK once stored;
 * EV_USAGE (a name or digest that is not one), EV_REFUSED or EV_ERROR: err
 * names the file and why, and nothing is published (a partial file whose
 * bytes hash differently is removed). */
ev_status ev_receive_file(int in, int out, const char *dir, const char *name, uint64_t size, const char *sha256,
			  struct ev_error *err);

#endif
