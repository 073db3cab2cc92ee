/* SPDX-License-Identifier: Apache-2.0 */
/* fixread_raw: framing concatenated FIX messages, shared by the raw and
 * the QuickFIX store readers (fixread.h). Internal to lib/fix/fixread*.c. */
#ifndef EV_FIXREAD_RAW_H
#define EV_FIXREAD_RAW_H

#include <stddef.h>
#include <stdint.h>

#include "lib/fix/fixread.h"

typedef void (*ev_fixread_raw_fn)(void *ctx, struct ev_fixread *r, const unsigned char *msg,
				  uint32_t len, uint64_t at);

/* Frame whole messages from d (len bytes at file offset at), handing each
 * to on_message; damage goes to the reader's sink. @return bytes used. */
size_t ev_fixread_raw_parse(struct ev_fixread *r, const unsigned char *d, size_t len, uint64_t at,
			    int eof, ev_fixread_raw_fn on_message, void *ctx);

#endif
