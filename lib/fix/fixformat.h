/* SPDX-License-Identifier: Apache-2.0 */
/* fixformat: the data formats of FIX field types, strictly.
 *
 * Integers: an optional '-' (not for LENGTH, NUMINGROUP, SEQNUM), then
 * digits. Decimals: an optional '-', digits with at most one '.', at least
 * one digit, no '+', no exponent. CHAR: one character; BOOLEAN: Y or N.
 * UTCTIMESTAMP: YYYYMMDD-HH:MM:SS with none, 3, 6 or 9 fractional digits
 * (17, 21, 24 or 27 characters). UTCTIMEONLY: HH:MM:SS[.fff...];
 * UTCDATEONLY and LOCALMKTDATE: YYYYMMDD; MONTHYEAR: YYYYMM, YYYYMMDD or
 * YYYYMMwN; TZ types: a time with Z or +hh[:mm] / -hh[:mm] (hh to 14).
 * Calendar-valid: a date is a day of the Gregorian calendar (its month's
 * length, 29 February in leap years only); second 60 only at 23:59:60 UTC
 * (a TZ time moved to UTC by its offset), and in a UTCTIMESTAMP only on a
 * day IERS inserted a leap second, or, after the last day its Bulletin C
 * had ruled on when evidence was written (2025-12-31), on 30 June or
 * 31 December. Strings: anything non-empty. Pure functions.
 */
#ifndef EV_FIXFORMAT_H
#define EV_FIXFORMAT_H

#include <stdint.h>

#include "lib/fix/fixdict.h"

/* @return 1 when value (len bytes, len > 0) is well-formed for type. */
int ev_fix_format_ok(enum ev_fix_type type, const char *value, uint32_t len);

/* A UTCTIMESTAMP as a comparable pair: YYYYMMDDHHMMSS and nanoseconds.
 * @return 0, or -1 when it is not one. */
int ev_fix_utc_timestamp(const char *value, uint32_t len, uint64_t *seconds, uint32_t *nanos);

/* The last UTCTIMESTAMP found well-formed at one place (a field position):
 * in a benchmark's orders consecutive timestamps share their date and
 * second, so a value with the same length and the same first 18 bytes
 * ("YYYYMMDD-HH:MM:SS.") is judged by its fraction digits alone. Zero it to
 * start. */
struct ev_fix_time_memo {
	char head[18];
	uint32_t len; /* 0: nothing remembered */
	uint64_t seconds;
};

/* The pair ev_fix_utc_timestamp gives (YYYYMMDDHHMMSS, nanoseconds) as
 * nanoseconds since 1970-01-01 UTC (proleptic Gregorian, no leap
 * seconds, as FIX's UTCTimestamp); years before 1970 give 0. Arithmetic
 * (latency, order) needs this; the pair only compares. */
uint64_t ev_fix_timestamp_ns(uint64_t seconds, uint32_t nanos);

/* ev_fix_utc_timestamp through memo: the same verdict and values, in
 * fewer steps when memo's head matches; a well-formed value becomes memo's. */
int ev_fix_utc_timestamp_memo(struct ev_fix_time_memo *memo, const char *value, uint32_t len,
			      uint64_t *seconds, uint32_t *nanos);

/* The type's FIX name, for messages ("UTCTIMESTAMP", "PRICE", ...). */
const char *ev_fix_type_name(enum ev_fix_type type);

#endif
