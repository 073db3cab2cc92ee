/* SPDX-License-Identifier: Apache-2.0 */
/* A QuickFIX FileLog (messages.current.log): one message a line, behind a
 * "YYYYMMDD-HH:MM:SS.nnnnnnnnn : " timestamp (also with 3 or 6 fractional
 * digits), incoming and outgoing interleaved. Each message is handed over
 * without its prefix and newline. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "lib/fix/fixformat.h"
#include "lib/fix/fixmsg.h"
#include "lib/fix/fixread.h"

#define STAMP_MIN 17 /* YYYYMMDD-HH:MM:SS */

/* The length of the line's prefix up to the message, or 0 when the line
 * has another shape. */
static size_t prefix_length(const unsigned char *l, size_t n)
{
	const unsigned char *sep = n > STAMP_MIN ? memchr(l, ' ', n) : NULL;
	if (!sep || (size_t)(sep - l) < STAMP_MIN || l[8] != '-' || (size_t)(sep - l) + 3 > n ||
	    sep[1] != ':' || sep[2] != ' ')
		return 0;
	for (const unsigned char *p = l; p < sep; p++)
		if (!((*p >= '0' && *p <= '9') || *p == '-' || *p == ':' || *p == '.'))
			return 0;
	return (size_t)(sep - l) + 3;
}

static size_t parse(void *st, struct ev_fixread *r, const unsigned char *d, size_t len,
		    uint64_t at, int eof)
{
	(void)st;
	size_t p = 0;
	while (p < len) {
		const unsigned char *nl = memchr(d + p, '\n', len - p);
		if (!nl && !eof)
			return p;
		size_t n = nl ? (size_t)(nl - (d + p)) : len - p;
		size_t pre = prefix_length(d + p, n);
		if (n == 0) {
			/* an empty line */
		} else if (!pre) {
			char got[64];
			/* the line's own bytes only: nothing after it is ours to read */
			snprintf(got, sizeof got, "%.*s", (int)(n < 40 ? n : 40), (const char *)d + p);
			for (char *c = got; *c; c++)
				if ((unsigned char)*c < 0x20)
					*c = '.';
			ev_fixread_damage(r, EV_RULE_LOG_LINE, at + p,
					  "a line that is not \"timestamp : message\"",
					  "YYYYMMDD-HH:MM:SS.nnnnnnnnn : 8=...", got);
		} else {
			uint64_t secs, stamp = 0;
			uint32_t nanos;
			if (ev_fix_utc_timestamp((const char *)d + p, (uint32_t)(pre - 3), &secs, &nanos) == 0)
				stamp = ev_fix_timestamp_ns(secs, nanos);
			ev_fixread_emit_stamped(r, d + p + pre, (uint32_t)(n - pre), at + p + pre, stamp);
		}
		p += n + (nl ? 1 : 0);
	}
	return p;
}

const struct ev_fixread_ops ev_fixread_qflog_ops = {
	.state_size = 0,
	.parse = parse,
};
