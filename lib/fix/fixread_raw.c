/* SPDX-License-Identifier: Apache-2.0 */
/* Concatenated FIX messages, each framed by its BodyLength (fixmsg.h's
 * ev_fix_frame); bytes that start no message are skipped to the next
 * "8=FIX" and reported once per run. Also the body of a QuickFIX store. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "lib/fix/fixmsg.h"
#include "lib/fix/fixread.h"
#include "lib/fix/fixread_raw.h"

static const unsigned char *next_start(const unsigned char *d, size_t len)
{
	for (const unsigned char *p = d; (p = memchr(p, '8', (size_t)(d + len - p))) != NULL; p++)
		if ((size_t)(d + len - p) < 5 || memcmp(p, "8=FIX", 5) == 0)
			return p;
	return NULL;
}

size_t ev_fixread_raw_parse(struct ev_fixread *r, const unsigned char *d, size_t len, uint64_t at,
			    int eof, ev_fixread_raw_fn on_message, void *ctx)
{
	size_t p = 0;
	while (p < len) {
		long n = ev_fix_frame((const char *)d + p, len - p);
		if (n > 0) {
			on_message(ctx, r, d + p, (uint32_t)n, at + p);
			p += (size_t)n;
			continue;
		}
		if (n == 0) {
			if (!eof)
				return p;
			char got[64];
			snprintf(got, sizeof got, "%zu bytes", len - p);
			ev_fixread_damage(r, EV_RULE_STREAM_FRAMING, at + p,
					  "the last message is cut short", "a whole message", got);
			return len;
		}
		const unsigned char *next = next_start(d + p + 1, len - p - 1);
		size_t skip = next ? (size_t)(next - (d + p)) : len - p;
		if (!next && !eof && len - p < 5)
			return p;
		char got[64];
		snprintf(got, sizeof got, "%zu bytes", skip);
		ev_fixread_damage(r, EV_RULE_STREAM_FRAMING, at + p,
				  "bytes that start no FIX message (8=..., 9=BodyLength) were skipped",
				  "a message", got);
		p += skip;
	}
	return p;
}

static void emit(void *ctx, struct ev_fixread *r, const unsigned char *msg, uint32_t len, uint64_t at)
{
	(void)ctx;
	ev_fixread_emit(r, msg, len, at);
}

static size_t parse(void *st, struct ev_fixread *r, const unsigned char *d, size_t len,
		    uint64_t at, int eof)
{
	(void)st;
	return ev_fixread_raw_parse(r, d, len, at, eof, emit, NULL);
}

const struct ev_fixread_ops ev_fixread_raw_ops = {
	.state_size = 0,
	.parse = parse,
};
